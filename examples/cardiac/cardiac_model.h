/* The element math of the cardiac example, written once for the host loop (cardiac_kernels.c) and the CUDA
   kernel (cardiac_kernels.cu): monodomain Aliev-Panfilov (Goektepe-Kuhl 2009 form) on P1 tetrahedra,
   backward Euler, global-local Newton.

   Units: x in mm, t in ms, phi nondimensional (Phi = 100 phi - 80 mV); the model's time tau = t / tscale.
     dphi/dt = div(D grad phi) + k f_phi(phi, r) + I_stim,   k = 1 / tscale (tscale = 12.9 ms)
     dr/dt   = k f_r(phi, r)
     f_phi = c phi (phi - alpha)(1 - phi) - r phi
     f_r   = [gamma + mu1 r / (mu2 + phi)] [-r - c phi (phi - b - 1)]
   D = d_iso I + d_ani f (x) f (mm^2/ms), f the unit fibre direction of the element.

   One integration point per element (the centroid, as in Wong-Kuhl-Darve): r lives there; phi_gp is the
   mean of the nodal values.  For the current nodal phi, the local residual
     R_r = (r - r_n)/dt - k f_r(phi_gp, r)
   is solved by a scalar Newton (from r_n), then the element residual and the consistent tangent
     R_a  = sum_b M_ab (phi_b - phi_n,b)/dt + |T| grad N_a . D grad phi - |T|/4 (k f_phi + I_stim)
     K_ab = M_ab/dt + |T| grad N_a . D grad N_b - |T|/16 k (df_phi/dphi + df_phi/dr dr/dphi)
   with dr/dphi = k df_r/dphi / (1/dt - k df_r/dr) from the converged local problem.  K is symmetric
   (CG applies) and positive definite for dt below about 4 ms (the reaction slope is at most ~0.2/ms).
   M: consistent P1 mass |T|/20 (1 + delta_ab), or lumped |T|/4 delta_ab.
   The element is independent of its vertex order (|det|), so any closure ordering of the assembler works. */
#pragma once

#include <petscsys.h>

#if defined(__CUDACC__)
  #define CARDIAC_HD __host__ __device__
#else
  #define CARDIAC_HD
#endif

typedef struct {
  PetscReal c, alpha, gamma, b, mu1, mu2; /* Aliev-Panfilov constants */
  PetscReal tscale;                       /* ms per model time unit */
  PetscReal dt;                           /* time step, ms */
  PetscReal diso, dani;                   /* conductivities, mm^2/ms */
  PetscReal istim;                        /* stimulus current now (1/ms), applied to elements with stim > 0 */
  PetscInt  lumped;                       /* lumped mass matrix */
  PetscInt  local_maxit;                  /* local Newton iterations at most */
  PetscReal local_tol;                    /* local Newton: |R_r| dt below this */
} CardiacParams;

/* per-element data, entry-major SoA over all elements (host or device pointers) */
typedef struct {
  const PetscReal *fib;   /* [3][nelem_total] unit fibre direction */
  const PetscReal *stim;  /* [nelem_total] stimulus weight (0 or 1) */
  const PetscReal *rn;    /* [nelem_total] r at the previous step */
  PetscReal       *rnew;  /* [nelem_total] r at the current phi (written by the residual) */
  PetscInt         ntot;  /* nelem_total */
} CardiacElementData;

/* local Newton for r at the integration point; returns r, dr/dphi, f_phi and its total derivative */
CARDIAC_HD static inline void CardiacLocal(const CardiacParams *p, PetscReal phi, PetscReal rn, PetscReal *r_out, PetscReal *fphi, PetscReal *dfphi)
{
  const PetscReal k = 1.0 / p->tscale, idt = 1.0 / p->dt, den = p->mu2 + phi, iden = 1.0 / den; /* divisions hoisted: FP64 division is slow on GPUs */
  const PetscReal B0 = -p->c * phi * (phi - p->b - 1.0); /* f_r's second factor without -r */
  PetscReal       r  = rn, A, B, dRdr;

  for (PetscInt it = 0; it < p->local_maxit; it++) {
    PetscReal R;
    A    = p->gamma + p->mu1 * r * iden;
    B    = -r + B0;
    R    = (r - rn) * idt - k * A * B;
    dRdr = idt - k * (p->mu1 * iden * B - A);
    r -= R / dRdr;
    if (PetscAbsReal(R) * p->dt < p->local_tol) break;
  }
  A    = p->gamma + p->mu1 * r * iden;
  B    = -r + B0;
  dRdr = idt - k * (p->mu1 * iden * B - A);
  {
    const PetscReal dfr_dphi = -p->mu1 * r * iden * iden * B + A * (-p->c * (2.0 * phi - p->b - 1.0));
    const PetscReal drdphi   = k * dfr_dphi / dRdr;
    const PetscReal dfp_dphi = p->c * ((phi - p->alpha) * (1.0 - phi) + phi * (1.0 - phi) - phi * (phi - p->alpha)) - r;
    *r_out = r;
    *fphi  = p->c * phi * (phi - p->alpha) * (1.0 - phi) - r * phi;
    *dfphi = dfp_dphi - phi * drdphi;
  }
}

/* gradients of the 4 barycentric functions (g[a][d]); returns |T| */
CARDIAC_HD static inline PetscReal CardiacTetGeometry(const PetscReal x[12], PetscReal g[4][3])
{
  PetscReal e1[3], e2[3], e3[3], det, idet;

  for (int d = 0; d < 3; d++) {
    e1[d] = x[3 + d] - x[d];
    e2[d] = x[6 + d] - x[d];
    e3[d] = x[9 + d] - x[d];
  }
  g[1][0] = e2[1] * e3[2] - e2[2] * e3[1];
  g[1][1] = e2[2] * e3[0] - e2[0] * e3[2];
  g[1][2] = e2[0] * e3[1] - e2[1] * e3[0];
  g[2][0] = e3[1] * e1[2] - e3[2] * e1[1];
  g[2][1] = e3[2] * e1[0] - e3[0] * e1[2];
  g[2][2] = e3[0] * e1[1] - e3[1] * e1[0];
  g[3][0] = e1[1] * e2[2] - e1[2] * e2[1];
  g[3][1] = e1[2] * e2[0] - e1[0] * e2[2];
  g[3][2] = e1[0] * e2[1] - e1[1] * e2[0];
  det     = e1[0] * g[1][0] + e1[1] * g[1][1] + e1[2] * g[1][2];
  idet    = 1.0 / det;
  for (int a = 1; a < 4; a++)
    for (int d = 0; d < 3; d++) g[a][d] *= idet;
  for (int d = 0; d < 3; d++) g[0][d] = -(g[1][d] + g[2][d] + g[3][d]);
  return PetscAbsReal(det) / 6.0;
}

/* Element e of a batch of nelem (entry-major arrays); eg = global element number (per-element data).
   The nodal state: edof == NULL: ue/ae are the assembler's gathered element buffers ([4][nelem]); else ue/ae are
   the nodal arrays and edof the element -> dof map ([4][nelem], DMAssemblySetNodalState()).
   fe (residual, also updates rnew) and/or ke (tangent) may be NULL. */
CARDIAC_HD static inline void CardiacElement(const CardiacParams *p, const CardiacElementData *d, PetscInt e, PetscInt eg, PetscInt nelem, const PetscReal *xe, const PetscInt *edof, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *fe, PetscScalar *ke)
{
  PetscReal x[12], u[4], un[4], g[4][3], f[3], vol, phi = 0, r, fphi, dfphi, fg[4], gp[3] = {0, 0, 0}, fgp = 0;

  for (int k = 0; k < 12; k++) x[k] = xe[(PetscCount)k * nelem + e];
  for (int a = 0; a < 4; a++) {
    const PetscCount q = edof ? edof[(PetscCount)a * nelem + e] : (PetscCount)a * nelem + e;
    u[a]  = PetscRealPart(ue[q]);
    un[a] = PetscRealPart(ae[q]);
    phi += 0.25 * u[a];
  }
  for (int k = 0; k < 3; k++) f[k] = d->fib[(PetscCount)k * d->ntot + eg];
  vol = CardiacTetGeometry(x, g);
  CardiacLocal(p, phi, d->rn[eg], &r, &fphi, &dfphi);
  for (int a = 0; a < 4; a++) fg[a] = f[0] * g[a][0] + f[1] * g[a][1] + f[2] * g[a][2];
  if (fe) {
    const PetscReal src = 0.25 * vol * (fphi / p->tscale + p->istim * d->stim[eg]), idt = 1.0 / p->dt;
    PetscReal       dphi[4];
    for (int a = 0; a < 4; a++) {
      dphi[a] = (u[a] - un[a]) * idt;
      fgp += fg[a] * u[a];
      for (int k = 0; k < 3; k++) gp[k] += g[a][k] * u[a];
    }
    for (int a = 0; a < 4; a++) {
      PetscReal m = 0;
      if (p->lumped) m = 0.25 * vol * dphi[a];
      else m = vol / 20.0 * (dphi[0] + dphi[1] + dphi[2] + dphi[3] + dphi[a]);
      fe[(PetscCount)a * nelem + e] = m + vol * (p->diso * (g[a][0] * gp[0] + g[a][1] * gp[1] + g[a][2] * gp[2]) + p->dani * fg[a] * fgp) - src;
    }
    d->rnew[eg] = r;
  }
  if (ke) {
    const PetscReal rx = vol / 16.0 * dfphi / p->tscale, mdt = vol / p->dt;
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) {
        PetscReal m = p->lumped ? (a == b ? 0.25 : 0.0) : (a == b ? 0.1 : 0.05);
        ke[(PetscCount)(4 * a + b) * nelem + e] = m * mdt + vol * (p->diso * (g[a][0] * g[b][0] + g[a][1] * g[b][1] + g[a][2] * g[b][2]) + p->dani * fg[a] * fg[b]) - rx;
      }
  }
}

/* activation time: first crossing of phi_thr upwards between two steps (linear in time); -1 = not yet */
CARDIAC_HD static inline PetscReal CardiacActivation(PetscReal act, PetscReal phiold, PetscReal phinew, PetscReal t, PetscReal dt, PetscReal thr)
{
  if (act < 0 && phinew >= thr) {
    PetscReal s = phiold < thr ? (thr - phiold) / (phinew - phiold) : 0.0;
    return t - dt + s * dt;
  }
  return act;
}

/* The cardiac element (examples/cardiac/cardiac_model.h): the consistent tangent, including dr/dphi of the
   local Newton problem, equals the finite-difference derivative of the element residual; it is symmetric;
   the local problem is solved; the element is invariant under vertex reordering.  Random elements and
   states over the whole action-potential range (phi in [-0.05, 1.05], r in [0, 2.5]). */
#include <petscsys.h>
#include "../examples/cardiac/cardiac_model.h"

int main(int argc, char **argv)
{
  CardiacParams p;
  PetscRandom   rnd;
  PetscReal     maxrel = 0, maxsym = 0, maxloc = 0, maxperm = 0;
  PetscInt      nel = 200;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &nel, NULL));
  p.c = 8.0; p.alpha = 0.01; p.gamma = 0.002; p.b = 0.15; p.mu1 = 0.2; p.mu2 = 0.3; p.tscale = 12.9;
  p.dt = 0.25; p.diso = 0.15; p.dani = 0.85; p.istim = 0.3; p.lumped = 0; p.local_maxit = 50; p.local_tol = 1e-14;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  for (PetscInt e = 0; e < nel; e++) {
    PetscReal xe[12], ue[4], ae[4], fe[4], ke[16], fib[3], stim = (PetscReal)(e % 2), rn, rnew, nf = 0, g[4][3];
    CardiacElementData d;
    p.lumped = e % 3 == 0;
    for (int k = 0; k < 12; k++) PetscCall(PetscRandomGetValueReal(rnd, &xe[k]));
    for (int a = 0; a < 4; a++) {
      PetscReal s;
      PetscCall(PetscRandomGetValueReal(rnd, &s));
      ue[a] = -0.05 + 1.1 * s;
      PetscCall(PetscRandomGetValueReal(rnd, &s));
      ae[a] = ue[a] - 0.1 + 0.2 * s;
    }
    for (int k = 0; k < 3; k++) {
      PetscCall(PetscRandomGetValueReal(rnd, &fib[k]));
      fib[k] -= 0.5;
      nf += fib[k] * fib[k];
    }
    for (int k = 0; k < 3; k++) fib[k] /= PetscSqrtReal(nf);
    PetscCall(PetscRandomGetValueReal(rnd, &rn));
    rn *= 2.5;
    if (CardiacTetGeometry(xe, g) < 1e-3) continue; /* skip slivers: FD is ill-conditioned there */
    d.fib = fib; d.stim = &stim; d.rn = &rn; d.rnew = &rnew; d.ntot = 1;
    CardiacElement(&p, &d, 0, 0, 1, xe, NULL, ue, ae, fe, ke);
    { /* local residual at the returned r */
      PetscReal phi = 0.25 * (ue[0] + ue[1] + ue[2] + ue[3]), A = p.gamma + p.mu1 * rnew / (p.mu2 + phi), B = -rnew - p.c * phi * (phi - p.b - 1);
      maxloc = PetscMax(maxloc, PetscAbsReal((rnew - rn) / p.dt - A * B / p.tscale));
    }
    for (int b = 0; b < 4; b++) {
      PetscReal up[4], um[4], fp[4], fm[4], h = 1e-6, scale = 0;
      for (int a = 0; a < 4; a++) up[a] = um[a] = ue[a];
      up[b] += h;
      um[b] -= h;
      CardiacElement(&p, &d, 0, 0, 1, xe, NULL, up, ae, fp, NULL);
      CardiacElement(&p, &d, 0, 0, 1, xe, NULL, um, ae, fm, NULL);
      for (int a = 0; a < 4; a++) scale = PetscMax(scale, PetscAbsReal(ke[4 * a + b]));
      for (int a = 0; a < 4; a++) maxrel = PetscMax(maxrel, PetscAbsReal((fp[a] - fm[a]) / (2 * h) - ke[4 * a + b]) / scale);
      for (int a = 0; a < 4; a++) maxsym = PetscMax(maxsym, PetscAbsReal(ke[4 * a + b] - ke[4 * b + a]) / scale);
    }
    { /* reversed vertex order: same element vector, permuted */
      PetscReal xr[12], ur[4], ar[4], fr[4];
      for (int a = 0; a < 4; a++) {
        for (int k = 0; k < 3; k++) xr[3 * a + k] = xe[3 * (3 - a) + k];
        ur[a] = ue[3 - a];
        ar[a] = ae[3 - a];
      }
      CardiacElement(&p, &d, 0, 0, 1, xr, NULL, ur, ar, fr, NULL);
      for (int a = 0; a < 4; a++) maxperm = PetscMax(maxperm, PetscAbsReal(fr[a] - fe[3 - a]) / (PetscAbsReal(fe[3 - a]) + 1e-12));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "cardiac element: tangent vs finite differences %.2e, asymmetry %.2e, local residual %.2e, vertex-order change %.2e\n", (double)maxrel, (double)maxsym, (double)maxloc, (double)maxperm));
  PetscCheck(maxrel < 1e-5, PETSC_COMM_SELF, PETSC_ERR_PLIB, "tangent does not match the residual's derivative");
  PetscCheck(maxsym < 1e-12, PETSC_COMM_SELF, PETSC_ERR_PLIB, "tangent not symmetric");
  PetscCheck(maxloc < 1e-10, PETSC_COMM_SELF, PETSC_ERR_PLIB, "local problem not solved");
  PetscCheck(maxperm < 1e-9, PETSC_COMM_SELF, PETSC_ERR_PLIB, "element depends on the vertex order");
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "PASS\n"));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}

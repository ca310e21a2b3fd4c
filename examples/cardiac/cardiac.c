static const char help[] = "Cardiac electrophysiology on the GPU: monodomain Aliev-Panfilov (Goektepe-Kuhl form) on the idealized\n"
                           "left ventricle of Land et al. 2015 (or a slab, or any gmsh tetrahedral mesh), P1 tetrahedra, backward Euler,\n"
                           "global-local Newton (r at the integration point, local Newton in the element kernel), SNES + KSP (CG + Jacobi\n"
                           "by default), element assembly through the DM GPU assembler, matrix MATELLWARP (-dm_mat_type ellwarp).\n"
                           "GPU: -dm_mat_type ellwarp -dm_vec_type cuda.  CPU: -dm_mat_type ellwarp -mat_ellwarp_backend host, or aij.\n";

/* Issue 7.  The model and its element math: cardiac_model.h.  Element callbacks: cardiac_kernels.{c,cu}.
   Mesh, fibres, stimulus: cardiac_mesh.c.  VTU/PVD/PNG output: cardiac_output.c.  README.md in this
   directory documents options, outputs and the studies. */
#include <petscellwarp.h>
#include <petscellwarpassembly.h>
#include <petscts.h>
#include <petsctime.h>
#include <petscdevice.h>
#include "cardiac.h"
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  DMAssembly     as;
  CardiacCtx    *cc;
  PetscBool      device;
  PetscLogDouble t_asm;   /* wall time in assembly during the current step */
  PetscLogEvent  ev_res, ev_jac;
  PetscInt       nres, njac; /* assemblies so far (the bytes model) */
} AppCtx;

static PetscErrorCode FormResidual(SNES snes, Vec U, Vec F, void *ptr)
{
  AppCtx        *app = (AppCtx *)ptr;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(CardiacSync(app->device));
  PetscCall(PetscTime(&t0));
  PetscCall(PetscLogEventBegin(app->ev_res, 0, 0, 0, 0));
  PetscCall(DMAssemblyComputeResidual(app->as, U, F));
  app->nres++;
  PetscCall(CardiacSync(app->device));
  PetscCall(PetscLogEventEnd(app->ev_res, 0, 0, 0, 0));
  PetscCall(PetscTime(&t1));
  app->t_asm += t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FormJacobian(SNES snes, Vec U, Mat J, Mat P, void *ptr)
{
  AppCtx        *app = (AppCtx *)ptr;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(CardiacSync(app->device));
  PetscCall(PetscTime(&t0));
  PetscCall(PetscLogEventBegin(app->ev_jac, 0, 0, 0, 0));
  PetscCall(DMAssemblyComputeJacobian(app->as, U, P));
  app->njac++;
  if (J != P) {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(CardiacSync(app->device));
  PetscCall(PetscLogEventEnd(app->ev_jac, 0, 0, 0, 0));
  PetscCall(PetscTime(&t1));
  app->t_asm += t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rank 0 makes the directory (concurrent PetscMkdir calls race), the others wait */
static PetscErrorCode MakeOutputDir(const char *dir)
{
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (!rank) PetscCall(PetscMkdir(dir));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The P1 field's local and global sections, one dof on each vertex, in vertex order: what DMPlexCreateSection() and
   DMGetGlobalSection() make for it on one process, which took 1.8 s and 0.35 s (H100 host) for the 7.1 M points of
   the 1 M-vertex LV (per-point queries of labels and closures; PetscSectionCreateGlobalSection's dozen calls per
   point); these loops over the vertices take a few milliseconds.  One process, no constraints, a point SF without
   leaves: PETSc's global section then has the local one's dofs and offsets, which is what is built here (its flag
   includesConstraints, false there and true here, matters only where there are constraints).  The vertex numbering, hence every dof, is the same
   (tests/cardiac_section.sh, tests/cardiac_compare).  PETSc sets the DM's value layout (dm->map, read by
   DMPlexPointGlobalRead/Ref) only when it makes the global section itself; this example does not use those. */
static PetscErrorCode SetP1Sections(DM dm)
{
  PetscSection s[2];
  PetscInt     pStart, pEnd, vStart, vEnd;

  PetscFunctionBegin;
  PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  for (int k = 0; k < 2; k++) {
    PetscCall(PetscSectionCreate(PetscObjectComm((PetscObject)dm), &s[k]));
    PetscCall(PetscSectionSetNumFields(s[k], 1));
    PetscCall(PetscSectionSetFieldComponents(s[k], 0, 1));
    PetscCall(PetscSectionSetChart(s[k], pStart, pEnd));
    for (PetscInt v = vStart; v < vEnd; v++) {
      PetscCall(PetscSectionSetDof(s[k], v, 1));
      PetscCall(PetscSectionSetFieldDof(s[k], v, 0, 1));
    }
    PetscCall(PetscSectionSetUp(s[k]));
  }
  PetscCall(DMSetLocalSection(dm, s[0])); /* first: it drops any global section */
  PetscCall(DMSetGlobalSection(dm, s[1]));
  PetscCall(PetscSectionDestroy(&s[0]));
  PetscCall(PetscSectionDestroy(&s[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Seconds since this process started (its start time in /proc/self/stat against CLOCK_BOOTTIME, both since boot;
   10 ms resolution), or -1 where that is not available: what a user timing the process sees before
   PetscInitialize() returns (loading the shared libraries, MPI_Init) and after PetscFinalize().  Plain C: also called
   before PetscInitialize and after PetscFinalize. */
static double ProcessAge(void)
{
#if defined(__linux__) && defined(CLOCK_BOOTTIME)
  FILE              *fp = fopen("/proc/self/stat", "r");
  char               buf[1024], *p;
  unsigned long long start = 0;
  struct timespec    now;
  size_t             n;
  int                field = 2;

  if (!fp) return -1;
  n = fread(buf, 1, sizeof(buf) - 1, fp);
  fclose(fp);
  buf[n] = 0;
  p      = strrchr(buf, ')'); /* after the command name, which may hold spaces */
  if (!p || clock_gettime(CLOCK_BOOTTIME, &now)) return -1;
  for (p++; *p && field < 22; p++) /* field 22: starttime, in clock ticks */
    if (*p == ' ') field++;
  if (sscanf(p, "%llu", &start) != 1) return -1;
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec - (double)start / (double)sysconf(_SC_CLK_TCK);
#else
  return -1;
#endif
}

/* index of the vertex nearest to p */
/* the lumped mass (each tet's volume split over its 4 vertices) of the whole mesh into v (vertex order), and its 2-norm */
static PetscErrorCode LumpedMass(const LVMesh *lm, Vec v, PetscReal *norm)
{
  PetscScalar *m;

  PetscFunctionBegin;
  PetscCall(VecSet(v, 0.0));
  PetscCall(VecGetArray(v, &m));
  for (PetscInt t = 0; t < lm->nt; t++) {
    PetscReal x[12], g[4][3], vol;
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) x[3 * a + d] = lm->xyz[3 * lm->tet[4 * t + a] + d];
    vol = CardiacTetGeometry(x, g);
    for (int a = 0; a < 4; a++) m[lm->tet[4 * t + a]] += 0.25 * vol;
  }
  PetscCall(VecRestoreArray(v, &m));
  PetscCall(VecNorm(v, NORM_2, norm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One process with a dof ordering (-dm_assembly_ordering rcm|ellwarp: DMAssemblySetLocalityOrdering renumbers the DM's
   dofs, not its vertices): the global dof of each vertex, for the outputs in vertex order (VTU, PNG, probes, -act_view) */
static PetscErrorCode VertexDofs(DM dm, PetscInt **v2d)
{
  PetscSection gs;
  PetscInt     vStart, vEnd;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalSection(dm, &gs));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(PetscMalloc1(vEnd - vStart, v2d));
  for (PetscInt v = vStart; v < vEnd; v++) PetscCall(PetscSectionGetOffset(gs, v, &(*v2d)[v - vStart]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a vertex field (global vector) -> nat[original vertex] on rank 0: through the distribution's SF on several
   processes, through v2d on one process with a dof ordering */
static PetscErrorCode GatherVertices(CardiacDist *dist, const PetscInt *v2d, PetscInt nv, Vec v, PetscScalar *nat)
{
  const PetscScalar *a;

  PetscFunctionBegin;
  if (!v2d) {
    PetscCall(CardiacDistGatherVertices(dist, v, nat));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetArrayRead(v, &a));
  for (PetscInt i = 0; i < nv; i++) nat[i] = a[v2d[i]];
  PetscCall(VecRestoreArrayRead(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt NearestVertex(const LVMesh *m, const PetscReal p[3])
{
  PetscInt  best = 0;
  PetscReal bd   = PETSC_MAX_REAL;
  for (PetscInt v = 0; v < m->nv; v++) {
    PetscReal d = PetscSqr(m->xyz[3 * v] - p[0]) + PetscSqr(m->xyz[3 * v + 1] - p[1]) + PetscSqr(m->xyz[3 * v + 2] - p[2]);
    if (d < bd) {
      bd   = d;
      best = v;
    }
  }
  return best;
}

/* The per-step work around the nonlinear solve, shared by the hand loop and the TS loop (-cardiac_ts): stimulus
   and phi_n before the solve; after it, commit r, activation times, VTU output, timing and the progress line. */
typedef struct {
  AppCtx        *app;
  CardiacCtx    *cc;
  CardiacMesh   *cm;
  CardiacDist   *dist;
  SNES           snes;
  Vec            phi, phin, act;
  Vec            phidot; /* -cardiac_extrapolate: (phi_n - phi_{n-1}) / dt, computed as TS theta computes its Udot */
  PetscReal      dt, stim_amp, stim_dur, phi_thr;
  PetscInt       vtu_every, monitor_every, nvtu, laststep;
  PetscBool      stop_activated, stopped;
  const char    *outdir;
  char         **vtunames;
  PetscReal     *vtutimes;
  PetscScalar   *phinat, *actnat;
  PetscReal     *rnat;
  const PetscInt *v2d; /* one process with a dof ordering: vertex -> dof (NULL: the identity, or several processes) */
  PetscMPIInt    size, rank;
  PetscLogDouble s0, sum_step, sum_asm, sum_snes, first_step;
  PetscInt       sum_newton, sum_ksp, counted;
  PetscInt       nres0, njac0, sum_res, sum_jac; /* assemblies: at the step's start, and summed over the counted steps */
} Loop;

static PetscErrorCode StepBegin(Loop *L, PetscInt step)
{
  const PetscReal t = step * L->dt;

  PetscFunctionBegin;
  PetscCall(CardiacSync(L->app->device));
  PetscCall(PetscTime(&L->s0));
  L->app->t_asm  = 0;
  L->nres0       = L->app->nres;
  L->njac0       = L->app->njac;
  L->cc->p.istim = t <= L->stim_dur + 1e-9 * L->dt ? L->stim_amp : 0.0;
  PetscCall(VecCopy(L->phi, L->phin));
  /* Newton starts from the linear extrapolation phi_n + dt phidot_n (phi_0 at step 1: phidot is 0), in the operations
     and order of TS theta's -ts_theta_initial_guess_extrapolate, so that -cardiac_ts gives the same bits */
  if (L->phidot) PetscCall(VecAXPY(L->phi, 1 / (1 / L->dt), L->phidot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode StepEnd(Loop *L, PetscInt step)
{
  const PetscReal     t = step * L->dt;
  PetscLogDouble      s1, s2;
  PetscInt            its, kits;
  SNESConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(SNESGetConvergedReason(L->snes, &reason));
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "cardiac: Newton did not converge at t = %g ms (%s); try a smaller -dt or other solver options", (double)t, SNESConvergedReasons[reason]);
  if (L->phidot) PetscCall(VecAXPBYPCZ(L->phidot, -(1 / L->dt), 1 / L->dt, 0, L->phin, L->phi));
  PetscCall(CardiacSync(L->app->device));
  PetscCall(PetscTime(&s1));
  PetscCall(CardiacCtxCommit(L->cc));
  PetscCall(CardiacUpdateActivation(L->phin, L->phi, L->act, t, L->dt, L->phi_thr));
  PetscCall(SNESGetIterationNumber(L->snes, &its));
  PetscCall(SNESGetLinearSolveIterations(L->snes, &kits));
  if (L->vtu_every > 0 && step % L->vtu_every == 0) {
    const PetscScalar *p, *a;
    PetscReal         *r;
    char               name[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN];
    PetscCall(PetscSNPrintf(name, sizeof(name), "cardiac_%05" PetscInt_FMT ".vtu", step));
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", L->outdir, name));
    PetscCall(PetscMalloc1(L->cc->nelem, &r));
    PetscCall(CardiacCtxGetR(L->cc, r));
    if (L->size > 1 || L->v2d) { /* gathered to rank 0 in the original vertex order, which writes */
      PetscCall(GatherVertices(L->dist, L->v2d, L->cm->m.nv, L->phi, L->phinat));
      PetscCall(GatherVertices(L->dist, L->v2d, L->cm->m.nv, L->act, L->actnat));
      if (L->size > 1) PetscCall(CardiacDistGatherCells(L->dist, r, L->rnat));
      if (!L->rank) PetscCall(CardiacWriteVTU(path, L->cm, L->phinat, L->size > 1 ? L->rnat : r, L->actnat, PETSC_FALSE));
    } else {
      PetscCall(VecGetArrayRead(L->phi, &p));
      PetscCall(VecGetArrayRead(L->act, &a));
      PetscCall(CardiacWriteVTU(path, L->cm, p, r, a, PETSC_FALSE));
      PetscCall(VecRestoreArrayRead(L->act, &a));
      PetscCall(VecRestoreArrayRead(L->phi, &p));
    }
    PetscCall(PetscFree(r));
    PetscCall(PetscStrallocpy(name, &L->vtunames[L->nvtu]));
    L->vtutimes[L->nvtu++] = t;
  }
  if (L->stop_activated || (L->monitor_every > 0 && step % L->monitor_every == 0)) PetscCall(CardiacSync(L->app->device));
  PetscCall(PetscTime(&s2));
  if (L->size > 1) { /* assembly: the slowest rank's (the others wait for it in the solve's first reduction) */
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &L->app->t_asm, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    if (L->app->t_asm > s1 - L->s0) L->app->t_asm = s1 - L->s0;
  }
  if (step > 1) {
    L->sum_step += s2 - L->s0;
    L->sum_asm += L->app->t_asm;
    L->sum_snes += s1 - L->s0;
    L->sum_newton += its;
    L->sum_ksp += kits;
    L->sum_res += L->app->nres - L->nres0;
    L->sum_jac += L->app->njac - L->njac0;
    L->counted++;
  } else L->first_step = s2 - L->s0;
  L->laststep = step;
  if (L->monitor_every > 0 && step % L->monitor_every == 0)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "step %6" PetscInt_FMT "  t %8.2f ms  Newton %2" PetscInt_FMT "  KSP %4" PetscInt_FMT "  wall %9.3f ms (assembly %8.3f, solve %8.3f, rest %7.3f)\n", step, (double)t, its, kits, 1e3 * (s2 - L->s0), 1e3 * L->app->t_asm, 1e3 * (s1 - L->s0 - L->app->t_asm), 1e3 * (s2 - s1)));
  if (L->stop_activated) {
    PetscReal amin;
    PetscCall(VecMin(L->act, NULL, &amin));
    if (amin >= 0) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: all vertices activated at t = %g ms, stopping\n", (double)t));
      L->stopped = PETSC_TRUE;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -cardiac_ts: the same backward Euler step through TSBEULER.  The element residual is already the discrete
   backward Euler residual  M (phi - phi_n)/dt + K phi - f(phi, r(phi))  with phi_n the auxiliary vector, which
   equals  F(t, U, Udot) = M Udot + K U - f(U)  at TSBEULER's  Udot = (U - U_n)/dt; so the IFunction is the residual
   (Udot is implied by phi_n, set to U_n in the pre-step) and the IJacobian the tangent, valid for the shift 1/dt
   only (checked).  The nonlinear solve is the same SNES, configured the same way, so activation times match the
   hand loop (tests/cardiac_ts.sh). */
static PetscErrorCode TSResidual(TS ts, PetscReal t, Vec U, Vec Udot, Vec F, void *ptr)
{
  PetscFunctionBegin;
  (void)t;
  (void)Udot;
  PetscCall(FormResidual(NULL, U, F, ptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TSTangent(TS ts, PetscReal t, Vec U, Vec Udot, PetscReal shift, Mat J, Mat P, void *ptr)
{
  PetscReal dt;

  PetscFunctionBegin;
  (void)t;
  (void)Udot;
  PetscCall(TSGetTimeStep(ts, &dt));
  PetscCheck(PetscAbsReal(shift * dt - 1) < 1e-10, PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP, "cardiac -cardiac_ts: the element tangent is backward Euler's (shift 1/dt = %g), not shift %g: use -ts_type beuler with a fixed step", (double)(1 / dt), (double)shift);
  PetscCall(FormJacobian(NULL, U, J, P, ptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TSPre(TS ts)
{
  Loop    *L;
  PetscInt k;

  PetscFunctionBegin;
  PetscCall(TSGetApplicationContext(ts, &L));
  PetscCall(TSGetStepNumber(ts, &k)); /* steps done so far */
  PetscCall(StepBegin(L, k + 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TSPost(TS ts)
{
  Loop    *L;
  PetscInt k;

  PetscFunctionBegin;
  PetscCall(TSGetApplicationContext(ts, &L));
  PetscCall(TSGetStepNumber(ts, &k)); /* this step's number (1, 2, ...) */
  PetscCall(StepEnd(L, k));
  if (L->stopped) PetscCall(TSSetConvergedReason(ts, TS_CONVERGED_USER));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The bytes model: per step (the counted steps 2..N), the bytes the solve and the assembly must move at least,
   against the measured time, as a fraction of the memory bandwidth -cardiac_bandwidth.
   - SpMV: the matrix's bytes per product (MatEllwarpGetInfo: values, columns as stored, x read, y written; CSR
     otherwise), one product per KSP iteration.
   - KSP vectors: 8 bytes per entry per pass over a vector, per iteration: 13 passes for KSPCGASYNC with Jacobi in its
     kernels (direction: r, D^-1, p read, p written; curvature: p, w; update: x, p, r, w, D^-1 read, x, r written),
     17 for KSPCG + PCJACOBI (VecAYPX 3, VecDot 2, 2 x VecAXPY 6, PCApply 3, VecNorm 1, VecDot 2); other
     solvers are not modelled (the line says so).
   - Assembly (the globalnz plan): per element its inputs (4 nodal phi and phi_n, the element map, 12 coordinates,
     the fibre, the stimulus weight, r_n read and r written: 224 B), its outputs written and read once (residual
     4, tangent 16 entries), the plan's entries (4 or 8 B) and the target's values written once. */
static PetscErrorCode BytesModel(Loop *L, Mat J, KSP ksp, DMAssembly as, PetscReal bandwidth)
{
  MatType         mtype;
  KSPType         ktype;
  PC              pc;
  PetscBool       isell, iscga, iscg, isjac;
  PetscLogDouble  spmv = 0, vecpass, kspv = -1, asmres, asmjac, bsolve, basm, tsolve, tasm;
  PetscInt        n, passes = -1;
  DMAssemblyInfo  ai;
  MatInfo         mi;
  const PetscReal idx = 4, elem_in = 224;

  PetscFunctionBegin;
  if (!L->counted) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetType(J, &mtype));
  PetscCall(MatGetLocalSize(J, &n, NULL));
  PetscCall(PetscStrcmp(mtype, MATSEQELLWARP, &isell));
  if (isell) {
    MatEllwarpInfo info;
    PetscCall(MatEllwarpGetInfo(J, &info));
    spmv = info.bytes_mult;
  } else { /* CSR: values and 32-bit columns, row offsets, x read once, y written */
    PetscCall(MatGetInfo(J, MAT_LOCAL, &mi));
    spmv = mi.nz_used * (8.0 + 4.0) + n * (4.0 + 8.0 + 8.0);
  }
  PetscCall(KSPGetType(ksp, &ktype));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscStrcmp(ktype, KSPCGASYNC, &iscga));
  PetscCall(PetscStrcmp(ktype, KSPCG, &iscg));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCJACOBI, &isjac));
  if (isjac && iscga) passes = 13;
  else if (isjac && iscg) passes = 17;
  vecpass = 8.0 * n;
  PetscCall(DMAssemblyGetInfo(as, &ai));
  asmres = ai.nelem * (elem_in + 2.0 * 8 * ai.nen) + ai.resplanentries * (ai.idx64 ? 8 : idx) + 8.0 * ai.ndof;
  asmjac = ai.nelem * (elem_in + 2.0 * 8 * ai.nen * ai.nen) + ai.jacplanentries * (ai.idx64 ? 8 : idx) + 8.0 * (PetscLogDouble)ai.nnz;
  {
    const PetscReal c = (PetscReal)L->counted, its = L->sum_ksp / c, res = L->sum_res / c, jac = L->sum_jac / c;
    const PetscReal bw = bandwidth * 1e9;
    if (passes > 0) kspv = its * passes * vecpass;
    bsolve = its * spmv + (kspv > 0 ? kspv : 0);
    basm   = res * asmres + jac * asmjac;
    tsolve = (L->sum_snes - L->sum_asm) / c;
    tasm   = L->sum_asm / c;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: bytes model per step (steps 2..%" PetscInt_FMT "): SpMV %.3f MB (%.1f products of %.3f MB), KSP vectors ", L->laststep, its * spmv / 1e6, (double)its, spmv / 1e6));
    if (kspv >= 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%.3f MB (%d passes of %.3f MB per iteration)", kspv / 1e6, (int)passes, vecpass / 1e6));
    else {
      PCType ptype;
      PetscCall(PCGetType(pc, &ptype));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "not modelled for KSP %s + PC %s", ktype, ptype));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", assembly %.3f MB (%.2f residuals of %.3f MB, %.2f tangents of %.3f MB)\n", basm / 1e6, (double)res, asmres / 1e6, (double)jac, asmjac / 1e6));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: bytes model against time (bandwidth %.0f GB/s, -cardiac_bandwidth): solve %.3f MB in %.4f ms = %.1f GB/s = %.3f of it (%.2fx the bytes' time); assembly %.3f MB in %.4f ms = %.3f; solve + assembly %.3f\n", (double)bandwidth, bsolve / 1e6, 1e3 * tsolve, bsolve / tsolve / 1e9, bsolve / tsolve / bw, tsolve * bw / bsolve, basm / 1e6, 1e3 * tasm, basm / tasm / bw, (bsolve + basm) / (tsolve + tasm) / bw));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  CardiacMesh    cm;
  CardiacCtx     cc;
  AppCtx         app;
  DM             dm;
  PetscFE        fe;
  SNES           snes;
  TS             ts = NULL;
  Loop           L;
  KSP            ksp;
  PC             pc;
  SNESLineSearch ls;
  Vec            phi, phin, act, mvol;
  Mat            J;
  DMAssemblyElementKernels kern;
  PetscReal      t_end = 500, dt = 0.25, stim_amp = 0.5, stim_dur = 2.0, phi_thr = 0.4, phi_tol = 1e-6, atol, mnorm;
  PetscInt       vtu_every = 0, max_steps = -1, nsteps, monitor_every = 1, nvtu = 0, maxvtu;
  char           outdir[PETSC_MAX_PATH_LEN] = "cardiac_out", json[PETSC_MAX_PATH_LEN] = "", label[64] = "";
  char         **vtunames = NULL;
  PetscReal     *vtutimes = NULL;
  PetscInt      *v2d      = NULL; /* one process with -dm_assembly_ordering: vertex -> dof */
  PetscBool      png = PETSC_TRUE, final_vtu = PETSC_TRUE, stop_activated = PETSC_FALSE, helpflg, quiet = PETSC_FALSE, use_ts = PETSC_FALSE, extrapolate = PETSC_TRUE, nodal_state = PETSC_TRUE, nodal_set = PETSC_FALSE, cardiac_plex_section = PETSC_FALSE, ordered = PETSC_FALSE;
  PetscReal      bandwidth = 2990; /* GB/s: the H100's device-to-device copy (docs/performance.md: 2995 measured) */
  PetscLogDouble tsetup0, tsetup1, tprog0, tprog1, tloop0, tloop1, tout1 = 0, tdestroy1;
  double         page0, pagefin, pageend; /* process age (ProcessAge): after PetscInitialize, before and after PetscFinalize */
  PetscLogDouble tph[6] = {0, 0, 0, 0, 0, 0}, tmark; /* set-up phases: mesh, DM, assembler, matrix, the rest, device */
  PetscLogEvent  ev_elemdata, ev_section, ev_vectors;  /* set-up steps of the assembler phase in -log_view */
  PetscLogEvent  ev_output;                            /* after the time loop: the results and their files */
  VecType        vtype;
  MatType        mtype;
  DMAssemblyType atype;
  KSPType        ksptype;
  PCType         pctype;
  PetscMPIInt    size, rank;
  CardiacDist    dist;                                       /* several processes (cardiac_dist.c) */
  PetscScalar   *phinat = NULL, *actnat = NULL;              /* rank 0: gathered vertex fields, original order */
  PetscReal     *rnat   = NULL;                              /* rank 0: gathered r per original cell */

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscTime(&tprog0));
  page0 = ProcessAge();
  PetscCall(PetscOptionsHasHelp(NULL, &helpflg));
  PetscCall(PetscMemzero(&cc, sizeof(cc)));
  PetscCall(PetscMemzero(&app, sizeof(app)));
  PetscCall(PetscMemzero(&dist, sizeof(dist)));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  cc.p.c           = 8.0;
  cc.p.alpha       = 0.01;
  cc.p.gamma       = 0.002;
  cc.p.b           = 0.15;
  cc.p.mu1         = 0.2;
  cc.p.mu2         = 0.3;
  cc.p.tscale      = 12.9;
  cc.p.diso        = 0.15;
  cc.p.dani        = 0.85;
  cc.p.lumped      = 0;
  cc.p.local_maxit = 25;
  cc.p.local_tol   = 1e-13;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Cardiac example: model, time stepping and output", NULL);
  PetscCall(PetscOptionsReal("-ap_c", "Aliev-Panfilov c", NULL, cc.p.c, &cc.p.c, NULL));
  PetscCall(PetscOptionsReal("-ap_alpha", "Aliev-Panfilov alpha", NULL, cc.p.alpha, &cc.p.alpha, NULL));
  PetscCall(PetscOptionsReal("-ap_gamma", "Aliev-Panfilov gamma", NULL, cc.p.gamma, &cc.p.gamma, NULL));
  PetscCall(PetscOptionsReal("-ap_b", "Aliev-Panfilov b", NULL, cc.p.b, &cc.p.b, NULL));
  PetscCall(PetscOptionsReal("-ap_mu1", "Aliev-Panfilov mu1", NULL, cc.p.mu1, &cc.p.mu1, NULL));
  PetscCall(PetscOptionsReal("-ap_mu2", "Aliev-Panfilov mu2", NULL, cc.p.mu2, &cc.p.mu2, NULL));
  PetscCall(PetscOptionsReal("-ap_tscale", "ms per model time unit (t = tscale tau)", NULL, cc.p.tscale, &cc.p.tscale, NULL));
  PetscCall(PetscOptionsReal("-d_iso", "isotropic conductivity (mm^2/ms)", NULL, cc.p.diso, &cc.p.diso, NULL));
  PetscCall(PetscOptionsReal("-d_ani", "additional conductivity along the fibres (mm^2/ms)", NULL, cc.p.dani, &cc.p.dani, NULL));
  {
    PetscBool lumped = PETSC_FALSE;
    PetscCall(PetscOptionsBool("-lumped", "lumped mass matrix (default: consistent)", NULL, lumped, &lumped, NULL));
    cc.p.lumped = lumped;
  }
  PetscCall(PetscOptionsInt("-local_maxit", "local Newton (r) iterations at most", NULL, cc.p.local_maxit, &cc.p.local_maxit, NULL));
  PetscCall(PetscOptionsReal("-local_tol", "local Newton tolerance on dt |R_r|", NULL, cc.p.local_tol, &cc.p.local_tol, NULL));
  PetscCall(PetscOptionsReal("-dt", "time step (ms)", NULL, dt, &dt, NULL));
  PetscCall(PetscOptionsReal("-t_end", "simulated time (ms)", NULL, t_end, &t_end, NULL));
  PetscCall(PetscOptionsInt("-steps", "number of steps (overrides -t_end when >= 0)", NULL, max_steps, &max_steps, NULL));
  PetscCall(PetscOptionsReal("-stim_amp", "stimulus current (1/ms, nondimensional potential per ms)", NULL, stim_amp, &stim_amp, NULL));
  PetscCall(PetscOptionsReal("-stim_dur", "stimulus duration from t = 0 (ms)", NULL, stim_dur, &stim_dur, NULL));
  PetscCall(PetscOptionsReal("-phi_thr", "activation threshold (nondimensional; 0.4 = -40 mV)", NULL, phi_thr, &phi_thr, NULL));
  PetscCall(PetscOptionsReal("-phi_tol", "Newton: absolute residual tolerance, as a uniform potential change per step", NULL, phi_tol, &phi_tol, NULL));
  PetscCall(PetscOptionsBool("-stop_when_activated", "stop once every vertex has activated", NULL, stop_activated, &stop_activated, NULL));
  PetscCall(PetscOptionsInt("-vtu_every", "VTU output every n steps (0: none)", NULL, vtu_every, &vtu_every, NULL));
  PetscCall(PetscOptionsBool("-final_vtu", "write the activation map VTU at the end", NULL, final_vtu, &final_vtu, NULL));
  PetscCall(PetscOptionsBool("-png", "write the activation map PNG at the end", NULL, png, &png, NULL));
  PetscCall(PetscOptionsString("-output_dir", "directory for VTU/PVD/PNG output", NULL, outdir, outdir, sizeof(outdir), NULL));
  PetscCall(PetscOptionsString("-json", "write a JSON summary to this file", NULL, json, json, sizeof(json), NULL));
  PetscCall(PetscOptionsString("-label", "label of this run in the JSON summary", NULL, label, label, sizeof(label), NULL));
  PetscCall(PetscOptionsInt("-monitor_every", "progress line every n steps (0: none)", NULL, monitor_every, &monitor_every, NULL));
  PetscCall(PetscOptionsBool("-quiet", "no progress lines", NULL, quiet, &quiet, NULL));
  /* The hand loop stays the default.  TS gives the same answer (tests/cardiac_ts.sh) and, on the CPU, costs
     nothing measurable: 4788-vertex LV, 400 steps, host ELLWARP, -log_view, TSStep - SNESSolve = 0.05-0.06 ms per
     step (its extra VecCopy per step and VecAXPBYPCZ per residual) against 45-62 ms steps, far inside the +-30 %
     run-to-run noise of the shared 2-core machine (README.md).  On the GPU, the main job, those extra vector
     operations are about six launch-bound kernels per step (~30 us, estimated) against 4.1 ms per step on the
     20 k LV (H100), and were not measured here: the default moves to TS once cardiac_ts.gpu and per-step timings
     on a GPU host show no cost. */
  /* Newton starts from the linear extrapolation 2 phi_n - phi_{n-1} instead of phi_n: on an H100 it cut Newton
     iterations per step 1.16 -> 0.79 and CG 15.1 -> 10.2 on the 20 k LV (2000 steps), 2.00 -> 1.05 and 62.3 -> 32.7 on
     lv6k -refine 2 (100 steps), with the same activation times (benchmarks/results/cardiac-solve-h100/) */
  PetscCall(PetscOptionsBool("-cardiac_extrapolate", "Newton's initial guess extrapolated linearly from the two previous steps (with -cardiac_ts: TSThetaSetExtrapolate)", NULL, extrapolate, &extrapolate, NULL));
  PetscCall(PetscOptionsReal("-cardiac_bandwidth", "memory bandwidth (GB/s) the bytes model's fractions refer to (default: an H100's copy bandwidth)", NULL, bandwidth, &bandwidth, NULL));
  PetscCall(PetscOptionsBool("-cardiac_plex_section", "the P1 field's sections from DMPlexCreateSection() and DMGetGlobalSection() (default: built directly, the same layout, faster)", NULL, cardiac_plex_section, &cardiac_plex_section, NULL));
  /* The element kernel reads the nodal phi and phi_n itself (DMAssemblySetNodalState) instead of the assembler's
     gathered element buffers: per residual and tangent the gather wrote and the kernel read back 2 x 4 x 8 B per
     element (two vectors); the nodal values themselves come mostly from the cache (each is shared by ~22 element corners).
     Default: on where the assembler runs on the device (1 M LV on an H100: 7.9 against 8.6 ms per step); on the
     host the gathered buffers stay (a CPU's element loop reads them contiguously; the README's CPU run measured no
     gain: benchmarks/results/cardiac-nodal-h100/README.md).  The option forces either way. */
  PetscCall(PetscOptionsBool("-cardiac_nodal_state", "element kernel reads the nodal state through the element map (default: where the assembly runs on the device)", NULL, nodal_state, &nodal_state, &nodal_set));
  PetscCall(PetscOptionsBool("-cardiac_ts", "time loop on PETSc TS (TSBEULER, fixed step, -ts_* options) instead of the hand loop (the default: see README.md for the measured cost)", NULL, use_ts, &use_ts, NULL));
  PetscOptionsEnd();
  PetscCheck(dt > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dt must be positive");
  PetscCheck(bandwidth > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-cardiac_bandwidth must be positive");
  PetscCheck(cc.p.diso > 0 && cc.p.dani >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-d_iso must be positive and -d_ani nonnegative");
  if (quiet) monitor_every = 0;
  cc.p.dt = dt;
  nsteps  = max_steps >= 0 ? max_steps : (PetscInt)PetscCeilReal(t_end / dt - 1e-9);

  /* mesh and discretization */
  PetscCall(PetscLogEventRegister("CardiacElemData", DM_CLASSID, &ev_elemdata));
  PetscCall(PetscLogEventRegister("CardiacSection", DM_CLASSID, &ev_section));
  PetscCall(PetscLogEventRegister("CardiacVectors", DM_CLASSID, &ev_vectors));
  PetscCall(PetscLogEventRegister("CardiacOutput", DM_CLASSID, &ev_output));
  PetscCall(PetscTime(&tsetup0));
#if defined(ELLWARP_HAVE_CUDA)
  { /* device vectors: the CUDA context is made by a thread while the mesh is read and refined */
    char      vt[64] = "";
    PetscBool cuda   = PETSC_FALSE;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-dm_vec_type", vt, sizeof(vt), NULL));
    PetscCall(PetscStrbeginswith(vt, "cuda", &cuda));
    if (cuda && !helpflg) PetscCall(CardiacDeviceWarmUp(PETSC_TRUE));
  }
#endif
  PetscCall(CardiacMeshCreate(&cm, NULL));
  PetscCall(PetscTime(&tmark));
  tph[0] = tmark - tsetup0;
  if (size > 1) { /* mesh on rank 0, distributed with overlap 1, per-element data migrated with the cells */
    PetscCall(CardiacDistCreate(&cm, &dm, &dist));
    if (!rank) PetscCall(PetscMalloc3(cm.m.nv, &phinat, cm.m.nv, &actnat, cm.m.nt, &rnat));
  } else PetscCall(CardiacMeshToDMPlex(&cm, &dm));
  PetscCall(DMSetFromOptions(dm));
  PetscCall(DMViewFromOptions(dm, NULL, "-dm_view"));
  PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, 3, 1, PETSC_TRUE, 1, PETSC_DETERMINE, &fe));
  PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(dm));
  { /* a dof ordering (-dm_assembly_ordering) is given to the DM's local section by DMAssemblySetFromOptions below,
       before the global section exists: the direct sections of SetP1Sections (which set the global one) are skipped */
    PetscEnum ord = 0;
    PetscBool set;
    PetscCall(PetscOptionsGetEnum(NULL, NULL, "-dm_assembly_ordering", DMAssemblyOrderings, &ord, &set));
    ordered = (PetscBool)(set && ord != (PetscEnum)DMASSEMBLY_ORDERING_NONE);
  }
  if (size == 1 && !cardiac_plex_section && !ordered) PetscCall(SetP1Sections(dm));
  PetscCall(PetscFEDestroy(&fe));
  PetscCall(DMGetVecType(dm, &vtype));
  PetscCall(PetscStrbeginswith(vtype, "cuda", &app.device));
  if (!app.device) PetscCall(PetscStrcmp(vtype, VECSEQCUDA, &app.device));

  {
    PetscLogDouble t;
    PetscCall(PetscTime(&t));
    tph[1] = t - tmark;
    tmark  = t;
  }
  /* per-element data */
  cc.nelem = size > 1 ? dist.nelem : cm.m.nt;
  PetscCall(PetscMalloc1(3 * (size_t)cc.nelem, &cc.fib));
  PetscCall(PetscMalloc1((size_t)cc.nelem, &cc.stim));
  PetscCall(PetscCalloc1((size_t)cc.nelem, &cc.rn));
  PetscCall(PetscCalloc1((size_t)cc.nelem, &cc.rnew));
  PetscCall(PetscArraycpy(cc.fib, size > 1 ? dist.fib : cm.fib, 3 * (size_t)cc.nelem));
  PetscCall(PetscArraycpy(cc.stim, size > 1 ? dist.stim : cm.stim, (size_t)cc.nelem));

  /* the assembler */
#if defined(ELLWARP_HAVE_CUDA)
  PetscCall(CardiacDeviceWarmUp(PETSC_FALSE));
  if (app.device) { /* PETSc's device (context, stream, library handles): timed as its own set-up phase */
    PetscLogDouble t;
    PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
    PetscCall(PetscTime(&t));
    tph[5] = t - tmark;
    tmark  = t;
  }
#endif
  PetscCall(DMAssemblyCreate(dm, &app.as));
  /* host vectors: host assembly (the device methods need device vectors); -dm_assembly_type overrides */
  if (!app.device) PetscCall(DMAssemblySetType(app.as, DMASSEMBLYHOST));
  PetscCall(DMAssemblySetFromOptions(app.as)); /* -dm_assembly_ordering: the DM's dofs renumbered here */
  if (size > 1) PetscCall(CardiacDistSetUpVertices(&dist, dm)); /* owned dofs -> original vertices: after the ordering */
  else {
    DMAssemblyOrdering ord;
    PetscCall(DMAssemblyGetLocalityOrdering(app.as, &ord));
    if (ord != DMASSEMBLY_ORDERING_NONE) {
      PetscCall(VertexDofs(dm, &v2d));
      PetscCall(PetscMalloc3(cm.m.nv, &phinat, cm.m.nv, &actnat, 1, &rnat));
    }
  }
  {
    PetscMemType amt;
    PetscCall(DMAssemblyGetMemType(app.as, &amt));
    PetscCall(PetscLogEventBegin(ev_elemdata, 0, 0, 0, 0));
    PetscCall(CardiacCtxSetUp(&cc, PetscMemTypeDevice(amt) ? PETSC_TRUE : PETSC_FALSE));
    PetscCall(PetscLogEventEnd(ev_elemdata, 0, 0, 0, 0));
    if (!nodal_set) nodal_state = PetscMemTypeDevice(amt) ? PETSC_TRUE : PETSC_FALSE;
  }
  app.cc      = &cc;
  kern.nen      = 4;
  kern.residual = CardiacResidual;
  kern.jacobian = CardiacJacobian;
  kern.ctx      = &cc;
  PetscCall(DMAssemblySetElementKernels(app.as, &kern));
  if (nodal_state) { /* the element kernel reads phi and phi_n through the element map: no gathered element buffers */
    PetscCall(DMAssemblySetNodalState(app.as, PETSC_TRUE));
    cc.as = app.as;
  }
  {
    PetscSection gsec;
    PetscCall(PetscLogEventBegin(ev_section, 0, 0, 0, 0)); /* the DM's global section, otherwise made at the first vector */
    PetscCall(DMGetGlobalSection(dm, &gsec));
    PetscCall(PetscLogEventEnd(ev_section, 0, 0, 0, 0));
  }
  PetscCall(PetscLogEventBegin(ev_vectors, 0, 0, 0, 0));
  PetscCall(DMCreateGlobalVector(dm, &phi));
  PetscCall(PetscLogEventEnd(ev_vectors, 0, 0, 0, 0));
  PetscCall(PetscObjectSetName((PetscObject)phi, "phi"));
  PetscCall(VecDuplicate(phi, &phin));
  PetscCall(VecDuplicate(phi, &act));
  PetscCall(VecDuplicate(phi, &mvol));
  PetscCall(VecSet(phi, 0.0));
  PetscCall(VecSet(phin, 0.0));
  PetscCall(VecSet(act, -1.0));
  PetscCall(DMAssemblySetAuxiliaryVec(app.as, phin));
  PetscCall(DMAssemblySetUp(app.as));
  {
    PetscLogDouble t;
    PetscCall(CardiacSync(app.device));
    PetscCall(PetscTime(&t));
    tph[2] = t - tmark;
    tmark  = t;
  }
  PetscCall(PetscLogEventRegister("CardiacResidual", DM_CLASSID, &app.ev_res));
  PetscCall(PetscLogEventRegister("CardiacJacobian", DM_CLASSID, &app.ev_jac));

  /* Newton tolerance: a residual worth a uniform potential change phi_tol per step, ||lumped mass|| phi_tol / dt */
  if (size > 1) { /* rank 0 on the whole mesh, as one process does (same vector norm, same tolerance) */
    mnorm = 0;
    if (!rank) {
      Vec mv;
      PetscCall(VecCreateSeq(PETSC_COMM_SELF, cm.m.nv, &mv));
      PetscCall(LumpedMass(&cm.m, mv, &mnorm));
      PetscCall(VecDestroy(&mv));
    }
    PetscCallMPI(MPI_Bcast(&mnorm, 1, MPIU_REAL, 0, PETSC_COMM_WORLD));
    atol = phi_tol * mnorm / dt;
  } else {
    PetscCall(LumpedMass(&cm.m, mvol, &mnorm)); /* vertex order: only its norm is used (no dof ordering changes it) */
    atol = phi_tol * mnorm / dt;
  }

  /* solver: Newton (basic line search: the last residual evaluation is at the solution, see CardiacCtxCommit),
     CG + Jacobi; everything can be changed by options */
  {
    PetscLogDouble t;
    PetscCall(PetscTime(&t));
    tph[4] += t - tmark;
    PetscCall(DMAssemblyCreateMatrix(app.as, &J)); /* the assembler's pattern: no DMPlex preallocation */
    PetscCall(MatSetOption(J, MAT_SYMMETRIC, PETSC_TRUE));
    PetscCall(CardiacSync(app.device));
    PetscCall(PetscTime(&tmark));
    tph[3] = tmark - t;
  }
  if (use_ts) { /* TS owns the SNES and calls the residual/tangent through its IFunction/IJacobian */
    TSAdapt adapt;
    PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
    PetscCall(TSSetDM(ts, dm));
    PetscCall(TSSetType(ts, TSBEULER));
    /* TS keeps U_n before the pre-step, so the guess is TS theta's own extrapolation, U_n + dt Udot_n: the same one.
       It has no setter, only its option, which is given here unless the user gave it */
    {
      PetscBool set;
      PetscCall(PetscOptionsHasName(NULL, NULL, "-ts_theta_initial_guess_extrapolate", &set));
      if (!set && extrapolate) PetscCall(PetscOptionsSetValue(NULL, "-ts_theta_initial_guess_extrapolate", "1"));
    }
    PetscCall(TSSetIFunction(ts, NULL, TSResidual, &app));
    PetscCall(TSSetIJacobian(ts, J, J, TSTangent, &app));
    PetscCall(TSSetTime(ts, 0.0));
    PetscCall(TSSetTimeStep(ts, dt));
    PetscCall(TSSetMaxSteps(ts, nsteps));
    PetscCall(TSSetMaxTime(ts, PETSC_MAX_REAL)); /* the step count ends the run, as in the hand loop */
    PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_STEPOVER));
    PetscCall(TSGetAdapt(ts, &adapt));
    PetscCall(TSAdaptSetType(adapt, TSADAPTNONE)); /* fixed dt: the element kernel's dt is the step */
    PetscCall(TSSetPreStep(ts, TSPre));
    PetscCall(TSSetPostStep(ts, TSPost));
    PetscCall(TSGetSNES(ts, &snes));
    PetscCall(PetscObjectReference((PetscObject)snes));
  } else {
    PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
    PetscCall(SNESSetDM(snes, dm));
    PetscCall(SNESSetFunction(snes, NULL, FormResidual, &app));
    PetscCall(SNESSetJacobian(snes, J, J, FormJacobian, &app));
  }
  PetscCall(SNESSetTolerances(snes, atol, 1e-8, 1e-12, 20, -1));
  PetscCall(SNESGetLineSearch(snes, &ls));
  PetscCall(SNESLineSearchSetType(ls, SNESLINESEARCHNONE));
  PetscCall(SNESGetKSP(snes, &ksp));
  /* On one GPU the default is KSPCGASYNC (the plugin's CG: its scalars stay on the device, Jacobi inside its
     kernels, the norm read back every 8 iterations): the same iterations and answers as KSPCG, measured faster on
     an H100 (benchmarks/results/cardiac-solve-h100/).  On the CPU and on several ranks it is KSPCG. */
  PetscCall(KSPSetType(ksp, app.device && size == 1 ? KSPCGASYNC : KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  /* The tangent's diagonal is positive (mass/dt dominates it), so PCJACOBI's check for zero diagonal entries is
     not needed; it reads the diagonal on the host, which on the GPU cost a device-to-host and a host-to-device copy
     of the diagonal at every Newton iteration (-log_view: PCSetUp GpuToCpu, PCApply CpuToGpu). */
  PetscCall(PCJacobiSetFixDiagonal(pc, PETSC_FALSE));
  PetscCall(KSPSetTolerances(ksp, 1e-4, 1e-50, PETSC_CURRENT, 1000)); /* inexact Newton: 1e-4 halves CG vs 1e-6 at equal Newton counts */
  if (ts) {
    PetscCall(TSSetFromOptions(ts));       /* and the SNES's */
    PetscCall(TSGetMaxSteps(ts, &nsteps)); /* -ts_max_steps counts as -steps (the output arrays are sized by it) */
  } else PetscCall(SNESSetFromOptions(snes));
  PetscCall(KSPGetType(ksp, &ksptype));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetType(pc, &pctype));
  PetscCall(MatGetType(J, &mtype));
  PetscCall(DMAssemblyGetType(app.as, &atype));
  PetscCall(PetscTime(&tsetup1));
  tph[4] += tsetup1 - tmark;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: %" PetscInt_FMT " vertices, %" PetscInt_FMT " tetrahedra; matrix %s, vectors %s, assembly %s (%s callbacks); KSP %s + PC %s; dt %g ms, %" PetscInt_FMT " steps (%g ms); setup %.2f s\n", cm.m.nv, cm.m.nt, mtype, vtype, atype, cc.device ? "device" : "host", ksptype, pctype, (double)dt, nsteps, (double)(nsteps * dt), tsetup1 - tsetup0));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: Aliev-Panfilov c %g alpha %g gamma %g b %g mu1 %g mu2 %g, t = %g tau ms; D = %g I + %g f f (mm^2/ms); %s mass; Newton atol %.3e\n", (double)cc.p.c, (double)cc.p.alpha, (double)cc.p.gamma, (double)cc.p.b, (double)cc.p.mu1, (double)cc.p.mu2, (double)cc.p.tscale, (double)cc.p.diso, (double)cc.p.dani, cc.p.lumped ? "lumped" : "consistent", (double)atol));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: setup %.3f s = mesh %.3f + DM %.3f + device %.3f + assembler %.3f + matrix %.3f + rest %.3f (-log_view -log_view_gpu_time: Cardiac*, DMAsm*, DMPlex* events)\n", tsetup1 - tsetup0, tph[0], tph[1], tph[5], tph[2], tph[3], tph[4]));
  PetscCall(DMAssemblyView(app.as, PETSC_VIEWER_STDOUT_WORLD));
  if (helpflg) goto finish;

  PetscCall(PetscMemzero(&L, sizeof(L)));
  L.app            = &app;
  L.cc             = &cc;
  L.cm             = &cm;
  L.dist           = &dist;
  L.snes           = snes;
  L.phi            = phi;
  L.phin           = phin;
  if (extrapolate && !ts) {
    PetscCall(VecDuplicate(phi, &L.phidot));
    PetscCall(VecSet(L.phidot, 0.0));
  }
  L.act            = act;
  L.dt             = dt;
  L.stim_amp       = stim_amp;
  L.stim_dur       = stim_dur;
  L.phi_thr        = phi_thr;
  L.vtu_every      = vtu_every;
  L.monitor_every  = monitor_every;
  L.stop_activated = stop_activated;
  L.outdir         = outdir;
  L.phinat         = phinat;
  L.actnat         = actnat;
  L.rnat           = rnat;
  L.v2d            = v2d;
  L.size           = size;
  L.rank           = rank;
  if (vtu_every > 0) {
    PetscCall(MakeOutputDir(outdir));
    maxvtu = nsteps / vtu_every + 2;
    PetscCall(PetscCalloc2(maxvtu, &L.vtunames, maxvtu, &L.vtutimes));
  }
  PetscCall(CardiacSync(app.device));
  PetscCall(PetscTime(&tloop0));
  if (ts) {
    PetscCall(TSSetApplicationContext(ts, &L));
    PetscCall(TSSolve(ts, phi));
  } else {
    for (PetscInt step = 1; step <= nsteps && !L.stopped; step++) {
      PetscCall(StepBegin(&L, step));
      PetscCall(SNESSolve(snes, NULL, phi));
      PetscCall(StepEnd(&L, step));
    }
  }
  PetscCall(CardiacSync(app.device));
  PetscCall(PetscTime(&tloop1));
  nsteps = L.laststep;
  nvtu     = L.nvtu;
  vtunames = L.vtunames;
  vtutimes = L.vtutimes;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: time loop (%s): %" PetscInt_FMT " steps in %.4f s, %.4f ms per step\n", ts ? "TS beuler" : "hand loop", nsteps, tloop1 - tloop0, nsteps ? 1e3 * (tloop1 - tloop0) / nsteps : 0.0));
  PetscCall(PetscTime(&tprog1));

  /* results */
  PetscCall(PetscLogEventBegin(ev_output, 0, 0, 0, 0));
  {
    const PetscScalar *a = NULL;
    PetscReal          amax = 0, amin = PETSC_MAX_REAL, cv = -1, tprobe[2] = {-1, -1};
    PetscInt           nact = 0;
    const PetscBool    writer = (PetscBool)(size == 1 || !rank); /* the rank holding the whole field */
    if (size > 1 || v2d) { /* the activation times in the original vertex order on rank 0 */
      PetscCall(GatherVertices(&dist, v2d, cm.m.nv, act, actnat));
      PetscCall(GatherVertices(&dist, v2d, cm.m.nv, phi, phinat));
      a = actnat;
    } else PetscCall(VecGetArrayRead(act, &a));
    for (PetscInt v = 0; v < (writer ? cm.m.nv : 0); v++) {
      PetscReal av = PetscRealPart(a[v]);
      if (av >= 0) {
        nact++;
        amax = PetscMax(amax, av);
        amin = PetscMin(amin, av);
      }
    }
    if (!nact) amin = -1;
    if (cm.slab && writer) {
      PetscInt  v0 = NearestVertex(&cm.m, cm.probe[0]), v1 = NearestVertex(&cm.m, cm.probe[1]);
      PetscReal dist = 0;
      for (int d = 0; d < 3; d++) dist += PetscSqr(cm.m.xyz[3 * v1 + d] - cm.m.xyz[3 * v0 + d]);
      tprobe[0] = PetscRealPart(a[v0]);
      tprobe[1] = PetscRealPart(a[v1]);
      if (tprobe[0] >= 0 && tprobe[1] > tprobe[0]) cv = PetscSqrtReal(dist) / (tprobe[1] - tprobe[0]);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: slab probes activated at %.4f and %.4f ms: conduction velocity %.5f mm/ms\n", (double)tprobe[0], (double)tprobe[1], (double)cv));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: %" PetscInt_FMT " steps; activated %" PetscInt_FMT " of %" PetscInt_FMT " vertices, activation times %.3f .. %.3f ms\n", nsteps, nact, cm.m.nv, (double)amin, (double)amax));
    if (L.counted)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: per step (steps 2..%" PetscInt_FMT "): wall %.3f ms = assembly %.3f + solve %.3f + rest %.3f; Newton %.2f, KSP %.1f its per step; first step %.3f ms; total %.2f s\n", nsteps, 1e3 * L.sum_step / L.counted, 1e3 * L.sum_asm / L.counted, 1e3 * (L.sum_snes - L.sum_asm) / L.counted, 1e3 * (L.sum_step - L.sum_snes) / L.counted, (double)L.sum_newton / L.counted, (double)L.sum_ksp / L.counted, 1e3 * L.first_step, tprog1 - tprog0));
    if (final_vtu || png) PetscCall(MakeOutputDir(outdir));
    if (final_vtu) {
      const PetscScalar *p;
      PetscReal         *r;
      char               path[PETSC_MAX_PATH_LEN];
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/activation.vtu", outdir));
      PetscCall(PetscMalloc1(cc.nelem, &r));
      PetscCall(CardiacCtxGetR(&cc, r));
      if (size > 1 || v2d) {
        if (size > 1) PetscCall(CardiacDistGatherCells(&dist, r, rnat));
        if (!rank) PetscCall(CardiacWriteVTU(path, &cm, phinat, size > 1 ? rnat : r, a, PETSC_TRUE));
      } else {
        PetscCall(VecGetArrayRead(phi, &p));
        PetscCall(CardiacWriteVTU(path, &cm, p, r, a, PETSC_TRUE));
        PetscCall(VecRestoreArrayRead(phi, &p));
      }
      PetscCall(PetscFree(r));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: wrote %s (activation_ms, Phi_mV, r, fibre)\n", path));
    }
    if (png) {
      char path[PETSC_MAX_PATH_LEN];
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/activation.png", outdir));
      if (writer) PetscCall(CardiacWriteActivationPNG(path, &cm, a, amax));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: wrote %s (activation map, 0 .. %.1f ms, grey: not activated)\n", path, (double)amax));
    }
    if (nvtu) {
      char path[PETSC_MAX_PATH_LEN];
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/cardiac.pvd", outdir));
      if (writer) PetscCall(CardiacWritePVD(path, nvtu, (const char *const *)vtunames, vtutimes));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: wrote %s (%" PetscInt_FMT " VTU files)\n", path, nvtu));
    }
    if (json[0]) {
      FILE *fp;
      PetscCall(PetscFOpen(PETSC_COMM_WORLD, json, "w", &fp));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "{\"label\": \"%s\", \"vertices\": %" PetscInt_FMT ", \"tets\": %" PetscInt_FMT ", \"mat_type\": \"%s\", \"vec_type\": \"%s\", \"assembly\": \"%s\", \"ksp\": \"%s\", \"pc\": \"%s\", \"nprocs\": %d, ", label, cm.m.nv, cm.m.nt, mtype, vtype, atype, ksptype, pctype, size));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "\"dt_ms\": %.6f, \"steps\": %" PetscInt_FMT ", \"t_sim_ms\": %.6f, \"setup_s\": %.4f, \"total_s\": %.4f, \"first_step_ms\": %.4f, ", (double)dt, nsteps, (double)(nsteps * dt), tsetup1 - tsetup0, tprog1 - tprog0, 1e3 * L.first_step));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "\"step_ms\": %.5f, \"assembly_ms\": %.5f, \"solve_ms\": %.5f, \"rest_ms\": %.5f, \"newton_per_step\": %.3f, \"ksp_per_step\": %.3f, ", L.counted ? 1e3 * L.sum_step / L.counted : -1.0, L.counted ? 1e3 * L.sum_asm / L.counted : -1.0, L.counted ? 1e3 * (L.sum_snes - L.sum_asm) / L.counted : -1.0, L.counted ? 1e3 * (L.sum_step - L.sum_snes) / L.counted : -1.0, L.counted ? (double)L.sum_newton / L.counted : -1.0, L.counted ? (double)L.sum_ksp / L.counted : -1.0));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "\"activated\": %" PetscInt_FMT ", \"act_min_ms\": %.5f, \"act_max_ms\": %.5f, \"cv_mm_per_ms\": %.6f, \"probe_ms\": [%.5f, %.5f]}\n", nact, (double)amin, (double)amax, (double)cv, (double)tprobe[0], (double)tprobe[1]));
      PetscCall(PetscFClose(PETSC_COMM_WORLD, fp));
    }
    if (size == 1 && !v2d) PetscCall(VecRestoreArrayRead(act, &a));
  }
  {
    PetscViewer       v;
    PetscViewerFormat fmt;
    PetscBool         flg;
    PetscCall(PetscOptionsCreateViewer(PETSC_COMM_WORLD, NULL, NULL, "-act_view", &v, &fmt, &flg));
    if (flg && (size > 1 || v2d)) { /* the original vertex order (rank 0 holds it all): the one-process layout */
      Vec          an;
      PetscScalar *x;
      PetscCall(VecCreateMPI(PETSC_COMM_WORLD, rank ? 0 : cm.m.nv, PETSC_DETERMINE, &an));
      PetscCall(VecGetArrayWrite(an, &x));
      if (!rank) PetscCall(PetscArraycpy(x, actnat, cm.m.nv));
      PetscCall(VecRestoreArrayWrite(an, &x));
      PetscCall(PetscObjectSetName((PetscObject)an, "activation"));
      PetscCall(PetscViewerPushFormat(v, fmt));
      PetscCall(VecView(an, v));
      PetscCall(PetscViewerPopFormat(v));
      PetscCall(PetscViewerDestroy(&v));
      PetscCall(VecDestroy(&an));
    } else if (flg) {
      PetscCall(PetscObjectSetName((PetscObject)act, "activation"));
      PetscCall(PetscViewerPushFormat(v, fmt));
      PetscCall(VecView(act, v));
      PetscCall(PetscViewerPopFormat(v));
      PetscCall(PetscViewerDestroy(&v));
    }
  }
  PetscCall(BytesModel(&L, J, ksp, app.as, bandwidth));
  PetscCall(MatViewFromOptions(J, NULL, "-jac_view"));
  PetscCall(VecDestroy(&L.phidot));
  PetscCall(PetscLogEventEnd(ev_output, 0, 0, 0, 0));
  PetscCall(PetscTime(&tout1));

finish:
  for (PetscInt i = 0; i < nvtu; i++) PetscCall(PetscFree(vtunames[i]));
  PetscCall(PetscFree2(vtunames, vtutimes));
  PetscCall(MatDestroy(&J));
  PetscCall(SNESDestroy(&snes));
  PetscCall(TSDestroy(&ts));
  PetscCall(VecDestroy(&phi));
  PetscCall(VecDestroy(&phin));
  PetscCall(VecDestroy(&act));
  PetscCall(VecDestroy(&mvol));
  PetscCall(DMAssemblyDestroy(&app.as));
  PetscCall(CardiacCtxDestroy(&cc));
  PetscCall(CardiacMeshDestroy(&cm));
  PetscCall(CardiacDistDestroy(&dist));
  PetscCall(PetscFree3(phinat, actnat, rnat));
  PetscCall(PetscFree(v2d));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscTime(&tdestroy1));
  pagefin = ProcessAge();
  /* where the process's wall time goes outside the program's "total" (a user times the process) */
  if (!helpflg && tout1 > 0)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cardiac: process: %.2f s to PetscInitialize done, total %.2f s, results and output %.2f s, destroying %.2f s\n", page0, tprog1 - tprog0, tout1 - tprog1, tdestroy1 - tout1));
  PetscCall(PetscFinalize());
  pageend = ProcessAge();
  if (!helpflg && tout1 > 0 && !rank) printf("cardiac: process: PetscFinalize %.2f s, %.2f s from the process start to here\n", pageend - pagefin, pageend);
  return 0;
}

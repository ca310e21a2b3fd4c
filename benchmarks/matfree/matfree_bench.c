/* matfree_bench: CEED bake-off style BP1 (mass) / BP3 (Poisson) throughput of DMAssemblyCreateMatrixFree's
   variants (issue 19) on a 3-D (or 2-D) box of Q_p hexes, p in -orders, about -dofs dofs each (no boundary
   conditions: every dof counts, as in the CEED BPs), the FE's tensor Gauss rule of p+1+qextra points per direction
   (-qextra 1: q = p+2 as BP1/BP3).  For every variant: set-up time, MatMult median time (CUDA events with device
   vectors, else wall clock), GDOF/s = dofs / time, the model flops and bytes per dof and the bandwidth-bound GDOF/s
   at -bw GB/s (H100 SXM: 3350).  With -assembled: PETSc's assembled matrix (DMPlexSNESComputeJacobianFEM, host) for
   p <= -assembled_max_p, converted to each of -assembled_types (ellwarp, aijcusparse), and its MatMult timed the same
   way: the peer of the matrix-free operators on the same mesh.
   With -assembled_coo: the assembled peer built on the device at the same size: an elmat_atomic operator's element
   matrices assembled through COO (DMAssemblyMatFreeAssemble) into each of -assembled_types, MatMult timed the same
   way (variant=coo_<type>; setup_s: the operator's set-up plus the COO assembly; -assembled_coo_convert: the types
   after the first converted from its matrix, variant=conv_<type>, one host COO preallocation instead of several).  -cpu_types: the CPU versions
   (host vectors, -cpu_threads threads, 0: all the process's CPUs) on the same mesh (variant=cpu_<type>).
   Output: one line per (p, variant), "BENCH key=value ..." for scripts, and per mesh the ratios "COMPARE ...":
   sumfact (stored, recomputed) / assembled ELLWARP (issue target >= 2 for p >= 2), the best GPU / best CPU version
   (the paper's: its element-matrix variants on both sides; overall: any variant), target 4.5-10x.
     matfree_bench -orders 1,2,3,4,5,6,7,8 -dofs 4e6 -ops poisson,mass -types sumfact,sumfact_gather,sumfact_recompute,elmat_atomic,elmat_color,elmat_max */
#include <petscellwarp.h>
#include <petscellwarpassembly.h>
#include <petscdmplex.h>
#include <petscsnes.h>
#include <petscds.h>
#include <petscfe.h>
#include "benchtime.h"

static void g0_one(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g0[])
{
  g0[0] = 1.0;
}

static void g3_id(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  for (PetscInt i = 0; i < dim; i++)
    for (PetscInt j = 0; j < dim; j++) g3[i * dim + j] = i == j;
}

typedef struct {
  Mat A;
  Vec x, y;
} MultCtx;

/* the best GDOF/s of each group on one mesh, for the COMPARE lines */
typedef struct {
  double      sf, sfr, ell, cus, gpu, gpuel, cpu, cpuel;
  double      sfs, sfrs, ells; /* set-up seconds: sumfact, recomputed, the assembled ELLWARP (operator + COO) */
  const char *gpuv, *gpuelv, *cpuv, *cpuelv;
} Best;

static void Keep(double g, double *best, const char **bv, const char *v)
{
  if (g > *best) {
    *best = g;
    if (bv) *bv = v;
  }
}

static PetscErrorCode DoMult(void *ctx)
{
  MultCtx *c = (MultCtx *)ctx;
  PetscFunctionBegin;
  PetscCall(MatMult(c->A, c->x, c->y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TimeMult(Mat A, Vec x, Vec y, PetscBool device, PetscInt reps, double *sec)
{
  MultCtx c = {A, x, y};

  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  if (device) {
    PetscCall(BenchDeviceMedianTime(DoMult, &c, reps, sec));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  {
    double *t;
    PetscCall(PetscMalloc1(reps, &t));
    PetscCall(DoMult(&c));
    for (PetscInt r = 0; r < reps; r++) {
      PetscLogDouble t0, t1;
      PetscCall(PetscTime(&t0));
      PetscCall(DoMult(&c));
      PetscCall(PetscTime(&t1));
      t[r] = t1 - t0;
    }
    *sec = BenchMedian(t, reps);
    PetscCall(PetscFree(t));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* model bytes and flops per dof of one application (ideal caching of x and y: each dof read and written once) */
static void Model(const char type[], PetscBool poisson, PetscInt dim, PetscInt p, PetscInt q, PetscInt nelem, PetscInt ndof, double *bytes, double *flops)
{
  const double n = p + 1, nen = dim == 3 ? n * n * n : n * n, nq = dim == 3 ? (double)q * q * q : (double)q * q, ng = poisson ? dim * (dim + 1) / 2 : 1;
  const double epd = (double)nelem / ndof; /* elements per dof */
  PetscBool    el;
  const int    gather = strstr(type, "gather") != NULL, recompute = strstr(type, "recompute") != NULL;
  PetscStrbeginswith(type, "elmat", &el);
  /* x, y, element map, stored outputs (write + read) and the CSR, geometry (stored per point, or the corners) */
  *bytes = 16 + epd * nen * sizeof(PetscInt) + (gather ? epd * nen * 16 + 8 : 0) + (el ? 0 : (recompute ? epd * (1 << dim) * dim * 8 : epd * nq * ng * 8));
  if (el) *flops = epd * 2 * nen * nen;
  else if (dim == 3) {
    const double fwd = poisson ? 2 * q * n * n * n + 3.0 * q * q * n * n + 3.0 * q * q * q * n : q * n * n * n + 1.0 * q * q * n * n + 1.0 * q * q * q * n;
    *flops           = epd * (4 * fwd + (poisson ? 15.0 : 1.0) * nq + (recompute ? (poisson ? 80.0 : 20.0) * nq : 0));
  } else {
    const double fwd = poisson ? 2 * q * n * n + 2.0 * q * q * n : q * n * n + 1.0 * q * q * n;
    *flops           = epd * (4 * fwd + (poisson ? 6.0 : 1.0) * nq + (recompute ? 50.0 * nq : 0));
  }
}

/* one variant (sumfact[_gather][_recompute]: -dm_assembly_matfree_scatter gather / -dm_assembly_matfree_geometry
   recompute) on dm: set-up, MatMult timing (reps > 0), a BENCH line (variant = prefix type); keep: the operator is
   returned instead of destroyed */
static PetscErrorCode RunVariant(DM dm, const char type[], const char prefix[], PetscBool poisson, PetscInt dim, PetscInt p, PetscInt qextra, PetscInt nelem, PetscInt ndof, Vec x, Vec y, PetscBool device, PetscInt reps, double bw, double *gdofs, double *setup, Mat *keep)
{
  DMAssembly     as;
  Mat            A;
  double         sec = 0, bytes, flops;
  PetscBool      gather, sumfact, recompute, priv;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscStrbeginswith(type, "sumfact", &sumfact));
  gather    = (PetscBool)(sumfact && strstr(type, "_gather"));
  priv      = (PetscBool)(sumfact && strstr(type, "_private"));
  recompute = (PetscBool)(sumfact && strstr(type, "_recompute"));
  if (gather) PetscCall(PetscOptionsSetValue(NULL, "-dm_assembly_matfree_scatter", "gather"));
  if (priv) PetscCall(PetscOptionsSetValue(NULL, "-dm_assembly_matfree_scatter", "private"));
  if (recompute) PetscCall(PetscOptionsSetValue(NULL, "-dm_assembly_matfree_geometry", "recompute"));
  PetscCall(PetscOptionsSetValue(NULL, "-dm_assembly_matfree_type", sumfact ? "sumfact" : type));
  PetscCall(PetscOptionsSetValue(NULL, "-dm_assembly_matfree_op", poisson ? "poisson" : "mass"));
  PetscCall(PetscTime(&t0));
  PetscCall(DMAssemblyCreate(dm, &as));
  PetscCall(DMAssemblyCreateMatrixFree(as, &A));
  PetscCall(PetscTime(&t1));
  PetscCall(DMAssemblyDestroy(&as));
  if (gather || priv) PetscCall(PetscOptionsClearValue(NULL, "-dm_assembly_matfree_scatter"));
  if (recompute) PetscCall(PetscOptionsClearValue(NULL, "-dm_assembly_matfree_geometry"));
  if (reps > 0) {
    PetscCall(TimeMult(A, x, y, device, reps, &sec));
    Model(type, poisson, dim, p, p + 1 + qextra, nelem, ndof, &bytes, &flops);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "BENCH op=%s dim=%d p=%" PetscInt_FMT " variant=%s%s dofs=%" PetscInt_FMT " setup_s=%.3f mult_ms=%.4f gdofs=%.3f bytes_per_dof=%.1f flops_per_dof=%.0f gflops=%.1f bw_bound_gdofs=%.2f\n", poisson ? "BP3" : "BP1", (int)dim, p, prefix, type, ndof, t1 - t0, sec * 1e3, ndof / sec * 1e-9, bytes, flops, flops * ndof / sec * 1e-9, bw / bytes));
  }
  if (gdofs) *gdofs = sec > 0 ? ndof / sec * 1e-9 : 0;
  if (setup) *setup = t1 - t0;
  if (keep) *keep = A;
  else PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  orders[16], norders = 16, ntypes = 16, nops = 2, nat = 4, dim = 3, qextra = 1, reps = 20, amaxp = 3, maxcells = 600000, elmatmaxp = 4, ndofs = 16;
  char     *types[16], *opsv[2], *atypes[4];
  PetscReal dofsv[16] = {4e6}, bw = 3350;
  PetscBool tset, oset, aset, dset, assembled = PETSC_FALSE, device = PETSC_FALSE, coo = PETSC_FALSE, cset, cooconv = PETSC_FALSE;
  char     *ctypes[8];
  PetscInt  nct = 8, cthreads = 0, creps = 5;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  for (PetscInt i = 0; i < 16; i++) orders[i] = i + 1;
  norders = 8;
  PetscOptionsBegin(PETSC_COMM_SELF, NULL, "matfree_bench", NULL);
  PetscCall(PetscOptionsInt("-dim", "dimension", NULL, dim, &dim, NULL));
  PetscCall(PetscOptionsIntArray("-orders", "polynomial orders", NULL, orders, &norders, NULL));
  PetscCall(PetscOptionsRealArray("-dofs", "target dofs (several: a performance-vs-size sweep, every order at each)", NULL, dofsv, &ndofs, &dset));
  PetscCall(PetscOptionsInt("-max_cells", "cap on the cells of a mesh", NULL, maxcells, &maxcells, NULL));
  PetscCall(PetscOptionsInt("-qextra", "Gauss points per direction beyond p+1", NULL, qextra, &qextra, NULL));
  PetscCall(PetscOptionsInt("-reps", "timed MatMults (median)", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsReal("-bw", "device memory bandwidth GB/s for the bound", NULL, bw, &bw, NULL));
  PetscCall(PetscOptionsStringArray("-types", "variants (sumfact, sumfact_gather, elmat_*)", NULL, types, &ntypes, &tset));
  PetscCall(PetscOptionsInt("-elmat_max_p", "elmat_* variants only for p <= this", NULL, elmatmaxp, &elmatmaxp, NULL));
  PetscCall(PetscOptionsStringArray("-ops", "poisson, mass", NULL, opsv, &nops, &oset));
  PetscCall(PetscOptionsBool("-assembled", "also PETSc's assembled matrix", NULL, assembled, &assembled, NULL));
  PetscCall(PetscOptionsInt("-assembled_max_p", "assembled for p <= this", NULL, amaxp, &amaxp, NULL));
  PetscCall(PetscOptionsStringArray("-assembled_types", "matrix types of the assembled operator", NULL, atypes, &nat, &aset));
  PetscCall(PetscOptionsBool("-gpu", "device vectors", NULL, device, &device, NULL));
  PetscCall(PetscOptionsBool("-assembled_coo", "also the assembled operator through COO from the element matrices (device values), p <= -assembled_max_p", NULL, coo, &coo, NULL));
  PetscCall(PetscOptionsBool("-assembled_coo_convert", "-assembled_coo: the types after the first by MatConvert of the first's matrix (one COO preallocation on the host)", NULL, cooconv, &cooconv, NULL));
  PetscCall(PetscOptionsStringArray("-cpu_types", "CPU versions (host vectors) on the same mesh", NULL, ctypes, &nct, &cset));
  PetscCall(PetscOptionsInt("-cpu_threads", "threads of the CPU versions (0: all the process's CPUs)", NULL, cthreads, &cthreads, NULL));
  PetscCall(PetscOptionsInt("-cpu_reps", "timed MatMults of the CPU versions", NULL, creps, &creps, NULL));
  PetscOptionsEnd();
  if (!cset) nct = 0;
  if (!tset) {
    const char *def[] = {"sumfact", "sumfact_gather", "sumfact_recompute", "elmat_atomic", "elmat_color", "elmat_gather", "elmat_max"};
    ntypes            = 7;
    for (PetscInt t = 0; t < ntypes; t++) PetscCall(PetscStrallocpy(def[t], &types[t]));
  }
  if (!oset) {
    nops = 1;
    PetscCall(PetscStrallocpy("poisson", &opsv[0]));
  }
  if (!aset) {
    nat = 2; /* the first: the COMPARE lines' assembled peer when it is ellwarp */
    PetscCall(PetscStrallocpy("ellwarp", &atypes[0]));
    PetscCall(PetscStrallocpy("aijcusparse", &atypes[1]));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "matfree_bench: %dD, q = p+%d Gauss points, %s vectors, bound at %.0f GB/s\n", (int)dim, (int)(1 + qextra), device ? "device" : "host", (double)bw));
  if (!dset) ndofs = 1;
  for (PetscInt io = 0; io < norders * ndofs; io++) {
    const PetscInt  p = orders[io / ndofs];
    const PetscReal dofs = dofsv[io % ndofs];
    PetscInt        m = (PetscInt)PetscMax(1, (PetscInt)((PetscPowReal(dofs, 1.0 / dim) - 1) / p + 0.5));
    while (m > 1 && PetscPowReal((PetscReal)m, (PetscReal)dim) > maxcells) m--;
    for (PetscInt k = 0; k < nops; k++) {
      PetscBool       poisson;
      DM              dm;
      PetscInt        f[3] = {m, m, m}, ndof, nelem;
      PetscReal       lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
      PetscFE         fe;
      PetscQuadrature quad;
      PetscDS         ds;
      Vec             x, y;
      PetscLogDouble  t0, t1;

      PetscCall(PetscStrcmp(opsv[k], "poisson", &poisson));
      PetscCall(PetscTime(&t0));
      PetscCall(DMPlexCreateBoxMesh(PETSC_COMM_SELF, dim, PETSC_FALSE, f, lo, hi, NULL, PETSC_TRUE, 0, PETSC_FALSE, &dm));
      if (device) PetscCall(DMSetVecType(dm, VECCUDA));
      PetscCall(DMSetMatType(dm, MATAIJ));
      PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, dim, 1, PETSC_FALSE, p, PETSC_DETERMINE, &fe));
      PetscCall(PetscDTGaussTensorQuadrature(dim, 1, p + 1 + qextra, -1.0, 1.0, &quad));
      PetscCall(PetscFESetQuadrature(fe, quad));
      PetscCall(PetscQuadratureDestroy(&quad));
      PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
      PetscCall(PetscFEDestroy(&fe));
      PetscCall(DMCreateDS(dm));
      PetscCall(DMGetDS(dm, &ds));
      if (poisson) PetscCall(PetscDSSetJacobian(ds, 0, 0, NULL, NULL, NULL, g3_id));
      else PetscCall(PetscDSSetJacobian(ds, 0, 0, g0_one, NULL, NULL, NULL));
      PetscCall(DMCreateGlobalVector(dm, &x));
      PetscCall(VecDuplicate(x, &y));
      PetscCall(VecSetRandom(x, NULL));
      PetscCall(VecGetSize(x, &ndof));
      nelem = (PetscInt)PetscPowReal((PetscReal)m, (PetscReal)dim);
      PetscCall(PetscTime(&t1));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "Q%" PetscInt_FMT " %s: %" PetscInt_FMT "^%d cells, %" PetscInt_FMT " dofs (mesh %.2f s)\n", p, poisson ? "BP3" : "BP1", m, (int)dim, ndof, t1 - t0));
      {
        Best b   = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "none", "none", "none", "none"};
        Mat    Ael  = NULL; /* the elmat_atomic operator, kept for the COO peer */
        double aels = 0;    /* its set-up seconds */
        Vec  xh = NULL, yh = NULL;
        for (PetscInt t = 0; t < ntypes; t++) {
          PetscBool el, sf;
          double    g, su;
          PetscCall(PetscStrbeginswith(types[t], "elmat", &el));
          PetscCall(PetscStrbeginswith(types[t], "sumfact", &sf));
          if (el && p > elmatmaxp) continue;
          PetscBool keep = (PetscBool)(coo && p <= amaxp && !Ael && !strcmp(types[t], "elmat_atomic"));
          PetscCall(RunVariant(dm, types[t], "", poisson, dim, p, qextra, nelem, ndof, x, y, device, reps, bw, &g, &su, keep ? &Ael : NULL));
          if (keep) aels = su;
          if (sf && !strstr(types[t], "recompute") && g > b.sf) b.sfs = su;
          if (sf && strstr(types[t], "recompute") && g > b.sfr) b.sfrs = su;
          if (sf && !strstr(types[t], "recompute")) Keep(g, &b.sf, NULL, NULL);
          if (sf && strstr(types[t], "recompute")) Keep(g, &b.sfr, NULL, NULL);
          if (strcmp(types[t], "elmat_max")) Keep(g, &b.gpu, &b.gpuv, types[t]); /* elmat_max races: not a result */
          if (el && strcmp(types[t], "elmat_max")) Keep(g, &b.gpuel, &b.gpuelv, types[t]);
        }
        if (coo && p <= amaxp) { /* the assembled peer at the same size: element matrices -> COO -> matrix */
          PetscLogDouble t2, t3;
          Mat            B0 = NULL; /* -assembled_coo_convert: the first type's matrix */
          PetscCall(PetscTime(&t2));
          if (!Ael) PetscCall(RunVariant(dm, "elmat_atomic", "", poisson, dim, p, qextra, nelem, ndof, x, y, device, 0, bw, NULL, &aels, &Ael));
          PetscCall(PetscTime(&t3));
          t3 = t2 + aels; /* the set-up of the operator whose element matrices are assembled, wherever it was made */
          for (PetscInt a = 0; a < nat; a++) {
            Mat            B;
            MatInfo        info;
            double         sec;
            PetscLogDouble t4, t5;
            PetscBool      isell, conv = (PetscBool)(cooconv && a > 0);
            PetscCall(PetscTime(&t4));
            if (conv) PetscCall(MatConvert(B0, atypes[a], MAT_INITIAL_MATRIX, &B)); /* the first type's matrix converted */
            else {
              PetscCall(MatCreate(PETSC_COMM_SELF, &B));
              PetscCall(MatSetSizes(B, ndof, ndof, ndof, ndof));
              PetscCall(MatSetType(B, atypes[a]));
              PetscCall(DMAssemblyMatFreeAssemble(Ael, B));
            }
            PetscCall(PetscTime(&t5));
            PetscCall(MatGetInfo(B, MAT_LOCAL, &info));
            PetscCall(TimeMult(B, x, y, device, reps, &sec));
            PetscCall(PetscPrintf(PETSC_COMM_SELF, "BENCH op=%s dim=%d p=%" PetscInt_FMT " variant=%s_%s dofs=%" PetscInt_FMT " setup_s=%.3f mult_ms=%.4f gdofs=%.3f bytes_per_dof=%.1f nnz=%.0f %s_s=%.3f\n", poisson ? "BP3" : "BP1", (int)dim, p, conv ? "conv" : "coo", atypes[a], ndof, (t3 - t2) + (t5 - t4), sec * 1e3, ndof / sec * 1e-9, (12.0 * info.nz_used + 4.0 * ndof + 16.0 * ndof) / ndof, info.nz_used, conv ? "convert" : "coo", t5 - t4));
            PetscCall(PetscStrcmp(atypes[a], "ellwarp", &isell));
            if (isell) {
              b.ell  = ndof / sec * 1e-9;
              b.ells = (t3 - t2) + (t5 - t4);
            }
            else b.cus = PetscMax(b.cus, ndof / sec * 1e-9);
            if (a == 0 && cooconv) B0 = B;
            else PetscCall(MatDestroy(&B));
          }
          PetscCall(MatDestroy(&B0));
        }
        PetscCall(MatDestroy(&Ael));
        /* the ratios the targets are stated in, read directly (printed before the CPU part, which may run long) */
        if (b.ell > 0 && (b.sf > 0 || b.sfr > 0))
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "COMPARE op=%s dim=%d p=%" PetscInt_FMT " dofs=%" PetscInt_FMT " what=sumfact/assembled_ellwarp stored=%.2fx recomputed=%.2fx ellwarp_gdofs=%.3f aijcusparse_gdofs=%.3f target=2x(p>=2) %s setup_s: sumfact=%.2f recomputed=%.2f ellwarp=%.2f\n", poisson ? "BP3" : "BP1", (int)dim, p, ndof, b.sf / b.ell, b.sfr / b.ell, b.ell, b.cus,
                                p < 2 ? "(p=1: no target)" : (PetscMax(b.sf, b.sfr) >= 2 * b.ell ? "MET" : "NOT_MET"), b.sfs, b.sfrs, b.ells));
        if (nct) { /* the CPU versions: host vectors, the operator made with the DM's vector type standard */
          VecType vt;
          char    nth[16];
          PetscCall(DMGetVecType(dm, &vt));
          PetscCall(PetscStrallocpy(vt, (char **)&vt));
          PetscCall(DMSetVecType(dm, VECSTANDARD));
          PetscCall(VecCreateSeq(PETSC_COMM_SELF, ndof, &xh));
          PetscCall(VecDuplicate(xh, &yh));
          PetscCall(VecSetRandom(xh, NULL));
          PetscCall(PetscSNPrintf(nth, sizeof(nth), "%" PetscInt_FMT, cthreads));
          PetscCall(PetscOptionsSetValue(NULL, "-dm_assembly_matfree_host_threads", nth));
          for (PetscInt t = 0; t < nct; t++) {
            PetscBool el;
            double    g;
            PetscCall(PetscStrbeginswith(ctypes[t], "elmat", &el));
            if (el && p > elmatmaxp) continue;
            PetscCall(RunVariant(dm, ctypes[t], "cpu_", poisson, dim, p, qextra, nelem, ndof, xh, yh, PETSC_FALSE, creps, bw, &g, NULL, NULL));
            Keep(g, &b.cpu, &b.cpuv, ctypes[t]);
            if (el) Keep(g, &b.cpuel, &b.cpuelv, ctypes[t]);
          }
          PetscCall(PetscOptionsClearValue(NULL, "-dm_assembly_matfree_host_threads"));
          PetscCall(DMSetVecType(dm, vt));
          PetscCall(PetscFree(vt));
          PetscCall(VecDestroy(&xh));
          PetscCall(VecDestroy(&yh));
        }
        if (b.cpu > 0 && b.gpu > 0) {
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "COMPARE op=%s dim=%d p=%" PetscInt_FMT " dofs=%" PetscInt_FMT " what=gpu_best/cpu_best overall=%.2fx (%s %.3f / cpu_%s %.3f GDOF/s)", poisson ? "BP3" : "BP1", (int)dim, p, ndof, b.gpu / b.cpu, b.gpuv, b.gpu, b.cpuv, b.cpu));
          if (b.gpuel > 0 && b.cpuel > 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, " paper=%.2fx (element matrices: %s %.3f / cpu_%s %.3f)", b.gpuel / b.cpuel, b.gpuelv, b.gpuel, b.cpuelv, b.cpuel));
          PetscCall(PetscPrintf(PETSC_COMM_SELF, " target=4.5-10x\n"));
        }
      }
      if (assembled && p <= amaxp) {
        Mat J;
        Vec ul;
        PetscCall(PetscTime(&t0));
        PetscCall(DMCreateMatrix(dm, &J));
        PetscCall(DMGetLocalVector(dm, &ul));
        PetscCall(VecZeroEntries(ul));
        PetscCall(DMPlexSNESComputeJacobianFEM(dm, ul, J, J, NULL));
        PetscCall(DMRestoreLocalVector(dm, &ul));
        PetscCall(PetscTime(&t1));
        for (PetscInt a = 0; a < nat; a++) {
          Mat       B;
          MatInfo   info;
          double    sec;
          PetscCall(MatConvert(J, atypes[a], MAT_INITIAL_MATRIX, &B));
          PetscCall(MatGetInfo(B, MAT_LOCAL, &info));
          PetscCall(TimeMult(B, x, y, device, reps, &sec));
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "BENCH op=%s dim=%d p=%" PetscInt_FMT " variant=assembled_%s dofs=%" PetscInt_FMT " setup_s=%.3f mult_ms=%.4f gdofs=%.3f bytes_per_dof=%.1f nnz=%.0f\n", poisson ? "BP3" : "BP1", (int)dim, p, atypes[a], ndof, t1 - t0, sec * 1e3, ndof / sec * 1e-9, (12.0 * info.nz_used + 4.0 * ndof + 16.0 * ndof) / ndof, info.nz_used));
          PetscCall(MatDestroy(&B));
        }
        PetscCall(MatDestroy(&J));
      }
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&y));
      PetscCall(DMDestroy(&dm));
    }
  }
  PetscCall(PetscOptionsClearValue(NULL, "-dm_assembly_matfree_type"));
  PetscCall(PetscOptionsClearValue(NULL, "-dm_assembly_matfree_op"));
  for (PetscInt t = 0; t < ntypes; t++) PetscCall(PetscFree(types[t]));
  for (PetscInt k = 0; k < nops; k++) PetscCall(PetscFree(opsv[k]));
  for (PetscInt a = 0; a < nat; a++) PetscCall(PetscFree(atypes[a]));
  for (PetscInt t = 0; t < nct; t++) PetscCall(PetscFree(ctypes[t]));
  PetscCall(PetscFinalize());
  return 0;
}

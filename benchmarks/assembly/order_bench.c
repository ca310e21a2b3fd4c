static const char help[] = "The Figure 13/14 study of Cecka, Lew, Darve on today's hardware (issue 6): 2-D heat problem (Laplacian + mass,\n"
                           "one backward-Euler Jacobian) on a triangulated unit square, Lagrange triangles of order 1..5, meshes sized so the\n"
                           "number of dofs is about equal across orders.  Per order: the Jacobian assembly time per element of each DMAssembly\n"
                           "method into MATSEQELLWARP and MATSEQAIJCUSPARSE, of the peer (the same device element kernel, then PETSc's\n"
                           "MatSetValuesCOO into AIJCUSPARSE, MatSetPreallocationCOO once) and of the serial CPU (the host method: the same\n"
                           "kernels and plan in C, into AIJ), ratios vs the peer and vs the CPU.  Options: -orders 1,2,3,4,5, -ndofs N (target\n"
                           "dofs per order, default 1000000), -methods globalnz,sharednz,atomic,color[,atomic-unfused,color-unfused] (atomic/color\n"
                           "fuse the built-in element into their scatter; -unfused: through the element buffers), -targets ellwarp,aijcusparse, -repeats r\n"
                           "(device, default 10), -cpu_repeats r (default 2), -petsc_cpu 0|1 (also time DMPlexSNESComputeJacobianFEM once,\n"
                           "default 1), -p1_builtin 0|1 (order 1 with the fused P1 kernels, default 1; else the Lagrange kernels), -reorder\n"
                           "rcm|none (mesh points, default rcm), -o dir (writes dir/order.json; plot: benchmarks/assembly/plot_order.py).\n"
                           "Without a GPU every method runs its host reference path (labelled 'host ref'), the peer feeds AIJ: a smoke run.\n";
/* Times are medians over -repeats runs after a warm-up that builds the plans (CUDA events on PETSc's stream, or
   PetscTime on the host).  ns/element = time / elements of that order's mesh. */
#include <petscellwarp.h>
#include <petscellwarpassembly.h>
#include <petscdmplex.h>
#include <petscfe.h>
#include <petscds.h>
#include <petscsnes.h>
#include "benchtime.h"
#if defined(ELLWARP_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

typedef struct {
  DMAssembly                as;
  DMAssemblyElementKernels *k;
  Vec                       U;
  Mat                       J;
  PetscScalar              *ke;  /* peer: element matrices (the COO values), where the methods run */
  const PetscReal          *dxe; /* peer: element vertex coordinates, there too */
  PetscInt                  nelem;
  PetscMemType              mt;
} Ctx;

static PetscErrorCode OpJac(void *p)
{
  Ctx *c = (Ctx *)p;

  PetscFunctionBegin;
  PetscCall(DMAssemblyComputeJacobian(c->as, c->U, c->J));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpElem(void *p) /* the element kernel alone: the same call the methods make */
{
  Ctx *c = (Ctx *)p;

  PetscFunctionBegin;
  PetscCall((*c->k->jacobian)(c->mt, 0, c->nelem, c->dxe, NULL, NULL, c->ke, c->k->ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpCOO(void *p) /* the peer: element kernel -> MatSetValuesCOO */
{
  Ctx *c = (Ctx *)p;

  PetscFunctionBegin;
  PetscCall(OpElem(p));
  PetscCall(MatSetValuesCOO(c->J, c->ke, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Time(PetscErrorCode (*op)(void *), Ctx *c, PetscInt reps, double *sec)
{
  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  if (c->mt == PETSC_MEMTYPE_DEVICE) {
    PetscCall(BenchDeviceMedianTime(op, c, reps, sec));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  {
    double *t;
    PetscCall(PetscMalloc1(reps, &t));
    PetscCall((*op)(c)); /* warm-up: plans */
    for (PetscInt r = 0; r < reps; r++) {
      PetscLogDouble t0, t1;
      PetscCall(PetscTime(&t0));
      PetscCall((*op)(c));
      PetscCall(PetscTime(&t1));
      t[r] = t1 - t0;
    }
    *sec = BenchMedian(t, reps);
    PetscCall(PetscFree(t));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||A x - B x|| / ||B x|| for a fixed random x: a cheap check of a large matrix in any storage and memory (the tests,
   tests/assembly_ho.c, compare entry by entry against PETSc's FEM assembly; converting every 30 M-nonzero target to AIJ
   here took longer than its assembly plan) */
static PetscErrorCode RelDiff(Mat A, Mat B, PetscReal *r)
{
  Vec               xa, ya, xb, yb, d;
  PetscRandom       rnd;
  const PetscScalar *s;
  PetscScalar       *t;
  PetscInt           n;
  PetscReal          nd, nb;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &xa, &ya));
  PetscCall(MatCreateVecs(B, &xb, &yb));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetType(rnd, PETSCRAND48));
  PetscCall(PetscRandomSetSeed(rnd, 12345));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(xb, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecGetLocalSize(xb, &n));
  PetscCall(VecGetArrayRead(xb, &s));
  PetscCall(VecGetArrayWrite(xa, &t));
  PetscCall(PetscArraycpy(t, s, n));
  PetscCall(VecRestoreArrayWrite(xa, &t));
  PetscCall(VecRestoreArrayRead(xb, &s));
  PetscCall(MatMult(A, xa, ya));
  PetscCall(MatMult(B, xb, yb));
  PetscCall(VecDuplicate(yb, &d));
  PetscCall(VecGetArrayRead(ya, &s));
  PetscCall(VecGetArrayWrite(d, &t));
  PetscCall(PetscArraycpy(t, s, n));
  PetscCall(VecRestoreArrayWrite(d, &t));
  PetscCall(VecRestoreArrayRead(ya, &s));
  PetscCall(VecAXPY(d, -1.0, yb));
  PetscCall(VecNorm(d, NORM_2, &nd));
  PetscCall(VecNorm(yb, NORM_2, &nb));
  *r = nd / (nb > 0 ? nb : 1);
  PetscCall(VecDestroy(&xa));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&xb));
  PetscCall(VecDestroy(&yb));
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void g0_one(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g0[])
{
  g0[0] = 1.0;
}

static void g3_identity(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  for (PetscInt d = 0; d < dim; d++) g3[d * dim + d] = 1.0;
}

/* the unit square cut into n x n squares, two counter-clockwise triangles each (no mesh generator needed), mesh
   points optionally renumbered by RCM, a P<order> Lagrange field with PETSc's default quadrature */
static PetscErrorCode CreateProblem(PetscInt n, PetscInt order, PetscBool rcm, DM *dm)
{
  const PetscInt nv = (n + 1) * (n + 1), nt = 2 * n * n;
  PetscInt      *cells;
  PetscReal     *x;
  PetscFE        fe;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(3 * (size_t)nt, &cells, 2 * (size_t)nv, &x));
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt v0 = i + (n + 1) * j, c = 2 * (i + n * j);
      const PetscInt t[6] = {v0, v0 + 1, v0 + n + 2, v0, v0 + n + 2, v0 + n + 1};
      for (int q = 0; q < 6; q++) cells[3 * (size_t)c + q] = t[q];
    }
  for (PetscInt v = 0; v < nv; v++) {
    x[2 * v + 0] = (PetscReal)(v % (n + 1)) / n;
    x[2 * v + 1] = (PetscReal)(v / (n + 1)) / n;
  }
  PetscCall(DMPlexCreateFromCellListPetsc(PETSC_COMM_SELF, 2, nt, nv, 3, PETSC_TRUE, cells, 2, x, dm));
  PetscCall(PetscFree2(cells, x));
  if (rcm) { /* dofs of neighbouring points close together (the P2+ edge and cell dofs would otherwise follow all vertices) */
    IS perm;
    DM pdm;
    PetscCall(DMPlexGetOrdering(*dm, MATORDERINGRCM, NULL, &perm));
    PetscCall(DMPlexPermute(*dm, perm, &pdm));
    PetscCall(ISDestroy(&perm));
    PetscCall(DMDestroy(dm));
    *dm = pdm;
  }
  PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, 2, 1, PETSC_TRUE, order, PETSC_DETERMINE, &fe));
  PetscCall(DMSetField(*dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(*dm));
  PetscCall(PetscFEDestroy(&fe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the method's kernels: order 1 with the built-in P1 kernels (fused paths, sharednz) unless -p1_builtin 0 */
static PetscErrorCode SetKernels(DMAssembly as, PetscInt order, PetscBool p1builtin, DMAssemblyElementKernels *k)
{
  PetscFunctionBegin;
  if (order == 1 && p1builtin) PetscCall(DMAssemblyP1DiffusionMassKernels(as, 1.0, 1.0, 0.0, NULL, k));
  else PetscCall(DMAssemblyLagrangeKernels(as, 1.0, 1.0, 0.0, NULL, k));
  PetscCall(DMAssemblySetElementKernels(as, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define MAXROWS 16
typedef struct {
  char   name[40], method[24], target[16];
  double s, err;
} Row;

typedef struct {
  PetscInt   order, nen, nelem, ndof, n;
  PetscCount nnz;
  double     cpu, petsc, peer, elem, prealloc, setup, peererr;
  Row        rows[MAXROWS];
  int        nrows;
} OrderResult;

int main(int argc, char **argv)
{
  PetscInt    orders[8] = {1, 2, 3, 4, 5}, norders = 8, ndofs = 1000000, reps = 10, creps = 2, nmeth = 8, ntgt = 4;
  char       *meth[8], *tgts[4], outdir[PETSC_MAX_PATH_LEN] = "", reorder[16] = "rcm", devname[256] = "none (CPU only)";
  PetscBool   device = PETSC_FALSE, hasout, set, petsccpu = PETSC_TRUE, p1builtin = PETSC_TRUE, rcm;
  OrderResult res[8];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-orders", orders, &norders, &set));
  if (!set) norders = 5;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-ndofs", &ndofs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeats", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-cpu_repeats", &creps, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-petsc_cpu", &petsccpu, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-p1_builtin", &p1builtin, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-reorder", reorder, sizeof(reorder), NULL));
  PetscCall(PetscStrcmp(reorder, "rcm", &rcm));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-methods", meth, &nmeth, &set));
  if (!set) {
    nmeth = 4;
    PetscCall(PetscStrallocpy(DMASSEMBLYGLOBALNZ, &meth[0]));
    PetscCall(PetscStrallocpy(DMASSEMBLYSHAREDNZ, &meth[1]));
    PetscCall(PetscStrallocpy(DMASSEMBLYATOMIC, &meth[2]));
    PetscCall(PetscStrallocpy(DMASSEMBLYCOLOR, &meth[3]));
  }
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-targets", tgts, &ntgt, &set));
  if (!set) {
    ntgt = 2;
    PetscCall(PetscStrallocpy("ellwarp", &tgts[0]));
    PetscCall(PetscStrallocpy("aijcusparse", &tgts[1]));
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", outdir, sizeof(outdir), &hasout));
  PetscCheck(norders <= 8 && reps > 0 && creps > 0 && ndofs > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "at most 8 orders; positive -repeats, -cpu_repeats, -ndofs");
  PetscCheck(nmeth * ntgt + 1 <= MAXROWS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "at most %d method x target rows", MAXROWS - 1);
#if defined(ELLWARP_HAVE_CUDA)
  {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();
      n = 0;
    }
    device = (PetscBool)(n > 0);
    if (device) {
      struct cudaDeviceProp prop;
      PetscCallCUDA(cudaGetDeviceProperties(&prop, 0));
      PetscCall(PetscStrncpy(devname, prop.name, sizeof(devname)));
    }
  }
#endif
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "# order study (Cecka, Lew, Darve Fig. 13/14): device %s, ~%" PetscInt_FMT " dofs per order, %s mesh numbering, repeats %" PetscInt_FMT " (CPU %" PetscInt_FMT ")\n", devname, ndofs, rcm ? "RCM" : "natural", reps, creps));
  if (!device) PetscCall(PetscPrintf(PETSC_COMM_SELF, "# no CUDA device: every method runs its plain-C host reference ('host ref'), the peer feeds AIJ; times are not GPU times\n"));

  for (PetscInt o = 0; o < norders; o++) {
    const PetscInt p = orders[o];
    OrderResult   *R = &res[o];
    DM             dm;
    Vec            Uh;
    Mat            Jcpu;
    PetscLogDouble t0, t1;

    PetscCall(PetscMemzero(R, sizeof(*R)));
    PetscCheck(p >= 1 && p <= 8, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "order %" PetscInt_FMT ": 1..8", p);
    R->order = p;
    R->n     = PetscMax(1, (PetscInt)((PetscSqrtReal((PetscReal)ndofs) - 1) / p + 0.5)); /* (p n + 1)^2 dofs */
    PetscCall(PetscTime(&t0));
    PetscCall(CreateProblem(R->n, p, rcm, &dm));
    PetscCall(DMCreateGlobalVector(dm, &Uh));
    PetscCall(VecSet(Uh, 0.5));
    PetscCall(VecGetSize(Uh, &R->ndof));

    /* the serial CPU: the host method (same kernels, same plan, in C) into AIJ; its matrix is the reference */
    {
      DMAssembly               as;
      DMAssemblyElementKernels k;
      DMAssemblyInfo           info;
      Ctx                      c;
      PetscCall(DMAssemblyCreate(dm, &as));
      PetscCall(DMAssemblySetType(as, DMASSEMBLYHOST));
      PetscCall(DMAssemblySetFromOptions(as));
      PetscCall(SetKernels(as, p, p1builtin, &k));
      PetscCall(DMAssemblySetUp(as));
      PetscCall(PetscTime(&t1));
      R->setup = t1 - t0;
      PetscCall(DMAssemblyGetInfo(as, &info));
      R->nen   = info.nen;
      R->nelem = info.nelem;
      R->nnz   = info.nnz;
      PetscCall(DMSetMatType(dm, MATAIJ));
      PetscCall(DMCreateMatrix(dm, &Jcpu));
      c.as = as;
      c.U  = Uh;
      c.J  = Jcpu;
      c.mt = PETSC_MEMTYPE_HOST;
      PetscCall(Time(OpJac, &c, creps, &R->cpu));
      PetscCall(DMAssemblyDestroy(&as));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# P%" PetscInt_FMT ": %" PetscInt_FMT "x%" PetscInt_FMT " squares, %" PetscInt_FMT " triangles of %" PetscInt_FMT " nodes, %" PetscInt_FMT " dofs, %" PetscCount_FMT " nonzeros; mesh + set-up %.2f s; CPU (host method into aij) %.4g ms\n", p, R->n, R->n, R->nelem, R->nen, R->ndof, R->nnz, R->setup, 1e3 * R->cpu));
    if (petsccpu) { /* PETSc's own serial FE assembly of the same Jacobian (g0 = 1, g3 = I), once */
      PetscDS ds;
      Mat     Jp;
      Vec     Ul;
      PetscReal err;
      PetscCall(DMGetDS(dm, &ds));
      PetscCall(PetscDSSetJacobian(ds, 0, 0, g0_one, NULL, NULL, g3_identity));
      PetscCall(MatDuplicate(Jcpu, MAT_DO_NOT_COPY_VALUES, &Jp)); /* DMCreateMatrix()'s pattern */
      PetscCall(DMGetLocalVector(dm, &Ul));
      PetscCall(DMGlobalToLocal(dm, Uh, INSERT_VALUES, Ul));
      PetscCall(PetscTime(&t0));
      PetscCall(DMPlexSNESComputeJacobianFEM(dm, Ul, Jp, Jp, NULL));
      PetscCall(PetscTime(&t1));
      PetscCall(DMRestoreLocalVector(dm, &Ul));
      R->petsc = t1 - t0;
      PetscCall(RelDiff(Jp, Jcpu, &err));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "#   PETSc DMPlexSNESComputeJacobianFEM (serial CPU, once): %.4g ms, vs the host method: rel. diff of J x %.2e\n", 1e3 * R->petsc, (double)err));
      PetscCall(MatDestroy(&Jp));
    }

    /* the methods, into each target (one matrix per target type and memory, shared by the methods: each assembly
       writes every value; every method builds its own plan for it at its warm-up) */
    Mat Jt[2][2] = {{NULL, NULL}, {NULL, NULL}}; /* [ellwarp, csr][host, device] */
    for (PetscInt m = 0; m < nmeth; m++) {
      DMAssembly               as;
      DMAssemblyElementKernels k;
      DMAssemblyInfo           info;
      PetscMemType             mt;
      Vec                      U;
      Ctx                      c;
      PetscBool                shnz;

      char      mname[16];
      PetscBool unfused;
      PetscCall(PetscStrncpy(mname, meth[m], sizeof(mname)));
      PetscCall(PetscStrendswith(mname, "-unfused", &unfused)); /* atomic-unfused, color-unfused: through the element buffers */
      if (unfused) mname[strlen(mname) - 8] = 0;
      PetscCall(DMAssemblyCreate(dm, &as));
      PetscCall(DMAssemblySetType(as, mname));
      PetscCall(DMAssemblySetFromOptions(as));
      if (unfused) PetscCall(DMAssemblySetFuse(as, PETSC_FALSE));
      PetscCall(SetKernels(as, p, p1builtin, &k));
      PetscCall(DMAssemblySetUp(as));
      PetscCall(DMAssemblyGetMemType(as, &mt));
      PetscCall(PetscStrcmp(mname, DMASSEMBLYSHAREDNZ, &shnz));
      if (shnz && !(p == 1 && p1builtin)) { /* sharednz computes the P1 element in its kernel: globalnz would run (not timed twice) */
        for (PetscInt t = 0; t < ntgt; t++) {
          Row *r = &R->rows[R->nrows++];
          PetscCall(PetscStrncpy(r->name, "sharednz (P1 only: not run)", sizeof(r->name)));
          PetscCall(PetscStrncpy(r->method, meth[m], sizeof(r->method)));
          PetscCall(PetscStrncpy(r->target, device || tgts[t][0] == 'e' ? tgts[t] : "aij", sizeof(r->target)));
        }
        PetscCall(DMAssemblyDestroy(&as));
        continue;
      }
      PetscCall(VecCreate(PETSC_COMM_SELF, &U));
      PetscCall(VecSetSizes(U, R->ndof, R->ndof));
      PetscCall(VecSetType(U, mt == PETSC_MEMTYPE_DEVICE ? VECCUDA : VECSEQ));
      PetscCall(VecSet(U, 0.5));
      for (PetscInt t = 0; t < ntgt; t++) {
        Row      *r = &R->rows[R->nrows++];
        PetscBool isell, iscusp;
        PetscCall(PetscStrcmp(tgts[t], "ellwarp", &isell));
        PetscCall(PetscStrcmp(tgts[t], "aijcusparse", &iscusp));
        PetscCheck(isell || iscusp, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-targets ellwarp,aijcusparse");
        /* without a device the CSR target is host AIJ */
        if (!Jt[isell ? 0 : 1][mt == PETSC_MEMTYPE_DEVICE]) { /* DMCreateMatrix()'s pattern, converted (its preallocation took seconds per call) */
          Mat *J = &Jt[isell ? 0 : 1][mt == PETSC_MEMTYPE_DEVICE];
          PetscCall(MatDuplicate(Jcpu, MAT_DO_NOT_COPY_VALUES, J));
          if (isell || mt == PETSC_MEMTYPE_DEVICE) PetscCall(MatConvert(*J, isell ? MATSEQELLWARP : MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, J));
          if (isell) PetscCall(MatEllwarpSetBackend(*J, mt == PETSC_MEMTYPE_DEVICE ? MAT_ELLWARP_BACKEND_CUDA : MAT_ELLWARP_BACKEND_HOST));
        }
        c.J  = Jt[isell ? 0 : 1][mt == PETSC_MEMTYPE_DEVICE];
        c.as = as;
        c.U  = U;
        c.mt = mt;
        PetscCall(Time(OpJac, &c, mt == PETSC_MEMTYPE_DEVICE ? reps : creps, &r->s));
        PetscCall(RelDiff(c.J, Jcpu, &r->err));
        PetscCall(DMAssemblyGetInfo(as, &info));
        PetscCall(PetscSNPrintf(r->name, sizeof(r->name), "%s%s%s", meth[m], shnz && !info.shblocks ? "(->globalnz)" : "", mt == PETSC_MEMTYPE_DEVICE ? "" : " host ref"));
        PetscCall(PetscStrncpy(r->method, meth[m], sizeof(r->method)));
        PetscCall(PetscStrncpy(r->target, isell ? "ellwarp" : (mt == PETSC_MEMTYPE_DEVICE ? "aijcusparse" : "aij"), sizeof(r->target)));
      }
      PetscCall(VecDestroy(&U));
      PetscCall(DMAssemblyDestroy(&as));
    }

    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) PetscCall(MatDestroy(&Jt[i][j]));

    /* the peer: the same element kernel (where the methods run), then MatSetValuesCOO; COO entry q = k*nelem + e is
       exactly the layout of the element matrices, so the kernel's output is the COO value array */
    {
      DMAssembly               as;
      DMAssemblyElementKernels k;
      Ctx                      c;
      PetscInt                *ci, *cj, ne, nen;
      const PetscInt          *edof;
      const PetscReal         *xe;
      const PetscCount         ncoo = (PetscCount)R->nen * R->nen * R->nelem;
      const size_t             nx   = (size_t)3 * 2 * R->nelem; /* triangle vertex coordinates */
      PetscMemType             mt;

      PetscCall(DMAssemblyCreate(dm, &as));
      PetscCall(DMAssemblySetFromOptions(as));
      PetscCall(SetKernels(as, p, p1builtin, &k));
      PetscCall(DMAssemblySetUp(as));
      PetscCall(DMAssemblyGetMemType(as, &mt));
      PetscCall(DMAssemblyGetElementDofs(as, &ne, &nen, &edof));
      PetscCall(DMAssemblyGetElementCoordinates(as, &xe));
      c.mt    = mt;
      c.k     = &k;
      c.nelem = ne;
      if (mt == PETSC_MEMTYPE_DEVICE) {
#if defined(ELLWARP_HAVE_CUDA)
        PetscReal *d;
        PetscCallCUDA(cudaMalloc((void **)&c.ke, sizeof(PetscScalar) * (size_t)ncoo));
        PetscCallCUDA(cudaMalloc((void **)&d, sizeof(PetscReal) * nx));
        PetscCallCUDA(cudaMemcpy(d, xe, sizeof(PetscReal) * nx, cudaMemcpyHostToDevice));
        c.dxe = d;
#endif
      } else {
        PetscCall(PetscMalloc1(ncoo, &c.ke));
        c.dxe = xe;
      }
      PetscCall(PetscMalloc2(ncoo, &ci, ncoo, &cj));
      for (PetscInt a = 0; a < nen; a++)
        for (PetscInt b = 0; b < nen; b++)
          for (PetscInt e = 0; e < ne; e++) {
            ci[(size_t)(a * nen + b) * ne + e] = edof[(size_t)a * ne + e];
            cj[(size_t)(a * nen + b) * ne + e] = edof[(size_t)b * ne + e];
          }
      PetscCall(MatCreate(PETSC_COMM_SELF, &c.J));
      PetscCall(MatSetSizes(c.J, R->ndof, R->ndof, R->ndof, R->ndof));
      PetscCall(MatSetType(c.J, mt == PETSC_MEMTYPE_DEVICE ? MATSEQAIJCUSPARSE : MATSEQAIJ));
      PetscCall(PetscTime(&t0));
      PetscCall(MatSetPreallocationCOO(c.J, ncoo, ci, cj));
      PetscCall(PetscTime(&t1));
      R->prealloc = t1 - t0;
      PetscCall(PetscFree2(ci, cj));
      PetscCall(Time(OpCOO, &c, mt == PETSC_MEMTYPE_DEVICE ? reps : creps, &R->peer));
      PetscCall(Time(OpElem, &c, mt == PETSC_MEMTYPE_DEVICE ? reps : creps, &R->elem));
      PetscCall(RelDiff(c.J, Jcpu, &R->peererr));
      PetscCall(MatDestroy(&c.J));
      if (mt == PETSC_MEMTYPE_DEVICE) {
#if defined(ELLWARP_HAVE_CUDA)
        PetscCallCUDA(cudaFree(c.ke));
        PetscCallCUDA(cudaFree((void *)c.dxe));
#endif
      } else PetscCall(PetscFree(c.ke));
      PetscCall(DMAssemblyDestroy(&as));
    }

    /* the table of this order */
    {
      const double N = (double)R->nelem;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "#   %-32s %-12s %10s %11s %8s %8s %9s\n", "method", "target", "ms", "ns/element", "vs_peer", "vs_cpu", "err(Jx)"));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "P%-2" PetscInt_FMT " %-32s %-12s %10.4f %11.3f %8.2f %8.2f %9.1e\n", p, "cpu (host method, serial)", "aij", 1e3 * R->cpu, 1e9 * R->cpu / N, R->peer / R->cpu, 1.0, 0.0));
      if (petsccpu) PetscCall(PetscPrintf(PETSC_COMM_SELF, "P%-2" PetscInt_FMT " %-32s %-12s %10.4f %11.3f %8.2f %8.2f %9s\n", p, "petsc fem (serial, once)", "aij", 1e3 * R->petsc, 1e9 * R->petsc / N, R->peer / R->petsc, R->cpu / R->petsc, "-"));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "P%-2" PetscInt_FMT " %-32s %-12s %10.4f %11.3f %8.2f %8.2f %9.1e\n", p, device ? "peer: elem + COO" : "peer: elem + COO host ref", device ? "aijcusparse" : "aij", 1e3 * R->peer, 1e9 * R->peer / N, 1.0, R->cpu / R->peer, R->peererr));
      for (int i = 0; i < R->nrows; i++) {
        const Row *r = &R->rows[i];
        if (r->s <= 0) {
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "P%-2" PetscInt_FMT " %-32s %-12s %10s\n", p, r->name, r->target, "-"));
          continue;
        }
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "P%-2" PetscInt_FMT " %-32s %-12s %10.4f %11.3f %8.2f %8.2f %9.1e\n", p, r->name, r->target, 1e3 * r->s, 1e9 * r->s / N, R->peer / r->s, R->cpu / r->s, r->err));
      }
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "#   element kernel alone %.4f ms (%.3f ns/element); MatSetPreallocationCOO %.3f s; vs_peer = peer time / this, vs_cpu = CPU time / this\n", 1e3 * R->elem, 1e9 * R->elem / N, R->prealloc));
    }
    PetscCall(MatDestroy(&Jcpu));
    PetscCall(VecDestroy(&Uh));
    PetscCall(DMDestroy(&dm));
  }

  /* summary: ns/element per method and order (the figure's data) */
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "# summary, ns per element (speed-up vs the serial CPU in parentheses)\n# %-34s", "method/target"));
  for (PetscInt o = 0; o < norders; o++) PetscCall(PetscPrintf(PETSC_COMM_SELF, " %17s%" PetscInt_FMT, "P", res[o].order));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n  %-34s", "cpu (host method)"));
  for (PetscInt o = 0; o < norders; o++) PetscCall(PetscPrintf(PETSC_COMM_SELF, " %18.3f", 1e9 * res[o].cpu / res[o].nelem));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n  %-34s", "peer (COO -> aijcusparse)"));
  for (PetscInt o = 0; o < norders; o++) PetscCall(PetscPrintf(PETSC_COMM_SELF, " %9.3f (%6.1fx)", 1e9 * res[o].peer / res[o].nelem, res[o].cpu / res[o].peer));
  for (int i = 0; i < res[0].nrows; i++) {
    char lab[64];
    PetscCall(PetscSNPrintf(lab, sizeof(lab), "%s -> %s", res[0].rows[i].method, res[0].rows[i].target));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n  %-34s", lab));
    for (PetscInt o = 0; o < norders; o++) {
      if (res[o].rows[i].s > 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, " %9.3f (%6.1fx)", 1e9 * res[o].rows[i].s / res[o].nelem, res[o].cpu / res[o].rows[i].s));
      else PetscCall(PetscPrintf(PETSC_COMM_SELF, " %18s", "-"));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));

  if (hasout) {
    char  path[PETSC_MAX_PATH_LEN];
    FILE *js;
    PetscCall(PetscMkdir(outdir));
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/order.json", outdir));
    js = fopen(path, "w");
    PetscCheck(js, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", path);
    fprintf(js, "{\n  \"benchmark\": \"order\",\n  \"device\": \"%s\",\n  \"gpu\": %s,\n  \"ndofs_target\": %" PetscInt_FMT ",\n  \"reorder\": \"%s\",\n  \"repeats\": %" PetscInt_FMT ",\n  \"cpu_repeats\": %" PetscInt_FMT ",\n  \"orders\": [\n", devname, device ? "true" : "false", ndofs, rcm ? "rcm" : "none", reps, creps);
    for (PetscInt o = 0; o < norders; o++) {
      const OrderResult *R = &res[o];
      fprintf(js, "    {\"order\": %" PetscInt_FMT ", \"n\": %" PetscInt_FMT ", \"nen\": %" PetscInt_FMT ", \"nelem\": %" PetscInt_FMT ", \"ndof\": %" PetscInt_FMT ", \"nnz\": %" PetscCount_FMT ", \"cpu_s\": %.6e, \"petsc_fem_s\": %.6e, \"peer_s\": %.6e, \"peer_err\": %.3e, \"element_kernel_s\": %.6e, \"coo_prealloc_s\": %.6e, \"setup_s\": %.6e,\n     \"rows\": [\n", R->order, R->n, R->nen, R->nelem, R->ndof, R->nnz, R->cpu, R->petsc, R->peer, R->peererr, R->elem, R->prealloc, R->setup);
      for (int i = 0; i < R->nrows; i++) fprintf(js, "       {\"method\": \"%s\", \"label\": \"%s\", \"target\": \"%s\", \"s\": %.6e, \"ns_per_element\": %.6e, \"vs_peer\": %.4f, \"vs_cpu\": %.4f, \"rel_err\": %.3e}%s\n", R->rows[i].method, R->rows[i].name, R->rows[i].target, R->rows[i].s, 1e9 * R->rows[i].s / R->nelem, R->rows[i].s > 0 ? R->peer / R->rows[i].s : 0.0, R->rows[i].s > 0 ? R->cpu / R->rows[i].s : 0.0, R->rows[i].err, i + 1 < R->nrows ? "," : "");
      fprintf(js, "     ]}%s\n", o + 1 < norders ? "," : "");
    }
    fprintf(js, "  ]\n}\n");
    fclose(js);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# wrote %s\n", path));
  }
  for (PetscInt m = 0; m < nmeth; m++) PetscCall(PetscFree(meth[m]));
  for (PetscInt t = 0; t < ntgt; t++) PetscCall(PetscFree(tgts[t]));
  PetscCall(PetscFinalize());
  return 0;
}

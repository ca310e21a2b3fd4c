static const char help[] = "DM GPU assembler (issue 6): full Jacobian + residual reassembly of P1 tetrahedra on the LV mesh\n"
                           "(anisotropic per-element conductivity + mass), per method, into MATSEQELLWARP and MATSEQAIJCUSPARSE, against\n"
                           "the peer (the same device element matrices through MatSetValuesCOO into AIJCUSPARSE, MatSetPreallocationCOO once)\n"
                           "and a serial CPU assembly (the host method).  Options: -nodes n1,n2,... (mesh sizes, vertices), -repeats r,\n"
                           "-cpu_repeats r, -methods globalnz,sharednz,sharednz:110,localnz,localrow,atomic,atomic:full,atomic:match,color,atomic-unfused,color-unfused (atomic/color: the built-in\n"
                           "element fused into the scatter; -unfused: through the element buffers like user kernels; sharednz:KB: shared-memory budget per\n"
                           "block, sharednz:metis or sharednz:KB:metis: blocks over a METIS partition, -dm_assembly_shared_partition), -order rcm,sfc,morton,metis,none (vertex numberings, each size is run once per order; sfc = Hilbert curve; metis: RCM inside METIS parts of -metis_part_size 64 vertices; default rcm),\n"
                           "-o dir (writes dir/assembly.json).  Without a GPU: the CPU assembly and the sharednz plan statistics.\n";
/* Times are medians over -repeats runs after a warm-up (CUDA events on PETSc's stream; the host method with
   PetscTime).  Effective bandwidth = the bytes-moved model of each method (printed with the table) / time. */
#include <petscellwarp.h>
#include <petscellwarpassembly.h>
#include <petscdmplex.h>
#include <petscfe.h>
#include "lvmesh.h"
#include "benchtime.h"
#if defined(ELLWARP_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

typedef struct {
  DMAssembly                as;
  DMAssemblyElementKernels *k;
  Vec                       U, F;
  Mat                       J;
  PetscScalar              *ke;  /* peer: device element matrices (COO values) */
  const PetscReal          *dxe; /* peer: device element coordinates */
  PetscInt                  nelem;
} Ctx;

static PetscErrorCode OpJac(Ctx *c)
{
  PetscFunctionBegin;
  PetscCall(DMAssemblyComputeJacobian(c->as, c->U, c->J));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpRes(Ctx *c)
{
  PetscFunctionBegin;
  PetscCall(DMAssemblyComputeResidual(c->as, c->U, c->F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpElem(Ctx *c) /* the element kernel alone, the same call both paths make */
{
  PetscFunctionBegin;
  PetscCall((*c->k->jacobian)(PETSC_MEMTYPE_DEVICE, 0, c->nelem, c->dxe, NULL, NULL, c->ke, c->k->ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpCOO(Ctx *c) /* the peer: element kernel -> MatSetValuesCOO */
{
  PetscFunctionBegin;
  PetscCall(OpElem(c));
  PetscCall(MatSetValuesCOO(c->J, c->ke, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MedianTime(PetscErrorCode (*op)(Ctx *), Ctx *c, PetscInt reps, PetscBool device, double *sec)
{
  double *t;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(reps, &t));
  PetscCall((*op)(c)); /* warm-up: plans, analysis */
  for (PetscInt r = 0; r < reps; r++) {
    if (device) {
#if defined(ELLWARP_HAVE_CUDA)
      cudaEvent_t  e0, e1;
      cudaStream_t s;
      float        ms;
      PetscCall(PetscGetCurrentCUDAStream(&s));
      PetscCallCUDA(cudaEventCreate(&e0));
      PetscCallCUDA(cudaEventCreate(&e1));
      PetscCallCUDA(cudaEventRecord(e0, s));
      PetscCall((*op)(c));
      PetscCallCUDA(cudaEventRecord(e1, s));
      PetscCallCUDA(cudaEventSynchronize(e1));
      PetscCallCUDA(cudaEventElapsedTime(&ms, e0, e1));
      t[r] = ms * 1e-3;
      PetscCallCUDA(cudaEventDestroy(e0));
      PetscCallCUDA(cudaEventDestroy(e1));
#endif
    } else {
      PetscLogDouble t0, t1;
      PetscCall(PetscTime(&t0));
      PetscCall((*op)(c));
      PetscCall(PetscTime(&t1));
      t[r] = t1 - t0;
    }
  }
  *sec = reps > 0 ? BenchMedian(t, reps) : 0; /* -cpu_repeats 0: the warm-up only (the reference matrix) */
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* per-element conductivity D = I + 3 f f^T, f a unit fibre direction varying over the mesh */
static PetscErrorCode Conductivity(const LVMesh *m, PetscReal **D)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(9 * (size_t)m->nt, D));
  for (PetscInt e = 0; e < m->nt; e++) {
    PetscReal c[3] = {0, 0, 0}, f[3], nrm;
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) c[d] += 0.25 * m->xyz[3 * m->tet[4 * e + a] + d];
    f[0] = -c[1] + 0.3 * c[2];
    f[1] = c[0] + 0.1;
    f[2] = 0.5 + 0.01 * c[2];
    nrm  = PetscSqrtReal(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    /* the upper triangle, mirrored: exactly symmetric (3 f_i f_j and 3 f_j f_i round differently in ~13% of the
       entries), so the device kernels read the upper triangle only (-info: "exactly symmetric") */
    for (int i = 0; i < 3; i++)
      for (int j = i; j < 3; j++) (*D)[9 * e + 3 * i + j] = (*D)[9 * e + 3 * j + i] = (i == j) + 3 * f[i] * f[j] / (nrm * nrm);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateDM(const LVMesh *m, DM *dm)
{
  PetscFE fe;

  PetscFunctionBegin;
  /* uninterpolated: cells and vertices only, which is all a P1 assembly needs (and fast to build) */
  PetscCall(DMPlexCreateFromCellListPetsc(PETSC_COMM_SELF, 3, m->nt, m->nv, 4, PETSC_FALSE, m->tet, 3, m->xyz, dm));
  PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, 3, 1, PETSC_TRUE, 1, PETSC_DETERMINE, &fe));
  PetscCall(DMSetField(*dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(*dm));
  PetscCall(PetscFEDestroy(&fe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RelDiff(Mat A, Mat B, PetscReal *r)
{
  Mat       C;
  PetscReal n, nb;

  PetscFunctionBegin;
  PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatAXPY(C, -1.0, B, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(C, NORM_FROBENIUS, &n));
  PetscCall(MatNorm(B, NORM_FROBENIUS, &nb));
  *r = n / nb;
  PetscCall(MatDestroy(&C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define MAXROWS 48
typedef struct {
  char   name[48];
  double jac, res, bytes, bytesres, setup, err;
  double pj[3], pr[3]; /* phase medians, ms: gather, element, reduce/scatter (fused methods: all in the third) */
  double redund;       /* sharednz: element computations / elements (Jacobian plan) */
} Row;

/* per-phase medians over n assemblies (DMAssemblySetPhaseTiming: CUDA events at the phase boundaries) */
static PetscErrorCode PhaseTimes(PetscErrorCode (*op)(Ctx *), Ctx *c, PetscInt n, double ph[3])
{
  double *t;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(3 * n, &t));
  PetscCall(DMAssemblySetPhaseTiming(c->as, PETSC_TRUE));
  for (PetscInt r = 0; r < n; r++) {
    PetscReal ms[3];
    PetscCall((*op)(c));
    PetscCall(DMAssemblyGetPhaseTimes(c->as, ms));
    for (int i = 0; i < 3; i++) t[i * n + r] = ms[i];
  }
  PetscCall(DMAssemblySetPhaseTiming(c->as, PETSC_FALSE));
  for (int i = 0; i < 3; i++) ph[i] = BenchMedian(t + i * n, n);
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "sharednz:96" -> type sharednz with a 96 kB shared-memory budget per block (-dm_assembly_sharednz_smem);
   "atomic:full" -> type atomic with -dm_assembly_tune atomic_variant=full (variant: the non-numeric suffix);
   "sharednz:metis", "sharednz:110:metis" -> -dm_assembly_shared_partition metis (with a budget) */
static PetscErrorCode SplitBudget(char *mname, PetscInt *kb, char *variant, size_t vlen)
{
  char *colon;

  PetscFunctionBegin;
  *kb        = 0;
  variant[0] = 0;
  colon      = strchr(mname, ':');
  if (colon) *colon = 0;
  while (colon) {
    char *tok = colon + 1;
    colon     = strchr(tok, ':');
    if (colon) *colon = 0;
    if (tok[0] >= '0' && tok[0] <= '9') *kb = (PetscInt)atoi(tok);
    else PetscCall(PetscStrncpy(variant, tok, vlen));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the variant: sharednz's partition (-dm_assembly_shared_partition) or atomic's -dm_assembly_tune atomic_variant */
static PetscErrorCode SetAtomicVariant(DMAssembly as, const char *variant)
{
  const char    *opt;
  char           val[64];
  DMAssemblyType type;
  PetscBool      shnz;

  PetscFunctionBegin;
  if (!variant[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMAssemblyGetType(as, &type));
  PetscCall(PetscStrcmp(type, DMASSEMBLYSHAREDNZ, &shnz));
  opt = shnz ? "-dm_assembly_shared_partition" : "-dm_assembly_tune";
  if (shnz) PetscCall(PetscStrncpy(val, variant, sizeof(val)));
  else PetscCall(PetscSNPrintf(val, sizeof(val), "atomic_variant=%s", variant));
  PetscCall(PetscOptionsSetValue(NULL, opt, val));
  PetscCall(DMAssemblySetFromOptions(as));
  PetscCall(PetscOptionsClearValue(NULL, opt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetBudget(DMAssembly as, PetscInt kb)
{
  char v[32];

  PetscFunctionBegin;
  if (!kb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSNPrintf(v, sizeof(v), "%" PetscInt_FMT, kb));
  PetscCall(PetscOptionsSetValue(NULL, "-dm_assembly_sharednz_smem", v));
  PetscCall(DMAssemblySetFromOptions(as));
  PetscCall(PetscOptionsClearValue(NULL, "-dm_assembly_sharednz_smem"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  sizes[8] = {60000, 350000}, nsizes = 8, reps = 10, creps = 3, nmeth = 12, norders = 4;
  char     *meth[12], *orders[4], outdir[PETSC_MAX_PATH_LEN] = "";
  PetscBool device = PETSC_FALSE, hasout;
  FILE     *js = NULL;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscEllwarpInitializePackage());
  PetscBool set;
  /* an option that is not given sets the count to 0, so the defaults are chosen by the flag */
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-nodes", sizes, &nsizes, &set));
  if (!set) nsizes = 2;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeats", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-cpu_repeats", &creps, NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-methods", meth, &nmeth, &set));
  if (!set) {
    nmeth = 8;
    PetscCall(PetscStrallocpy(DMASSEMBLYGLOBALNZ, &meth[0]));
    PetscCall(PetscStrallocpy(DMASSEMBLYSHAREDNZ, &meth[1]));
    PetscCall(PetscStrallocpy("sharednz:110", &meth[2]));
    PetscCall(PetscStrallocpy(DMASSEMBLYLOCALROW, &meth[3]));
    PetscCall(PetscStrallocpy(DMASSEMBLYATOMIC, &meth[4]));
    PetscCall(PetscStrallocpy(DMASSEMBLYCOLOR, &meth[5]));
    PetscCall(PetscStrallocpy("atomic-unfused", &meth[6]));
    PetscCall(PetscStrallocpy("color-unfused", &meth[7]));
  }
  /* the vertex numbering: the peer and every method see the same mesh numbering in one table, so the ratios stay fair */
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-order", orders, &norders, &set));
  if (!set) {
    norders = 1;
    PetscCall(PetscStrallocpy("rcm", &orders[0]));
  }
  for (PetscInt o = 0; o < norders; o++) {
    PetscBool ok = PETSC_FALSE, f;
    const char *known[] = {"rcm", "sfc", "hilbert", "morton", "metis", "none"};
    for (int i = 0; i < 5; i++) {
      PetscCall(PetscStrcmp(orders[o], known[i], &f));
      ok = (PetscBool)(ok || f);
    }
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-order %s: expected rcm, sfc (= hilbert), morton, metis or none", orders[o]);
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", outdir, sizeof(outdir), &hasout));
#if defined(ELLWARP_HAVE_CUDA)
  {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) (void)cudaGetLastError();
    device = (PetscBool)(n > 0);
  }
#endif
  if (!device) PetscCall(PetscPrintf(PETSC_COMM_SELF, "# no CUDA device: only the serial CPU assembly (host method) runs\n"));
  if (hasout && outdir[0]) {
    char path[PETSC_MAX_PATH_LEN + 32];
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/assembly.json", outdir));
    js = fopen(path, "w");
    PetscCheck(js, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", path);
    fprintf(js, "{\n  \"benchmark\": \"assembly\",\n  \"sizes\": [\n");
  }

  for (PetscInt so = 0; so < nsizes * norders; so++) {
    const PetscInt s = so / norders;
    const char    *order = orders[so % norders];
    LVMesh         m;
    DM             dm;
    PetscReal     *D;
    Row            rows[MAXROWS] = {{{0}}};
    int            nrows = 0;
    Mat            Jref;
    PetscInt       nelem, ndof;
    PetscCount     nnz;
    double         tcpu = 0, tcpures = 0, tpeer = 0, telem = 0, tprealloc = 0;
    PetscLogDouble t0, t1;
    Vec            Uh, Fh;

    PetscCall(LVMeshCreateStructuredByNodes(sizes[s], &m));
    if (!strcmp(order, "rcm")) PetscCall(LVMeshRenumberRCM(&m));
    else if (!strcmp(order, "sfc") || !strcmp(order, "hilbert")) PetscCall(LVMeshRenumberSFC(&m, PETSC_TRUE));
    else if (!strcmp(order, "morton")) PetscCall(LVMeshRenumberSFC(&m, PETSC_FALSE));
    else if (!strcmp(order, "metis")) { /* RCM inside METIS parts of -metis_part_size vertices (default 64) */
      PetscInt psz = 64;
      PetscCall(PetscOptionsGetInt(NULL, NULL, "-metis_part_size", &psz, NULL));
      PetscCall(LVMeshRenumberRCM(&m));
      PetscCall(LVMeshRenumberMETIS(&m, psz));
    }
    PetscCall(CreateDM(&m, &dm));
    PetscCall(Conductivity(&m, &D));
    nelem = m.nt;
    PetscCall(DMCreateGlobalVector(dm, &Uh));
    PetscCall(VecGetSize(Uh, &ndof));
    PetscCall(VecSet(Uh, 0.5));
    PetscCall(VecDuplicate(Uh, &Fh));

    /* serial CPU: the host method into host AIJ (also the reference for the device results) */
    {
      DMAssembly               as;
      DMAssemblyElementKernels k;
      DMAssemblyInfo           info;
      Ctx                      c;
      Row                     *r = &rows[nrows++];

      PetscCall(DMAssemblyCreate(dm, &as));
      PetscCall(DMAssemblySetType(as, DMASSEMBLYHOST));
      PetscCall(DMAssemblyP1DiffusionMassKernels(as, 1.0, 1.0, 1.0, D, &k));
      PetscCall(DMAssemblySetElementKernels(as, &k));
      PetscCall(PetscTime(&t0));
      PetscCall(DMAssemblySetUp(as));
      PetscCall(PetscTime(&t1));
      r->setup = t1 - t0;
      PetscCall(DMSetMatType(dm, MATAIJ));
      PetscCall(DMCreateMatrix(dm, &Jref));
      c.as = as;
      c.U  = Uh;
      c.F  = Fh;
      c.J  = Jref;
      PetscCall(PetscTime(&t0));
      PetscCall(OpJac(&c)); /* first: builds the CSR plan */
      PetscCall(PetscTime(&t1));
      PetscCall(MedianTime(OpJac, &c, creps, PETSC_FALSE, &tcpu));
      r->setup += (t1 - t0) - tcpu;
      PetscCall(MedianTime(OpRes, &c, creps, PETSC_FALSE, &tcpures));
      PetscCall(DMAssemblyGetInfo(as, &info));
      nnz = info.nnz;
      PetscCall(PetscSNPrintf(r->name, sizeof(r->name), "host (1 CPU core) -> aij"));
      r->jac      = tcpu;
      r->res      = tcpures;
      r->bytes    = 0;
      r->bytesres = 0;
      r->err      = 0;
      PetscCall(DMAssemblyDestroy(&as));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n# LV mesh: %" PetscInt_FMT " tetrahedra, %" PetscInt_FMT " dofs, %" PetscCount_FMT " nonzeros, %" PetscCount_FMT " element-matrix entries, vertex order %s\n", nelem, ndof, nnz, (PetscCount)16 * nelem, order));

    if (!device) { /* the sharednz plans are built on the host: their statistics (blocks, redundancy) without a GPU */
      for (PetscInt mi = 0; mi < nmeth; mi++) {
        DMAssembly               as;
        DMAssemblyElementKernels k;
        char                     mname[64];
        PetscInt                 kb;
        PetscBool                shnz;
        Mat                      J;

        char                     variant[32];

        PetscCall(PetscStrncpy(mname, meth[mi], sizeof(mname)));
        PetscCall(SplitBudget(mname, &kb, variant, sizeof(variant)));
        PetscCall(PetscStrcmp(mname, DMASSEMBLYSHAREDNZ, &shnz));
        if (!shnz && !variant[0]) continue; /* sharednz's plan statistics, the atomic variants' irregular elements */
        PetscCall(DMAssemblyCreate(dm, &as));
        PetscCall(DMAssemblySetType(as, mname));
        PetscCall(DMAssemblySetFromOptions(as));
        PetscCall(SetBudget(as, kb));
        PetscCall(SetAtomicVariant(as, variant));
        PetscCall(DMAssemblyP1DiffusionMassKernels(as, 1.0, 1.0, 1.0, D, &k));
        PetscCall(DMAssemblySetElementKernels(as, &k));
        PetscCall(DMAssemblySetUp(as));
        PetscCall(DMSetMatType(dm, MATELLWARP));
        PetscCall(DMCreateMatrix(dm, &J));
        PetscCall(DMAssemblyComputeJacobian(as, Uh, J));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "# %s (host reference, plan statistics):\n", meth[mi]));
        PetscCall(DMAssemblyView(as, PETSC_VIEWER_STDOUT_SELF));
        {
          PetscReal err;
          PetscCall(RelDiff(J, Jref, &err));
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "#   Jacobian vs host globalnz into aij: rel. error %.2e\n", (double)err));
        }
        PetscCall(MatDestroy(&J));
        if (shnz) { /* the CSR plan too (AIJCUSPARSE's order; AIJ on the host) */
          DMAssemblyInfo info;
          PetscLogDouble ta, tb;
          PetscReal      err;
          PetscCall(DMSetMatType(dm, MATAIJ));
          PetscCall(DMCreateMatrix(dm, &J));
          PetscCall(PetscTime(&ta));
          PetscCall(DMAssemblyComputeJacobian(as, Uh, J));
          PetscCall(PetscTime(&tb));
          PetscCall(DMAssemblyGetInfo(as, &info));
          PetscCall(RelDiff(J, Jref, &err));
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "#   CSR Jacobian plan: %" PetscInt_FMT " blocks, redundancy %.2f (first assembly with its plan %.3g s); rel. error %.2e\n", info.shblocks, info.shblocks ? (double)info.shelements / nelem : 0.0, (double)(tb - ta), (double)err));
          PetscCall(MatDestroy(&J));
        }
        PetscCall(DMAssemblyDestroy(&as));
      }
    }
#if defined(ELLWARP_HAVE_CUDA)
    if (device) {
      const char *targets[] = {MATELLWARP, MATAIJCUSPARSE};
      Vec         U, F;
      PetscScalar *dke;
      PetscReal  *dxe;
      const double N = (double)nelem;

      PetscCall(DMSetVecType(dm, VECCUDA));
      PetscCall(DMCreateGlobalVector(dm, &U));
      PetscCall(VecSet(U, 0.5));
      PetscCall(VecDuplicate(U, &F));
      PetscCallCUDA(cudaMalloc((void **)&dke, sizeof(PetscScalar) * 16 * (size_t)nelem));
      PetscCallCUDA(cudaMalloc((void **)&dxe, sizeof(PetscReal) * 12 * (size_t)nelem));

      /* the peer: element kernel -> MatSetValuesCOO into AIJCUSPARSE; COO entry q = k*nelem + e, exactly the
         layout of the element matrices, so the kernel's output is the COO value array.  pv = 0: the elements
         in the assembler's order (by lowest dof, as every method here sees them; vs_peer uses this one);
         pv = 1: the mesh's cell order (what a PETSc user feeding DMPlex cells gets) */
      for (int pv = 0; pv < 2; pv++) {
        DMAssembly               as;
        DMAssemblyElementKernels k;
        Ctx                      c;
        PetscInt                *ci, *cj, ne, nen;
        const PetscInt          *edof;
        const PetscReal         *xe;
        Row                     *r = &rows[nrows++];

        PetscCall(DMAssemblyCreate(dm, &as));
        if (pv == 1) {
          PetscCall(PetscOptionsSetValue(NULL, "-dm_assembly_reorder", "0"));
          PetscCall(DMAssemblySetFromOptions(as));
          PetscCall(PetscOptionsClearValue(NULL, "-dm_assembly_reorder"));
        }
        PetscCall(DMAssemblyP1DiffusionMassKernels(as, 1.0, 1.0, 1.0, D, &k));
        PetscCall(DMAssemblySetElementKernels(as, &k));
        PetscCall(DMAssemblySetUp(as));
        PetscCall(DMAssemblyGetElementDofs(as, &ne, &nen, &edof));
        PetscCall(DMAssemblyGetElementCoordinates(as, &xe));
        PetscCallCUDA(cudaMemcpy(dxe, xe, sizeof(PetscReal) * 12 * (size_t)nelem, cudaMemcpyHostToDevice));
        PetscCallCUDA(cudaDeviceSynchronize());
        PetscCall(PetscMalloc2(16 * (size_t)nelem, &ci, 16 * (size_t)nelem, &cj));
        for (PetscInt a = 0; a < 4; a++)
          for (PetscInt b = 0; b < 4; b++)
            for (PetscInt e = 0; e < nelem; e++) {
              ci[(size_t)(a * 4 + b) * nelem + e] = edof[a * nelem + e];
              cj[(size_t)(a * 4 + b) * nelem + e] = edof[b * nelem + e];
            }
        PetscCall(MatCreate(PETSC_COMM_SELF, &c.J));
        PetscCall(MatSetSizes(c.J, ndof, ndof, ndof, ndof));
        PetscCall(MatSetType(c.J, MATSEQAIJCUSPARSE));
        PetscCall(PetscTime(&t0));
        PetscCall(MatSetPreallocationCOO(c.J, 16 * (PetscCount)nelem, ci, cj));
        PetscCall(PetscTime(&t1));
        tprealloc = t1 - t0;
        PetscCall(PetscFree2(ci, cj));
        c.as    = as;
        c.k     = &k;
        c.ke    = dke;
        c.dxe   = dxe;
        c.nelem = nelem;
        {
          double tp, te;
          PetscCall(MedianTime(OpCOO, &c, reps, PETSC_TRUE, &tp));
          PetscCall(MedianTime(OpElem, &c, reps, PETSC_TRUE, &te));
          if (pv == 0) {
            tpeer = tp;
            telem = te;
          }
          r->jac = tp;
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "# peer (%s): element kernel alone %.4f ms\n", pv ? "mesh cell order" : "elements by lowest dof", 1e3 * te));
        }
        PetscCall(RelDiff(c.J, Jref, &r->err));
        PetscCall(PetscSNPrintf(r->name, sizeof(r->name), pv ? "peer (cell order): COO -> aijcusp" : "peer: COO -> aijcusparse"));
        r->res      = 0;
        r->setup    = tprealloc;
        r->bytes    = N * (96 + 72 + 128) /* element (the plain kernel reads the full D) */ + N * 16 * (8 + 8) /* ke + perm */ + (double)nnz * (8 + 8) /* jmap + values */;
        r->bytesres = 0;
        PetscCall(MatDestroy(&c.J));
        PetscCall(DMAssemblyDestroy(&as));
      }
      Mat Jt[2];
      for (int t = 0; t < 2; t++) { /* one matrix per target type, shared by the methods (each builds its own plan for it) */
        PetscCall(DMSetMatType(dm, targets[t]));
        PetscCall(DMCreateMatrix(dm, &Jt[t]));
      }
      for (PetscInt mi = 0; mi < nmeth; mi++) {
        DMAssembly               as;
        DMAssemblyElementKernels k;
        double                   tsetup;
        char                     mname[64];
        PetscBool                unfused = PETSC_FALSE, fused;
        size_t                   len;

        PetscInt kb;
        char     variant[32];
        PetscCall(PetscStrncpy(mname, meth[mi], sizeof(mname)));
        PetscCall(SplitBudget(mname, &kb, variant, sizeof(variant)));
        PetscCall(PetscStrlen(mname, &len));
        if (len > 8 && !strcmp(mname + len - 8, "-unfused")) { /* e.g. atomic-unfused: through the element buffers */
          mname[len - 8] = 0;
          unfused        = PETSC_TRUE;
        }

        PetscCall(DMAssemblyCreate(dm, &as));
        PetscCall(DMAssemblySetType(as, mname));
        PetscCall(DMAssemblySetFromOptions(as));
        PetscCall(SetBudget(as, kb));
        PetscCall(SetAtomicVariant(as, variant));
        if (unfused) PetscCall(DMAssemblySetFuse(as, PETSC_FALSE));
        PetscCall(DMAssemblyP1DiffusionMassKernels(as, 1.0, 1.0, 1.0, D, &k));
        PetscCall(DMAssemblySetElementKernels(as, &k));
        PetscCall(PetscTime(&t0));
        PetscCall(DMAssemblySetUp(as));
        PetscCall(PetscTime(&t1));
        tsetup = t1 - t0;
        fused  = (PetscBool)(!unfused && (!strcmp(mname, DMASSEMBLYATOMIC) || !strcmp(mname, DMASSEMBLYCOLOR)));
        for (int t = 0; t < 2; t++) {
          DMAssemblyInfo info;
          Ctx            c;
          Row           *r = &rows[nrows++];
          double         tfirst, elem = N * (96 + 72 + 128) /* the plain element kernel reads the full D */, gather = 0 /* linear Jacobian: no gather */, red;
          PetscBool      gnz, lrow, shnz, lnz;

          PetscCall(PetscStrcmp(mname, DMASSEMBLYLOCALNZ, &lnz));
          PetscCall(PetscStrcmp(mname, DMASSEMBLYGLOBALNZ, &gnz));
          PetscCall(PetscStrcmp(mname, DMASSEMBLYLOCALROW, &lrow));
          PetscCall(PetscStrcmp(mname, DMASSEMBLYSHAREDNZ, &shnz));
          c.J  = Jt[t];
          c.as = as;
          c.U  = U;
          c.F  = F;
          PetscCall(PetscTime(&t0));
          PetscCall(OpJac(&c)); /* the first assembly into this matrix builds its plan (and ELLWARP's analysis) */
          PetscCallCUDA(cudaDeviceSynchronize());
          PetscCall(PetscTime(&t1));
          tfirst = t1 - t0;
          PetscCall(MedianTime(OpJac, &c, reps, PETSC_TRUE, &r->jac));
          PetscCall(MedianTime(OpRes, &c, reps, PETSC_TRUE, &r->res));
          PetscCall(PhaseTimes(OpJac, &c, PetscMin(reps, 5), r->pj));
          PetscCall(PhaseTimes(OpRes, &c, PetscMin(reps, 5), r->pr));
          r->setup = tsetup + tfirst - r->jac; /* mesh set-up + this target's plan */
          PetscCall(DMAssemblyGetInfo(as, &info));
          r->redund = info.shblocks ? (double)info.shelements / N : 0;
          if (shnz && info.shblocks) { /* per block: its elements' inputs (coordinates via the node scatter array), offsets, targets */
            elem = (double)info.shelements * (48 /* symmetric D: upper triangle */ + 4 + 4 * 2 + 4 * 2) + (double)info.shnodes * (4 + 24);
            red  = (double)info.jacplanentries * 2 + (4.0 + 8.0) * nnz /* toff + values, ELLWARP padding not counted */;
          } else if (lrow) red = (double)info.jacplanentries * 4 /* incidences + targets */ + 24.0 * nnz /* zero, read-modify-write */ - N * 128 /* no element matrix; inputs re-read per node counted once (L2) */;
          else if (gnz) red = (double)info.jacplanentries * (info.idx64 ? 8 : 4) /* plan */ + N * 16 * 8 /* ke */ + 8.0 * nnz /* values */;
          else if (lnz) { /* the plan, the element inputs per contribution (from L2: counted once), no element matrix */
            elem = N * (96 + 72);
            red  = (double)info.jacplanentries * (info.idx64 ? 8 : 4) + 8.0 * nnz;
          } else if (fused && strcmp(variant, "full")) { /* atomic (default match) and atomic:match: nodes by index (their 32-byte records from L2, not counted), D, 1-byte codes */
            elem = N * (16 + 48 + 16 + 128);
            red  = 8.0 * nnz /* zero */ + N * 16 * 16 /* read-modify-write */ - N * 128 /* no element matrix written */;
          } else if (fused) {
            elem = N * (96 + 48 + 128); /* the conductivity is symmetric here: its upper triangle (dDs) */
            red  = 8.0 * nnz /* zero */ + N * 16 * (4 + 16) /* e2t, read-modify-write */ - N * 128 /* no element matrix written */;
          }
          else red = 8.0 * nnz /* zero */ + N * 16 * (4 + 8 + 16) /* e2t, ke, read-modify-write */;
          r->bytes    = gather + elem + red;
          if (shnz && info.shblocks) r->bytesres = (double)info.shresidualelements * (48 + 4 + 4 * 2 + 4 * 2) + (double)info.shresidualnodes * (4 + 24 + 8) + (double)info.resplanentries * 2 + 12.0 * ndof;
          else if (lrow) r->bytesres = N * (96 + 72) + N * 4 * (4 + 16 + 32) /* incidence, dofs, u of the element */ + 8.0 * ndof;
          else if (lnz) r->bytesres = N * (96 + 72) + N * 4 * (4 + 8) /* dofs, u */ + (double)info.resplanentries * 4 + 8.0 * ndof;
          else if (fused) r->bytesres = N * (96 + 48) + N * 4 * (4 + 8) /* dofs, u */ + 8.0 * ndof + N * 4 * (4 + 16);
          else r->bytesres = N * 4 * (4 + 8 + 8) /* gather */ + N * (96 + 72 + 32 + 32) + (gnz ? (double)info.resplanentries * 4 + N * 32 + 8.0 * ndof : 8.0 * ndof + N * 4 * (4 + 8 + 16));
          PetscCall(RelDiff(c.J, Jref, &r->err));
          PetscCall(PetscSNPrintf(r->name, sizeof(r->name), "%s%s -> %s", meth[mi], fused ? " (fused)" : "", targets[t]));
          if (t == 0 && (shnz || variant[0])) PetscCall(DMAssemblyView(as, PETSC_VIEWER_STDOUT_SELF)); /* atomic variants: irregular elements */ /* blocks, redundancy, or the fallback */
        }
        PetscCall(DMAssemblyDestroy(&as));
      }
      PetscCall(MatDestroy(&Jt[0]));
      PetscCall(MatDestroy(&Jt[1]));
      PetscCallCUDA(cudaFree(dke));
      PetscCallCUDA(cudaFree(dxe));
      PetscCall(VecDestroy(&U));
      PetscCall(VecDestroy(&F));
      PetscCall(DMSetVecType(dm, VECSTANDARD));
    }
#endif
    /* table */
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-30s %12s %10s %12s %10s %12s %10s %10s %10s\n", "method -> target", "jac_ms", "jac_GB/s", "res_ms", "res_GB/s", "setup_s", "vs_peer", "vs_cpu", "rel_err"));
    for (int i = 0; i < nrows; i++) {
      Row *r = &rows[i];
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-30s %12.4f %10.1f %12.4f %10.1f %12.3f %10.2f %10.1f %10.1e\n", r->name, 1e3 * r->jac, r->jac > 0 ? r->bytes / r->jac / 1e9 : 0.0, 1e3 * r->res, r->res > 0 && r->bytesres > 0 ? r->bytesres / r->res / 1e9 : 0.0, r->setup, tpeer > 0 ? tpeer / r->jac : 0.0, r->jac > 0 ? tcpu / r->jac : 0.0, (double)r->err));
    }
    if (device) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "# phases (ms, medians; CUDA events at the boundaries): gather / element kernel / reduction or scatter; fused methods (atomic, color, localrow, sharednz) are all in the third\n"));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-30s %9s %9s %9s | %9s %9s %9s | %8s\n", "method -> target", "J:gather", "J:elem", "J:reduce", "F:gather", "F:elem", "F:reduce", "redund"));
      for (int i = 3; i < nrows; i++) {
        Row *r = &rows[i];
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-30s %9.4f %9.4f %9.4f | %9.4f %9.4f %9.4f | %8.2f\n", r->name, r->pj[0], r->pj[1], r->pj[2], r->pr[0], r->pr[1], r->pr[2], r->redund));
      }
    }
    if (device) { /* one line per (size, order): grep "# summary" to compare the vertex orders */
      int best = -1;
      for (int i = 3; i < nrows; i++)
        if (strstr(rows[i].name, "-> " MATELLWARP) && (best < 0 || rows[i].jac < rows[best].jac)) best = i;
      if (best >= 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "# summary: %" PetscInt_FMT " tets, order %s: peer %.4f ms; best into ellwarp %s %.4f ms (%.2fx the peer)\n", nelem, order, 1e3 * tpeer, rows[best].name, 1e3 * rows[best].jac, tpeer / rows[best].jac));
      for (int i = 3; i < nrows; i++)
        if (rows[i].redund > 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "# summary:   %-28s %.4f ms (%.2fx the peer), redundancy %.2f\n", rows[i].name, 1e3 * rows[i].jac, tpeer / rows[i].jac, rows[i].redund));
    }
    if (device) PetscCall(PetscPrintf(PETSC_COMM_SELF, "# element kernel alone: %.4f ms; MatSetPreallocationCOO (AIJCUSPARSE) %.3f s; vs_peer = peer Jacobian time / this Jacobian time; vs_cpu = host method / this\n", 1e3 * telem, tprealloc));
    if (js) {
      fprintf(js, "    {\"order\": \"%s\", \"nelem\": %" PetscInt_FMT ", \"ndof\": %" PetscInt_FMT ", \"nnz\": %" PetscCount_FMT ", \"element_kernel_s\": %.6e, \"coo_prealloc_s\": %.6e, \"rows\": [\n", order, nelem, ndof, nnz, telem, tprealloc);
      for (int i = 0; i < nrows; i++) {
        Row *r = &rows[i];
        fprintf(js, "      {\"name\": \"%s\", \"jacobian_s\": %.6e, \"residual_s\": %.6e, \"setup_s\": %.6e, \"bytes_jacobian\": %.6e, \"bytes_residual\": %.6e, \"speedup_vs_peer\": %.4f, \"speedup_vs_cpu\": %.4f, \"rel_err\": %.3e, \"jac_phases_ms\": [%.5f, %.5f, %.5f], \"res_phases_ms\": [%.5f, %.5f, %.5f], \"sharednz_redundancy\": %.3f}%s\n", r->name, r->jac, r->res, r->setup, r->bytes, r->bytesres, tpeer > 0 ? tpeer / r->jac : 0.0, r->jac > 0 ? tcpu / r->jac : 0.0, (double)r->err, r->pj[0], r->pj[1], r->pj[2], r->pr[0], r->pr[1], r->pr[2], r->redund, i + 1 < nrows ? "," : "");
      }
      fprintf(js, "    ]}%s\n", so + 1 < nsizes * norders ? "," : "");
      fflush(js); /* a run cut short by a timeout keeps the sizes done */
    }
    PetscCall(MatDestroy(&Jref));
    PetscCall(VecDestroy(&Uh));
    PetscCall(VecDestroy(&Fh));
    PetscCall(PetscFree(D));
    PetscCall(DMDestroy(&dm));
    PetscCall(LVMeshDestroy(&m));
  }
  if (js) {
    fprintf(js, "  ]\n}\n");
    fclose(js);
  }
  for (PetscInt i = 0; i < nmeth; i++) PetscCall(PetscFree(meth[i]));
  for (PetscInt i = 0; i < norders; i++) PetscCall(PetscFree(orders[i]));
  PetscCall(PetscFinalize());
  return 0;
}

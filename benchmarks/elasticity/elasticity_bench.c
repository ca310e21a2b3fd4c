static const char help[] = "Hex8 elasticity assembly (issue 18; Kiran, Sharma, Gautam, Fig. 12/14, Table 4): the stiffness matrix of the\n"
                           "16 x 2 x 2 m cantilever (E = 200 GPa, nu = 0.333) on DMPlex boxes of Q1 hexahedra (Table 3 meshes), assembled by\n"
                           "each kiran strategy (element, warp4, warp8, ppni4, ppni8, twokernel, ppnirow: colouring + per-element index map,\n"
                           "no atomics; owner: a warp per node writes each of its rows' values once, no colouring; ownergeo: owner with the\n"
                           "geometry computed once per element by a geometry kernel)\n"
                           "and by the generic methods with the same element kernel through the element buffers (globalnz: by nonzero, fixed\n"
                           "order; atomic; color), into MATSEQELLWARP and MATSEQAIJCUSPARSE; the COO peer (the same device element matrices\n"
                           "through MatSetValuesCOO into AIJCUSPARSE, MatSetPreallocationCOO once); one CPU core (the host method) and\n"
                           "PETSc's own DMPlexSNESComputeJacobianFEM (one process) up to -cpu_max_elements.\n"
                           "Options: -meshes 192x24x24,256x32x32,400x50x50,512x64x64  -methods kiran:element,...,globalnz,atomic,color\n"
                           "(kiran:warp4:shared, kiran:warp4:atomic: the Jacobian by shared memory or atomics instead of shuffles, Table 1)\n"
                           "-targets ellwarp,aijcusparse  -repeats r  -peer_max_elements n  -cpu_max_elements n  -check_max_elements n\n"
                           "-peak_bw GB/s  -peak_fp64 GFLOP/s (the device limits the achieved rates are stated against; H100 SXM defaults)\n"
                           "-products: also time an assembly + the product after it and a product alone (the first product's extra cost:\n"
                           "ELLWARP's blocked product layout re-gathered from the assembled values).\n"
                           "-o dir (dir/elasticity.json).  Without a GPU every method runs its host reference (smoke test).\n";
/* Times: median of -repeats DMAssemblyComputeJacobian calls after a warm-up that builds the plan (CUDA events on the
   current stream; host: PetscTime).  The call includes zeroing the target values and, for twokernel, the geometry
   kernel.  Bytes model per element (compulsory traffic, element data in DRAM once):
     kiran: coordinates 192 B + index map 576 x 4 B (ppnirow: 24 x 4 B + 576 x 2 B) + values: the first colour touching a value stores it (8 B), the
            others read-modify-write (16 B): 576 x 16 B - 8 B x nnz / nelem (+ twokernel: geometry 640 B written and read);
     globalnz: element kernel (192 B in, 576 x 8 B out) + packed plan 576 x 4 B + element matrix 576 x 8 B read +
            values 8 B x nnz / nelem;  atomic/color: element kernel + 576 x (4 B map + 8 B read + 16 B RMW) + zeroing;
     peer: element kernel + 576 x (8 B value + 8 B perm) + nnz / nelem x (8 B jmap + 8 B value);
     kiran:owner: values written once 8 B x nnz / nelem + store lists 4 B x nnz / nelem + per node 8 B (base, count)
            + adjacency 8 x (4 B + 8 B) (node-element pairs, neighbour slots) + coordinates 192 B (each element's
            once from DRAM: its 8 nodes' warps reread them from L2).
     kiran:ownergeo: owner's bytes + the per-element geometry G (8 x 8 x 3 doubles, 1536 B) written once and read once
            from DRAM (its 8 nodes' warps reread it from L2: box meshes number nodes and elements by planes).
   Flops per element: 8 Gauss points x (Jacobian 288 + inverse ~40 + gradients 288 + 64 blocks x 60) + 576 additions;
   kiran:owner recomputes the geometry per node: 8 pairs x (8 x (144 + 40 + 144) + 8 x 24 x 24 + 72) (its own model);
   kiran:ownergeo computes it once: 8 x (144 + 40 + 144 + 24 + 2) + 8 pairs x (8 x 24 x 6 + 24 x 16) (the M form:
   lambda, mu out of the Gauss sum). */
#include <petscellwarp.h>
#include <petscellwarpassembly.h>
#include <petscdmplex.h>
#include <petscfe.h>
#include <petscds.h>
#include <petscsnes.h>
#include <petsctime.h>
#include "benchtime.h"
#if defined(ELLWARP_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

#define NK 576

typedef struct {
  DMAssembly as;
  Vec        U, Y;
  Mat        J;
  DMAssemblyElementKernels k;
  PetscScalar     *dke;
  PetscReal       *dxe;
  PetscInt         nelem;
} Ctx;

static PetscErrorCode OpJac(void *ctx)
{
  Ctx *c = (Ctx *)ctx;

  PetscFunctionBegin;
  PetscCall(DMAssemblyComputeJacobian(c->as, c->U, c->J));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an assembly and the product that follows it (a solver's first product after a new Jacobian: ELLWARP's blocked
   product layout is re-gathered from the assembled values there) */
static PetscErrorCode OpJacMult(void *ctx)
{
  Ctx *c = (Ctx *)ctx;

  PetscFunctionBegin;
  PetscCall(DMAssemblyComputeJacobian(c->as, c->U, c->J));
  PetscCall(MatMult(c->J, c->U, c->Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpMult(void *ctx)
{
  Ctx *c = (Ctx *)ctx;

  PetscFunctionBegin;
  PetscCall(MatMult(c->J, c->U, c->Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpElem(void *ctx)
{
  Ctx *c = (Ctx *)ctx;

  PetscFunctionBegin;
  PetscCall((*c->k.jacobian)(PETSC_MEMTYPE_DEVICE, 0, c->nelem, c->dxe, NULL, NULL, c->dke, c->k.ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpCOO(void *ctx)
{
  Ctx *c = (Ctx *)ctx;

  PetscFunctionBegin;
  PetscCall(OpElem(ctx));
  PetscCall(MatSetValuesCOO(c->J, c->dke, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Median(PetscErrorCode (*op)(void *), void *ctx, PetscInt reps, PetscBool device, double *sec)
{
  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  if (device) {
    PetscCall(BenchDeviceMedianTime(op, ctx, reps, sec));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  {
    double *t;
    PetscCall(PetscMalloc1(reps, &t));
    PetscCall((*op)(ctx));
    for (PetscInt r = 0; r < reps; r++) {
      PetscLogDouble t0, t1;
      PetscCall(PetscTime(&t0));
      PetscCall((*op)(ctx));
      PetscCall(PetscTime(&t1));
      t[r] = t1 - t0;
    }
    *sec = BenchMedian(t, reps);
    PetscCall(PetscFree(t));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateBeam(PetscInt nx, PetscInt ny, PetscInt nz, DM *dm)
{
  const PetscInt  faces[3] = {nx, ny, nz};
  const PetscReal lo[3] = {0, 0, 0}, hi[3] = {16.0, 2.0, 2.0};
  PetscFE         fe;

  PetscFunctionBegin;
  PetscCall(DMPlexCreateBoxMesh(PETSC_COMM_SELF, 3, PETSC_FALSE, faces, lo, hi, NULL, PETSC_TRUE, 0, PETSC_FALSE, dm));
  PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, 3, 3, PETSC_FALSE, 1, PETSC_DETERMINE, &fe));
  PetscCall(DMSetField(*dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(*dm));
  PetscCall(PetscFEDestroy(&fe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* method "kiran:<strategy>" or a type name */
static PetscErrorCode CreateAssembler(DM dm, const char *method, PetscBool host, DMAssembly *as, DMAssemblyElementKernels *k)
{
  char  type[64];
  char *colon;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(type, method, sizeof(type)));
  PetscCall(PetscStrchr(type, ':', &colon));
  char *jac = NULL;

  PetscCall(DMAssemblyCreate(dm, as));
  if (colon) {
    *colon = 0;
    PetscCall(PetscStrchr(colon + 1, ':', &jac)); /* kiran:warp4:shared: the Jacobian variant (Table 1) */
    if (jac) *jac++ = 0;
  }
  PetscCall(DMAssemblySetType(*as, host ? DMASSEMBLYHOST : type));
  if (colon) {
    PetscInt  s;
    PetscBool found;
    PetscCall(PetscEListFind(DMASSEMBLY_KIRAN_AUTO + 1, DMAssemblyKiranStrategies, colon + 1, &s, &found));
    PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "unknown kiran strategy %s", colon + 1);
    PetscCall(DMAssemblyKiranSetStrategy(*as, (DMAssemblyKiranStrategy)s));
  }
  if (jac) PetscCall(PetscOptionsSetValue(NULL, "-dm_assembly_kiran_jacobian", jac));
  PetscCall(DMAssemblySetFromOptions(*as));
  if (jac) PetscCall(PetscOptionsClearValue(NULL, "-dm_assembly_kiran_jacobian"));
  PetscCall(DMAssemblyElasticityKernels(*as, 200e9, 0.333, NULL, NULL, k));
  PetscCall(DMAssemblySetElementKernels(*as, k));
  PetscCall(DMAssemblySetUp(*as));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool map16 = PETSC_TRUE; /* -dm_assembly_kiran_map16 (ppnirow's index map) */

static double OwnerFlopsPerElement(void)
{
  return 8 * (8 * (144.0 + 40 + 144) + 8 * 24 * 24.0 + 72); /* dmasmkiran.c's KiranOwnerFlopsPerPair x 8 pairs */
}

static double OwnerGeoFlopsPerElement(void)
{
  return 8 * (144.0 + 40 + 144 + 24 + 2) + 8 * (8 * 24 * 6.0 + 24 * 16); /* dmasmkiran.c's KiranOwnerGeoFlopsPerElement */
}

static double BytesPerElement(const char *method, double nnzpe, double nodepe, PetscBool *isk, PetscBool *two)
{
  PetscBool kiran, twok, gnz, atomic, row, owner, ownergeo;
  PetscStrncmp(method, "kiran", 5, &kiran);
  PetscStrcmp(method, "kiran:ppnirow", &row);
  PetscStrcmp(method, "kiran:twokernel", &twok);
  PetscStrcmp(method, "kiran:owner", &owner);
  PetscStrcmp(method, "kiran:ownergeo", &ownergeo);
  if (!strcmp(method, "kiran:auto")) ownergeo = PETSC_TRUE; /* the default strategy takes ownergeo on the box meshes (its View says so) */
  PetscStrcmp(method, "globalnz", &gnz);
  PetscStrcmp(method, "atomic", &atomic);
  *isk = kiran;
  *two = twok;
  /* first touches stored (8 B), the rest read-modify-write; ppnirow's 16-bit map (a 4 B base + 24 x 2 B per store step:
     1248 B; the box meshes fit, DMAssemblyView says where a mesh falls back to 32 bits) */
  if (owner) return 192 + 8 * 12.0 + 8 * nodepe + 12 * nnzpe; /* write-once: no read-modify-write, no zeroing */
  if (ownergeo) return 192 + 2 * 1536.0 + 8 * 12.0 + 8 * nodepe + 12 * nnzpe; /* + G written and read once */
  if (kiran) return 192 + (row && map16 ? 4.0 * 24 + 2.0 * NK : 4.0 * NK) + 16.0 * NK - 8 * nnzpe + (twok ? 1280 : 0);
  if (gnz) return 192 + 8.0 * NK + 4.0 * NK + 8.0 * NK + 8 * nnzpe;
  return 192 + 8.0 * NK + NK * (4 + 8 + 16.0) + 8 * nnzpe; /* atomic, color */
}

static PetscErrorCode RelErr(Mat A, Mat Ref, PetscReal *err)
{
  Mat       Ac;
  PetscReal nd, nr;

  PetscFunctionBegin;
  PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &Ac));
  PetscCall(MatAXPY(Ac, -1.0, Ref, SAME_NONZERO_PATTERN));
  PetscCall(MatNorm(Ac, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(Ref, NORM_FROBENIUS, &nr));
  *err = nd / nr;
  PetscCall(MatDestroy(&Ac));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      *meshes[16], *methods[32], *targets[4], odir[PETSC_MAX_PATH_LEN] = "";
  PetscInt   nmesh = 16, nmeth = 32, ntarg = 4, repeats = 10, peermax = 270000, cpumax = 120000, checkmax = 300000;
  PetscReal  peakbw = 3350, peakfp = 33500;
  PetscBool  products = PETSC_FALSE;
  PetscBool  flg, device = PETSC_FALSE;
  FILE      *js = NULL;
  const char *defmeshes = "192x24x24,256x32x32,400x50x50,512x64x64";
  const char *defmethods = "kiran:element,kiran:warp4,kiran:warp8,kiran:ppni4,kiran:ppni8,kiran:twokernel,kiran:ppnirow,kiran:owner,kiran:ownergeo,globalnz,atomic,color";
  const double flopspe = 8 * (4.0 * 8 * 9 + 40 + 64 * (6 + 54)) + NK;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscEllwarpInitializePackage());
  {
    PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-meshes", meshes, &nmesh, &flg));
    if (!flg) {
      PetscToken t;
      const char *w;
      nmesh = 0;
      PetscCall(PetscTokenCreate(defmeshes, ',', &t));
      while (PETSC_TRUE) {
        PetscCall(PetscTokenFind(t, &w));
        if (!w) break;
        PetscCall(PetscStrallocpy(w, &meshes[nmesh++]));
      }
      PetscCall(PetscTokenDestroy(&t));
    }
    PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-methods", methods, &nmeth, &flg));
    if (!flg) {
      PetscToken t;
      const char *w;
      nmeth = 0;
      PetscCall(PetscTokenCreate(defmethods, ',', &t));
      while (PETSC_TRUE) {
        PetscCall(PetscTokenFind(t, &w));
        if (!w) break;
        PetscCall(PetscStrallocpy(w, &methods[nmeth++]));
      }
      PetscCall(PetscTokenDestroy(&t));
    }
    PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-targets", targets, &ntarg, &flg));
    if (!flg) {
      ntarg = 2;
      PetscCall(PetscStrallocpy(MATELLWARP, &targets[0]));
      PetscCall(PetscStrallocpy(MATAIJCUSPARSE, &targets[1]));
    }
  }
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeats", &repeats, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-peer_max_elements", &peermax, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-cpu_max_elements", &cpumax, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-check_max_elements", &checkmax, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-peak_bw", &peakbw, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-dm_assembly_kiran_map16", &map16, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-peak_fp64", &peakfp, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-products", &products, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", odir, sizeof(odir), NULL));
  if (odir[0]) {
    char path[PETSC_MAX_PATH_LEN];
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/elasticity.json", odir));
    PetscCall(PetscFOpen(PETSC_COMM_SELF, path, "w", &js));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, js, "{\"peak_bw_GBs\": %.1f, \"peak_fp64_GFLOPs\": %.1f, \"meshes\": [\n", (double)peakbw, (double)peakfp));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "# limits stated against: %.0f GB/s, %.0f GFLOP/s FP64 (-peak_bw, -peak_fp64); %.0f flops per element\n", (double)peakbw, (double)peakfp, flopspe));

  for (PetscInt im = 0; im < nmesh; im++) {
    PetscInt       nx, ny, nz, nelem, ndof;
    PetscCount     nnz;
    DM             dm;
    Mat            Jref = NULL;
    double         telem = -1, tbyelem[4] = {-1, -1, -1, -1}, tpeer = -1, tcpu = -1;
    PetscLogDouble t0, t1;
    PetscMemType   mt;

    PetscCheck(sscanf(meshes[im], "%" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT, &nx, &ny, &nz) == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-meshes: nx x ny x nz, got %s", meshes[im]);
    PetscCall(PetscTime(&t0));
    PetscCall(CreateBeam(nx, ny, nz, &dm));
    PetscCall(PetscTime(&t1));
    nelem = nx * ny * nz;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n# mesh %s: %" PetscInt_FMT " hexahedra, %" PetscInt_FMT " dofs; DMPlex box + PetscFE %.2f s\n", meshes[im], nelem, 3 * (nx + 1) * (ny + 1) * (nz + 1), t1 - t0));
    if (js) PetscCall(PetscFPrintf(PETSC_COMM_SELF, js, "%s  {\"mesh\": \"%s\", \"elements\": %" PetscInt_FMT ", \"rows\": [\n", im ? ",\n" : "", meshes[im], nelem));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-18s %-13s %10s %10s %10s %9s %9s %9s %9s %9s %9s\n", "method", "target", "setup_s", "colour_s", "jac_ms", "ns/elem", "GB/s", "%bw", "GFLOP/s", "%fp64", "rel_err"));
    {
      PetscBool first = PETSC_TRUE;
      for (PetscInt it = 0; it < ntarg; it++) {
        Mat J = NULL;
        for (PetscInt m = 0; m < nmeth; m++) {
          Ctx            c;
          DMAssemblyInfo info;
          PetscLogDouble s0, s1, ctime = -1;
          double         t, bpe, fpe, tjm = 0, tm = 0;
          PetscReal      err = -1;
          PetscBool      isk, two;
          MatType        jtype;

          PetscCall(PetscMemzero(&c, sizeof(c)));
          PetscCall(PetscTime(&s0));
          PetscCall(CreateAssembler(dm, methods[m], PETSC_FALSE, &c.as, &c.k));
          PetscCall(PetscTime(&s1));
          PetscCall(DMAssemblyGetMemType(c.as, &mt));
          device = (PetscBool)(mt == PETSC_MEMTYPE_DEVICE);
          PetscCall(DMAssemblyGetInfo(c.as, &info));
          ndof = info.ndof;
          nnz  = info.nnz;
          if (!J) {
            PetscBool cusp;
            PetscCall(PetscStrcmp(targets[it], MATAIJCUSPARSE, &cusp));
            PetscCall(DMSetMatType(dm, cusp && !device ? MATAIJ : targets[it])); /* no device: the host references into AIJ */
            PetscCall(DMAssemblyCreateMatrix(c.as, &J));
            {
              PetscBool isell;
              PetscCall(PetscObjectTypeCompare((PetscObject)J, MATSEQELLWARP, &isell));
              if (isell) PetscCall(MatEllwarpSetBackend(J, device ? MAT_ELLWARP_BACKEND_CUDA : MAT_ELLWARP_BACKEND_HOST));
            }
          }
          PetscCall(DMSetVecType(dm, device ? VECCUDA : VECSTANDARD));
          PetscCall(DMCreateGlobalVector(dm, &c.U));
          c.J = J;
          PetscCall(Median(OpJac, &c, repeats, device, &t));
          if (products) { /* what the first product after an assembly costs beyond a product (-products) */
            PetscCall(VecDuplicate(c.U, &c.Y));
            PetscCall(Median(OpJacMult, &c, repeats, device, &tjm));
            PetscCall(Median(OpMult, &c, repeats, device, &tm));
            PetscCall(VecDestroy(&c.Y));
          }
          PetscCall(PetscObjectViewFromOptions((PetscObject)c.as, NULL, "-dm_assembly_view")); /* what the method chose (after its plan) */
          PetscCall(PetscStrncmp(methods[m], "kiran", 5, &isk));
          if (isk) PetscCall(DMAssemblyKiranGetColoringTime(c.as, &ctime));
          bpe  = BytesPerElement(methods[m], (double)nnz / nelem, (double)ndof / 3 / nelem, &isk, &two);
          fpe  = !strcmp(methods[m], "kiran:owner") ? OwnerFlopsPerElement() : !strcmp(methods[m], "kiran:ownergeo") || !strcmp(methods[m], "kiran:auto") ? OwnerGeoFlopsPerElement() : flopspe;
          if (nelem <= checkmax) {
            if (!Jref) PetscCall(MatConvert(J, MATSEQAIJ, MAT_INITIAL_MATRIX, &Jref)); /* the first method's matrix */
            else PetscCall(RelErr(J, Jref, &err));
          }
          PetscCall(PetscObjectGetType((PetscObject)J, &jtype));
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-18s %-13s %10.2f %10.3f %10.4f %9.2f %9.1f %9.1f %9.1f %9.1f %9.1e\n", methods[m], jtype, s1 - s0, (double)ctime, 1e3 * t, 1e9 * t / nelem, bpe * nelem / t / 1e9, 100 * bpe * nelem / t / 1e9 / peakbw, fpe * nelem / t / 1e9, 100 * fpe * nelem / t / 1e9 / peakfp, (double)err));
          if (js) PetscCall(PetscFPrintf(PETSC_COMM_SELF, js, "%s    {\"method\": \"%s\", \"target\": \"%s\", \"setup_s\": %.4f, \"coloring_s\": %.4f, \"jacobian_s\": %.6e, \"bytes_per_element\": %.1f, \"flops_per_element\": %.1f, \"rel_err\": %.3e}", first ? "" : ",\n", methods[m], jtype, s1 - s0, (double)ctime, t, bpe, fpe, (double)err));
          if (products) PetscCall(PetscPrintf(PETSC_COMM_SELF, "# %s into %s: assembly + first product %.4f ms, a product %.4f ms: the first product after an assembly costs %.4f ms (%.2f ns/elem) beyond a product\n", methods[m], jtype, 1e3 * tjm, 1e3 * tm, 1e3 * (tjm - t - tm), 1e9 * (tjm - t - tm) / nelem));
          first = PETSC_FALSE;
          if (it == 0) {
            if (!strcmp(methods[m], "kiran:element")) tbyelem[0] = t;
            if (!strcmp(methods[m], "kiran:ppni4") || !strcmp(methods[m], "kiran:warp4") || !strcmp(methods[m], "kiran:ppni8") || !strcmp(methods[m], "kiran:warp8") || !strcmp(methods[m], "kiran:twokernel") || !strcmp(methods[m], "kiran:ppnirow") || !strcmp(methods[m], "kiran:owner") || !strcmp(methods[m], "kiran:ownergeo") || !strcmp(methods[m], "kiran:auto")) tbyelem[1] = tbyelem[1] < 0 ? t : PetscMin(tbyelem[1], t);
          }
          PetscCall(VecDestroy(&c.U));
          PetscCall(DMAssemblyDestroy(&c.as));
        }
        PetscCall(MatDestroy(&J));
      }
    }
    /* the COO peer: the same element kernel on the device, then MatSetValuesCOO into AIJCUSPARSE */
#if defined(ELLWARP_HAVE_CUDA)
    if (device && nelem <= peermax) {
      Ctx              c;
      PetscInt        *ci, *cj, nen;
      const PetscInt  *edof;
      const PetscReal *xe;
      PetscCall(PetscMemzero(&c, sizeof(c)));
      PetscCall(CreateAssembler(dm, DMASSEMBLYGLOBALNZ, PETSC_FALSE, &c.as, &c.k));
      PetscCall(DMAssemblyGetElementDofs(c.as, &c.nelem, &nen, &edof));
      PetscCall(DMAssemblyGetElementCoordinates(c.as, &xe));
      PetscCallCUDA(cudaMalloc((void **)&c.dke, sizeof(PetscScalar) * NK * (size_t)nelem));
      PetscCallCUDA(cudaMalloc((void **)&c.dxe, sizeof(PetscReal) * 24 * (size_t)nelem));
      PetscCallCUDA(cudaMemcpy(c.dxe, xe, sizeof(PetscReal) * 24 * (size_t)nelem, cudaMemcpyHostToDevice));
      PetscCall(PetscMalloc2((size_t)NK * nelem, &ci, (size_t)NK * nelem, &cj));
      for (PetscInt a = 0; a < nen; a++)
        for (PetscInt b = 0; b < nen; b++)
          for (PetscInt e = 0; e < nelem; e++) {
            ci[((size_t)a * nen + b) * nelem + e] = edof[(size_t)a * nelem + e];
            cj[((size_t)a * nen + b) * nelem + e] = edof[(size_t)b * nelem + e];
          }
      PetscCall(DMSetMatType(dm, MATAIJCUSPARSE));
      PetscCall(DMAssemblyCreateMatrix(c.as, &c.J));
      PetscCall(PetscTime(&t0));
      PetscCall(MatSetPreallocationCOO(c.J, (PetscCount)NK * nelem, ci, cj));
      PetscCall(PetscTime(&t1));
      PetscCall(PetscFree2(ci, cj));
      PetscCall(Median(OpElem, &c, repeats, PETSC_TRUE, &telem));
      PetscCall(Median(OpCOO, &c, repeats, PETSC_TRUE, &tpeer));
      {
        const double bpe = 192 + 8.0 * NK + NK * 16.0 + (double)nnz / nelem * 16;
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-18s %-13s %10.2f %10s %10.4f %9.2f %9.1f %9.1f %9.1f %9.1f\n", "peer: elem+COO", MATAIJCUSPARSE, t1 - t0, "-", 1e3 * tpeer, 1e9 * tpeer / nelem, bpe * nelem / tpeer / 1e9, 100 * bpe * nelem / tpeer / 1e9 / peakbw, flopspe * nelem / tpeer / 1e9, 100 * flopspe * nelem / tpeer / 1e9 / peakfp));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "# peer: element kernel alone (the element-buffer kernel: a warp per element, PPNI, element matrices to global memory) %.4f ms; MatSetPreallocationCOO %.2f s\n", 1e3 * telem, t1 - t0));
        if (js) PetscCall(PetscFPrintf(PETSC_COMM_SELF, js, ",\n    {\"method\": \"peer\", \"target\": \"aijcusparse\", \"setup_s\": %.4f, \"jacobian_s\": %.6e, \"element_kernel_s\": %.6e, \"bytes_per_element\": %.1f}", t1 - t0, tpeer, telem, bpe));
      }
      PetscCallCUDA(cudaFree(c.dke));
      PetscCallCUDA(cudaFree(c.dxe));
      PetscCall(MatDestroy(&c.J));
      PetscCall(DMAssemblyDestroy(&c.as));
    }
#endif
    /* one CPU core: the host method (plain-C element + packed reduction) into AIJ */
    if (nelem <= cpumax) {
      Ctx c;
      PetscCall(PetscMemzero(&c, sizeof(c)));
      PetscCall(CreateAssembler(dm, DMASSEMBLYHOST, PETSC_TRUE, &c.as, &c.k));
      PetscCall(DMSetMatType(dm, MATAIJ));
      PetscCall(DMSetVecType(dm, VECSTANDARD));
      PetscCall(DMAssemblyCreateMatrix(c.as, &c.J));
      PetscCall(DMCreateGlobalVector(dm, &c.U));
      PetscCall(Median(OpJac, &c, PetscMax(1, PetscMin(repeats, 3)), PETSC_FALSE, &tcpu));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-18s %-13s %10s %10s %10.4f %9.2f\n", "cpu: host, 1 core", MATAIJ, "-", "-", 1e3 * tcpu, 1e9 * tcpu / nelem));
      if (js) PetscCall(PetscFPrintf(PETSC_COMM_SELF, js, ",\n    {\"method\": \"cpu-host-1core\", \"target\": \"aij\", \"jacobian_s\": %.6e}", tcpu));
      PetscCall(VecDestroy(&c.U));
      PetscCall(MatDestroy(&c.J));
      PetscCall(DMAssemblyDestroy(&c.as));
    }
    /* PETSc's own DMPlexSNESComputeJacobianFEM (one process) into AIJ, same mesh and PetscFE */
    if (nelem <= cpumax) {
      PetscDS        ds;
      PetscScalar    cst[2];
      Mat            Jp;
      Vec            Ul;
      PetscLogDouble p0, p1;
      cst[0] = 200e9 * 0.333 / ((1 + 0.333) * (1 - 2 * 0.333));
      cst[1] = 200e9 / (2 * (1 + 0.333));
      PetscCall(DMGetDS(dm, &ds));
      PetscCall(PetscDSSetConstants(ds, 2, cst));
      PetscCall(PetscDSSetJacobian(ds, 0, 0, NULL, NULL, NULL, DMAssemblyElasticityG3));
      PetscCall(DMSetMatType(dm, MATAIJ));
      PetscCall(DMSetVecType(dm, VECSTANDARD));
      PetscCall(DMCreateMatrix(dm, &Jp));
      PetscCall(DMCreateLocalVector(dm, &Ul));
      PetscCall(VecZeroEntries(Ul));
      PetscCall(DMPlexSNESComputeJacobianFEM(dm, Ul, Jp, Jp, NULL)); /* warm-up */
      PetscCall(PetscTime(&p0));
      PetscCall(DMPlexSNESComputeJacobianFEM(dm, Ul, Jp, Jp, NULL));
      PetscCall(PetscTime(&p1));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-18s %-13s %10s %10s %10.4f %9.2f\n", "petsc: PlexFEM 1p", MATAIJ, "-", "-", 1e3 * (p1 - p0), 1e9 * (p1 - p0) / nelem));
      if (js) PetscCall(PetscFPrintf(PETSC_COMM_SELF, js, ",\n    {\"method\": \"petsc-DMPlexSNESComputeJacobianFEM-1proc\", \"target\": \"aij\", \"jacobian_s\": %.6e}", p1 - p0));
      PetscCall(VecDestroy(&Ul));
      PetscCall(MatDestroy(&Jp));
    }
    if (js) PetscCall(PetscFPrintf(PETSC_COMM_SELF, js, "\n  ]}"));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# summary %s (%" PetscInt_FMT " elements, %" PetscInt_FMT " dofs, %" PetscCount_FMT " nonzeros): kiran:element %.4f ms, best warp/two-kernel/owner strategy %.4f ms (%.2fx assembly by element)", meshes[im], nelem, ndof, nnz, 1e3 * tbyelem[0], 1e3 * tbyelem[1], tbyelem[0] > 0 && tbyelem[1] > 0 ? tbyelem[0] / tbyelem[1] : 0.0));
    if (tpeer > 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "; COO peer %.4f ms (best kiran %.2fx the peer)", 1e3 * tpeer, tpeer / tbyelem[1]));
    if (tcpu > 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "; one CPU core %.1f ms", 1e3 * tcpu));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
    PetscCall(MatDestroy(&Jref));
    PetscCall(DMDestroy(&dm));
  }
  if (js) {
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, js, "\n]}\n"));
    PetscCall(PetscFClose(PETSC_COMM_SELF, js));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# wrote %s/elasticity.json\n", odir));
  }
  for (PetscInt i = 0; i < nmesh; i++) PetscCall(PetscFree(meshes[i]));
  for (PetscInt i = 0; i < nmeth; i++) PetscCall(PetscFree(methods[i]));
  for (PetscInt i = 0; i < ntarg; i++) PetscCall(PetscFree(targets[i]));
  PetscCall(PetscFinalize());
  return 0;
}

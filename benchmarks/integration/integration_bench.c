/* Element integration of Banas et al. (issue 20): the paper's Tables 6 and 7 for today's GPU and the host's cores.
   For each element (P1 tetrahedra: geo_linear; P1 prisms: geo_generic) x problem (Poisson; conv-diff: the 20
   coefficients per element) x loop order (QSS, SQS, SSQ), on the device (every shared-memory placement x block
   size, the best reported) and on the host (OpenMP back end, all threads):
     - bytes and flops per element as the paper counts them (Tables 3-4: global words x 8; minimal operations),
     - the bound max(bytes / copy bandwidth, flops / FMA throughput), both MEASURED here (DMAssemblyIntegrationRoofline:
       a copy kernel and an FMA kernel of the same machine),
     - ns per element (A^e and b^e written: the paper's output) and the % of the bound reached;
   then "auto": a fresh integration object searches once (DMAssemblyIntegrationTune) and its choice is timed against
   the best measured.  Element data are synthetic (random valid elements, entry-major as in the assembler).
   Options: -n elements on the device (default 2^21), -host_n on the host (default n/4; 0: no host runs),
   -reps timed launches (10), -elems tet,prism, -problems poisson,cdr. */
#include <petscellwarpintegrate.h>
#include <petscfe.h>
#include <petsctime.h>
#if defined(ELLWARP_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

typedef struct {
  PetscInt     n;
  PetscReal   *xe, *coef;
  PetscScalar *ke, *fe;
  PetscMemType mt;
} Data;

static PetscErrorCode MakeData(DMPolytopeType ct, PetscInt ncoef, PetscInt n, PetscMemType mt, Data *D)
{
  const PetscInt ns = ct == DM_POLYTOPE_TETRAHEDRON ? 4 : 6;
  /* a reference element of the type (vertex order as PETSc's reference cell; a right prism) */
  const PetscReal tet[4][3] = {{0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0, 1}};
  const PetscReal pri[6][3] = {{0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}};
  PetscReal      *xe, *coef;
  PetscRandom     r;

  PetscFunctionBegin;
  D->n  = n;
  D->mt = mt;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetInterval(r, -1.0, 1.0));
  PetscCall(PetscMalloc2((size_t)3 * ns * n, &xe, (size_t)ncoef * n, &coef));
  for (PetscInt e = 0; e < n; e++)
    for (PetscInt a = 0; a < ns; a++)
      for (PetscInt d = 0; d < 3; d++) {
        PetscReal v;
        PetscCall(PetscRandomGetValueReal(r, &v));
        xe[(a * 3 + d) * n + e] = (ct == DM_POLYTOPE_TETRAHEDRON ? tet[a][d] : pri[a][d]) + 0.1 * v + 0.001 * (e % 1000);
      }
  for (PetscInt i = 0; i < ncoef * n; i++) PetscCall(PetscRandomGetValueReal(r, &coef[i]));
  PetscCall(PetscRandomDestroy(&r));
  if (mt == PETSC_MEMTYPE_HOST) {
    D->xe   = xe;
    D->coef = coef;
    PetscCall(PetscMalloc2((size_t)ns * ns * n, &D->ke, (size_t)ns * n, &D->fe));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCallCUDA(cudaMalloc((void **)&D->xe, sizeof(PetscReal) * 3 * ns * n));
    PetscCallCUDA(cudaMalloc((void **)&D->coef, sizeof(PetscReal) * ncoef * n));
    PetscCallCUDA(cudaMalloc((void **)&D->ke, sizeof(PetscScalar) * ns * ns * n));
    PetscCallCUDA(cudaMalloc((void **)&D->fe, sizeof(PetscScalar) * ns * n));
    PetscCallCUDA(cudaMemcpy(D->xe, xe, sizeof(PetscReal) * 3 * ns * n, cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaMemcpy(D->coef, coef, sizeof(PetscReal) * ncoef * n, cudaMemcpyHostToDevice));
    PetscCall(PetscFree2(xe, coef));
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FreeData(Data *D)
{
  PetscFunctionBegin;
  if (D->mt == PETSC_MEMTYPE_HOST) {
    PetscCall(PetscFree2(D->xe, D->coef));
    PetscCall(PetscFree2(D->ke, D->fe));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCallCUDA(cudaFree(D->xe));
    PetscCallCUDA(cudaFree(D->coef));
    PetscCallCUDA(cudaFree(D->ke));
    PetscCallCUDA(cudaFree(D->fe));
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* mean seconds per Apply over reps launches (after one warm-up) */
static PetscErrorCode TimeApply(DMAssemblyIntegration ig, Data *D, PetscInt reps, PetscReal *sec)
{
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(DMAssemblyIntegrationApply(ig, D->mt, DMASSEMBLY_INTEGRATION_OUT_AB, D->n, D->xe, D->coef, D->n, NULL, D->ke, D->fe));
#if defined(ELLWARP_HAVE_CUDA)
  if (D->mt != PETSC_MEMTYPE_HOST) PetscCallCUDA(cudaDeviceSynchronize());
#endif
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < reps; r++) PetscCall(DMAssemblyIntegrationApply(ig, D->mt, DMASSEMBLY_INTEGRATION_OUT_AB, D->n, D->xe, D->coef, D->n, NULL, D->ke, D->fe));
#if defined(ELLWARP_HAVE_CUDA)
  if (D->mt != PETSC_MEMTYPE_HOST) PetscCallCUDA(cudaDeviceSynchronize());
#endif
  PetscCall(PetscTime(&t1));
  *sec = (t1 - t0) / reps;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunCase(DMPolytopeType ct, DMAssemblyIntegrationProblem prob, PetscMemType mt, PetscInt n, PetscInt reps, PetscReal bw, PetscReal fl)
{
  const char *const     pl[] = {"reg", "coef", "phi", "ae", "reg128", "reg64"};
  const PetscBool       dev  = (PetscBool)(mt != PETSC_MEMTYPE_HOST);
  const char           *where = dev ? "device" : "host";
  const char           *ename = ct == DM_POLYTOPE_TETRAHEDRON ? "tet" : "prism";
  PetscFE               fe;
  DMAssemblyIntegration ig;
  PetscInt              ncoef;
  Data                  D;
  PetscReal             best = PETSC_MAX_REAL, tauto, bauto = 0;

  PetscFunctionBegin;
  PetscCall(PetscFECreateLagrangeByCell(PETSC_COMM_SELF, 3, 1, ct, 1, PETSC_DETERMINE, &fe));
  PetscCall(DMAssemblyIntegrationCreate(fe, prob, &ig));
  PetscCall(DMAssemblyIntegrationGetSizes(ig, NULL, NULL, &ncoef));
  PetscCall(MakeData(ct, ncoef, n, mt, &D));
  for (int v = 0; v < 3; v++) {
    PetscLogDouble bytes, flops;
    PetscReal      bound, tv = PETSC_MAX_REAL;
    int            bp = 0, bb = 0;
    PetscCall(DMAssemblyIntegrationGetCounts(ig, (DMAssemblyIntegrationVariant)v, &bytes, &flops));
    bound = PetscMax(bytes / bw, flops / fl);
    for (int p = 0; p < (dev ? 6 : 1); p++)
      for (int b = 64; b <= (dev ? 256 : 64); b *= 2) {
        PetscReal t;
        PetscCall(DMAssemblyIntegrationSetVariant(ig, (DMAssemblyIntegrationVariant)v, p, b));
        PetscCall(TimeApply(ig, &D, reps, &t));
        if (dev) PetscCall(PetscPrintf(PETSC_COMM_SELF, "#   %s %s %s %s %-4s %3d: %8.3f ns/elem\n", where, ename, DMAssemblyIntegrationProblems[prob], DMAssemblyIntegrationVariants[v], pl[p], b, 1e9 * t / n));
        if (t < tv) {
          tv = t;
          bp = p;
          bb = b;
        }
      }
    best = PetscMin(best, tv);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-6s | %-5s | %-7s | %-4s | %5.0f B %6.0f flop | bound %8.3f ns (%s) | %8.3f ns/elem | %5.1f %% of bound | %s\n", where, ename, DMAssemblyIntegrationProblems[prob], DMAssemblyIntegrationVariants[v], bytes, flops, 1e9 * bound, bytes / bw >= flops / fl ? "memory" : "flops", 1e9 * tv / n, 100 * bound * n / tv, dev ? pl[bp] : "-"));
    if (dev) PetscCall(PetscPrintf(PETSC_COMM_SELF, "#   (best placement %s, %d threads)\n", pl[bp], bb));
  }
  /* auto: a fresh object searches once, its choice timed */
  {
    DMAssemblyIntegration ia;
    DMAssemblyIntegrationVariant va;
    PetscInt                     pa, ba;
    PetscLogDouble               bytes, flops;
    PetscCall(DMAssemblyIntegrationCreate(fe, prob, &ia));
    PetscCall(DMAssemblyIntegrationSetVariant(ia, DMASSEMBLY_INTEGRATION_AUTO, -1, 0));
    PetscCall(DMAssemblyIntegrationTune(ia, mt, DMASSEMBLY_INTEGRATION_OUT_AB, D.n, D.xe, D.coef, D.n, NULL, D.ke, D.fe));
    PetscCall(TimeApply(ia, &D, reps, &tauto));
    PetscCall(DMAssemblyIntegrationGetVariant(ia, &va, &pa, &ba));
    PetscCall(DMAssemblyIntegrationGetCounts(ia, va, &bytes, &flops));
    bauto = PetscMax(bytes / bw, flops / fl);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-6s | %-5s | %-7s | auto | chose %s%s%s | %8.3f ns/elem | %5.1f %% of bound | %+.1f %% vs best measured\n", where, ename, DMAssemblyIntegrationProblems[prob], DMAssemblyIntegrationVariants[va], dev ? " " : "", dev ? pl[pa] : "", 1e9 * tauto / n, 100 * bauto * n / tauto, 100 * (tauto - best) / best));
    if (dev) PetscCall(PetscPrintf(PETSC_COMM_SELF, "#   (auto: %" PetscInt_FMT " threads per block)\n", ba));
    PetscCall(DMAssemblyIntegrationDestroy(&ia));
  }
  PetscCall(FreeData(&D));
  PetscCall(DMAssemblyIntegrationDestroy(&ig));
  PetscCall(PetscFEDestroy(&fe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  n = 1 << 21, hn = -1, reps = 10, ne = 2, np = 2;
  char     *elems[2] = {NULL, NULL}, *probs[2] = {NULL, NULL};
  PetscBool fe, fp, havedev = PETSC_FALSE;
  PetscReal hbw = 0, hfl = 0, dbw = 0, dfl = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-host_n", &hn, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-elems", elems, &ne, &fe));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-problems", probs, &np, &fp));
  if (!fe) {
    ne = 2;
    PetscCall(PetscStrallocpy("tet", &elems[0]));
    PetscCall(PetscStrallocpy("prism", &elems[1]));
  }
  if (!fp) {
    np = 2;
    PetscCall(PetscStrallocpy("poisson", &probs[0]));
    PetscCall(PetscStrallocpy("cdr", &probs[1]));
  }
  if (hn < 0) hn = n / 4;
#if defined(ELLWARP_HAVE_CUDA)
  {
    int nd = 0;
    if (cudaGetDeviceCount(&nd) == cudaSuccess && nd > 0) havedev = PETSC_TRUE;
    else (void)cudaGetLastError();
  }
#endif
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "# element integration (Banas et al., Tables 6-7): %" PetscInt_FMT " elements on the device%s, %" PetscInt_FMT " on the host, %" PetscInt_FMT " timed launches\n", n, havedev ? "" : " (no device: skipped)", hn, reps));
  if (havedev) {
    PetscCall(DMAssemblyIntegrationRoofline(PETSC_MEMTYPE_DEVICE, 1 << 27, &dbw, &dfl));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# device roofline (measured): copy %.1f GB/s, FMA %.2f TFLOP/s, limiting intensity %.1f flop/word\n", dbw / 1e9, dfl / 1e12, 8 * dfl / dbw));
  }
  if (hn > 0) {
    PetscCall(DMAssemblyIntegrationRoofline(PETSC_MEMTYPE_HOST, 1 << 25, &hbw, &hfl));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# host roofline (measured, all OpenMP threads): copy %.1f GB/s, FMA %.1f GFLOP/s, limiting intensity %.1f flop/word\n", hbw / 1e9, hfl / 1e9, 8 * hfl / hbw));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "# where  | elem  | problem | var  | paper's counts per element | bound (limited by)  | measured        | %% of bound | placement\n"));
  for (PetscInt i = 0; i < ne; i++)
    for (PetscInt j = 0; j < np; j++) {
      PetscBool tet, prism, poisson, cdr;
      PetscCall(PetscStrcmp(elems[i], "tet", &tet));
      PetscCall(PetscStrcmp(elems[i], "prism", &prism));
      PetscCall(PetscStrcmp(probs[j], "poisson", &poisson));
      PetscCall(PetscStrcmp(probs[j], "cdr", &cdr));
      PetscCheck((tet || prism) && (poisson || cdr), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-elems tet,prism -problems poisson,cdr");
      if (havedev) PetscCall(RunCase(tet ? DM_POLYTOPE_TETRAHEDRON : DM_POLYTOPE_TRI_PRISM, poisson ? DMASSEMBLY_INTEGRATION_POISSON : DMASSEMBLY_INTEGRATION_CDR, PETSC_MEMTYPE_DEVICE, n, reps, dbw, dfl));
      if (hn > 0) PetscCall(RunCase(tet ? DM_POLYTOPE_TETRAHEDRON : DM_POLYTOPE_TRI_PRISM, poisson ? DMASSEMBLY_INTEGRATION_POISSON : DMASSEMBLY_INTEGRATION_CDR, PETSC_MEMTYPE_HOST, hn, reps, hbw, hfl));
    }
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(PetscFree(elems[i]));
    PetscCall(PetscFree(probs[i]));
  }
  PetscCall(PetscFinalize());
  return 0;
}

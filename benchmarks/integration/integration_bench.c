/* Element integration of Banas et al. (issue 20): the paper's Tables 6 and 7 for today's GPU and the host's cores.
   For each element (P1 tetrahedra: geo_linear; P1 prisms: geo_generic) x problem (Poisson; conv-diff: the 20
   coefficients per element) x loop order (QSS, SQS, SSQ), on the device (every shared-memory placement x block
   size, the best reported) and on the host (OpenMP back end, all threads):
     - bytes and flops per element as the paper counts them (Tables 3-4: global words x 8; minimal operations),
     - the bound max(bytes / copy bandwidth, flops / FMA throughput), both MEASURED here (DMAssemblyIntegrationRoofline:
       a copy kernel and an FMA kernel of the same machine),
     - ns per element (A^e and b^e written: the paper's output) and the % of the bound reached;
   on the host each loop order in every instruction set the CPU runs (base: scalar, the library's flags; avx2: 4
   elements per vector; avx512: 8) with regular and streaming stores (lines starting with '#'), the best reported;
   then "auto": a fresh integration object searches once (DMAssemblyIntegrationTune) and its choice is timed against
   the best measured.  The host bound uses the widest instruction set (FMA) and the faster copy (regular or streaming
   stores), both with the element loop's thread placement.  Element data are synthetic (random valid elements, entry-major as in the assembler).
   Options: -n elements on the device (default 2^21), -host_n on the host (default n/4; 0: no host runs),
   -reps timed launches (10), -elems tet,prism, -problems poisson,cdr, -host_roofline_runs the host roofline measured
   that many times, each printed, the median used (1), -host_hugepages the host arrays in transparent huge pages
   (false), -dm_assembly_integration_host_chunk n the host loop chunked (0: direct; DMAssemblyIntegrationSetFromOptions).
   The host arrays are first touched by one thread (the random inputs) or by the first Apply (the outputs): the GPU
   host has one NUMA node, where first touch decides nothing. */
#include <petscellwarpintegrate.h>
#include <petscfe.h>
#include <petsctime.h>
#include <stdint.h>
#include <stdlib.h>
#if defined(__linux__)
  #include <sys/mman.h>
#endif
#if defined(ELLWARP_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

typedef struct {
  PetscInt     n;
  PetscReal   *xe, *coef;
  PetscScalar *ke, *fe;
  PetscScalar *kefe; /* host: the allocation of ke and fe (aligned to 64 bytes inside it: streaming stores) */
  void        *huge[2]; /* host with -host_hugepages: the allocations of (xe, coef) and of (ke, fe) */
  PetscMemType mt;
} Data;

/* -host_hugepages: the host arrays 2 MiB aligned and madvise(MADV_HUGEPAGE)'d (where the kernel's transparent huge
   pages are in "madvise" mode, as on the build host, they are otherwise 4 KiB pages: a prism group's 60-80 entry-major
   streams each cross a 4 KiB page every 64 groups of 8 elements, and the L2 prefetchers stop at page boundaries) */
static PetscBool hugepages = PETSC_FALSE;

static PetscErrorCode HugeAlloc(size_t nd, void **p)
{
  const size_t al = (size_t)2 << 20, bytes = (sizeof(double) * nd + al - 1) / al * al;

  PetscFunctionBegin;
  PetscCheck(posix_memalign(p, al, bytes) == 0, PETSC_COMM_SELF, PETSC_ERR_MEM, "-host_hugepages: posix_memalign of %zu bytes failed", bytes);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  PetscCheck(madvise(*p, bytes, MADV_HUGEPAGE) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "-host_hugepages: madvise(MADV_HUGEPAGE) failed (transparent huge pages disabled in this kernel?)");
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "-host_hugepages: madvise(MADV_HUGEPAGE) is Linux only");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
  D->huge[0] = D->huge[1] = NULL;
  if (mt == PETSC_MEMTYPE_HOST && hugepages) { /* 2 MiB aligned, transparent huge pages asked for (MADV_HUGEPAGE) */
    PetscCall(HugeAlloc((size_t)(3 * ns + ncoef) * n, &D->huge[0]));
    xe   = (PetscReal *)D->huge[0];
    coef = xe + (size_t)3 * ns * n;
  } else PetscCall(PetscMalloc2((size_t)3 * ns * n, &xe, (size_t)ncoef * n, &coef));
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
    /* ke and fe 64-byte aligned (PETSc aligns to PETSC_MEMALIGN): the host's streaming stores need whole aligned
       vectors; their pages are first touched by the first Apply, with the static schedule of every later one */
    if (hugepages) {
      PetscCall(HugeAlloc((size_t)(ns * ns + ns) * n + 24, &D->huge[1]));
      D->kefe = (PetscScalar *)D->huge[1];
    } else PetscCall(PetscMalloc1((size_t)(ns * ns + ns) * n + 24, &D->kefe));
    D->ke = (PetscScalar *)(((uintptr_t)D->kefe + 63) / 64 * 64);
    D->fe = D->ke + (size_t)ns * ns * n;
    D->fe = (PetscScalar *)(((uintptr_t)D->fe + 63) / 64 * 64);
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
    if (D->huge[0]) free(D->huge[0]);
    else PetscCall(PetscFree2(D->xe, D->coef));
    if (D->huge[1]) free(D->huge[1]);
    else PetscCall(PetscFree(D->kefe));
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

#define PAIRED_ROUNDS 5

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
  int                   bestv = 0, bestp = 0, bestb = 0; /* the fastest configuration measured: variant, placement or ISA, block or stores */

  PetscFunctionBegin;
  PetscCall(PetscFECreateLagrangeByCell(PETSC_COMM_SELF, 3, 1, ct, 1, PETSC_DETERMINE, &fe));
  PetscCall(DMAssemblyIntegrationCreate(fe, prob, &ig));
  PetscCall(DMAssemblyIntegrationSetFromOptions(ig, NULL)); /* -dm_assembly_integration_host_chunk (the A/B); the loop below sets the rest */
  PetscCall(DMAssemblyIntegrationGetSizes(ig, NULL, NULL, &ncoef));
  PetscCall(MakeData(ct, ncoef, n, mt, &D));
  for (int v = 0; v < 3; v++) {
    PetscLogDouble bytes, flops;
    PetscReal      bound, tv = PETSC_MAX_REAL;
    int            bp = 0, bb = 0;
    char           cfg[64];
    PetscCall(DMAssemblyIntegrationGetCounts(ig, (DMAssemblyIntegrationVariant)v, &bytes, &flops));
    bound = PetscMax(bytes / bw, flops / fl);
    if (dev) {
      for (int p = 0; p < 6; p++)
        for (int b = 64; b <= 256; b *= 2) {
          PetscReal t;
          PetscCall(DMAssemblyIntegrationSetVariant(ig, (DMAssemblyIntegrationVariant)v, p, b));
          PetscCall(TimeApply(ig, &D, reps, &t));
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "#   %s %s %s %s %-4s %3d: %8.3f ns/elem\n", where, ename, DMAssemblyIntegrationProblems[prob], DMAssemblyIntegrationVariants[v], pl[p], b, 1e9 * t / n));
          if (t < tv) {
            tv = t;
            bp = p;
            bb = b;
          }
        }
    } else { /* the host: every instruction set this CPU runs (base: scalar; avx2: 4, avx512: 8 elements per vector) x stores */
      PetscCall(DMAssemblyIntegrationSetVariant(ig, (DMAssemblyIntegrationVariant)v, 0, 64));
      for (int i = 0; i < 3; i++) {
        PetscBool has;
        PetscCall(DMAssemblyIntegrationHostISASupported(i, &has));
        for (int st = 0; has && st <= (i == 2 ? 1 : 0); st++) { /* streaming stores: avx512 only (whole cache lines) */
          PetscReal t;
          PetscCall(DMAssemblyIntegrationSetHost(ig, i, st));
          PetscCall(TimeApply(ig, &D, reps, &t));
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "#   %s %s %s %s %-6s %-9s: %8.3f ns/elem %5.1f %% of bound\n", where, ename, DMAssemblyIntegrationProblems[prob], DMAssemblyIntegrationVariants[v], DMAssemblyIntegrationHostISAs[i], st ? "streaming" : "regular", 1e9 * t / n, 100 * bound * n / t));
          if (t < tv) {
            tv = t;
            bp = i;
            bb = st;
          }
        }
      }
    }
    if (tv < best) {
      best  = tv;
      bestv = v;
      bestp = bp;
      bestb = bb;
    }
    if (dev) PetscCall(PetscSNPrintf(cfg, sizeof(cfg), "%s", pl[bp]));
    else PetscCall(PetscSNPrintf(cfg, sizeof(cfg), "%s %s", DMAssemblyIntegrationHostISAs[bp], bb ? "streaming" : "regular"));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-6s | %-5s | %-7s | %-4s | %5.0f B %6.0f flop | bound %8.3f ns (%s) | %8.3f ns/elem | %5.1f %% of bound | %s\n", where, ename, DMAssemblyIntegrationProblems[prob], DMAssemblyIntegrationVariants[v], bytes, flops, 1e9 * bound, bytes / bw >= flops / fl ? "memory" : "flops", 1e9 * tv / n, 100 * bound * n / tv, cfg));
    if (dev) PetscCall(PetscPrintf(PETSC_COMM_SELF, "#   (best placement %s, %d threads)\n", pl[bp], bb));
  }
  /* auto: a fresh object searches once, its choice timed */
  {
    DMAssemblyIntegration ia;
    DMAssemblyIntegrationVariant va;
    PetscInt                     pa, ba, ha, sa;
    PetscLogDouble               bytes, flops;
    char                         cfg[64];
    PetscCall(DMAssemblyIntegrationCreate(fe, prob, &ia));
    PetscCall(DMAssemblyIntegrationSetFromOptions(ia, NULL));
    PetscCall(DMAssemblyIntegrationSetVariant(ia, DMASSEMBLY_INTEGRATION_AUTO, -1, 0));
    PetscCall(DMAssemblyIntegrationTune(ia, mt, DMASSEMBLY_INTEGRATION_OUT_AB, D.n, D.xe, D.coef, D.n, NULL, D.ke, D.fe));
    PetscCall(TimeApply(ia, &D, reps, &tauto));
    PetscCall(DMAssemblyIntegrationGetVariant(ia, &va, &pa, &ba));
    PetscCall(DMAssemblyIntegrationGetHost(ia, &ha, &sa));
    PetscCall(DMAssemblyIntegrationGetCounts(ia, va, &bytes, &flops));
    bauto = PetscMax(bytes / bw, flops / fl);
    if (dev) PetscCall(PetscSNPrintf(cfg, sizeof(cfg), "%s %s", DMAssemblyIntegrationVariants[va], pl[pa]));
    else {
      PetscInt ca;
      PetscCall(DMAssemblyIntegrationGetHostChunk(ia, &ca));
      PetscCall(PetscSNPrintf(cfg, sizeof(cfg), "%s %s %s%s", DMAssemblyIntegrationVariants[va], DMAssemblyIntegrationHostISAs[ha], sa ? "streaming" : "regular", ca > 0 ? " chunked" : ""));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-6s | %-5s | %-7s | auto | chose %s | %8.3f ns/elem | %5.1f %% of bound | %+.1f %% vs best measured\n", where, ename, DMAssemblyIntegrationProblems[prob], cfg, 1e9 * tauto / n, 100 * bauto * n / tauto, 100 * (tauto - best) / best));
    if (dev) PetscCall(PetscPrintf(PETSC_COMM_SELF, "#   (auto: %" PetscInt_FMT " threads per block)\n", ba));
    { /* paired re-timing: the automatic choice and the best configuration measured above, alternately, PAIRED_ROUNDS
         rounds, median of each: the separate timings above come minutes apart, and on a shared host they move by
         more than the 5 % being judged (the device's repeat within 1-2 %) */
      PetscReal ta[PAIRED_ROUNDS], tb[PAIRED_ROUNDS];
      char      cfgb[64];
      if (dev) PetscCall(PetscSNPrintf(cfgb, sizeof(cfgb), "%s %s %d", DMAssemblyIntegrationVariants[bestv], pl[bestp], bestb));
      else PetscCall(PetscSNPrintf(cfgb, sizeof(cfgb), "%s %s %s", DMAssemblyIntegrationVariants[bestv], DMAssemblyIntegrationHostISAs[bestp], bestb ? "streaming" : "regular"));
      if (dev) PetscCall(DMAssemblyIntegrationSetVariant(ig, (DMAssemblyIntegrationVariant)bestv, bestp, bestb));
      else {
        PetscCall(DMAssemblyIntegrationSetVariant(ig, (DMAssemblyIntegrationVariant)bestv, 0, 64));
        PetscCall(DMAssemblyIntegrationSetHost(ig, bestp, bestb));
      }
      for (int r = 0; r < PAIRED_ROUNDS; r++) {
        PetscCall(TimeApply(ia, &D, reps, &ta[r]));
        PetscCall(TimeApply(ig, &D, reps, &tb[r]));
      }
      PetscCall(PetscSortReal(PAIRED_ROUNDS, ta));
      PetscCall(PetscSortReal(PAIRED_ROUNDS, tb));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-6s | %-5s | %-7s | paired | auto %8.3f ns/elem, best measured (%s) %8.3f ns/elem, alternately, median of %d rounds | %+.1f %% auto vs best\n", where, ename, DMAssemblyIntegrationProblems[prob], cfgb, 1e9 * ta[PAIRED_ROUNDS / 2] / n, 1e9 * tb[PAIRED_ROUNDS / 2] / n, PAIRED_ROUNDS, 100 * (ta[PAIRED_ROUNDS / 2] - tb[PAIRED_ROUNDS / 2]) / tb[PAIRED_ROUNDS / 2]));
    }
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
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-host_hugepages", &hugepages, NULL));
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
  {
    PetscInt chunk = 0;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-dm_assembly_integration_host_chunk", &chunk, NULL));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# host arrays: %s; host element loop: %s (-dm_assembly_integration_host_chunk %" PetscInt_FMT ")\n", hugepages ? "2 MiB aligned, MADV_HUGEPAGE (-host_hugepages)" : "PetscMalloc (4 KiB pages unless the kernel's transparent huge pages are always on)", chunk < 0 ? "searched by the auto object: direct or chunked (the configurations timed singly: each searched between the two)" : chunk ? "chunked through per-thread buffers" : "direct", chunk));
  }
  if (havedev) {
    PetscCall(DMAssemblyIntegrationRoofline(PETSC_MEMTYPE_DEVICE, 1 << 27, &dbw, &dfl));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "# device roofline (measured): copy %.1f GB/s, FMA %.2f TFLOP/s, limiting intensity %.1f flop/word\n", dbw / 1e9, dfl / 1e12, 8 * dfl / dbw));
  }
  if (hn > 0) {
    PetscReal bwr, bws, bwr0, bws0, fl0;
    PetscInt  isa = 2, nrr = 1;
    PetscBool has = PETSC_FALSE;
    for (; isa > 0; isa--) {
      PetscCall(DMAssemblyIntegrationHostISASupported(isa, &has));
      if (has) break;
    }
    /* the bound: the widest instruction set this CPU runs, the copy the faster of regular and streaming stores;
       measured -host_roofline_runs times (default 1), every run printed, the median of each of copy and FMA used (a
       shared host's single measurements moved 113-167 GB/s and 583-1218 GFLOP/s between runs of the same binary) */
    {
      PetscReal bwv[32], flv[32];
      PetscCall(PetscOptionsGetInt(NULL, NULL, "-host_roofline_runs", &nrr, NULL));
      PetscCheck(nrr >= 1 && nrr <= 32, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-host_roofline_runs 1..32, got %" PetscInt_FMT, nrr);
      for (PetscInt k = 0; k < nrr; k++) {
        PetscCall(DMAssemblyIntegrationRooflineHost(isa, 1 << 25, &bwr, &bws, &flv[k]));
        bwv[k] = PetscMax(bwr, bws);
        if (nrr > 1) PetscCall(PetscPrintf(PETSC_COMM_SELF, "#   host roofline run %" PetscInt_FMT ": copy %.1f GB/s (regular stores %.1f, streaming %.1f), FMA %.1f GFLOP/s\n", k, bwv[k] / 1e9, bwr / 1e9, bws / 1e9, flv[k] / 1e9));
      }
      PetscCall(PetscSortReal(nrr, bwv));
      PetscCall(PetscSortReal(nrr, flv));
      hbw = bwv[nrr / 2];
      hfl = flv[nrr / 2];
      if (nrr > 1) PetscCall(PetscPrintf(PETSC_COMM_SELF, "# host roofline (measured, all OpenMP threads, %s): median of %" PetscInt_FMT " runs: copy %.1f GB/s (spread %.1f-%.1f), FMA %.1f GFLOP/s (spread %.1f-%.1f), limiting intensity %.1f flop/word\n", DMAssemblyIntegrationHostISAs[isa], nrr, hbw / 1e9, bwv[0] / 1e9, bwv[nrr - 1] / 1e9, hfl / 1e9, flv[0] / 1e9, flv[nrr - 1] / 1e9, 8 * hfl / hbw));
      else PetscCall(PetscPrintf(PETSC_COMM_SELF, "# host roofline (measured, all OpenMP threads, %s): copy %.1f GB/s (regular stores %.1f, streaming %.1f), FMA %.1f GFLOP/s, limiting intensity %.1f flop/word\n", DMAssemblyIntegrationHostISAs[isa], hbw / 1e9, bwr / 1e9, bws / 1e9, hfl / 1e9, 8 * hfl / hbw));
    }
    if (isa > 0) {
      PetscCall(DMAssemblyIntegrationRooflineHost(0, 1 << 25, &bwr0, &bws0, &fl0));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "#   (the base instruction set, for comparison: copy %.1f GB/s, FMA %.1f GFLOP/s)\n", bwr0 / 1e9, fl0 / 1e9));
    }
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

/* Element numerical integration for first-order elements (issue 20; Banas, Kruzel, Bielanski): the object
   (reference data from the PetscFE, the paper's quadratures, options, the one-time timed search), the host back end
   (C + OpenMP over elements, the loop bodies of include/petscellwarp/private/dmasmintegrate.h), and the integration
   installed as the element kernels of a DMAssembly (DMAssemblyIntegrationKernels()).  The device back end is
   dmasmintegratecuda.cu, compiled from the same loop bodies. */
#include <petscellwarpintegrate.h>
#include <petscellwarp/private/dmassemblyimpl.h>
/* Only the object here: the host loop bodies are compiled in dmasmintegratehost.c (once per instruction set, picked
   at run time below), the device ones in dmasmintegratecuda.cu.  This file needs the header's types, not its vectors. */
#define DMASM_IG_SCALAR 1
#include <petscellwarp/private/dmasmintegrate.h>
#include <petscdmplex.h>
#include <petscfe.h>
#include <petsctime.h>
#include <stdint.h>
#if defined(_OPENMP)
  #include <omp.h>
#endif

const char *const DMAssemblyIntegrationProblems[] = {"poisson", "cdr", "DMAssemblyIntegrationProblem", "DMASSEMBLY_INTEGRATION_", NULL};
const char *const DMAssemblyIntegrationVariants[] = {"qss", "sqs", "ssq", "auto", "DMAssemblyIntegrationVariant", "DMASSEMBLY_INTEGRATION_", NULL};
const char *const        DMAssemblyIntegrationHostISAs[] = {"base", "avx2", "avx512", NULL};
static const char *const PlaceNames[]             = {"reg", "coef", "phi", "ae", "reg128", "reg64"};
static const char *const StoreNames[]             = {"regular", "streaming"};

#define IG_NBLOCK 3
static const int IGBlocks[IG_NBLOCK] = {64, 128, 256};

/* ---- the host back end's instruction sets: dmasmintegratehost.c compiled once per set, the CPU asked at run time --- */
#define IG_NISA 3
#define IG_CHUNK 8 /* the chunk the search tries (-dm_assembly_integration_host_chunk -1): 8 groups, with 8 lanes 64 elements,
                      a buffer of 44 KiB a thread (the L1 of the build host's and GPU host's cores: 48 KiB) */
typedef struct {
  int lanes; /* elements per call (SIMD lanes) */
  int (*run)(const DMAsmIntegRef *, int, int, int, int, int, int, double *, PetscInt, const PetscReal *, const PetscReal *, PetscInt, const PetscScalar *, PetscScalar *, PetscScalar *);
  double (*fma)(int, double *);
  void (*copy)(PetscInt, const double *, double *, int);
} IGHostISA;
static const IGHostISA IGHost[IG_NISA] = {
  {1, DMAsmIGHostRunBase, DMAsmIGHostFMABase, DMAsmIGHostCopyBase},
#if defined(ELLWARP_IG_HOST_AVX2)
  {4, DMAsmIGHostRunAVX2, DMAsmIGHostFMAAVX2, DMAsmIGHostCopyAVX2},
#else
  {4, NULL, NULL, NULL},
#endif
#if defined(ELLWARP_IG_HOST_AVX512)
  {8, DMAsmIGHostRunAVX512, DMAsmIGHostFMAAVX512, DMAsmIGHostCopyAVX512},
#else
  {8, NULL, NULL, NULL},
#endif
};

/* built into the library (the compiler could) and run by this CPU (its CPUID and the OS's saved vector state, which
   __builtin_cpu_supports checks) */
static PetscBool IGHostHas(int isa)
{
  if (isa == 0) return PETSC_TRUE;
  if (isa < 0 || isa >= IG_NISA || !IGHost[isa].run) return PETSC_FALSE;
#if defined(ELLWARP_IG_HOST_AVX2) || defined(ELLWARP_IG_HOST_AVX512)
  __builtin_cpu_init();
  if (isa == 1) return (PetscBool)(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
  return (PetscBool)(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
#else
  return PETSC_FALSE;
#endif
}

static int IGHostWidest(void)
{
  int isa = IG_NISA - 1;
  while (!IGHostHas(isa)) isa--;
  return isa;
}

static PetscErrorCode CheckHostISA(PetscInt isa)
{
  PetscFunctionBegin;
  PetscCheck(isa < 0 || IGHostHas((int)isa), PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "DMAssemblyIntegration: host instruction set %s %s", DMAssemblyIntegrationHostISAs[isa], IGHost[isa].run ? "is not supported by this CPU" : "was not compiled into the library (not an x86-64 build, or the compiler lacks the flags)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

struct _n_DMAssemblyIntegration {
  DMPolytopeType               ct;
  int                          elem, prob;
  PetscInt                     ns, nq, ncoef;
  DMAsmIntegRef                R;
  PetscQuadrature              quad;
  DMAssemblyIntegrationVariant variant; /* as set (AUTO: searched) */
  PetscInt                     place;   /* device: shared-memory placement, -1 = searched */
  PetscInt                     block;   /* device: threads per block, 0 = searched */
  PetscInt                     hisa;    /* host: instruction set (IG_NISA), -1 = searched among those the CPU has */
  PetscInt                     hstore;  /* host: 0 regular, 1 streaming stores, -1 = searched */
  PetscInt                     hchunk;  /* host: vector groups per chunk of the staged loop, 0 = direct, -1 = searched (0 or IG_CHUNK) */
  double                      *hwork;   /* host: the chunk buffers of all threads (hworkn doubles, 64-byte aligned inside) */
  size_t                       hworkn;
  /* the choice in use and how it was made */
  PetscBool    tunedhost, tuneddev;
  int          hvar, hisac, hstorec, hchunkc, hstreamed, dvar, dplace, dblock;
  PetscBool    applied; /* a host Apply ran (hstreamed: whether its stores streamed) */
  PetscReal    hms[3][IG_NISA][4], dms[3][DMASM_IG_NPLACE][IG_NBLOCK]; /* the search's timings (ms; 0: not timed) */
  PetscInt     tunenelem;
  PetscInt     nthreads;
  PetscBool    view; /* -dm_assembly_integration_view: View after each search */
};

static PetscLogEvent DMASM_Integrate = 0;

/*@C
  DMAssemblyIntegrationCreate - the element integration of Banas et al. for a P1 `PetscFE` on tetrahedra or prisms

  Not Collective

  Input Parameters:
+ fe   - a scalar P1 Lagrange `PetscFE` on `DM_POLYTOPE_TETRAHEDRON` or `DM_POLYTOPE_TRI_PRISM` (gives the basis order)
- prob - `DMASSEMBLY_INTEGRATION_POISSON` or `DMASSEMBLY_INTEGRATION_CDR`

  Output Parameter:
. ig - the integration object

  Notes:
  The quadrature is the paper's: 4 points (degree 2) on the tetrahedron, 3 x 2 points (triangle degree 2 x Gauss) on
  the prism.  The element geometry is the P1 map of the vertices (closure order), i.e. the basis itself: the basis
  must be nodal at the reference vertices in closure order (checked).

  Level: intermediate

.seealso: `DMAssemblyIntegrationApply()`, `DMAssemblyIntegrationKernels()`
@*/
PetscErrorCode DMAssemblyIntegrationCreate(PetscFE fe, DMAssemblyIntegrationProblem prob, DMAssemblyIntegration *ig)
{
  DMAssemblyIntegration g;
  PetscDualSpace        sp;
  DM                    rdm, refdm;
  PetscInt              dim, nb, nc, ncx, nq;
  PetscBool             isDG;
  const PetscScalar    *arr;
  PetscScalar          *cx;
  PetscReal             v[6][3], *pts, *wts, vol;
  PetscTabulation       T;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(fe, PETSCFE_CLASSID, 1);
  PetscAssertPointer(ig, 3);
  PetscCheck(prob == DMASSEMBLY_INTEGRATION_POISSON || prob == DMASSEMBLY_INTEGRATION_CDR, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "DMAssemblyIntegration: unknown problem %d", (int)prob);
  PetscCall(DMAssemblyInitializePackage()); /* the class id of the event */
  if (!DMASM_Integrate) PetscCall(PetscLogEventRegister("DMAsmIntegrate", DMASSEMBLY_CLASSID, &DMASM_Integrate));
  PetscCall(PetscFEGetSpatialDimension(fe, &dim));
  PetscCall(PetscFEGetDimension(fe, &nb));
  PetscCall(PetscFEGetNumComponents(fe, &nc));
  PetscCall(PetscFEGetDualSpace(fe, &sp));
  PetscCall(PetscDualSpaceGetDM(sp, &refdm));
  PetscCall(PetscNew(&g));
  PetscCall(DMPlexGetCellType(refdm, 0, &g->ct));
  PetscCheck(dim == 3 && nc == 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssemblyIntegration: a scalar field in 3-D (got dim %" PetscInt_FMT ", %" PetscInt_FMT " components)", dim, nc);
  PetscCheck(g->ct == DM_POLYTOPE_TETRAHEDRON || g->ct == DM_POLYTOPE_TRI_PRISM, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssemblyIntegration: tetrahedra or prisms (DM_POLYTOPE_TRI_PRISM), got %s", DMPolytopeTypes[g->ct]);
  g->elem  = g->ct == DM_POLYTOPE_TETRAHEDRON ? DMASM_IG_TET : DMASM_IG_PRISM;
  g->prob  = (int)prob;
  g->ns    = g->elem == DMASM_IG_TET ? 4 : 6;
  g->nq    = g->ns;
  g->ncoef = prob == DMASSEMBLY_INTEGRATION_POISSON ? g->nq : DMASM_IG_NCDR;
  PetscCheck(nb == g->ns, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssemblyIntegration: first-order elements only (%s: %" PetscInt_FMT " basis functions, expected %" PetscInt_FMT ")", DMPolytopeTypes[g->ct], nb, g->ns);
  g->variant = DMASSEMBLY_INTEGRATION_AUTO;
  g->place   = -1;
  g->block   = 0;
  g->hisa    = -1;
  g->hstore  = -1;
#if defined(_OPENMP)
  g->nthreads = omp_get_max_threads();
#else
  g->nthreads = 1;
#endif

  /* the reference cell's vertices (closure order) and the paper's quadrature on it */
  PetscCall(DMPlexCreateReferenceCell(PETSC_COMM_SELF, g->ct, &rdm));
  PetscCall(DMPlexGetCellCoordinates(rdm, 0, &isDG, &ncx, &arr, &cx));
  PetscCheck(ncx == g->ns * 3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "reference cell: %" PetscInt_FMT " coordinates", ncx);
  for (PetscInt a = 0; a < g->ns; a++)
    for (PetscInt d = 0; d < 3; d++) v[a][d] = PetscRealPart(cx[a * 3 + d]);
  PetscCall(DMPlexRestoreCellCoordinates(rdm, 0, &isDG, &ncx, &arr, &cx));
  PetscCall(DMDestroy(&rdm));
  nq = g->nq;
  PetscCall(PetscMalloc1(nq * 3, &pts)); /* separate: the quadrature takes and frees them */
  PetscCall(PetscMalloc1(nq, &wts));
  if (g->elem == DMASM_IG_TET) {
    const PetscReal A = 0.5854101966249685, B = 0.1381966011250105;
    PetscReal       e1[3], e2[3], e3[3];
    for (PetscInt d = 0; d < 3; d++) {
      e1[d] = v[1][d] - v[0][d];
      e2[d] = v[2][d] - v[0][d];
      e3[d] = v[3][d] - v[0][d];
    }
    vol = PetscAbsReal(e1[0] * (e2[1] * e3[2] - e2[2] * e3[1]) - e1[1] * (e2[0] * e3[2] - e2[2] * e3[0]) + e1[2] * (e2[0] * e3[1] - e2[1] * e3[0])) / 6;
    for (PetscInt q = 0; q < 4; q++) {
      for (PetscInt d = 0; d < 3; d++) {
        pts[q * 3 + d] = 0;
        for (PetscInt a = 0; a < 4; a++) pts[q * 3 + d] += (a == q ? A : B) * v[a][d];
      }
      wts[q] = vol / 4;
    }
  } else { /* a right prism: bottom triangle 0,1,2, top = bottom + h */
    const PetscReal t[2] = {0.5 * (1 - 1 / PetscSqrtReal(3.0)), 0.5 * (1 + 1 / PetscSqrtReal(3.0))};
    PetscReal       h[3], e1[3], e2[3], n[3];
    for (PetscInt d = 0; d < 3; d++) {
      h[d]  = (v[3][d] + v[4][d] + v[5][d] - v[0][d] - v[1][d] - v[2][d]) / 3;
      e1[d] = v[1][d] - v[0][d];
      e2[d] = v[2][d] - v[0][d];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    vol  = PetscAbsReal(n[0] * h[0] + n[1] * h[1] + n[2] * h[2]) / 2;
    for (PetscInt l = 0; l < 2; l++)
      for (PetscInt i = 0; i < 3; i++) {
        const PetscInt q = l * 3 + i;
        for (PetscInt d = 0; d < 3; d++) {
          pts[q * 3 + d] = t[l] * h[d];
          for (PetscInt a = 0; a < 3; a++) pts[q * 3 + d] += (a == i ? 2.0 / 3 : 1.0 / 6) * v[a][d];
        }
        wts[q] = vol / 6;
      }
  }
  /* the basis must be nodal at the vertices in closure order: then sum_a x_a phi_a is the element map */
  {
    PetscReal vv[18];
    for (PetscInt a = 0; a < g->ns; a++)
      for (PetscInt d = 0; d < 3; d++) vv[a * 3 + d] = v[a][d];
    PetscCall(PetscFECreateTabulation(fe, 1, g->ns, vv, 0, &T));
    for (PetscInt a = 0; a < g->ns; a++)
      for (PetscInt b = 0; b < g->ns; b++) PetscCheck(PetscAbsReal(T->T[0][a * nb + b] - (a == b ? 1.0 : 0.0)) < 1e-12, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssemblyIntegration: basis function %" PetscInt_FMT " is not the nodal function of closure vertex %" PetscInt_FMT " (the geometry is the P1 map of the vertices)", b, a);
    PetscCall(PetscTabulationDestroy(&T));
  }
  PetscCall(PetscFECreateTabulation(fe, 1, nq, pts, 1, &T));
  for (PetscInt q = 0; q < nq; q++) {
    g->R.w[q] = wts[q];
    for (PetscInt a = 0; a < nb; a++) {
      g->R.phi[q][a] = T->T[0][q * nb + a];
      for (PetscInt k = 0; k < 3; k++) g->R.dphi[q][a][k] = T->T[1][(q * nb + a) * 3 + k];
    }
  }
  PetscCall(PetscTabulationDestroy(&T));
  PetscCall(PetscQuadratureCreate(PETSC_COMM_SELF, &g->quad));
  PetscCall(PetscQuadratureSetCellType(g->quad, g->ct));
  PetscCall(PetscQuadratureSetData(g->quad, 3, 1, nq, pts, wts)); /* takes pts, wts */
  *ig = g;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationSetFromOptions - reads the variant and the device tuning parameters

  Options Database Keys:
+ -dm_assembly_integration_variant <qss,sqs,ssq,auto> - loop order (auto: a one-time timed search on the first batch)
. -dm_assembly_integration_placement <reg,coef,phi,ae,reg128,reg64,auto> - device: the one array placed in shared memory (reg: none; reg128/reg64: none, registers capped)
. -dm_assembly_integration_block <n> - device: threads per block (64, 128, 256; 0: searched)
. -dm_assembly_integration_host_isa <base,avx2,avx512,auto> - host: the instruction set of the loop bodies (auto: searched among those the CPU has)
. -dm_assembly_integration_host_stores <regular,streaming,auto> - host: streaming (non-temporal) stores of A^e, b^e or not (auto: searched)
. -dm_assembly_integration_host_chunk <n> - host: n > 0: each thread integrates n vector groups of elements at a time through its own buffer, reading and writing the element streams one at a time; 0 (default): the element streams directly; -1: searched (direct or 8 groups)
- -dm_assembly_integration_view - `DMAssemblyIntegrationView()` after each search (what was chosen, the timings)

  Level: intermediate

.seealso: `DMAssemblyIntegrationSetVariant()`
@*/
PetscErrorCode DMAssemblyIntegrationSetFromOptions(DMAssemblyIntegration ig, const char prefix[])
{
  PetscInt          place = ig->place < 0 ? DMASM_IG_NPLACE : ig->place;
  PetscBool         set;
  const char *const pl[]  = {"reg", "coef", "phi", "ae", "reg128", "reg64", "auto"};
  const char *const isas[] = {"base", "avx2", "avx512", "auto"}, *const stores[] = {"regular", "streaming", "auto"};
  PetscInt          hisa = ig->hisa < 0 ? IG_NISA : ig->hisa, hstore = ig->hstore < 0 ? 2 : ig->hstore;

  PetscFunctionBegin;
  PetscOptionsBegin(PETSC_COMM_SELF, prefix, "DMAssembly element integration (Banas et al.)", "DMAssembly");
  PetscCall(PetscOptionsEnum("-dm_assembly_integration_variant", "Loop order", "DMAssemblyIntegrationSetVariant", DMAssemblyIntegrationVariants, (PetscEnum)ig->variant, (PetscEnum *)&ig->variant, NULL));
  PetscCall(PetscOptionsEList("-dm_assembly_integration_placement", "Device: the array placed in shared memory", "DMAssemblyIntegrationSetVariant", pl, DMASM_IG_NPLACE + 1, pl[place], &place, &set));
  PetscCall(PetscOptionsInt("-dm_assembly_integration_block", "Device: threads per block (64, 128, 256; 0: searched)", "DMAssemblyIntegrationSetVariant", ig->block, &ig->block, NULL));
  PetscCall(PetscOptionsEList("-dm_assembly_integration_host_isa", "Host: instruction set of the loop bodies (auto: searched among those the CPU has)", "DMAssemblyIntegrationSetHost", isas, IG_NISA + 1, isas[hisa], &hisa, NULL));
  PetscCall(PetscOptionsEList("-dm_assembly_integration_host_stores", "Host: regular or streaming (non-temporal) stores of the element data (auto: searched)", "DMAssemblyIntegrationSetHost", stores, 3, stores[hstore], &hstore, NULL));
  PetscCall(PetscOptionsInt("-dm_assembly_integration_host_chunk", "Host: vector groups of elements per chunk staged through a per-thread buffer (0: direct, -1: searched)", "DMAssemblyIntegrationSetFromOptions", ig->hchunk, &ig->hchunk, NULL));
  PetscCall(PetscOptionsBool("-dm_assembly_integration_view", "View the choice (and the search's timings) after each search", "DMAssemblyIntegrationView", ig->view, &ig->view, NULL));
  PetscOptionsEnd();
  ig->place  = place == DMASM_IG_NPLACE ? -1 : place;
  ig->hisa   = hisa == IG_NISA ? -1 : hisa;
  ig->hstore = hstore == 2 ? -1 : hstore;
  PetscCall(CheckHostISA(ig->hisa));
  PetscCheck(ig->hchunk >= -1 && ig->hchunk <= 4096, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-dm_assembly_integration_host_chunk: 0 (direct), 1 to 4096 vector groups or -1 (searched), got %" PetscInt_FMT, ig->hchunk);
  PetscCheck(ig->block == 0 || ig->block == 64 || ig->block == 128 || ig->block == 256, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-dm_assembly_integration_block: 64, 128, 256 or 0 (searched), got %" PetscInt_FMT, ig->block);
  ig->tunedhost = ig->tuneddev = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationSetVariant - sets the loop order and the device parameters

  Input Parameters:
+ ig      - the integration
. variant - `DMASSEMBLY_INTEGRATION_QSS`, `_SQS`, `_SSQ` or `_AUTO` (searched)
. place   - device: 0 registers only, 1 coefficients, 2 shape functions, 3 A^e/b^e in shared memory, 4/5 registers only
            capped at 128/64 per thread; -1 searched
- block   - device: threads per block 64, 128, 256; 0 searched

  Level: intermediate

.seealso: `DMAssemblyIntegrationTune()`
@*/
PetscErrorCode DMAssemblyIntegrationSetVariant(DMAssemblyIntegration ig, DMAssemblyIntegrationVariant variant, PetscInt place, PetscInt block)
{
  PetscFunctionBegin;
  PetscCheck(variant >= DMASSEMBLY_INTEGRATION_QSS && variant <= DMASSEMBLY_INTEGRATION_AUTO, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "unknown variant %d", (int)variant);
  PetscCheck(place >= -1 && place < DMASM_IG_NPLACE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "placement -1..%d, got %" PetscInt_FMT, DMASM_IG_NPLACE - 1, place);
  PetscCheck(block == 0 || block == 64 || block == 128 || block == 256, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "block 64, 128, 256 or 0, got %" PetscInt_FMT, block);
  ig->variant   = variant;
  ig->place     = place;
  ig->block     = block;
  ig->tunedhost = ig->tuneddev = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationGetVariant - the variant in use (after a search: the winner; before: as set)

  Output Parameters:
+ variant - host winner or the set variant (device: see `DMAssemblyIntegrationView()`)
. place   - device placement in use (-1 before a device search)
- block   - device threads per block (0 before a device search)

  Level: intermediate

.seealso: `DMAssemblyIntegrationSetVariant()`
@*/
PetscErrorCode DMAssemblyIntegrationGetVariant(DMAssemblyIntegration ig, DMAssemblyIntegrationVariant *variant, PetscInt *place, PetscInt *block)
{
  PetscFunctionBegin;
  if (variant) *variant = ig->tuneddev ? (DMAssemblyIntegrationVariant)ig->dvar : ig->tunedhost ? (DMAssemblyIntegrationVariant)ig->hvar : ig->variant;
  if (place) *place = ig->tuneddev ? ig->dplace : ig->place;
  if (block) *block = ig->tuneddev ? ig->dblock : ig->block;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationSetHost - sets the host back end's instruction set and store kind

  Not Collective

  Input Parameters:
+ ig    - the integration
. isa   - 0 base (the library's flags: any CPU; one element per call), 1 avx2 (AVX2 + FMA, 4 elements in the lanes of a
          vector), 2 avx512 (AVX-512 F/DQ/VL, 8 elements), -1 searched among those this CPU runs
- store - 0 regular stores, 1 streaming (non-temporal) stores of A^e and b^e (only where every store is a whole aligned
          vector: the arrays aligned to the vector and nelem a multiple of its lanes; else regular), -1 searched

  Notes:
  An instruction set the CPU (or this build of the library) does not have is an error
  (`DMAssemblyIntegrationHostISASupported()` tells).

  Level: advanced

.seealso: `DMAssemblyIntegrationSetVariant()`, `DMAssemblyIntegrationGetHost()`
@*/
PetscErrorCode DMAssemblyIntegrationSetHost(DMAssemblyIntegration ig, PetscInt isa, PetscInt store)
{
  PetscFunctionBegin;
  PetscCheck(isa >= -1 && isa < IG_NISA, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "host instruction set -1..%d, got %" PetscInt_FMT, IG_NISA - 1, isa);
  PetscCheck(store >= -1 && store <= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "host stores -1 (searched), 0 (regular), 1 (streaming), got %" PetscInt_FMT, store);
  PetscCall(CheckHostISA(isa));
  ig->hisa      = isa;
  ig->hstore    = store;
  ig->tunedhost = PETSC_FALSE;
  ig->applied   = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationGetHost - the host instruction set and store kind in use (after a host search: the winner)

  Not Collective

  Output Parameters:
+ isa   - index into `DMAssemblyIntegrationHostISAs` (-1: searched, not yet run)
- store - after a host `DMAssemblyIntegrationApply()`: 1 if its stores streamed, else 0 (streaming requested where it
          is impossible -- unaligned arrays, not AVX-512 -- gives 0); before: as set (-1: searched)

  Level: advanced

.seealso: `DMAssemblyIntegrationSetHost()`
@*/
PetscErrorCode DMAssemblyIntegrationGetHost(DMAssemblyIntegration ig, PetscInt *isa, PetscInt *store)
{
  PetscFunctionBegin;
  if (isa) *isa = ig->tunedhost ? ig->hisac : ig->hisa;
  if (store) *store = ig->applied ? ig->hstreamed : ig->tunedhost ? ig->hstorec : ig->hstore;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationGetHostChunk - the host element loop in use: direct, or chunked through per-thread buffers

  Not Collective

  Output Parameter:
. chunk - vector groups of elements per chunk (the vector instances; the scalar base one runs direct); 0 the direct loop; -1 searched and not yet run
          (`-dm_assembly_integration_host_chunk`)

  Level: advanced

.seealso: `DMAssemblyIntegrationSetFromOptions()`, `DMAssemblyIntegrationGetHost()`
@*/
PetscErrorCode DMAssemblyIntegrationGetHostChunk(DMAssemblyIntegration ig, PetscInt *chunk)
{
  PetscFunctionBegin;
  PetscAssertPointer(chunk, 2);
  *chunk = ig->hchunk >= 0 ? ig->hchunk : ig->tunedhost ? (ig->hchunkc ? IG_CHUNK : 0) : -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationHostISASupported - whether the host back end can run an instruction set here (compiled into
  the library and run by this CPU)

  Not Collective

  Input Parameter:
. isa - 0 base (always), 1 avx2, 2 avx512

  Output Parameter:
. has - the answer

  Level: advanced

.seealso: `DMAssemblyIntegrationSetHost()`
@*/
PetscErrorCode DMAssemblyIntegrationHostISASupported(PetscInt isa, PetscBool *has)
{
  PetscFunctionBegin;
  *has = IGHostHas((int)isa);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationGetSizes - shape functions, integration points and coefficients per element

  Level: intermediate

.seealso: `DMAssemblyIntegrationGetQuadrature()`
@*/
PetscErrorCode DMAssemblyIntegrationGetSizes(DMAssemblyIntegration ig, PetscInt *ns, PetscInt *nq, PetscInt *ncoef)
{
  PetscFunctionBegin;
  if (ns) *ns = ig->ns;
  if (nq) *nq = ig->nq;
  if (ncoef) *ncoef = ig->ncoef;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationGetQuadrature - the quadrature on PETSc's reference cell (borrowed; give it to a `PetscFE` with
  `PetscFESetQuadrature()` for a PETSc reference of the same integration)

  Level: intermediate

.seealso: `DMAssemblyIntegrationCreate()`
@*/
PetscErrorCode DMAssemblyIntegrationGetQuadrature(DMAssemblyIntegration ig, PetscQuadrature *q)
{
  PetscFunctionBegin;
  *q = ig->quad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationGetCounts - bytes and floating-point operations per element as the paper counts them
  (Tables 3-4: global memory words x 8 bytes; operations after loop-invariant motion and symmetry)

  Level: intermediate

.seealso: `DMAssemblyIntegrationGetSizes()`
@*/
PetscErrorCode DMAssemblyIntegrationGetCounts(DMAssemblyIntegration ig, DMAssemblyIntegrationVariant v, PetscLogDouble *bytes, PetscLogDouble *flops)
{
  PetscFunctionBegin;
  PetscCheck(v >= DMASSEMBLY_INTEGRATION_QSS && v <= DMASSEMBLY_INTEGRATION_SSQ, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "a loop order (qss, sqs, ssq)");
  if (bytes) *bytes = 8.0 * DMAsmIGWords[ig->elem][ig->prob];
  if (flops) *flops = DMAsmIGFlops[v][ig->elem][ig->prob];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the chunk size of the chunked host loop: as set, or the searched one */
static int HostChunk(DMAssemblyIntegration ig)
{
  return ig->hchunk > 0 ? (int)ig->hchunk : ig->hchunk < 0 ? IG_CHUNK : 0;
}

/* the host back end: the instance of the instruction set isa (dmasmintegratehost.c); sc: bit 0 streaming stores,
   bit 1 the chunked loop (HostChunk groups); returns whether the stores streamed */
static int HostRun(DMAssemblyIntegration ig, int var, int isa, int sc, int mode, PetscInt nelem, const PetscReal *xe, const PetscReal *coef, PetscInt cstride, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe)
{
  double *w = ig->hwork && (sc & 2) ? (double *)(((uintptr_t)ig->hwork + 63) / 64 * 64) : NULL;
  return IGHost[isa].run(&ig->R, ig->elem, ig->prob, var, mode, sc & 1, w ? HostChunk(ig) : 0, w, nelem, xe, coef, cstride, ue, ke, fe);
}

/* the chunked host loop's buffers (-dm_assembly_integration_host_chunk): for the widest vectors and today's thread
   count, kept between calls (allocated once: fresh pages every call would be faulted in every call) */
static PetscErrorCode HostWork(DMAssemblyIntegration ig)
{
  int    nt = 1;
  size_t n;

  PetscFunctionBegin;
  if (!ig->hchunk) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(_OPENMP)
  nt = omp_get_max_threads();
#endif
  n = (size_t)nt * DMASM_IG_CHUNK_WORDS * (size_t)HostChunk(ig) * 8 + 8;
  if (n > ig->hworkn) {
    PetscCall(PetscFree(ig->hwork));
    PetscCall(PetscMalloc1(n, &ig->hwork));
    ig->hworkn = n;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckArgs(DMAssemblyIntegration ig, DMAssemblyIntegrationOutput out, PetscInt nelem, PetscInt cstride, const PetscScalar ue[], PetscScalar ke[], PetscScalar fe[])
{
  PetscFunctionBegin;
  PetscCheck(nelem >= 0 && cstride >= nelem, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "DMAssemblyIntegration: coefficient stride %" PetscInt_FMT " < %" PetscInt_FMT " elements", cstride, nelem);
  PetscCheck(out != DMASSEMBLY_INTEGRATION_OUT_RES || (ue && fe), PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "DMAssemblyIntegration: the residual needs ue and fe");
  PetscCheck(out == DMASSEMBLY_INTEGRATION_OUT_RES || ke, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "DMAssemblyIntegration: no ke");
  PetscCheck(out != DMASSEMBLY_INTEGRATION_OUT_AB || fe, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "DMAssemblyIntegration: no fe for b^e");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationTune - the one-time timed search: on the host every loop order x instruction set (those this
  CPU runs; the scalar base only where it has no vector instruction set) x regular/streaming stores (streaming: AVX-512,
  aligned arrays) that is not fixed (OpenMP back end), on the device every loop order x shared-memory placement x
  block size that is not fixed; the fastest is kept (host: each candidate warmed up, then timed twice in each of 2
  rounds over all candidates, an untimed run before each pair; its median of 4 counts)

  Input Parameters:
+ ig      - the integration
. mtype   - where (`PETSC_MEMTYPE_HOST` or `PETSC_MEMTYPE_DEVICE`; the arrays must live there)
. out     - what is written
. nelem   - elements
. xe      - coordinates `[ns*3][nelem]`
. coef    - coefficients `[ncoef][cstride]`
. cstride - coefficient stride (>= nelem)
- ue      - element solution `[ns][nelem]` (residual only)

  Output Parameters:
+ ke - element matrices `[ns*ns][nelem]` (overwritten by the candidates)
- fe - element vectors `[ns][nelem]`

  Level: advanced

.seealso: `DMAssemblyIntegrationApply()`, `DMAssemblyIntegrationView()`
@*/
PetscErrorCode DMAssemblyIntegrationTune(DMAssemblyIntegration ig, PetscMemType mtype, DMAssemblyIntegrationOutput out, PetscInt nelem, const PetscReal xe[], const PetscReal coef[], PetscInt cstride, const PetscScalar ue[], PetscScalar ke[], PetscScalar fe[])
{
  const int v0 = ig->variant == DMASSEMBLY_INTEGRATION_AUTO ? 0 : (int)ig->variant, v1 = ig->variant == DMASSEMBLY_INTEGRATION_AUTO ? 2 : (int)ig->variant;

  PetscFunctionBegin;
  PetscCall(CheckArgs(ig, out, nelem, cstride, ue, ke, fe));
  ig->tunenelem = nelem;
  if (PetscMemTypeHost(mtype)) {
    const int i0 = ig->hisa < 0 ? 0 : (int)ig->hisa, i1 = ig->hisa < 0 ? IG_NISA - 1 : (int)ig->hisa;
    const int s0 = ig->hstore < 0 ? 0 : (int)ig->hstore, s1 = ig->hstore < 0 ? 1 : (int)ig->hstore;
    const int k0 = ig->hchunk < 0 ? 0 : ig->hchunk > 0, k1 = ig->hchunk < 0 ? 1 : ig->hchunk > 0; /* direct, chunked */
    PetscReal best = PETSC_MAX_REAL;
    int       cand[3 * IG_NISA * 4][3], nc = 0;
    PetscCall(CheckHostISA(ig->hisa));
    PetscCall(HostWork(ig));
    for (int v = 0; v < 3; v++)
      for (int i = 0; i < IG_NISA; i++)
        for (int sc = 0; sc < 4; sc++) ig->hms[v][i][sc] = 0;
    /* the candidates, each run once untimed (warm-up: first touch of the output pages, the instruction cache, and
       whether streaming stores are possible here) */
    for (int v = v0; v <= v1; v++)
      for (int i = i0; i <= i1; i++)
        for (int ch = k0; ch <= k1; ch++)
          for (int st = s0; st <= s1; st++) {
            int streamed;
            if (!IGHostHas(i)) continue;
            if (ig->hisa < 0 && i == 0 && IGHostWidest() > 0) continue; /* base (scalar) left out where vectors exist: 4-9x slower measured */
            if (ch && i == 0 && ig->hchunk < 0) continue;               /* the scalar instance has no chunked loop */
            streamed = HostRun(ig, v, i, st | ch << 1, (int)out, nelem, xe, coef, cstride, ue, ke, fe);
            if (st && !streamed && ig->hstore < 0) continue; /* streaming impossible here: the same as regular */
            cand[nc][0]   = v;
            cand[nc][1]   = i;
            cand[nc++][2] = st | ch << 1;
          }
    /* timed in 2 rounds over all candidates; in each round a candidate runs once untimed (its own cache state, the
       one the calls after the search will see: they repeat the chosen configuration) and twice timed; the median of
       its 4 timings is kept.  Why not the single fastest of 3 timings right after one warm-up (the search before): a
       configuration whose times spread (regular stores whose lines are or are not still in the cache) won on a lucky
       run, and the repeated calls after the search ran at its typical speed: on the GPU host its choice for the tets
       was timed 15-31 % slower than the best measured. */
    {
      PetscReal tm[3 * IG_NISA * 4][4];
      for (int r = 0; r < 2; r++)
        for (int c = 0; c < nc; c++) {
          const int v = cand[c][0], i = cand[c][1], st = cand[c][2];
          HostRun(ig, v, i, st, (int)out, nelem, xe, coef, cstride, ue, ke, fe);
          for (int k = 0; k < 2; k++) {
            PetscLogDouble t0, t1;
            PetscCall(PetscTime(&t0));
            HostRun(ig, v, i, st, (int)out, nelem, xe, coef, cstride, ue, ke, fe);
            PetscCall(PetscTime(&t1));
            tm[c][2 * r + k] = (PetscReal)(1e3 * (t1 - t0));
          }
        }
      for (int c = 0; c < nc; c++) {
        const int v = cand[c][0], i = cand[c][1], st = cand[c][2];
        PetscCall(PetscSortReal(4, tm[c]));
        ig->hms[v][i][st] = 0.5 * (tm[c][1] + tm[c][2]); /* the median of 4 */
        if (ig->hms[v][i][st] < best) {
          best        = ig->hms[v][i][st];
          ig->hvar    = v;
          ig->hisac   = i;
          ig->hstorec = st & 1;
          ig->hchunkc = st >> 1;
        }
      }
    }
    ig->tunedhost = PETSC_TRUE;
    PetscCall(PetscInfo(NULL, "DMAssemblyIntegration host search on %" PetscInt_FMT " elements: %s, %s, %s stores, %s loop (%g ms)\n", nelem, DMAssemblyIntegrationVariants[ig->hvar], DMAssemblyIntegrationHostISAs[ig->hisac], StoreNames[ig->hstorec], ig->hchunkc ? "chunked" : "direct", (double)best));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    const int p0 = ig->place < 0 ? 0 : (int)ig->place, p1 = ig->place < 0 ? DMASM_IG_NPLACE - 1 : (int)ig->place;
    PetscReal best = PETSC_MAX_REAL;
    for (int v = 0; v < 3; v++)
      for (int p = 0; p < DMASM_IG_NPLACE; p++)
        for (int b = 0; b < IG_NBLOCK; b++) ig->dms[v][p][b] = 0;
    for (int v = v0; v <= v1; v++)
      for (int p = p0; p <= p1; p++)
        for (int b = 0; b < IG_NBLOCK; b++) {
          PetscReal ms;
          if (ig->block && IGBlocks[b] != ig->block) continue;
          PetscCall(DMAsmIGCUDATime(&ig->R, ig->elem, ig->prob, v, p, IGBlocks[b], (int)out, nelem, xe, coef, cstride, ue, ke, fe, 3, &ms));
          ig->dms[v][p][b] = ms;
          if (ms < best) {
            best       = ms;
            ig->dvar   = v;
            ig->dplace = p;
            ig->dblock = IGBlocks[b];
          }
        }
    ig->tuneddev = PETSC_TRUE;
    PetscCall(PetscInfo(NULL, "DMAssemblyIntegration device search on %" PetscInt_FMT " elements: %s, placement %s, %d threads (%g ms)\n", nelem, DMAssemblyIntegrationVariants[ig->dvar], PlaceNames[ig->dplace], ig->dblock, (double)best));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "DMAssemblyIntegration: device memory, but built without CUDA");
#endif
  }
  if (ig->view) PetscCall(DMAssemblyIntegrationView(ig, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationApply - integrates nelem elements (host: OpenMP over elements; device: one CUDA launch)

  Input Parameters:
+ ig      - the integration
. mtype   - where the arrays live (and the kernel runs)
. out     - `DMASSEMBLY_INTEGRATION_OUT_AB` (A^e -> ke, b^e -> fe), `_JAC` (ke) or `_RES` (A^e u^e - b^e -> fe)
. nelem   - elements
. xe      - vertex coordinates `xe[(a*3+d)*nelem+e]` (closure order)
. coef    - coefficients `coef[k*cstride+e]`: Poisson: the source at point k; conv-diff: `c^{i;j}` at k = 4i+j, `d^i` at 16+i
. cstride - coefficient stride
- ue      - element solution `ue[a*nelem+e]` (residual only)

  Output Parameters:
+ ke - `ke[(a*ns+b)*nelem+e]`
- fe - `fe[a*nelem+e]`

  Notes:
  With a searched variant (auto) the first call runs `DMAssemblyIntegrationTune()` on its own arguments.

  Level: intermediate

.seealso: `DMAssemblyIntegrationCreate()`, `DMAssemblyIntegrationKernels()`
@*/
PetscErrorCode DMAssemblyIntegrationApply(DMAssemblyIntegration ig, PetscMemType mtype, DMAssemblyIntegrationOutput out, PetscInt nelem, const PetscReal xe[], const PetscReal coef[], PetscInt cstride, const PetscScalar ue[], PetscScalar ke[], PetscScalar fe[])
{
  PetscLogDouble flops;

  PetscFunctionBegin;
  PetscCall(CheckArgs(ig, out, nelem, cstride, ue, ke, fe));
  if (!nelem) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(DMASM_Integrate, 0, 0, 0, 0));
  if (PetscMemTypeHost(mtype)) {
    int v = (int)ig->variant, i = (int)ig->hisa, st = (int)ig->hstore, ch = ig->hchunk > 0;
    PetscCall(CheckHostISA(ig->hisa));
    PetscCall(HostWork(ig));
    if (ig->variant == DMASSEMBLY_INTEGRATION_AUTO || i < 0 || st < 0 || ig->hchunk < 0) {
      if (!ig->tunedhost) PetscCall(DMAssemblyIntegrationTune(ig, mtype, out, nelem, xe, coef, cstride, ue, ke, fe));
      v  = ig->hvar;
      i  = ig->hisac;
      st = ig->hstorec;
      ch = ig->hchunkc;
    }
    ig->hstreamed = HostRun(ig, v, i, st | ch << 1, (int)out, nelem, xe, coef, cstride, ue, ke, fe);
    ig->applied   = PETSC_TRUE;
    flops = DMAsmIGFlops[v][ig->elem][ig->prob];
    PetscCall(PetscLogFlops(flops * nelem));
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    int v = (int)ig->variant, p = (int)ig->place, b = (int)ig->block;
    if (ig->variant == DMASSEMBLY_INTEGRATION_AUTO || p < 0 || !b) {
      if (!ig->tuneddev) PetscCall(DMAssemblyIntegrationTune(ig, mtype, out, nelem, xe, coef, cstride, ue, ke, fe));
      v = ig->dvar;
      p = ig->dplace;
      b = ig->dblock;
    }
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(DMAsmIGCUDAApply(&ig->R, ig->elem, ig->prob, v, p, b, (int)out, nelem, xe, coef, cstride, ue, ke, fe));
    PetscCall(PetscLogGpuTimeEnd());
    flops = DMAsmIGFlops[v][ig->elem][ig->prob];
    PetscCall(PetscLogGpuFlops(flops * nelem));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "DMAssemblyIntegration: device memory, but built without CUDA");
#endif
  }
  PetscCall(PetscLogEventEnd(DMASM_Integrate, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationView - what was chosen and why (set, or the search's winner with its timings)

  Level: intermediate

.seealso: `DMAssemblyIntegrationTune()`
@*/
PetscErrorCode DMAssemblyIntegrationView(DMAssemblyIntegration ig, PetscViewer viewer)
{
  PetscFunctionBegin;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(PETSC_COMM_SELF, &viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "element integration (Banas et al.): %s, %s, %" PetscInt_FMT " shape functions, %" PetscInt_FMT " points (%s), %" PetscInt_FMT " coefficients per element\n", DMPolytopeTypes[ig->ct], ig->prob == DMASM_IG_POISSON ? "Poisson" : "conv-diff", ig->ns, ig->nq, ig->elem == DMASM_IG_TET ? "geo_linear" : "geo_generic", ig->ncoef));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (ig->hchunk < 0) PetscCall(PetscViewerASCIIPrintf(viewer, "host element loop: %s (-dm_assembly_integration_host_chunk -1: searched, direct or chunks of %d vector groups through per-thread buffers, each stream read and written one at a time)\n", ig->tunedhost ? (ig->hchunkc ? "chunked" : "direct") : "searched at the first call", IG_CHUNK));
  else if (ig->hchunk) PetscCall(PetscViewerASCIIPrintf(viewer, "host element loop: chunks of %" PetscInt_FMT " vector groups through per-thread buffers (-dm_assembly_integration_host_chunk; each stream read and written one at a time)\n", ig->hchunk));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "host element loop: direct (-dm_assembly_integration_host_chunk 0)\n"));
  if (ig->tunedhost) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "host (%" PetscInt_FMT " OpenMP threads; the CPU runs up to %s): %s, %s (%d elements per vector), %s stores%s: the fastest of the search on %" PetscInt_FMT " elements (ms; streaming only where the arrays are aligned to the vectors):\n", ig->nthreads, DMAssemblyIntegrationHostISAs[IGHostWidest()], DMAssemblyIntegrationVariants[ig->hvar], DMAssemblyIntegrationHostISAs[ig->hisac], IGHost[ig->hisac].lanes, StoreNames[ig->hstorec], ig->hstorec && !ig->hstreamed ? " (requested; the last call could not: unaligned)" : "", ig->tunenelem));
    for (int v = 0; v < 3; v++)
      for (int i = 0; i < IG_NISA; i++)
        for (int ch = 0; ch < 2; ch++)
          if (ig->hms[v][i][2 * ch] > 0 || ig->hms[v][i][2 * ch + 1] > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  %s %-6s%s: %.4g regular, %.4g streaming\n", DMAssemblyIntegrationVariants[v], DMAssemblyIntegrationHostISAs[i], ch ? " chunked" : "", (double)ig->hms[v][i][2 * ch], (double)ig->hms[v][i][2 * ch + 1]));
  } else
    PetscCall(PetscViewerASCIIPrintf(viewer, "host (%" PetscInt_FMT " OpenMP threads; the CPU runs up to %s): %s, %s, %s stores (auto: searched at the first call)\n", ig->nthreads, DMAssemblyIntegrationHostISAs[IGHostWidest()], DMAssemblyIntegrationVariants[ig->variant], ig->hisa < 0 ? "auto" : DMAssemblyIntegrationHostISAs[ig->hisa], ig->hstore < 0 ? "auto" : StoreNames[ig->hstore]));
  if (ig->tuneddev) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "device: %s, shared memory: %s, %d threads per block: the fastest of the search (ms per launch):\n", DMAssemblyIntegrationVariants[ig->dvar], PlaceNames[ig->dplace], ig->dblock));
    for (int v = 0; v < 3; v++)
      for (int p = 0; p < DMASM_IG_NPLACE; p++)
        if (ig->dms[v][p][0] > 0 || ig->dms[v][p][1] > 0 || ig->dms[v][p][2] > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  %s %-4s: %.4g %.4g %.4g (64/128/256 threads)\n", DMAssemblyIntegrationVariants[v], PlaceNames[p], (double)ig->dms[v][p][0], (double)ig->dms[v][p][1], (double)ig->dms[v][p][2]));
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "device: %s, shared memory %s, block %" PetscInt_FMT " (0/auto: searched at the first device call)\n", DMAssemblyIntegrationVariants[ig->variant], ig->place < 0 ? "auto" : PlaceNames[ig->place], ig->block));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationDestroy - destroys the integration

  Level: intermediate

.seealso: `DMAssemblyIntegrationCreate()`
@*/
PetscErrorCode DMAssemblyIntegrationDestroy(DMAssemblyIntegration *ig)
{
  PetscFunctionBegin;
  if (!*ig) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscQuadratureDestroy(&(*ig)->quad));
  PetscCall(PetscFree((*ig)->hwork));
  PetscCall(PetscFree(*ig));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the integration as the element kernels of a DMAssembly ---------------------------------------------------- */
typedef struct {
  DMAssemblyIntegration ig;
  PetscInt              nelem, ncoef;
  PetscReal            *coef;  /* [ncoef][nelem], cell order */
  PetscReal            *dcoef; /* the same on the device, uploaded at the first device call */
} IGKernelCtx;

static PetscErrorCode IGCtxDestroy(void **ctx)
{
  IGKernelCtx *c = (IGKernelCtx *)*ctx;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMAssemblyIntegrationDestroy(&c->ig));
  PetscCall(PetscFree(c->coef));
#if defined(ELLWARP_HAVE_CUDA)
  PetscCall(DMAsmCUDAFree((void **)&c->dcoef));
#endif
  PetscCall(PetscFree(c));
  *ctx = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode IGRun(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, PetscScalar *ke, PetscScalar *fe, IGKernelCtx *c)
{
  const PetscReal *coef = c->coef;

  PetscFunctionBegin;
  PetscCheck(e0 >= 0 && e0 + nelem <= c->nelem, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "DMAssemblyIntegration kernels: batch [%" PetscInt_FMT ", %" PetscInt_FMT ") outside the %" PetscInt_FMT " cells the coefficients were given for", e0, e0 + nelem, c->nelem);
  if (!PetscMemTypeHost(mtype)) {
#if defined(ELLWARP_HAVE_CUDA)
    if (!c->dcoef) {
      PetscCall(DMAsmCUDAMalloc((void **)&c->dcoef, sizeof(PetscReal) * c->ncoef * c->nelem));
      PetscCall(DMAsmCUDAUpload(c->dcoef, c->coef, sizeof(PetscReal) * c->ncoef * c->nelem));
    }
    coef = c->dcoef;
#endif
  }
  PetscCall(DMAssemblyIntegrationApply(c->ig, mtype, ke ? DMASSEMBLY_INTEGRATION_OUT_JAC : DMASSEMBLY_INTEGRATION_OUT_RES, nelem, xe, coef + e0, c->nelem, ue, ke, fe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode IGResidual(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *fe, void *ctx)
{
  PetscFunctionBegin;
  (void)ae;
  PetscCall(IGRun(mtype, e0, nelem, xe, ue, NULL, fe, (IGKernelCtx *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode IGJacobian(PetscMemType mtype, PetscInt e0, PetscInt nelem, const PetscReal *xe, const PetscScalar *ue, const PetscScalar *ae, PetscScalar *ke, void *ctx)
{
  PetscFunctionBegin;
  (void)ae;
  (void)ue;
  PetscCall(IGRun(mtype, e0, nelem, xe, NULL, ke, NULL, (IGKernelCtx *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationKernels - the element integration of Banas et al. as the element kernels of a `DMAssembly`
  (P1 tetrahedra or prisms): Jacobian A^e, residual A^e u^e - b^e

  Logically Collective

  Input Parameters:
+ as   - the assembler (its DM: one scalar P1 `PetscFE` on tetrahedra or prisms)
. prob - `DMASSEMBLY_INTEGRATION_POISSON` or `DMASSEMBLY_INTEGRATION_CDR`
- coef - host, cell-major `[ncells][ncoef]` in the DM's cell order (copied): Poisson: the source at the points of
         `DMAssemblyIntegrationGetQuadrature()` (ncoef = 4 tets, 6 prisms); conv-diff: c^{i;j} at 4i+j, d^i at 16+i (ncoef 20)

  Output Parameter:
. k - the kernels, to pass to `DMAssemblySetElementKernels()`; their context belongs to `as`

  Options Database Keys:
  see `DMAssemblyIntegrationSetFromOptions()` (read here, with the assembler's prefix)

  Notes:
  The kernels are user kernels to the assembler (the elements keep the mesh's cell order): globalnz, host, atomic
  and color reduce their element buffers; the chosen variant runs on the host (OpenMP) or the device like the
  assembler.  The Jacobian does not read the state (`DMAssemblySetJacobianUsesState(as, PETSC_FALSE)`).

  Level: intermediate

.seealso: `DMAssemblyIntegrationCreate()`, `DMAssemblySetElementKernels()`
@*/
PetscErrorCode DMAssemblyIntegrationKernels(DMAssembly as, DMAssemblyIntegrationProblem prob, const PetscReal coef[], DMAssemblyElementKernels *k)
{
  IGKernelCtx *c;
  PetscObject  obj;
  PetscClassId id;
  PetscInt     nf, cStart, cEnd;
  const char  *prefix;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(as, DMASSEMBLY_CLASSID, 1);
  PetscAssertPointer(coef, 3);
  PetscAssertPointer(k, 4);
  PetscCheck(!as->eperm, PETSC_COMM_SELF, PETSC_ERR_ORDER, "DMAssemblyIntegrationKernels: the assembler renumbered its elements for built-in kernels; create a new DMAssembly (per-element coefficients are in cell order)");
  PetscCall(DMGetNumFields(as->dm, &nf));
  PetscCheck(nf == 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssemblyIntegrationKernels: one field, got %" PetscInt_FMT, nf);
  PetscCall(DMGetField(as->dm, 0, NULL, &obj));
  PetscCall(PetscObjectGetClassId(obj, &id));
  PetscCheck(id == PETSCFE_CLASSID, PETSC_COMM_SELF, PETSC_ERR_SUP, "DMAssemblyIntegrationKernels: the field must be a PetscFE");
  PetscCall(PetscNew(&c));
  PetscCall(DMAssemblyIntegrationCreate((PetscFE)obj, prob, &c->ig));
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)as, &prefix));
  PetscCall(DMAssemblyIntegrationSetFromOptions(c->ig, prefix));
  PetscCall(DMPlexGetHeightStratum(as->dm, 0, &cStart, &cEnd));
  c->nelem = cEnd - cStart;
  c->ncoef = c->ig->ncoef;
  PetscCall(PetscMalloc1((size_t)c->ncoef * c->nelem, &c->coef));
  for (PetscInt e = 0; e < c->nelem; e++)
    for (PetscInt i = 0; i < c->ncoef; i++) c->coef[(size_t)i * c->nelem + e] = coef[(size_t)e * c->ncoef + i];
  if (as->ownctxdestroy) PetscCall((*as->ownctxdestroy)(&as->ownctx));
  as->ownctx        = c;
  as->ownctxdestroy = IGCtxDestroy;
  as->builtin       = NULL; /* user kernels to the assembler: no fused paths, cell order */
  as->hobuiltin     = NULL;
  PetscCall(DMAssemblySetJacobianUsesState(as, PETSC_FALSE));
  k->nen      = c->ig->ns;
  k->residual = IGResidual;
  k->jacobian = IGJacobian;
  k->ctx      = c;
  PetscCall(PetscInfo(as, "Element integration kernels: %s, %s\n", DMPolytopeTypes[c->ig->ct], DMAssemblyIntegrationProblems[prob]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationRooflineHost - the host roofline measured with the instructions of one host instruction set: the
  copy bandwidth with regular and with streaming stores (a copy of n doubles, bytes read + written per second, all
  OpenMP threads, static schedule: the placement of the element loop) and the FMA throughput (independent chains of
  vector fused multiply-adds; base: SSE2 multiply + add)

  Not Collective

  Input Parameters:
+ isa - 0 base, 1 avx2, 2 avx512, -1 the widest this CPU runs
- n   - doubles per copied array (well beyond the last-level cache)

  Output Parameters:
+ bwreg    - bytes per second, regular stores
. bwstream - bytes per second, streaming stores (the same as bwreg for base)
- flops    - floating-point operations per second

  Level: developer

.seealso: `DMAssemblyIntegrationRoofline()`
@*/
PetscErrorCode DMAssemblyIntegrationRooflineHost(PetscInt isa, PetscInt n, PetscReal *bwreg, PetscReal *bwstream, PetscReal *flops)
{
  double        *buf, *x, *y, best[2] = {1e30, 1e30}, sink = 0, fl = 0;
  const int      iters = 1 << 20;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  if (isa < 0) isa = IGHostWidest();
  PetscCall(CheckHostISA(isa));
  n = (n + 7) / 8 * 8;
  PetscCall(PetscMalloc1(2 * n + 16, &buf));
  x = (double *)(((uintptr_t)buf + 63) / 64 * 64); /* 64-byte aligned: the streaming copy's vectors */
  y = x + n;
#if defined(_OPENMP)
  #pragma omp parallel for schedule(static)
#endif
  for (PetscInt i = 0; i < n; i++) x[i] = y[i] = (double)i; /* first touch by the thread that copies it */
  for (int r = 0; r < 12; r++) {                              /* alternating, the first of each kind a warm-up */
    const int st = r % 2 && isa > 0;
    PetscCall(PetscTime(&t0));
    IGHost[isa].copy(n, x, y, st);
    PetscCall(PetscTime(&t1));
    if (r > 1) best[r % 2] = PetscMin(best[r % 2], t1 - t0);
  }
  *bwreg    = 2.0 * sizeof(double) * n / best[0];
  *bwstream = 2.0 * sizeof(double) * n / best[1];
  best[0]   = 1e30;
  for (int r = 0; r < 3; r++) {
    PetscCall(PetscTime(&t0));
    fl = IGHost[isa].fma(iters, &sink);
    PetscCall(PetscTime(&t1));
    best[0] = PetscMin(best[0], t1 - t0);
  }
  *flops = fl / best[0];
  if (sink == 12345.678) *flops = 0; /* keeps the chains alive */
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  DMAssemblyIntegrationRoofline - measures the bound the integration is compared with: the copy bandwidth (a copy of n
  doubles, bytes read + written per second) and the FMA throughput (independent FMA chains, 2 flops each), on the host
  (all OpenMP threads, the widest instruction set this CPU runs: `DMAssemblyIntegrationRooflineHost()`, the copy the
  faster of regular and streaming stores) or on the device (CUDA kernels)

  Not Collective

  Input Parameters:
+ mtype - `PETSC_MEMTYPE_HOST` or `PETSC_MEMTYPE_DEVICE`
- n     - doubles per copied array (well beyond the last-level cache)

  Output Parameters:
+ bw    - bytes per second
- flops - floating-point operations per second

  Level: developer

.seealso: `DMAssemblyIntegrationGetCounts()`
@*/
PetscErrorCode DMAssemblyIntegrationRoofline(PetscMemType mtype, PetscInt n, PetscReal *bw, PetscReal *flops)
{
  PetscFunctionBegin;
  if (PetscMemTypeHost(mtype)) {
    PetscReal bwreg, bwstream;
    PetscCall(DMAssemblyIntegrationRooflineHost(-1, n, &bwreg, &bwstream, flops));
    *bw = PetscMax(bwreg, bwstream); /* the best this machine's cores copy at */
  } else {
#if defined(ELLWARP_HAVE_CUDA)
    PetscCall(DMAsmIGCUDARoofline(n, bw, flops));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "built without CUDA");
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Private data of DMAssembly (src/dm/assembly).  See src/dm/assembly/README.md for the plan layout. */
#pragma once

#include <petscellwarpassembly.h>
#include <petscellwarp.h> /* MatGetAssemblyTarget(): the only way the assembler reaches a matrix's storage */
#include <petsc/private/petscimpl.h>
#include <petscellwarp/private/tunelist.h>

/* color: the colours with fewer elements than this (the "tail": a mesh with a high-valence node, like the LV
   apex, needs at least that many colours, most of them tiny) are not launched one by one; their elements go
   through a packed by-nonzero reduction (globalnz's) that runs first and writes every target, then the big
   colours add to it: a fixed order, a handful of launches */
#define DMASM_COLOR_TAIL 8192

/* threads per block of the packed reduction; the plan is packed for this block size */
#define DMASM_BLOCK 128

/* A packed reduction plan (Cecka, Lew, Darve, section 4.2.3) for one target value array.
   Block b owns the contiguous targets [b*C, min((b+1)*C, ntarget)) (C = targets per block).  Its lists
   are spread over DMASM_BLOCK threads with LPT (longest list first, to the least loaded thread) and stored
   column-major: entry s of thread t at packed[blkptr[b] + s*DMASM_BLOCK + t].  Entry i > 0: add
   src[i-1]; i < 0: the sum so far belongs to target b*C + (~i) and restarts at 0; 0: padding.  Each
   target is summed by one thread in the list order (element order): bitwise reproducible. */
typedef struct {
  PetscCount  ntarget;  /* length of the target value array */
  PetscInt    C;        /* targets per block */
  PetscInt    nblocks;
  PetscCount *blkptr;   /* [nblocks+1] */
  PetscBool   idx64;    /* 64-bit entries (sources can pass 2^31) */
  int        *p32;      /* host packed plan (one of the two) */
  PetscInt64 *p64;
  PetscInt   *e2t;      /* [ncontrib] target of each source entry, for atomic/color (-1: none) */
  PetscCount  nsrc;     /* length of the source array (nen^2 nelem or nen nelem) */
  /* device copies */
  void       *dpacked;
  PetscCount *dblkptr;
  int        *dorder;   /* device: blocks by decreasing height (launch order) */
  PetscInt   *de2t;
  /* what it was built for: the matrix and its assembly-target state (MatGetAssemblyTarget) */
  PetscObjectId    id;
  PetscObjectState state;
  PetscBool        slots;  /* target order: the matrix's value slots (else CSR / dof order) */
} DMAsmPlan;

/* The localrow plan (dmasmlocalrow.c): one thread per row, a warp per 32 rows (for ELLWARP: the rows of a
   slice, in the layout's order).  Thread l of warp w walks the elements touching its row in element order,
   entry s at inc[wptr[w] + s*32 + l] = e*nen + a (a: the row's node in e; -1 padding); for the Jacobian its
   nen targets at tgt[wptr[w]*nen + (s*nen + b)*32 + l].  Each target is written by one thread, contributions
   in element order: the same order as globalnz. */
typedef struct {
  PetscInt         nwarps, nen;
  PetscCount       ntarget;
  PetscCount      *wptr;
  int             *inc;
  PetscInt        *tgt, *rowof;
  PetscCount      *dwptr;
  int             *dinc;
  PetscInt        *dtgt, *drowof;
} DMAsmRowPlan;

/* The sharednz plan (dmasmshared.c; Cecka, Lew, Darve, section 4.2.4): block b owns the contiguous targets
   [tb[b], tb[b+1]) of the target array (grown by chunks of 32 targets while its data fit the shared-memory
   budget).  Its elements belem[eb[b] .. eb[b+1]) (every element contributing to one of its targets, in
   increasing order; elements on a block border are computed by each block they touch) and its nodes
   bnode[nb[b] .. nb[b+1]) (the scatter array: nodal coordinates and values are loaded once per block into
   shared memory); bloc[nen*eb[b] + a*ne + i] is the local node of node a of block element i.  Only the
   element rows some target of the block needs are kept in shared memory (incidences: row a of block element
   i at islot[...], w = nper/nen values each), so a border element costs its needed rows only.  Target t's
   contributions are the 16-bit shared-memory offsets lo[lb[b] + toff[t] ...] (c*ninc + j) up to the next
   target's start (or the block's end), in element order: each target is summed by one thread in the order
   globalnz uses (bitwise equal to it on the host).

   Positions and ranges (-dm_assembly_shared_partition): the blocks are contiguous ranges [tb[b], tb[b+1]) of
   POSITIONS in a walk order of the targets; toff is indexed by position.  Block b's positions map to targets
   through its ranges rb[b] .. rb[b+1]: range r covers the positions [rp[r], rp[r+1]) and the targets
   rt[r] + (p - rp[r]).  The contiguous partition walks the targets in order (one range per block, rt = rp = tb);
   the METIS partition (dmasmsharedmetis.c) walks coalesced units (ELLWARP lane groups of a slice, CSR rows, 32 residual dofs)
   part by part, so a block stores a few 32-wide coalesced runs. */
typedef enum {
  DMASM_SHPART_CONTIGUOUS,
  DMASM_SHPART_METIS
} DMAsmSharedPartition;

typedef struct {
  PetscInt         nblocks, nper, nen;
  PetscCount       ntarget;
  PetscCount      *tb, *eb, *nb, *lb;
  PetscInt         nranges, *rb;  /* [nblocks+1] block b's ranges */
  PetscCount      *rp, *rt;       /* [nranges+1] range start positions, [nranges] range start targets */
  DMAsmSharedPartition partition; /* how the walk order was made */
  PetscInt         nunits, nparts, nsplit; /* METIS: units partitioned, parts, parts split over several blocks */
  PetscReal        fill;          /* METIS: the parts' element rows as a fraction of the budget */
  PetscLogDouble   setuptime, metistime; /* seconds: the whole plan, METIS's part of it (graph + partition) */
  PetscInt        *belem, *bnode;
  unsigned short  *bloc, *lo;
  unsigned short  *islot;     /* [nen*eb[nb]]: incidence (shared row) of node a of block element i, 0xFFFF: row not needed */
  int             *ninc;      /* [nblocks] incidences of block b */
  int             *toff;
  size_t           smem;      /* the largest block's shared memory, bytes */
  PetscBool        fallback;  /* some chunk of 32 targets alone exceeds the budget: globalnz takes this target */
  PetscCount      *dtb, *deb, *dnb, *dlb;
  PetscInt        *dbelem, *dbnode;
  unsigned short  *dbloc, *dlo, *dislot;
  int             *dninc;
  int             *dtoff;
  PetscInt        *drb;
  PetscCount      *drp, *drt;
} DMAsmSharedPlan;

/* sharednz: the target at walk position p of a block whose ranges are r0 .. r1-1 (binary search; the
   contiguous plan has one range per block).  Host reference and CUDA kernel share it. */
#if defined(__CUDACC__)
__host__ __device__
#endif
static inline PetscCount DMAsmSharedTarget(PetscInt r0, PetscInt r1, const PetscCount *rp, const PetscCount *rt, PetscCount p)
{
  PetscInt lo = r0, hi = r1 - 1;
  while (lo < hi) {
    const PetscInt mid = (lo + hi + 1) / 2;
    if (rp[mid] <= p) lo = mid;
    else hi = mid - 1;
  }
  return rt[lo] + (p - rp[lo]);
}

/* the built-in P1 kernels' context (dmasmkernels.c) */
typedef struct {
  PetscInt   dim, nelem;
  PetscReal  alpha, beta, source;
  PetscReal *D, *dD; /* entry-major [dim*dim][nelem] conductivities, host and (at the first device use) device; NULL: identity */
  PetscReal *dDs;    /* sharednz: the upper triangles [dim(dim+1)/2][nelem] on the device when D is exactly symmetric (2/3 of the bytes) */
  PetscBool  symchecked;
} DMAsmP1Ctx;

/* The position of column c among the sorted columns ja[lo..hi] of a CSR row, -1 where it is absent: the search of an
   element entry in its row of the target, one code for the host plans and the device kernels (PatternToTarget, the
   kiran owner plan and its host reference) */
#if defined(__CUDACC__)
  #define DMASM_ROW_HD __host__ __device__
#else
  #define DMASM_ROW_HD
#endif
static DMASM_ROW_HD inline PetscInt DMAsmFindColumn(const PetscInt *ja, PetscInt lo, PetscInt hi, PetscInt c)
{
  while (lo <= hi) {
    const PetscInt mid = lo + (hi - lo) / 2;
    if (ja[mid] < c) lo = mid + 1;
    else if (ja[mid] > c) hi = mid - 1;
    else return mid;
  }
  return -1;
}

/* What a type (a method) does, set by its constructor (dmasmtypes.c) through DMAssemblySetType().  The generic code
   (dmasmcompute.c, dmasmmpi.c) reaches the method only through these. */
typedef struct _DMAssemblyOps *DMAssemblyOps;
struct _DMAssemblyOps {
  /* element data src (nper entries per element) -> the plan's ntarget values dst */
  PetscErrorCode (*reduce)(DMAssembly, const DMAsmPlan *, PetscInt, const PetscScalar *, PetscScalar *);
  /* the element computed inside the type's own kernel (no element data in memory) for this Jacobian (PETSC_TRUE)
     or residual assembly: fusedactive says whether it applies (kernels, options, budget), fused runs it */
  PetscBool (*fusedactive)(DMAssembly, PetscBool);
  PetscErrorCode (*fused)(DMAssembly, PetscBool, const PetscScalar *, PetscScalar *);
  PetscErrorCode (*view)(DMAssembly, PetscViewer); /* the method's line of DMAssemblyView() */
  PetscErrorCode (*setup)(DMAssembly);              /* after the mesh, colouring and residual plan: the type's checks and own plans */
  /* the Jacobian plan from q2t (element entry -> position in the target block's value array); hasjacplan: one exists */
  PetscErrorCode (*jacplan)(DMAssembly, const MatAssemblyBlock *, const PetscInt *);
  /* the same from a device q2t, for a set-up on the device (DMAsmSetUpOnDevice; NULL: the type's plan is built on
     the host from a host q2t) */
  PetscErrorCode (*jacplandevice)(DMAssembly, const MatAssemblyBlock *, const PetscInt *);
  PetscBool (*hasjacplan)(DMAssembly);
  /* the Jacobian plan from the target block's rows and the method's own adjacency, without the element-entry map
     (e2nz, q2t: nen^2 entries an element, which on the largest meshes exceed the PetscInt range and the device's
     memory).  Called first where set; *done = PETSC_FALSE: not for this method's strategy (or it fell back), so the
     generic code builds q2t and calls jacplan/jacplandevice */
  PetscErrorCode (*jacplanrows)(DMAssembly, const MatAssemblyBlock *, PetscBool *);
  PetscBool (*mpisupported)(DMAssembly); /* runs on a distributed DM with these kernels and options (NULL: no) */
  PetscErrorCode (*setfromoptions)(DMAssembly, PetscOptionItems); /* the type's own options, inside DMAssemblySetFromOptions()'s block */
  PetscErrorCode (*getinfo)(DMAssembly, DMAssemblyInfo *);         /* the type's plan statistics (DMAssemblyGetInfo()) */
  PetscErrorCode (*destroy)(DMAssembly);                            /* frees as->data: the type's own state (and composed functions) */
};

/* -dm_assembly_tune key=value[,key=value...] (dmassembly.c): developer knobs that never change a default, parsed
   once by DMAssemblySetFromOptions() (the shared parser of tunelist.h); the generic code and each type read their
   keys with DMAsmTuneGet*() */
typedef PetscEllwarpTuneList DMAsmTune;


struct _p_DMAssembly {
  PETSCHEADER(struct _DMAssemblyOps);
  DM                       dm;
  PetscBool                hostonly;  /* the type runs on the host whatever the device (set by its constructor) */
  DMAssemblyElementKernels k;
  PetscBool                kset;
  PetscBool                jacstate;  /* the Jacobian kernel reads ue (else no gather before it: linear problems) */
  PetscBool                nodal;     /* the kernels read the nodal state themselves (DMAssemblySetNodalState): no ue/ae */
  PetscBool                nodalactive;        /* inside such a callback: nodalu/nodala are the arrays it may read */
  const PetscScalar       *nodalu, *nodala;
  Vec                      aux;
  PetscBool                setupcalled;
  PetscMemType             mtype;     /* where the gather, callbacks and reductions run */
  PetscBool                nodevice;  /* a device method runs on the host because no CUDA device is usable */
  void                    *data;      /* the type's own state (DMAssembly_SharedNZ, _LocalRow, _Atomic, _Color), from its constructor */
  DMAsmTune                tune;      /* -dm_assembly_tune */
  PetscInt                 nzpt;      /* targets per thread of the packed reduction (C = nzpt * DMASM_BLOCK; tune nz_per_thread) */
  PetscBool                force64;   /* 64-bit plan entries even where 32 bits fit (tests the 64-bit path; tune index64) */
  PetscBool                setuphost; /* -dm_assembly_setup_on_host: pattern and plans built on the host even for a device method */
  /* mesh, built once */
  PetscInt   nelem, nen, dim, ndof, cStart;
  PetscInt  *edof;   /* [nen][nelem] global dof of node a of element e */
  PetscReal *xe;     /* [nen*dim][nelem] element coordinates */
  PetscInt  *pi, *pj; /* element-connectivity CSR pattern (ndof rows) */
  PetscCount nnz;
  PetscInt  *e2nz;   /* [nen*nen][nelem] CSR nonzero of element entry (a,b); read through DMAsmEntryMap() (built at its first use
                        where the pattern came from the vertices) */
  PetscInt   bs;     /* > 1: a vector field with vertex-major dofs whose pattern was built from the vertices (DMAsmBuildBlockPattern): */
  PetscInt  *bpi;    /* [ndof/bs + 1] the vertex pattern's rows, and */
  PetscInt  *be2nz;  /* [nvert*nvert][nelem] its nonzero of each element vertex pair; e2nz follows from them */
  DMAsmPlan  jac, res; /* types with plans of their own (sharednz, localrow) keep only the key of their Jacobian plan in jac */
  PetscBool  reorder;      /* built-in kernels: elements numbered by their lowest dof (DMAsmReorderElements) */
  PetscInt  *eperm;        /* [nelem] assembler element -> mesh cell - cStart (NULL: identity) */
  void      *phase[4];     /* bench/diagnostics: CUDA events at the phase boundaries (DMAssemblySetPhaseTiming) */
  PetscBool  timephases;
  int        phasen;       /* events recorded in the last assembly */
  PetscInt   njacplans, nreductions;
  PetscObjectId    cooid;    /* a matrix without an assembly target: the one whose COO pattern is set, */
  PetscObjectState coostate; /* at this nonzero state (DMAsmJacobianCOO) */
  /* working buffers in the execution memory */
  PetscScalar *ue, *ae, *fe, *ke;
  PetscReal   *dxe;     /* device copy of xe (== xe on the host) */
  PetscInt    *dedof;
  /* context of the built-in kernels, owned */
  DMAsmP1Ctx *builtin; /* the kernels set are the built-in ones (k.ctx == builtin) */
  void *ownctx;
  PetscErrorCode (*ownctxdestroy)(void **);
  /* distributed DMPlex (dmasmmpi.c; unused on one process).  Nodes are the local (ghosted) vector's dofs:
     edof holds local-vector offsets, ndof their number; rows are this rank's owned dofs only. */
  PetscBool  mpi;
  PetscInt   nown, rstart;  /* owned rows, first global row */
  PetscInt  *l2row;         /* [ndof] local dof -> owned row (-1: ghost) */
  PetscInt  *l2g;           /* [ndof] local dof -> global row (pattern columns) */
  DMAsmPlan  jacB;          /* MPI matrices: the plan of the off-diagonal block (jac: the diagonal block's) */
  Vec        uloc, aloc;    /* ghosted copies of U and of the auxiliary vector (DMGlobalToLocal) */
  PetscObjectId    locid[2];    /* the global vectors the ghosted copies were last filled from, */
  PetscObjectState locstate[2]; /* and their states then (the same state: no new ghost exchange) */
  /* elements beyond the fused P1 path (dmasmho.c): Lagrange P1..P5 triangles, P2 tets, Q1 quads/hexes */
  PetscInt    nvert;     /* vertices per element: the coordinates in xe (== nen for P1) */
  PetscInt    ncomp;     /* field components (vector Lagrange P1/Q1: the dofs of a vertex are consecutive, nen = nvert*ncomp) */
  PetscBool   p1;        /* the P1 simplex the fused kernels (sharednz, localrow, fused atomic/color) are made for */
  char        ename[32]; /* "P3 triangles", "Q1 hexahedra", ... (View) */
  struct _DMAsmHOCtx *hobuiltin; /* the built-in kernels of DMAssemblyLagrangeKernels() (k.ctx == hobuiltin) */
  /* locality ordering of the DM's dofs (dmasmordering.c): what was asked and what the renumbering gave */
  DMAssemblyOrdering ordering;    /* applied to the DM's local section (DMASSEMBLY_ORDERING_NONE: the DM's own) */
  PetscInt           ordwindow;   /* ELLWARP order: rows per sorted window */
  PetscReal          ordstat[4];  /* local rows: median column span per 32 rows and bandwidth, before and after */
};

/* The types' own state (as->data): each struct is allocated by its type's constructor, set by its
   setfromoptions and setup, freed by its destroy.  The other types carry none of it. */

/* atomic and color (the scatter types) share the fused scatter of dmasmcompute.c; their data begin with this */
typedef struct {
  PetscBool fuse; /* built-in kernels: the element computed inside the scatter, no element data in memory (-dm_assembly_fuse) */
} DMAsmScatter;

/* color (dmasmcolor.c): the greedy element colouring, computed by its set-up only */
typedef struct {
  DMAsmScatter sc;
  PetscInt     colortail;                    /* colours smaller than this form the tail (tune color_tail, default DMASM_COLOR_TAIL) */
  PetscInt     ncolors;
  PetscInt    *colptr, *colelem;             /* elements of colour c: colelem[colptr[c] .. colptr[c+1]) */
  PetscInt    *dcolelem;                     /* colelem in the execution memory (== colelem on the host) */
  PetscInt     ntail, *tailelem, *dtailelem; /* elements of the colours smaller than colortail, increasing */
  DMAsmPlan    jtail, rtail;                 /* packed reduction plans of the tail elements only (run first, write every target) */
} DMAssembly_Color;

/* atomic (dmasmatomic.c): the variant of the fused P1 Jacobian and its plan (include/petscellwarp/private/dmasmatomic.h) */
typedef struct {
  DMAsmScatter           sc;
  PetscInt               variant; /* DMAsmAtomicVariant (tune atomic_variant) */
  PetscInt               maxcode; /* largest entry code of the compact map (tune atomic_maxcode: smaller forces irregular elements) */
  PetscBool              stats;   /* address statistics in the plan and View (tune atomic_stats: they triple the plan's set-up) */
  struct _DMAsmFastPlan *fast;
} DMAssembly_Atomic;

/* sharednz (dmasmshared.c, dmasmsharedmetis.c) */
typedef struct {
  PetscInt             smem;     /* shared-memory budget per block, bytes (-dm_assembly_sharednz_smem, kB) */
  DMAsmSharedPartition part;     /* -dm_assembly_shared_partition contiguous|metis */
  PetscInt             seed;     /* tune metis_seed: METIS's random seed (fixed: the same plan every run) */
  PetscInt             lanes;    /* tune metis_lanes: an ELLWARP unit is this many lanes of a slice (32: the slice) */
  PetscInt             csrmin;   /* tune metis_csr_min: a CSR unit takes consecutive rows until it holds this many values */
  PetscReal            fill;     /* tune metis_fill: a METIS part's element rows as a fraction of the budget (0: estimated) */
  PetscBool            fallback; /* user kernels or not the P1 simplex: globalnz runs instead (stated in -info and View) */
  PetscReal           *xn, *dxn; /* nodal coordinates [ndof][dim], host and execution memory */
  DMAsmSharedPlan      jsh, rsh; /* Jacobian (its key in as->jac) and residual block plans */
} DMAssembly_SharedNZ;

/* localrow (dmasmlocalrow.c) */
typedef struct {
  DMAsmRowPlan jrow, rrow; /* Jacobian (its key in as->jac) and residual row plans */
} DMAssembly_LocalRow;

/* the built-in Lagrange kernels' context (dmasmho.c; the element is include/petscellwarp/private/dmasmho.h) */
typedef struct _DMAsmHOCtx {
  PetscInt   dim, nen, nvert, nq, degree;
  PetscBool  tensor;            /* Q1 quadrature element (else the affine simplex with reference matrices) */
  PetscReal  alpha, beta, source;
  PetscReal  D[9];              /* constant symmetric conductivity */
  PetscBool  hasD;              /* else identity */
  PetscReal  A[9];              /* simplices: the canonical reference cell -> PETSc's (an axis permutation) */
  PetscInt   nref;
  PetscReal *ref, *dref;        /* reference data (host; device copy at the first device use) */
} DMAsmHOCtx;

PETSC_INTERN PetscErrorCode DMAsmBuildElementMapHO(DMAssembly);
PETSC_INTERN PetscErrorCode DMAsmHOFused(DMAssembly, const DMAssembly_Color *, const DMAsmPlan *, PetscBool, const PetscScalar *, PetscScalar *);
PETSC_INTERN void           DMAsmHostHOElement(const DMAsmHOCtx *, PetscInt, const PetscReal *, const PetscScalar *, PetscScalar *, PetscScalar *);
#if defined(ELLWARP_HAVE_CUDA)
PETSC_INTERN PetscErrorCode DMAsmCUDAHOFused(const DMAsmHOCtx *, PetscInt, const PetscInt *, PetscInt, const PetscReal *, const PetscScalar *, const PetscInt *, PetscBool, const PetscInt *, PetscBool, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode DMAsmCUDAHOElement(const DMAsmHOCtx *, PetscInt, const PetscReal *, const PetscScalar *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode DMAsmCUDALocalNZHO(const DMAsmHOCtx *, const DMAsmPlan *, PetscBool, PetscInt, const PetscReal *, const PetscScalar *, const PetscInt *, PetscScalar *);
PETSC_INTERN PetscErrorCode DMAsmHOCtxDevice(DMAsmHOCtx *);
#endif

/* CUDA side (dmasmcuda.cu); plain-C references of the same logic are in dmasmhost.c */
#if defined(ELLWARP_HAVE_CUDA)
PETSC_INTERN PetscErrorCode DMAsmCUDAAvailable(PetscBool *);
PETSC_INTERN PetscErrorCode DMAsmCUDAMalloc(void **, size_t);
PETSC_INTERN PetscErrorCode DMAsmCUDAFree(void **);
PETSC_INTERN PetscErrorCode DMAsmCUDAUpload(void *, const void *, size_t);
PETSC_INTERN PetscErrorCode DMAsmCUDAZero(PetscScalar *, PetscCount);
PETSC_INTERN PetscErrorCode DMAsmCUDAGather(PetscInt, PetscInt, const PetscInt *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode DMAsmCUDAReduce(const DMAsmPlan *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode DMAsmCUDALocalNZ(const DMAsmP1Ctx *, const DMAsmPlan *, PetscBool, PetscInt, const PetscReal *, const PetscScalar *, const PetscInt *, PetscScalar *);
PETSC_INTERN PetscErrorCode DMAsmCUDAScatterAtomic(PetscCount, const PetscInt *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode DMAsmCUDAScatterColor(PetscInt, const PetscInt *, PetscInt, PetscInt, const PetscInt *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode DMAsmCUDAP1Diffusion(PetscInt, PetscInt, PetscReal, PetscReal, PetscReal, const PetscReal *, PetscInt, const PetscReal *, const PetscScalar *, PetscScalar *, PetscScalar *);
#endif

PETSC_INTERN PetscErrorCode DMAsmP1CtxDevice(DMAsmP1Ctx *);
PETSC_INTERN PetscErrorCode DMAsmP1CtxDeviceSym(DMAsmP1Ctx *);
#if defined(ELLWARP_HAVE_CUDA)
PETSC_INTERN PetscErrorCode DMAsmCUDAP1Fused(const DMAsmP1Ctx *, PetscInt, const PetscInt *, PetscInt, const PetscReal *, const PetscScalar *, const PetscInt *, PetscBool, const PetscInt *, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode DMAsmCUDAP1FusedStore(const DMAsmP1Ctx *, PetscInt, const PetscInt *, PetscInt, const PetscReal *, const PetscScalar *, const PetscInt *, PetscBool, const PetscInt *, PetscBool, PetscScalar *, PetscScalar *);
#endif
PETSC_INTERN void DMAsmHostP1Fused(const DMAsmP1Ctx *, PetscInt, const PetscInt *, PetscInt, const PetscReal *, const PetscScalar *, const PetscInt *, PetscBool, const PetscInt *, PetscScalar *);
PETSC_INTERN void DMAsmHostP1FusedStore(const DMAsmP1Ctx *, PetscInt, const PetscInt *, PetscInt, const PetscReal *, const PetscScalar *, const PetscInt *, PetscBool, const PetscInt *, PetscScalar *, PetscScalar *);

PETSC_INTERN PetscErrorCode DMAsmBuildRowPlan(DMAssembly, PetscBool, const PetscInt *, PetscCount, DMAsmRowPlan *);
PETSC_INTERN PetscErrorCode DMAsmRowPlanDestroy(DMAsmRowPlan *);
PETSC_INTERN void           DMAsmHostLocalRow(const DMAsmP1Ctx *, const DMAsmRowPlan *, PetscInt, const PetscReal *, const PetscScalar *, const PetscInt *, PetscScalar *);
#if defined(ELLWARP_HAVE_CUDA)
PETSC_INTERN PetscErrorCode DMAsmCUDALocalRow(const DMAsmP1Ctx *, const DMAsmRowPlan *, PetscInt, const PetscReal *, const PetscScalar *, const PetscInt *, PetscScalar *);
#endif

PETSC_INTERN PetscErrorCode DMAsmBufGrow(void **, size_t, PetscCount, PetscCount *); /* dmasmshared.c: a growing array's room for one more */
PETSC_INTERN PetscErrorCode DMAsmBuildSharedPlan(DMAssembly, PetscInt, PetscCount, const PetscInt *, PetscCount, const PetscCount *, const PetscCount *, DMAsmSharedPlan *);
PETSC_INTERN PetscErrorCode DMAsmSharedOrderMETIS(DMAssembly, PetscInt, PetscCount, const PetscCount *, const PetscCount *, PetscCount, const PetscCount *, const PetscCount *, PetscCount **, PetscInt *, PetscCount **, PetscInt *, PetscReal *);
PETSC_INTERN PetscErrorCode DMAsmSharedPlanDestroy(DMAsmSharedPlan *);
PETSC_INTERN PetscErrorCode DMAsmSharedPlanUpload(DMAsmSharedPlan *);
PETSC_INTERN PetscErrorCode DMAsmHostShared(const DMAsmP1Ctx *, const DMAsmSharedPlan *, PetscInt, const PetscReal *, const PetscScalar *, PetscScalar *);
#if defined(ELLWARP_HAVE_CUDA)
PETSC_INTERN PetscErrorCode DMAsmCUDAShared(const DMAsmP1Ctx *, const DMAsmSharedPlan *, PetscInt, const PetscReal *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode DMAsmCUDAPhaseRecord(DMAssembly);
PETSC_INTERN PetscErrorCode DMAsmCUDAPhaseTimes(DMAssembly, PetscReal[3]);
PETSC_INTERN PetscErrorCode DMAsmCUDAPhaseDestroy(DMAssembly);
#endif

/* host references */
PETSC_INTERN void DMAsmHostGather(PetscInt, PetscInt, const PetscInt *, const PetscScalar *, PetscScalar *);
PETSC_INTERN void DMAsmHostReduce(const DMAsmPlan *, const PetscScalar *, PetscScalar *);
PETSC_INTERN void DMAsmHostLocalNZ(const DMAsmP1Ctx *, const DMAsmPlan *, PetscBool, PetscInt, const PetscReal *, const PetscScalar *, const PetscInt *, PetscScalar *);
PETSC_INTERN void DMAsmHostLocalNZHO(const DMAsmHOCtx *, const DMAsmPlan *, PetscBool, PetscInt, const PetscReal *, const PetscScalar *, const PetscInt *, PetscScalar *);
PETSC_INTERN void DMAsmHostScatter(PetscCount, const PetscInt *, const PetscScalar *, PetscScalar *);
PETSC_INTERN void DMAsmHostScatterColor(PetscInt, const PetscInt *, PetscInt, PetscInt, const PetscInt *, const PetscScalar *, PetscScalar *);
PETSC_INTERN void DMAsmHostP1Diffusion(PetscInt, PetscInt, PetscReal, PetscReal, PetscReal, const PetscReal *, PetscInt, const PetscReal *, const PetscScalar *, PetscScalar *, PetscScalar *);

/* plan construction (dmasmplan.c) */
PETSC_INTERN PetscErrorCode DMAsmBuildMesh(DMAssembly);
PETSC_INTERN PetscErrorCode DMAsmCellType(DM, PetscInt, PetscInt, PetscInt, DMPolytopeType *); /* without the cell-type label where it can */
PETSC_INTERN PetscErrorCode DMAsmElements(DMAssembly, Vec, Vec, PetscBool);
PETSC_INTERN PetscErrorCode DMAsmBuildPattern(DMAssembly, PetscInt, const PetscInt *, const PetscInt *, PetscInt);
PETSC_INTERN PetscErrorCode DMAsmBuildBlockPattern(DMAssembly, PetscBool *);
PETSC_INTERN PetscErrorCode DMAsmEntryMap(DMAssembly, const PetscInt **);
PETSC_INTERN PetscErrorCode DMAsmElementMatrices(DMAssembly, PetscScalar **);
PETSC_INTERN PetscErrorCode DMAsmP1ElementMap(DMAssembly, PetscSection, PetscBool, PetscInt);
PETSC_INTERN PetscErrorCode DMAsmBuildPlan(DMAssembly, PetscInt, PetscCount, const PetscInt *, DMAsmPlan *);
PETSC_INTERN PetscErrorCode DMAsmPlanDestroy(DMAsmPlan *);
PETSC_INTERN PetscErrorCode DMAsmPlanUpload(DMAsmPlan *);
PETSC_INTERN PetscErrorCode DMAsmPlanUploadOrder(DMAsmPlan *);
/* set-up on the device (dmasmsetupcuda.cu): the same pattern and packed plans as the host builders above, which
   are their references.  Used on one process when the method runs on the device (-dm_assembly_setup_on_host: the
   host builders instead) */
static inline PetscBool DMAsmSetUpOnDevice(DMAssembly as)
{
  return (PetscBool)(as->mtype == PETSC_MEMTYPE_DEVICE && !as->mpi && !as->setuphost);
}
#if defined(ELLWARP_HAVE_CUDA)
PETSC_INTERN PetscErrorCode DMAsmCUDABuildPattern(PetscInt, PetscInt, PetscInt, const PetscInt *, PetscInt **, PetscInt **, PetscCount *, PetscInt **);
PETSC_INTERN PetscErrorCode DMAsmCUDAElementTargets(PetscInt, PetscCount, const PetscInt *, const PetscInt *, const PetscInt *, const MatAssemblyBlock *, PetscInt **);
PETSC_INTERN PetscErrorCode DMAsmCUDABuildPlan(PetscInt, PetscInt, PetscCount, const PetscInt *, PetscInt, PetscBool, DMAsmPlan *);
#endif
PETSC_INTERN PetscErrorCode DMAsmColor(DMAssembly, DMAssembly_Color *);
PETSC_INTERN PetscErrorCode DMAsmReorderElements(DMAssembly);
PETSC_INTERN PetscErrorCode DMAsmBuildTailPlan(DMAssembly, const DMAssembly_Color *, PetscInt, PetscCount, const PetscInt *, DMAsmPlan *);
PETSC_INTERN PetscErrorCode DMAsmP1CtxPermute(DMAsmP1Ctx *, const PetscInt *);

/* operations shared by several types (dmasmcompute.c, dmasmtypes.c); each type's own are static in its file */
PETSC_INTERN PetscErrorCode DMAsmReducePacked(DMAssembly, const DMAsmPlan *, PetscInt, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode DMAsmJacPlanPacked(DMAssembly, const MatAssemblyBlock *, const PetscInt *);
PETSC_INTERN PetscErrorCode DMAsmJacPlanPackedDevice(DMAssembly, const MatAssemblyBlock *, const PetscInt *);
PETSC_INTERN PetscBool      DMAsmFusedActiveAlways(DMAssembly, PetscBool);
PETSC_INTERN PetscBool      DMAsmFusedActiveScatter(DMAssembly, PetscBool);
PETSC_INTERN PetscErrorCode DMAsmFusedScatter(DMAssembly, const DMAssembly_Color *, const DMAsmPlan *, PetscBool, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode DMAsmSetFromOptionsScatter(DMAssembly, DMAsmScatter *, PetscOptionItems);
PETSC_INTERN PetscErrorCode DMAsmViewScatter(DMAssembly, const DMAsmScatter *, PetscViewer);
PETSC_INTERN PetscErrorCode DMAsmSetFuse_Scatter(DMAssembly, PetscBool); /* DMAssemblySetFuse_C of atomic and color */
PETSC_INTERN PetscErrorCode DMAsmViewMethod(DMAssembly, PetscViewer, const char *);
/* the built-in kernels are set: the P1 ones, or either */
static inline PetscBool DMAsmBuiltinP1(DMAssembly as)
{
  return (PetscBool)(as->builtin && as->k.ctx == (void *)as->builtin);
}
static inline PetscBool DMAsmBuiltinAny(DMAssembly as)
{
  return (PetscBool)(DMAsmBuiltinP1(as) || (as->hobuiltin && as->k.ctx == (void *)as->hobuiltin));
}
/* -dm_assembly_tune (dmassembly.c): the value of a key where it is given (else *v unchanged), marked used */
PETSC_INTERN PetscErrorCode DMAsmTuneGetInt(DMAssembly, const char[], PetscInt, PetscInt, PetscInt *);
PETSC_INTERN PetscErrorCode DMAsmTuneGetReal(DMAssembly, const char[], PetscReal, PetscReal, PetscReal *);
PETSC_INTERN PetscErrorCode DMAsmTuneGetBool(DMAssembly, const char[], PetscBool *);
PETSC_INTERN PetscErrorCode DMAsmTuneGetEList(DMAssembly, const char[], const char *const[], PetscInt, PetscInt *);
PETSC_INTERN PetscErrorCode DMAssemblyCreate_GlobalNZ(DMAssembly);
PETSC_INTERN PetscErrorCode DMAssemblyCreate_Host(DMAssembly);
PETSC_INTERN PetscErrorCode DMAssemblyCreate_Atomic(DMAssembly);
PETSC_INTERN PetscErrorCode DMAssemblyCreate_Color(DMAssembly);
PETSC_INTERN PetscErrorCode DMAssemblyCreate_SharedNZ(DMAssembly);
PETSC_INTERN PetscErrorCode DMAssemblyCreate_LocalNZ(DMAssembly);
PETSC_INTERN PetscErrorCode DMAssemblyCreate_LocalRow(DMAssembly);
PETSC_INTERN PetscErrorCode DMAssemblyCreate_Kiran(DMAssembly); /* dmasmkiran.c (hex8 elasticity, Kiran et al.) */
PETSC_INTERN PetscFunctionList DMAssemblyList;

/* distributed DMPlex (dmasmmpi.c) */
PETSC_INTERN PetscErrorCode DMAsmJacobianCOO(DMAssembly, Mat); /* a matrix without an assembly target: ke through MatSetValuesCOO */
PETSC_INTERN PetscErrorCode DMAsmReducePlan(DMAssembly, const DMAsmPlan *, PetscInt, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode DMAsmBuildMeshMPI(DMAssembly);
PETSC_INTERN PetscErrorCode DMAsmCheckScalarFE(DM, PetscInt *, PetscInt *, PetscInt *); /* dmasmplan.c: one scalar PetscFE field on a 2-D/3-D mesh */
PETSC_INTERN PetscErrorCode DMAsmCheckP1(DM, PetscInt, PetscInt, PetscInt);              /* and scalar P1 simplices */
PETSC_INTERN PetscErrorCode DMAsmMPIBuildResidualPlan(DMAssembly);
PETSC_INTERN PetscErrorCode DMAsmMPIComputeResidual(DMAssembly, Vec, Vec);
PETSC_INTERN PetscErrorCode DMAsmMPIComputeJacobian(DMAssembly, Vec, Mat);
PETSC_INTERN PetscErrorCode DMAsmMPIView(DMAssembly, PetscViewer);
PETSC_INTERN PetscErrorCode DMAsmOrderingView(DMAssembly, PetscViewer); /* dmasmordering.c: the ordering line of DMAssemblyView() */
PETSC_INTERN PetscErrorCode DMAsmMPIDestroy(DMAssembly);

/* The ELL-WARP layout, shared by the host reference kernels and the CUDA kernels.

   Slots of slice s occupy [sliceptr[s], sliceptr[s+1]): a column-major block of ELLWARP_LANES lanes by
   width w = (sliceptr[s+1]-sliceptr[s])/ELLWARP_LANES.  A slice holds the sorted rows
   [slicerow[s], slicerow[s+1]); each row owns tpr = 1 << (meta[s] & 15) consecutive lanes (tpr = 1: K1,
   tpr > 1: K2).  Entry e of the q-th row of the slice sits at lane q*tpr + e%tpr, step e/tpr, so
   neighbouring lanes of one row read neighbouring columns.  A slice's columns are stored in one of three modes:
     - 16-bit offsets from the lane's own row (col16, meta bit 4), when every entry lies within +-32767 of its row;
     - 16-bit offsets from the lane's row plus a bias per entry position (meta bits 4 and 5: col16 and colbias):
       lattice matrices (QCD) whose neighbours lie far from the row, but at nearly the same distance for
       neighbouring rows.  Entry e of each of the slice's rows (step e >> l2, lane j = e & (tpr - 1) of its row)
       has column = row + colbias[biasbase[s] + e] + offset, the bias being the midpoint of the span of
       (col - row) over the slice's rows at position e; chosen when every span is at most ELLWARP_BIAS_SPAN and
       the slice has at most 1 << ELLWARP_BIAS_MAXL2 lanes per row (tpr biases per step: 4 tpr / 32 bytes per
       slot, so 10 + tpr / 8 bytes per slot against 12 for 32-bit columns);
     - 16-bit codes into a dictionary of column windows of the slice (meta bits 4 and 6: col16 and colbias): users'
       numberings (a refined gmsh mesh in DMPlex's order) whose rows span the whole matrix, in a few clusters each.
       The slice's columns fall into nwin <= ELLWARP_DICT_MAX aligned windows of 1 << ELLWARP_DICT_SHIFT columns
       (ids col >> ELLWARP_DICT_SHIFT, sorted); colbias[biasbase[s] + i] = id_i << ELLWARP_DICT_SHIFT, and a slot's
       code is (i << ELLWARP_DICT_SHIFT) | (col & mask): column = colbias[biasbase[s] + (code >> shift)] + (code & mask),
       codes read as unsigned 16 bits, ELLWARP_DICT_PAD for padding.  10 bytes per slot + 4 per window; chosen where
       neither 16-bit mode above fits, the windows fit, every row's columns are sorted, and it saves bytes;
     - 32-bit columns (col32) otherwise.
   The analysis prefers the first, then the second (-mat_ellwarp_tune compress_bias), then the dictionary
   (-mat_ellwarp_tune compress_dict), then 32 bits.  Padding
   (col -1 / ELLWARP_PAD16, value 0) is never multiplied: an Inf or NaN in x must not leak into rows that
   do not reference it.  The few rows too long for a warp follow the slices (see nlong below). */
#pragma once

#include <petscellwarp.h>

#define ELLWARP_LANES 32

typedef struct {
  PetscInt       nrows, ncols, nslices;
  PetscCount     nnz, nslots;
  PetscCount     nsliceslots; /* slots of the slices (= sliceptr[nslices]); the long rows' follow: a scalar, so host code
                                 never needs the arrays for it (a device analysis leaves them on the device) */
  PetscCount    *sliceptr; /* [nslices+1] slots of slice s: [sliceptr[s], sliceptr[s+1]) */
  PetscInt      *slicerow; /* [nslices+1] sorted rows of slice s */
  unsigned char *meta;     /* [nslices] bits 0-3: log2 lanes per row; bit 4: 16-bit columns; bit 5: with a bias per entry position; bit 6: dictionary codes */
  PetscCount    *colbase;  /* [nslices] where slice s's columns start in col16 or col32 */
  int           *col32;    /* 32-bit columns, -1 for padding */
  short         *col16;    /* columns as offsets from the lane's own row, ELLWARP_PAD16 for padding */
  PetscCount     ncol32, ncol16;
  PetscCount    *biasbase; /* [nslices] where slice s's biases start in colbias: the biases of the slices before s (only biased slices have any) */
  int           *colbias;  /* [ncolbias] biased slice s: w << l2 biases, one per entry position of its rows; dictionary slice s: its nwin window bases */
  PetscCount     ncolbias;
  PetscInt      *rowperm;  /* [nrows] sorted position -> original row */
  PetscInt      *slot2csr; /* [nslots] CSR entry, -1 for padding */
  PetscCount    *diagslot; /* [nrows] slot of (i,i) for original row i, -1 if not stored */
  PetscInt       ndiagmissing;
  PetscInt       nactive;  /* slices up to the last one holding entries: an in-place y += A x skips the rest
                              (zero-length rows add nothing; most rows of MATMPIELLWARP's off-diagonal block) */
  /* rows too long for one warp: the first nlong sorted rows, stored contiguously after the slices
     (32-bit columns at col32 + longcolbase) and summed in chunks of ELLWARP_CHUNK entries, one thread
     block each; the block that finishes a row's last chunk adds the row's chunk sums in chunk order */
  PetscInt       nlong, nchunks;
  PetscCount    *longptr;  /* [nlong+1] slots of long row i */
  PetscInt      *longchunk; /* [nlong+1] chunks of long row i */
  PetscCount    *chunkptr; /* [nchunks+1] slots of chunk c */
  PetscInt      *chunkrow; /* [nchunks] long row (0..nlong-1) of chunk c */
  PetscCount     longcolbase;
  /* what the analysis chose and saw */
  MatEllwarpKernel kernel;
  PetscInt         threshold, sortwindow, longrow, nsplit, n16, maxrowlen, minrowlen;
  PetscInt         nbias;            /* of the n16 slices with 16-bit columns, those with a bias per entry position (meta bit 5) */
  PetscInt         ndict;            /* of the n16 slices with 16-bit columns, those with dictionary codes (meta bit 6) */
  PetscInt         blocksize;        /* threads per CUDA block the chooser picked (-mat_ellwarp_tune block_size overrides) */
  PetscReal        meanrowlen, stdrowlen;
  PetscBool        analysedondevice; /* built by the device analysis (ellwarpanalysis.h) */
  PetscBool        hostarrays;       /* the arrays above are on the host: always after the host analysis;
                                        after the device analysis once EllwarpLayoutFetchCUDA() ran; never
                                        test host code on the arrays without MatSeqELLWARPLayoutOnHost() */
} EllwarpLayout;

#define ELLWARP_PAD16     (-32768)
#define ELLWARP_BIAS_SPAN 65534 /* a position's max - min of (col - row) with which every offset from the midpoint fits in [-32767, 32767] */
#define ELLWARP_BIAS_MAXL2 3    /* biased slices have at most 8 lanes per row (16 would move as many bytes as 32-bit columns) */
#define ELLWARP_CHUNK     2048
#define ELLWARP_DICT_SHIFT 9            /* dictionary slices: windows of 512 columns, 7 bits of the code pick one of at most 128 */
#define ELLWARP_DICT_MAX   128
#define ELLWARP_DICT_PAD   ((short)-1) /* code 0xffff: never a column (window 127 must not hold column offset 511) */

typedef struct {
  MatEllwarpKernel kernel;     /* AUTO lets the analysis choose */
  PetscInt         threshold;  /* 0: automatic */
  PetscInt         sortwindow; /* -1: automatic; 0: whole matrix; else a multiple of ELLWARP_LANES */
  PetscInt         longrow;    /* rows longer than this go to the chunked path; 0: automatic, <0: never */
  PetscBool        compress;   /* 16-bit column offsets in slices where they fit */
  PetscBool        compressbias; /* with compress: 16-bit offsets from (row + a bias per entry position of the slice) in slices where row-relative ones do not fit */
  PetscBool        compressdict; /* with compress: 16-bit codes into a dictionary of column windows in slices where neither of the above fits */
  PetscInt         analysis;   /* where the pattern analysis runs: -1 automatic (device with the cuda backend), 0 device, 1 host */
  PetscBool        unbatched;  /* the products run MultKernel's step loop on any rows (a -mat_ellwarp_tune key excludes MultKernelB:
                                  EllwarpTuneUnbatched), so the schedule model takes that kernel's step (layout.c, SimulateWhole) */
} EllwarpParams;

/* ---- the a-priori choice from a summary of the row lengths (layout.c), shared by both analyses ---- */
#define ELLWARP_NCAND    9 /* automatic thresholds, plus a requested one */
#define ELLWARP_MAX_RUNS 6 /* lane counts 1..32: a whole-matrix sort has at most one run of slices per count */

typedef struct {
  PetscInt   T;
  PetscCount nslots;
  PetscInt   maxwidth, nslices, nsplit;
} EllwarpWalk; /* the slices a sort window and threshold T give */

typedef struct {
  PetscInt    nrows, longrow, nlong, minlen, maxlen, maxshort; /* maxshort: longest row that is not long */
  PetscCount  nnz, nnzshort, nchunks;                          /* nnzshort: entries of rows that are not long */
  PetscInt64  sum2;                                            /* sum of squared row lengths (integer: exact on every backend) */
  PetscCount *hist;                                            /* [maxshort+1] rows that are not long, by length */
  PetscInt    window;                                          /* > 0: walk[] holds this sort window's walks */
  PetscInt    nwalk;
  EllwarpWalk walk[ELLWARP_NCAND];                             /* per threshold of EllwarpLayoutCandidates() */
} EllwarpRowStats;

typedef struct {
  PetscInt         W, T, blocksize;
  MatEllwarpKernel kernel;
  EllwarpWalk      walk;
} EllwarpPlan;

typedef struct {
  PetscCount start;      /* sorted position (counted after the long rows) of the run's first slice */
  PetscCount count;      /* slices, each 32 >> l2 rows */
  PetscInt   l2, firstslice;
} EllwarpRun;

PETSC_EXTERN PetscInt       EllwarpLayoutLongRow(const EllwarpParams *, PetscInt, PetscCount, PetscInt64); /* from the moments of the row lengths (m = 0: not known yet) */
PETSC_EXTERN PetscInt       EllwarpLayoutWalkWindow(const EllwarpParams *, PetscInt, PetscCount, PetscInt64);
PETSC_EXTERN PetscErrorCode EllwarpLayoutCandidates(const EllwarpParams *, PetscInt *, PetscInt[]);
PETSC_EXTERN PetscErrorCode EllwarpLayoutChoose(const EllwarpRowStats *, const EllwarpParams *, EllwarpPlan *);
PETSC_EXTERN PetscErrorCode EllwarpLayoutWholeRuns(const EllwarpRowStats *, PetscInt, PetscInt *, EllwarpRun[]);
PETSC_EXTERN PetscErrorCode EllwarpRowStatsDestroy(EllwarpRowStats *);
PETSC_EXTERN void           EllwarpLayoutSetPlanned(EllwarpLayout *, PetscInt, PetscInt, const EllwarpRowStats *, const EllwarpPlan *);

/* The bias of an entry position whose rows' (col - row) lie in [mn, mx] (mn <= mx): the midpoint, rounded down;
   every offset then fits in [-32767, 32767] iff mx - mn <= ELLWARP_BIAS_SPAN.  Both analyses use this. */
#if defined(__CUDACC__)
__host__ __device__
#endif
static inline int EllwarpBiasOf(int mn, int mx)
{
  return (int)((long long)mn + (((long long)mx - (long long)mn) >> 1));
}

/* Dictionary slices (meta bit 6): the column of code (the slot's col16 entry, any integer type holding its 16 bits,
   read as unsigned 16 bits; not ELLWARP_DICT_PAD), table = colbias + biasbase[s] the slice's window bases:
   table[u >> ELLWARP_DICT_SHIFT] + (u & mask).  The one decode of the host reference (EllwarpSliceCol) and the CUDA
   kernels (seq/ellwarpmultcuda.cu: MultKernel, MultKernelV; seq/ellwarpopscuda.cu: SLICE_LANE_PROLOGUE).  ldg (device
   code only): the table through the read-only data cache (__ldg: the products, whose slice table stays in L1 over the
   steps), else a plain load; host code loads plainly.
   Why a template in C++: the code's type is the caller's (MultKernel's unsigned short, MultKernelV's sign-extended int),
   and the conversion to unsigned short happens here, so each kernel compiles to the integer operations it had with the
   decode written out (16-bit shift and mask; MultKernelV: 32-bit mask and shift).  With a fixed parameter type the
   callee is simplified before it is inlined and one of them changes; C (the host files) sees a plain function. */
#if defined(__cplusplus)
template <typename EllwarpDictCode>
#else
typedef unsigned short EllwarpDictCode;
#endif
#if defined(__CUDACC__)
__host__ __device__
#endif
static inline int EllwarpDictCol(const int *table, EllwarpDictCode code, int ldg)
{
  const unsigned short u = (unsigned short)code;
  const int           *p = table + (u >> ELLWARP_DICT_SHIFT);
#if defined(__CUDA_ARCH__)
  return (ldg ? __ldg(p) : *p) + (int)(u & ((1u << ELLWARP_DICT_SHIFT) - 1));
#else
  (void)ldg;
  return *p + (int)(u & ((1u << ELLWARP_DICT_SHIFT) - 1));
#endif
}

/* column of the slot at offset off inside slice s, for the lane whose (original) row is row */
static inline int EllwarpSliceCol(const EllwarpLayout *L, PetscInt s, PetscCount off, PetscInt row)
{
  if (L->meta[s] & 16) {
    short d = L->col16[L->colbase[s] + off];
    if (L->meta[s] & 64) { /* dictionary code */
      if (d == ELLWARP_DICT_PAD) return -1;
      return EllwarpDictCol(L->colbias + L->biasbase[s], (unsigned short)d, 0);
    }
    if (d == ELLWARP_PAD16) return -1;
    if (L->meta[s] & 32) { /* entry position (off / 32) << l2 + (lane & (tpr - 1)) */
      const int l2 = L->meta[s] & 15;
      return (int)(row + L->colbias[L->biasbase[s] + ((off / ELLWARP_LANES) << l2) + ((off % ELLWARP_LANES) & ((1 << l2) - 1))] + d);
    }
    return (int)(row + d);
  }
  return L->col32[L->colbase[s] + off];
}

/* Analysis: builds the pattern part of the layout (val stays NULL) from a CSR pattern.
   perm_in, when given, maps each CSR entry to the index of its value in the value array that refresh
   reads (used for the transpose, whose CSR is a permutation of the matrix's own entries). */
PETSC_EXTERN PetscErrorCode EllwarpLayoutCreate(PetscInt, PetscInt, const PetscInt[], const PetscInt[], const PetscInt[], const EllwarpParams *, EllwarpLayout **);
PETSC_EXTERN PetscErrorCode EllwarpLayoutDestroy(EllwarpLayout **);
/* the scalars of a layout, without its arrays (hostarrays = false): what a device analysis leaves on the host */
PETSC_EXTERN PetscErrorCode EllwarpLayoutScalars(const EllwarpLayout *, EllwarpLayout **);
/* frees the host arrays (hostarrays = false); copies src's arrays into a layout without them */
PETSC_EXTERN PetscErrorCode EllwarpLayoutDropArrays(EllwarpLayout *);
PETSC_EXTERN PetscErrorCode EllwarpLayoutCopyArrays(EllwarpLayout *, const EllwarpLayout *);
PETSC_EXTERN PetscErrorCode EllwarpLayoutTranspose(PetscInt, PetscInt, const PetscInt[], const PetscInt[], PetscInt **, PetscInt **, PetscInt **);
PETSC_INTERN PetscLogDouble EllwarpLayoutBytesMult(const EllwarpLayout *);
PETSC_INTERN PetscLogDouble EllwarpLayoutBytesMultMin(PetscInt, PetscInt, PetscCount);
/* the dictionary mode's host analysis (dictlayout.c) */
PETSC_INTERN PetscErrorCode EllwarpSliceDictWindows(PetscInt, PetscInt, const PetscInt[], const PetscInt[], const PetscInt[], PetscInt *, PetscInt *, int[]);
PETSC_INTERN PetscBool      EllwarpSliceDictSaves(PetscCount, PetscInt);
PETSC_INTERN short          EllwarpSliceDictCode(PetscInt, const int[], PetscInt);

/* Host reference kernels: the same layout, the same per-lane order of summation. */
PETSC_INTERN void EllwarpHostRefresh(const EllwarpLayout *, const PetscScalar *, PetscScalar *);
PETSC_EXTERN void EllwarpLayoutRowForm(const EllwarpLayout *, PetscInt *, int *, PetscBool *);
PETSC_EXTERN void EllwarpHostRefreshRows(const EllwarpLayout *, const PetscInt *, const int *, const PetscScalar *, PetscScalar *);
PETSC_INTERN void EllwarpHostDownload(const EllwarpLayout *, const PetscScalar *, PetscScalar *);
PETSC_INTERN void EllwarpHostMult(const EllwarpLayout *, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscBool);
/* the same with acc independent accumulators per lane (-mat_ellwarp_tune mult_acc): step k of a lane goes to
   accumulator k % acc, and the lane's sum is (a0 + a1) for 2, ((a0 + a1) + (a2 + a3)) for 4 */
PETSC_INTERN void EllwarpHostMultAcc(const EllwarpLayout *, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscBool, PetscInt);
PETSC_INTERN void EllwarpHostDiagScale(const EllwarpLayout *, PetscScalar *, const PetscScalar *, const PetscScalar *);
PETSC_INTERN void EllwarpHostZeroMasked(const EllwarpLayout *, PetscScalar *, const char *, const char *, PetscScalar);

/* Run-time kernel variants (-mat_ellwarp_tune mult_*, long_*, coo_*, gather), for measuring
   them against each other in one GPU run.  0 means automatic: EllwarpTuneResolve() decides (now: the
   kernels as they were).  Only
   multacc changes the order of summation (the host reference follows it); the others give bitwise the
   products and COO values of the defaults. */
typedef struct {
  PetscInt multlanes;  /* slice kernel: consecutive lanes (rows) per thread, 1, 2 or 4 (vector loads of values and columns) */
  PetscInt multacc;    /* slice kernel: independent accumulators per lane, 1, 2 or 4 */
  PetscBool multnc;    /* slice kernel: values and columns through ld.global.nc.L1::no_allocate instead of ld.global.cs */
  PetscInt longunroll; /* long-row chunks: entries per thread loaded before they are summed (0, 1: the plain loop; 2, 4, 8: in LongKernel, launched before the slices) */
  PetscInt coounroll;  /* COO with duplicates: entries per thread in flight (1: the plain loop; 2, 4, 8, 16) */
  PetscInt cooblock;   /* COO kernels: threads per block (0: 256) */
  PetscInt multunroll; /* slice kernel: steps of a lane in flight, 4 (MultKernel's) or 8 */
  PetscInt gather;     /* new host values (CUDA): 0 auto (= 1), 1 slice (the row form staged in shared memory), 2 rows (the row form lane by lane), 3 map (per-slot map) */
  PetscInt multbatch;  /* slice kernel: 1 MultKernel's step loop, or 2, 4, 8 steps of a lane whose columns and values are loaded before their x entries (MultKernelB) */
  PetscBool multprefetch; /* with multbatch > 1: the next batch's columns and values loaded before this batch's x entries */
  PetscInt multregs;   /* with multbatch > 1: registers per thread at most, 32 or 40 (0: the compiler's choice) */
  PetscInt blockbatch; /* blocked layout: steps of a lane whose block columns and x entries are loaded before their values are summed, 1, 2 or 4 (0: automatic, by the lanes: seqellwarpblock.c) */
} EllwarpTune;

PETSC_INTERN void EllwarpTuneResolve(const EllwarpLayout *, const EllwarpTune *, EllwarpTune *);
PETSC_INTERN PetscBool EllwarpTuneUnbatched(const EllwarpTune *);

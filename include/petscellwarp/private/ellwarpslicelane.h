/* The per-lane steps of the device analysis's slice kernels (seq/ellwarpanalysis.cu: FillKernel, DictRounds in
   FitsKernel and FillKernel), in plain C shared with their host emulation (tests/analysis.c: EmulateDeviceFill).

   Why: a warp kernel's per-lane logic is only exercised on a GPU, while the host analysis (layout.c) that it must
   reproduce is written differently (per slice, not per lane).  With the lane steps here the host test runs the
   device's own decisions lane by lane (the warp reductions replaced by loops over the 32 lanes) on any machine and
   compares the arrays with layout.c's: a store into the wrong array, or a dictionary table/code that differs,
   fails on the CPU, not first as an illegal address on the GPU. */
#pragma once
#include <petscellwarp/private/ellwarplayout.h>
#include <limits.h>

#if defined(__CUDACC__)
  #define ELLWARP_LANE_HD __host__ __device__ static inline
#else
  #define ELLWARP_LANE_HD static inline
#endif

/* FillKernel, slot at = colbase[s] + off of a slice with format meta: which column array receives what.  has: the
   lane's row has an entry there (its column col; b: the entry position's bias, 0 outside biased slices).
   Returns 16 (*v16 into col16[at]), 32 (*v32 into col32[at]) or 0: a dictionary slice's entry, whose code the
   dictionary rounds (EllwarpDictLaneStep) wrote; its colbase indexes col16, so nothing may go to col32. */
ELLWARP_LANE_HD int EllwarpFillSlotTarget(int meta, int has, PetscInt col, PetscInt row, int b, short *v16, int *v32)
{
  if (meta & 64) {
    if (has) return 0;
    *v16 = ELLWARP_DICT_PAD;
    return 16;
  }
  if (meta & 16) {
    *v16 = has ? (short)(col - row - b) : (short)ELLWARP_PAD16;
    return 16;
  }
  *v32 = has ? (int)col : -1;
  return 32;
}

/* The dictionary rounds (dictlayout.c's windows, one per round): lane (row q, place j of tpr) walks its entries
   e = j, j + tpr, ... of the row whose entries are aj[rs .. rs + rl). */

/* whether the lane sees its row unsorted (entries j, j + tpr, ... against their predecessors) */
ELLWARP_LANE_HD int EllwarpDictLaneUnsorted(const PetscInt *aj, PetscInt rs, PetscInt rl, int tpr, int j)
{
  for (PetscInt k = j; k < rl; k += tpr)
    if (k > 0 && aj[rs + k] < aj[rs + k - 1]) return 1;
  return 0;
}

/* the lane's next window id (ascending in a sorted row), INT_MAX when its entries are done; the warp takes the minimum */
ELLWARP_LANE_HD int EllwarpDictLaneId(const PetscInt *aj, PetscInt rs, PetscInt rl, PetscInt e)
{
  return e < rl ? (int)(aj[rs + e] >> ELLWARP_DICT_SHIFT) : INT_MAX;
}

/* the end of the rounds before round r with the warp minimum mn (any top: a lane saw offset 511 in window 127):
   the window count, -1 where the slice is refused (more than ELLWARP_DICT_MAX windows, or the padding code taken),
   or -2: round r goes on */
ELLWARP_LANE_HD int EllwarpDictRoundEnd(int r, int mn, int anytop)
{
  if (mn == INT_MAX) return anytop && r == ELLWARP_DICT_MAX ? -1 : r;
  if (r == ELLWARP_DICT_MAX) return -1;
  return -2;
}

/* round r, window mn: the lane steps past its entries in window mn (from e; returns the new e), writing their codes
   (r << shift | col & mask) at (e / tpr) * 32 + lane of the slice's col16 when col16 is not NULL, and noting offset
   511 in round 127 in *top */
ELLWARP_LANE_HD PetscInt EllwarpDictLaneStep(const PetscInt *aj, PetscInt rs, PetscInt rl, int tpr, int lane, PetscInt e, int r, int mn, short *col16, int *top)
{
  while (e < rl && (int)(aj[rs + e] >> ELLWARP_DICT_SHIFT) == mn) {
    const int lo = (int)(aj[rs + e] & ((1 << ELLWARP_DICT_SHIFT) - 1));
    if (r == ELLWARP_DICT_MAX - 1 && lo == (1 << ELLWARP_DICT_SHIFT) - 1) *top = 1;
    if (col16) col16[(e / tpr) * ELLWARP_LANES + lane] = (short)(unsigned short)((r << ELLWARP_DICT_SHIFT) | lo);
    e += tpr;
  }
  return e;
}

/* FitsKernel: whether a slice refused by both 16-bit offset modes takes the dictionary (nwin windows, -1: refused);
   the same rule as layout.c (EllwarpSliceDictSaves) */
ELLWARP_LANE_HD int EllwarpDictTakes(int nwin, int w)
{
  return nwin >= 0 && 4 * (PetscCount)nwin < 2 * (PetscCount)w * ELLWARP_LANES;
}

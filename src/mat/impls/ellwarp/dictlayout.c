/* The dictionary column mode of the scalar ELLWARP layout (ellwarplayout.h, meta bit 6), host analysis.

   Why: in a user's numbering (a gmsh mesh refined by DMRefine, in DMPlex's default order) a FE row's columns lie in a
   few clusters spread over the whole matrix, and a slice's 32 rows are unrelated, so neither 16-bit offsets from the
   row nor a bias per entry position fit (0.1 % of the slices of the refined gmsh LV, P1 elasticity) and the slices
   store 32-bit columns.  The slice's columns still fall into few aligned windows of 512 columns (the clusters of
   its rows): on that matrix 92 % of the slices touch at most 128 windows (benchmarks/layout/index_stats -aligned).
   A table of the windows' bases per slice (4 bytes each) and a 16-bit code per slot (7 bits: the window, 9 bits: the
   column in it) give 10 bytes per slot plus the table, against 12.  Decoding is one load from the table (L1) per
   step and lane, random access (any slot decodes alone: the host walks and the value kernels need that; a delta
   code would not).

   The device analysis (ellwarpanalysis.cu) computes the same windows with one warp per slice: rounds of a warp
   minimum over the lanes' next window id (each lane walks its entries in order, which is why the rows must be
   sorted), so host and device build the same table and codes. */
#include <petscellwarp/private/ellwarplayout.h>

/* Windows of the sorted rows p..p+rows-1 of a slice (1 << l2 lanes per row; only the row order matters):
   *nwin distinct window ids (ascending in ids[] when ids is not NULL), or *nwin = -1 where the mode cannot hold
   the slice (a row not sorted, more than ELLWARP_DICT_MAX windows, or the padding code taken). */
PetscErrorCode EllwarpSliceDictWindows(PetscInt p, PetscInt rows, const PetscInt perm[], const PetscInt ai[], const PetscInt aj[], PetscInt *tmp, PetscInt *nwin, int ids[])
{
  PetscInt n = 0, nc = 0;

  PetscFunctionBegin;
  *nwin = -1;
  for (PetscInt q = 0; q < rows; q++) {
    const PetscInt row = perm[p + q];
    for (PetscInt k = ai[row]; k < ai[row + 1]; k++) {
      if (k > ai[row] && aj[k] < aj[k - 1]) PetscFunctionReturn(PETSC_SUCCESS); /* the device walks need sorted rows */
      tmp[nc++] = aj[k] >> ELLWARP_DICT_SHIFT;
    }
  }
  PetscCall(PetscSortRemoveDupsInt(&nc, tmp));
  n = nc;
  if (n > ELLWARP_DICT_MAX) PetscFunctionReturn(PETSC_SUCCESS);
  if (n == ELLWARP_DICT_MAX) { /* window 127 must not hold offset 511: code 0xffff is the padding */
    for (PetscInt q = 0; q < rows; q++) {
      const PetscInt row = perm[p + q];
      for (PetscInt k = ai[row]; k < ai[row + 1]; k++)
        if ((aj[k] >> ELLWARP_DICT_SHIFT) == tmp[n - 1] && (aj[k] & ((1 << ELLWARP_DICT_SHIFT) - 1)) == (1 << ELLWARP_DICT_SHIFT) - 1) PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (ids)
    for (PetscInt i = 0; i < n; i++) ids[i] = (int)tmp[i];
  *nwin = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether a slice of `slots` slots with nwin windows saves bytes against 32-bit columns: 2 bytes per slot against 4 per window */
PetscBool EllwarpSliceDictSaves(PetscCount slots, PetscInt nwin)
{
  return (PetscBool)(nwin >= 0 && 4 * (PetscCount)nwin < 2 * slots);
}

/* the code of column col in a slice whose sorted window ids are ids[0..nwin) */
short EllwarpSliceDictCode(PetscInt nwin, const int ids[], PetscInt col)
{
  const int id = (int)(col >> ELLWARP_DICT_SHIFT);
  PetscInt  lo = 0, hi = nwin - 1;
  while (lo < hi) { /* the window of id (it is in the table) */
    const PetscInt mid = (lo + hi) / 2;
    if (ids[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return (short)(unsigned short)((lo << ELLWARP_DICT_SHIFT) | (col & ((1 << ELLWARP_DICT_SHIFT) - 1)));
}

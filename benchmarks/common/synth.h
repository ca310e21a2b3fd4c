/* Synthetic benchmark matrices (irregular and very regular) and a Matrix Market reader, all as MATSEQAIJ. */
#pragma once

#include <petscmat.h>
#include <stdint.h>

/* Power-law row lengths (circuit / web-graph like): length ~ floor(xmin * U^(-1/(alpha-1))) (Pareto with density
   exponent alpha), capped at maxlen; the diagonal is always present; a fraction plocal of the other columns lies
   near the diagonal (|i-j| <= max(64, 4*len)), the rest is uniform. Duplicate columns are merged, so rows may be a
   little shorter than drawn. Deterministic for a given seed. */
PetscErrorCode SynthPowerLaw(PetscInt n, PetscReal alpha, PetscReal xmin, PetscInt maxlen, PetscReal plocal, uint64_t seed, Mat *A);
/* QCD-like: 4-D periodic lattice L^4 with 3 dofs per site; a row couples to all 3 dofs of 13 sites (itself,
   the 8 nearest neighbours and the 4 next-nearest at +2 along each axis): exactly 39 entries per row. L >= 5. */
PetscErrorCode SynthQCD(PetscInt L, Mat *A);
/* Epidemiology-like: N x N grid, a row couples to its 4 grid neighbours (no diagonal), 2..4 entries per row. */
PetscErrorCode SynthGrid2D4(PetscInt N, Mat *A);
/* Matrix Market coordinate real/integer/pattern, general/symmetric/skew-symmetric (.gz/.xz via the tools). */
PetscErrorCode MatLoadMatrixMarket(const char filename[], Mat *A);

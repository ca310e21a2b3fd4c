/* Test matrices whose rows share a stencil with offsets far from the diagonal: the case of the biased 16-bit
   column mode (include/petscellwarp/private/ellwarplayout.h, meta bit 5).  Used by tests/analysis.c, matops.c and
   variants.c.  CSR arrays from PetscMalloc1 (free them with PetscFree). */
#pragma once

#include <petscmat.h>

/* A periodic lattice of dims[0] x ... x dims[nd-1] sites (dims[0] fastest), dofs unknowns per site, with the
   stencil of benchmarks/common/synth.c SynthQCD: each site couples to itself and to its +1, -1 and +2
   neighbours in every direction, every dof to every dof.  nd = 4, dims = L and dofs = 3 is SynthQCD(L).
   Neighbours lie dofs * stride away for a direction of that stride (wrapping around: up to (dims - 1)
   strides), so with dofs * stride > 16383 in the last direction no slice fits row-relative 16-bit offsets,
   but neighbouring rows share their offsets: the biased mode. */
static inline PetscErrorCode StencilLatticeCSR(PetscInt nd, const PetscInt dims[], PetscInt dofs, PetscInt *n, PetscInt **ai, PetscInt **aj)
{
  PetscInt nsites = 1, nnb = 1 + 3 * nd, *nb, stride[8];

  PetscFunctionBegin;
  PetscCheck(nd >= 1 && nd <= 8, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "1 to 8 directions");
  for (PetscInt d = 0; d < nd; d++) {
    PetscCheck(dims[d] >= 5, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "a lattice direction needs 5 sites for distinct neighbours");
    stride[d] = nsites;
    nsites *= dims[d];
  }
  *n = nsites * dofs;
  PetscCall(PetscMalloc1(*n + 1, ai));
  PetscCall(PetscMalloc1(*n * nnb * dofs, aj));
  PetscCall(PetscMalloc1(nnb, &nb));
  for (PetscInt r = 0; r <= *n; r++) (*ai)[r] = r * nnb * dofs;
  for (PetscInt site = 0; site < nsites; site++) {
    PetscInt k = 0;
    nb[k++]    = site;
    for (PetscInt d = 0; d < nd; d++) {
      const PetscInt x = (site / stride[d]) % dims[d], shifts[3] = {1, dims[d] - 1, 2};
      for (int q = 0; q < 3; q++) nb[k++] = site + (((x + shifts[q]) % dims[d]) - x) * stride[d];
    }
    PetscCall(PetscSortInt(nnb, nb));
    for (PetscInt c = 0; c < dofs; c++) {
      PetscInt p = (*ai)[site * dofs + c];
      for (PetscInt q = 0; q < nnb; q++)
        for (PetscInt e = 0; e < dofs; e++) (*aj)[p++] = nb[q] * dofs + e;
    }
  }
  PetscCall(PetscFree(nb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* m x n; row i holds the columns (i + off[j]) mod n, sorted (the offsets distinct mod n).  mixed: rows in
   blocks of 96 take turns: the offsets divided by 1000 (row-relative 16-bit slices), the offsets themselves
   (biased slices; 32-bit ones where some rows wrap around n and others not), random columns (32-bit) -- all
   three column modes in one layout. */
static inline PetscErrorCode StencilOffsetsCSR(PetscInt m, PetscInt n, PetscInt noff, const PetscInt off[], PetscBool mixed, PetscInt **ai, PetscInt **aj)
{
  unsigned long long rng = 0x9e3779b97f4a7c15ull;
  char              *mark;

  PetscFunctionBegin;
  PetscCheck(n >= 2 * noff, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "too few columns");
  PetscCall(PetscMalloc1(m + 1, ai));
  PetscCall(PetscMalloc1(m * noff, aj));
  PetscCall(PetscCalloc1(n, &mark));
  for (PetscInt i = 0; i <= m; i++) (*ai)[i] = i * noff;
  for (PetscInt i = 0; i < m; i++) {
    PetscInt *c = *aj + i * noff, kind = mixed ? (i / 96) % 3 : 1;
    for (PetscInt j = 0; j < noff; j++) {
      PetscInt col;
      if (kind == 2) {
        do {
          rng ^= rng << 13;
          rng ^= rng >> 7;
          rng ^= rng << 17;
          col = (PetscInt)(rng % (unsigned long long)n);
        } while (mark[col]);
      } else {
        col = ((i + (kind ? off[j] : off[j] / 1000)) % n + n) % n;
        PetscCheck(!mark[col], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "offsets not distinct mod n");
      }
      mark[col] = 1;
      c[j]      = col;
    }
    for (PetscInt j = 0; j < noff; j++) mark[c[j]] = 0;
    PetscCall(PetscSortInt(noff, c));
  }
  PetscCall(PetscFree(mark));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a SeqAIJ with the pattern ai/aj and values from r */
static inline PetscErrorCode StencilMat(PetscInt m, PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscRandom r, Mat *A)
{
  PetscInt    *nnz;
  PetscScalar *v;
  PetscInt     maxl = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(m, &nnz));
  for (PetscInt i = 0; i < m; i++) {
    nnz[i] = ai[i + 1] - ai[i];
    maxl   = PetscMax(maxl, nnz[i]);
  }
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, m, n, 0, nnz, A));
  PetscCall(PetscMalloc1(maxl + 1, &v));
  for (PetscInt i = 0; i < m; i++) {
    for (PetscInt k = 0; k < nnz[i]; k++) PetscCall(PetscRandomGetValue(r, &v[k]));
    PetscCall(MatSetValues(*A, 1, &i, nnz[i], aj + ai[i], v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(v));
  PetscCall(PetscFree(nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

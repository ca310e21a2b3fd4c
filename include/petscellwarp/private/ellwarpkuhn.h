/* The unit cube cut into N^3 cells, each split into 6 tetrahedra around its main diagonal (Kuhn): the
   P1 tetrahedral mesh the examples, tests and benchmarks build without a mesh generator.  Vertex
   (i, j, k) of the (N+1)^3 grid has index i + (N+1) (j + (N+1) k). */
#pragma once

#include <petscsys.h>

/* the four vertices of tetrahedron t (0..5) of cell c (0..n0 n1 n2 - 1, c = i + n0 (j + n1 k)) of a box of
   n[0] x n[1] x n[2] cells; vertex (i, j, k) of its grid has index i + (n0+1) (j + (n1+1) k) */
static inline void EllwarpKuhnBoxTet(const PetscInt n[3], PetscInt c, int t, PetscInt v[4])
{
  static const int kuhn[6][4] = {
    {0, 1, 3, 7},
    {0, 1, 5, 7},
    {0, 2, 3, 7},
    {0, 2, 6, 7},
    {0, 4, 5, 7},
    {0, 4, 6, 7}
  };
  const PetscInt i = c % n[0], j = (c / n[0]) % n[1], k = c / (n[0] * n[1]);

  for (int a = 0; a < 4; a++) {
    const int q = kuhn[t][a];
    v[a]        = (i + (q & 1)) + (n[0] + 1) * ((j + ((q >> 1) & 1)) + (n[1] + 1) * (k + ((q >> 2) & 1)));
  }
}

/* the four vertices of tetrahedron t (0..5) of cell c (0..N^3-1) of the unit cube */
static inline void EllwarpKuhnTet(PetscInt N, PetscInt c, int t, PetscInt v[4])
{
  const PetscInt n[3] = {N, N, N};

  EllwarpKuhnBoxTet(n, c, t, v);
}

/* COO lists (row, column) of the 4x4 element matrices of all tetrahedra, 16 per tetrahedron, element by
   element as an assembly loop emits them; free with PetscFree2(*ci, *cj) */
static inline PetscErrorCode EllwarpKuhnCOO(PetscInt N, PetscCount *n, PetscInt **ci, PetscInt **cj)
{
  PetscCount k = 0;

  PetscFunctionBegin;
  *n = (PetscCount)6 * 16 * N * N * N;
  PetscCall(PetscMalloc2(*n, ci, *n, cj));
  for (PetscInt c = 0; c < N * N * N; c++)
    for (int t = 0; t < 6; t++) {
      PetscInt v[4];
      EllwarpKuhnTet(N, c, t, v);
      for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++, k++) {
          (*ci)[k] = v[a];
          (*cj)[k] = v[b];
        }
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

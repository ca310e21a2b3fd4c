/* The match variant of type atomic's fused P1 Jacobian (src/dm/assembly/dmasmatomic.c, kernel in
   dmasmatomiccuda.cu): the default of type atomic (tune atomic_variant=full runs the full-map fused kernel).

   Why: the full-map fused atomic kernel streams, per element, its coordinates (96 B), the conductivity's upper
   triangle (48 B) and 16 32-bit targets (64 B) = 208 B.  Here an element carries only
   - its nodes, sorted by dof (16 B), whose 32-byte node records (coordinates + the row's base slot and
     lane shift) come from L2 (9-12 MB for 0.4 M nodes: gathered, not streamed);
   - the conductivity's upper triangle (48 B);
   - one byte per entry (16 B): entry (a,b) goes to row r = node a at slot
       base[r] + ((c >> sh[r]) << 5) + (c & ((1 << sh[r]) - 1)),
     the ELLWARP formula for entry c of a row owning 2^sh lanes of a 32-lane slice (sh = 5 makes it
     base + c, i.e. CSR);
   80 B in all.  Entries that do not fit (long rows, codes > maxcode) make their element "irregular": those few
   elements run through the full-map fused kernel.
   Nodes sorted by dof also put the lowest node (row) first: with elements numbered by their lowest dof,
   neighbouring threads hit neighbouring rows.  The element computes the upper triangle only (10 of 16
   entries) when D is exactly symmetric (or the identity).
   match: every entry summed over the lanes of its warp with the same target (__match_any_sync, the group's
   lowest lane gathers the others' values by shuffles and adds once): a warp of 32 elements numbered by lowest
   dof spans a compact cluster of ~6 lowest nodes, so many of its 512 entries share targets (fewer atomics
   for more instructions).
   Removed variants (slower than match into ELLWARP and AIJCUSPARSE on an H100, README-atomic-variants.md):
   compact (the same map, 16 atomics per element), agg (a warp sum of the lowest node's diagonal only), hash
   and hash256 (per-block shared-memory hash tables). */
#pragma once

#include <petscellwarp/private/dmassemblyimpl.h>
#include <petscellwarp/private/dmasmp1.h>

typedef enum {
  DMASM_ATOMIC_FULL  = 0, /* the full-map fused kernel (tune atomic_variant=full; other elements, irregular elements) */
  DMASM_ATOMIC_MATCH = 1  /* the default: H100, 2.17 M tets into ELLWARP 0.2565 ms against full's 0.333 ms */
} DMAsmAtomicVariant;

#define DMASM_FAST_IRREGULAR 0xFFu /* byte 0 of word 0: the element runs through the full-map fused kernel */

/* 32 bytes per node: one sector */
typedef struct {
  PetscReal x[3];
  int       base; /* slot of code 0 of the node's row (-1: the row has no element entry) */
  int       sh;   /* log2 of the lanes of the row (5: contiguous row, e.g. CSR) */
} DMAsmFastNode;

typedef struct _DMAsmFastPlan {
  PetscInt       nelem, nen, ndof, nirr, maxcode;
  PetscCount     ntarget;
  PetscBool      sym;       /* D exactly symmetric or identity: the element computes its upper triangle */
  /* address statistics per warp instruction (32 consecutive elements, one entry (a,b) each), summed over the
     instructions and divided by the element count: 32-byte sectors the atomics touch with this map and with
     the full map (closure node order), and the atomics after match's aggregation (distinct targets) */
  PetscReal      sectors, sectorsdefault, matchatomics, warptargets, warpsectors, blocktargets, blocksectors;
  PetscBool      havestats; /* the address statistics were computed (tune atomic_stats: sorts per warp and block, seconds at millions of elements) */
  PetscInt      *enode;     /* [nen][nelem] nodes (dofs) of element e, increasing */
  unsigned      *code;      /* [nen][nelem] word a: byte b = code of entry (a,b) in the sorted node order */
  DMAsmFastNode *node;      /* [ndof] */
  PetscInt      *irr;       /* [nirr] irregular elements */
  PetscInt      *denode, *dirr;
  unsigned      *dcode;
  DMAsmFastNode *dnode;
} DMAsmFastPlan;

/* slot of code c in a row with base and lane shift sh */
static DMASM_HD inline PetscCount DMAsmFastSlot(int base, int sh, unsigned c)
{
  return (PetscCount)base + ((PetscCount)(c >> sh) << 5) + (PetscCount)(c & ((1u << sh) - 1u));
}

/* the element matrix from nodal coordinates xl [(a*dim+d)], Dl [i*dim+j] (NULL: identity); sym: entries
   (b,a), b < a, copied from (a,b) (D symmetric).  The same arithmetic on both compilers. */
static DMASM_HD inline void DMAsmFastP1Element(int dim, int sym, PetscReal alpha, PetscReal beta, const PetscReal *xl, const PetscReal *Dl, PetscScalar *ke)
{
  const int nen = dim + 1;
  PetscReal J[3][3], g[4][3], vol, mass;

  for (int i = 0; i < dim; i++)
    for (int j = 0; j < dim; j++) J[i][j] = xl[(j + 1) * dim + i] - xl[i];
  DMAsmP1Geometry(dim, J, g, &vol, &mass);
  for (int a = 0; a < nen; a++) {
    PetscReal Dg[3];
    for (int i = 0; i < dim; i++) {
      Dg[i] = 0;
      for (int j = 0; j < dim; j++) Dg[i] += (Dl ? Dl[i * dim + j] : (PetscReal)(i == j)) * g[a][j];
    }
    for (int b = sym ? a : 0; b < nen; b++) {
      PetscReal k = 0;
      for (int i = 0; i < dim; i++) k += g[b][i] * Dg[i];
      k               = alpha * vol * k + beta * mass * (a == b ? 2 : 1);
      ke[a * nen + b] = k;
      if (sym) ke[b * nen + a] = k;
    }
  }
}

PETSC_INTERN void DMAsmHostFast(const DMAsmP1Ctx *, const DMAsmFastPlan *, PetscScalar *);
#if defined(ELLWARP_HAVE_CUDA)
PETSC_INTERN PetscErrorCode DMAsmCUDAFast(const DMAsmP1Ctx *, const DMAsmFastPlan *, PetscScalar *);
#endif

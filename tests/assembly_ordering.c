/* DMAssemblySetLocalityOrdering (-dm_assembly_ordering, src/dm/assembly/dmasmordering.c): the DM's dofs renumbered once
   at set-up give the same assembled operator, residual and solution as the DM's own numbering, mapped point by point.

   Two identical DMs (same mesh, same distribution, same discretization): dm0 in its own numbering, dm1 renumbered by
   -ordering (rcm|ellwarp).  Every owned point with dofs is owned by the same rank in both, so the map between their
   global vectors is a permutation of each rank's owned range, built from the two global sections' offsets (the
   "natural" comparison by points).  Checks:
   - the permutation is not the identity (the ordering did something) and the DM's dofs of a point stay together;
   - the residual at a random state: F1 = map(F0), relative error <= 1e-12;
   - the Jacobian: the same number of nonzeros, and J1 map(x) = map(J0 x) for three random x, rel. error <= 1e-12;
   - -snes: SNESSolve through DMAssemblySetSNES (CG + Jacobi) on both, u1 = map(u0) to 1e-9;
   - -ordering ellwarp, scalar fields: the matrix's row lengths do not increase inside each window of 256 owned rows
     (the order MATELLWARP's windowed sort keeps: its row permutation is the identity);
   - the column span per 32 rows the assembler reports after rcm is smaller than before on a scrambled numbering
     (-scramble, default: the mesh points shuffled within their strata, like a mesh file without locality);
   - -tensor (hexes): the renumbered local section keeps the closure's tensor order (DMPlexSetClosurePermutationTensor);
   - -too_late: the ordering asked after a global vector exists is an error (EXPECT_ERROR).
   Elements: -elem tet|tri|hex|quad, -order k (Lagrange Pk/Qk, DMAssemblyLagrangeKernels; P1 simplices through the
   built-in P1 kernels), -ncomp 2|3 (vector P1/Q1 through DMAssemblyElasticityKernels).  -gpu: device vectors and
   ELLWARP (cuda backend) targets, required; without it the
   same where a device is usable (as tests/assembly.c), else the host path into ELLWARP's host backend. */
#define ASSEMBLYTEST_MPI /* only the mesh helpers */
#include <petscellwarp.h>
#include <petscellwarpassembly.h>
#include <petscdmplex.h>
#include <petscsnes.h>
#include <petscellwarp/private/dmassemblyimpl.h> /* as->ordstat: the statistics the View line prints */
#include "assemblytestutil.h"

/* ellwarp_add_test(assembly_ordering.tet_p1_rcm -elem tet -order 1 -faces 4 -ordering rcm -snes -dm_assembly_view PASS_REGULAR_EXPRESSION "dof ordering: rcm.*\n(.|\n)*ordering: PASS") */
/* ellwarp_add_test(assembly_ordering.tet_p1_ellwarp -elem tet -order 1 -faces 8 -ordering ellwarp -snes PASS_REGULAR_EXPRESSION "windows sorted: yes(.|\n)*ordering: PASS") */
/* ellwarp_add_test(assembly_ordering.tet_p2_rcm -elem tet -order 2 -faces 3 -ordering rcm -snes PASS_REGULAR_EXPRESSION "ordering: PASS") */
/* ellwarp_add_test(assembly_ordering.tri_p3_ellwarp -elem tri -order 3 -faces 6 -ordering ellwarp PASS_REGULAR_EXPRESSION "ordering: PASS") */
/* ellwarp_add_test(assembly_ordering.tri_p5_rcm -elem tri -order 5 -faces 3 -ordering rcm PASS_REGULAR_EXPRESSION "ordering: PASS") */
/* ellwarp_add_test(assembly_ordering.hex_q1_rcm -elem hex -order 1 -faces 4 -ordering rcm -snes PASS_REGULAR_EXPRESSION "ordering: PASS") */
/* ellwarp_add_test(assembly_ordering.quad_q1_ellwarp -elem quad -order 1 -faces 12 -ordering ellwarp PASS_REGULAR_EXPRESSION "ordering: PASS") */
/* ellwarp_add_test(assembly_ordering.tet_vec3_rcm -elem tet -order 1 -ncomp 3 -faces 3 -ordering rcm PASS_REGULAR_EXPRESSION "ordering: PASS") */
/* ellwarp_add_test(assembly_ordering.hex_vec3_ellwarp -elem hex -order 1 -ncomp 3 -faces 3 -ordering ellwarp PASS_REGULAR_EXPRESSION "ordering: PASS") */
/* ellwarp_add_test(assembly_ordering.np2_tet_rcm NPROCS 2 -elem tet -order 1 -faces 5 -ordering rcm -snes PASS_REGULAR_EXPRESSION "ordering: PASS") */
/* ellwarp_add_test(assembly_ordering.np2_tet_ellwarp NPROCS 2 -elem tet -order 1 -faces 8 -ordering ellwarp -snes PASS_REGULAR_EXPRESSION "ordering: PASS") */
/* ellwarp_add_test(assembly_ordering.np2_tri_rcm NPROCS 2 -elem tri -order 1 -faces 8 -ordering rcm -snes PASS_REGULAR_EXPRESSION "ordering: PASS") */
/* ellwarp_add_test(assembly_ordering.hex_q1_rcm_lexicographic -elem hex -order 1 -faces 4 -ordering rcm -scramble 0 PASS_REGULAR_EXPRESSION "ordering: PASS") */
/* ellwarp_add_test(assembly_ordering.hex_q1_tensor_rcm -elem hex -order 1 -faces 3 -tensor -ordering rcm -snes PASS_REGULAR_EXPRESSION "closure permutation kept: yes(.|\n)*ordering: PASS") */
/* ellwarp_add_test(assembly_ordering.too_late -elem tet -order 1 -faces 2 -ordering rcm -too_late EXPECT_ERROR "too late, the DM already has its global section") */
/* ellwarp_add_test(assembly_ordering.option_too_late -elem tet -order 1 -faces 2 -too_late -dm_assembly_ordering rcm EXPECT_ERROR "too late, the DM already has its global section") */
/* ellwarp_add_test(assembly_ordering.gpu_tet_p1_rcm -elem tet -order 1 -faces 8 -ordering rcm -snes -gpu GPU PASS_REGULAR_EXPRESSION "ordering: PASS") */
/* ellwarp_add_test(assembly_ordering.gpu_tet_p1_ellwarp -elem tet -order 1 -faces 10 -ordering ellwarp -snes -gpu GPU PASS_REGULAR_EXPRESSION "ordering: PASS") */
/* ellwarp_add_test(assembly_ordering.gpu_tet_p2_rcm -elem tet -order 2 -faces 4 -ordering rcm -snes -gpu GPU PASS_REGULAR_EXPRESSION "ordering: PASS") */
/* ellwarp_add_test(assembly_ordering.gpu_hex_vec3_rcm -elem hex -order 1 -ncomp 3 -faces 4 -ordering rcm -gpu GPU PASS_REGULAR_EXPRESSION "ordering: PASS") */

typedef struct {
  char      elem[8];
  PetscInt  order, ncomp, faces;
  PetscBool gpu, snes, scramble, tensor;
} Opts;

/* the mesh points shuffled within each depth stratum (a fixed pseudo-random permutation, the same for both DMs): a
   numbering without locality, like a mesh file's, where RCM must shrink the span (the box meshes' lexicographic numbering
   is already banded: RCM's level sets need not beat it there) */
static PetscErrorCode Scramble(DM *dm)
{
  PetscInt      pStart, pEnd, depth, *perm;
  unsigned long seed = 12345;
  IS            is;
  DM            pdm;

  PetscFunctionBegin;
  PetscCall(DMPlexGetChart(*dm, &pStart, &pEnd));
  PetscCall(DMPlexGetDepth(*dm, &depth));
  PetscCall(PetscMalloc1(pEnd - pStart, &perm));
  for (PetscInt d = 0; d <= depth; d++) {
    PetscInt s, e;
    PetscCall(DMPlexGetDepthStratum(*dm, d, &s, &e));
    for (PetscInt p = s; p < e; p++) perm[p - pStart] = p;
    for (PetscInt i = e - s - 1; i > 0; i--) { /* Fisher-Yates with a 64-bit LCG */
      PetscInt j, t;
      seed = seed * 6364136223846793005UL + 1442695040888963407UL;
      j    = (PetscInt)((seed >> 33) % (unsigned long)(i + 1));
      t                    = perm[s + i - pStart];
      perm[s + i - pStart] = perm[s + j - pStart];
      perm[s + j - pStart] = t;
    }
  }
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, pEnd - pStart, perm, PETSC_OWN_POINTER, &is));
  PetscCall(DMPlexPermute(*dm, is, &pdm));
  PetscCall(ISDestroy(&is));
  PetscCall(DMDestroy(dm));
  *dm = pdm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateDM(MPI_Comm comm, const Opts *o, DM *dm)
{
  PetscBool   tri, tet, quad, hex, simplex;
  PetscInt    dim;
  PetscMPIInt size, rank;
  PetscFE     fe;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscStrcmp(o->elem, "tri", &tri));
  PetscCall(PetscStrcmp(o->elem, "tet", &tet));
  PetscCall(PetscStrcmp(o->elem, "quad", &quad));
  PetscCall(PetscStrcmp(o->elem, "hex", &hex));
  PetscCheck(tri || tet || quad || hex, comm, PETSC_ERR_ARG_WRONG, "-elem tri|tet|quad|hex");
  simplex = (PetscBool)(tri || tet);
  dim     = (tri || quad) ? 2 : 3;
  if (simplex) { /* Kuhn tetrahedra / triangles of a box (no mesh generator needed), made on rank 0 */
    PetscInt   d, nv, nt, *cells;
    PetscReal *x;
    PetscCall(SimplexBoxCells(tet, o->faces, &d, &nv, &nt, &cells, &x));
    PetscCall(DMPlexCreateFromCellListPetsc(comm, d, rank ? 0 : nt, rank ? 0 : nv, d + 1, PETSC_TRUE, cells, d, x, dm));
    PetscCall(PetscFree2(cells, x));
  } else {
    PetscInt  f[3] = {o->faces, o->faces + 1, o->faces};
    PetscReal lo[3] = {0, 0, 0}, hi[3] = {1.0, 0.7, 1.3};
    PetscCall(DMPlexCreateBoxMesh(comm, dim, PETSC_FALSE, f, lo, hi, NULL, PETSC_TRUE, 0, PETSC_FALSE, dm));
  }
  if (o->scramble) PetscCall(Scramble(dm));
  if (size > 1) {
    DM               dmd;
    PetscPartitioner part;
    PetscCall(DMPlexGetPartitioner(*dm, &part));
    PetscCall(PetscPartitionerSetType(part, PETSCPARTITIONERSIMPLE)); /* deterministic: both DMs get the same parts */
    PetscCall(DMPlexDistribute(*dm, 1, NULL, &dmd)); /* overlap 1: the assembler's distributed path */
    if (dmd) {
      PetscCall(DMDestroy(dm));
      *dm = dmd;
    }
  }
  PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, dim, o->ncomp, simplex, o->order, simplex ? 2 * o->order : o->order, &fe));
  PetscCall(DMSetField(*dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(*dm));
  PetscCall(PetscFEDestroy(&fe));
  if (o->tensor) PetscCall(DMPlexSetClosurePermutationTensor(*dm, PETSC_DETERMINE, NULL)); /* on the local section */
  PetscCall(DMSetMatType(*dm, MATELLWARP)); /* its backend: cuda where a device is, else host */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateAssembler(DM dm, const Opts *o, DMAssemblyOrdering ord, DMAssembly *as)
{
  DMAssemblyElementKernels k;
  const PetscReal          alpha = 1.0, beta = 2.0, source = 1.0;
  PetscBool                tet, tri;
  PetscMemType             mt;

  PetscFunctionBegin;
  PetscCall(DMAssemblyCreate(dm, as));
  PetscCall(DMAssemblySetLocalityOrdering(*as, ord)); /* before the DM's vectors: at set-up */
  PetscCall(DMAssemblySetFromOptions(*as));
  PetscCall(DMAssemblyGetMemType(*as, &mt)); /* the device where one is usable (as tests/assembly.c): device vectors */
  PetscCheck(!o->gpu || mt == PETSC_MEMTYPE_DEVICE, PETSC_COMM_SELF, PETSC_ERR_SUP, "-gpu: the assembly does not run on the device");
  if (mt == PETSC_MEMTYPE_DEVICE) PetscCall(DMSetVecType(dm, VECCUDA));
  PetscCall(PetscStrcmp(o->elem, "tet", &tet));
  PetscCall(PetscStrcmp(o->elem, "tri", &tri));
  if (o->ncomp > 1) PetscCall(DMAssemblyElasticityKernels(*as, 1.0, 0.3, NULL, NULL, &k));
  else if ((tet || tri) && o->order == 1) PetscCall(DMAssemblyP1DiffusionMassKernels(*as, alpha, beta, source, NULL, &k));
  else PetscCall(DMAssemblyLagrangeKernels(*as, alpha, beta, source, NULL, &k));
  PetscCall(DMAssemblySetElementKernels(*as, &k));
  PetscCall(DMAssemblySetUp(*as));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* map[i] = owned position in dm1's global vector of the owned dof at position i of dm0's (same rank) */
static PetscErrorCode OwnedMap(DM dm0, DM dm1, PetscInt **map, PetscInt *n, PetscInt *moved, PetscBool *together)
{
  PetscSection g0, g1;
  PetscInt     pStart, pEnd, r0 = PETSC_INT_MAX, r1 = PETSC_INT_MAX, cnt = 0;
  Vec          v;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalSection(dm0, &g0));
  PetscCall(DMGetGlobalSection(dm1, &g1));
  PetscCall(DMGetGlobalVector(dm0, &v));
  PetscCall(VecGetLocalSize(v, n));
  PetscCall(VecGetOwnershipRange(v, &r0, NULL));
  PetscCall(DMRestoreGlobalVector(dm0, &v));
  PetscCall(DMGetGlobalVector(dm1, &v));
  PetscCall(VecGetOwnershipRange(v, &r1, NULL));
  PetscCall(DMRestoreGlobalVector(dm1, &v));
  PetscCheck(r0 == r1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the two DMs' ownership ranges differ");
  PetscCall(PetscMalloc1(*n, map));
  for (PetscInt i = 0; i < *n; i++) (*map)[i] = -1;
  PetscCall(PetscSectionGetChart(g0, &pStart, &pEnd));
  *moved    = 0;
  *together = PETSC_TRUE;
  for (PetscInt p = pStart; p < pEnd; p++) {
    PetscInt d0, d1, o0, o1, c0, c1;
    PetscCall(PetscSectionGetDof(g0, p, &d0));
    PetscCall(PetscSectionGetDof(g1, p, &d1));
    PetscCall(PetscSectionGetConstraintDof(g0, p, &c0));
    PetscCall(PetscSectionGetConstraintDof(g1, p, &c1));
    PetscCheck(d0 == d1 && c0 == c1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "point %" PetscInt_FMT ": %" PetscInt_FMT " dofs against %" PetscInt_FMT, p, d0, d1);
    if (d0 <= 0) continue; /* no dofs, or a ghost (negative: -(dof+1)) */
    PetscCall(PetscSectionGetOffset(g0, p, &o0));
    PetscCall(PetscSectionGetOffset(g1, p, &o1));
    for (PetscInt k = 0; k < d0; k++) {
      (*map)[o0 - r0 + k] = o1 - r1 + k; /* the point's dofs stay consecutive, in their order */
      cnt++;
    }
    if (o0 != o1) (*moved)++;
  }
  PetscCheck(cnt == *n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "owned dofs: %" PetscInt_FMT " mapped of %" PetscInt_FMT, cnt, *n);
  {
    PetscBT seen;
    PetscCall(PetscBTCreate(*n, &seen));
    for (PetscInt i = 0; i < *n; i++) {
      if ((*map)[i] < 0 || (*map)[i] >= *n || PetscBTLookupSet(seen, (*map)[i])) *together = PETSC_FALSE;
    }
    PetscCall(PetscBTDestroy(&seen));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y1 = map(x0): y1[map[i]] = x0[i] (host copies; the vectors may live on the device) */
static PetscErrorCode MapVec(const PetscInt *map, PetscInt n, Vec x0, Vec y1)
{
  const PetscScalar *a;
  PetscScalar       *b;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(x0, &a));
  PetscCall(VecGetArrayWrite(y1, &b));
  for (PetscInt i = 0; i < n; i++) b[map[i]] = a[i];
  PetscCall(VecRestoreArrayWrite(y1, &b));
  PetscCall(VecRestoreArrayRead(x0, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RelErr(Vec a, Vec ref, PetscReal *err)
{
  Vec       d;
  PetscReal nd, nr;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(ref, &d));
  PetscCall(VecWAXPY(d, -1.0, ref, a));
  PetscCall(VecNorm(d, NORM_2, &nd));
  PetscCall(VecNorm(ref, NORM_2, &nr));
  *err = nd / (nr > 0 ? nr : 1);
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ELLWARP order: the matrix's (full) row lengths do not increase inside each window of 256 owned rows */
static PetscErrorCode WindowsSorted(Mat J, PetscInt W, PetscBool *sorted)
{
  PetscInt rs, re, prev = PETSC_INT_MAX;

  PetscFunctionBegin;
  *sorted = PETSC_TRUE;
  PetscCall(MatGetOwnershipRange(J, &rs, &re));
  for (PetscInt r = rs; r < re; r++) {
    PetscInt nc;
    if ((r - rs) % W == 0) prev = PETSC_INT_MAX;
    PetscCall(MatGetRow(J, r, &nc, NULL, NULL));
    if (nc > prev) *sorted = PETSC_FALSE;
    prev = nc;
    PetscCall(MatRestoreRow(J, r, &nc, NULL, NULL));
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, sorted, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)J)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(DM dm, DMAssembly as, Vec *u)
{
  SNES snes;

  PetscFunctionBegin;
  PetscCall(CreateSolver(as, PetscObjectComm((PetscObject)dm), &snes));
  PetscCall(DMCreateGlobalVector(dm, u));
  PetscCall(VecSet(*u, 0.0));
  PetscCall(SNESSolve(snes, NULL, *u));
  PetscCall(SNESDestroy(&snes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm           comm;
  Opts               o = {"tet", 1, 1, 4, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE};
  PetscEnum          ordv = (PetscEnum)DMASSEMBLY_ORDERING_RCM;
  DMAssemblyOrdering ord;
  PetscBool          toolate = PETSC_FALSE, fail = PETSC_FALSE, together, sorted = PETSC_TRUE;
  DM                 dm0, dm1;
  DMAssembly         as0, as1;
  Mat                J0, J1;
  Vec                U0, U1, F0, F1, x0, x1, y0, y1, m1;
  PetscInt          *map, n, moved, ntot;
  PetscReal          err, emax = 0;
  MatInfo            i0, i1;
  PetscRandom        rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "DMAssembly locality ordering test", NULL);
  PetscCall(PetscOptionsString("-elem", "tri|tet|quad|hex", NULL, o.elem, o.elem, sizeof(o.elem), NULL));
  PetscCall(PetscOptionsInt("-order", "Lagrange order", NULL, o.order, &o.order, NULL));
  PetscCall(PetscOptionsInt("-ncomp", "field components (2-3: vector P1/Q1, elasticity kernels)", NULL, o.ncomp, &o.ncomp, NULL));
  PetscCall(PetscOptionsInt("-faces", "cells per direction", NULL, o.faces, &o.faces, NULL));
  PetscCall(PetscOptionsEnum("-ordering", "the ordering of the second DM", NULL, DMAssemblyOrderings, ordv, &ordv, NULL));
  PetscCall(PetscOptionsBool("-scramble", "shuffle the mesh points within each stratum first (a numbering without locality)", NULL, o.scramble, &o.scramble, NULL));
  PetscCall(PetscOptionsBool("-tensor", "hexes/quads: the closure in tensor order (DMPlexSetClosurePermutationTensor: a closure permutation the renumbered section must keep)", NULL, o.tensor, &o.tensor, NULL));
  PetscCall(PetscOptionsBool("-snes", "also solve with SNES on both and compare", NULL, o.snes, &o.snes, NULL));
  PetscCall(PetscOptionsBool("-gpu", "device vectors and ELLWARP cuda targets", NULL, o.gpu, &o.gpu, NULL));
  PetscCall(PetscOptionsBool("-too_late", "ask for the ordering after a global vector exists (an error)", NULL, toolate, &toolate, NULL));
  PetscOptionsEnd();
  ord = (DMAssemblyOrdering)ordv;

  if (toolate) { /* the DM's global numbering exists: renumbering now would leave U in the old one */
    Vec U;
    PetscCall(CreateDM(comm, &o, &dm1));
    PetscCall(DMCreateGlobalVector(dm1, &U));
    PetscCall(DMAssemblyCreate(dm1, &as1));
    PetscCall(DMAssemblySetFromOptions(as1)); /* -dm_assembly_ordering given: errors here */
    PetscCall(DMAssemblySetLocalityOrdering(as1, ord));
    PetscCall(PetscPrintf(comm, "no error: FAIL\n"));
    PetscCall(VecDestroy(&U));
    PetscCall(DMAssemblyDestroy(&as1));
    PetscCall(DMDestroy(&dm1));
    PetscCall(PetscFinalize());
    return 1;
  }

  PetscCall(CreateDM(comm, &o, &dm0));
  PetscCall(CreateDM(comm, &o, &dm1));
  PetscCall(CreateAssembler(dm0, &o, DMASSEMBLY_ORDERING_NONE, &as0));
  PetscCall(CreateAssembler(dm1, &o, ord, &as1));
  PetscCall(OwnedMap(dm0, dm1, &map, &n, &moved, &together));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &moved, 1, MPIU_INT, MPI_SUM, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &together, 1, MPI_C_BOOL, MPI_LAND, comm));
  PetscCall(PetscPrintf(comm, "column span per 32 rows (median) %.0f -> %.0f, bandwidth %.0f -> %.0f\n", (double)as1->ordstat[0], (double)as1->ordstat[2], (double)as1->ordstat[1], (double)as1->ordstat[3]));
  fail = (PetscBool)(fail || !moved || !together);
  if (o.tensor) { /* the renumbered section keeps the closure's tensor order (a closure permutation, not a storage order) */
    PetscSection s0, s1;
    IS           c0 = NULL, c1 = NULL;
    PetscInt     dim, nb;
    PetscBool    same = PETSC_FALSE;
    PetscFE      fe;
    PetscCall(DMGetDimension(dm0, &dim));
    PetscCall(DMGetField(dm0, 0, NULL, (PetscObject *)&fe));
    PetscCall(PetscFEGetDimension(fe, &nb));
    PetscCall(DMGetLocalSection(dm0, &s0));
    PetscCall(DMGetLocalSection(dm1, &s1));
    PetscCall(PetscSectionGetClosurePermutation(s0, (PetscObject)dm0, dim, nb, &c0));
    PetscCall(PetscSectionGetClosurePermutation(s1, (PetscObject)dm1, dim, nb, &c1));
    if (c0 && c1) PetscCall(ISEqual(c0, c1, &same));
    PetscCall(PetscPrintf(comm, "tensor closure permutation kept: %s\n", c0 && same ? "yes" : "NO"));
    fail = (PetscBool)(fail || !c0 || !same);
  }
  if (o.scramble && ord == DMASSEMBLY_ORDERING_RCM && !(as1->ordstat[2] < as1->ordstat[0])) {
    PetscCall(PetscPrintf(comm, "rcm made the column span larger: FAIL\n"));
    fail = PETSC_TRUE;
  }

  /* residual at a random state */
  PetscCall(PetscRandomCreate(comm, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  PetscCall(DMCreateGlobalVector(dm0, &U0));
  PetscCall(DMCreateGlobalVector(dm1, &U1));
  PetscCall(VecGetSize(U0, &ntot));
  PetscCall(PetscPrintf(comm, "%s P%" PetscInt_FMT " x %" PetscInt_FMT " components, %" PetscInt_FMT " dofs: ordering %s moved %" PetscInt_FMT " points; a point's dofs together: %s\n", o.elem, o.order, o.ncomp, ntot, DMAssemblyOrderings[ord], moved, together ? "yes" : "NO"));
  PetscCall(VecDuplicate(U0, &F0));
  PetscCall(VecDuplicate(U1, &F1));
  PetscCall(VecDuplicate(U1, &m1));
  PetscCall(VecSetRandom(U0, rnd));
  PetscCall(MapVec(map, n, U0, U1));
  PetscCall(DMAssemblyComputeResidual(as0, U0, F0));
  PetscCall(DMAssemblyComputeResidual(as1, U1, F1));
  PetscCall(MapVec(map, n, F0, m1));
  PetscCall(RelErr(F1, m1, &err));
  PetscCall(PetscPrintf(comm, "residual: rel. error %.2e against the DM's own numbering, mapped\n", (double)err));
  fail = (PetscBool)(fail || !(err <= 1e-12));

  /* Jacobian: pattern size and products with random vectors */
  PetscCall(DMAssemblyCreateMatrix(as0, &J0));
  PetscCall(DMAssemblyCreateMatrix(as1, &J1));
  PetscCall(DMAssemblyComputeJacobian(as0, U0, J0));
  PetscCall(DMAssemblyComputeJacobian(as1, U1, J1));
  PetscCall(MatGetInfo(J0, MAT_GLOBAL_SUM, &i0));
  PetscCall(MatGetInfo(J1, MAT_GLOBAL_SUM, &i1));
  PetscCall(VecDuplicate(U0, &x0));
  PetscCall(VecDuplicate(U0, &y0));
  PetscCall(VecDuplicate(U1, &x1));
  PetscCall(VecDuplicate(U1, &y1));
  for (int t = 0; t < 3; t++) {
    PetscCall(VecSetRandom(x0, rnd));
    PetscCall(MapVec(map, n, x0, x1));
    PetscCall(MatMult(J0, x0, y0));
    PetscCall(MatMult(J1, x1, y1));
    PetscCall(MapVec(map, n, y0, m1));
    PetscCall(RelErr(y1, m1, &err));
    emax = PetscMax(emax, err);
  }
  PetscCall(PetscPrintf(comm, "Jacobian: %.0f and %.0f nonzeros; J1 map(x) against map(J0 x): rel. error %.2e (3 random x)\n", i0.nz_used, i1.nz_used, (double)emax));
  fail = (PetscBool)(fail || i0.nz_used != i1.nz_used || !(emax <= 1e-12));
  if (ord == DMASSEMBLY_ORDERING_ELLWARP && o.ncomp == 1) {
    PetscCall(WindowsSorted(J1, 256, &sorted));
    PetscCall(PetscPrintf(comm, "windows sorted: %s (row lengths non-increasing in every 256 owned rows)\n", sorted ? "yes" : "NO"));
    fail = (PetscBool)(fail || !sorted);
  }

  if (o.snes) {
    Vec u0, u1;
    PetscCall(Solve(dm0, as0, &u0));
    PetscCall(Solve(dm1, as1, &u1));
    PetscCall(MapVec(map, n, u0, m1));
    PetscCall(RelErr(u1, m1, &err));
    PetscCall(PetscPrintf(comm, "SNES solution: rel. error %.2e against the DM's own numbering, mapped\n", (double)err));
    fail = (PetscBool)(fail || !(err <= 1e-9));
    PetscCall(VecDestroy(&u0));
    PetscCall(VecDestroy(&u1));
  }
  PetscCall(PetscPrintf(comm, "ordering: %s\n", fail ? "FAIL" : "PASS"));

  PetscCall(PetscFree(map));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&U0));
  PetscCall(VecDestroy(&U1));
  PetscCall(VecDestroy(&F0));
  PetscCall(VecDestroy(&F1));
  PetscCall(VecDestroy(&m1));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&x1));
  PetscCall(VecDestroy(&y0));
  PetscCall(VecDestroy(&y1));
  PetscCall(MatDestroy(&J0));
  PetscCall(MatDestroy(&J1));
  PetscCall(DMAssemblyDestroy(&as0));
  PetscCall(DMAssemblyDestroy(&as1));
  PetscCall(DMDestroy(&dm0));
  PetscCall(DMDestroy(&dm1));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}

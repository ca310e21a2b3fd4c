/* COO assembly into MATMPIELLWARP against MATMPIAIJ on 1-4 ranks: entries for rows of other ranks, duplicates,
   negative indices (ignored), INSERT and ADD, repeated value refreshes without a new analysis, values from
   host or device memory, bitwise reproducibility, a second preallocation with another pattern, MatSetValues
   after MatSetValuesCOO (the host sees the COO values), ranks with no rows and no entries.

   ellwarp_add_test(mpicoo.np1 -type mpiaijellwarp -mat_ellwarp_backend host)
   ellwarp_add_test(mpicoo.np2 NPROCS 2 -mat_ellwarp_backend host)
   ellwarp_add_test(mpicoo.np3_fe_uneven NPROCS 3 -matrix fe -uneven -mat_ellwarp_backend host)
   ellwarp_add_test(mpicoo.np4_empty NPROCS 4 -empty_rank 1 -mat_ellwarp_backend host)
   ellwarp_add_test(mpicoo.np4_fe_empty NPROCS 4 -matrix fe -empty_rank 3 -uneven -mat_ellwarp_backend host)
   ellwarp_add_test(mpicoo.cuda_np2 GPU TIMEOUT 120 NPROCS 2 -uneven)
   ellwarp_add_test(mpicoo.cuda_np2_device_values GPU TIMEOUT 120 NPROCS 2 -matrix fe -device_values)
   ellwarp_add_test(mpicoo.cuda_np1_device_values GPU TIMEOUT 120 -type mpiaijellwarp -device_values)
*/
#include <string.h>
#include "mpitestutil.h"
#include <../src/mat/impls/aij/mpi/mpiaij.h>

static PetscInt nchecks;

/* this rank's COO list: fe: the element matrices of its cells (rows everywhere); random: entries anywhere,
   with duplicates.  Some entries get a negative row or column. */
static PetscErrorCode MakeCOO(MPI_Comm comm, const char *kind, PetscInt n, PetscInt N, PetscInt variant, PetscCount *nc, PetscInt **ci, PetscInt **cj)
{
  PetscMPIInt size, rank;
  PetscBool   fe;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscStrcmp(kind, "fe", &fe));
  if (fe) {
    const PetscInt nc3 = n * n * n, c0 = (nc3 * rank) / size, c1 = (nc3 * (rank + 1)) / size;
    PetscCount     k   = 0;
    *nc = (PetscCount)96 * (c1 - c0) + (variant ? 2 * N / size : 0);
    PetscCall(PetscMalloc2(*nc, ci, *nc, cj));
    for (PetscInt c = c0; c < c1; c++)
      for (int t = 0; t < 6; t++) {
        PetscInt v[4];
        EllwarpKuhnTet(n, c, t, v);
        for (int a = 0; a < 4; a++)
          for (int b = 0; b < 4; b++, k++) {
            (*ci)[k] = v[a];
            (*cj)[k] = v[b];
          }
      }
    for (; k < *nc; k++) { /* second pattern: a few long-range couplings */
      (*ci)[k] = (PetscInt)(N * MpiTestHash(k, rank)) % N;
      (*cj)[k] = (PetscInt)(N * MpiTestHash(rank, k)) % N;
    }
  } else {
    const PetscCount len = 6 * N / size + 5 * rank + (variant ? N : 0);
    *nc = len;
    PetscCall(PetscMalloc2(len, ci, len, cj));
    for (PetscCount k = 0; k < len; k++) {
      (*ci)[k] = (PetscInt)(N * MpiTestHash(k + 1000 * rank, 3)) % N;
      (*cj)[k] = (k % 4 == 0) ? (*ci)[k] : (PetscInt)(N * MpiTestHash(k + 1000 * rank, 11 + variant)) % N;
      if (k % 5 == 1 && k > 0) { /* duplicates */
        (*ci)[k] = (*ci)[k - 1];
        (*cj)[k] = (*cj)[k - 1];
      }
    }
  }
  for (PetscCount k = 0; k < *nc; k++) {
    if (k % 97 == 13) (*ci)[k] = -1;
    if (k % 89 == 7) (*cj)[k] = -3;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Analyses(Mat E, PetscInt *na)
{
  Mat_MPIAIJ    *a = (Mat_MPIAIJ *)E->data;
  MatEllwarpInfo ia, ib;

  PetscFunctionBegin;
  PetscCall(MatEllwarpGetInfo(a->A, &ia));
  PetscCall(MatEllwarpGetInfo(a->B, &ib));
  *na = ia.nanalyses + ib.nanalyses;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Run(Mat ref, Mat E, const char *kind, PetscInt n, PetscInt N, PetscInt variant, PetscBool devvals)
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)E);
  PetscCount   nc;
  PetscInt    *ci, *cj, na0, na1;
  PetscScalar *v, *pv;
  Vec          vv = NULL;
  PetscMPIInt  rank;
  char         what[128];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(MakeCOO(comm, kind, n, N, variant, &nc, &ci, &cj));
  PetscCall(MatSetPreallocationCOO(ref, nc, ci, cj)); /* PETSc may change the index arrays */
  PetscCall(PetscFree2(ci, cj));
  PetscCall(MakeCOO(comm, kind, n, N, variant, &nc, &ci, &cj));
  PetscCall(MatSetPreallocationCOO(E, nc, ci, cj));
  PetscCall(PetscFree2(ci, cj));
  PetscCall(PetscMalloc1(nc, &v));
  pv = v;
#if defined(ELLWARP_HAVE_CUDA)
  if (devvals) {
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, (PetscInt)nc, &vv));
    PetscCall(VecCUDAGetArray(vv, &pv));
  }
#else
  PetscCheck(!devvals, comm, PETSC_ERR_SUP, "-device_values needs CUDA");
#endif
  for (int round = 0; round < 4; round++) {
    InsertMode mode = round == 2 ? ADD_VALUES : INSERT_VALUES;
    for (PetscCount k = 0; k < nc; k++) v[k] = (round + 1) * (MpiTestHash(k + 77 * rank, round) - 0.3);
#if defined(ELLWARP_HAVE_CUDA)
    if (devvals) {
      PetscCall(VecCUDARestoreArray(vv, &pv));
      {
        PetscScalar *a;
        PetscCall(VecGetArrayWrite(vv, &a));
        PetscCall(PetscArraycpy(a, v, nc));
        PetscCall(VecRestoreArrayWrite(vv, &a));
      }
      PetscCall(VecCUDAGetArray(vv, &pv));
    }
#endif
    PetscCall(MatSetValuesCOO(ref, v, mode));
    PetscCall(MatSetValuesCOO(E, pv, mode));
    if (round == 0) PetscCall(Analyses(E, &na0));
    PetscCall(PetscSNPrintf(what, sizeof(what), "pattern %" PetscInt_FMT ", MatSetValuesCOO(%s) round %d", variant, mode == ADD_VALUES ? "ADD" : "INSERT", round));
    PetscCall(MpiTestCompareMat(ref, E, 1e-13, what, &nchecks));
  }
  PetscCall(Analyses(E, &na1));
  PetscCheck(na0 == na1, comm, PETSC_ERR_PLIB, "COO value refreshes re-analysed the blocks (%" PetscInt_FMT " -> %" PetscInt_FMT ")", na0, na1);
  /* bitwise: the same values twice give the same matrix */
  {
    Mat        C1, C2;
    PetscBool  eq;
    Mat_MPIAIJ *c1, *c2;
    PetscCall(MatConvert(E, MATMPIAIJ, MAT_INITIAL_MATRIX, &C1));
    PetscCall(MatSetValuesCOO(E, pv, INSERT_VALUES));
    PetscCall(MatConvert(E, MATMPIAIJ, MAT_INITIAL_MATRIX, &C2));
    c1 = (Mat_MPIAIJ *)C1->data;
    c2 = (Mat_MPIAIJ *)C2->data;
    for (int b = 0; b < 2; b++) {
      Mat_SeqAIJ *s1 = (Mat_SeqAIJ *)(b ? c1->B : c1->A)->data, *s2 = (Mat_SeqAIJ *)(b ? c2->B : c2->A)->data;
      PetscCall(PetscArraycmp(s1->a, s2->a, s1->nz, &eq));
      PetscCheck(eq && s1->nz == s2->nz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO assembly not bitwise reproducible (%s block)", b ? "off-diagonal" : "diagonal");
    }
    nchecks++;
    PetscCall(MatDestroy(&C1));
    PetscCall(MatDestroy(&C2));
  }
  /* host MatSetValues after COO values: the blocks' host values must be the COO ones first */
  {
    PetscInt    rstart, rend;
    PetscScalar one = 1.0;
    PetscCall(MatGetOwnershipRange(E, &rstart, &rend));
    PetscInt   *jj, nj = 0;
    PetscCall(PetscMalloc1(rend - rstart + 1, &jj));
    for (PetscInt i = rstart; i < rend; i += 3) { /* an existing entry of each row (MatSetValues unassembles) */
      PetscInt        ncols;
      const PetscInt *cols;
      PetscCall(MatGetRow(ref, i, &ncols, &cols, NULL));
      jj[nj++] = ncols ? cols[0] : -1;
      PetscCall(MatRestoreRow(ref, i, &ncols, &cols, NULL));
    }
    nj = 0;
    for (PetscInt i = rstart; i < rend; i += 3) {
      PetscInt j = jj[nj++];
      if (j < 0) continue;
      PetscCall(MatSetValues(ref, 1, &i, 1, &j, &one, ADD_VALUES));
      PetscCall(MatSetValues(E, 1, &i, 1, &j, &one, ADD_VALUES));
    }
    PetscCall(PetscFree(jj));
    PetscCall(MatAssemblyBegin(ref, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(ref, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(E, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(E, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscSNPrintf(what, sizeof(what), "pattern %" PetscInt_FMT ", MatSetValues after MatSetValuesCOO", variant));
    PetscCall(MpiTestCompareMat(ref, E, 1e-13, what, &nchecks));
    /* and COO values again after host values */
    PetscCall(MatSetValuesCOO(ref, v, INSERT_VALUES));
    PetscCall(MatSetValuesCOO(E, pv, INSERT_VALUES));
    PetscCall(PetscSNPrintf(what, sizeof(what), "pattern %" PetscInt_FMT ", MatSetValuesCOO after MatSetValues", variant));
    PetscCall(MpiTestCompareMat(ref, E, 1e-13, what, &nchecks));
  }
#if defined(ELLWARP_HAVE_CUDA)
  if (devvals) {
    PetscCall(VecCUDARestoreArray(vv, &pv));
    PetscCall(VecDestroy(&vv));
  }
#endif
  PetscCall(PetscFree(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        type[64] = MATELLWARP, kind[16] = "random";
  PetscInt    n = 6, N, m, empty = -1;
  PetscBool   uneven = PETSC_FALSE, devvals = PETSC_FALSE, is;
  Mat         ref, E;
  MPI_Comm    comm;
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscEllwarpInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscOptionsBegin(comm, NULL, "mpicoo", NULL);
  PetscCall(MpiTestReadOptions(PetscOptionsObject, type, sizeof(type), kind, sizeof(kind), &n, &uneven, &empty));
  PetscCall(PetscOptionsBool("-device_values", "MatSetValuesCOO values in device memory", NULL, devvals, &devvals, NULL));
  PetscOptionsEnd();
  PetscCall(MpiTestSizes(comm, kind, n, uneven, empty, &N, &m));

  PetscCall(MatCreate(comm, &ref));
  PetscCall(MatSetSizes(ref, m, m, N, N));
  PetscCall(MatSetType(ref, MATMPIAIJ));
  PetscCall(MatCreate(comm, &E));
  PetscCall(MatSetSizes(E, m, m, N, N));
  PetscCall(MatSetType(E, type));
  PetscCall(MatSetFromOptions(E));
  PetscCall(PetscObjectTypeCompare((PetscObject)E, MATMPIELLWARP, &is));
  PetscCheck(is, comm, PETSC_ERR_PLIB, "type %s gave %s", type, ((PetscObject)E)->type_name);
  PetscCall(Run(ref, E, kind, n, N, 0, devvals));
  PetscCall(Run(ref, E, kind, n, N, 1, devvals)); /* a second preallocation, another pattern */
  {
    PetscBool isell;
    Mat_MPIAIJ *a = (Mat_MPIAIJ *)E->data;
    PetscCall(PetscObjectTypeCompare((PetscObject)a->B, MATSEQELLWARP, &isell));
    PetscCheck(isell, PETSC_COMM_SELF, PETSC_ERR_PLIB, "off-diagonal block of type %s", ((PetscObject)a->B)->type_name);
  }
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_WORLD, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(E, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(PetscPrintf(comm, "mpicoo: %" PetscInt_FMT " checks passed on %d ranks (%s, N = %" PetscInt_FMT "%s)\n", nchecks, size, kind, N, devvals ? ", device values" : ""));
  PetscCall(MatDestroy(&ref));
  PetscCall(MatDestroy(&E));
  PetscCall(PetscFinalize());
  return 0;
}

/* Life-cycle pieces shared by MATSEQELLWARP (seq/seqellwarp.c) and MATMPIELLWARP (mpi/mpiellwarp.c). */
#include <petscellwarp/private/matellwarpcommon.h>

PetscErrorCode MatEllwarpDefaultBackend_Private(Mat A, const char who[], MatEllwarpBackend *b)
{
  PetscBool avail = PETSC_FALSE;

  PetscFunctionBegin;
#if defined(ELLWARP_HAVE_CUDA)
  PetscCall(EllwarpCUDADeviceAvailable(&avail));
#endif
  *b = avail ? MAT_ELLWARP_BACKEND_CUDA : MAT_ELLWARP_BACKEND_HOST;
  if (!avail) PetscCall(PetscInfo(A, "No usable CUDA device: %s the host reference backend\n", who));
  else PetscCall(PetscInfo(A, "%s the CUDA backend by default\n", who)); /* says which type a program made, assembled or not */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_AIJCUSPARSE_ELLWARP_Private(Mat A, MatType aijtype, MatType elltype, PetscErrorCode (*fromaij)(Mat, MatType, MatReuse, Mat *), MatReuse reuse, Mat *newmat)
{
  Mat B;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatConvert(A, aijtype, MAT_INITIAL_MATRIX, &B));
  PetscCall(fromaij(B, elltype, MAT_INPLACE_MATRIX, &B));
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &B));
  else *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

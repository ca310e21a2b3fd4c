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

/* Our anytype product function is found before the other operand's (PETSc queries A first), so it must choose
   what PETSc would choose for AIJ: the AIJ product code itself assumes AIJ operands (given a MATDIAGONAL it read its
   data as SeqAIJ: a segmentation fault in mat/tests/ex309). */
PetscErrorCode MatProductForOtherTypes_Private(Mat C, MatType elltype, MatType aijtype, PetscBool *other, PetscErrorCode (**f)(Mat))
{
  Mat_Product *p    = C->product;
  Mat          X[3] = {p->A, p->B, p->type == MATPRODUCT_ABC ? p->C : NULL};
  PetscBool    ell[3] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
  char         name[256];

  PetscFunctionBegin;
  *other = PETSC_FALSE;
  *f     = NULL;
  for (int i = 0; i < 3; i++) {
    PetscBool isaij;

    if (!X[i]) continue;
    PetscCall(PetscObjectTypeCompare((PetscObject)X[i], elltype, &ell[i]));
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)X[i], aijtype, &isaij));
    if (!ell[i] && !isaij) *other = PETSC_TRUE;
  }
  if (!*other) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscStrncpy(name, "MatProductSetFromOptions", sizeof(name)));
  for (int i = 0; i < 3; i++) {
    if (!X[i]) continue;
    PetscCall(PetscStrlcat(name, "_", sizeof(name)));
    PetscCall(PetscStrlcat(name, ell[i] ? aijtype : ((PetscObject)X[i])->type_name, sizeof(name)));
  }
  PetscCall(PetscStrlcat(name, "_C", sizeof(name)));
  for (int i = 0; i < 3 && !*f; i++)
    if (X[i]) PetscCall(PetscObjectQueryFunction((PetscObject)X[i], name, f));
  for (int i = 0; i < 3 && !*f; i++)
    if (X[i] && !ell[i]) PetscCall(PetscObjectQueryFunction((PetscObject)X[i], "MatProductSetFromOptions_anytype_C", f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatConvert(A, MATIS): through an AIJ copy of A and AIJ's own converter (MatConvert_XAIJ_IS), so that the MATIS
   has the local-to-global map AIJ's gives, each rank's subdomain its rows and their ghost columns.  Without this
   MatConvert() fell back to MatConvert_Basic, whose MATIS has no overlap: PCMG's GDSW coarse space (built on the
   MATIS's subdomains) had 6 functions instead of AIJ's 50 on snes/tutorials ex17 ge_q1_gdsw (5 ranks), and CG took
   other iterations.  The copy is made once per conversion (set-up time).  Composed as "MatConvert_<type>_is_C" on
   MATSEQELLWARP and MATMPIELLWARP both: MatConvert() to MATAIJ reaches each one's own AIJ converter. */
PetscErrorCode MatConvert_ELLWARP_IS_Private(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat B, C;

  PetscFunctionBegin;
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &B));
  if (reuse == MAT_REUSE_MATRIX) {
    C = *newmat;
    PetscCall(MatConvert(B, MATIS, MAT_REUSE_MATRIX, &C));
  } else PetscCall(MatConvert(B, MATIS, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatDestroy(&B));
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &C));
  else *newmat = C;
  PetscFunctionReturn(PETSC_SUCCESS);
}

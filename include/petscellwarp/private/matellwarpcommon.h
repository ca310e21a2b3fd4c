/* Pieces of the MATSEQELLWARP and MATMPIELLWARP life cycles that are the same logic for both types
   (src/mat/impls/ellwarp/ellwarpcommon.c); each type passes its own names and conversions. */
#pragma once

#include <petscellwarp/private/matellwarpimpl.h>

/* the default backend: the device when one is usable, else the host reference backend, said in -info as
   "No usable CUDA device: <who> the host reference backend" */
PETSC_INTERN PetscErrorCode MatEllwarpDefaultBackend_Private(Mat, const char[], MatEllwarpBackend *);

/* MatConvert from <aij>cusparse to an ELLWARP type: through the plain <aij> type (aijtype) and the type's own
   conversion fromaij (to elltype); MAT_REUSE_MATRIX copies the values */
PETSC_INTERN PetscErrorCode MatConvert_AIJCUSPARSE_ELLWARP_Private(Mat, MatType, MatType, PetscErrorCode (*)(Mat, MatType, MatReuse, Mat *), MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_ELLWARP_IS_Private(Mat, MatType, MatReuse, Mat *);

/* A MatProduct with an operand outside the AIJ family (aijtype: MATSEQAIJ or MATMPIAIJ; dense, diagonal, shell,
   ...): *other says so, and *f is the implementation PETSc would choose with a plain aijtype in place of each
   ELLWARP operand (elltype): the type-pair function under aijtype's name, then the other operand's own anytype
   function; NULL if neither exists */
PETSC_INTERN PetscErrorCode MatProductForOtherTypes_Private(Mat, MatType, MatType, PetscBool *, PetscErrorCode (**)(Mat));

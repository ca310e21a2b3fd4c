/* MatAXPY with MATSEQELLWARP and another AIJ-family operand (src/mat/impls/ellwarp/seq/seqellwarpaxpy.c). */
#pragma once

#include <petscellwarp/private/matellwarpimpl.h>

/* MATSEQELLWARP's axpy op (seqellwarpops.c); also the axpy op of the AIJ-family results of our products */
PETSC_INTERN PetscErrorCode MatAXPY_SeqELLWARP(Mat, PetscScalar, Mat, MatStructure);
/* Y = a X + Y where the operands' layouts are not slot-for-slot the same (one of them may not be MATSEQELLWARP) */
PETSC_INTERN PetscErrorCode MatSeqELLWARPAXPYMixed_Private(Mat, PetscScalar, Mat, MatStructure);
/* give an AIJ-family product result (AIJCUSPARSE, SeqAIJ) MATSEQELLWARP's axpy op, keeping its own for delegation */
PETSC_INTERN PetscErrorCode MatSeqELLWARPSetAXPYPartner_Private(Mat);
/* an AIJCUSPARSE matrix sharing X's host CSR, one per use (seqellwarpproduct.c) */
PETSC_INTERN PetscErrorCode MatSeqELLWARPCreateShadow_Private(Mat, Mat *);

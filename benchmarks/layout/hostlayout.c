/* HostLayoutLoad: a PETSc binary matrix as SeqAIJ and ELLWARP's layout of it as MatConvert(..., MATSEQELLWARP) builds
   it by default (kernel, threshold and sort window automatic, 16-bit and biased 16-bit columns where they fit), with the
   host analysis, which gives the same layout as the device's (tests/analysis.c). */
#include "hostlayout.h"

PetscErrorCode HostLayoutLoad(const char file[], HostLayout *h)
{
  PetscViewer   v;
  PetscBool     done;
  EllwarpParams par;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(h, sizeof(*h)));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, file, FILE_MODE_READ, &v));
  PetscCall(MatCreate(PETSC_COMM_SELF, &h->A));
  PetscCall(MatSetType(h->A, MATSEQAIJ));
  PetscCall(MatLoad(h->A, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(MatGetSize(h->A, &h->m, &h->n));
  PetscCall(MatGetRowIJ(h->A, 0, PETSC_FALSE, PETSC_FALSE, &h->m, &h->ai, &h->aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: no CSR pattern from MatGetRowIJ", file);
  PetscCall(PetscMemzero(&par, sizeof(par)));
  par.kernel       = MAT_ELLWARP_KERNEL_AUTO;
  par.compress     = PETSC_TRUE;
  par.compressbias = PETSC_TRUE;
  par.sortwindow   = -1;
  par.analysis     = 1;
  PetscCall(EllwarpLayoutCreate(h->m, h->n, h->ai, h->aj, NULL, &par, &h->L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode HostLayoutDestroy(HostLayout *h)
{
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(EllwarpLayoutDestroy(&h->L));
  if (h->A) PetscCall(MatRestoreRowIJ(h->A, 0, PETSC_FALSE, PETSC_FALSE, &h->m, &h->ai, &h->aj, &done));
  PetscCall(MatDestroy(&h->A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

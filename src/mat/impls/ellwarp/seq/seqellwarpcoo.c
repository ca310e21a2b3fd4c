/* COO assembly into MATSEQELLWARP (MatSetPreallocationCOO / MatSetValuesCOO).

   SeqAIJ's preallocation builds the pattern and, for each CSR nonzero, the list of COO entries that sum
   into it (jmap/perm).  We add the nonzero -> slot map once per pattern, so MatSetValuesCOO writes
   straight into the ELL-WARP values -- no CSR intermediate, no refresh -- one thread per nonzero adding
   its entries in a fixed order (bitwise reproducible run to run). */
#include <petscellwarp/private/matellwarpimpl.h>
#include <petscdevice.h>

static PetscErrorCode BuildPlan(Mat A)
{
  Mat_SeqELLWARP      *e = (Mat_SeqELLWARP *)A->spptr;
  const EllwarpLayout *L = e->L;
  PetscContainer       container;
  MatCOOStruct_SeqAIJ *coo;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)A, "__PETSc_MatCOOStruct_Host", (PetscObject *)&container));
  PetscCheck(container, PETSC_COMM_SELF, PETSC_ERR_ORDER, "MATSEQELLWARP: call MatSetPreallocationCOO() before MatSetValuesCOO()");
  PetscCall(PetscContainerGetPointer(container, &coo));
  PetscCheck(coo->nz == L->nnz, PETSC_COMM_SELF, PETSC_ERR_ORDER, "MATSEQELLWARP: the nonzero pattern changed since MatSetPreallocationCOO() (%" PetscCount_FMT " nonzeros, %" PetscInt_FMT " then); call it again", L->nnz, coo->nz);
  /* the plan, built by the store from its own slot -> CSR map (on the device for the CUDA store: the
     layout's arrays never come to the host) */
  PetscCall(e->k->coosetup(e->S, coo->n, coo->Atot, coo->jmap, coo->perm));
  e->coostore = e->S;
  e->coostate = A->nonzerostate;
  PetscCall(PetscInfo(A, "COO plan: %" PetscCount_FMT " entries into %" PetscCount_FMT " nonzeros\n", coo->Atot, L->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetPreallocationCOO_SeqELLWARP(Mat A, PetscCount n, PetscInt coo_i[], PetscInt coo_j[])
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;

  PetscFunctionBegin;
  PetscCall(e->aijcooprealloc(A, n, coo_i, coo_j));
  e->coostore    = NULL; /* a new pattern: the plan is rebuilt at the first MatSetValuesCOO() */
  A->offloadmask = PETSC_OFFLOAD_CPU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetValuesCOO_SeqELLWARP(Mat A, const PetscScalar v[], InsertMode imode)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)A->spptr;
  PetscMemType    mtype;

  PetscFunctionBegin;
  if (!A->assembled) { /* first values after the preallocation: settle the SeqAIJ pattern, then analyse */
    /* INSERT_VALUES overwrites every stored slot: the analysis' refresh only zeroes the layout (padding must
       be zero) instead of moving the host values (zeros) to the device */
    e->zerovalues = (PetscBool)(imode == INSERT_VALUES);
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    e->zerovalues = PETSC_FALSE;
  }
  PetscCall(MatSeqELLWARPSyncLayout(A));
  if (e->coostore != e->S) PetscCall(BuildPlan(A)); /* new pattern, or a new analysis (other parameters) */
  PetscCheck(e->coostate == A->nonzerostate, PETSC_COMM_SELF, PETSC_ERR_ORDER, "MATSEQELLWARP: the nonzero pattern changed since MatSetPreallocationCOO(); call it again");
  /* PetscGetMemType() classifies a pointer as device memory only once PETSc's CUDA device is initialized,
     which nothing else in a MATELLWARP program need have done: values from a user's cudaMalloc would read
     as host memory.  AIJCUSPARSE initializes the device when the matrix is made; we do it here. */
  if (e->backend == MAT_ELLWARP_BACKEND_CUDA) PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(PetscGetMemType(v, &mtype));
  PetscCall(PetscLogEventBegin(MAT_ELLWARP_Refresh, A, 0, 0, 0));
  PetscCall(e->k->coovalues(e->S, v, mtype, imode));
  PetscCall(PetscLogEventEnd(MAT_ELLWARP_Refresh, A, 0, 0, 0));
  e->ltcurrent   = PETSC_FALSE;
  e->valversion++;
  A->offloadmask = PETSC_OFFLOAD_GPU; /* the layout holds the values; the host copy follows on demand */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSeqELLWARPSetCOOOps(Mat B)
{
  Mat_SeqELLWARP *e = (Mat_SeqELLWARP *)B->spptr;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)B, "MatSetPreallocationCOO_C", &e->aijcooprealloc));
  PetscCall(PetscObjectQueryFunction((PetscObject)B, "MatSetValuesCOO_C", &e->aijcoovalues));
  PetscCheck(e->aijcooprealloc && e->aijcoovalues, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MATSEQAIJ's COO assembly not found");
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetPreallocationCOO_C", MatSetPreallocationCOO_SeqELLWARP));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetValuesCOO_C", MatSetValuesCOO_SeqELLWARP));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Device COO from user memory (issue: MatSetValuesCOO with values a user's CUDA kernel wrote).

   A user computes element matrices in a kernel of their own and hands the array to MatSetValuesCOO().  The
   array may be cudaMalloc'd, managed (cudaMallocManaged), PETSc's own (VecCUDAGetArray) or on the host; PETSc
   classifies it with PetscGetMemType() and so must MATELLWARP -- never assume.  The COO plan must also survive
   MatDuplicate() in both copy modes, on the original and on the duplicate, one process and several.

   The mesh: an nx x nx square of P1 triangles (two per cell), elements split between the processes in
   contiguous chunks, so entries of rows owned elsewhere go through the MPI COO exchange; every seventh
   element has one entry with a negative row index (ignored, as in PETSc).  The reference is MATAIJ filled
   with MatSetValues(ADD_VALUES) from the same values computed on the host.  Checks: INSERT, then ADD of the
   same values (twice the reference), on the matrix and on its duplicate.

   ellwarp_add_test(coo_usermem.cuda GPU -memory cuda)
   ellwarp_add_test(coo_usermem.managed GPU -memory managed)
   ellwarp_add_test(coo_usermem.petsc GPU -memory petsc)
   ellwarp_add_test(coo_usermem.host_on_cuda GPU -memory host)
   ellwarp_add_test(coo_usermem.cuda_dup_copy GPU -memory cuda -dup copy)
   ellwarp_add_test(coo_usermem.cuda_dup_nocopy GPU -memory cuda -dup nocopy)
   ellwarp_add_test(coo_usermem.np2_cuda GPU NPROCS 2 TIMEOUT 120 -memory cuda -dup nocopy)
   ellwarp_add_test(coo_usermem.np2_managed GPU NPROCS 2 TIMEOUT 120 -memory managed -dup copy)
   ellwarp_add_test(coo_usermem.np2_petsc GPU NPROCS 2 TIMEOUT 120 -memory petsc)
   ellwarp_add_test(coo_usermem.host_backend -memory host -dup nocopy -mat_ellwarp_backend host)
   ellwarp_add_test(coo_usermem.np2_host_backend NPROCS 2 -memory host -dup copy -mat_ellwarp_backend host)
*/
#include <petscellwarp.h>
#include <petscdevice_cuda.h>
#include "testutil.h"

/* the value of entry k (0..8) of element e: the same expression on the host and the device */
__host__ __device__ static inline PetscScalar ElementValue(PetscInt e, PetscInt k)
{
  return (PetscScalar)(1.0 + (double)(e % 13) + 0.5 * (double)k + (k % 4 == 0 ? 3.0 : 0.0));
}

__global__ static void FillValues(PetscInt e0, PetscInt ne, PetscScalar *v)
{
  PetscInt i = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x;
  if (i < 9 * ne) v[i] = ElementValue(e0 + i / 9, i % 9);
}

/* the three nodes of triangle e of an nx x nx grid of cells ((nx+1)^2 nodes) */
static void ElementNodes(PetscInt nx, PetscInt e, PetscInt nd[3])
{
  PetscInt c = e / 2, ci = c % nx, cj = c / nx, n00 = cj * (nx + 1) + ci;
  if (e % 2 == 0) {
    nd[0] = n00, nd[1] = n00 + 1, nd[2] = n00 + nx + 2;
  } else {
    nd[0] = n00, nd[1] = n00 + nx + 2, nd[2] = n00 + nx + 1;
  }
}

static PetscErrorCode Compare(Mat A, Mat ref, PetscReal scale, const char *what)
{
  Mat       C;
  PetscReal nrm, nref;

  PetscFunctionBegin;
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatAXPY(C, -scale, ref, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(C, NORM_FROBENIUS, &nrm));
  PetscCall(MatNorm(ref, NORM_FROBENIUS, &nref));
  PetscCheck(nref > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "reference matrix is zero");
  PetscCheck(nrm <= 1e-13 * scale * nref, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: MATELLWARP differs from MATAIJ by %g (relative)", what, (double)(nrm / (scale * nref)));
  PetscCall(MatDestroy(&C));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: ok\n", what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* INSERT then ADD the same values: the matrix must equal the reference, then twice it */
static PetscErrorCode SetAndCheck(Mat A, const PetscScalar *v, Mat ref, const char *what)
{
  char buf[128];

  PetscFunctionBegin;
  PetscCall(MatSetValuesCOO(A, v, INSERT_VALUES));
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s INSERT", what));
  PetscCall(Compare(A, ref, 1.0, buf));
  PetscCall(MatSetValuesCOO(A, v, ADD_VALUES));
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s ADD", what));
  PetscCall(Compare(A, ref, 2.0, buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt     nx = 24, ne, e0, e1, nloc, nnodes;
  PetscMPIInt  rank, size;
  PetscInt    *coo_i, *coo_j;
  PetscScalar *hv, *uv = NULL;
  Vec          pv = NULL;
  Mat          ref, A, B = NULL;
  char         memory[16] = "cuda", dup[16] = "none";
  PetscBool    hostonly;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "MatSetValuesCOO with values in user memory of every kind"));
  PetscCall(PetscEllwarpInitializePackage());
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "coo_usermem options", NULL);
  PetscCall(PetscOptionsInt("-nx", "cells a side", NULL, nx, &nx, NULL));
  PetscCall(PetscOptionsString("-memory", "where the values live: cuda, managed, petsc, host", NULL, memory, memory, sizeof(memory), NULL));
  PetscCall(PetscOptionsString("-dup", "MatDuplicate before setting values: none, copy, nocopy", NULL, dup, dup, sizeof(dup), NULL));
  PetscOptionsEnd();
  PetscCall(PetscStrcmp(memory, "host", &hostonly));

  ne     = 2 * nx * nx;
  nnodes = (nx + 1) * (nx + 1);
  e0     = (ne * rank) / size;
  e1     = (ne * (rank + 1)) / size;
  nloc   = e1 - e0;

  /* COO pattern and the host copy of the values */
  PetscCall(PetscMalloc3(9 * nloc, &coo_i, 9 * nloc, &coo_j, 9 * nloc, &hv));
  for (PetscInt e = e0; e < e1; e++) {
    PetscInt nd[3];
    ElementNodes(nx, e, nd);
    for (PetscInt a = 0; a < 3; a++)
      for (PetscInt b = 0; b < 3; b++) {
        PetscInt k = 9 * (e - e0) + 3 * a + b;
        coo_i[k]   = nd[a];
        coo_j[k]   = nd[b];
        hv[k]      = ElementValue(e, 3 * a + b);
      }
    if (e % 7 == 0) coo_i[9 * (e - e0) + 4] = -1; /* ignored entry */
  }

  /* the reference: MATAIJ by MatSetValues from the host values */
  PetscCall(MatCreate(PETSC_COMM_WORLD, &ref));
  PetscCall(MatSetSizes(ref, PETSC_DECIDE, PETSC_DECIDE, nnodes, nnodes));
  PetscCall(MatSetType(ref, MATAIJ));
  PetscCall(MatSetUp(ref));
  PetscCall(MatSetOption(ref, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt k = 0; k < 9 * nloc; k++)
    if (coo_i[k] >= 0) PetscCall(MatSetValue(ref, coo_i[k], coo_j[k], hv[k], ADD_VALUES));
  PetscCall(MatAssemblyBegin(ref, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(ref, MAT_FINAL_ASSEMBLY));

  /* the values as the user's kernel writes them */
  if (!strcmp(memory, "cuda") || !strcmp(memory, "managed")) {
    if (!strcmp(memory, "cuda")) PetscCallCUDA(cudaMalloc((void **)&uv, PetscMax(1, 9 * nloc) * sizeof(PetscScalar)));
    else PetscCallCUDA(cudaMallocManaged((void **)&uv, PetscMax(1, 9 * nloc) * sizeof(PetscScalar)));
    if (nloc) FillValues<<<(unsigned)((9 * nloc + 255) / 256), 256>>>(e0, nloc, uv);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaDeviceSynchronize());
  } else if (!strcmp(memory, "petsc")) {
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, 9 * nloc, &pv));
    PetscCall(VecCUDAGetArray(pv, &uv));
    if (nloc) FillValues<<<(unsigned)((9 * nloc + 255) / 256), 256>>>(e0, nloc, uv);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaDeviceSynchronize());
  } else {
    PetscCheck(hostonly, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-memory %s: expected cuda, managed, petsc or host", memory);
    uv = hv;
  }

  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, nnodes, nnodes));
  PetscCall(MatSetType(A, MATELLWARP));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSetPreallocationCOO(A, 9 * nloc, coo_i, coo_j));
  if (!strcmp(dup, "none")) {
    PetscCall(SetAndCheck(A, uv, ref, "original"));
  } else {
    PetscBool copy = (PetscBool)!strcmp(dup, "copy");
    PetscCheck(copy || !strcmp(dup, "nocopy"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-dup %s: expected none, copy or nocopy", dup);
    if (copy) {
      PetscCall(MatSetValuesCOO(A, uv, INSERT_VALUES));
      PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
      PetscCall(Compare(B, ref, 1.0, "duplicate (values copied)"));
    } else PetscCall(MatDuplicate(A, MAT_DO_NOT_COPY_VALUES, &B));
    PetscCall(SetAndCheck(B, uv, ref, "duplicate"));
    PetscCall(SetAndCheck(A, uv, ref, "original after duplicate"));
    PetscCall(Compare(B, ref, 2.0, "duplicate unchanged by the original"));
    PetscCall(MatDestroy(&B));
  }

  /* that the values really were device memory: checked only now, since PETSc classifies device pointers only
     after its CUDA device is initialized, which (with -memory cuda or managed) nothing but the matrix has done:
     the user's situation that once made MATELLWARP read device values as host memory */
  if (!hostonly) {
    PetscMemType mtype;
    PetscCall(PetscGetMemType(uv, &mtype));
    PetscCheck(PetscMemTypeDevice(mtype), PETSC_COMM_SELF, PETSC_ERR_PLIB, "-memory %s: PETSc does not classify the array as device memory", memory);
  }
  if (pv) {
    PetscCall(VecCUDARestoreArray(pv, &uv));
    PetscCall(VecDestroy(&pv));
  } else if (!hostonly) PetscCallCUDA(cudaFree(uv));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&ref));
  PetscCall(PetscFree3(coo_i, coo_j, hv));
  PetscCall(PetscFinalize());
  return 0;
}

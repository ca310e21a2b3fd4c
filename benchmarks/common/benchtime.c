/* Timing helpers shared by the benchmarks (benchtime.h). */
#include "benchtime.h"
#if defined(ELLWARP_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

static int CompareDouble(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double BenchMedian(double t[], PetscInt n)
{
  qsort(t, (size_t)n, sizeof(double), CompareDouble);
  return t[n / 2];
}

#if defined(ELLWARP_HAVE_CUDA)
PetscErrorCode BenchDeviceMedianTime(PetscErrorCode (*op)(void *), void *ctx, PetscInt reps, double *sec)
{
  cudaEvent_t  e0, e1;
  cudaStream_t s;
  double      *t;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&s));
  PetscCallCUDA(cudaEventCreate(&e0));
  PetscCallCUDA(cudaEventCreate(&e1));
  PetscCall(PetscMalloc1(reps, &t));
  PetscCall((*op)(ctx));
  for (PetscInt r = 0; r < reps; r++) {
    float ms;
    PetscCallCUDA(cudaEventRecord(e0, s));
    PetscCall((*op)(ctx));
    PetscCallCUDA(cudaEventRecord(e1, s));
    PetscCallCUDA(cudaEventSynchronize(e1));
    PetscCallCUDA(cudaEventElapsedTime(&ms, e0, e1));
    t[r] = ms * 1e-3;
  }
  *sec = BenchMedian(t, reps);
  PetscCall(PetscFree(t));
  PetscCallCUDA(cudaEventDestroy(e0));
  PetscCallCUDA(cudaEventDestroy(e1));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

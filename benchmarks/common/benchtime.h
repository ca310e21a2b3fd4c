/* Timing helpers shared by the benchmarks (benchmarks/common/benchtime.c): medians of repeated runs. */
#pragma once

#include <petscsys.h>

/* Sorts t[0, n) in place and returns t[n / 2] (the upper median when n is even). */
double BenchMedian(double t[], PetscInt n);

#if defined(ELLWARP_HAVE_CUDA)
/* Median seconds of op(ctx) over reps runs after one warm-up (plans, analysis), measured with CUDA events on
   PETSc's current stream (one event pair for all runs). */
PetscErrorCode BenchDeviceMedianTime(PetscErrorCode (*op)(void *), void *ctx, PetscInt reps, double *sec);
#endif

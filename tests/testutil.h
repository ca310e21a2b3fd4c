/* Helpers for the test programs (not part of the library).

   GPU tests start with EllwarpTestRequireDevice() in main(), before PetscInitialize():
     int main(int argc, char **argv) { EllwarpTestRequireDevice(); PetscCall(PetscInitialize(...)); ... }
   Without a usable CUDA device it prints "skipped: no CUDA device" and returns 77, which CTest reports as
   skipped (tests/CMakeLists.txt matches the message), except in a build configured with -DELLWARP_GPU_TESTS=ON, where a GPU
   test must run and 77 is a failure. */
#pragma once
#include <stdio.h>

#if defined(ELLWARP_HAVE_CUDA)
  #include <cuda_runtime_api.h>
static inline int EllwarpTestHaveDevice(void)
{
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n > 0;
}
#else
static inline int EllwarpTestHaveDevice(void)
{
  return 0;
}
#endif

#define EllwarpTestRequireDevice() \
  do { \
    if (!EllwarpTestHaveDevice()) { \
      printf("skipped: no CUDA device\n"); \
      return 77; \
    } \
  } while (0)

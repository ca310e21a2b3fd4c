/* The test suite's device check (not part of the library): EllwarpTestHaveDevice() is true when the CUDA
   runtime sees a device.  Only tests/support/have_device.c calls it; every GPU-labelled test is gated by
   that program through tests/support/run_expect.sh (one switch: the GPU keyword of ellwarp_add_test), so
   the test programs themselves assume that a test asking for the cuda backend has a device. */
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

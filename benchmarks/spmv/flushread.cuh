/* The read flush of the cold timings of spmv_bench.cu and slice_order_probe.cu: a grid-stride read of a buffer of
   2 x L2 with ld.global.cg; every thread sums its share, and one store per block keeps the loads live.
   Why a second mode beside a memset: a memset leaves the whole L2 dirty (2x its size written), so the product that
   follows pays for writing ~L2-size bytes back to DRAM besides its own traffic (~50 MB, ~17 us at 3 TB/s on an H100);
   in a solver the product follows vector operations that dirty a few MB.  Reading evicts the product's data just the
   same with clean lines.  Why .cg and not .cs: evict-first lines do not push the previous product's data out of L2 (a
   first version of the probe's flush did so, and its products ran up to 11 % fast on the smaller matrices). */
#pragma once

__global__ static void FlushRead(const double *__restrict__ b, size_t n, double *sink)
{
  double s = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) s += __ldcg(b + i);
  if (s == 1234.5) sink[blockIdx.x] = s; /* practically never true; the compiler cannot drop the loads */
}

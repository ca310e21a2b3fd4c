#!/usr/bin/env bash
# The library as landed this session (after the review: one gather kernel for values and the slot map): the GPU tests
# of the blocked layout, the elasticity assembly and the example, the analysis; memcheck of the blocked matops and of
# the windowed block lists; mesh 1 and 3 with -products once more.  One H100 call, files under $OUT.
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=$(command -v compute-sanitizer || echo /usr/local/cuda-13.0/bin/compute-sanitizer)
L=$OUT/gpu-tests.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $L
( cd $B && timeout 200 stdbuf -oL ctest -L gpu -R 'matops|analysis|assembly_elasticity|example_elasticity|spmv|dropin' -j 4 --output-on-failure ) >> $L 2>&1
echo "ctest rc=$?" >> $L
timeout 90 stdbuf -oL $CS --tool memcheck --leak-check no $B/tests/matops -backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 2 >> $L 2>&1
echo "memcheck matops rc=$?" >> $L
timeout 90 stdbuf -oL $CS --tool memcheck --leak-check no $B/tests/assembly_elasticity -elem hex -faces 5 -distort -gpu -dm_assembly_kiran_block_span 1500 >> $L 2>&1
echo "memcheck elasticity rc=$?" >> $L
R=$OUT/bench.log
COMMON="-repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo -products -targets ellwarp,aijcusparse"
for mesh in 192x24x24 400x50x50; do
  echo "# mesh $mesh" >> $R
  timeout 120 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench $COMMON -meshes $mesh 2>&1 | grep -E "^kiran|^# kiran" >> $R
done
grep -E "tests passed|tests failed|ERROR SUMMARY|rc=" $L | head; cut -c1-200 $R

#!/usr/bin/env bash
# Issue 18: the blocked product layout refreshed straight from the scalar layout by a slot map (one pass; before: a
# scatter to the CSR staging copy and a gather from it, first-product/).  One H100 call: the GPU test suite (all but
# PETSc's own), compute-sanitizer memcheck of the blocked matops tests; then, as first-product/, elasticity_bench
# -products on meshes 1 and 3: ELLWARP (blocked products), AIJCUSPARSE, ELLWARP -mat_ellwarp_block off.  Files under $OUT.
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=$(command -v compute-sanitizer || echo /usr/local/cuda-13.0/bin/compute-sanitizer)
L=$OUT/gpu-tests.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $L
ELLWARP_GPU_TIMEOUT=190 ELLWARP_GPU_JOBS=8 timeout 330 bash scripts/gpu-test.sh -L gpu -E petsc_suite >> $L 2>&1
echo "gpu-test rc=$?" >> $L
for a in "-mat_ellwarp_block on" "-mat_ellwarp_block on -mat_ellwarp_block_lanes 4"; do
  timeout 90 stdbuf -oL $CS --tool memcheck --leak-check no $B/tests/matops -backend cuda -blocked $a >> $L 2>&1
  echo "memcheck matops $a rc=$?" >> $L
done
R=$OUT/bench.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $R
COMMON="-repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo -products"
for mesh in 192x24x24 400x50x50; do
  echo "# mesh $mesh: ELLWARP (default: blocked products, refreshed by the slot map), AIJCUSPARSE" >> $R
  timeout 120 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench $COMMON -meshes $mesh -targets ellwarp,aijcusparse 2>&1 | grep -E "^kiran|^# kiran" >> $R
  echo "# mesh $mesh: ELLWARP -mat_ellwarp_block off (scalar products)" >> $R
  timeout 120 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench $COMMON -meshes $mesh -targets ellwarp -mat_ellwarp_block off 2>&1 | grep -E "^kiran|^# kiran" >> $R
done
grep -E "tests passed|tests failed|Failed|ERROR SUMMARY|rc=" $L | head -20; cut -c1-220 $R

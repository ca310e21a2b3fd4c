#!/usr/bin/env bash
# Issue 18 value store, then the blocked store created at the first product (not at the analysis that chose it): the
# GPU test suite but PETSc's own, memcheck of the blocked matops tests, and mesh 1 with -products (the store's creation
# falls in the warm-up; the assembly and the first product's refresh as before).  Files under $OUT.
cd "$(dirname "$0")/../../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=$(command -v compute-sanitizer || echo /usr/local/cuda-13.0/bin/compute-sanitizer)
L=$OUT/gpu-tests.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $L
ELLWARP_GPU_TIMEOUT=190 ELLWARP_GPU_JOBS=8 timeout 360 bash scripts/gpu-test.sh -L gpu -E petsc_suite >> $L 2>&1
echo "gpu-test rc=$?" >> $L
timeout 120 stdbuf -oL $CS --tool memcheck --leak-check no $B/tests/matops -backend cuda -blocked -mat_ellwarp_block on >> $L 2>&1
echo "memcheck matops -blocked on rc=$?" >> $L
BW=2990; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && BW=4280
P=$OUT/products.log
nvidia-smi --query-gpu=name --format=csv,noheader > $P
timeout 120 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -repeats 5 -peak_bw $BW -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo -products -meshes 192x24x24 -targets ellwarp,aijcusparse 2>&1 | grep -E "^kiran|^# kiran" >> $P
grep -E "tests passed|tests failed|Failed|ERROR SUMMARY|rc=|value stores" $L | head -20; cut -c1-200 $P

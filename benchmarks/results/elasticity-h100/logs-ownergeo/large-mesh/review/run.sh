#!/usr/bin/env bash
# The review commit (one row-search helper for the host plans and the device kernels): the GPU suite but PETSc's own
# tests, memcheck of the elasticity assembly (distorted hexahedra, every strategy and target) and of the wide-row
# fallback, then mesh 1 into ELLWARP (kiran:auto) as a reference figure.  Files under $OUT.
cd "$(dirname "$0")/../../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > $OUT/gpu-tests.log
ELLWARP_GPU_TIMEOUT=190 ELLWARP_GPU_JOBS=8 timeout 280 bash scripts/gpu-test.sh -L gpu -E petsc_suite >> $OUT/gpu-tests.log 2>&1
grep -E "tests passed|tests failed|Failed|\*\*\*" $OUT/gpu-tests.log | head -12
for a in "-elem hex -faces 3 -distort" "-elem hex -faces 28 -kiran_wide_row"; do
  timeout 200 /usr/local/cuda-13.0/bin/compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/assembly_elasticity $a -gpu >> $OUT/memcheck.log 2>&1
  echo "memcheck $a rc=$?" | tee -a $OUT/memcheck.log
done
grep "ERROR SUMMARY" $OUT/memcheck.log
BW=2990; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && BW=4280
timeout 60 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 192x24x24 -repeats 5 -peak_bw $BW -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:auto -targets ellwarp,aijcusparse > $OUT/bench.log 2>&1
grep -E "^kiran" $OUT/bench.log

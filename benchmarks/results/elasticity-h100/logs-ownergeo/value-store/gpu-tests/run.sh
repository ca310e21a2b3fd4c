#!/usr/bin/env bash
# Issue 18 value store (../run.sh): the GPU test suite but PETSc's own, and compute-sanitizer memcheck of the blocked
# matops tests (the scalar layout a value store, built by the device analysis with K1 and windows of 256).  Files under $OUT.
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
timeout 90 stdbuf -oL $CS --tool memcheck --leak-check no $B/tests/assembly_elasticity -elem hex -faces 5 -distort -gpu >> $L 2>&1
echo "memcheck assembly_elasticity rc=$?" >> $L
grep -E "tests passed|tests failed|Failed|ERROR SUMMARY|rc=|value stores" $L | head -20

#!/usr/bin/env bash
# The second review commit (one lazily-allocating buffer helper for ke and the element-state buffers, a test helper):
# the GPU tests of the assembler (every method, element buffers and fused paths) and memcheck of the elasticity test.
cd "$(dirname "$0")/../../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > $OUT/gpu-tests.log
( cd $B && ELLWARP_GPU_TIMEOUT=150 timeout 300 ctest -R "assembly|cardiac|example" -L gpu -j6 --output-on-failure ) >> $OUT/gpu-tests.log 2>&1
grep -E "tests passed|tests failed|Failed|\*\*\*" $OUT/gpu-tests.log | head
timeout 150 /usr/local/cuda-13.0/bin/compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/assembly_elasticity -elem hex -faces 3 -distort -gpu > $OUT/memcheck.log 2>&1
echo "memcheck rc=$?"; grep "ERROR SUMMARY" $OUT/memcheck.log

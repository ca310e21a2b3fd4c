#!/usr/bin/env bash
# The owner plan from the target's rows on the device, its fallback path: the GPU tests of the elasticity assembly
# (gpu_auto_wide_row: a dense row makes the 16-bit store lists not fit, auto falls back to ppnirow through the element
# targets built at that point, explicit ownergeo errors), then memcheck of that test.  Files under $OUT.
cd "$(dirname "$0")/../../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > $OUT/gpu-tests.log
( cd $B && ELLWARP_GPU_TIMEOUT=150 timeout 240 ctest -R "assembly_elasticity" -L gpu -j4 --output-on-failure ) >> $OUT/gpu-tests.log 2>&1
grep -E "tests passed|tests failed|Failed|\*\*\*" $OUT/gpu-tests.log | head
timeout 240 /usr/local/cuda-13.0/bin/compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/assembly_elasticity -elem hex -faces 28 -kiran_wide_row -gpu > $OUT/memcheck.log 2>&1
echo "memcheck rc=$?"; grep -E "dense row|passed|ERROR SUMMARY" $OUT/memcheck.log | cut -c1-200

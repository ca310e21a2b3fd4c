#!/usr/bin/env bash
# The review commit (blocked choice keyed by the analysis number alone): the GPU tests of the blocked layout, the
# analysis and the elasticity assembly and example on the device.  Files under $OUT.
cd "$(dirname "$0")/../../../../../.."
source scripts/gpu-env.sh >/dev/null 2>&1
cd $ELLWARP_GPU_BUILD && nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/review-gpu.log
timeout 240 ctest -L gpu -R "matops.cuda_block|analysis|assembly_elasticity|example_elasticity" -j8 >> $OUT/review-gpu.log 2>&1
echo "ctest rc=$?" >> $OUT/review-gpu.log
grep -E "H100|H200|tests passed|tests failed|Failed|rc=" $OUT/review-gpu.log

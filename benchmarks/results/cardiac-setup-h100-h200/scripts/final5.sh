#!/usr/bin/env bash
# where DMAsmSetUp's unattributed second goes: the 1 M LV set-up with the DMAsmBuffers event, twice
cd "$(dirname "$0")/../../../.."  # the repository root (this script lives in benchmarks/results/<dir>/scripts or .../<dir>)
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
for r in 1 2; do
  nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/setup-buffers-$r.log
  timeout 90 $B/examples/cardiac -mesh lv -refine 2 -dm_mat_type ellwarp -dm_vec_type cuda -dt 0.25 -steps 2 -final_vtu 0 -png 0 -output_dir /tmp/cout -log_view -log_view_gpu_time >> $OUT/setup-buffers-$r.log 2>&1
  grep -E "setup [0-9.]+ s =" $OUT/setup-buffers-$r.log; grep -E "^DMAsm|^Cardiac(Section|ElemData|Vectors)" $OUT/setup-buffers-$r.log | awk '{print $1, $4}' | tr '\n' ' '; echo
done

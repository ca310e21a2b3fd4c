#!/usr/bin/env bash
# merged main: 500 ms of the 1.08 M-vertex LV (set-up included) and the 20 k README demo, new against base
cd "$(dirname "$0")/../../../.."  # the repository root (this script lives in benchmarks/results/<dir>/scripts or .../<dir>)
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
mkdir -p $OUT/lv1m-new $OUT/lv1m-base
timeout 60 $B/examples/cardiac -mesh lv -refine 2 -dm_mat_type ellwarp -dm_vec_type cuda -dt 0.25 -steps 2 -final_vtu 0 -png 0 -output_dir /tmp/cout -log_view -log_view_gpu_time > $OUT/lv1m-setup-events.log 2>&1
( time timeout 200 bash benchmarks/cardiac/lv1m_500ms.sh -x $B/examples/cardiac -o $OUT/lv1m-new ) > $OUT/lv1m-new.txt 2>&1
( time LD_LIBRARY_PATH=$PWD/.gpu/base/lib:$LD_LIBRARY_PATH timeout 200 bash benchmarks/cardiac/lv1m_500ms.sh -x $PWD/.gpu/base/cardiac -o $OUT/lv1m-base ) > $OUT/lv1m-base.txt 2>&1
for r in 1 2; do
  for v in new base; do
    x=$B/examples/cardiac; l=""; [ $v = base ] && { x=$PWD/.gpu/base/cardiac; l=$PWD/.gpu/base/lib:; }
    echo "=== demo $v round $r" >> $OUT/demo.txt
    ( time LD_LIBRARY_PATH=$l$LD_LIBRARY_PATH timeout 60 $x -dm_mat_type ellwarp -dm_vec_type cuda -dt 0.25 -vtu_every 0 -final_vtu 0 -png 0 -output_dir /tmp/cout -monitor_every 0 ) >> $OUT/demo.txt 2>&1
  done
done
grep -E "setup [0-9.]+ s =" $OUT/lv1m-setup-events.log; grep -E "^Cardiac|^DMAsm|^DMPlexBuFr|^MatGetOrdering" $OUT/lv1m-setup-events.log | awk '{print $1, $4}'
grep -hE "setup [0-9.]+ s =|per step|activated|process wall|^real" $OUT/lv1m-*.txt $OUT/lv1m-*/lv1m-500ms.log | cut -c1-250
rm -f $OUT/lv1m-*/activation.png
grep -E "===|per step|^real|activated" $OUT/demo.txt | cut -c1-250

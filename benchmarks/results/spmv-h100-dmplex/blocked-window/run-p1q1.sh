#!/usr/bin/env bash
# issue 17: the blocked layout's whole-matrix sort against the 256-block-row window on box P1/Q1 elasticity (T = 1 matrices)
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
M=/tmp/ellwarp-c17c; rm -rf $M; mkdir -p $M
for k in p1v q1v; do timeout 200 stdbuf -oL $B/benchmarks/spmv/plex_matrices -rows 320000 -out_dir $M -kinds $k -orders default > $M/gen-$k.log 2>&1 & done
wait
BIN=$(grep -h "^# wrote" $M/gen-*.log | awk '{print $3}' | sort | paste -sd, -)
for w in 256 1048576; do
  echo "## block_sort_window=$w" >> $OUT/window-p1q1.log
  timeout 100 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$BIN" -formats ellwarp,blocklanes,aijcusparse -products 100 -repeats 3 -peak_gbs 2990 -mat_ellwarp_tune block_sort_window=$w >> $OUT/window-p1q1.log 2>&1
  echo "spmv_bench rc=$?" >> $OUT/window-p1q1.log
done
rm -rf $M
grep -E "^## |^# \[|ellwarp_auto|ellwarp_block_T|aijcusparse" $OUT/window-p1q1.log | cut -c1-80

#!/usr/bin/env bash
# issue 17: (1) cold products after a read flush (clean L2) on the DMPlex default-numbered box matrices + gmsh LV,
# (2) the blocked layout's whole-matrix sort (block_sort_window) on the matrices whose block rows vary
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
M=/tmp/ellwarp-c17b; rm -rf $M; mkdir -p $M
xz -dc examples/cardiac/data/lv_coarse.msh.xz > "$M/lv_coarse.msh"
pids=""
for k in p1s p2s q1s q2s p1v p2v q1v q2v; do
  timeout 200 stdbuf -oL $B/benchmarks/spmv/plex_matrices -rows 320000 -out_dir $M -kinds $k -orders default > $M/gen-$k.log 2>&1 &
  pids="$pids $!"
done
timeout 200 stdbuf -oL $B/benchmarks/spmv/plex_matrices -rows 320000 -out_dir $M -kinds p1v -orders default -gmsh $M/lv_coarse.msh > $M/gen-gmsh.log 2>&1 &
pids="$pids $!"
for p in $pids; do wait $p; echo "pid $p rc=$?" >> $OUT/gen.log; done
grep -h "^STATS" $M/gen-*.log | sort >> $OUT/gen.log
BIN=$(grep -h "^# wrote" $M/gen-*.log | awk '{print $3}' | sort | paste -sd, -)
timeout 200 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$BIN" -formats ellwarp,aijcusparse,sell32,bsr -sell_mode inline -cold_flush read -products 100 -repeats 3 -peak_gbs 2990 > $OUT/spmv-read.log 2>&1
echo "spmv_bench rc=$?" >> $OUT/spmv-read.log
VB=$(ls $M/*p2v*.bin $M/*q2v*.bin $M/gmsh*.bin 2>/dev/null | paste -sd, -)
timeout 120 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$VB" -formats ellwarp,blocklanes -products 100 -repeats 3 -peak_gbs 2990 -mat_ellwarp_tune block_sort_window=1048576 > $OUT/window.log 2>&1
echo "spmv_bench rc=$?" >> $OUT/window.log
rm -rf $M
grep -E "^# \[|ellwarp_auto|aijcusparse|cusparse_sell32|cusparse_bsr" $OUT/spmv-read.log | cut -c1-110
grep -E "^# \[|ellwarp_auto|ellwarp_block_T" $OUT/window.log | cut -c1-80
grep rc= $OUT/*.log

#!/usr/bin/env bash
# issue 17 probe: ELLWARP kernel variants and the parameter sweep on DMPlex default-numbered matrices, 0.33 M and 1.3 M rows
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
M=/tmp/ewm; rm -rf $M; mkdir -p $M
pids=""
for k in p1s q1s q1v q2s; do timeout 200 $B/benchmarks/spmv/plex_matrices -rows 320000 -out_dir $M -kinds $k -orders default > $M/gen-$k.log 2>&1 & pids="$pids $!"; done
for k in q1s p1s; do mkdir -p $M/big; timeout 240 $B/benchmarks/spmv/plex_matrices -rows 1300000 -out_dir $M/big -kinds $k -orders default > $M/gen-big-$k.log 2>&1 & pids="$pids $!"; done
for p in $pids; do wait $p; done
grep -h "^# wrote\|^STATS" $M/gen-*.log > $OUT/gen.log
BIN=$(ls $M/*.bin | paste -sd, -); BIG=$(ls $M/big/*.bin | paste -sd, -)
timeout 250 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$BIN" -formats ellwarp,sweep,variants,aijcusparse,cusparse,sell32,bsr -variants all -sweep_budget 12 -pair_rounds 3 -products 100 -repeats 3 -peak_gbs 2990 > $OUT/small.log 2>&1
echo rc=$? >> $OUT/small.log
timeout 150 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$BIG" -formats ellwarp,variants,aijcusparse,cusparse,sell32 -variants default,l2,l4,u8,u8nc,nc,bs512,a2 -products 100 -repeats 3 -peak_gbs 2990 > $OUT/big.log 2>&1
echo rc=$? >> $OUT/big.log
grep -A30 "^# summary, bytes" $OUT/small.log $OUT/big.log | head -40

#!/usr/bin/env bash
# issue 17: the re-calibrated lanes rule (run-blocklanes.sh, 6 files) + DMPlex matrices at 1.4 M rows (2 files)
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
O=$OUT; mkdir -p $O/rule $O/large
OUT=$O/rule bash benchmarks/results/spmv-h100-dmplex/run-blocklanes.sh > /dev/null 2>&1
M=/tmp/ellwarp-large-mats; rm -rf $M; mkdir -p $M
pids=""
for k in p1s q1s p1v q1v; do
  timeout 300 stdbuf -oL $B/benchmarks/spmv/plex_matrices -rows 1400000 -out_dir $M -kinds $k -orders default > $M/gen-$k.log 2>&1 &
  pids="$pids $!"
done
for p in $pids; do wait $p; echo "pid $p rc=$?" >> $O/large/gen.log; done
cat $M/gen-*.log >> $O/large/gen.log
grep -h "^STATS" $M/gen-*.log | sort >> $O/large/gen.log
BIN=$(grep -h "^# wrote" $M/gen-*.log | awk '{print $3}' | sort | paste -sd, -)
timeout 150 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$BIN" -formats ellwarp,aijcusparse,sell32,bsr -sell_mode inline -products 50 -repeats 3 -peak_gbs 2990 > $O/large/spmv.log 2>&1
echo "spmv_bench rc=$?" >> $O/large/spmv.log
rm -rf $M
grep -E "^# \[|ellwarp_auto|ellwarp_block_T|aijcusparse|cusparse_bsr" $O/rule/spmv.log | cut -c1-60
grep -E "^# \[|ellwarp_auto|aijcusparse|cusparse_sell|cusparse_bsr|rc=" $O/large/spmv.log | cut -c1-140
grep -E "rc=|Failed" $O/rule/*.log $O/large/gen.log

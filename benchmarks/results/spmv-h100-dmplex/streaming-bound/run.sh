#!/usr/bin/env bash
# Issue 17, what is left: (1) the streaming bound at each matrix's size (spmv_bench -formats readbound: a kernel that
# reads and writes ELLWARP's bytes, timed like the products) beside ELLWARP and its peers, cold with the memset flush
# (bound-memset.log) and with the read flush (bound-read.log), box P1/P2/Q1/Q2 scalar and Q2 elasticity in DMPlex's
# default numbering, 0.33 M rows; with the kernel variants b2/b8 and 256/512-thread blocks (scalar: the P2 sweep's
# best had 256) and bb2/bb4 (blocked);
# (2) the exhaustive sweep of P2 and Q2 scalar with every point in sweep.json (sweep.log); (3) Nsight Compute counters
# of one product of ELLWARP and sliced ELL on P2 and Q2 scalar (ncu-*.csv).  Files under $OUT.
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
S=$B/benchmarks/spmv/spmv_bench
M=${TMPDIR:-/tmp}/ellwarp-bound-mats; L=$OUT/gen.log; ROWS=320000; GEN_TIMEOUT=150
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
gen_begin
gen_matrices box default p1s p2s q1s q2s q2v
gen_finish
for fl in memset read; do
  timeout 150 stdbuf -oL $S -suite none -bin "$BIN" -formats ellwarp,readbound,aijcusparse,sell32,bsr,variants -variants default,b2,b8,bs256,bs512,b8bs256,bb2,bb4 -products 100 -repeats 3 -peak_gbs 2990 -cold_flush $fl > $OUT/bound-$fl.log 2>&1
  echo "rc=$?" >> $OUT/bound-$fl.log
done
SW=$(echo $BIN | tr , '\n' | grep -E "p2s|q2s" | paste -sd, -)
timeout 120 stdbuf -oL $S -suite none -bin "$SW" -formats ellwarp,sweep,aijcusparse -sweep_budget 40 -pair_rounds 3 -products 100 -repeats 3 -peak_gbs 2990 -json $OUT/sweep.json > $OUT/sweep.log 2>&1
echo "rc=$?" >> $OUT/sweep.log
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
MET=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__warps_eligible.avg.per_cycle_active,lts__t_sectors_srcunit_tex_op_read.sum
for f in $(echo $SW | tr , ' '); do
  n=$(basename $f .bin)
  timeout 100 $NCU --clock-control none --csv --metrics $MET $S -suite none -bin $f -formats ellwarp,readbound,sell32 -products 1 -repeats 1 -peak_gbs 2990 > $OUT/ncu-$n.csv 2>> $OUT/ncu.log
  echo "$n ncu rc=$?" >> $OUT/ncu.log
done
rm -rf $M
grep -E "^# \[|ellwarp_auto|read_ew|aijcusparse|cusparse_sell32|cusparse_bsr|^VARIANT|rc=" $OUT/bound-memset.log | cut -c1-150
sed -n '/bytes really moved/,$p' $OUT/bound-memset.log $OUT/bound-read.log
grep -E "^# \[|ellwarp auto|sweep:|paired|rc=" $OUT/sweep.log

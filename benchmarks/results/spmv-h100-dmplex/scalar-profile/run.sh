#!/usr/bin/env bash
# Issue 17, scalar matrices: why ELLWARP's product reaches 74-79 % of the bandwidth at 1.4 M rows where cuSPARSE's
# sliced ELL reaches 86-88 % on more bytes.  (1) Nsight Compute counters of every kernel of one product of each format
# (ELLWARP, cuSPARSE sliced ELL, AIJCUSPARSE) on box P1/Q1 scalar, DMPlex default numbering, 1.4 M rows: DRAM bytes
# really read/written, L2/L1 sectors, occupancy, registers, stall reasons (ncu.csv); (2) timings of layouts that separate
# the row sort from the rest: the automatic choice, rows kept in slice order (sort_window=32), each with the column modes
# and kernel variants (times.log).  Files under $OUT.
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
ROWS=1400000
M=${TMPDIR:-/tmp}/ellwarp-profile-mats
L=$OUT/gen.log
GEN_TIMEOUT=200
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
gen_begin
gen_matrices box default p1s q1s
gen_finish
S=$B/benchmarks/spmv/spmv_bench
T=$OUT/times.log
: > $T
for tune in "" "sort_window=32" "sort_window=32,compress_columns=0" "sort_window=0"; do
  echo "### -mat_ellwarp_tune '$tune'" >> $T
  timeout 100 stdbuf -oL $S -suite none -bin "$BIN" -formats ellwarp,variants,aijcusparse,sell32 -variants default,a4,u8,nc,col32 -products 50 -repeats 3 -peak_gbs 2990 ${tune:+-mat_ellwarp_tune $tune} >> $T 2>&1
  echo "rc=$?" >> $T
done
for k in k1; do
  echo "### -mat_ellwarp_kernel $k -mat_ellwarp_tune sort_window=32" >> $T
  timeout 60 stdbuf -oL $S -suite none -bin "$BIN" -formats ellwarp,variants -variants default,a4,u8 -products 50 -repeats 3 -peak_gbs 2990 -mat_ellwarp_kernel $k -mat_ellwarp_tune sort_window=32 >> $T 2>&1
  echo "rc=$?" >> $T
done
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: ${NCU:-none}" > $OUT/ncu.log
MET=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__grid_size,launch__block_size,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__warps_eligible.avg.per_cycle_active
for f in $(echo $BIN | tr , ' '); do
  n=$(basename $f .bin)
  timeout 150 $NCU --clock-control none --csv --metrics $MET $S -suite none -bin $f -formats ellwarp,aijcusparse,sell32 -products 1 -repeats 1 -peak_gbs 2990 > $OUT/ncu-$n.csv 2>> $OUT/ncu.log
  echo "$n ncu rc=$?" >> $OUT/ncu.log
done
rm -rf $M
grep -E "^###|^# \[|ew_var|ellwarp_auto|aijcusparse |cusparse_sell32|ellwarp auto:|rc=" $T | cut -c1-150
grep -E "rc=|rror" $OUT/ncu.log | head
for f in $OUT/ncu-*.csv; do echo "== $f"; grep -E "gpu__time_duration|dram__bytes_read" $f | grep -v -i "memset\|flush" | awk -F'","' '{print $5" | "$(NF-2)" | "$NF}' | cut -c1-160 | sort | uniq -c | sort -rn | head -30; done

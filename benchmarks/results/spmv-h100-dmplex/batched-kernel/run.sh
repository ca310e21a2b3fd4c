#!/usr/bin/env bash
# Issue 17: MultKernelB (-mat_ellwarp_tune mult_batch=U[,mult_prefetch=1]: U steps' columns and values loaded before
# their x entries) against MultKernel and the peers, on the DMPlex matrices in their default numbering: the scalar
# ones at 0.33 M and 1.4 M rows, the block-size-3 ones at 0.35 M (their products take the blocked layout: the batch
# only touches the scalar layout); every variant in one process per size, cold (memset flush).  Then Nsight Compute's
# DRAM throughput and stalls of MultKernel and MultKernelB on the 1.4 M-row P1 matrix, the GPU tests of the kernel
# variants and compute-sanitizer memcheck of them.  Files under $OUT: gen.log, small.log, large.log, ncu.csv,
# gpu-tests.log, memcheck.log.
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
M=${TMPDIR:-/tmp}/ellwarp-batch-mats
L=$OUT/gen.log
GEN_TIMEOUT=200
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
gen_begin
ROWS=320000; M0=$M
gen_matrices box default p1s p2s q1s q2s
gen_finish
SMALL=$BIN
M=$M0/large; mkdir -p $M; ROWS=1400000
gen_matrices box default p1s q1s
gen_finish
LARGE=$BIN
S=$B/benchmarks/spmv/spmv_bench
V=default,b4,b8,b16,b4p,b8p,b16p
timeout 150 stdbuf -oL $S -suite none -bin "$SMALL" -formats ellwarp,variants,aijcusparse,cusparse,sell32 -variants $V -products 100 -repeats 3 -peak_gbs 2990 > $OUT/small.log 2>&1
echo "rc=$?" >> $OUT/small.log
timeout 120 stdbuf -oL $S -suite none -bin "$LARGE" -formats ellwarp,variants,aijcusparse,sell32 -variants $V -products 50 -repeats 3 -peak_gbs 2990 > $OUT/large.log 2>&1
echo "rc=$?" >> $OUT/large.log
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
MET=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
P1=$(echo $LARGE | tr , '\n' | grep p1s)
timeout 120 $NCU --clock-control none --csv --metrics $MET -k regex:MultKernel $S -suite none -bin $P1 -formats variants -variants default,b8,b8p,b16 -products 1 -repeats 1 > $OUT/ncu.csv 2>&1
echo "ncu rc=$?" >> $OUT/ncu.csv
rm -rf $M0
(cd $B && timeout 200 ctest -R "variants|matops.cuda" -L gpu --output-on-failure > $OUT/gpu-tests.log 2>&1; echo "ctest rc=$?" >> $OUT/gpu-tests.log)
CS=/usr/local/cuda-13.0/bin/compute-sanitizer
(cd $B/tests && timeout 200 $CS --tool memcheck --error-exitcode 9 ./variants -backend cuda > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/memcheck.log)
grep -E "^# \[|ew_var|ellwarp_auto|aijcusparse |cusparse_sell32|rc=" $OUT/small.log $OUT/large.log | cut -c1-150
tail -3 $OUT/gpu-tests.log; tail -3 $OUT/memcheck.log

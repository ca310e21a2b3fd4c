#!/usr/bin/env bash
# Issue 17, the batched kernels as the default (device calls 2 and 3; call 1 is run.sh of benchmarks/results/
# spmv-h100-dmplex with OUT=.../final-h100/suite and SWEEP=box_p1s_tet_default,box_q1s_hex_default,box_q2s_hex_default).
# Call 2: (0) the sweep and paired re-timing on box P1/Q1/Q2 scalar (0.33 M rows) with the schedule model of MultKernelB
# (sweep/: gen.log, sweep.log); (1) run-blocklanes.sh: the block-size-3 matrices with every T forced and the automatic
# choice, now with block_batch 2 for T > 1 (blocklanes/: gen.log, spmv.log, model.log, gpu-tests.log).
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
O=$OUT; mkdir -p $O/blocklanes $O/sweep
# (0) the automatic choice against the exhaustive sweep after the schedule model's step became MultKernelB's
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
M=${TMPDIR:-/tmp}/ellwarp-final-sweep; L=$O/sweep/gen.log; ROWS=320000; GEN_TIMEOUT=150
gen_begin
gen_matrices box default p1s q1s q2s
gen_finish
timeout 75 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$BIN" -formats ellwarp,sweep -sweep_budget 8 -pair_rounds 3 -products 100 -repeats 3 -peak_gbs 2990 > $O/sweep/sweep.log 2>&1
echo "sweep rc=$?" >> $O/sweep/sweep.log
rm -rf $M
OUT=$O/blocklanes timeout 330 bash benchmarks/results/spmv-h100-dmplex/run-blocklanes.sh > /dev/null 2>&1
rm -f $O/blocklanes/stats.txt $O/blocklanes/spmv.json
grep -E "^# \[|ellwarp_auto|ellwarp_block_T|aijcusparse|cusparse_bsr|rc=" $O/blocklanes/spmv.log | cut -c1-70
grep -E "tests passed|tests failed|Failed|ERROR SUMMARY|rc=" $O/blocklanes/gpu-tests.log
grep -E "^# \[|auto/best|ellwarp auto:" $O/sweep/sweep.log | cut -c1-170

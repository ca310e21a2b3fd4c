#!/usr/bin/env bash
# Issue 17, call 3 (see run-sweep-lanes.sh): the two automatic rules re-fitted on call 2's sweeps, checked on the device.
# (1b) the scalar layout's schedule model with MultKernelB's step (ELLWARP_SIM_STEP_BATCHED_US, layout.c): the sweep and
# paired re-timing on box P1/Q1/P2/Q2 scalar, 0.33 M rows, with AIJCUSPARSE and cuSPARSE sliced ELL in the same process
# (sweep-step8/: gen.log, sweep.log); (1c) the lanes rule T = 2 or 4 (EllwarpBlockChooseLanes): run-blocklanes.sh again
# (blocklanes-rule/: gen.log, spmv.log, model.log, gpu-tests.log).
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
O=$OUT; mkdir -p $O/sweep-step8 $O/blocklanes-rule
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
M=${TMPDIR:-/tmp}/ellwarp-final-sweep8; L=$O/sweep-step8/gen.log; ROWS=320000; GEN_TIMEOUT=150
gen_begin
gen_matrices box default p1s q1s p2s q2s
gen_finish
timeout 100 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$BIN" -formats ellwarp,sweep,aijcusparse,sell32 -sweep_budget 7 -pair_rounds 3 -products 100 -repeats 3 -peak_gbs 2990 > $O/sweep-step8/sweep.log 2>&1
echo "sweep rc=$?" >> $O/sweep-step8/sweep.log
rm -rf $M
OUT=$O/blocklanes-rule timeout 330 bash benchmarks/results/spmv-h100-dmplex/run-blocklanes.sh > /dev/null 2>&1
rm -f $O/blocklanes-rule/stats.txt $O/blocklanes-rule/spmv.json
grep -E "^# \[|auto/best|ellwarp auto:|ellwarp_auto|aijcusparse|cusparse_sell32" $O/sweep-step8/sweep.log | cut -c1-170
grep -E "^# \[|ellwarp_auto|ellwarp_block_T|aijcusparse|cusparse_bsr|rc=" $O/blocklanes-rule/spmv.log | cut -c1-70
grep -E "tests passed|tests failed|Failed|rc=" $O/blocklanes-rule/gpu-tests.log

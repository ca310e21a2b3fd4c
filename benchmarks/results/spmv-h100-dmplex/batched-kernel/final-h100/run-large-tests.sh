#!/usr/bin/env bash
# Issue 17, call 4 (see run-sweep-lanes.sh, run-model-check.sh): (2) the DMPlex P1/Q1 matrices, scalar and elasticity, at 1.4 M rows: ELLWARP's
# automatic choice against AIJCUSPARSE, cuSPARSE sliced ELL and BSR, and the scalar ones with the whole-matrix sort
# (large.log); (3) the whole GPU test suite and memcheck of the scalar and blocked kernels' tests (gpu-suite.log).
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
O=$OUT
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
M=${TMPDIR:-/tmp}/ellwarp-final-large; L=$O/large-gen.log; ROWS=1400000; GEN_TIMEOUT=150
gen_begin
gen_matrices box default p1s q1s p1v q1v
gen_finish
timeout 120 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$BIN" -formats ellwarp,aijcusparse,sell32,bsr -sell_mode inline -products 50 -repeats 3 -peak_gbs 2990 > $O/large.log 2>&1
echo "spmv_bench rc=$?" >> $O/large.log
# the scalar ones with the whole-matrix sort (their automatic choice sorts in 256-row windows above ~0.8 M rows)
SC=$(echo $BIN | tr , '\n' | grep -E "p1s|q1s" | paste -sd, -)
echo "### -mat_ellwarp_tune sort_window=0" >> $O/large.log
timeout 60 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$SC" -formats ellwarp -products 50 -repeats 3 -peak_gbs 2990 -mat_ellwarp_tune sort_window=0 >> $O/large.log 2>&1
echo "spmv_bench rc=$?" >> $O/large.log
cat $L >> $O/large.log; rm -f $L
rm -rf $M
ELLWARP_GPU_TIMEOUT=190 ELLWARP_GPU_JOBS=8 timeout 240 bash scripts/gpu-test.sh -L gpu -E petsc_suite > $O/gpu-suite.log 2>&1
echo "gpu-test rc=$?" >> $O/gpu-suite.log
CS=/usr/local/cuda-13.0/bin/compute-sanitizer
for t in "-backend cuda -kernel auto" "-backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 4" "-backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 16"; do
  echo "## memcheck matops $t" >> $O/gpu-suite.log
  (cd $B/tests && timeout 60 $CS --tool memcheck --error-exitcode 9 ./matops $t >> $O/gpu-suite.log 2>&1; echo "memcheck rc=$?" >> $O/gpu-suite.log)
done
grep -E "^# \[|ellwarp_auto|aijcusparse|cusparse_sell|cusparse_bsr|rc=" $O/large.log | cut -c1-140
grep -E "tests passed|tests failed|Failed|ERROR SUMMARY|rc=" $O/gpu-suite.log

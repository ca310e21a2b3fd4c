#!/usr/bin/env bash
# Issue 17, the review commit (MultKernel and MultKernelB share their slice prologue, SliceLaneOf): the GPU tests of the
# SpMV kernels and their variants, memcheck of the variants test, and the DMPlex scalar P1/Q1 products at 0.33 M rows
# against AIJCUSPARSE (the times of final-h100/sweep-step8 again).  Files under $OUT: gpu-tests.log, memcheck.log,
# gen.log, spmv.log.
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
(cd $B && timeout 200 ctest -R "variants|matops.cuda|analysis" -L gpu --output-on-failure > $OUT/gpu-tests.log 2>&1; echo "ctest rc=$?" >> $OUT/gpu-tests.log)
CS=/usr/local/cuda-13.0/bin/compute-sanitizer
(cd $B/tests && timeout 200 $CS --tool memcheck --error-exitcode 9 ./variants -backend cuda > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/memcheck.log)
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
M=${TMPDIR:-/tmp}/ellwarp-review-mats; L=$OUT/gen.log; ROWS=320000; GEN_TIMEOUT=150
gen_begin
gen_matrices box default p1s q1s
gen_finish
timeout 60 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$BIN" -formats ellwarp,aijcusparse,sell32 -products 100 -repeats 3 -peak_gbs 2990 > $OUT/spmv.log 2>&1
echo "spmv_bench rc=$?" >> $OUT/spmv.log
rm -rf $M
grep -E "tests passed|Failed|rc=" $OUT/gpu-tests.log; grep -E "ERROR SUMMARY|checks passed|rc=" $OUT/memcheck.log
grep -E "^# \[|ellwarp_auto|aijcusparse |cusparse_sell32|rc=" $OUT/spmv.log | cut -c1-120

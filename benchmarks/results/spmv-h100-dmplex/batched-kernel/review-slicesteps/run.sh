#!/usr/bin/env bash
# Issue 17, the second review commit (MultKernel and MultKernelB decode the column modes in one SliceSteps): the GPU
# tests of the SpMV kernels, memcheck of the variants test, and box P1/Q1 scalar (0.33 M rows, default numbering):
# the automatic choice (MultKernelB, PTX unchanged) and MultKernel, whose PTX changed, on the layout of
# ../registers/small.log's "default" (K2, T = 16, whole sort: 33.4 / 53.6 us there).  Files: gpu-tests.log,
# memcheck.log, gen.log, spmv.log.
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
(cd $B && timeout 200 ctest -R "variants|matops.cuda|analysis|mpiops|ksp" -L gpu --output-on-failure > $OUT/gpu-tests.log 2>&1; echo "ctest rc=$?" >> $OUT/gpu-tests.log)
CS=/usr/local/cuda-13.0/bin/compute-sanitizer
(cd $B/tests && timeout 200 $CS --tool memcheck --error-exitcode 9 ./variants -backend cuda > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/memcheck.log)
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
M=${TMPDIR:-/tmp}/ellwarp-review2-mats; L=$OUT/gen.log; ROWS=320000; GEN_TIMEOUT=150
gen_begin
gen_matrices box default p1s q1s
gen_finish
S=$B/benchmarks/spmv/spmv_bench
timeout 60 stdbuf -oL $S -suite none -bin "$BIN" -formats ellwarp,aijcusparse,sell32 -products 100 -repeats 3 -peak_gbs 2990 > $OUT/spmv.log 2>&1
echo "### MultKernel: -mat_ellwarp_kernel k2 -mat_ellwarp_tune threshold=16,sort_window=0,mult_batch=1" >> $OUT/spmv.log
timeout 60 stdbuf -oL $S -suite none -bin "$BIN" -formats ellwarp -products 100 -repeats 3 -peak_gbs 2990 -mat_ellwarp_kernel k2 -mat_ellwarp_tune threshold=16,sort_window=0,mult_batch=1 >> $OUT/spmv.log 2>&1
echo "spmv_bench rc=$?" >> $OUT/spmv.log
rm -rf $M
grep -E "tests passed|Failed|rc=" $OUT/gpu-tests.log; grep -E "ERROR SUMMARY|checks passed|rc=" $OUT/memcheck.log
grep -E "^###|^# \[|ellwarp_auto|aijcusparse |cusparse_sell32|ellwarp auto:|rc=" $OUT/spmv.log | cut -c1-140

#!/usr/bin/env bash
# Issue 17, second round of the batched kernels: MultKernelB's batch U = 2, 4, 8 with the compiler's registers, capped
# at 40 or 32 (mult_regs: more resident warps), with prefetch; the blocked layout's kernels with U = 2, 4 steps' block
# columns and x entries loaded together (block_batch); on the DMPlex matrices in their default numbering (scalar and
# block size 3, 0.33-0.43 M rows, the gmsh LV P1 elasticity) and the scalar P1/Q1 at 1.4 M rows; cold (memset flush),
# one process per size.  Then the GPU tests of the variants and the blocked layout, and memcheck of the batched
# kernels' tests.  Files under $OUT: gen.log, small.log, large.log, gpu-tests.log, memcheck.log.
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
M=${TMPDIR:-/tmp}/ellwarp-batch2-mats
L=$OUT/gen.log
GEN_TIMEOUT=200
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
gen_begin
ROWS=320000; M0=$M
gen_matrices box default p1s p2s q1s q2s p1v p2v q1v q2v
gen_matrices gmsh default p1v
gen_finish
SMALL=$BIN
M=$M0/large; mkdir -p $M; ROWS=1400000
gen_matrices box default p1s q1s
gen_finish
LARGE=$BIN
S=$B/benchmarks/spmv/spmv_bench
V=default,b2,b4,b8,b4p,b2r32,b4r32,b4r40,b8r32,b8r40,bb2,bb4
timeout 260 stdbuf -oL $S -suite none -bin "$SMALL" -formats ellwarp,variants,aijcusparse,sell32,bsr -variants $V -products 100 -repeats 3 -peak_gbs 2990 > $OUT/small.log 2>&1
echo "rc=$?" >> $OUT/small.log
timeout 100 stdbuf -oL $S -suite none -bin "$LARGE" -formats ellwarp,variants,aijcusparse,sell32 -variants default,b2,b4,b4r32,b4r40,b8r40 -products 50 -repeats 3 -peak_gbs 2990 > $OUT/large.log 2>&1
echo "rc=$?" >> $OUT/large.log
rm -rf $M0
(cd $B && timeout 150 ctest -R "variants|matops.cuda" -L gpu --output-on-failure > $OUT/gpu-tests.log 2>&1; echo "ctest rc=$?" >> $OUT/gpu-tests.log)
CS=/usr/local/cuda-13.0/bin/compute-sanitizer
: > $OUT/memcheck.log
for t in "-backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 4 -mat_ellwarp_tune block_batch=2" "-backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 1 -mat_ellwarp_tune block_batch=4" "-backend cuda -kernel k2 -threshold 4 -mat_ellwarp_tune long_row=100,mult_batch=8,mult_regs=40" "-backend cuda -dict -mat_ellwarp_tune mult_batch=2"; do
  echo "## matops $t" >> $OUT/memcheck.log
  (cd $B/tests && timeout 60 $CS --tool memcheck --error-exitcode 9 ./matops $t >> $OUT/memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/memcheck.log)
done
grep -E "^# \[|ew_var|ellwarp_auto|aijcusparse |cusparse_sell32|cusparse_bsr|rc=" $OUT/small.log $OUT/large.log | cut -c12-100
grep -E "tests passed|Failed|rc=" $OUT/gpu-tests.log; grep -E "ERROR SUMMARY|rc=" $OUT/memcheck.log

#!/usr/bin/env bash
# refactor check: the matrix-free and blocked-layout device kernels after moving shared code into helpers
cd "$(dirname "$0")/../../../.."  # the repository root (a copy carrying .gpu/, after scripts/gpu-pack.sh)
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD; CS=/usr/local/cuda-13.0/bin/compute-sanitizer
( cd $B && timeout 200 ctest -L gpu -R 'matfree|matops.cuda_block|^analysis.gpu$' -j 6 --output-on-failure ) > $OUT/tests.log 2>&1; echo "ctest rc=$?" >> $OUT/tests.log
grep -E "tests passed|Failed|rc=" $OUT/tests.log
M=$OUT/memcheck.log
timeout 100 $CS --tool memcheck --error-exitcode 9 $B/tests/matfree -dim 3 -orders 1,2,3 -faces 3 -bc -perturb 0.2 -qextra 1 -types sumfact_recompute,sumfact -gpu > $M 2>&1; echo "memcheck matfree rc=$?" >> $M
timeout 100 $CS --tool memcheck --error-exitcode 9 $B/tests/matops -backend cuda -blocked -mat_ellwarp_block on -mat_ellwarp_block_lanes 4 >> $M 2>&1; echo "memcheck block rc=$?" >> $M
grep -E "rc=|ERROR SUMMARY" $M
S=$OUT/bench.log
timeout 60 stdbuf -oL $B/benchmarks/matfree/matfree_bench -gpu -ops poisson -reps 30 -orders 2,3 -dofs 2e6 -types sumfact_recompute > $S 2>&1; echo "rc=$?" >> $S
grep -E "^BENCH|rc=" $S | cut -c1-160
M=${TMPDIR:-/tmp}/refactor-mats; rm -rf $M; mkdir -p $M
timeout 100 $B/benchmarks/spmv/plex_matrices -rows 320000 -out_dir $M -kinds q1v,p2v -orders default > $M/gen.log 2>&1
BIN=$(grep -h "^# wrote" $M/gen.log | awk '{print $3}' | sort | paste -sd, -)
timeout 120 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$BIN" -formats ellwarp,blocklanes,aijcusparse -products 100 -repeats 3 -peak_gbs 2990 > $OUT/spmv.log 2>&1; echo "spmv rc=$?" >> $OUT/spmv.log
grep -E "^# \[|ellwarp_auto|ellwarp_block_T|aijcusparse |rc=" $OUT/spmv.log | cut -c1-110

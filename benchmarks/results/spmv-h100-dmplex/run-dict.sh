#!/usr/bin/env bash
# Issue 17, index compression on any numbering (< 6 min on an H100): ELLWARP's dictionary column mode
# (src/mat/impls/ellwarp/dictlayout.c) against the layout without it and against AIJCUSPARSE, on the DMPlex-built
# matrices where 16-bit offsets (row-relative or biased) do not fit: P1 elasticity, P1 scalar and P2 elasticity on the
# gmsh LV refined by DMRefine, in DMPlex's default numbering; box P1 scalar (default numbering, its slices fit the
# biased mode) as a control.  ELLWARP with -mat_ellwarp_tune compress_dict=0 (the former layout) and =1 (the new
# default), device analysis; each spmv_bench process times ELLWARP and AIJCUSPARSE on the same matrices.  Outputs under $OUT: gen.log, stats.txt (index_stats: the schemes'
# fit and bytes per nonzero, host), spmv-nodict.log, spmv-dict.log, gpu-tests.log (matops.cuda_dict*).
cd "$(dirname "$0")/../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
ROWS=${ROWS:-320000}
M=${TMPDIR:-/tmp}/ellwarp-dict-mats
L=$OUT/gen.log
GEN_TIMEOUT=200
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
gen_begin
gen_matrices gmsh default p1v p1s p2v
gen_matrices box default p1s
gen_finish  # stats.txt here: index_stats below, not the generation's STATS lines
timeout 60 stdbuf -oL $B/benchmarks/layout/index_stats -bin "$BIN" -aligned > $OUT/stats.txt 2>&1
echo "index_stats rc=$?" >> $OUT/stats.txt
for d in 0 1; do
  f=$OUT/spmv-$([ $d = 1 ] && echo dict || echo nodict).log
  timeout 100 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$BIN" -formats ellwarp,aijcusparse -products 100 -repeats 3 -peak_gbs 2990 -mat_ellwarp_tune compress_dict=$d > $f 2>&1
  echo "spmv_bench compress_dict=$d rc=$?" >> $f
done
( cd $B && timeout 60 stdbuf -oL ctest -L gpu -R 'matops.cuda_dict' --output-on-failure ) > $OUT/gpu-tests.log 2>&1
echo "ctest rc=$?" >> $OUT/gpu-tests.log
rm -rf "$M"
grep "layout compress_dict" $OUT/stats.txt; grep -A30 "^# summary, bytes" $OUT/spmv-nodict.log $OUT/spmv-dict.log; grep -E "rc=|Passed|Failed" $OUT/gpu-tests.log $OUT/spmv-*.log

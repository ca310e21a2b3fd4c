#!/usr/bin/env bash
# Issue 17, the blocked layout with T lanes per block row, on an H100 (< 6 min: ~1.5 min generation, ~2 min bench,
# ~1 min model pass and GPU tests).  benchmarks/spmv/plex_matrices builds the block-size-3 matrices of run.sh in
# DMPlex's default numbering (box P1/Q1/P2/Q2 elasticity and P1 elasticity on the gmsh LV refined by DMRefine, >= 0.32 M
# rows, one process each on the host's cores, PETSc binary files on local disk, not $OUT); then spmv_bench times, in
# one process, ELLWARP's automatic choice (ellwarp_auto), the blocked layout forced with T = 1, 2, 4, 8, 16, 32 lanes
# per block row (ellwarp_block_T<T>: -mat_ellwarp_block on -mat_ellwarp_block_lanes T; -formats blocklanes), the
# former T = 1 thread mappings and the scalar layout forced (ellwarp_block_row/_lane, ellwarp_scalar: -formats block),
# AIJCUSPARSE and cuSPARSE BSR.  A second, short pass prints the lanes model's times per T and the automatic choice
# (-info lines of MatSeqELLWARPBlockChoose) to calibrate ELLWARP_BLOCK_MODEL_* (src/mat/impls/ellwarp/blocklayout.c)
# against the measured ellwarp_block_T<T>.  Last, the GPU tests of the blocked layout (every T against SeqAIJ/SeqBAIJ).
# Six files under $OUT: gen.log, stats.txt, spmv.log + spmv.json (the bench), model.log, gpu-tests.log.
cd "$(dirname "$0")/../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
ROWS=${ROWS:-320000}
M=${TMPDIR:-/tmp}/ellwarp-blocklanes-mats
L=$OUT/gen.log
GEN_TIMEOUT=200
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
gen_begin
# 1. the matrices, one process each
gen_matrices box default p1v q1v p2v q2v
gen_matrices gmsh default p1v
gen_finish $OUT/stats.txt
# 2. the bench: automatic choice, every T forced, the T = 1 mappings, scalar, AIJCUSPARSE, BSR
timeout 170 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$BIN" -formats ellwarp,blocklanes,block,aijcusparse,bsr -products 100 -repeats 3 -peak_gbs 2990 -json $OUT/spmv.json > $OUT/spmv.log 2>&1
echo "spmv_bench rc=$?" >> $OUT/spmv.log
# 3. the lanes model's times per T and the automatic choice (one product each: only the -info lines matter)
timeout 60 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$BIN" -formats ellwarp -products 1 -repeats 1 -info 2>&1 | grep -E "^# \[|lanes model|Products:" > $OUT/model.log
echo "model pass rc=${PIPESTATUS[0]}" >> $OUT/model.log
# 4. the blocked layout's device kernels (every T, both reductions' orders) against SeqAIJ/SeqBAIJ and the host analysis
( cd $B && timeout 150 stdbuf -oL ctest -L gpu -R 'matops.cuda_block|^analysis.gpu$' --output-on-failure ) > $OUT/gpu-tests.log 2>&1
echo "ctest rc=$?" >> $OUT/gpu-tests.log
rm -rf "$M"
cat $OUT/stats.txt; grep -E "^# \[|ellwarp_auto|ellwarp_block_T|ellwarp_scalar|aijcusparse|cusparse_bsr|ellwarp auto:" $OUT/spmv.log
cat $OUT/model.log; grep -E "rc=|Passed|Failed" $OUT/gpu-tests.log $OUT/spmv.log

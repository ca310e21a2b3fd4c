#!/usr/bin/env bash
# Issue 17 on an H100 (at most 4 min generation + 3.3 min bench + 40 s tests): the SpMV suite on the matrices users
# have.  benchmarks/spmv/plex_matrices builds FE Jacobians with PETSc's own DMPlex FEM (PetscFE +
# DMPlexSNESComputeJacobianFEM, single-process host assembly, 0.5-2 min each) in DMPlex's default numbering and after
# DMPlex RCM (DMPlexGetOrdering + DMPlexPermute): P1/P2 Kuhn tets and Q1/Q2 hexes of a refined box, scalar Laplacian
# and 3-component elasticity (block size 3); the higher-order ones also permuted by the matrix's own RCM (matrcm);
# and P1 elasticity on the gmsh LV refined by DMRefine (the issue's case).  >= 0.32 M rows each, one process per
# matrix on the host's cores, written as PETSc binary files to local disk (not $OUT: up to ~1 GB each).  Then
# spmv_bench loads them (-bin) and times ELLWARP (automatic choice), AIJCUSPARSE, raw cuSPARSE CSR, cuSPARSE sliced
# ELL, PETSc SELLCUDA and cuSPARSE BSR (block size 3) in one process, and on the block size 3 matrices ELLWARP with the
# blocked layout forced (thread mappings row and lane: ellwarp_block_row/_lane) and the scalar one forced (ellwarp_scalar;
# ellwarp_auto chooses between them), with the bytes each format really moves per
# product and their % of 2.99 TB/s; last, the GPU tests of the numbering-cost -info line and of the blocked layout.  Five files under $OUT:
# gen.log (generation), stats.txt (STATS lines), spmv.log + spmv.json (the bench), gpu-tests.log.
cd "$(dirname "$0")/../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
ROWS=${ROWS:-320000}
M=${TMPDIR:-/tmp}/ellwarp-dmplex-mats
L=$OUT/gen.log
GEN_TIMEOUT=240
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
gen_begin
# 1. the matrices: one process per (kind, numbering); stats lines (STATS ...) in each process's log
gen_matrices box "default rcm" p1s p1v p2s p2v q1s q1v q2s q2v
# higher order: DMPlex RCM leaves the section's vertex/edge/face dofs in separate ranges; the matrix's own RCM does not
gen_matrices box matrcm p2s p2v q2s q2v
# the issue's case: the gmsh LV refined by DMRefine, P1 elasticity pattern (refined once: 3 x ~150 k rows)
gen_matrices gmsh "default rcm" p1v
# BIN: only the matrices whose writing finished
gen_finish $OUT/stats.txt
# 2. the peers on them, in one process (no ELLWARP sweep: -formats without sweep)
timeout 200 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$BIN" -formats ellwarp,block,aijcusparse,cusparse,sell32,sellcuda,bsr -sell_mode inline -products 100 -repeats 3 -peak_gbs 2990 -json $OUT/spmv.json > $OUT/spmv.log 2>&1
echo "spmv_bench rc=$?" >> $OUT/spmv.log
# 2b. optional: the automatic choice against the exhaustive sweep (paired re-timing) on some of them, e.g.
#     SWEEP=box_p1s_tet_default,box_q1s_hex_default (SWEEP_LIMIT seconds, default 120) -> $OUT/sweep.log
if [ -n "${SWEEP:-}" ]; then
  SB=$(for n in ${SWEEP//,/ }; do ls "$M/$n.bin"; done | paste -sd, -)
  timeout "${SWEEP_LIMIT:-120}" stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$SB" -formats ellwarp,sweep -sweep_budget "${SWEEP_BUDGET:-10}" -pair_rounds 3 -products 100 -repeats 3 -peak_gbs 2990 > $OUT/sweep.log 2>&1
  echo "sweep rc=$?" >> $OUT/sweep.log
fi
# 3. the -info line on the device analysis, and the blocked layout's device kernels against SeqAIJ/SeqBAIJ
( cd $B && timeout 40 stdbuf -oL ctest -L gpu -R 'numbering_info|matops.cuda_block' --output-on-failure ) > $OUT/gpu-tests.log 2>&1
echo "ctest rc=$?" >> $OUT/gpu-tests.log
rm -rf "$M"
cat $OUT/stats.txt; grep -A40 "^# summary, bytes" $OUT/spmv.log; grep -E "rc=|Passed|Failed" $OUT/gpu-tests.log $OUT/spmv.log

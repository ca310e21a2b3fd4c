#!/usr/bin/env bash
# Issue 17: MultKernelA (-mat_ellwarp_tune mult_async=1: the steps of a slice staged in shared memory by cp.async, two
# stages), first call: (1) its GPU tests (variants.cuda: bitwise mult_acc=1's products on every kernel configuration;
# matops.cuda_*async*: every operation against SeqAIJ), compute-sanitizer memcheck and racecheck (shared memory) of
# its matops cases; (2) spmv_bench on box P1/P2/Q1/Q2 scalar and Q2 elasticity (DMPlex default numbering, 0.33 M rows):
# defaults, MultKernelB (b4, b8) and MultKernelA (as8, as4), streaming bound and peers, memset and read flushes;
# (3) PETSc's ksp ex10 (carry .gpu/ex10, as in ../in-solver/) with CG on P2 and Q2 scalar: defaults against mult_async=1
# against AIJCUSPARSE, MatMult GPU time per call.  Files under $OUT.
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
S=$B/benchmarks/spmv/spmv_bench
CS=/usr/local/cuda-13.0/bin/compute-sanitizer
ELLWARP_GPU_TIMEOUT=150 ELLWARP_GPU_JOBS=8 bash scripts/gpu-test.sh -R '^(variants|matops)[.]cuda' > $OUT/gpu-test.log 2>&1
echo "gpu-test rc=$?" >> $OUT/gpu-test.log
for tool in memcheck racecheck; do
  for a in "-kernel auto -mat_ellwarp_tune mult_async=1" "-kernel k2 -threshold 4 -mat_ellwarp_tune long_row=100,mult_async=1,mult_batch=4" "-dict -mat_ellwarp_tune mult_async=1"; do
    echo "== $tool matops -backend cuda $a" >> $OUT/sanitizer.log
    timeout 100 $CS --tool $tool $( [ $tool = memcheck ] && echo --leak-check no ) $B/tests/matops -backend cuda $a 2>&1 | tail -2 >> $OUT/sanitizer.log
  done
done
M=${TMPDIR:-/tmp}/ellwarp-async-mats; L=$OUT/gen.log; ROWS=320000; GEN_TIMEOUT=150
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
gen_begin
gen_matrices box default p1s p2s q1s q2s q2v
gen_finish
for fl in memset read; do
  timeout 120 stdbuf -oL $S -suite none -bin "$BIN" -formats ellwarp,readbound,aijcusparse,sell32,bsr,variants -variants default,b4,b8,as8,as4 -products 100 -repeats 3 -peak_gbs 2990 -cold_flush $fl > $OUT/bound-$fl.log 2>&1
  echo "rc=$?" >> $OUT/bound-$fl.log
done
X=${TMPDIR:-/tmp}/ellwarp-ex10; mkdir -p $X; cp .gpu/ex10 $X/ex10
R=$OUT/insolver.txt; : > $R
for f in $(echo $BIN | tr , '\n' | grep -E "p2s|q2s"); do
  n=$(basename $f .bin)
  for round in 1 2; do
    for t in aijcusparse ellwarp ellwarp-async; do
      mt=${t%-async}; extra=""; [ $t = ellwarp-async ] && extra="-mat_ellwarp_tune mult_async=1"
      lv=$X/lv-$n-$t-$round.txt
      timeout 60 $X/ex10 -f $f -rhs one -dll_append $B/lib/libpetscellwarp.so -mat_type $mt $extra -use_gpu_aware_mpi 0 -ksp_type cg -ksp_norm_type none -pc_type jacobi -ksp_max_it 300 -ksp_rtol 1e-30 -ksp_atol 0 -ksp_divtol 1e300 -log_view ascii:$lv -log_view_gpu_time > $X/out-$n-$t-$round.txt 2>&1
      awk -v n=$n -v t=$t -v r=$round '$1=="MatMult" {c=$2; us=$6/($22*1e6)/$2*1e6} END {printf "%-22s cg %-14s round %d calls %4d gpu_us/call %8.2f\n", n, t, r, c, us}' $lv >> $R
    done
  done
done
rm -rf $M
tail -3 $OUT/gpu-test.log; cat $OUT/sanitizer.log; cat $R
grep -E "^VARIANT" $OUT/bound-memset.log $OUT/bound-read.log | cut -c1-130

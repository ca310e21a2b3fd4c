#!/usr/bin/env bash
# Issue 17: MultKernelP (-mat_ellwarp_tune mult_batch=U,mult_acc=2: two steps of a lane pair in one 16-byte load),
# first call: (1) its GPU tests (variants.cuda: bitwise mult_acc=2's products on every kernel configuration;
# matops.cuda_pairs*: every operation against SeqAIJ) and compute-sanitizer memcheck of its matops cases;
# (2) spmv_bench on box P1/P2/Q1/Q2 scalar and Q2 elasticity (DMPlex default numbering, 0.33 M rows): the defaults,
# MultKernelB (b4) and MultKernelP (bp2/bp4/bp8, 128 and 256 threads), with the streaming bound, cold with the memset
# flush and with the read flush.  Files under $OUT.
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
S=$B/benchmarks/spmv/spmv_bench
CS=/usr/local/cuda-13.0/bin/compute-sanitizer
ELLWARP_GPU_TIMEOUT=200 ELLWARP_GPU_JOBS=8 bash scripts/gpu-test.sh -R '^(variants|matops)[.]cuda|ilu_petsc_gpu' > $OUT/gpu-test.log 2>&1
echo "gpu-test rc=$?" >> $OUT/gpu-test.log
for a in "-kernel auto -mat_ellwarp_tune mult_batch=4,mult_acc=2" "-kernel k2 -threshold 4 -mat_ellwarp_tune long_row=100,mult_batch=8,mult_acc=2" "-dict -mat_ellwarp_tune mult_batch=2,mult_acc=2"; do
  echo "== matops -backend cuda $a" >> $OUT/memcheck.log
  timeout 100 $CS --tool memcheck --leak-check no $B/tests/matops -backend cuda $a 2>&1 | tail -3 >> $OUT/memcheck.log
done
M=${TMPDIR:-/tmp}/ellwarp-pairs-mats; L=$OUT/gen.log; ROWS=320000; GEN_TIMEOUT=150
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
gen_begin
gen_matrices box default p1s p2s q1s q2s q2v
gen_finish
for fl in memset read; do
  timeout 120 stdbuf -oL $S -suite none -bin "$BIN" -formats ellwarp,readbound,aijcusparse,sell32,bsr,variants -variants default,b4,bp2,bp4,bp8,bp4bs256,bp8bs256 -products 100 -repeats 3 -peak_gbs 2990 -cold_flush $fl > $OUT/bound-$fl.log 2>&1
  echo "rc=$?" >> $OUT/bound-$fl.log
done
rm -rf $M
tail -3 $OUT/gpu-test.log; cat $OUT/memcheck.log
grep -E "^VARIANT" $OUT/bound-memset.log $OUT/bound-read.log | cut -c1-150

#!/usr/bin/env bash
# Issue 17: MultKernelB's lean instance (layouts without long-row chunks or dictionary slices; batch loads at the top of
# the loop) against the instance with that code (mult_full=1, the kernel before), U = 2, 4, 8 and 40-register caps,
# beside the streaming bound, AIJCUSPARSE and cuSPARSE sliced ELL, cold with the memset and the read flush: box
# P1/P2/Q1/Q2 scalar in DMPlex's default numbering, 0.33 M rows (spmv-memset.log, spmv-read.log).  Before them: the
# GPU tests of the product kernels (gpu-test.log) and compute-sanitizer memcheck of the variants test (memcheck.log),
# and the SASS of the lean U = 8 kernel (sass-u8.txt).  Files under $OUT.  Ran at 84a77f9 (reverted by a9ddc66).
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
S=$B/benchmarks/spmv/spmv_bench
M=${TMPDIR:-/tmp}/ellwarp-lean-mats; L=$OUT/gen.log; ROWS=320000; GEN_TIMEOUT=150
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
gen_begin
gen_matrices box default p1s p2s q1s q2s
ELLWARP_GPU_TIMEOUT=150 ELLWARP_GPU_JOBS=8 bash scripts/gpu-test.sh -R '^(variants|matops|spmv)[.]cuda' > $OUT/gpu-test.log 2>&1
echo "gpu-test rc=$?" >> $OUT/gpu-test.log
CS=/usr/local/cuda-13.0/bin/compute-sanitizer
(cd $B/tests && timeout 200 $CS --tool memcheck --error-exitcode 9 ./variants -backend cuda > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/memcheck.log)
LIB=$B/lib/libpetscellwarp.so
/usr/local/cuda-13.0/bin/cuobjdump -sass -fun '_Z11MultKernelBILb0ELb1ELi8ELb0ELi0ELb0EEv9DevLayout7DevBiasPKdS3_S3_Pd' "$LIB" > $OUT/sass-u8.txt 2>&1
gen_finish
for fl in memset read; do
  timeout 200 stdbuf -oL $S -suite none -bin "$BIN" -formats ellwarp,readbound,aijcusparse,sell32,variants -variants default,full,b2,b2full,b8,b8full,b8r40,b4r40 -products 100 -repeats 3 -peak_gbs 2990 -cold_flush $fl > $OUT/spmv-$fl.log 2>&1
  echo "rc=$?" >> $OUT/spmv-$fl.log
done
rm -rf $M
tail -3 $OUT/gpu-test.log; tail -3 $OUT/memcheck.log; grep -c "LDG" $OUT/sass-u8.txt
grep -E "^# \[|ellwarp_auto|read_ew|aijcusparse |cusparse_sell32|^VARIANT|rc=" $OUT/spmv-memset.log $OUT/spmv-read.log | cut -c1-170

#!/usr/bin/env bash
# Issue 17, whether a first-call cost is in run.sh's per-product GPU times: box P2 and Q2 scalar (0.33 M rows, DMPlex
# default numbering) in PETSc's ksp ex10, CG (no norm) + Jacobi, AIJCUSPARSE and ELLWARP, -log_view -log_view_gpu_time
# at 300 and at 1000 iterations (a first-call cost shrinks with more calls).  ex10 as in run.sh (carry .gpu/ex10).
# (The call that ran this also tried Nsight Systems over the same solves; the device has no nsys, so that part is
# not kept here.)  Files under $OUT.
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
M=${TMPDIR:-/tmp}/ellwarp-trace-mats; L=$OUT/gen.log; ROWS=320000; GEN_TIMEOUT=150
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
gen_begin
gen_matrices box default p2s q2s
gen_finish
X=${TMPDIR:-/tmp}/ellwarp-ex10; mkdir -p $X; cp .gpu/ex10 $X/ex10
R=$OUT/insolver-its.txt; : > $R
for f in $(echo $BIN | tr , ' '); do
  n=$(basename $f .bin)
  for its in 300 1000; do
    for t in aijcusparse ellwarp; do
      lv=$X/lv-$n-$its-$t.txt
      timeout 60 $X/ex10 -f $f -rhs one -dll_append $B/lib/libpetscellwarp.so -mat_type $t -vec_type cuda -use_gpu_aware_mpi 0 -ksp_type cg -ksp_norm_type none -pc_type jacobi -ksp_max_it $its -ksp_rtol 1e-30 -ksp_atol 0 -ksp_divtol 1e300 -log_view ascii:$lv -log_view_gpu_time -mat_view ::ascii_info > $X/out-$n-$its-$t.txt 2>&1
      awk -v n=$n -v i=$its -v t=$t '$1=="MatMult"{c=$2; us=$6/($22*1e6)/$2*1e6; w=$4/$2*1e6} END{printf "%-22s its %5d %-12s calls %5d gpu_us/call %8.2f wall_us/call %8.2f\n", n, i, t, c, us, w}' $lv >> $R
    done
  done
done
cat $R
tar -C $X --exclude=ex10 -cJf $OUT/its-logs.tar.xz .
rm -rf $M

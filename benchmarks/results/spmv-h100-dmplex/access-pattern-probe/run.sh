#!/usr/bin/env bash
# Issue 17: benchmarks/spmv/slice_order_probe (MultKernelB's access pattern without PETSc, against a stream of the same
# bytes) on synthetic slices (synthetic.log) and on ELLWARP's own layouts of box P1/P2/Q1/Q2 scalar in DMPlex's default
# numbering, 0.33 M rows, written by benchmarks/layout/layout_dump (layout.log).  Files under $OUT.
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
M=${TMPDIR:-/tmp}/ellwarp-probe-mats; L=$OUT/gen.log; ROWS=320000; GEN_TIMEOUT=150
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
gen_begin
gen_matrices box default p1s p2s q1s q2s
P=${TMPDIR:-/tmp}/slice_order_probe
/usr/local/cuda-13.0/bin/nvcc -O3 -arch=sm_90 benchmarks/spmv/slice_order_probe.cu -o $P >> $L 2>&1
timeout 200 stdbuf -oL $P > $OUT/synthetic.log 2>&1
echo "rc=$?" >> $OUT/synthetic.log
gen_finish
timeout 100 $B/benchmarks/layout/layout_dump -bin "$BIN" >> $L 2>&1
timeout 200 stdbuf -oL $P -layout $(ls $M/*.lay) > $OUT/layout.log 2>&1
echo "rc=$?" >> $OUT/layout.log
rm -rf $M
grep "wrote" $L; tail -n +1 $OUT/layout.log | grep -E "^#|real/128|real-u8|stream|rc="

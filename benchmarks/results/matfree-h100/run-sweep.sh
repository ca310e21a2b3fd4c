#!/usr/bin/env bash
# issue 19, the paper's Figures 2-4 on an H100: GDOF/s of each variant against the problem size, BP3 (Poisson),
# 3-D p = 1..4 and 2-D p = 1..4, one MatMult timed (median of 20), current kernels (the small-p sum factorisation
# included); elmat_* = the paper's GPU_Atomic / GPU_Color with precomputed element matrices.  < 8 min.
# Output: $OUT/sweep.log (BENCH lines; plot: benchmarks/matfree/plot_matfree.py sweep.log -o matfree-sweep.png)
cd "$(dirname "$0")/../../.."
source scripts/gpu-env.sh
BENCH=$ELLWARP_GPU_BUILD/benchmarks/matfree/matfree_bench
S=$OUT/sweep.log; nvidia-smi --query-gpu=name --format=csv,noheader > $S
for p in 1 2 3 4; do
  timeout 75 stdbuf -oL $BENCH -gpu -ops poisson -reps 20 -orders $p -dofs 1e4,3e4,1e5,3e5,1e6,3e6 -types sumfact_recompute,sumfact,elmat_atomic,elmat_color >> $S 2>&1; echo "rc=$? 3-D p=$p" >> $S
done
for p in 1 2 3 4; do
  timeout 45 stdbuf -oL $BENCH -gpu -ops poisson -reps 20 -dim 2 -orders $p -dofs 1e4,1e5,1e6,4e6 -max_cells 1100000 -types sumfact_recompute,sumfact,elmat_atomic,elmat_color >> $S 2>&1; echo "rc=$? 2-D p=$p" >> $S
done
grep -E "rc=" $S

#!/usr/bin/env bash
# issue 19: the peers step of benchmarks/results/matfree-h100/run.sh for p = 2, 3, 4 (sumfact vs assembled ELLWARP, GPU vs CPU)
cd "$(dirname "$0")/../../../.."  # the repository root (a copy carrying .gpu/, after scripts/gpu-pack.sh)
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD; BENCH=$B/benchmarks/matfree/matfree_bench
GPU="-gpu -ops poisson -reps 20 -types sumfact,sumfact_recompute,elmat_atomic,elmat_color,elmat_gather,elmat_max -assembled_coo -assembled_coo_convert -assembled_max_p 4 -assembled_types ellwarp,aijcusparse"
CPU="-cpu_types elmat_color,elmat_private,elmat_gather,sumfact_private -cpu_threads 0 -cpu_reps 5"
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/peers.log
for a in "2 60" "3 65" "4 85"; do set -- $a
  echo "## p=$1" >> $OUT/peers.log
  timeout $2 stdbuf -oL $BENCH $GPU $CPU -orders $1 -dofs 2e6 >> $OUT/peers.log 2>&1; echo "rc=$?" >> $OUT/peers.log
done
grep -E "^COMPARE|^BENCH|rc=" $OUT/peers.log | cut -c1-260

#!/usr/bin/env bash
# Issue 18, what an assembly into ELLWARP costs a solver beyond the assembly kernel: a block-size-3 ELLWARP matrix
# multiplies with its blocked product layout, a second copy of the values re-gathered at the first product after each
# assembly (src/mat/impls/ellwarp/seq/seqellwarpblock.c).  elasticity_bench -products times an assembly + the product
# after it and a product alone; AIJCUSPARSE (products on the assembled CSR) alongside, and ELLWARP with
# -mat_ellwarp_block off (products on the scalar layout the assembler writes: no re-gather).  Meshes 1 and 3, one H100.
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
R=$OUT/bench.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $R
COMMON="-repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo -products"
for mesh in 192x24x24 400x50x50; do
  for round in 1 2; do
    echo "# mesh $mesh round $round: ELLWARP (default: blocked products), AIJCUSPARSE" >> $R
    timeout 120 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench $COMMON -meshes $mesh -targets ellwarp,aijcusparse 2>&1 | grep -E "^kiran|^# kiran" >> $R
    echo "# mesh $mesh round $round: ELLWARP -mat_ellwarp_block off (scalar products)" >> $R
    timeout 120 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench $COMMON -meshes $mesh -targets ellwarp -mat_ellwarp_block off 2>&1 | grep -E "^kiran|^# kiran" >> $R
  done
done
cut -c1-220 $R

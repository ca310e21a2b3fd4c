#!/usr/bin/env bash
# Issue 18: the cantilever on a mesh larger than Table 3's.  The issue asks for >= 20 M dofs; 760 x 95 x 95 (21.0 M dofs,
# failed-760x95x95/) is refused by DMAssemblySetUp: its per-element-entry maps (576 an element, 3.95 G) exceed the 32-bit
# PetscInt of this PETSc.  So the largest box of the paper's shape they allow: 616 x 77 x 77 hexahedra (3.65 M
# elements, 2.10 G element entries < 2^31; 617 x 78 x 78 nodes = 11.3 M dofs, ~0.88 G nonzeros).
# kiran:auto into ELLWARP, then into AIJCUSPARSE (one process each: both targets in one process do not fit 80 GB),
# device memory sampled every 2 s (nvidia-smi).  Files under $OUT.
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
E=$B/benchmarks/elasticity/elasticity_bench
R=$OUT/bench.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $R
BW=2990; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && BW=4280
( while true; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits; sleep 2; done ) >> $OUT/memory.log 2>&1 &
MON=$!
for t in ellwarp aijcusparse; do
  echo "# target $t" >> $R
  T0=$(date +%s)
  timeout $([ $t = ellwarp ] && echo 330 || echo 230) stdbuf -oL $E -meshes 616x77x77 -repeats 3 -peak_bw $BW -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:auto -targets $t -dm_assembly_view >> $R 2>&1
  echo "# target $t rc=$? wall $(( $(date +%s) - T0 )) s; peak device memory $(sort -n $OUT/memory.log | tail -1) MiB" >> $R
  : > $OUT/memory.log
done
kill $MON
grep -E "^#|^kiran|rc=|rror" $R | cut -c1-220 | head -40

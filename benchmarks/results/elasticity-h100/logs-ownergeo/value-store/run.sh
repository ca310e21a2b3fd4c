#!/usr/bin/env bash
# Issue 18, mesh 1 into ELLWARP: the scalar layout as a value store.  A block-size-3 ELLWARP matrix whose products use
# the blocked layout now chooses that before the scalar analysis (the blocked model against the least bytes any scalar
# layout moves) and builds the scalar layout, which then only stores the values, as K1 with rows sorted in windows of
# 256 (0.4 % padding on mesh 1) instead of the product rule's K2 (3.2 %).  One H100 call: mesh 1 (192x24x24)
# kiran:ownergeo into ELLWARP (default: value store), ELLWARP -mat_ellwarp_tune store_layout=0 (the former layout) and
# AIJCUSPARSE, three alternating rounds; kiran:element and the COO peer on mesh 1; the default (kiran:auto) on the four
# meshes (mesh 1 checked against the host reference); -products on meshes 1 and 3 (the blocked refresh reads the
# store).  GPU tests: gpu-tests/run.sh.  Files under $OUT.
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
E=$B/benchmarks/elasticity/elasticity_bench
R=$OUT/bench.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $R
# the copy bandwidth the % columns are against: H100 2.99 TB/s, H200 4.28 TB/s (measured); h200/ ran with 2990 throughout
BW=2990; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && BW=4280
COMMON="-repeats 5 -peak_bw $BW -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo -meshes 192x24x24"
for round in 1 2 3; do
  echo "# round $round: ELLWARP (value store) and AIJCUSPARSE" >> $R
  timeout 90 stdbuf -oL $E $COMMON -targets ellwarp,aijcusparse 2>&1 | grep -E "^kiran" >> $R
  echo "# round $round: ELLWARP -mat_ellwarp_tune store_layout=0 (the product rule's K2 layout, as before)" >> $R
  timeout 90 stdbuf -oL $E $COMMON -targets ellwarp -mat_ellwarp_tune store_layout=0 2>&1 | grep -E "^kiran" >> $R
done
echo "# the layouts and what ownergeo chose on mesh 1 (-info :mat, DMAssemblyView)" >> $R
timeout 60 stdbuf -oL $E $COMMON -repeats 1 -targets ellwarp -dm_assembly_view -info :mat 2>&1 | grep -E "Analysed pattern|Products:|padding slots|bytes per element" | sed -e 's/^ *//' | cut -c1-400 >> $R
timeout 60 stdbuf -oL $E $COMMON -repeats 1 -targets ellwarp -mat_ellwarp_tune store_layout=0 -info :mat 2>&1 | grep -E "Analysed pattern" | cut -c1-400 >> $R
echo "# mesh 192x24x24: kiran:element and the COO peer" >> $R
timeout 60 stdbuf -oL $E -targets ellwarp,aijcusparse -repeats 5 -peak_bw $BW -cpu_max_elements 0 -check_max_elements 0 -meshes 192x24x24 -methods kiran:element 2>&1 | grep -E "^kiran|^peer" >> $R
M=$OUT/meshes.log
timeout 90 stdbuf -oL $E -meshes 192x24x24 -repeats 5 -peak_bw $BW -cpu_max_elements 0 -check_max_elements 120000 -peer_max_elements 0 -methods kiran:auto >> $M 2>&1
echo "bench rc=$?" >> $M
timeout 240 stdbuf -oL $E -meshes 256x32x32,400x50x50,512x64x64 -repeats 5 -peak_bw $BW -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:auto >> $M 2>&1
echo "bench rc=$?" >> $M
P=$OUT/products.log
for mesh in 192x24x24 400x50x50; do
  echo "# mesh $mesh: ELLWARP (value store), AIJCUSPARSE; then ELLWARP store_layout=0" >> $P
  timeout 120 stdbuf -oL $E -repeats 5 -peak_bw $BW -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo -products -meshes $mesh -targets ellwarp,aijcusparse 2>&1 | grep -E "^kiran|^# kiran" >> $P
  timeout 120 stdbuf -oL $E -repeats 5 -peak_bw $BW -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo -products -meshes $mesh -targets ellwarp -mat_ellwarp_tune store_layout=0 2>&1 | grep -E "^kiran|^# kiran" >> $P
done
cut -c1-200 $R; grep -E "^#|^kiran|rc=" $M | cut -c1-200; cut -c1-220 $P

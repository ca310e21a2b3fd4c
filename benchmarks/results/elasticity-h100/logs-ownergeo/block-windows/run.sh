#!/usr/bin/env bash
# Issue 18, block store lists of several windows (a base per window: every block has a list; before, blocks whose
# targets spread over 2^20 values stored node by node: 666 of 15 079 on mesh 1 into ELLWARP) with the padding left to
# the target.  One H100 call: the elasticity GPU tests, memcheck, racecheck and synccheck of the windowed stores
# (-dm_assembly_kiran_block_span 1500: most blocks over several windows); mesh 1 (192x24x24) kiran:ownergeo into
# ELLWARP and AIJCUSPARSE, the library before this session (8380532, .gpu/bundle-base.tar.xz, its bench with its own
# libraries) and after, three alternating rounds; kiran:element and the COO peer on mesh 1 (the 8x and 3x references);
# the default (kiran:auto) on the paper's four meshes, mesh 1 checked against the host reference.  Files under $OUT.
cd "$(dirname "$0")/../../../../.."
mkdir -p /tmp/base
if [ -f .gpu/bundle-base.tar.xz ]; then
  timeout 300 tar -C / -xJf .gpu/bundle-base.tar.xz
  cp -r /tmp/ellwarp-gpubuild/lib /tmp/base/lib
  cp /tmp/ellwarp-gpubuild/benchmarks/elasticity/elasticity_bench /tmp/base/
fi
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=$(command -v compute-sanitizer || echo /usr/local/cuda-13.0/bin/compute-sanitizer)
L=$OUT/gpu-tests.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $L
( cd $B && timeout 150 stdbuf -oL ctest -L gpu -R 'assembly_elasticity|example_elasticity' --output-on-failure ) >> $L 2>&1
echo "ctest rc=$?" >> $L
timeout 90 stdbuf -oL $CS --tool memcheck --leak-check no $B/tests/assembly_elasticity -elem hex -faces 5 -distort -gpu -dm_assembly_kiran_block_span 1500 >> $L 2>&1
echo "memcheck rc=$?" >> $L
for tool in racecheck synccheck; do
  timeout 100 stdbuf -oL $CS --tool $tool $B/benchmarks/elasticity/elasticity_bench -meshes 6x3x3 -targets ellwarp,aijcusparse -repeats 1 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo -dm_assembly_kiran_block_span 1500 >> $L 2>&1
  echo "$tool rc=$?" >> $L
done
R=$OUT/bench.log
COMMON="-repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo -meshes 192x24x24 -targets ellwarp,aijcusparse"
for round in 1 2 3; do
  echo "# round $round: before (8380532: padding zeroed at each assembly, 666 blocks by node lists)" >> $R
  LD_LIBRARY_PATH=/tmp/base/lib:$LD_LIBRARY_PATH timeout 90 stdbuf -oL /tmp/base/elasticity_bench $COMMON 2>&1 | grep -E "^kiran" >> $R
  echo "# round $round: after (windowed block lists, padding left to the target)" >> $R
  timeout 90 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench $COMMON 2>&1 | grep -E "^kiran" >> $R
done
echo "# mesh 192x24x24: kiran:element and the COO peer" >> $R
timeout 60 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -targets ellwarp,aijcusparse -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 0 -meshes 192x24x24 -methods kiran:element 2>&1 | grep -E "^kiran|^peer" >> $R
echo "# what ownergeo chose on mesh 1 (DMAssemblyView)" >> $R
timeout 60 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -targets ellwarp,aijcusparse -repeats 1 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -meshes 192x24x24 -methods kiran:ownergeo -dm_assembly_view 2>&1 | grep -E "block lists:|bytes per element" | sed -e 's/^ *//' | cut -c1-400 >> $R
mkdir -p $OUT/meshes
M=$OUT/meshes/bench.log
timeout 90 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 192x24x24 -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 120000 -peer_max_elements 0 -methods kiran:auto >> $M 2>&1
echo "bench rc=$?" >> $M
timeout 240 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 256x32x32,400x50x50,512x64x64 -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:auto >> $M 2>&1
echo "bench rc=$?" >> $M
grep -E "tests passed|Failed|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L | head -12; cut -c1-160 $R; grep -E "^#|^kiran|rc=" $M | cut -c1-160

#!/usr/bin/env bash
# ownergeo on the device keeps no node store lists where every block has a block list (all blocks, since the windows):
# the elasticity GPU tests (device-built and host-built plans, the no-list fallback), memcheck of both plan paths,
# and the device memory and time of mesh 4 (512x64x64, 2.1 M hexes) and mesh 1 (nvidia-smi's used memory sampled
# during the run).  One H100 call, files under $OUT.
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=$(command -v compute-sanitizer || echo /usr/local/cuda-13.0/bin/compute-sanitizer)
L=$OUT/gpu-tests.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $L
( cd $B && timeout 150 stdbuf -oL ctest -L gpu -R 'assembly_elasticity|example_elasticity' --output-on-failure ) >> $L 2>&1
echo "ctest rc=$?" >> $L
for a in "" "-dm_assembly_setup_on_host" "-dm_assembly_kiran_block_span 60"; do
  timeout 90 stdbuf -oL $CS --tool memcheck --leak-check no $B/tests/assembly_elasticity -elem hex -faces 4 -distort -gpu $a >> $L 2>&1
  echo "memcheck $a rc=$?" >> $L
done
R=$OUT/bench.log
for mesh in 192x24x24 512x64x64; do
  echo "# mesh $mesh" >> $R
  ( while true; do nvidia-smi --query-gpu=memory.used --format=csv,noheader; sleep 0.5; done ) > $OUT/mem-$mesh.txt &
  P=$!
  timeout 150 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo -targets ellwarp,aijcusparse -meshes $mesh -dm_assembly_view 2>&1 | grep -E "^kiran|block lists:" | sed -e 's/^ *//' | sort -u | cut -c1-330 >> $R
  kill $P
  echo "peak device memory used: $(sort -n $OUT/mem-$mesh.txt | tail -1)" >> $R
done
grep -E "tests passed|Failed|ERROR SUMMARY|rc=" $L | head; cat $R

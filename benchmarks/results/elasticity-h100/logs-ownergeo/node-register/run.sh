#!/usr/bin/env bash
# Issue 18, ownergeo's register node kernel (-dm_assembly_kiran_node_kernel register, KiranOwnerGeoRegKernel: the
# node's adjacency and neighbour slots loaded at once, the store list by cp.async, G's columns in registers, the M
# exchange by shuffles) against the staged one, one H100: the elasticity GPU tests, compute-sanitizer memcheck and
# racecheck of the register kernel (also with 2-pair chunks), then mesh 1 (192x24x24) and mesh 3 (400x50x50) into
# ELLWARP and AIJCUSPARSE: kiran:element and the COO peer (the 8x and 3x references; mesh 1), then ownergeo with node
# kernel staged|register x -dm_assembly_kiran_owner_blocks 4|2 in two alternating rounds, -log_view's split
# (DMAsmKiranGeom: the geometry kernel; DMAsmReduce: geometry + node kernel).  Every step under timeout (< 7 min).
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=$(command -v compute-sanitizer || echo /usr/local/cuda-13.0/bin/compute-sanitizer)
L=$OUT/gpu-tests.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $L
( cd $B && timeout 120 stdbuf -oL ctest -L gpu -R 'assembly_elasticity|example_elasticity' --output-on-failure ) >> $L 2>&1
echo "ctest rc=$?" >> $L
timeout 60 stdbuf -oL $CS --tool memcheck --leak-check no $B/tests/assembly_elasticity -elem hex -faces 3 -distort -gpu >> $L 2>&1
echo "memcheck rc=$?" >> $L
timeout 120 stdbuf -oL $CS --tool racecheck $B/benchmarks/elasticity/elasticity_bench -meshes 4x2x2 -targets ellwarp -repeats 1 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo >> $L 2>&1
echo "racecheck rc=$?" >> $L
timeout 120 stdbuf -oL $CS --tool racecheck $B/benchmarks/elasticity/elasticity_bench -meshes 4x2x2 -targets ellwarp -repeats 1 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo -dm_assembly_kiran_node_chunk 2 >> $L 2>&1
echo "racecheck chunk 2 rc=$?" >> $L
R=$OUT/bench.log
COMMON="-targets ellwarp,aijcusparse -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 0"
for mesh in 192x24x24 400x50x50; do
  if [ $mesh = 192x24x24 ]; then
    echo "# mesh $mesh: kiran:element and the COO peer" >> $R
    timeout 60 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench $COMMON -meshes $mesh -methods kiran:element >> $R 2>&1
    VARIANTS="staged:4 register:4 register:2"; ROUNDS="1 2"
  else
    VARIANTS="staged:4 register:4"; ROUNDS="1"
  fi
  for round in $ROUNDS; do
    for vb in $VARIANTS; do
      nk=${vb%:*}; bl=${vb#*:}
      echo "# mesh $mesh round $round: kiran:ownergeo -dm_assembly_kiran_node_kernel $nk -dm_assembly_kiran_owner_blocks $bl" >> $R
      timeout 90 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench $COMMON -meshes $mesh -peer_max_elements 0 -methods kiran:ownergeo -dm_assembly_kiran_node_kernel $nk -dm_assembly_kiran_owner_blocks $bl -log_view -log_view_gpu_time 2>&1 | grep -E "^kiran|^DMAsm(Reduce|KiranGeom)" | head -8 >> $R
    done
  done
done
echo "# the default (kiran:auto), checked against the host reference" >> $R
mkdir -p $OUT/default
timeout 90 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 192x24x24 -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 120000 -peer_max_elements 0 -methods kiran:auto -o $OUT/default >> $R 2>&1
echo "bench rc=$?" >> $R
grep -E "tests passed|Failed|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L | head; grep -E "^#|^kiran|^DMAsm|^peer" $R | cut -c1-200

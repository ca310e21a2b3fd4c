#!/usr/bin/env bash
# Issue 18, ownergeo's point geometry kernel with its gradients computed 8 at a time (48 registers instead of 75), so
# that it runs 5 or 6 blocks an SM instead of 3 (-dm_assembly_kiran_geometry_blocks 3|5|6), with the register node
# kernel, one H100: the elasticity GPU tests, memcheck of the geometry kernel at 6 blocks, then mesh 1 (192x24x24) into
# ELLWARP and AIJCUSPARSE: kiran:element and the COO peer (the 8x and 3x references), ownergeo with geometry blocks
# 3|5|6 in two alternating rounds with -log_view's split (DMAsmKiranGeom: the geometry kernel; DMAsmReduce: geometry +
# node kernel); mesh 3 (400x50x50) with 3 and 5 blocks; the default (kiran:auto) checked against the host reference.
# Every step under timeout (< 6 min).  Files under $OUT.
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=$(command -v compute-sanitizer || echo /usr/local/cuda-13.0/bin/compute-sanitizer)
L=$OUT/gpu-tests.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $L
( cd $B && timeout 150 stdbuf -oL ctest -L gpu -R 'assembly_elasticity|example_elasticity' --output-on-failure ) >> $L 2>&1
echo "ctest rc=$?" >> $L
timeout 60 stdbuf -oL $CS --tool memcheck --leak-check no $B/tests/assembly_elasticity -elem hex -faces 3 -distort -gpu -dm_assembly_kiran_geometry_blocks 6 >> $L 2>&1
echo "memcheck rc=$?" >> $L
R=$OUT/bench.log
COMMON="-targets ellwarp,aijcusparse -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 0"
echo "# mesh 192x24x24: kiran:element and the COO peer" >> $R
timeout 60 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench $COMMON -meshes 192x24x24 -methods kiran:element >> $R 2>&1
for mesh in 192x24x24 400x50x50; do
  if [ $mesh = 192x24x24 ]; then GB="3 5 6"; ROUNDS="1 2"; else GB="3 5"; ROUNDS="1"; fi
  for round in $ROUNDS; do
    for gb in $GB; do
      echo "# mesh $mesh round $round: kiran:ownergeo -dm_assembly_kiran_geometry_blocks $gb" >> $R
      timeout 90 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench $COMMON -meshes $mesh -peer_max_elements 0 -methods kiran:ownergeo -dm_assembly_kiran_geometry_blocks $gb -log_view -log_view_gpu_time 2>&1 | grep -E "^kiran|^DMAsm(Reduce|KiranGeom)" | head -8 >> $R
    done
  done
done
echo "# the default (kiran:auto), checked against the host reference" >> $R
mkdir -p $OUT/default
timeout 90 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 192x24x24 -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 120000 -peer_max_elements 0 -methods kiran:auto -o $OUT/default >> $R 2>&1
echo "bench rc=$?" >> $R
grep -E "tests passed|Failed|ERROR SUMMARY|rc=" $L | head; grep -E "^#|^kiran|^DMAsm|^peer" $R | cut -c1-200

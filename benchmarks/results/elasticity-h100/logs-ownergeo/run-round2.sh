#!/usr/bin/env bash
# Issue 18 round 2, kiran:ownergeo on one H100: the elasticity GPU tests (auto strategy, the point geometry kernel and
# the batched stores among them), compute-sanitizer memcheck of the round-2 kernels on the distorted mesh and racecheck
# on one hexahedron (the point kernel stages G per warp in shared memory), then mesh 1 (192x24x24) into ELLWARP:
# kiran:element, then ownergeo in its 4 variants (-dm_assembly_kiran_geometry_kernel warp|point x
# -dm_assembly_kiran_owner_store loop|batched), each with -log_view's split (DMAsmKiranGeom: the geometry kernel;
# DMAsmReduce: geometry + node kernel).  Every step under timeout (caps sum to 3 min, expected < 2 min); two files
# under $OUT.
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
L=$OUT/gpu-tests.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $L
( cd $B && timeout 70 stdbuf -oL ctest -L gpu -R 'assembly_elasticity' --output-on-failure ) >> $L 2>&1
echo "ctest rc=$?" >> $L
timeout 40 stdbuf -oL $CS --tool memcheck --leak-check no $B/tests/assembly_elasticity -elem hex -faces 2 -distort -gpu -dm_assembly_kiran_geometry_kernel point -dm_assembly_kiran_owner_store batched >> $L 2>&1
echo "memcheck rc=$?" >> $L
timeout 20 stdbuf -oL $CS --tool racecheck $B/tests/assembly_elasticity -elem hex -faces 1 -gpu -dm_assembly_kiran_geometry_kernel point -dm_assembly_kiran_owner_store batched >> $L 2>&1
echo "racecheck rc=$?" >> $L
R=$OUT/bench-round2.log
COMMON="-meshes 192x24x24 -targets ellwarp -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0"
echo "# kiran:element (the 8x reference)" > $R
timeout 20 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench $COMMON -methods kiran:element >> $R 2>&1
for g in warp point; do
  for st in loop batched; do
    echo "# kiran:ownergeo -dm_assembly_kiran_geometry_kernel $g -dm_assembly_kiran_owner_store $st" >> $R
    timeout 12 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench $COMMON -methods kiran:ownergeo -dm_assembly_kiran_geometry_kernel $g -dm_assembly_kiran_owner_store $st -log_view -log_view_gpu_time 2>&1 | grep -E "^kiran|^DMAsm(Reduce|KiranGeom)|^# summary" | head -8 >> $R
  done
done
echo "# the default (auto: ownergeo on this mesh)" >> $R
timeout 12 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench $COMMON -methods kiran:auto >> $R 2>&1
tail -3 $L; grep -E "Failed|Timeout|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L | head -20; grep -E "^#|^kiran|^DMAsm" $R | cut -c1-220

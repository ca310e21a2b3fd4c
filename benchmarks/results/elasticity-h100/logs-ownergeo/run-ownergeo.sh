#!/usr/bin/env bash
# Issue 18, kiran:ownergeo (owner's write-once stores with the geometry computed once per element by a geometry kernel)
# on one H100: its GPU tests (and every elasticity GPU test) with a compute-sanitizer memcheck and racecheck, then
# mesh 1 (192x24x24) with kiran:element, owner, ownergeo and the COO peer into ELLWARP and AIJCUSPARSE, ownergeo's node
# kernel for 2 blocks an SM, and mesh 3 (400x50x50) with element, owner, ownergeo into ELLWARP.  Every step under
# timeout (caps 6 min, expected ~5 min); five files under $OUT.
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
L=$OUT/gpu-tests.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $L
# assembly_elasticity.gpu_* run every kiran strategy (ownergeo among them; gpu_hex_owner_blocks2 its 2-block kernel),
# gpu_ownergeo_inverted the tangled-element error on the device, example_elasticity.cuda_ownergeo the cantilever
( cd $B && timeout 80 stdbuf -oL ctest -L gpu -R 'assembly_elasticity|example_elasticity' --output-on-failure ) >> $L 2>&1
echo "ctest rc=$?" >> $L
timeout 65 stdbuf -oL $CS --tool memcheck --leak-check no $B/tests/assembly_elasticity -elem hex -faces 2 -distort -gpu >> $L 2>&1
echo "memcheck rc=$?" >> $L
# shared-memory hazards (ownergeo stages G per warp in shared memory between __syncwarp()s): a single hexahedron
timeout 30 stdbuf -oL $CS --tool racecheck $B/tests/assembly_elasticity -elem hex -faces 1 -gpu >> $L 2>&1
echo "racecheck rc=$?" >> $L
mkdir -p $OUT/small $OUT/large
timeout 85 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 192x24x24 -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 120000 -methods kiran:element,kiran:owner,kiran:ownergeo -o $OUT/small > $OUT/bench-small.log 2>&1
echo "bench rc=$?" >> $OUT/bench-small.log
# ownergeo's node kernel compiled for 2 blocks an SM (88 registers) instead of 4 (60 registers; neither spills)
echo "# kiran:ownergeo -dm_assembly_kiran_owner_blocks 2" >> $OUT/bench-small.log
timeout 20 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 192x24x24 -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo -dm_assembly_kiran_owner_blocks 2 >> $OUT/bench-small.log 2>&1
echo "bench rc=$?" >> $OUT/bench-small.log
# the split of ownergeo's time: -log_view's DMAsmKiranGeom (the geometry kernel) inside DMAsmReduce (both kernels)
echo "# kiran:ownergeo -log_view (DMAsmKiranGeom: the geometry kernel; DMAsmReduce: geometry + node kernel)" >> $OUT/bench-small.log
timeout 20 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 192x24x24 -targets ellwarp -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo -log_view -log_view_gpu_time 2>&1 | grep -E "^kiran|^DMAsm(Reduce|KiranGeom)|^ *Device|GPU" | head -12 >> $OUT/bench-small.log
timeout 60 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 400x50x50 -targets ellwarp -repeats 10 -peak_bw 2990 -peer_max_elements 0 -check_max_elements 0 -methods kiran:element,kiran:owner,kiran:ownergeo -o $OUT/large > $OUT/bench-large.log 2>&1
echo "bench rc=$?" >> $OUT/bench-large.log
tail -3 $L; grep -E "Failed|Timeout|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L | head -20; grep -E "^# summary|^# -dm|^# kiran|^kiran|^peer|^DMAsm|rc=" $OUT/bench-small.log $OUT/bench-large.log | cut -c1-220

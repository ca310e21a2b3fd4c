#!/usr/bin/env bash
# Issue 18, ownergeo's register node kernel storing by block lists (-dm_assembly_kiran_block_store 1, the default: the
# values of a block's 8 nodes stored together after a block barrier, sorted by target) against each node storing its
# own (0), one H100: the elasticity GPU tests, compute-sanitizer memcheck, racecheck and synccheck of the block stores,
# then mesh 1 (192x24x24) into ELLWARP and AIJCUSPARSE: kiran:element and the COO peer (the 8x and 3x references),
# ownergeo with block stores 1|0 in three alternating rounds with -log_view's split (DMAsmKiranGeom: the geometry
# kernel; DMAsmReduce: geometry + node kernel); mesh 3 (400x50x50) 1|0; the default (kiran:auto) checked against the
# host reference.  Every step under timeout (< 6 min).  Files under $OUT.
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=$(command -v compute-sanitizer || echo /usr/local/cuda-13.0/bin/compute-sanitizer)
L=$OUT/gpu-tests.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $L
( cd $B && timeout 150 stdbuf -oL ctest -L gpu -R 'assembly_elasticity|example_elasticity' --output-on-failure ) >> $L 2>&1
echo "ctest rc=$?" >> $L
timeout 60 stdbuf -oL $CS --tool memcheck --leak-check no $B/tests/assembly_elasticity -elem hex -faces 3 -distort -gpu >> $L 2>&1
echo "memcheck rc=$?" >> $L
for tool in racecheck synccheck; do
  timeout 100 stdbuf -oL $CS --tool $tool $B/benchmarks/elasticity/elasticity_bench -meshes 6x3x3 -targets ellwarp,aijcusparse -repeats 1 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo >> $L 2>&1
  echo "$tool rc=$?" >> $L
done
R=$OUT/bench.log
COMMON="-targets ellwarp,aijcusparse -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 0"
echo "# mesh 192x24x24: kiran:element and the COO peer" >> $R
timeout 60 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench $COMMON -meshes 192x24x24 -methods kiran:element >> $R 2>&1
for mesh in 192x24x24 400x50x50; do
  if [ $mesh = 192x24x24 ]; then ROUNDS="1 2 3"; else ROUNDS="1"; fi
  for round in $ROUNDS; do
    for bs in 1 0; do
      echo "# mesh $mesh round $round: kiran:ownergeo -dm_assembly_kiran_block_store $bs" >> $R
      timeout 90 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench $COMMON -meshes $mesh -peer_max_elements 0 -methods kiran:ownergeo -dm_assembly_kiran_block_store $bs -log_view -log_view_gpu_time 2>&1 | grep -E "^kiran|^DMAsm(Reduce|KiranGeom)" | head -8 >> $R
    done
  done
done
echo "# what ownergeo chose on mesh 1 (DMAssemblyView)" >> $R
timeout 60 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -targets ellwarp,aijcusparse -repeats 1 -cpu_max_elements 0 -check_max_elements 0 -meshes 192x24x24 -peer_max_elements 0 -methods kiran:ownergeo -dm_assembly_view 2>&1 | grep -E "stores:|block lists:" | grep -v "first Jacobian" | sed -e 's/.*stores:/  stores:/' >> $R
echo "# the default (kiran:auto), checked against the host reference" >> $R
mkdir -p $OUT/default
timeout 90 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 192x24x24 -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 120000 -peer_max_elements 0 -methods kiran:auto -o $OUT/default >> $R 2>&1
echo "bench rc=$?" >> $R
grep -E "tests passed|Failed|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L | head; grep -E "^#|^kiran|^DMAsm|^peer|stores:|block lists:" $R | cut -c1-200

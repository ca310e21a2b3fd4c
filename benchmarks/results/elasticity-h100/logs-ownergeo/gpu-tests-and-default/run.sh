#!/usr/bin/env bash
# the library as landed: the elasticity GPU tests, memcheck and racecheck of ownergeo, one mesh-1 timing of the default
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=$(command -v compute-sanitizer || echo /usr/local/cuda-13.0/bin/compute-sanitizer)
L=$OUT/final.log
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $L
( cd $B && timeout 150 stdbuf -oL ctest -L gpu -R 'assembly_elasticity|example_elasticity' --output-on-failure ) >> $L 2>&1
echo "ctest rc=$?" >> $L
timeout 60 stdbuf -oL $CS --tool memcheck --leak-check no $B/tests/assembly_elasticity -elem hex -faces 3 -distort -gpu -dm_assembly_kiran_block_span 1500 >> $L 2>&1
echo "memcheck rc=$?" >> $L
timeout 100 stdbuf -oL $CS --tool racecheck $B/benchmarks/elasticity/elasticity_bench -meshes 6x3x3 -targets ellwarp,aijcusparse -repeats 1 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo >> $L 2>&1
echo "racecheck rc=$?" >> $L
timeout 60 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 192x24x24 -targets ellwarp,aijcusparse -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 120000 -peer_max_elements 0 -methods kiran:auto >> $L 2>&1
echo "bench rc=$?" >> $L
grep -E "tests passed|Failed|ERROR SUMMARY|RACECHECK SUMMARY|rc=|^kiran" $L | cut -c1-160

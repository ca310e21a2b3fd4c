#!/usr/bin/env bash
# the point geometry kernel as ownergeo's default: elasticity GPU tests, racecheck of ownergeo alone, mesh 1 timing
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=$(command -v compute-sanitizer || echo /usr/local/cuda-13.0/bin/compute-sanitizer)
L=$OUT/verify.log
( cd $B && timeout 100 stdbuf -oL ctest -L gpu -R 'assembly_elasticity|example_elasticity' --output-on-failure ) >> $L 2>&1
echo "ctest rc=$?" >> $L
timeout 120 stdbuf -oL $CS --tool racecheck $B/benchmarks/elasticity/elasticity_bench -meshes 4x2x2 -targets ellwarp -repeats 1 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo >> $L 2>&1
echo "racecheck rc=$?" >> $L
timeout 60 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 192x24x24 -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 120000 -peer_max_elements 0 -methods kiran:auto,kiran:ownergeo -o $OUT/small >> $L 2>&1
echo "bench rc=$?" >> $L
grep -E "tests passed|Failed|RACECHECK SUMMARY|rc=|^kiran" $L | cut -c1-160

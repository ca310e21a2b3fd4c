#!/usr/bin/env bash
# (run with a build whose KiranOwnerGeoKernel was instantiated for 5 and 6 blocks, an experiment not kept)
# issue 18: ownergeo's node kernel for 4, 5, 6 blocks of 8 warps an SM (64 / 47 / 40 registers), mesh 1, one process
# each, alternated twice; memcheck with 6 blocks on the distorted mesh
cd "$(dirname "$0")/../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=$(command -v compute-sanitizer || echo /usr/local/cuda-13.0/bin/compute-sanitizer)
L=$OUT/owner-blocks.log
for r in 1 2; do for b in 4 5 6; do
  echo "# round $r: -dm_assembly_kiran_owner_blocks $b" >> $L
  timeout 30 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 192x24x24 -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 120000 -peer_max_elements 0 -methods kiran:ownergeo -dm_assembly_kiran_owner_blocks $b 2>&1 | grep -E "^kiran|rror" >> $L
done; done
for b in 5 6; do
timeout 60 stdbuf -oL $CS --tool memcheck --leak-check no $B/benchmarks/elasticity/elasticity_bench -meshes 8x4x4 -targets ellwarp -repeats 1 -cpu_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo -dm_assembly_kiran_owner_blocks $b 2>&1 | grep -E "^kiran|ERROR SUMMARY|rror" >> $L
echo "memcheck blocks $b rc=$?" >> $L
done
cat $L | cut -c1-150

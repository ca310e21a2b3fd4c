#!/usr/bin/env bash
# Issue 18 on an H100 (about 5 min; every step under timeout, the caps add up to ~10 min): the GPU tests of the
# vector-field / kiran assembly (and a memcheck of every strategy on a small distorted mesh), the cantilever example
# on Table 3's mesh 1 (kiran ppnirow), and benchmarks/elasticity on Table 3's meshes 1, 3 and 4 (kernel times of each
# kiran strategy, globalnz/atomic/color with the same element, the COO peer on mesh 1, bytes/flops against the device
# limits; the write-once owner strategy beside them).  Six output files under $OUT.  (Run 1 timed out in mesh 2 of
# bench-small: mesh 2 is dropped; run 3 drops ppni8/twokernel from the large meshes for owner: run 2 has them.)
cd "$(dirname "$0")/../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
L=$OUT/gpu-tests.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $L
( cd $B && timeout 90 stdbuf -oL ctest -L gpu -R 'assembly_elasticity|example_elasticity' --output-on-failure ) >> $L 2>&1
echo "ctest rc=$?" >> $L
timeout 75 stdbuf -oL $CS --tool memcheck --leak-check no $B/tests/assembly_elasticity -elem hex -faces 2 -distort -gpu >> $L 2>&1
echo "memcheck rc=$?" >> $L
# shared-memory hazards of the warp kernels (a single hexahedron: every strategy, both targets)
timeout 45 stdbuf -oL $CS --tool racecheck $B/tests/assembly_elasticity -elem hex -faces 1 -gpu >> $L 2>&1
echo "racecheck rc=$?" >> $L
# the cantilever (mesh 1: 110 592 hexahedra, 361 875 dofs), kiran ppnirow into ELLWARP, CG + GAMG
timeout 45 stdbuf -oL $B/examples/elasticity -nx 192 -ny 24 -nz 24 -dm_assembly_kiran_strategy ppnirow -view_assembler -log_view > $OUT/example.log 2>&1
echo "example rc=$?" >> $OUT/example.log
# the same cantilever with the write-once owner strategy (its view: adjacency time, bytes per element)
timeout 45 stdbuf -oL $B/examples/elasticity -nx 192 -ny 24 -nz 24 -dm_assembly_kiran_strategy owner -view_assembler >> $OUT/example.log 2>&1
echo "example owner rc=$?" >> $OUT/example.log
# mesh 1 into ELLWARP and AIJCUSPARSE: the baseline, run 2's best strategies (ppni8 into CSR, twokernel and ppnirow
# into ELLWARP), owner, globalnz with the same element, each checked against the first; then the COO peer.  Run 2's
# 13 methods timed out (110 s) before the peer: warp4/warp8/ppni4, atomic/color, Table 1's kiran:warp4:shared/:atomic
# and ppnirow's forced store orders are in logs-ppnirow/ and logs/.  (The CPU rows, one core of the host method and
# PETSc's DMPlexSNESComputeJacobianFEM, cost ~1.5 min: -cpu_max_elements 120000 adds them.)
mkdir -p $OUT/small $OUT/large
timeout 130 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 192x24x24 -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 120000 -methods kiran:element,kiran:ppni8,kiran:twokernel,kiran:ppnirow,kiran:owner,globalnz -o $OUT/small > $OUT/bench-small.log 2>&1
echo "bench rc=$?" >> $OUT/bench-small.log
# owner's kernel compiled for 2 blocks an SM (88 registers, no spill) instead of 4 (64 registers, 28 B of spill)
echo "# kiran:owner -dm_assembly_kiran_owner_blocks 2" >> $OUT/bench-small.log
timeout 25 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 192x24x24 -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:owner -dm_assembly_kiran_owner_blocks 2 >> $OUT/bench-small.log 2>&1
echo "bench rc=$?" >> $OUT/bench-small.log
# meshes 3-4 (1 000 000 and 2 097 152 hexahedra, 6.5 M dofs): the baseline, ppnirow (run 2's best) and owner into
# ELLWARP (each method's set-up, ~10-17 s at 2 M hexahedra, dominates the run; ppni8/twokernel: run 2's logs,
# globalnz: run 1's)
timeout 120 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 400x50x50,512x64x64 -targets ellwarp -repeats 10 -peak_bw 2990 -peer_max_elements 0 -check_max_elements 0 -methods kiran:element,kiran:ppnirow,kiran:owner -o $OUT/large > $OUT/bench-large.log 2>&1
echo "bench rc=$?" >> $OUT/bench-large.log
# plots (where matplotlib is): python3 benchmarks/elasticity/plot_elasticity.py fig.png $OUT/small/elasticity.json $OUT/large/elasticity.json
tail -3 $L; grep -E "Failed|Timeout|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L | head; grep -E "tip deflection|assembly kiran|store order|strategy owner|adjacency|bytes per element|rc=" $OUT/example.log; grep -E "^# summary|^# -dm|^kiran|^peer|^globalnz|^atomic|^color|rc=" $OUT/bench-small.log $OUT/bench-large.log

#!/usr/bin/env bash
# issue 18 owner strategy (mesh 1 and the 1 M-hex mesh) and issue 17 cardiac numberings (one round)
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
mkdir -p $OUT/small
timeout 100 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 192x24x24 -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 120000 -methods kiran:element,kiran:ppnirow,kiran:owner -o $OUT/small > $OUT/bench-small.log 2>&1
echo "bench rc=$?" >> $OUT/bench-small.log
timeout 25 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 192x24x24 -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:owner -dm_assembly_kiran_owner_blocks 2 >> $OUT/bench-small.log 2>&1
timeout 70 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 400x50x50 -targets ellwarp -repeats 10 -peak_bw 2990 -peer_max_elements 0 -check_max_elements 0 -methods kiran:element,kiran:ppnirow,kiran:owner > $OUT/bench-large.log 2>&1
echo "bench rc=$?" >> $OUT/bench-large.log
CORD_NAMES="plex dmrcm own" CORD_ROUNDS=1 timeout 200 bash benchmarks/results/cardiac-ordering-h100/run.sh > /dev/null 2>&1
grep -E "^# summary|^# -dm|^kiran|^peer|^globalnz|rc=" $OUT/bench-small.log $OUT/bench-large.log | cut -c1-200; grep -E "rc=|demo act|per step|setup" $OUT/cardiac-ordering-summary.txt | head -30

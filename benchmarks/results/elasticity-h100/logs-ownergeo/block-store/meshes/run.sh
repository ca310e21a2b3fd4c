#!/usr/bin/env bash
# Issue 18: the default (kiran:auto = ownergeo, register node kernel, block stores) on the four meshes of Kiran et al.'s Table 3, one H100, into ELLWARP and AIJCUSPARSE.  Files under $OUT.
cd "$(dirname "$0")/../../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
R=$OUT/meshes.log
mkdir -p $OUT/meshes
timeout 400 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -meshes 192x24x24,256x32x32,400x50x50,512x64x64 -targets ellwarp,aijcusparse -repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:auto -o $OUT/meshes > $R 2>&1
echo "bench rc=$?" >> $R
grep -E "^#|^kiran|rc=" $R | cut -c1-200

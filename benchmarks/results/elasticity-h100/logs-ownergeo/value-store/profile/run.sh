#!/usr/bin/env bash
# Issue 18: what binds ownergeo's kernels (the point geometry kernel and the node kernel) on this device: Nsight
# Compute's speed-of-light, occupancy and memory sections on mesh 1 into ELLWARP, where ncu exists and may read the
# counters (earlier hosts had none).  Files under $OUT.
cd "$(dirname "$0")/../../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
E=$B/benchmarks/elasticity/elasticity_bench
L=$OUT/ncu.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $L
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: ${NCU:-none}" >> $L
if [ -n "$NCU" ]; then
  timeout 300 stdbuf -oL $NCU -k regex:KiranOwnerGeo -c 4 --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis --section LaunchStats \
    $E -meshes 192x24x24 -repeats 1 -methods kiran:ownergeo -targets ellwarp -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 >> $L 2>&1
  echo "ncu rc=$?" >> $L
fi
grep -E "ncu|==PROF==|ERR_|Kiran|Throughput|Duration|Achieved Occupancy|Theoretical Occupancy|Registers|Busy|Bandwidth|rc=" $L | head -80

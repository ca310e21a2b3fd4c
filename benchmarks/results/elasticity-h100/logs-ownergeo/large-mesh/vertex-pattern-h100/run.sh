#!/usr/bin/env bash
# After the owner plan's memory order change (tgt freed once packed, the touched-value marks after it): the GPU suite
# (all but PETSc's own tests), memcheck of the elasticity assembly, then the 21 M-dof cantilever (760 x 95 x 95) into
# ELLWARP and AIJCUSPARSE on this device (run on the H100: does it hold it?), with the mesh 1 figure as a reference
# in the same call.  Device memory sampled every second.  Files under $OUT.
cd "$(dirname "$0")/../../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
E=$B/benchmarks/elasticity/elasticity_bench
R=$OUT/bench.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $R
BW=2990; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && BW=4280
ELLWARP_GPU_TIMEOUT=190 ELLWARP_GPU_JOBS=8 timeout 280 bash scripts/gpu-test.sh -L gpu -E petsc_suite > $OUT/gpu-tests.log 2>&1
grep -E "tests passed|tests failed|Failed|\*\*\*" $OUT/gpu-tests.log | head -12
timeout 100 /usr/local/cuda-13.0/bin/compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/assembly_elasticity -elem hex -faces 3 -distort -gpu > $OUT/memcheck.log 2>&1
echo "memcheck rc=$?"; tail -2 $OUT/memcheck.log
( while true; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits; sleep 1; done ) >> $OUT/memory.log 2>&1 &
MON=$!
for run in "192x24x24 ellwarp 60" "760x95x95 ellwarp 240" "760x95x95 aijcusparse 200"; do
  set -- $run
  echo "# mesh $1 target $2" >> $R
  T0=$(date +%s)
  timeout $3 stdbuf -oL $E -meshes $1 -repeats 5 -peak_bw $BW -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:auto -targets $2 -dm_assembly_view >> $R 2>&1
  echo "# mesh $1 target $2 rc=$? wall $(( $(date +%s) - T0 )) s; peak device memory $(sort -n $OUT/memory.log | tail -1) MiB" >> $R
  : > $OUT/memory.log
done
kill $MON
grep -E "^#|^kiran|rc=|rror|pattern:" $R | cut -c1-240 | head -40

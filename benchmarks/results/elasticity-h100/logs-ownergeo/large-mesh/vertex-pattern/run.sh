#!/usr/bin/env bash
# Issue 18, the mesh beyond Table 3 (>= 20 M dofs), after the set-up without per-element-entry maps: the vector
# field's pattern from its vertices, the element-entry map only where a method reads it, kiran owner/ownergeo planned
# from the target's rows, the element matrices only where a method stores them.
#  1. the GPU tests of the elasticity assembly (every strategy against PETSc's own Jacobian) and memcheck of one;
#  2. 616 x 77 x 77 (11.3 M dofs, the largest that ran before: peak device memory 114.5 GB into ELLWARP) again;
#  3. 760 x 95 x 95 hexahedra (6.86 M elements, 21.0 M dofs; refused before) into ELLWARP, then into AIJCUSPARSE
#     (one process each), kiran:auto, device memory sampled every second (nvidia-smi).  Files under $OUT.
cd "$(dirname "$0")/../../../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
E=$B/benchmarks/elasticity/elasticity_bench
R=$OUT/bench.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $R
BW=2990; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && BW=4280
( cd $B && ELLWARP_GPU_TIMEOUT=120 timeout 200 ctest -R "assembly_elasticity|assembly_ho" -L gpu -j4 --output-on-failure ) > $OUT/gpu-tests.log 2>&1
tail -4 $OUT/gpu-tests.log
timeout 150 /usr/local/cuda-13.0/bin/compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/assembly_elasticity -elem hex -faces 3 -distort -gpu > $OUT/memcheck.log 2>&1
echo "memcheck rc=$?"; tail -2 $OUT/memcheck.log
( while true; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits; sleep 1; done ) >> $OUT/memory.log 2>&1 &
MON=$!
for run in "616x77x77 ellwarp 200" "760x95x95 ellwarp 300" "760x95x95 aijcusparse 240"; do
  set -- $run
  echo "# mesh $1 target $2" >> $R
  T0=$(date +%s)
  timeout $3 stdbuf -oL $E -meshes $1 -repeats 5 -peak_bw $BW -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:auto -targets $2 -dm_assembly_view -log_view :$OUT/logview-$1-$2.txt >> $R 2>&1
  echo "# mesh $1 target $2 rc=$? wall $(( $(date +%s) - T0 )) s; peak device memory $(sort -n $OUT/memory.log | tail -1) MiB" >> $R
  : > $OUT/memory.log
done
kill $MON
grep -E "^#|^kiran|rc=|rror|pattern:|mesh:" $R | cut -c1-240 | head -40

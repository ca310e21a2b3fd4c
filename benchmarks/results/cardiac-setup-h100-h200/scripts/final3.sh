#!/usr/bin/env bash
# final: GPU tests of what changed, memcheck of the device set-up, set-up against the peer, 500 ms on 1 M vertices
cd "$(dirname "$0")/../../../.."  # the repository root (this script lives in benchmarks/results/<dir>/scripts or .../<dir>)
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=/usr/local/cuda-13.0/bin/compute-sanitizer
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu-tests.log
( cd $B && timeout 300 ctest -j8 -L gpu -E "petsc_suite" ) >> $OUT/gpu-tests.log 2>&1
echo "ctest rc=$?" >> $OUT/gpu-tests.log
timeout 90 $CS --tool memcheck --leak-check no $B/tests/assembly_setup -faces 5 -uninterpolated -gpu > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/memcheck.log
mkdir -p $OUT/setup
timeout 150 bash benchmarks/cardiac/setup_compare.sh -x $B/examples/cardiac -b $PWD/.gpu/base/cardiac -L $PWD/.gpu/base/lib -o $OUT/setup -r 1 > $OUT/setup-summary.txt 2>&1
( time timeout 150 bash benchmarks/cardiac/lv1m_500ms.sh -x $B/examples/cardiac -o /tmp/lv500 ) > $OUT/lv500.log 2>&1
cat /tmp/lv500/lv1m-500ms.json >> $OUT/lv500.log
echo "=== with -ksp_cgasync_graph" >> $OUT/lv500.log
( time timeout 150 bash benchmarks/cardiac/lv1m_500ms.sh -x $B/examples/cardiac -o /tmp/lv500g -- -ksp_cgasync_graph ) >> $OUT/lv500.log 2>&1
cat /tmp/lv500g/lv1m-500ms.json >> $OUT/lv500.log
tail -3 $OUT/gpu-tests.log; grep -E "Failed|Timeout" $OUT/gpu-tests.log | head; tail -2 $OUT/memcheck.log; cat $OUT/setup-summary.txt
grep -E "^Cardiac|^DMAsm|^DMPlexBuFr|^MatGetOrdering" $OUT/setup/lv1m_new_1.log | awk '{print $1, $4}'
grep -E "setup [0-9.]+ s =|per step|activated|process wall|^real|bytes model" $OUT/lv500.log | cut -c1-300

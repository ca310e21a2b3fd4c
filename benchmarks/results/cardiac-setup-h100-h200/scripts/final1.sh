#!/usr/bin/env bash
# merged main: the GPU test suite (all gpu-labelled tests) + memcheck of the device set-up, then the set-up comparison
cd "$(dirname "$0")/../../../.."  # the repository root (this script lives in benchmarks/results/<dir>/scripts or .../<dir>)
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=/usr/local/cuda-13.0/bin/compute-sanitizer
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu-tests.log
( cd $B && timeout 330 ctest -j8 -L gpu -E "petsc_suite" ) >> $OUT/gpu-tests.log 2>&1
echo "ctest rc=$?" >> $OUT/gpu-tests.log
timeout 90 $CS --tool memcheck --leak-check no $B/tests/assembly_setup -faces 5 -uninterpolated -gpu > $OUT/memcheck-setup.log 2>&1; echo "memcheck rc=$?" >> $OUT/memcheck-setup.log
mkdir -p $OUT/setup
timeout 150 bash benchmarks/cardiac/setup_compare.sh -x $B/examples/cardiac -b $PWD/.gpu/base/cardiac -L $PWD/.gpu/base/lib -o $OUT/setup -r 1 > $OUT/setup-summary.txt 2>&1
timeout 120 $B/benchmarks/assembly/assembly_bench -nodes 350000 -methods globalnz,sharednz,atomic,color,localrow -repeats 5 -cpu_repeats 0 > $OUT/assembly-bench.log 2>&1; echo "assembly_bench rc=$?" >> $OUT/assembly-bench.log
tail -4 $OUT/gpu-tests.log; grep -E "Failed|Timeout" $OUT/gpu-tests.log | head; tail -2 $OUT/memcheck-setup.log; cat $OUT/setup-summary.txt; tail -25 $OUT/assembly-bench.log

#!/usr/bin/env bash
# Issue 20: element integration of Banas et al. (QSS/SQS/SSQ x tet/prism x Poisson/conv-diff) on the GPU and the
# host's cores against their measured rooflines (the paper's Tables 6-7), plus the integration GPU tests, one under
# compute-sanitizer.  Whole script < 6 min.
cd "$(dirname "$0")/../../.."  # the repository root
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=/usr/local/cuda-13.0/bin/compute-sanitizer
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader > $OUT/integration-tests.log
nproc >> $OUT/integration-tests.log
# the host's CPU: its vector instructions decide the host back end's instruction set (base/avx2/avx512)
lscpu | grep -E "Model name|^CPU\(s\)|Thread\(s\) per core|Core\(s\) per socket|Socket|NUMA node\(s\)|MHz|L3" >> $OUT/integration-tests.log
lscpu | grep -o -w -E "avx2|fma|avx512f|avx512dq|avx512vl" | sort -u | tr '\n' ' ' >> $OUT/integration-tests.log; echo >> $OUT/integration-tests.log
( cd $B && timeout 150 ctest -R '^integration\.' --output-on-failure ) >> $OUT/integration-tests.log 2>&1
echo "ctest rc=$?" >> $OUT/integration-tests.log
timeout 120 $CS --tool memcheck --leak-check no $B/tests/integration -elem prism -faces 2 -gpu > $OUT/memcheck-integration.log 2>&1
echo "memcheck rc=$?" >> $OUT/memcheck-integration.log
# 2 M elements on the GPU (the search runs 36 configurations per case), 512 k on the host (all cores, OpenMP; every
# loop order x instruction set x stores timed, then the auto search; the host bound: the widest instruction set's FMA
# and the faster copy, regular or streaming stores)
OMP_PROC_BIND=close OMP_PLACES=cores timeout 300 stdbuf -oL $B/benchmarks/integration/integration_bench -n 2097152 -host_n 524288 -reps 10 > $OUT/integration-bench.log 2>&1
echo "integration_bench rc=$?" >> $OUT/integration-bench.log
tail -3 $OUT/integration-tests.log; tail -2 $OUT/memcheck-integration.log; grep -v '^#   ' $OUT/integration-bench.log | grep -v '^\[' | tail -60
echo "== host auto choice per case (% of its bound; issue 20's CPU target: >= 50 %) =="
grep -E '^# host roofline|^host .*\| auto \|' $OUT/integration-bench.log

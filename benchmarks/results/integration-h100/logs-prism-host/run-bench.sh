#!/usr/bin/env bash
# issue 20: the host (CPU) prism bodies after the register-staged rewrite (IGHostPrismPoissonQSS, IGHostPrismCDRQSS in
# src/dm/assembly/dmasmintegratehost.c): the integration tests (host and device, every variant x instruction set x
# stores against PETSc's PetscFE, rel. error <= 1e-13), then the bench with the paired re-timing and the host
# roofline measured 5 times in the same program (every run printed, the median used: single measurements moved
# 113-167 GB/s between runs), then the prism cases twice more (the host's timings move between runs minutes apart).
# About 3 minutes.
cd "$(dirname "$0")/../../../.."  # the repository root (a copy carrying .gpu/, after scripts/gpu-pack.sh)
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
{ nvidia-smi --query-gpu=name --format=csv,noheader; lscpu | grep -E "Model name|^CPU\(s\)|Thread|NUMA node\(s\)|MHz"; lscpu | grep -o "avx512[a-z]*" | sort -u | tr '\n' ' '; echo; } > $OUT/integration-bench.log
cp $OUT/integration-bench.log $OUT/integration-tests.log
( cd $B && timeout 150 stdbuf -oL ctest -R '^integration\.' --output-on-failure ) >> $OUT/integration-tests.log 2>&1
echo "ctest rc=$?" >> $OUT/integration-tests.log
export OMP_PROC_BIND=close OMP_PLACES=cores
timeout 240 stdbuf -oL $B/benchmarks/integration/integration_bench -n 524288 -host_n 524288 -reps 5 -host_roofline_runs 5 >> $OUT/integration-bench.log 2>&1
echo "integration_bench rc=$?" >> $OUT/integration-bench.log
for r in 2 3; do
  timeout 120 stdbuf -oL $B/benchmarks/integration/integration_bench -n 524288 -host_n 524288 -reps 5 -host_roofline_runs 5 -elems prism > $OUT/integration-bench-prism-$r.log 2>&1
  echo "integration_bench rc=$?" >> $OUT/integration-bench-prism-$r.log
done
tail -3 $OUT/integration-tests.log
grep -v '^#   ' $OUT/integration-bench.log | grep -v '^\[' | tail -45
for r in 2 3; do echo "== prism run $r =="; grep -E '^# host roofline|^host .*prism' $OUT/integration-bench-prism-$r.log; done

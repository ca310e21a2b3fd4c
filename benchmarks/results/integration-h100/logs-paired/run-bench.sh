#!/usr/bin/env bash
# issue 20: the element-integration bench, host back end with the instruction-set dispatch (all cores) and device
cd "$(dirname "$0")/../../../.."  # the repository root (a copy carrying .gpu/, after scripts/gpu-pack.sh)
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
{ nvidia-smi --query-gpu=name --format=csv,noheader; lscpu | grep -E "Model name|^CPU\(s\)|Thread|NUMA node\(s\)"; lscpu | grep -o "avx512[a-z]*" | sort -u | tr '\n' ' '; echo; } > $OUT/integration-bench.log
OMP_PROC_BIND=close OMP_PLACES=cores timeout 230 stdbuf -oL $B/benchmarks/integration/integration_bench -n 524288 -host_n 524288 -reps 5 >> $OUT/integration-bench.log 2>&1
echo "integration_bench rc=$?" >> $OUT/integration-bench.log
grep -E 'auto|paired|roofline' $OUT/integration-bench.log

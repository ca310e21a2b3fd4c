#!/usr/bin/env bash
# issue 20, round 2: host prism integration on the GPU host's 16 cores.  The integration tests (host and device, every
# variant x instruction set x stores, direct and chunked host loops, against PETSc's PetscFE), then integration_bench
# on the prism cases twice as round 1 ran it (direct loop, PetscMalloc'd arrays), then the A/B of round 2's two options:
#   -dm_assembly_integration_host_chunk n  the host element loop chunked through per-thread buffers, n vector groups
#                                          of 8 elements at a time (each element stream read and written one at a
#                                          time: 512 B runs for n = 8, 2 KiB for 32); -1: searched (direct or 8;
#                                          the auto line says "chunked" when chosen)
#   -host_hugepages                        the bench's host arrays in transparent huge pages (MADV_HUGEPAGE)
# every run's whole output in prism-runs.log, the host lines in prism-round2.log.  5 runs of both prism problems
# (device and host, about 20 s each: not timed on the GPU host yet) and the tests (about 15 s): 2 minutes or a little more.
# The searched chunk (-dm_assembly_integration_host_chunk -1) is covered by integration.prism_chunk_search, not timed here.
cd "$(dirname "$0")/../../../.."  # the repository root (a copy carrying .gpu/, after scripts/gpu-pack.sh)
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
L=$OUT/prism-round2.log
{ nvidia-smi --query-gpu=name --format=csv,noheader; lscpu | grep -E "Model name|^CPU\(s\)|Thread|NUMA node\(s\)|MHz"; echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"; } > $L
cp $L $OUT/integration-tests.log
( cd $B && timeout 60 stdbuf -oL ctest -R '^integration\.' --output-on-failure ) >> $OUT/integration-tests.log 2>&1
echo "ctest rc=$?" >> $OUT/integration-tests.log
export OMP_PROC_BIND=close OMP_PLACES=cores
X="$B/benchmarks/integration/integration_bench -elems prism -n 524288 -host_n 524288 -reps 5 -host_roofline_runs 5"
run() { # name, extra options
  echo "== $1: $2" >> $L
  echo "== $1: $2" >> $OUT/prism-runs.log
  timeout 40 stdbuf -oL $X $2 > $OUT/tmp.log 2>&1; echo "rc=$?" >> $OUT/tmp.log
  cat $OUT/tmp.log >> $OUT/prism-runs.log
  grep -E '^# host (arrays|roofline \(measured)|^host .*prism .*(qss|auto|paired)|^rc=' $OUT/tmp.log >> $L
  rm -f $OUT/tmp.log
}
run base-1 ""
run chunk8 "-dm_assembly_integration_host_chunk 8"
run huge "-host_hugepages"
run chunk32-huge "-dm_assembly_integration_host_chunk 32 -host_hugepages"
run base-2 ""
tail -3 $OUT/integration-tests.log
cat $L

#!/usr/bin/env bash
# Issue 17: where MultKernelB's latency comes from.  Nsight Compute's SpeedOfLight, MemoryWorkloadAnalysis (L1/L2
# hit rates and throughputs), WarpStateStats, Occupancy and LaunchStats sections for one product of ELLWARP, the
# streaming bound and cuSPARSE sliced ELL on box P2 and Q2 scalar (DMPlex default numbering, 0.33 M rows).
# Files under $OUT (ncu-*.csv: --page details, one row per metric).
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
S=$B/benchmarks/spmv/spmv_bench
M=${TMPDIR:-/tmp}/ellwarp-latency-mats; L=$OUT/gen.log; ROWS=320000; GEN_TIMEOUT=150
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
gen_begin
gen_matrices box default p2s q2s
gen_finish
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for f in $(echo $BIN | tr , ' '); do
  n=$(basename $f .bin)
  timeout 200 $NCU --clock-control none --csv --page details -k 'regex:MultKernelB|sellmv|StreamReadWrite' -c 24 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section Occupancy --section LaunchStats \
    $S -suite none -bin $f -formats ellwarp,readbound,sell32 -products 1 -repeats 1 -peak_gbs 2990 > $OUT/ncu-$n.csv 2>> $OUT/ncu.log
  echo "$n ncu rc=$?" >> $OUT/ncu.log
done
rm -rf $M
cat $OUT/ncu.log | tail -4
ls -la $OUT

#!/usr/bin/env bash
# issue 17 chooser calibration: the full ELLWARP parameter sweep (-json) on DMPlex-built matrices, default and RCM numbering
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
M=/tmp/ewm2; rm -rf $M; mkdir -p $M/big
pids=""
g() { timeout 200 $B/benchmarks/spmv/plex_matrices -out_dir "$@" > /dev/null 2>&1 & pids="$pids $!"; }
for k in p1s q1s p2s q2s p1v q1v; do g $M -rows 320000 -kinds $k -orders default; done
for k in p1s q1s; do g $M -rows 320000 -kinds $k -orders rcm; g $M/big -rows 1300000 -kinds $k -orders default; done
xz -dc examples/cardiac/data/lv_coarse.msh.xz > /tmp/lv_coarse.msh
g $M -rows 320000 -kinds p1v -orders default -gmsh /tmp/lv_coarse.msh
for p in $pids; do wait $p; done
BIN=$(ls $M/*.bin $M/big/*.bin | paste -sd, -)
echo "$BIN" > $OUT/sweep.log
timeout 480 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$BIN" -formats ellwarp,sweep,aijcusparse,sell32 -sweep_budget 22 -time_budget 470 -pair_rounds 3 -products 100 -repeats 3 -peak_gbs 2990 -json $OUT/sweep.json >> $OUT/sweep.log 2>&1
echo rc=$? >> $OUT/sweep.log
grep -E "^# \[|ellwarp sweep|paired" $OUT/sweep.log

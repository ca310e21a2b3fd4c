#!/usr/bin/env bash
# sourced-style part of gpu-tests-h100/final.sh (needs B and OUT set, gpu-env.sh sourced)
# issue 17: the scalar matrices' column modes (Q1 scalar trails cuSPARSE sliced ELL): default (16-bit, biased 16-bit,
# 32-bit per slice), no biased mode, 32-bit columns only; cold (memset) and hot, one process per mode
M=/tmp/ellwarp-q1s; rm -rf $M; mkdir -p $M
for k in p1s q1s q2s; do timeout 100 $B/benchmarks/spmv/plex_matrices -rows 320000 -out_dir $M -kinds $k -orders default > $M/gen-$k.log 2>&1 & done
wait
BIN=$(grep -h "^# wrote" $M/gen-*.log | awk '{print $3}' | sort | paste -sd, -)
for t in "" "compress_bias=0" "compress_columns=0"; do
  echo "## -mat_ellwarp_tune '$t'" >> $OUT/columns-scalar.log
  timeout 60 stdbuf -oL $B/benchmarks/spmv/spmv_bench -suite none -bin "$BIN" -formats ellwarp,sell32,aijcusparse -sell_mode inline -products 100 -repeats 3 -peak_gbs 2990 ${t:+-mat_ellwarp_tune $t} >> $OUT/columns-scalar.log 2>&1
  echo "spmv_bench rc=$?" >> $OUT/columns-scalar.log
done
rm -rf $M

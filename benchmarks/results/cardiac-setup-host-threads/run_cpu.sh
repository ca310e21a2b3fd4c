#!/bin/bash
# One CPU run of the 1.08 M-vertex LV (host ELLWARP, host assembly), set-up + STEPS steps (default 1), the
# activation PNG on: writes OUT/TAG.log with -log_view and the process wall time.
#   STEPS=0 OUT=dir run_cpu.sh TAG CARDIAC_EXE
tag=$1; exe=$2; out=${OUT:-.}
ARGS="-mesh lv -refine 2 -dm_mat_type ellwarp -mat_ellwarp_backend host -dt 0.25 -steps ${STEPS:-1} -final_vtu 0 -png 1 -monitor_every 1 -output_dir $out/out_$tag -log_view"
load=$(cut -d' ' -f1 /proc/loadavg)
t0=$(date +%s.%N)
$exe $ARGS > $out/$tag.log 2>&1
t1=$(date +%s.%N)
echo "[run] $tag load-before $load process wall $(python3 -c "print(round($t1-$t0,2))") s" >> $out/$tag.log
echo "$tag load $load wall $(python3 -c "print(round($t1-$t0,2))") | $(grep -oE 'setup [0-9.]+ s = .*rest [0-9.]+' $out/$tag.log)"

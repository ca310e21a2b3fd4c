#!/usr/bin/env bash
# CPU check (no device: MATELLWARP's host backend, host assembly, dt 0.5 ms, the 20 k README LV, 100 ms: every vertex
# activates by 74 ms) that the activation times agree between the numberings: plex (-rcm 0), dmrcm and dmell
# (-rcm 0 -dm_assembly_ordering rcm|ellwarp; compared vertex by vertex with tests/cardiac_compare, CG to rtol 1e-10 so
# that only rounding differs) and own (the example's vertex RCM: other vertex numbers, so its summary line only).
# Output: cardiac-cpu-ordering.txt beside this script (activation lines, the ordering's View line; no timings: the
# machine it ran on was shared).   verify-cpu.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/../../.."
B=${1:-${ELLWARP_BUILD_DIR:-build}}
S=benchmarks/results/cardiac-ordering-h100/cardiac-cpu-ordering.txt
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
: > "$S"
declare -A OPT=([plex]="-rcm 0" [dmrcm]="-rcm 0 -dm_assembly_ordering rcm" [dmell]="-rcm 0 -dm_assembly_ordering ellwarp" [own]="")
for n in plex dmrcm dmell own; do
  CUDA_VISIBLE_DEVICES= timeout 600 "$B/examples/cardiac" -dm_mat_type ellwarp -mat_ellwarp_backend host -dm_assembly_type host -dt 0.5 -t_end 100 \
    -ksp_rtol 1e-10 -final_vtu 0 -png 0 -monitor_every 0 -output_dir $W/o-$n -dm_assembly_view -act_view binary:$W/$n.bin ${OPT[$n]} > $W/$n.log 2>&1
  echo "== $n: ${OPT[$n]:-(default: own vertex RCM)} (rc=$?)" >> "$S"
  grep -E "dof ordering|activated" $W/$n.log | sort -u | cut -c1-300 >> "$S"
done
for n in dmrcm dmell; do
  echo "== $n against plex, vertex by vertex:" >> "$S"
  "$B/tests/cardiac_compare" -a $W/$n.bin -b $W/plex.bin -tol 1e-8 >> "$S" 2>&1
done
cat "$S"

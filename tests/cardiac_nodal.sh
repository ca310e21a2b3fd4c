#!/usr/bin/env bash
# The cardiac element reading phi and phi_n through the element map (-cardiac_nodal_state 1, DMAssemblySetNodalState)
# against the assembler's gathered element buffers (-cardiac_nodal_state 0): the same arithmetic, so the same
# activation times (1e-12 ms) and summary.  On the host here (the device default is the nodal state; the GPU run
# of this script passes -dm_vec_type cuda).
#   cardiac_nodal.sh CARDIAC_EXE COMPARE_EXE [extra example options]
set -euo pipefail
exe=$1; cmp=$2; shift 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
common=(-mesh lvstruct -lv_nodes 3000 -dt 0.5 -t_end 40 -monitor_every 0 -png 0 -final_vtu 0 -dm_mat_type ellwarp "$@")
line() { grep -E "^cardiac: [0-9]+ steps; activated" "$1"; }
"$exe" "${common[@]}" -cardiac_nodal_state 1 -act_view "binary:$tmp/a.bin" > "$tmp/a.log" 2>&1 || { cat "$tmp/a.log"; echo "FAIL: nodal state"; exit 1; }
"$exe" "${common[@]}" -cardiac_nodal_state 0 -act_view "binary:$tmp/b.bin" > "$tmp/b.log" 2>&1 || { cat "$tmp/b.log"; echo "FAIL: gathered buffers"; exit 1; }
echo "nodal   : $(line "$tmp/a.log")"
echo "gathered: $(line "$tmp/b.log")"
[ -n "$(line "$tmp/a.log")" ] && [ "$(line "$tmp/a.log")" = "$(line "$tmp/b.log")" ] || { echo "FAIL: activation summaries differ"; exit 1; }
"$cmp" -a "$tmp/a.bin" -b "$tmp/b.bin" -tol 1e-12
echo "cardiac_nodal: PASS"

#!/usr/bin/env bash
# The cardiac example with the DM's dofs renumbered by DMAssembly (-dm_assembly_ordering rcm|ellwarp,
# DMAssemblySetLocalityOrdering) against the DM's own numbering (all three with -rcm 0: DMPlex's numbering of the
# generator's vertex order, so the vertex outputs compare vertex by vertex): the same activation times and summary.
# The orderings change only the order of floating-point sums (element reduction, SpMV rows, dot products), so the
# times agree to rounding, not bitwise: CG is run to rtol 1e-10 (the example's 1e-4 leaves 4e-6 ms between orderings).
#   cardiac_ordering.sh CARDIAC_EXE COMPARE_EXE [extra example options]
set -euo pipefail
exe=$1; cmp=$2; shift 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
common=(-mesh lvstruct -lv_nodes 3000 -rcm 0 -dt 0.5 -t_end 40 -monitor_every 0 -png 0 -final_vtu 0 -dm_mat_type ellwarp -ksp_rtol 1e-10 -dm_assembly_view "$@")
line() { grep -E "^cardiac: [0-9]+ steps; activated" "$1"; }
for o in none rcm ellwarp; do
  "$exe" "${common[@]}" -dm_assembly_ordering $o -act_view "binary:$tmp/$o.bin" > "$tmp/$o.log" 2>&1 || { cat "$tmp/$o.log"; echo "FAIL: ordering $o"; exit 1; }
  echo "$o: $(line "$tmp/$o.log")"
  grep -m1 "dof ordering" "$tmp/$o.log"
done
for o in rcm ellwarp; do
  grep -q "dof ordering: $o" "$tmp/$o.log" || { echo "FAIL: DMAssemblyView does not show ordering $o"; exit 1; }
  [ -n "$(line "$tmp/$o.log")" ] && [ "$(line "$tmp/$o.log")" = "$(line "$tmp/none.log")" ] || { echo "FAIL: activation summaries differ ($o)"; exit 1; }
  "$cmp" -a "$tmp/$o.bin" -b "$tmp/none.bin" -tol 1e-8
done
echo "cardiac_ordering: PASS"

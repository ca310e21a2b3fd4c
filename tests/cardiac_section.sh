#!/usr/bin/env bash
# The cardiac example's own DMPlex and P1 sections (CardiacPlexFromCells: supports from the vertex -> tets map;
# SetP1Sections: one dof per vertex, local and global sections built directly) against PETSc's
# DMPlexCreateFromCellListPetsc(), DMPlexCreateSection() and DMGetGlobalSection() (-cardiac_plex_fromcelllist
# -cardiac_plex_section): the same layout, so the same activation times (1e-12 ms) and summary.
#   cardiac_section.sh CARDIAC_EXE COMPARE_EXE [extra example options]
set -euo pipefail
exe=$1; cmp=$2; shift 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
common=(-mesh lvstruct -lv_nodes 3000 -dt 0.5 -t_end 40 -monitor_every 0 -png 0 -final_vtu 0 -dm_mat_type ellwarp -mat_ellwarp_backend host -dm_assembly_type host "$@")
line() { grep -E "^cardiac: [0-9]+ steps; activated" "$1"; }
"$exe" "${common[@]}" -act_view "binary:$tmp/a.bin" > "$tmp/a.log" 2>&1 || { cat "$tmp/a.log"; echo "FAIL: own section"; exit 1; }
"$exe" "${common[@]}" -cardiac_plex_fromcelllist -cardiac_plex_section -act_view "binary:$tmp/b.bin" > "$tmp/b.log" 2>&1 || { cat "$tmp/b.log"; echo "FAIL: DMPlexCreateSection"; exit 1; }
echo "own : $(line "$tmp/a.log")"
echo "plex: $(line "$tmp/b.log")"
[ -n "$(line "$tmp/a.log")" ] && [ "$(line "$tmp/a.log")" = "$(line "$tmp/b.log")" ] || { echo "FAIL: activation summaries differ"; exit 1; }
"$cmp" -a "$tmp/a.bin" -b "$tmp/b.bin" -tol 1e-12  # the compare tool needs a positive tolerance; the layouts are the same
echo "cardiac_section: PASS"

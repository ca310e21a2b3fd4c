#!/usr/bin/env bash
# The cardiac example on meshes with fibre fields written by tests/cardiac_io.c: an ExodusII file (netCDF
# 64-bit offset, fibres as element variables) and a gmsh 4.1 file ($ElementData "fibres"); a few steps each,
# fibres from the file (-fibres file) and rule-based (-fibres rule); -fibres file on a mesh without fibre data
# must fail with a clear message.  A build without the exodusII library (the example's ExodusII reader then
# refuses with "this build has no ExodusII reader") runs the gmsh part only and says so.
#   cardiac_io.sh CARDIAC_EXE CARDIAC_IO_EXE LV_6K_MSH FIXTURE_DIR [extra example options]
set -euo pipefail
exe=$1; io=$2; lv6k=$3; fixtures=$4; shift 4
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$io" -write_exo "$tmp/box.exo" -write_msh "$tmp/box.msh"
common=(-dt 0.25 -steps 40 -stim_center 0,0,0 -stim_radius 1.0 -png 0 -final_vtu 0 -monitor_every 20
        -dm_mat_type ellwarp -mat_ellwarp_backend host -dm_assembly_type host "$@")
check() { # log pattern what
  grep -q -- "$2" "$1" || { echo "FAIL: $3: no line matching '$2'"; cat "$1"; exit 1; }
}
exo=1
if ! "$exe" -mesh "$tmp/box.exo" -fibres file "${common[@]}" > "$tmp/a.log" 2>&1; then
  grep -q "this build has no ExodusII reader" "$tmp/a.log" || { cat "$tmp/a.log"; echo "FAIL: exo run"; exit 1; }
  exo=0; echo "note: no ExodusII library in this build: the ExodusII runs are skipped"
fi
"$exe" -mesh "$tmp/box.msh" "${common[@]}" > "$tmp/b.log" 2>&1 || { cat "$tmp/b.log"; echo "FAIL: msh run"; exit 1; }
check "$tmp/b.log" 'fibres from the mesh file: field "fibres"' "gmsh fibres (auto)"
check "$tmp/b.log" "cardiac: 140 vertices, 432 tetrahedra" "gmsh mesh size"
check "$tmp/b.log" "cardiac: 40 steps" "gmsh run"
"$exe" -mesh "$tmp/box.msh" -fibres rule "${common[@]}" > "$tmp/c.log" 2>&1 || { cat "$tmp/c.log"; echo "FAIL: rule run"; exit 1; }
check "$tmp/c.log" "fibres rule: LV helix" "-fibres rule"
sb=$(grep "cardiac: 40 steps" "$tmp/b.log"); sc=$(grep "cardiac: 40 steps" "$tmp/c.log")
echo "msh : $sb"; echo "rule: $sc"
[ "$sb" != "$sc" ] || { echo "FAIL: file and rule fibres give the same activation"; exit 1; }
if [ "$exo" = 1 ]; then
  check "$tmp/a.log" "fibres from the mesh file: element variables fibre_x, fibre_y, fibre_z" "ExodusII fibres"
  check "$tmp/a.log" "cardiac: 140 vertices, 432 tetrahedra" "ExodusII mesh size"
  check "$tmp/a.log" "cardiac: 40 steps" "ExodusII run"
  # same mesh, same fibres from the two formats: the same activation (printed summary line)
  sa=$(grep "cardiac: 40 steps" "$tmp/a.log"); echo "exo : $sa"
  [ "$sa" = "$sb" ] || { echo "FAIL: ExodusII and gmsh runs differ"; exit 1; }
  # the same box written by the SEACAS ExodusII library (tests/data/cardiac_io): the same activation
  "$exe" -mesh "$fixtures/box_libexodus_large_attrib.exo" -fibres file "${common[@]}" > "$tmp/h.log" 2>&1 || { cat "$tmp/h.log"; echo "FAIL: libexodus file run"; exit 1; }
  check "$tmp/h.log" "fibres from the mesh file: element attributes fiber_x, fiber_y, fiber_z" "libexodus attributes"
  sh=$(grep "cardiac: 40 steps" "$tmp/h.log"); echo "libexodus: $sh"
  [ "$sa" = "$sh" ] || { echo "FAIL: the libexodus file gives another activation than ours"; exit 1; }
fi
# refined: the children inherit the file's fibres
"$exe" -mesh "$tmp/box.msh" -refine 1 -fibres file "${common[@]}" -steps 4 > "$tmp/g.log" 2>&1 || { cat "$tmp/g.log"; echo "FAIL: refined msh run"; exit 1; }
check "$tmp/g.log" 'fibres from the mesh file: field "fibres"' "refined gmsh fibres"
check "$tmp/g.log" "cardiac: 4 steps" "refined gmsh run"
# a real LV: lv_6k with the rule's fibres written as $ElementData: -fibres file must reproduce -fibres rule exactly
"$io" -lv_in "$lv6k" -lv_out "$tmp/lv.msh"
lvopts=(-dt 0.25 -steps 24 -png 0 -final_vtu 0 -monitor_every 0 -dm_mat_type ellwarp -mat_ellwarp_backend host -dm_assembly_type host "$@")
"$exe" -mesh "$tmp/lv.msh" -fibres file "${lvopts[@]}" > "$tmp/e.log" 2>&1 || { cat "$tmp/e.log"; echo "FAIL: LV file-fibre run"; exit 1; }
"$exe" -mesh lv6k -fibres rule "${lvopts[@]}" > "$tmp/f.log" 2>&1 || { cat "$tmp/f.log"; echo "FAIL: LV rule run"; exit 1; }
check "$tmp/e.log" 'fibres from the mesh file: field "fibres"' "LV file fibres"
se=$(grep "cardiac: 24 steps" "$tmp/e.log"); sf=$(grep "cardiac: 24 steps" "$tmp/f.log")
echo "LV file: $se"; echo "LV rule: $sf"
[ -n "$se" ] && [ "$se" = "$sf" ] || { echo "FAIL: LV with the rule's fibres read from the file differs from the rule"; exit 1; }
if "$exe" -mesh lv -fibres file "${common[@]}" > "$tmp/d.log" 2>&1; then echo "FAIL: -fibres file on -mesh lv did not fail"; exit 1; fi
check "$tmp/d.log" "fibres file needs a mesh file" "-fibres file error"
echo "PASS"

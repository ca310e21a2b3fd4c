#!/usr/bin/env bash
# Issue 7 benchmark (Wong-Kuhl-Darve Figure 1/12 scaled up): the cardiac example on four nested LV refinements,
# the 6.5k-vertex gmsh LV (examples/cardiac/data/lv_6k.msh.xz) refined 0..3 times:
#     lv6k 6 514 vertices / 27 535 tets, lv6k-r1 ~46 k / 220 k, lv6k-r2 326 081 / 1.76 M, lv6k-r3 2 480 209 / 14.1 M
# wall time per time step split into assembly / solve / rest, for the GPU pipeline (MATELLWARP + device vectors +
# device assembly), the GPU peer (AIJCUSPARSE, same assembler) and the CPU pipeline of the same example (AIJ +
# host assembly), through bench.sh (table.md + bench.json in OUTDIR, one JSON + log per run in OUTDIR/runs).
# The structured LV (-mesh lvstruct) is not used: its collapsed apex pole makes slivers whose dihedral angle
# halves with every 8x vertices, and CG + Jacobi needs > 1000 iterations at 2.4 M (see README.md there).
#
#   refine_study.sh gpu [-o OUTDIR] [-x CARDIAC_EXE] [-- extra options]   GPU pipelines (ELLWARP on all four, AIJCUSPARSE
#                                                                         on r2; REFINE_PEERS="lv6k-r2 lv6k-r3" adds r3,
#                                                                         ~1.5 min more), 40 steps each
#   refine_study.sh cpu [-o OUTDIR] [-x CARDIAC_EXE] [-- extra options]   CPU pipeline, 5 steps (2 on r3: set-up ~1 min + first step ~1 min there)
#   refine_study.sh table [-o OUTDIR]                                     merge both into OUTDIR/table.md
# Host budget at r3 (measured on the 2-core development machine, set-up only): see README.md in this directory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mode=${1:-}; shift || true
out=$root/benchmarks/results/cardiac-refine
exe=${ELLWARP_BUILD_DIR:-$root/build}/examples/cardiac
while [ $# -gt 0 ]; do
  case $1 in
    -o) out=$2; shift 2 ;;
    -x) exe=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
meshes="lv6k lv6k-r1 lv6k-r2 lv6k-r3"
case $mode in
  gpu)
    bash "$here/bench.sh" -o "$out" -x "$exe" -m "$meshes" -c "" -p "${REFINE_PEERS:-lv6k-r2}" -s 40 -g 1 -- "$@" ;;
  cpu)
    bash "$here/bench.sh" -o "$out" -x "$exe" -m "lv6k lv6k-r1 lv6k-r2" -c "lv6k lv6k-r1 lv6k-r2" -p "" -S 5 -g 0 -- "$@"
    bash "$here/bench.sh" -o "$out" -x "$exe" -m "lv6k-r3" -c "lv6k-r3" -p "" -S 2 -g 0 -- "$@" ;;
  table)
    bash "$here/bench.sh" -o "$out" -m "$meshes" -t ;;
  *) echo "usage: refine_study.sh gpu|cpu|table [-o OUTDIR] [-x CARDIAC_EXE] [-- extra options]" >&2; exit 2 ;;
esac

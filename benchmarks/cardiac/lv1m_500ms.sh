#!/usr/bin/env bash
# The issue-7 target run: the 1.08 M-vertex LV (gmsh LV refined twice, 6.0 M tets) simulating 500 ms on one
# GPU (MATELLWARP, device vectors, device assembly), dt 0.25 ms (2000 steps), Newton atol 1e-6 (uniform
# potential change), CG + Jacobi rtol 1e-4.  Writes OUT/lv1m-500ms.{log,json} and OUT/activation.png
# (no VTU: 300 MB).  The summary line "total" includes set-up; "per step" x steps is the simulation.
#   lv1m_500ms.sh [-o OUT] [-x CARDIAC_EXE] [-- extra options]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/benchmarks/results/cardiac-bench
exe=${ELLWARP_BUILD_DIR:-$root/build}/examples/cardiac
while [ $# -gt 0 ]; do
  case $1 in
    -o) out=$2; shift 2 ;;
    -x) exe=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
start=$(date +%s.%N)
"$exe" -mesh lv -refine 2 -dm_mat_type ellwarp -dm_vec_type cuda -dt 0.25 -t_end 500 -monitor_every 100 \
  -final_vtu 0 -png 1 -output_dir "$out" -label lv1m-500ms -json "$out/lv1m-500ms.json" -log_view "$@" | tee "$out/lv1m-500ms.log"
end=$(date +%s.%N)
echo "[lv1m_500ms] process wall time $(echo "$end - $start" | bc 2>/dev/null || python3 -c "print($end - $start)") s" | tee -a "$out/lv1m-500ms.log"

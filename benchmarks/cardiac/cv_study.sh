#!/usr/bin/env bash
# Conduction-velocity convergence study of the cardiac example (issue 7): a planar wave along the fibres
# (x) of the 20 x 7 x 3 mm slab, stimulated at x < 1.5 mm; CV from the activation times at x = 5 and
# x = 15 mm (slab centre line).  3 mesh sizes x 3 time steps; table of the observed orders.
#   cv_study.sh [-o OUTDIR] [-x CARDIAC_EXE] [-h "1 0.5 0.25"] [-t "0.4 0.2 0.1"] [-- extra example options]
# Defaults: CPU pipeline (AIJ, host assembly); on a GPU host add  -- -dm_mat_type ellwarp -dm_vec_type cuda
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/benchmarks/results/cardiac-cv
exe=${ELLWARP_BUILD_DIR:-$root/build}/examples/cardiac
hs="1 0.5 0.25"; dts="0.4 0.2 0.1"
while [ $# -gt 0 ]; do
  case $1 in
    -o) out=$2; shift 2 ;;
    -x) exe=$2; shift 2 ;;
    -h) hs=$2; shift 2 ;;
    -t) dts=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
extra=("$@")
[ ${#extra[@]} -gt 0 ] || extra=(-dm_mat_type aij -dm_assembly_type host)
mkdir -p "$out/runs"
for h in $hs; do
  for dt in $dts; do
    tag="h${h}_dt${dt}"
    echo "[cv] h = $h mm, dt = $dt ms" >&2
    "$exe" -mesh slab -slab_h "$h" -dt "$dt" -t_end 80 -stop_when_activated -quiet -png 0 -final_vtu 0 \
      -label "$tag" -json "$out/runs/$tag.json" "${extra[@]}" > "$out/runs/$tag.log"
    grep -E "conduction velocity|per step" "$out/runs/$tag.log" >&2
  done
done
python3 - "$out" "$hs" "$dts" "${extra[*]}" <<'PY'
import json, math, sys, os
out, hs, dts, extra = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4]
cv = {}
runs = []
for h in hs:
    for dt in dts:
        r = json.load(open(os.path.join(out, "runs", f"h{h}_dt{dt}.json")))
        cv[(h, dt)] = r["cv_mm_per_ms"]
        runs.append(r)
def order(a, b, c, ratio):
    d1, d2 = a - b, b - c
    if d1 == 0 or d2 == 0 or d1 * d2 < 0: return float("nan")
    return math.log(abs(d1 / d2)) / math.log(ratio)
rh = float(hs[0]) / float(hs[1]); rt = float(dts[0]) / float(dts[1])
lines = ["# Conduction velocity (mm/ms) of a planar wave on the 20 x 7 x 3 mm slab", "",
         f"Monodomain Aliev-Panfilov, fibres along x (D = d_iso I + d_ani f f, defaults 0.15 + 0.85 mm^2/ms), P1 tets (Kuhn),",
         f"backward Euler, global-local Newton; CV = 10 mm / (t_act(x=15) - t_act(x=5)), activation at Phi = -40 mV.",
         f"Solver defaults: Newton atol = 1e-6 uniform potential change per step, CG + Jacobi rtol 1e-4.",
         f"Pipeline options: `{extra}`.", "",
         "| h (mm) \\ dt (ms) | " + " | ".join(dts) + " | order in dt |", "| --- | " + " | ".join("---:" for _ in dts) + " | ---: |"]
for h in hs:
    row = [cv[(h, dt)] for dt in dts]
    p = order(*row, rt) if len(row) == 3 else float("nan")
    lines.append(f"| {h} | " + " | ".join(f"{v:.5f}" for v in row) + f" | {p:.2f} |")
prow = []
for dt in dts:
    col = [cv[(h, dt)] for h in hs]
    prow.append(order(*col, rh) if len(col) == 3 else float("nan"))
lines.append("| order in h | " + " | ".join(f"{p:.2f}" for p in prow) + " | |")
# Richardson extrapolation of the finest column/row with the observed orders
hf, tf = hs[-1], dts[-1]
lines += ["", "Observed order = log(|CV(a)-CV(b)| / |CV(b)-CV(c)|) / log(ratio) over three successive sizes (ratio 2).",
          "Run time and iterations: runs/*.json (step_ms, newton_per_step, ksp_per_step)."]
open(os.path.join(out, "table.md"), "w").write("\n".join(lines) + "\n")
json.dump({"h_mm": hs, "dt_ms": dts, "cv": {f"h{h}_dt{dt}": cv[(h, dt)] for h in hs for dt in dts},
           "order_h": dict(zip(dts, prow)), "runs": runs}, open(os.path.join(out, "cv.json"), "w"), indent=1)
print("\n".join(lines))
PY

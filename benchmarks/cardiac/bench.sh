#!/usr/bin/env bash
# Per-step cost of the cardiac example on LV refinements (issue 7, the Wong-Kuhl-Darve Figure 1/12 study
# scaled up): wall time per time step split into assembly / solve / rest, GPU pipeline (MATELLWARP, device
# vectors, device assembly) against the CPU pipeline of the same example (AIJ, host assembly, one core),
# in the same run; table (markdown) + JSON, and the ratio CPU/GPU per mesh.
#   bench.sh [-o OUTDIR] [-x CARDIAC_EXE] [-m "MESHES"] [-c "CPU_MESHES"] [-p "PEER_MESHES"] [-s GPU_STEPS]
#            [-S CPU_STEPS] [-g 0|1] [-t] [-- extra options for all pipelines]
# -t: no runs, only the table and JSON from OUTDIR/runs/*.json (to merge runs made by several invocations).
# PEER_MESHES: meshes also run with the GPU peer matrix AIJCUSPARSE (same assembler, device vectors).
# MESHES: names from  s6k (structured LV, ~6.5k vertices), lv20k (gmsh LV), lv144k (gmsh LV refined once),
#   lv1m (gmsh LV refined twice, 1.08 M), s2m (structured LV, ~2.4 M: CG + Jacobi exceeds 1000 iterations, apex
#   slivers), lv6k lv6k-r1 lv6k-r2 lv6k-r3 (6.5k gmsh LV refined 0..3 times, up to 2.48 M).  Each run is limited
#   to $CARDIAC_BENCH_TIMEOUT seconds (900).  -g 0: no GPU runs (CPU only, for testing
#   the script here).  Each run: dt 0.25 ms from t = 0 (stimulus and first propagation), first step (set-up of
#   plans and analyses) excluded from the means.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/benchmarks/results/cardiac-bench
exe=${ELLWARP_BUILD_DIR:-$root/build}/examples/cardiac
meshes="s6k lv20k lv144k lv1m lv6k-r3"; cpumeshes="lv20k lv144k lv1m"; peermeshes="lv144k lv1m"
gsteps=40; csteps=5; gpu=${ELLWARP_HAVE_DEVICE:-0}; tableonly=0
while [ $# -gt 0 ]; do
  case $1 in
    -o) out=$2; shift 2 ;;
    -x) exe=$2; shift 2 ;;
    -m) meshes=$2; shift 2 ;;
    -c) cpumeshes=$2; shift 2 ;;
    -p) peermeshes=$2; shift 2 ;;
    -s) gsteps=$2; shift 2 ;;
    -S) csteps=$2; shift 2 ;;
    -g) gpu=$2; shift 2 ;;
    -t) tableonly=1; shift ;;
    --) shift; break ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
extra=("$@")
source "$(dirname "$0")/meshes.sh"
mesh_check $meshes $cpumeshes $peermeshes
mkdir -p "$out/runs"
common=(-dt 0.25 -png 0 -final_vtu 0 -monitor_every 10)
run() { # tag pipeline steps mesh-options...
  local tag=$1 pipe=$2 steps=$3; shift 3
  local popts
  case $pipe in
    gpu) popts=(-dm_mat_type ellwarp -dm_vec_type cuda) ;;
    cusparse) popts=(-dm_mat_type aijcusparse -dm_vec_type cuda) ;;
    *) popts=(-dm_mat_type aij -dm_assembly_type host) ;;
  esac
  echo "[bench] $tag $pipe: $* ${popts[*]} -steps $steps" >&2
  timeout "${CARDIAC_BENCH_TIMEOUT:-900}" "$exe" "$@" "${common[@]}" "${popts[@]}" -steps "$steps" -label "$tag-$pipe" -json "$out/runs/$tag-$pipe.json" "${extra[@]}" \
    > "$out/runs/$tag-$pipe.log" 2>&1 || { echo "[bench] $tag $pipe FAILED:" >&2; tail -20 "$out/runs/$tag-$pipe.log" >&2; return 1; }
  grep -E "^cardiac: (per step|[0-9]+ vertices)" "$out/runs/$tag-$pipe.log" >&2
}
for m in $meshes; do
  [ "$tableonly" = 0 ] || break
  # shellcheck disable=SC2046
  if [ "$gpu" = 1 ]; then run "$m" gpu "$gsteps" $(mesh_opts "$m") || true; fi
  # shellcheck disable=SC2046
  if [ "$gpu" = 1 ]; then case " $peermeshes " in *" $m "*) run "$m" cusparse "$gsteps" $(mesh_opts "$m") || true ;; esac; fi
  case " $cpumeshes " in *" $m "*) run "$m" cpu "$csteps" $(mesh_opts "$m") || true ;; esac
done
python3 - "$out" "$meshes" <<'PY'
import json, os, sys
out, meshes = sys.argv[1], sys.argv[2].split()
rows, allruns = [], []
def load(tag):
    p = os.path.join(out, "runs", tag + ".json")
    return json.load(open(p)) if os.path.exists(p) else None
lines = ["# Cardiac example: wall time per time step (ms), GPU pipeline vs CPU pipeline", "",
         "dt 0.25 ms from t = 0 (stimulus + early propagation), Newton (atol = 1e-6 uniform potential change) with CG + Jacobi",
         "(rtol 1e-4); means over steps 2..N (step 1 holds the one-time plans/analyses).  GPU: MATELLWARP + device vectors +",
         "device assembly; CPU: AIJ + host assembly, one core.  assembly = residual + Jacobian assembly, solve = SNES minus",
         "assembly (CG, Jacobi, vector ops), rest = commit of r, activation update, monitoring.", "",
         "Last column: step time of that row / step time of the GPU ELLWARP row (same mesh, same run).", "",
         "| mesh | vertices | tets | pipeline | steps | step ms | assembly ms | solve ms | rest ms | Newton/step | CG/step | setup s | first step ms | / GPU ELLWARP |",
         "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
for m in meshes:
    g, p, c = load(m + "-gpu"), load(m + "-cusparse"), load(m + "-cpu")
    for r, pipe in ((g, "gpu"), (p, "gpu"), (c, "cpu")):
        if not r: continue
        allruns.append(r)
        ratio = ""
        if g and g["step_ms"] > 0: ratio = f"{r['step_ms'] / g['step_ms']:.2f}"
        lines.append(f"| {m} | {r['vertices']} | {r['tets']} | {pipe} ({r['mat_type']}, {r['assembly']}) | {r['steps']} | {r['step_ms']:.3f} | {r['assembly_ms']:.3f} | {r['solve_ms']:.3f} | {r['rest_ms']:.3f} | {r['newton_per_step']:.2f} | {r['ksp_per_step']:.1f} | {r['setup_s']:.2f} | {r['first_step_ms']:.1f} | {ratio} |")
open(os.path.join(out, "table.md"), "w").write("\n".join(lines) + "\n")
json.dump(allruns, open(os.path.join(out, "bench.json"), "w"), indent=1)
print("\n".join(lines))
PY

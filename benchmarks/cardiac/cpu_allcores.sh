#!/usr/bin/env bash
# The CPU peer of issue 7's benchmark: the cardiac example (AIJ, host assembly through DMAssembly on the
# distributed DMPlex) on all cores of the machine under mpiexec, per-step wall time split into assembly /
# solve / rest, in the format of bench.sh (same JSON fields; runs/<mesh>-cpunp<N>.json and .log).  If OUTDIR
# also holds bench.sh's runs (runs/<mesh>-gpu.json, <mesh>-cpu.json), the table adds the ratios to the GPU
# ELLWARP run and to the one-core CPU run of the same mesh; -r REFDIR reads those from another directory
# (bench.sh's bench.json, *.json or runs/*.json, by label <mesh>-gpu / <mesh>-cpu, e.g.
# benchmarks/results/cardiac-bench-h100).
#   cpu_allcores.sh [-o OUTDIR] [-x CARDIAC_EXE] [-m "MESHES"] [-n NPROCS] [-S STEPS] [-b "BIND OPTIONS"] [-t]
#                   [-r REFDIR] [-- extra options of the example]
#   -n: processes (default: nproc); -S: time steps per run (default 5; step 1 holds the one-time plans and
#   is excluded from the means); -m: mesh names of meshes.sh (s6k lv20k lv144k lv1m s2m lv6k lv6k-r1 lv6k-r2 lv6k-r3; default "lv20k lv144k lv1m");
#   -b: binding options of mpiexec (default Open MPI: --bind-to core --map-by core; with more processes than
#   physical cores but not than logical CPUs, one per hardware thread; beyond that --oversubscribe, unbound);
#   -t: only the table from OUTDIR/runs.
#   MPIEXEC (environment): the launcher (default mpiexec).
# Example (16-core GPU host, Open MPI 4.1):
#   timeout 900 bash benchmarks/cardiac/cpu_allcores.sh -x $B/examples/cardiac -n 16 -o OUT
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/benchmarks/results/cardiac-cpu-allcores
exe=${ELLWARP_BUILD_DIR:-$root/build}/examples/cardiac
meshes="lv20k lv144k lv1m"; np=$(nproc); steps=5; bind=""; bindset=0; tableonly=0; ref="" 
while [ $# -gt 0 ]; do
  case $1 in
    -o) out=$2; shift 2 ;;
    -x) exe=$2; shift 2 ;;
    -m) meshes=$2; shift 2 ;;
    -n) np=$2; shift 2 ;;
    -S) steps=$2; shift 2 ;;
    -b) bind=$2; bindset=1; shift 2 ;;
    -t) tableonly=1; shift ;;
    -r) ref=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
extra=("$@")
read -r -a mpiexec <<< "${MPIEXEC:-mpiexec}"
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
if [ "$bindset" = 0 ] && "${mpiexec[@]}" --version 2>&1 | grep -qE "Open MPI|OpenRTE"; then
  cores=$(lscpu -p=core,socket 2>/dev/null | grep -v '^#' | sort -u | wc -l || echo 0)
  [ "$cores" -gt 0 ] || cores=$(nproc)
  if [ "$np" -le "$cores" ]; then bind="--bind-to core --map-by core"
  elif [ "$np" -le "$(nproc)" ]; then bind="--use-hwthread-cpus --map-by core --bind-to hwthread"  # SMT: one rank per hardware thread
  else bind="--oversubscribe --bind-to none"; fi
fi
read -r -a bindopts <<< "$bind"
source "$(dirname "$0")/meshes.sh"
mesh_check $meshes
mkdir -p "$out/runs"
tag=cpunp$np
common=(-dt 0.25 -png 0 -final_vtu 0 -monitor_every 1 -dm_mat_type aij -dm_vec_type standard -dm_assembly_type host)
if [ "$tableonly" = 0 ]; then
  echo "[cpu_allcores] $(hostname): ${mpiexec[*]} -n $np ${bindopts[*]}; $(nproc) logical CPUs; $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)" >&2
  for m in $meshes; do
    # shellcheck disable=SC2046
    set -- $(mesh_opts "$m")
    echo "[cpu_allcores] $m: $* ${common[*]} -steps $steps" >&2
    if "${mpiexec[@]}" -n "$np" "${bindopts[@]}" "$exe" "$@" "${common[@]}" -steps "$steps" -label "$m-$tag" \
         -json "$out/runs/$m-$tag.json" "${extra[@]}" > "$out/runs/$m-$tag.log" 2>&1; then
      grep -E "^(cardiac: (per step|[0-9]+ vertices|distributed)|step )" "$out/runs/$m-$tag.log" >&2
    else
      echo "[cpu_allcores] $m FAILED:" >&2; tail -20 "$out/runs/$m-$tag.log" >&2
    fi
  done
fi
python3 - "$out" "$meshes" "$tag" "$np" "${ref:-$out}" <<'PY'
import glob, json, os, sys
out, meshes, tag, np, ref = sys.argv[1], sys.argv[2].split(), sys.argv[3], sys.argv[4], sys.argv[5]
refruns = {}
for d in dict.fromkeys([ref, out]):
    for f in [os.path.join(d, "bench.json")] + glob.glob(os.path.join(d, "*.json")) + glob.glob(os.path.join(d, "runs", "*.json")):
        try:
            data = json.load(open(f))
        except Exception:
            continue
        for r in (data if isinstance(data, list) else [data]):
            if isinstance(r, dict) and "label" in r and "step_ms" in r: refruns.setdefault(r["label"], r)
def load(t):
    p = os.path.join(out, "runs", t + ".json")
    return json.load(open(p)) if os.path.exists(p) else refruns.get(t)
lines = [f"# Cardiac example on the CPU: {np} MPI processes (AIJ, host assembly through DMAssembly on the distributed DMPlex)", "",
         "dt 0.25 ms from t = 0, Newton with CG + Jacobi (rtol 1e-4), as bench.sh; means over steps 2..N.  assembly = residual +",
         "Jacobian assembly (each rank its owned rows, ghost-layer elements computed redundantly, no communication), solve = SNES",
         "minus assembly, rest = commit of r, activation update, monitoring.", "",
         "/ GPU ELLWARP: this row's step time / the GPU ELLWARP run's (bench.sh, same OUTDIR); 1 core / this: the one-core CPU run's",
         "step time / this row's (parallel speed-up).", "",
         "| mesh | vertices | tets | pipeline | steps | step ms | assembly ms | solve ms | rest ms | Newton/step | CG/step | setup s | first step ms | / GPU ELLWARP | 1 core / this |",
         "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
runs = []
for m in meshes:
    r, g, c = load(f"{m}-{tag}"), load(m + "-gpu"), load(m + "-cpu")
    if not r: continue
    runs.append(r)
    rg = f"{r['step_ms'] / g['step_ms']:.2f}" if g and g["step_ms"] > 0 else ""
    rc = f"{c['step_ms'] / r['step_ms']:.2f}" if c and r["step_ms"] > 0 else ""
    lines.append(f"| {m} | {r['vertices']} | {r['tets']} | cpu x{np} ({r['mat_type']}, {r['assembly']}) | {r['steps']} | {r['step_ms']:.3f} | {r['assembly_ms']:.3f} | {r['solve_ms']:.3f} | {r['rest_ms']:.3f} | {r['newton_per_step']:.2f} | {r['ksp_per_step']:.1f} | {r['setup_s']:.2f} | {r['first_step_ms']:.1f} | {rg} | {rc} |")
open(os.path.join(out, f"table-{tag}.md"), "w").write("\n".join(lines) + "\n")
json.dump(runs, open(os.path.join(out, f"bench-{tag}.json"), "w"), indent=1)
print("\n".join(lines))
PY

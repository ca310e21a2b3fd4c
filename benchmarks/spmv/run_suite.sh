#!/usr/bin/env bash
# Runs the SpMV benchmark suite with the PETSc SELLCUDA measurement in separate processes.
#
# spmv_bench's default -sell_mode fork re-executes itself for SELLCUDA (a conversion that can take very long,
# killed after -sell_timeout).  That child is a second MPI singleton started from inside an MPI process, and
# on the GPU host (Ubuntu's Open MPI 4.1.6 under a PETSc built against Debian's 4.1.4) its MPI_Init fails
# ("ompi_rte_init failed ... Unable to start a daemon on the local node").  This script avoids nested MPI
# altogether:
#   1. the main run: all formats, SELLCUDA skipped (spmv_bench ... -sell_mode skip -json main.json);
#   2. for each matrix, a fresh top-level process (like the main run) measures SELLCUDA alone:
#        timeout LIMIT spmv_bench ... -matrices <name> -formats sellcuda -sell_mode inline -json sell/<name>.json
#      and is reported as "timeout" when it is killed (the limit includes process start, CUDA initialization
#      and the matrix's generation, which the fork mode's -sell_timeout did not count);
#   3. merge_sell.py puts the results into the JSON (same schema: formats.petsc_sellcuda) and the text
#      tables (the per-matrix row and the summary's "sellcu" column): spmv.json and spmv.txt.
#
# usage: bash benchmarks/spmv/run_suite.sh [options] [-- spmv_bench options...]
#   -o DIR             output directory (default benchmarks/results/spmv-<date>-<time>)
#   --bench PATH       spmv_bench (default $ELLWARP_BUILD_DIR/benchmarks/spmv/spmv_bench, build/ by default)
#   --sell-timeout S   limit per SELLCUDA process in seconds (default 120)
#   --sell-max-rows N  skip SELLCUDA for matrices with more rows (default 0: no limit)
#   --no-sell          only the main run (SELLCUDA reported as skipped)
#   --dry-run          print the commands instead of running them
# spmv_bench options after -- go to every run (suite selection, -products, -repeats, ...).  The per-matrix
# runs append their own -matrices/-formats/-sell_mode/-json, which override the user's (the last wins).
# Environment: SPMV_LAUNCHER  prefix for every spmv_bench run, e.g. "mpiexec -n 1" (word-split; default none)
#              PYTHON         python3 to use for merge_sell.py and plot.py
# plot.py (matplotlib) is run on the merged JSON when matplotlib is importable.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="" bench="" sell_timeout=120 sell_max_rows=0 nosell=0 dry=0
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    --sell-timeout) sell_timeout=$2; shift 2 ;;
    --sell-max-rows) sell_max_rows=$2; shift 2 ;;
    --no-sell) nosell=1; shift ;;
    --dry-run) dry=1; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    *) echo "run_suite.sh: unknown option $1 (spmv_bench options go after --)" >&2; exit 2 ;;
  esac
done
user=("$@")
bench=${bench:-${ELLWARP_BUILD_DIR:-$root/build}/benchmarks/spmv/spmv_bench}
out=${out:-$root/benchmarks/results/spmv-$(date +%Y%m%d-%H%M%S)}
py=${PYTHON:-python3}
# shellcheck disable=SC2206
launch=(${SPMV_LAUNCHER:-})
if [ "$dry" = 0 ] && [ ! -x "$bench" ]; then
  echo "run_suite.sh: $bench not found or not executable (build first, or --bench)" >&2; exit 1
fi
mkdir -p "$out/sell"
log() { echo "[run_suite] $*" >&2; }
run() { # run OUTFILE CMD... : runs (or prints) CMD with stdout+stderr to OUTFILE; returns its status
  local f=$1; shift
  if [ "$dry" = 1 ]; then echo "$* > $f"; return 0; fi
  "$@" > "$f" 2>&1
}

# 1. main run
log "main run -> $out/main.txt"
run "$out/main.txt" "${launch[@]}" "$bench" "${user[@]}" -sell_mode skip -json "$out/main.json"
rc=$?
if [ "$dry" = 0 ]; then
  if [ $rc != 0 ] || [ ! -s "$out/main.json" ]; then
    log "main run failed (exit $rc); last lines of $out/main.txt:"; tail -n 20 "$out/main.txt" >&2; exit 1
  fi
  grep -E '^# \[' "$out/main.txt" >&2
fi

# 2. SELLCUDA, one process per matrix
if [ "$dry" = 1 ]; then
  mats="MATRIX 0"   # the names come from main.json
else
  mats=$("$py" -c 'import json,sys; [print(m["name"], m["rows"]) for m in json.load(open(sys.argv[1]))["matrices"]]' "$out/main.json") ||
    { log "cannot read $out/main.json"; exit 1; }
fi
while read -r name rows; do
  [ -n "$name" ] || continue
  st="$out/sell/$name.status"
  if [ "$nosell" = 1 ]; then
    echo "skipped 0 run_suite.sh --no-sell" > "$st"; continue
  fi
  if [ "$sell_max_rows" -gt 0 ] && [ "$rows" -gt "$sell_max_rows" ]; then
    echo "skipped 0 rows > --sell-max-rows $sell_max_rows" > "$st"; log "$name: SELLCUDA skipped ($rows rows)"; continue
  fi
  rm -f "$out/sell/$name.json"
  t0=$(date +%s)
  run "$out/sell/$name.txt" timeout -k 10 "$sell_timeout" "${launch[@]}" "$bench" "${user[@]}" \
    -matrices "$name" -formats sellcuda -sell_mode inline -json "$out/sell/$name.json"
  rc=$?
  [ "$dry" = 0 ] || continue
  if [ $rc = 124 ] || [ $rc = 137 ]; then
    echo "timeout $rc" > "$st"
  elif [ $rc != 0 ]; then
    echo "error $rc spmv_bench exited with status $rc: $(grep -m1 -E 'ERROR|rror' "$out/sell/$name.txt" | cut -c1-160)" > "$st"
  elif [ ! -s "$out/sell/$name.json" ]; then
    echo "error 0 spmv_bench wrote no $name.json" > "$st"
  else
    echo "ok 0" > "$st"
  fi
  log "$name: SELLCUDA $(cut -d' ' -f1 "$st") after $(( $(date +%s) - t0 )) s"
done <<< "$mats"

# 3. merge
if [ "$dry" = 1 ]; then
  echo "$py $here/merge_sell.py $out/main.json $out/main.txt $out/sell $out/spmv.json $out/spmv.txt --timeout $sell_timeout"
  exit 0
fi
"$py" "$here/merge_sell.py" "$out/main.json" "$out/main.txt" "$out/sell" "$out/spmv.json" "$out/spmv.txt" \
  --timeout "$sell_timeout" >&2 || { log "merge failed"; exit 1; }
cat "$out/spmv.txt"
if "$py" -c 'import matplotlib' 2>/dev/null; then
  "$py" "$here/plot.py" "$out/spmv.json" -o "$out/spmv.png" >&2 || log "plot.py failed"
else
  log "matplotlib not available: no plot (python3 benchmarks/spmv/plot.py $out/spmv.json elsewhere)"
fi
log "results in $out (spmv.txt, spmv.json; raw: main.*, sell/)"

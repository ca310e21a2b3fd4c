#!/usr/bin/env bash
# PCGAMG set-up (and solve) with MATELLWARP against AIJCUSPARSE after the mixed-type MatAXPY and the lazy-analysis
# changes (issue 14): ksp ex45 (3-D Poisson 128^3) in 5 rounds and ksp ex56 (elasticity -ne 69) in 3 rounds, the two
# types alternating which runs first (benchmarks/gamg/run_gamg.sh), then, per problem, the medians over the rounds
# of every -log_view event whose time differs by more than 5 ms between the two types (ELLWARP minus AIJCUSPARSE,
# largest first).  Device script: run from a copy carrying .gpu/ (scripts/gpu-pack.sh); outputs under $OUT:
#   gamg-setup.txt     the tables of run_gamg.sh (per round and the medians with the ratios) for both problems
#   events-setup.txt   the event medians that differ, per problem
#   gamg-setup-logs.tgz every -log_view
cd "$(dirname "$0")/../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
T=/tmp/gamg-setup
rm -rf "$T"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gamg-setup.txt"
# GAMG_SPECS: "problem rounds limit_s;..." (a shorter run, e.g. GAMG_SPECS="poisson 3 130")
IFS=';' read -r -a specs <<< "${GAMG_SPECS:-poisson 5 200;elasticity 3 140}"
for spec in "${specs[@]}"; do  # seconds: ~20 s a run on the H100
  read -r prob rounds limit <<< "$spec"
  echo "== $prob, $rounds rounds" >> "$OUT/gamg-setup.txt"
  timeout "$limit" stdbuf -oL bash benchmarks/gamg/run_gamg.sh -o "$T/$prob" --exe-dir "$B/tests/tutorials" \
    --lib "$B/lib/libpetscellwarp.so" --rounds "$rounds" --problems "$prob" --types "aijcusparse ellwarp" >> "$OUT/gamg-setup.txt" 2>&1 ||
    echo "[run-setup] $prob: exit $?" >> "$OUT/gamg-setup.txt"
  echo "== $prob: event medians over the rounds (max time, s), ELLWARP minus AIJCUSPARSE, |diff| > 5 ms" >> "$OUT/events-setup.txt"
  for f in "$T/$prob"/*_r*.log; do
    [ -f "$f" ] || continue
    t=$(basename "$f" | sed -E 's/^[a-z]+_(aijcusparse|ellwarp)_r[0-9]+\.log$/\1/')
    # the event table of -log_view: name, count, ratio, max time ...
    awk -v t="$t" '/^Event +Count/ {on = 1; next} on && NF > 10 && $2 ~ /^[0-9]+$/ && $4 ~ /^[0-9.]+e[-+][0-9]+$/ {print t, $1, $4}' "$f"
  done | awk '{ k = $2; if ($1 == "aijcusparse") a[k] = a[k] " " $3; else e[k] = e[k] " " $3 }
    function med(s,   v, n, i, j, x) { n = split(s, v, " "); if (!n) return 0; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { x = v[i]; v[i] = v[j]; v[j] = x }
                                      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
    END { for (k in a) { ma = med(a[k]); me = med(e[k]); d = me - ma; if (d > 0.005 || d < -0.005) printf "%-22s %10.4f %10.4f %+10.4f\n", k, ma, me, d }
          for (k in e) if (!(k in a)) { me = med(e[k]); if (me > 0.005) printf "%-22s %10s %10.4f %+10.4f\n", k, "-", me, me } }' |
    sort -k4 -g -r | awk 'BEGIN {printf "%-22s %10s %10s %10s\n", "event", "aijcusp", "ellwarp", "diff"} {print}' >> "$OUT/events-setup.txt"
done
tar -C "$T" -czf "$OUT/gamg-setup-logs.tgz" .
grep -A4 "ellwarp_run" "$OUT/gamg-setup.txt"
cat "$OUT/events-setup.txt"

#!/usr/bin/env bash
# The cardiac example's time loop on PETSc TS (-cardiac_ts: TSBEULER, fixed step) against its hand loop: the
# same backward Euler step with the same SNES, so the same activation times (tests/cardiac_compare.c, 1e-9 ms),
# the same Newton/CG iteration counts and the same activation summary; with -stop_when_activated both stop at
# the same step.  A TS type whose shift is not 1/dt (Crank-Nicolson) must be refused.
#   cardiac_ts.sh CARDIAC_EXE COMPARE_EXE cpu|gpu [extra example options]
#   cpu: host ELLWARP, host assembly: identical results (1e-9 ms, same summary and iteration counts)
#   gpu: ELLWARP + device vectors + device assembly (the GPU keyword of the test gates the device): device assembly may add in another
#        order (atomics), so activation times within 1e-6 ms
set -euo pipefail
exe=$1; cmp=$2; mode=$3; shift 3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
case $mode in
  cpu) pipe=(-dm_mat_type ellwarp -mat_ellwarp_backend host -dm_assembly_type host); tol=1e-9 ;;
  gpu) pipe=(-dm_mat_type ellwarp -dm_vec_type cuda); tol=1e-6 ;;
  *) echo "mode cpu or gpu" >&2; exit 2 ;;
esac
common=(-mesh lvstruct -lv_nodes 3000 -dt 0.5 -t_end 90 -monitor_every 30 -png 0 -final_vtu 0 "${pipe[@]}" "$@")
line() { grep -E "^cardiac: [0-9]+ steps; activated" "$1"; }
its() { grep -oE "Newton [0-9.]+, KSP [0-9.]+ its per step" "$1"; }
echo "== hand loop"
"$exe" "${common[@]}" -act_view "binary:$tmp/a.bin" > "$tmp/a.log" 2>&1 || { cat "$tmp/a.log"; echo "FAIL: hand loop run"; exit 1; }
echo "== TS"
"$exe" "${common[@]}" -cardiac_ts -act_view "binary:$tmp/b.bin" > "$tmp/b.log" 2>&1 || { cat "$tmp/b.log"; echo "FAIL: TS run"; exit 1; }
grep -q "time loop (hand loop): 180 steps" "$tmp/a.log" || { cat "$tmp/a.log"; echo "FAIL: hand loop did not run 180 steps"; exit 1; }
grep -q "time loop (TS beuler): 180 steps" "$tmp/b.log" || { cat "$tmp/b.log"; echo "FAIL: TS did not run 180 steps"; exit 1; }
echo "hand: $(line "$tmp/a.log"); $(its "$tmp/a.log")"
echo "TS  : $(line "$tmp/b.log"); $(its "$tmp/b.log")"
if [ "$mode" = cpu ]; then
  [ -n "$(line "$tmp/a.log")" ] && [ "$(line "$tmp/a.log")" = "$(line "$tmp/b.log")" ] || { echo "FAIL: activation summaries differ"; exit 1; }
  [ -n "$(its "$tmp/a.log")" ] && [ "$(its "$tmp/a.log")" = "$(its "$tmp/b.log")" ] || { echo "FAIL: Newton/CG iteration counts differ"; exit 1; }
fi
"$cmp" -a "$tmp/a.bin" -b "$tmp/b.bin" -tol "$tol"
# stopping early: the same step
short=(-mesh lvstruct -lv_nodes 1000 -dt 0.5 -t_end 200 -stop_when_activated -monitor_every 0 -png 0 -final_vtu 0
       "${pipe[@]}" "$@")
"$exe" "${short[@]}" > "$tmp/c.log" 2>&1 || { cat "$tmp/c.log"; echo "FAIL: hand loop -stop_when_activated"; exit 1; }
"$exe" "${short[@]}" -cardiac_ts > "$tmp/d.log" 2>&1 || { cat "$tmp/d.log"; echo "FAIL: TS -stop_when_activated"; exit 1; }
sc=$(grep "all vertices activated at" "$tmp/c.log" || true); sd=$(grep "all vertices activated at" "$tmp/d.log" || true)
echo "stop: hand '$sc', TS '$sd'"
[ -n "$sc" ] && [ "$sc" = "$sd" ] || { echo "FAIL: -stop_when_activated stops differently"; exit 1; }
# Crank-Nicolson (shift 2/dt) is not what the element tangent is: a clear error, not a wrong answer
if "$exe" "${short[@]}" -cardiac_ts -ts_type cn -t_end 2 > "$tmp/e.log" 2>&1; then cat "$tmp/e.log"; echo "FAIL: -ts_type cn was accepted"; exit 1; fi
grep -q "the element tangent is backward Euler's" "$tmp/e.log" || { cat "$tmp/e.log"; echo "FAIL: -ts_type cn: no clear error"; exit 1; }
echo "cardiac_ts: PASS"

#!/usr/bin/env bash
# Set-up and first steps of the main job against a peer build (issue 16): the 1.08 M-vertex LV (gmsh LV refined
# twice, 6.05 M tets) and the 20 k README demo, each program run ROUNDS times alternating with the peer, on one GPU.
# Per run: the program's own set-up split ("cardiac: setup ... = mesh + DM + device + assembler + matrix + rest"),
# the first step (the Jacobian plan and the matrix analysis), the process wall time to the end of the steps, the
# per-step means (steps 2..), and the -log_view -log_view_gpu_time event table of the set-up phases.
#   setup_compare.sh -x CARDIAC_EXE [-b PEER_EXE] [-L PEER_LIBDIR] [-o OUT] [-r ROUNDS] [-s LV_STEPS] [-- extra options]
# PEER_LIBDIR: prepended to LD_LIBRARY_PATH for the peer (a libpetscellwarp of the peer's version).
# Writes OUT/<case>_<prog>_<round>.log and prints one line per run.
set -euo pipefail
out=benchmarks/results/cardiac-setup
exe=""; peer=""; peerlib=""; rounds=1; steps=20
while [ $# -gt 0 ]; do
  case $1 in
    -x) exe=$2; shift 2 ;;
    -b) peer=$2; shift 2 ;;
    -L) peerlib=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -r) rounds=$2; shift 2 ;;
    -s) steps=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$exe" ] || { echo "setup_compare.sh: -x CARDIAC_EXE is required" >&2; exit 2; }
mkdir -p "$out"
lv="-mesh lv -refine 2 -dm_mat_type ellwarp -dm_vec_type cuda -dt 0.25 -steps $steps -final_vtu 0 -png 0 -output_dir /tmp/cardiac_setup_out -monitor_every 0"
demo="-dm_mat_type ellwarp -dm_vec_type cuda -dt 0.25 -vtu_every 0 -final_vtu 0 -png 0 -output_dir /tmp/cardiac_setup_out -monitor_every 0"
one() { # case prog round exe libdir args...
  local c=$1 p=$2 r=$3 x=$4 lib=$5; shift 5
  local log=$out/${c}_${p}_${r}.log
  local t0 t1
  t0=$(date +%s.%N)
  LD_LIBRARY_PATH=${lib:+$lib:}${LD_LIBRARY_PATH:-} timeout "${CARDIAC_SETUP_TIMEOUT:-300}" stdbuf -oL "$x" "$@" > "$log" 2>&1 || echo "[setup_compare] $c $p round $r: exit status $?" >&2
  t1=$(date +%s.%N)
  printf '%-5s %-5s round %s: process %.2f s | %s | %s\n' "$c" "$p" "$r" "$(awk "BEGIN{print $t1 - $t0}")" \
    "$(grep -oE 'setup [0-9.]+ s( = .*\))?' "$log" | tail -1)" "$(grep -oE 'first step [0-9.]+ ms|wall [0-9.]+ ms = assembly [0-9.]+ \+ solve [0-9.]+' "$log" | tr '\n' ' ')"
}
for r in $(seq 1 "$rounds"); do
  one lv1m new "$r" "$exe" "" $lv -log_view -log_view_gpu_time "$@"
  [ -n "$peer" ] && one lv1m peer "$r" "$peer" "$peerlib" $lv -log_view -log_view_gpu_time "$@"
  one demo new "$r" "$exe" "" $demo "$@"
  [ -n "$peer" ] && one demo peer "$r" "$peer" "$peerlib" $demo "$@"
done

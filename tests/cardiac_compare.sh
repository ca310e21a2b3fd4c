#!/usr/bin/env bash
# Runs the cardiac example with two pipelines on a small LV mesh and compares the activation times
# (same activated vertices, max difference < TOL) with tests/cardiac_compare.c.
# TOL = 1e-5 ms, from what the runs show with a margin of 10 or more: on this mesh (4788 vertices, activation
# up to 73.5 ms) the pipelines differ only in the order of summation (kernels, reductions, FMA on the GPU) and
# the activation times agree to 9.8e-7 ms (cpu, 2-core host) and 5.9e-7 ms (gpu, H100).  A real fault (a
# wrong entry, a stale Jacobian) moves them by a time step's fraction or more (dt = 0.5 ms).
#   cardiac_compare.sh CARDIAC_EXE COMPARE_EXE cpu|gpu [extra example options]
#   cpu: host ELLWARP (-mat_ellwarp_backend host) vs AIJ, both with host assembly
#   gpu: ELLWARP + device vectors + device assembly vs AIJ + host assembly (skips without a device)
set -euo pipefail
exe=$1; cmp=$2; mode=$3; shift 3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
common=(-mesh lvstruct -lv_nodes 3000 -dt 0.5 -t_end 90 -monitor_every 30 -png 0 -final_vtu 0 "$@")
case $mode in
  cpu) a=(-dm_mat_type ellwarp -mat_ellwarp_backend host -dm_assembly_type host) ;;
  gpu) a=(-dm_mat_type ellwarp -dm_vec_type cuda) ;;
  *) echo "mode cpu or gpu" >&2; exit 2 ;;
esac
b=(-dm_mat_type aij -dm_assembly_type host)
echo "== pipeline A: ${a[*]}"
"$exe" "${common[@]}" "${a[@]}" -act_view "binary:$tmp/a.bin"
echo "== pipeline B: ${b[*]}"
"$exe" "${common[@]}" "${b[@]}" -act_view "binary:$tmp/b.bin"
"$cmp" -a "$tmp/a.bin" -b "$tmp/b.bin" -tol 1e-5

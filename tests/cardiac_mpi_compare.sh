#!/usr/bin/env bash
# The cardiac example on N MPI processes against the same run on one process: the activation times, gathered
# to rank 0 in the original vertex order (-act_view), must agree within TOL ms with the same vertices activated
# (tests/cardiac_compare.c).  The distributed run assembles with DMAssembly on the distributed DMPlex.
#   cardiac_mpi_compare.sh "MPIEXEC [FLAGS]" CARDIAC_EXE COMPARE_EXE NP aij|ellwarp|gpu [extra example options]
#   aij:     N ranks, MPIAIJ + host assembly                      vs 1 rank AIJ + host assembly
#   ellwarp: N ranks, MPIELLWARP host backend + host assembly     vs the same 1-rank AIJ run
#   gpu:     N ranks, MPIELLWARP + device vectors + device assembly vs 1-rank CPU AIJ
# TOL = 1e-5 ms for all three, from what the runs show with a margin of 5 or more: the runs differ only in the
# order of summation (parallel reductions: CG dot products, norms; on the GPU also the kernels' order and FMA),
# and the times agree to ~2e-6 ms (CPU ranks) and 8.3e-7 ms (gpu, 2 ranks on one H100).
set -euo pipefail
read -r -a mpiexec <<< "$1"; exe=$2; cmp=$3; np=$4; mode=$5; shift 5
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
common=(-mesh lvstruct -lv_nodes 3000 -dt 0.5 -t_end 90 -monitor_every 60 -png 0 -final_vtu 0 "$@")
tol=1e-5
case $mode in
  aij) a=(-dm_mat_type aij -dm_vec_type standard) ;;
  ellwarp) a=(-dm_mat_type ellwarp -mat_ellwarp_backend host -dm_vec_type standard) ;;
  gpu) a=(-dm_mat_type ellwarp -dm_vec_type cuda) ;;
  *) echo "mode aij, ellwarp or gpu" >&2; exit 2 ;;
esac
b=(-dm_mat_type aij -dm_vec_type standard)
echo "== $np processes: ${a[*]}"
"${mpiexec[@]}" -n "$np" "$exe" "${common[@]}" "${a[@]}" -act_view "binary:$tmp/a.bin"
echo "== 1 process: ${b[*]}"
"$exe" "${common[@]}" "${b[@]}" -act_view "binary:$tmp/b.bin"
"$cmp" -a "$tmp/a.bin" -b "$tmp/b.bin" -tol "$tol"

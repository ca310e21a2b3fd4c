#!/usr/bin/env bash
# PCGAMG on the GPU with MATELLWARP against AIJCUSPARSE, on PETSc's own tutorials, unmodified:
#   ksp/ksp/tutorials/ex56  3-D linear elasticity, Q1 hexes, 3 dof per node, rigid-body near-null space
#   ksp/ksp/tutorials/ex45  3-D Laplacian, 7-point stencil on a DMDA
# Each problem runs with -mat_type aijcusparse, -mat_type ellwarp (-dm_mat_type for ex45), and ellwarp with
# -mat_ellwarp_product_result ellwarp ("ellwarp_levels": the coarse operators and prolongators are ELLWARP too), CUDA vectors,
# the same GAMG options, in alternating order (ROUNDS times; the first of a round runs on a colder GPU).  From -log_view: PCSetUp (GAMG set-up) and
# KSPSolve times and the iteration count; printed as a table with the ratios aijcusparse / ellwarp.
#   usage: run_gamg.sh -o OUTDIR --exe-dir DIR --lib LIBPETSCELLWARP [--ne 69] [--grid 128] [--rounds 4]
#          [--problems "elasticity poisson"] [--types "aijcusparse ellwarp ellwarp_levels"]
# The executables are the tutorial builds of tests/tutorials (build/tests/tutorials/ksp_ex56, ksp_ex45).
set -euo pipefail
out="" exedir="" lib="" ne=69 grid=128 rounds=4 problems="elasticity poisson" types="aijcusparse ellwarp ellwarp_levels"
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift 2 ;;
    --exe-dir) exedir=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --ne) ne=$2; shift 2 ;;
    --grid) grid=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --problems) problems=$2; shift 2 ;;
    --types) types=$2; shift 2 ;;
    *) echo "run_gamg.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] && [ -n "$exedir" ] && [ -n "$lib" ] || { echo "usage: run_gamg.sh -o OUTDIR --exe-dir DIR --lib LIB" >&2; exit 2; }
mkdir -p "$out"
common=(-ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason -log_view -log_view_gpu_time -use_gpu_aware_mpi 0)
# name | executable | matrix option | problem options
cases=("elasticity|$exedir/ksp_ex56|-mat_type|-ne $ne -vec_type cuda -pc_gamg_coarse_eq_limit 1000"
       "poisson|$exedir/ksp_ex45|-dm_mat_type|-da_grid_x $grid -da_grid_y $grid -da_grid_z $grid -dm_vec_type cuda -pc_gamg_coarse_eq_limit 1000")
table="$out/gamg.txt"
printf '%-11s %-12s %5s %6s %10s %10s\n' problem matrix round its setup_s solve_s > "$table"
for c in "${cases[@]}"; do
  IFS='|' read -r name exe mopt popts <<< "$c"
  case " $problems " in *" $name "*) ;; *) continue ;; esac
  for r in $(seq 1 "$rounds"); do
    order=$types; [ $((r % 2)) = 0 ] && order=$(echo "$types" | awk '{for (i = NF; i > 0; i--) printf "%s%s", $i, (i > 1 ? " " : "")}')   # no type always first
    for t in $order; do
      extra=() mt=$t
      [ "$t" != aijcusparse ] && extra=(-dll_append "$lib")
      [ "$t" = ellwarp_levels ] && { extra+=(-mat_ellwarp_product_result ellwarp); mt=ellwarp; }
      log="$out/${name}_${t}_r$r.log"
      # shellcheck disable=SC2086
      timeout 280 stdbuf -oL "$exe" $popts "$mopt" "$mt" "${extra[@]}" "${common[@]}" > "$log" 2>&1 || echo "[gamg] $name $t round $r: exit $?" >&2
      its=$(grep -Eo 'iterations [0-9]+' "$log" | tail -1 | awk '{print $2}' || true)
      setup=$(awk '$1 == "PCSetUp" {print $4; exit}' "$log")
      solve=$(awk '$1 == "KSPSolve" {print $4; exit}' "$log")
      printf '%-11s %-12s %5s %6s %10s %10s\n' "$name" "$t" "$r" "${its:-?}" "${setup:-?}" "${solve:-?}" >> "$table"
    done
  done
done
# ratios from the medians of the rounds
awk 'NR > 1 { k = $1 " " $2; s[k] = s[k] " " $5; v[k] = v[k] " " $6; it[k] = $4 }
     function med(str,   a, n, i, j, t) { n = split(str, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
     END { for (p in it) split(p, q, " ");
           n = split("elasticity poisson", P, " ");
           printf "\n%-11s %-15s %8s %8s %10s %10s %10s %10s %8s %8s\n", "problem", "ellwarp_run", "its_aij", "its_ell", "setup_aij", "setup_ell", "solve_aij", "solve_ell", "setup_x", "solve_x";
           nv = split("ellwarp ellwarp_levels", V, " ");
           for (i = 1; i <= n; i++) for (j = 1; j <= nv; j++) { a = P[i] " aijcusparse"; e = P[i] " " V[j]; if (!(a in it) || !(e in it)) continue;
             sa = med(s[a]); se = med(s[e]); va = med(v[a]); ve = med(v[e]);
             printf "%-11s %-15s %8s %8s %10.4g %10.4g %10.4g %10.4g %8.3f %8.3f\n", P[i], V[j], it[a], it[e], sa, se, va, ve, (se > 0 ? sa / se : 0), (ve > 0 ? va / ve : 0) } }' "$table" >> "$table"
cat "$table"

#!/usr/bin/env bash
# Builds and runs the project's main job: the cardiac electrophysiology example (examples/cardiac,
# issue 7) on its default mesh, the idealized left ventricle (gmsh, 20k vertices, 94k tets), 500 ms from
# an apex stimulus: one progress line per step, then the activation-time range; VTU time series, the
# activation map (VTU + PNG) in $ELLWARP_BUILD_DIR/cardiac_out.  Extra arguments go to the program
# (PETSc options, e.g. -log_view, -help, -mesh lvstruct -lv_nodes 200000, -t_end 100).
# With a CUDA device: MATELLWARP, device vectors, device assembly, dt 0.25 ms.  Without one: MATELLWARP's
# host backend and host assembly, dt 0.5 ms (a minute or two on 2 cores).
# ELLWARP_MAIN=ex1_fe_poisson runs the Poisson example instead (its old options).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh"
# shellcheck source=scripts/env.sh
source "$root/scripts/env.sh"
build=${ELLWARP_BUILD_DIR:-$root/build}
main=${ELLWARP_MAIN:-cardiac}
exe="$build/examples/$main"
if [ ! -x "$exe" ]; then
  echo "[run] $exe does not exist (is examples/$main there?)" >&2; exit 1
fi
if [ "$main" = cardiac ]; then
  if [ "$ELLWARP_HAVE_DEVICE" = 1 ]; then
    opts=(-dm_mat_type ellwarp -dm_vec_type cuda -dt 0.25 -vtu_every 100 -output_dir "$build/cardiac_out")
  else
    echo "[run] no CUDA device: running MATELLWARP's host backend with host assembly" >&2
    opts=(-dm_mat_type ellwarp -mat_ellwarp_backend host -dt 0.5 -vtu_every 50 -output_dir "$build/cardiac_out")
  fi
elif [ "$ELLWARP_HAVE_DEVICE" = 1 ]; then
  opts=(-dm_mat_type ellwarp -dm_vec_type cuda -n 32)
else
  echo "[run] no CUDA device: running MATELLWARP's host backend" >&2
  opts=(-dm_mat_type ellwarp -mat_ellwarp_backend host -n 16)
fi
echo "[run] $exe ${opts[*]} $*" >&2
exec "$exe" "${opts[@]}" "$@"

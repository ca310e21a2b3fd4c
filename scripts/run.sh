#!/usr/bin/env bash
# Builds and runs the main example (examples/ex1_fe_poisson.c) with MATELLWARP; extra arguments are
# passed to the program (PETSc options, e.g. -log_view).  With a CUDA device the matrix and vectors
# live on the GPU; without one the host backend of MATELLWARP runs the same code path on the CPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh"
# shellcheck source=scripts/env.sh
source "$root/scripts/env.sh"
build=${ELLWARP_BUILD_DIR:-$root/build}
main=${ELLWARP_MAIN:-ex1_fe_poisson}
exe="$build/examples/$main"
if [ ! -x "$exe" ]; then
  echo "[run] $exe does not exist (is examples/$main.c there?)" >&2; exit 1
fi
if [ "$ELLWARP_HAVE_DEVICE" = 1 ]; then
  opts=(-dm_mat_type ellwarp -dm_vec_type cuda -n 32)
else
  echo "[run] no CUDA device: running MATELLWARP's host backend" >&2
  opts=(-dm_mat_type ellwarp -mat_ellwarp_backend host -n 16)
fi
echo "[run] $exe ${opts[*]} $*" >&2
exec "$exe" "${opts[@]}" "$@"

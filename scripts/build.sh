#!/usr/bin/env bash
# Configures and builds petsc-ellwarp (library, examples, benchmarks, tests) with CMake + Ninja.
# The first run builds PETSc (scripts/bootstrap-petsc.sh, ~10 min); later runs take seconds.
#   ELLWARP_BUILD_DIR  build directory (default: build)
#   ELLWARP_CMAKE_ARGS extra arguments for the cmake configure step
# Extra command-line arguments are passed to the configure step as well.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/env.sh
source "$root/scripts/env.sh"
build=${ELLWARP_BUILD_DIR:-$root/build}
gen=()
if [ ! -f "$build/CMakeCache.txt" ]; then
  if command -v ninja >/dev/null 2>&1; then gen=(-G Ninja); fi
fi
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release ${ELLWARP_CMAKE_ARGS:-} "$@" >&2
cmake --build "$build" -j "${ELLWARP_JOBS:-$(nproc)}" >&2
echo "[build] done: $build" >&2

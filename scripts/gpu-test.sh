#!/usr/bin/env bash
# Runs the test suite on a GPU host from the bundle that scripts/gpu-pack.sh made (.gpu/bundle.tar.xz and
# .gpu/manifest.env, carried with a copy of this repository).  Run from that copy, as root (the bundle is
# unpacked at the absolute paths it was packed from):
#   bash scripts/gpu-test.sh [ctest args...] [-- extra command...]
# e.g. bash scripts/gpu-test.sh -L gpu -- /tmp/ellwarp-gpubuild/examples/ex1_fe_poisson -mat_type ellwarp
# The extra command runs after ctest, in the same environment.  Exit status: ctest's, else the command's.
#   ELLWARP_GPU_TIMEOUT  seconds for the whole (default 540)
#   ELLWARP_GPU_JOBS     ctest -j (default 4)
# If $OUT is set (device machine), the CTest log is copied there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ctest_args=(); extra_cmd=()
while [ $# -gt 0 ]; do
  if [ "$1" = -- ]; then shift; extra_cmd=("$@"); break; fi
  ctest_args+=("$1"); shift
done

start=$(date +%s)
budget=${ELLWARP_GPU_TIMEOUT:-540}
left() { echo $(( budget - ($(date +%s) - start) )); }

# shellcheck source=scripts/gpu-env.sh
ELLWARP_GPU_UNPACK_TIMEOUT=$(left) source "$root/scripts/gpu-env.sh"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >&2 || true
fi

missing=$(ldd "$ELLWARP_PETSC_PREFIX/lib/libpetsc.so" | grep 'not found' || true)
[ -z "$missing" ] || { echo "[gpu-test] libpetsc.so cannot load here:" >&2; echo "$missing" >&2; exit 1; }

rc=0
# The makefile.petsc build test needs PETSc's compilers: not a GPU test, skipped here.
timeout "$(left)" ctest --test-dir "$ELLWARP_GPU_BUILD" --output-on-failure -j "${ELLWARP_GPU_JOBS:-4}" -LE build \
  "${ctest_args[@]}" || rc=$?
if [ -n "${OUT:-}" ] && [ -d "$ELLWARP_GPU_BUILD/Testing/Temporary" ]; then
  cp "$ELLWARP_GPU_BUILD/Testing/Temporary/LastTest.log" "$OUT/ctest-LastTest.log" 2>/dev/null || true
fi
if [ ${#extra_cmd[@]} -gt 0 ]; then
  echo "[gpu-test] running: ${extra_cmd[*]}" >&2
  crc=0; timeout "$(left)" "${extra_cmd[@]}" || crc=$?
  [ "$rc" != 0 ] || rc=$crc
fi
echo "[gpu-test] exit $rc" >&2
exit $rc

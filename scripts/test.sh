#!/usr/bin/env bash
# Builds (scripts/build.sh) and runs the test suite with CTest; extra arguments go to ctest,
# e.g. `bash scripts/test.sh -R register_dll` or `bash scripts/test.sh -LE slow`.
# Exit status: ctest's.  Without a CUDA device, GPU-labelled tests are reported as skipped.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh"
# shellcheck source=scripts/env.sh
source "$root/scripts/env.sh"   # PETSC_DIR, LD_LIBRARY_PATH (driver stubs) for the tests
build=${ELLWARP_BUILD_DIR:-$root/build}
echo "[test] ELLWARP_HAVE_DEVICE=$ELLWARP_HAVE_DEVICE" >&2
rc=0
ctest --test-dir "$build" --output-on-failure -j "${ELLWARP_TEST_JOBS:-$(nproc)}" "$@" || rc=$?
if [ "$ELLWARP_HAVE_DEVICE" != 1 ]; then
  n=$(ctest --test-dir "$build" -N -L gpu 2>/dev/null | sed -n 's/^Total Tests: //p')
  echo "skipped: no CUDA device (${n:-0} GPU-labelled tests reported as skipped above)"
fi
exit $rc

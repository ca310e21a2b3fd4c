#!/usr/bin/env bash
# Runs one test command the way every CTest test of this project runs (tests/CMakeLists.txt,
# ellwarp_add_test): the test passes only if all of these hold.
#
#   run_expect.sh [--gpu skip|require PROBE] [--match RE | --error RE] -- CMD [ARGS...]
#
#   - exit status: CMD must exit 0 (with --error: non-zero, and print RE: a clear error, not a crash);
#   - output: with --match, CMD's output (stdout and stderr) must match the Perl regex RE;
#   - options: every PETSc program CMD starts gets -options_left (through PETSC_OPTIONS), and a line
#     "WARNING! There are options you set that were not used!" fails the test: an option nothing read is
#     a misspelling or a dead option, and the test would silently test the default;
#   - GPU tests (--gpu): PROBE (build/tests/support/have_device, the suite's one device check) runs first;
#     without a device the test prints "skipped: no CUDA device" and exits 77 (CTest: skipped), or with
#     `require` (-DELLWARP_GPU_TESTS=ON, the GPU host's build) fails.
# Exit status: 0 pass, 77 skipped, 1 fail (CMD's own 77, PETSC_ERR_PLIB, is a failure like any other).
set -uo pipefail
gpu="" probe="" match="" error=""
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) gpu=$2; probe=$3; shift 3 ;;
    --match) match=$2; shift 2 ;;
    --error) error=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run_expect.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: run_expect.sh [--gpu skip|require PROBE] [--match RE | --error RE] -- CMD [ARGS...]" >&2; exit 2; }

if [ -n "$gpu" ] && ! "$probe" >/dev/null 2>&1; then
  if [ "$gpu" = require ]; then
    echo "run_expect: FAIL: no CUDA device, and this build (ELLWARP_GPU_TESTS=ON) requires the GPU tests to run"
    exit 1
  fi
  echo "skipped: no CUDA device"
  exit 77
fi

export PETSC_OPTIONS="-options_left${PETSC_OPTIONS:+ $PETSC_OPTIONS}"
out=$(mktemp "${TMPDIR:-/tmp}/ellwarp-test.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
"$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}

fail() { echo "run_expect: FAIL: $*"; exit 1; }
matches() { RE=$1 perl -0777 -ne 'exit(/$ENV{RE}/ ? 0 : 1)' "$out"; }

if grep -q "WARNING! There are options you set that were not used" "$out"; then
  fail "options that nothing read (listed above after \"unused database option\"): misspelled or dead options"
fi
if [ -n "$error" ]; then
  [ "$rc" != 0 ] || fail "exit status 0, but this test expects an error"
  matches "$error" || fail "exit status $rc, but the output does not match the expected error /$error/"
  echo "run_expect: expected error (exit status $rc) matched /$error/"
  exit 0
fi
[ "$rc" = 0 ] || fail "exit status $rc"
if [ -n "$match" ]; then
  matches "$match" || fail "the output does not match /$match/"
fi
exit 0

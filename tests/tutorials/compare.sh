#!/usr/bin/env bash
# Runs an unmodified PETSc tutorial twice, with AIJ and with MATELLWARP, and requires the same printed output.
#
#   compare.sh [options] EXE [ARGS...]
#
#   reference run:  [LAUNCHER] EXE ARGS MATOPT aij (or --ref-type) [VECOPT cuda]
#   ellwarp run:    [LAUNCHER] EXE ARGS MATOPT ellwarp -dll_append LIB  (-mat_ellwarp_backend host | VECOPT cuda)
#                              -mat_view ascii:<tmp>:ascii_info [TEST_ARGS]
#
# Options:
#   --lib PATH        libpetscellwarp.so (loaded with -dll_append; the tutorials are not linked with it)
#   --mat-opt OPT     option selecting the matrix type: -mat_type (default) or -dm_mat_type
#   --vec-opt OPT     option selecting the vector type for --gpu: -vec_type (default), -dm_vec_type, or none
#                     (programs whose vectors come from MatCreateVecs, e.g. ksp ex56: they follow the matrix type)
#   --gpu             CUDA backend: both runs get VECOPT cuda, the ellwarp run no backend option.  Whether
#                     there is a device is decided before this script runs (tests/support/run_expect.sh --gpu).
#   --short           compare residual norms the way PETSc's former -ksp_monitor_short/-snes_monitor_short
#                     printed them (deprecated in 3.26, now the same as -ksp_monitor): every number printed
#                     with 8 or more significant digits (the monitors' %14.12e) is rewritten by the rule of
#                     the former SNESMonitorDefaultShort: %g (6 digits) above 1e-9, %5.3e down to 1e-11,
#                     "< 1.e-11" below.  Numbers the program prints itself with %g stay as they are.  For
#                     runs whose summation order differs from AIJ's (ELLWARP kernel k2 splits long rows over
#                     lanes; the GPU), where the trailing digits of %14.12e legitimately differ.
#   --match REGEX     compare only the lines matching REGEX (extended regex; e.g. when the program views
#                     the Mat itself, whose type-specific lines differ by design)
#   --launcher "CMD"  prefix for both runs (e.g. "mpiexec -n 1"; word-split)
#   --test-args "A"   extra arguments for the ellwarp run only (word-split), e.g. -mat_ellwarp_kernel k1
#   --keep DIR        keep the outputs in DIR (default: a temporary directory, removed on success)
#   --ref-type T      matrix type of the reference run (default aij; aijcusparse where the arguments name
#                     something only AIJCUSPARSE has besides us, e.g. -pc_factor_mat_solver_type cusparse)
#   --expect-type T   the ELLWARP run must have assembled a matrix of type T (e.g. mpiaijellwarp under mpiexec -n 2)
#   --expect-info RE  the ELLWARP run's -info (class mat, written to a file, not to the compared output) must have
#                     a line matching the extended regex RE (e.g. which factorization it chose)
#   --reject-info RE  ... and no line matching RE
#
# Besides the output, the ellwarp run must have assembled a seqaijellwarp/mpiaijellwarp matrix (checked in the
# -mat_view file), so a type option that never reaches the matrix fails instead of comparing AIJ with AIJ, and
# neither run may leave options unread (PETSc's -options_left warning, as in tests/support/run_expect.sh).
# Exit status: 0 same output, 1 different output or a failed run, 2 usage.
set -uo pipefail

reftype=aij lib="" matopt=-mat_type vecopt=-vec_type gpu=0 short=0 match="" launcher="" testargs="" keep="" expect="" expectinfo="" rejectinfo=""
while [ $# -gt 0 ]; do
  case "$1" in
    --lib) lib=$2; shift 2 ;;
    --mat-opt) matopt=$2; shift 2 ;;
    --vec-opt) vecopt=$2; shift 2 ;;
    --gpu) gpu=1; shift ;;
    --short) short=1; shift ;;
    --match) match=$2; shift 2 ;;
    --launcher) launcher=$2; shift 2 ;;
    --test-args) testargs=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --expect-type) expect=$2; shift 2 ;;
    --expect-info) expectinfo=$2; shift 2 ;;
    --reject-info) rejectinfo=$2; shift 2 ;;
    --ref-type) reftype=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "compare.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: compare.sh [options] EXE [ARGS...]" >&2; exit 2; }
[ -n "$lib" ] || { echo "compare.sh: --lib is required" >&2; exit 2; }
exe=$1; shift

if [ -n "$keep" ]; then
  dir=$keep; mkdir -p "$dir"
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/ellwarp-tut.XXXXXX") || exit 1
fi
cleanup() { [ -n "$keep" ] || rm -rf "$dir"; }

# shellcheck disable=SC2206
pre=($launcher)
# shellcheck disable=SC2206
extra=($testargs)
ref=("${pre[@]}" "$exe" "$@" "$matopt" "$reftype")
tst=("${pre[@]}" "$exe" "$@" "$matopt" ellwarp -dll_append "$lib" -mat_view "ascii:$dir/matview.txt:ascii_info:append")
if [ "$gpu" = 1 ]; then
  if [ "$vecopt" != none ]; then
    ref+=("$vecopt" cuda)
    tst+=("$vecopt" cuda)
  fi
else
  tst+=(-mat_ellwarp_backend host)
fi
tst+=("${extra[@]}")
[ -z "$expectinfo$rejectinfo" ] || tst+=(-info "$dir/info.txt:mat")

run() { # run OUT CMD...
  local out=$1; shift
  local t0 t1 rc
  t0=$(date +%s.%N)
  "$@" > "$out" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  printf '%s (%s s, exit %d)\n' "$*" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" "$rc"
  return $rc
}

fail() {
  echo "FAIL: $*"
  echo "---- AIJ output ($dir/aij.txt)"; cat "$dir/aij.txt" 2>/dev/null
  echo "---- ELLWARP output ($dir/ellwarp.txt)"; cat "$dir/ellwarp.txt" 2>/dev/null
  [ -n "$keep" ] || { rm -rf "$dir"; }
  exit 1
}

msg=$(run "$dir/aij.txt" "${ref[@]}"); rc=$?
echo "== AIJ:     $msg"
[ $rc = 0 ] || fail "the AIJ run failed"
msg=$(run "$dir/ellwarp.txt" "${tst[@]}"); rc=$?
echo "== ELLWARP: $msg"
[ $rc = 0 ] || fail "the ELLWARP run failed"

grep -Eq 'type: (seq|mpi)aijellwarp' "$dir/matview.txt" 2>/dev/null ||
  fail "the ELLWARP run did not assemble a MATELLWARP matrix ($matopt ellwarp not reaching it?)"
echo "== matrix type in the ELLWARP run: $(grep -Eo '(seq|mpi)aijellwarp' "$dir/matview.txt" | head -n1)"
if [ -n "$expect" ]; then
  grep -Eq "type: $expect\$" "$dir/matview.txt" || fail "the ELLWARP run did not assemble a $expect matrix"
fi
if [ -n "$expectinfo" ]; then
  cat "$dir"/info.txt* 2>/dev/null | grep -Eq -- "$expectinfo" || fail "no -info line of the ELLWARP run matches '$expectinfo'"
  echo "== -info of the ELLWARP run: $(cat "$dir"/info.txt* | grep -E -- "$expectinfo" | head -n1)"
fi
if [ -n "$rejectinfo" ]; then
  ls "$dir"/info.txt* > /dev/null 2>&1 || fail "the ELLWARP run wrote no -info file"
  ! cat "$dir"/info.txt* | grep -Eq -- "$rejectinfo" || fail "an -info line of the ELLWARP run matches '$rejectinfo': $(cat "$dir"/info.txt* | grep -E -- "$rejectinfo" | head -n1)"
fi

normalize() { # normalize FILE -> stdout
  local f=$1
  if [ -n "$match" ]; then grep -E -- "$match" "$f" || true; else cat "$f"; fi |
    if [ "$short" = 1 ]; then
      perl -pe 's/(-?\d\.\d{7,}e[-+]\d+)/abs($1) > 1e-9 ? sprintf("%g", $1) : abs($1) > 1e-11 ? sprintf("%5.3e", $1) : "< 1.e-11"/ge'
    else
      cat
    fi
}
# The AIJ run does not load the plugin, so a -mat_ellwarp_* option given to both runs through PETSC_OPTIONS or
# an options file (e.g. -mat_ellwarp_tune analysis=host) is reported unused there, and only there: drop those lines
# from PETSc's "options you set that were not used" block of the AIJ output (the block goes when none is left,
# its count is rewritten otherwise).  The ELLWARP run's block stays as printed, so an -mat_ellwarp_* option the
# ELLWARP run leaves unused still makes the outputs differ.
drop_ellwarp_unused() { # FILE -> stdout
  perl -e '
    my @l = <>; my @o;
    for (my $i = 0; $i < @l; $i++) {
      if ($l[$i] =~ /^WARNING! There are options you set that were not used!/ && $i + 2 < @l &&
          $l[$i + 1] =~ /^WARNING! could be spelling mistake/ && $l[$i + 2] =~ /^There (is one|are \d+) unused database option/) {
        my $j = $i + 3; my @keep; my $n = 0;
        while ($j < @l && $l[$j] =~ /^Option left: name:(\S+)/) { $n++; push @keep, $l[$j] unless $1 =~ /^-mat_ellwarp_/; $j++; }
        if (@keep < $n) {
          if (@keep) {
            push @o, $l[$i], $l[$i + 1],
              (@keep == 1 ? "There is one unused database option. It is:\n" : "There are " . scalar(@keep) . " unused database options. They are:\n"), @keep;
          }
          $i = $j - 1; next;
        }
      }
      push @o, $l[$i];
    }
    print @o;' "$1"
}
drop_ellwarp_unused "$dir/aij.txt" > "$dir/aij.filtered"
for f in aij.filtered ellwarp.txt; do
  ! grep -q "WARNING! There are options you set that were not used" "$dir/$f" ||
    fail "the ${f%%.*} run left options unread (listed in its output: misspelled or dead options)"
done
normalize "$dir/aij.filtered" > "$dir/aij.cmp"
normalize "$dir/ellwarp.txt" > "$dir/ellwarp.cmp"
[ -s "$dir/aij.cmp" ] || fail "nothing to compare (empty output${match:+ after --match})"
if ! diff -u "$dir/aij.cmp" "$dir/ellwarp.cmp" > "$dir/diff.txt"; then
  echo "---- diff (AIJ -> ELLWARP)$([ "$short" = 1 ] && echo ', short format')"
  cat "$dir/diff.txt"
  fail "ELLWARP printed different results than AIJ"
fi
echo "== same output ($(wc -l < "$dir/aij.cmp") lines compared$([ "$short" = 1 ] && echo ', short format')$([ -n "$match" ] && echo ", lines matching /$match/"))"
tail -n 3 "$dir/aij.cmp" | sed 's/^/   | /'
cleanup
exit 0

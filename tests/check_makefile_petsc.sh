#!/usr/bin/env bash
# ctest makefile_petsc_build: builds the library with makefile.petsc into a scratch dir and checks that
# the .so exports the dynamic-library entry point PETSc looks for with -dll_append.
#   check_makefile_petsc.sh <source dir> <scratch build dir>
set -euo pipefail
src=$1; out=$2
rm -rf "$out"
"${MAKE:-make}" -f "$src/makefile.petsc" -j"$(nproc)" BUILDDIR="$out" lib
so="$out/lib/libpetscellwarp.so"
[ -f "$so" ] || { echo "FAIL: $so not built"; exit 1; }
if nm -D --defined-only "$so" | grep -qw PetscDLLibraryRegister_petscellwarp; then
  echo "PASS: $so exports PetscDLLibraryRegister_petscellwarp"
else
  echo "FAIL: $so does not export PetscDLLibraryRegister_petscellwarp"; exit 1
fi

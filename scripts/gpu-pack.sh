#!/usr/bin/env bash
# Packs everything the GPU host needs to run the test suite into .gpu/bundle.tar.xz (plus
# .gpu/manifest.env): the GPU host has the NVIDIA driver, CUDA 13, Open MPI 4.1, OpenBLAS and LAPACK, but
# neither PETSc nor METIS, and no network.  Run it here (builds first); then on the GPU host, from a copy
# of this repository carrying .gpu/:  bash scripts/gpu-test.sh
#
#   ELLWARP_GPU_BUILD  absolute build directory (default /tmp/ellwarp-gpubuild); configured with
#                      -DELLWARP_GPU_TESTS=ON, so GPU-labelled tests must run there, not skip
#   ELLWARP_GPU_EXTRA_LIBS  regex of shared libraries (sonames) libpetsc needs that the GPU host lacks
#                      (default 'metis|GKlib'); they are copied into $ELLWARP_GPU_BUILD/extra-libs
# Paths are kept absolute: gpu-test.sh unpacks the bundle at the same places (CTest files, RPATHs and
# PETSc's own files hold absolute paths).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/env.sh
source "$root/scripts/env.sh"
gbuild=${ELLWARP_GPU_BUILD:-/tmp/ellwarp-gpubuild}
case "$gbuild" in /*) ;; *) echo "[gpu-pack] ELLWARP_GPU_BUILD must be absolute" >&2; exit 1 ;; esac
# a build dir configured from another checkout cannot be reused
if [ -f "$gbuild/CMakeCache.txt" ] && ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$root" "$gbuild/CMakeCache.txt"; then
  echo "[gpu-pack] $gbuild was configured from another source dir: starting it afresh" >&2
  rm -rf "$gbuild"
fi
# No ExodusII there: the GPU host has no netCDF/HDF5 libraries, so the cardiac example's ExodusII reader is left
# out of this build (it refuses with a clear error; its tests are skipped); the LV meshes are gmsh files.
ELLWARP_BUILD_DIR="$gbuild" bash "$root/scripts/build.sh" -DELLWARP_GPU_TESTS=ON -DELLWARP_WITH_EXODUSII=OFF

prefix=$(cd "$ELLWARP_PETSC_PREFIX" && pwd -P)
# extra shared libraries (resolved by the loader here)
extra="$gbuild/extra-libs"
rm -rf "$extra"; mkdir -p "$extra"
pattern=${ELLWARP_GPU_EXTRA_LIBS:-metis|GKlib}
ldd "$prefix/lib/libpetsc.so" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | grep -E "$pattern" |
  while read -r soname path; do
    cp -L "$path" "$extra/$soname"
    echo "[gpu-pack] extra lib: $soname ($path)" >&2
  done

mkdir -p "$root/.gpu"
manifest="$root/.gpu/manifest.env"
{
  echo "# written by scripts/gpu-pack.sh on $(date -u +%FT%TZ) from $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo 'no commit')"
  echo "ELLWARP_SRC_DIR=$root"
  echo "ELLWARP_GPU_BUILD=$gbuild"
  echo "ELLWARP_PETSC_PREFIX=$prefix"
  echo "ELLWARP_EXTRA_LIBS=$extra"
} > "$manifest"
cp "$manifest" "$gbuild/ellwarp-gpu-manifest.env"

# What goes in: PETSc's shared library, headers and makefile conf (no static libs, no source link); the
# build tree without object files.  Absolute paths are stored without the leading '/'.
list=$(mktemp)
trap 'rm -f "$list"' EXIT
(
  cd /
  find "${prefix#/}/lib" -maxdepth 1 -name 'libpetsc*.so*'
  echo "${prefix#/}/lib/pkgconfig"
  echo "${prefix#/}/lib/petsc/conf"
  echo "${prefix#/}/include"
  [ -f "${prefix#/}/.complete" ] && echo "${prefix#/}/.complete"
  find "${gbuild#/}" \( -name CMakeFiles -o -name makefile-petsc -o -name Testing \) -prune -o \
       \( -type f -o -type l \) ! -name '*.o' ! -name '*.a' ! -name '.ninja_*' ! -name 'build.ninja' -print
) > "$list"
out="$root/.gpu/bundle.tar.xz"
XZ_OPT=${XZ_OPT:--6 -T0} tar -C / -cJf "$out.part" --exclude='*.a' -T "$list"
mv "$out.part" "$out"
size=$(du -m "$out" | cut -f1)
echo "[gpu-pack] wrote $out (${size} MB) and $manifest" >&2
if [ "$size" -gt 60 ]; then echo "[gpu-pack] warning: bundle over 60 MB (the device machine takes 64 MiB in all)" >&2; fi

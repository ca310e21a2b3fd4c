#!/usr/bin/env bash
# Builds (once) the PETSc that petsc-ellwarp needs and prints the PETSC_DIR of the install.
#
# Why a script and not a package: Debian ships no CUDA-enabled PETSc 3.26, and the plugin's types are
# CUDA code linked against PETSc's own CUDA objects (VECCUDA, AIJCUSPARSE), so PETSc must be built with CUDA.
# The install lives in a cache outside the repository, keyed by version and configure options, so a second
# run (or another clone) reuses it in seconds.  A user with a PETSc of their own sets PETSC_DIR (and
# PETSC_ARCH for an in-place build) and this script builds nothing.
#
# Environment:
#   ELLWARP_CACHE      cache root (default: ${XDG_CACHE_HOME:-$HOME/.cache}/petsc-ellwarp)
#   ELLWARP_CUDA_ARCH  --with-cuda-arch (default 90: H100/H200)
#   ELLWARP_WITH_CUDA  1 (default when nvcc exists) or 0 for a CPU-only PETSc
#   ELLWARP_SKIP_APT   1 to never call apt-get (then the packages must be present)
set -euo pipefail

PETSC_VERSION=3.26.1
PETSC_SHA256=a4dc46c1b4403545ac2274741ce10801366c4a9a7b2683b678d18f6663b93496
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/env-common.sh
source "$here/env-common.sh"

log() { echo "[bootstrap] $*" >&2; }

if [ -n "${PETSC_DIR:-}" ]; then
  if [ -f "$PETSC_DIR/${PETSC_ARCH:-}/lib/petsc/conf/petscvariables" ]; then
    log "using the PETSc given by PETSC_DIR=$PETSC_DIR PETSC_ARCH=${PETSC_ARCH:-}"
    echo "$PETSC_DIR/${PETSC_ARCH:-}"
    exit 0
  fi
  log "PETSC_DIR=$PETSC_DIR has no lib/petsc/conf/petscvariables (is PETSC_ARCH right?)"; exit 1
fi

# ---- system packages ------------------------------------------------------------------------------
need_pkgs=(build-essential cmake pkg-config ninja-build libopenmpi-dev openmpi-bin libopenblas-dev liblapack-dev
           libmetis-dev gmsh curl ca-certificates xz-utils python3
           libexodusii-dev libnetcdf-dev) # the cardiac example's ExodusII reader (optional for CMake: without them it refuses)
missing=()
for p in "${need_pkgs[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "${ELLWARP_SKIP_APT:-0}" = 1 ]; then log "missing Debian packages: ${missing[*]}"; exit 1; fi
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  log "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# ---- configure key --------------------------------------------------------------------------------
with_cuda=${ELLWARP_WITH_CUDA:-}
if [ -z "$with_cuda" ]; then if [ -x "$ELLWARP_CUDA_HOME/bin/nvcc" ]; then with_cuda=1; else with_cuda=0; fi; fi
arch=${ELLWARP_CUDA_ARCH:-90}
opts=(--with-cc=mpicc --with-cxx=mpicxx --with-fc=0 --with-debugging=0 --with-shared-libraries=1
      "COPTFLAGS=-O3 -march=x86-64-v2" "CXXOPTFLAGS=-O3 -march=x86-64-v2" --with-x=0
      --with-blaslapack-lib=-lopenblas --with-metis=1 --with-metis-include=/usr/include --with-metis-lib=-lmetis)
if [ "$with_cuda" = 1 ]; then
  opts+=(--with-cuda=1 "--with-cuda-dir=$ELLWARP_CUDA_HOME" "--with-cuda-arch=$arch" "CUDAOPTFLAGS=-O3")
else
  opts+=(--with-cuda=0)
fi
key=$(printf '%s\n' "$PETSC_VERSION" "${opts[@]}" | sha256sum | cut -c1-10)
name="petsc-$PETSC_VERSION-$([ "$with_cuda" = 1 ] && echo "cuda$arch" || echo cpu)-$key"
prefix="$ELLWARP_CACHE/$name"

if [ -f "$prefix/.complete" ]; then
  log "reusing cached PETSc $prefix"
  echo "$prefix"; exit 0
fi

# ---- source ---------------------------------------------------------------------------------------
mkdir -p "$ELLWARP_CACHE/src"
tarball="$ELLWARP_CACHE/src/petsc-$PETSC_VERSION.tar.gz"
if ! echo "$PETSC_SHA256  $tarball" | sha256sum -c --status 2>/dev/null; then
  # The PyPI sdist is PETSc's own release tarball; pip's sdist download would try to build it, so take
  # the file's address from the registry's simple index and check its hash.
  log "downloading the PyPI sdist petsc==$PETSC_VERSION"
  url=$(curl -sSfL "https://pypi.org/simple/petsc/" | grep -o "https://[^\"#]*/petsc-$PETSC_VERSION.tar.gz" | head -n1)
  [ -n "$url" ] || { log "petsc-$PETSC_VERSION.tar.gz not found in the PyPI simple index"; exit 1; }
  curl -sSfL -o "$tarball.part" "$url"
  mv "$tarball.part" "$tarball"
  echo "$PETSC_SHA256  $tarball" | sha256sum -c --status || { log "checksum mismatch for $tarball"; rm -f "$tarball"; exit 1; }
fi
build="$ELLWARP_CACHE/build/$name"
rm -rf "$build"; mkdir -p "$build"
tar xzf "$tarball" -C "$build" --strip-components=1

# ---- configure and build --------------------------------------------------------------------------
cd "$build"
log "configuring PETSc $PETSC_VERSION ($name); log: $build/configure.log"
export PETSC_DIR="$build"; export PETSC_ARCH=arch-ellwarp
unset PETSC_ARCH_ENV
python3 ./configure "--prefix=$prefix" "${opts[@]}" > "$build/configure.out" 2>&1 \
  || { tail -n 40 "$build/configure.out" >&2; exit 1; }
jobs=${ELLWARP_JOBS:-$(nproc)}
log "building PETSc with $jobs jobs (about 8 min on 2 cores with CUDA)"
make MAKE_NP="$jobs" all > "$build/make.out" 2>&1 || { tail -n 60 "$build/make.out" >&2; exit 1; }
make install > "$build/install.out" 2>&1 || { tail -n 40 "$build/install.out" >&2; exit 1; }
# The source tree stays in the cache: the PETSc tutorials the tests run are built from it.
ln -sfn "$build" "$prefix/share/petsc-src"
touch "$prefix/.complete"
log "PETSc installed in $prefix"
echo "$prefix"

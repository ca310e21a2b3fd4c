# Sourced (bash) on the GPU host, from the repository root of a copy carrying .gpu/ (scripts/gpu-pack.sh): reads
# .gpu/manifest.env, unpacks .gpu/bundle.tar.xz at the absolute paths it was packed from (once per shell: a
# second source in the same environment skips it), links the packing machine's source directory to this copy (the
# CTest files name it), and exports what PETSc programs need there: PETSC_DIR, LD_LIBRARY_PATH, Open MPI as root,
# -use_gpu_aware_mpi 0 (the host's Open MPI is not CUDA-aware).  scripts/gpu-test.sh and the device scripts under
# benchmarks/results/*/ start with it.
#   ELLWARP_GPU_BUNDLE, ELLWARP_GPU_MANIFEST  other bundle/manifest (default .gpu/...)
#   ELLWARP_GPU_UNPACK_TIMEOUT               seconds for the unpacking (default 300)
_gpu_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
_gpu_bundle=${ELLWARP_GPU_BUNDLE:-$_gpu_root/.gpu/bundle.tar.xz}
_gpu_manifest=${ELLWARP_GPU_MANIFEST:-$_gpu_root/.gpu/manifest.env}
if [ ! -f "$_gpu_bundle" ] || [ ! -f "$_gpu_manifest" ]; then
  echo "[gpu-env] $_gpu_bundle or $_gpu_manifest missing: run scripts/gpu-pack.sh first" >&2
  return 1 2>/dev/null || exit 1
fi
# shellcheck disable=SC1090
source "$_gpu_manifest"
if [ "${ELLWARP_GPU_UNPACKED:-}" != "$_gpu_bundle" ]; then
  echo "[gpu-env] unpacking $_gpu_bundle" >&2
  timeout "${ELLWARP_GPU_UNPACK_TIMEOUT:-300}" tar -C / -xJf "$_gpu_bundle"
  export ELLWARP_GPU_UNPACKED=$_gpu_bundle
fi
if [ "$ELLWARP_SRC_DIR" != "$_gpu_root" ]; then
  if [ ! -e "$ELLWARP_SRC_DIR" ]; then
    mkdir -p "$(dirname "$ELLWARP_SRC_DIR")"
    ln -s "$_gpu_root" "$ELLWARP_SRC_DIR"
    echo "[gpu-env] linked $ELLWARP_SRC_DIR -> $_gpu_root" >&2
  elif [ ! "$ELLWARP_SRC_DIR" -ef "$_gpu_root" ]; then
    echo "[gpu-env] note: $ELLWARP_SRC_DIR exists and is not this checkout ($_gpu_root); left as is" >&2
  fi
fi
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export PETSC_DIR="$ELLWARP_PETSC_PREFIX" PETSC_ARCH=""
export LD_LIBRARY_PATH="$ELLWARP_PETSC_PREFIX/lib:$ELLWARP_EXTRA_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export ELLWARP_HAVE_DEVICE=1
case " ${PETSC_OPTIONS:-} " in
  *" -use_gpu_aware_mpi "*) ;;
  *) export PETSC_OPTIONS="-use_gpu_aware_mpi 0${PETSC_OPTIONS:+ $PETSC_OPTIONS}" ;;
esac
unset _gpu_root _gpu_bundle _gpu_manifest

# Shared settings for the scripts (sourced, not run).
ELLWARP_CACHE=${ELLWARP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/petsc-ellwarp}
ELLWARP_CUDA_HOME=${ELLWARP_CUDA_HOME:-${CUDA_HOME:-/usr/local/cuda}}
export ELLWARP_CACHE ELLWARP_CUDA_HOME
# CI and containers run as root; Open MPI refuses that unless told.
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

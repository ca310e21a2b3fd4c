#!/usr/bin/env bash
# issue 16 solve part, call 1: PETSc's KSP options on the cardiac example, main's code (bundle built from ee7505b)
cd "$(dirname "$0")/.."
echo "tree: $PWD $(git rev-parse --abbrev-ref HEAD 2>/dev/null)"; nvidia-smi --query-gpu=name --format=csv,noheader
source build-solve/base-manifest.env
tar -C / -xJf build-solve/base-bundle.tar.xz
if [ "$ELLWARP_SRC_DIR" != "$PWD" ] && [ ! -e "$ELLWARP_SRC_DIR" ]; then mkdir -p "$(dirname "$ELLWARP_SRC_DIR")"; ln -s "$PWD" "$ELLWARP_SRC_DIR"; fi
export PETSC_DIR=$ELLWARP_PETSC_PREFIX LD_LIBRARY_PATH=$ELLWARP_PETSC_PREFIX/lib:$ELLWARP_EXTRA_LIBS:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PETSC_OPTIONS="-use_gpu_aware_mpi 0"
E=$ELLWARP_GPU_BUILD/examples/cardiac
L=/tmp/logs; mkdir -p $L
o="-dm_mat_type ellwarp -dm_vec_type cuda -dt 0.25 -vtu_every 0 -final_vtu 0 -png 0 -output_dir /tmp/cout -log_view -monitor_every 0"
run() { # name timeout args...
  n=$1; t=$2; shift 2
  timeout $t stdbuf -oL $E $o "$@" > $L/$n.log 2>&1; rc=$?
  echo "== $n rc=$rc :: $*"
  grep -E "^cardiac: (per step|time loop|[0-9]+ steps)" $L/$n.log | cut -c1-230
  grep -E "^(KSPSolve|PCSetUp|PCApply|MatGetDiagonal|VecDot|VecNorm|VecCopy|VecSet|VecPointwiseMult|VecAXPY|VecAYPX|VecReduceArith|VecReduceComm|VecCUDACopyTo|VecCUDACopyFrom|SNESSolve|KSPSetUp)" $L/$n.log | cut -c1-220
}
{
run d_default 60
run d_single 60 -ksp_cg_single_reduction
run d_pipecg 60 -ksp_type pipecg
run d_pipecg2 60 -ksp_type pipecg2
run d_groppcg 60 -ksp_type groppcg
run d_cheb 60 -ksp_type chebyshev -ksp_chebyshev_esteig_steps 10
run d_gamg 90 -pc_type gamg
run d_default2 60
M="-mesh lv6k -refine 2 -t_end 25"
run m_default 80 $M
run m_single 80 $M -ksp_cg_single_reduction
run m_pipecg 80 $M -ksp_type pipecg
run m_gamg 100 $M -pc_type gamg
run m_gamg_lag 100 $M -pc_type gamg -snes_lag_preconditioner 20 -snes_lag_preconditioner_persists
run m_default2 80 $M
} > $OUT/summary.txt 2>&1
tar -C /tmp -czf $OUT/logs.tgz logs

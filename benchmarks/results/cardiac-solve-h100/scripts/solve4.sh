#!/usr/bin/env bash
# issue 16 solve part, call 4 (final): GPU tests, memcheck of the graph path, per-step timings of main's code
# (base) against the cardiac-solve branch (new, defaults: KSPCGASYNC + extrapolated Newton guess), same machine
cd "$(dirname "$0")/.."
B=build-solve; T0=$(date +%s)
echo "tree: $PWD"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /work/wt-solve && tar -C /work/wt-solve -xzf $B/src.tgz
for m in base-manifest.env manifest.env; do source $B/$m; done
tar -C / -xJf $B/base-bundle.tar.xz; tar -C / -xJf $B/bundle.tar.xz
[ -e /work/main ] || ln -s "$PWD" /work/main
export PETSC_DIR=$ELLWARP_PETSC_PREFIX LD_LIBRARY_PATH=$ELLWARP_PETSC_PREFIX/lib:$ELLWARP_EXTRA_LIBS:/tmp/ellwarp-gpubuild/extra-libs:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PETSC_OPTIONS="-use_gpu_aware_mpi 0" ELLWARP_HAVE_DEVICE=1
EB=/tmp/ellwarp-gpubuild/examples/cardiac; EN=/tmp/ellwarp-gpubuild-solve/examples/cardiac
L=$OUT/logs; mkdir -p $L
timeout 40 ctest --test-dir /tmp/ellwarp-gpubuild-solve -R "ksp_cgasync|cardiac_compare.gpu|cardiac_ts.gpu" --output-on-failure -j8 > $OUT/ctest.txt 2>&1; echo "ctest rc=$?" >> $OUT/ctest.txt
CS=/usr/local/cuda-13.0/bin/compute-sanitizer
timeout 25 $CS --tool memcheck --leak-check no /tmp/ellwarp-gpubuild-solve/tests/ksp_cgasync -vec_type cuda -n 12 -ksp_cgasync_graph -ksp_cgasync_check_every 3 > $OUT/memcheck.txt 2>&1; echo "memcheck rc=$?" >> $OUT/memcheck.txt
o="-dm_mat_type ellwarp -dm_vec_type cuda -dt 0.25 -vtu_every 0 -final_vtu 0 -png 0 -output_dir /tmp/cout -log_view -monitor_every 0"
run() { n=$1; t=$2; E=$3; shift 3
  left=$(( 232 - ($(date +%s) - T0) )); [ $left -lt $t ] && t=$left; [ $t -le 2 ] && { echo "== $n skipped (time)"; return; }
  timeout $t stdbuf -oL $E $o "$@" > /tmp/$n.log 2>&1; rc=$?
  echo "== $n rc=$rc :: $*"
  grep -E "^cardiac: (per step|[0-9]+ steps|bytes|[0-9]+ vertices)" /tmp/$n.log | cut -c1-330
  grep -E "^(MatMult|KSPSolve|SNESSolve|PCSetUp|PCApply|VecCUDACopyTo|VecCUDACopyFrom) " /tmp/$n.log | awk '{print $1, $2, $4, "CpuToGpu", $(NF-4), $(NF-3), "GpuToCpu", $(NF-2), $(NF-1)}'
  grep -E "^(Event|KSPSolve|SNESSolve|MatMult|PCSetUp|PCApply|CardiacResidual|CardiacJacobian|VecCUDACopyTo|VecCUDACopyFrom) " /tmp/$n.log > $L/$n.logview.txt
}
{
run d_base 20 $EB
run d_new 15 $EN
run d_new_noextrap 15 $EN -cardiac_extrapolate 0
run d_new_graph 15 $EN -ksp_cgasync_graph
run d_new_cg 15 $EN -ksp_type cg
run d_new_cgsingle 15 $EN -ksp_type cg -ksp_cg_single_reduction
run d_base2 20 $EB
run d_new2 15 $EN
M="-mesh lv6k -refine 2 -t_end 25"
run m_base 30 $EB $M
run m_new 30 $EN $M
run m_new_graph 30 $EN $M -ksp_cgasync_graph
run m_new_noextrap 30 $EN $M -cardiac_extrapolate 0
run g_new 70 $EN -mesh lv -refine 2 -t_end 10
run g_base 70 $EB -mesh lv -refine 2 -t_end 10
} > $OUT/summary.txt 2>&1

#!/usr/bin/env bash
# issue 16 solve part, call 2: GPU tests + memcheck of KSPCGASYNC, and per-step timings: main's code (base) against
# the cardiac-solve branch (new), same machine, alternating
cd "$(dirname "$0")/.."
B=build-solve
echo "tree: $PWD"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /work/wt-solve && tar -C /work/wt-solve -xzf $B/src.tgz
for m in base-manifest.env manifest.env; do source $B/$m; done
tar -C / -xJf $B/base-bundle.tar.xz; tar -C / -xJf $B/bundle.tar.xz
[ -e /work/main ] || ln -s "$PWD" /work/main
export PETSC_DIR=$ELLWARP_PETSC_PREFIX LD_LIBRARY_PATH=$ELLWARP_PETSC_PREFIX/lib:$ELLWARP_EXTRA_LIBS:/tmp/ellwarp-gpubuild/extra-libs:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PETSC_OPTIONS="-use_gpu_aware_mpi 0" ELLWARP_HAVE_DEVICE=1
EB=/tmp/ellwarp-gpubuild/examples/cardiac; EN=/tmp/ellwarp-gpubuild-solve/examples/cardiac
L=/tmp/logs; mkdir -p $L
# 1. tests
timeout 60 ctest --test-dir /tmp/ellwarp-gpubuild-solve -R "ksp_cgasync|cardiac_compare.gpu|cardiac_ts.gpu" --output-on-failure -j4 > $OUT/ctest.txt 2>&1; echo "ctest rc=$?" >> $OUT/ctest.txt
# 2. memcheck
CS=/usr/local/cuda-13.0/bin/compute-sanitizer
{ timeout 30 $CS --tool memcheck --leak-check no /tmp/ellwarp-gpubuild-solve/tests/ksp_cgasync -vec_type cuda -n 12 -ksp_cgasync_check_every 3 2>&1 | tail -4
  timeout 30 $CS --tool memcheck --leak-check no /tmp/ellwarp-gpubuild-solve/tests/ksp_cgasync -vec_type cuda -n 12 -ksp_cgasync_fuse_jacobi 0 2>&1 | tail -3
} > $OUT/memcheck.txt 2>&1
# 3. timings
o="-dm_mat_type ellwarp -dm_vec_type cuda -dt 0.25 -vtu_every 0 -final_vtu 0 -png 0 -output_dir /tmp/cout -log_view -monitor_every 0"
run() { n=$1; t=$2; E=$3; shift 3
  timeout $t stdbuf -oL $E $o "$@" > $L/$n.log 2>&1; rc=$?
  echo "== $n rc=$rc :: $*"
  grep -E "^cardiac: (per step|[0-9]+ steps|bytes)" $L/$n.log | cut -c1-330
  grep -E "^(KSPSolve|SNESSolve|PCSetUp|PCApply) " $L/$n.log | awk '{print $1, $4, "CpuToGpu", $(NF-4), $(NF-3), "GpuToCpu", $(NF-2), $(NF-1)}'
}
{
run d_base $((25)) $EB
run d_new 25 $EN
run d_new_cg 25 $EN -ksp_type cg
run d_new_k4 25 $EN -ksp_cgasync_check_every 4
run d_new_k16 25 $EN -ksp_cgasync_check_every 16
run d_new_x 25 $EN -cardiac_extrapolate
run d_new_cgx 25 $EN -ksp_type cg -cardiac_extrapolate
run d_base2 25 $EB
run d_new2 25 $EN
M="-mesh lv6k -refine 2 -t_end 25"
run m_base 50 $EB $M
run m_new 50 $EN $M
run m_new_cg 50 $EN $M -ksp_type cg
run m_new_k16 50 $EN $M -ksp_cgasync_check_every 16
run m_new_x 50 $EN $M -cardiac_extrapolate
} > $OUT/summary.txt 2>&1
tar -C /tmp -czf $OUT/logs.tgz logs

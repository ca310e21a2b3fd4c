#!/usr/bin/env bash
# issue 16 solve part, call 3: GPU tests + memcheck (graphs, cardiac), per-step timings of the read-back
# variants: main's code (base) against the cardiac-solve branch (new), same machine
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
timeout 50 ctest --test-dir /tmp/ellwarp-gpubuild-solve -R "ksp_cgasync|cardiac_compare.gpu|cardiac_ts.gpu" --output-on-failure -j6 > $OUT/ctest.txt 2>&1; echo "ctest rc=$?" >> $OUT/ctest.txt
CS=/usr/local/cuda-13.0/bin/compute-sanitizer
{ timeout 25 $CS --tool memcheck --leak-check no /tmp/ellwarp-gpubuild-solve/tests/ksp_cgasync -vec_type cuda -n 12 -ksp_cgasync_graph -ksp_cgasync_check_every 3 2>&1 | tail -2
  timeout 40 $CS --tool memcheck --leak-check no $EN -mesh lv6k -steps 3 -dm_mat_type ellwarp -dm_vec_type cuda -vtu_every 0 -final_vtu 0 -png 0 -output_dir /tmp/cs -monitor_every 0 -ksp_cgasync_graph -cardiac_extrapolate 2>&1 | grep -E "ERROR SUMMARY|per step"
} > $OUT/memcheck.txt 2>&1
o="-dm_mat_type ellwarp -dm_vec_type cuda -dt 0.25 -vtu_every 0 -final_vtu 0 -png 0 -output_dir /tmp/cout -log_view -monitor_every 0"
run() { n=$1; t=$2; E=$3; shift 3
  timeout $t stdbuf -oL $E $o "$@" > $L/$n.log 2>&1; rc=$?
  echo "== $n rc=$rc :: $*"
  grep -E "^cardiac: (per step|[0-9]+ steps|bytes model against)" $L/$n.log | cut -c1-300
  grep -E "^(MatMult|KSPSolve) " $L/$n.log | awk '{print $1, $2, $4}'
}
{
run d_base 25 $EB
run d_new 25 $EN
run d_k4 25 $EN -ksp_cgasync_check_every 4
run d_k4np 25 $EN -ksp_cgasync_check_every 4 -ksp_cgasync_predict 0
run d_k8g 25 $EN -ksp_cgasync_graph
run d_k4g 25 $EN -ksp_cgasync_check_every 4 -ksp_cgasync_graph
run d_k16g 25 $EN -ksp_cgasync_check_every 16 -ksp_cgasync_graph
run d_newx 25 $EN -cardiac_extrapolate
run d_k8gx 25 $EN -ksp_cgasync_graph -cardiac_extrapolate
run d_base2 25 $EB
M="-mesh lv6k -refine 2 -t_end 25"
run m_base 40 $EB $M
run m_new 40 $EN $M
run m_k4 40 $EN $M -ksp_cgasync_check_every 4
run m_k8g 40 $EN $M -ksp_cgasync_graph
run m_newx 40 $EN $M -cardiac_extrapolate
} > $OUT/summary.txt 2>&1
tar -C /tmp -czf $OUT/logs.tgz logs

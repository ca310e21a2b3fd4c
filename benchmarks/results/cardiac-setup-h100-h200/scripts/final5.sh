#!/usr/bin/env bash
# where DMAsmSetUp's unattributed second goes: the 1 M LV set-up with the DMAsmBuffers event, twice
cd "$(dirname "$0")/.."
source .gpu/manifest.env
tar -C / -xJf .gpu/bundle.tar.xz
if [ "$ELLWARP_SRC_DIR" != "$PWD" ] && [ ! -e "$ELLWARP_SRC_DIR" ]; then mkdir -p "$(dirname "$ELLWARP_SRC_DIR")"; ln -s "$PWD" "$ELLWARP_SRC_DIR"; fi
export PETSC_DIR=$ELLWARP_PETSC_PREFIX LD_LIBRARY_PATH=$ELLWARP_PETSC_PREFIX/lib:$ELLWARP_EXTRA_LIBS:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PETSC_OPTIONS="-use_gpu_aware_mpi 0"
B=$ELLWARP_GPU_BUILD
for r in 1 2; do
  nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/setup-buffers-$r.log
  timeout 90 $B/examples/cardiac -mesh lv -refine 2 -dm_mat_type ellwarp -dm_vec_type cuda -dt 0.25 -steps 2 -final_vtu 0 -png 0 -output_dir /tmp/cout -log_view -log_view_gpu_time >> $OUT/setup-buffers-$r.log 2>&1
  grep -E "setup [0-9.]+ s =" $OUT/setup-buffers-$r.log; grep -E "^DMAsm|^Cardiac(Section|ElemData|Vectors)" $OUT/setup-buffers-$r.log | awk '{print $1, $4}' | tr '\n' ' '; echo
done

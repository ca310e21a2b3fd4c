#!/usr/bin/env bash
# The README's CPU run (no device: MATELLWARP's host backend, host assembly, dt 0.5 ms, the 20 k LV) with the nodal
# state (default) and with the gathered buffers (-cardiac_nodal_state 0), 500 ms each, alternating, on the GPU
# host's CPU (quiet, unlike the shared 2-core machine).  Outputs under $OUT.
cd "$(dirname "$0")/../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
S=$OUT/cardiac-cpu-nodal.txt
lscpu | grep -E "Model name" > "$S"
for r in 1 2; do
  for d in 1 0; do
    CUDA_VISIBLE_DEVICES= timeout 200 stdbuf -oL "$B/examples/cardiac" -dm_mat_type ellwarp -mat_ellwarp_backend host -dt 0.5 -t_end 500 \
      -final_vtu 0 -png 0 -output_dir /tmp/cc$d -cardiac_nodal_state $d > /tmp/cc-$d-$r.log 2>&1
    echo "== nodal_state $d round $r (rc=$?)" >> "$S"
    grep -E "per step \(|activated" /tmp/cc-$d-$r.log | cut -c1-260 >> "$S"
  done
done
cat "$S"

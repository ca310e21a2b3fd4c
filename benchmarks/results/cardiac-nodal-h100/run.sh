#!/usr/bin/env bash
# The cardiac element reading the nodal state through the element map (DMAssemblySetNodalState, the default)
# against the assembler's gathered element buffers (-cardiac_nodal_state 0), the same executable in one call:
# 500 ms of the 1.08 M-vertex LV (benchmarks/cardiac/lv1m_500ms.sh), two rounds in alternating order, and the
# 20 k README demo.  Device script: run from a copy carrying .gpu/ (scripts/gpu-pack.sh); outputs under $OUT.
cd "$(dirname "$0")/../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
S=$OUT/cardiac-nodal-summary.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$S"
run() { # name, then options
  local name=$1; shift
  timeout 110 bash benchmarks/cardiac/lv1m_500ms.sh -x "$B/examples/cardiac" -o "/tmp/cn/$name" -- "$@" > /dev/null 2>&1
  echo "rc=$? $name" >> "$S"
  cp "/tmp/cn/$name/lv1m-500ms.log" "/tmp/cn/$name.log"
}
mkdir -p /tmp/cn
run nodal-1; run gathered-1 -cardiac_nodal_state 0; run gathered-2 -cardiac_nodal_state 0; run nodal-2
cmp /tmp/cn/nodal-1/activation.png /tmp/cn/gathered-1/activation.png && echo "activation PNG identical (nodal vs gathered)" >> "$S"
for d in 0 1; do
  timeout 60 stdbuf -oL "$B/examples/cardiac" -dm_mat_type ellwarp -dm_vec_type cuda -dt 0.25 -t_end 500 -final_vtu 0 -png 0 \
    -output_dir /tmp/cn/demo$d -cardiac_nodal_state $d -log_view > /tmp/cn/demo-nodal$d.log 2>&1
done
for f in /tmp/cn/*.log; do
  echo "== $f" >> "$S"
  grep -E "setup [0-9.]+ s =|per step \(|activated|process wall|bytes model|^DMAsmGather|^DMAsmElement|^DMAsmReduce|^total" "$f" | cut -c1-300 >> "$S"
done
tar -C /tmp/cn -czf "$OUT/cardiac-nodal-logs.tgz" $(cd /tmp/cn && ls *.log)
cat "$S"

#!/usr/bin/env bash
# issue 19: the matrix-free Q_p operators on the H100, at most 7.7 min (a global deadline: every process runs under
# `timeout min(its cap, time left)`, a step with under 5 s left is skipped and says so).  One matfree_bench process
# per (p, group), most important first; six output files under $OUT, line-buffered:
#   tests.log    the GPU tests of tests/matfree.c (ctest ^matfree: gpu_coo, gpu_private included) and
#                compute-sanitizer memcheck of one small case (every GPU variant, and the COO assembly into
#                AIJCUSPARSE and ELLWARP with device values)
#   peers.log    the comparisons on ONE mesh per p (3-D BP3, p = 1..4, ~2 M dofs): GPU sumfact (stored and
#                recomputed geometry), the paper's element-matrix variants (atomic, colour, gather, max), the
#                assembled peers built on the device (element matrices -> COO with device values -> MATELLWARP;
#                MATAIJCUSPARSE converted from it: one host COO preallocation a mesh, ~50-130 ns an entry, 1.2-2.4
#                entries a nonzero; COO into AIJCUSPARSE itself is in the tests), and the
#                CPU versions on all the host's cores (host vectors: elmat_color = the paper's CPU Color,
#                elmat_private = its private buffers, elmat_gather, sumfact_private); each p ends with the lines
#                "COMPARE ... what=sumfact/assembled_ellwarp" (target >= 2x for p >= 2) and
#                "COMPARE ... what=gpu_best/cpu_best" (the paper's target 4.5-10x)
#   bp3.log      BP3 3-D sum factorisation p = 1..8 at ~4 M dofs (p = 1: 1 M), stored / recomputed geometry
#   bp1.log      BP1 3-D sum factorisation p = 1..8 at ~4 M dofs (p = 1: 1 M), stored / recomputed geometry
#   sweep.log    with the time left: performance vs dofs (the paper's Figs. 2-4): 3-D p = 4 and 2-D p = 1..4
#   summary.log  the BENCH and COMPARE lines of all, as tables
# Every line "BENCH op= dim= p= variant= dofs= setup_s= mult_ms= gdofs= ..." (benchmarks/matfree/matfree_bench.c).
cd "$(dirname "$0")/../../.."   # the repository root
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
BENCH=$B/benchmarks/matfree/matfree_bench
CS=/usr/local/cuda-13.0/bin/compute-sanitizer
[ -x $CS ] || CS=compute-sanitizer
END=$((SECONDS + 460))
# step LOG CAP args...: one matfree_bench process, its output appended to $OUT/LOG
step() {
  local log=$OUT/$1 cap=$2 left
  shift 2
  left=$((END - SECONDS))
  [ $left -lt $cap ] && cap=$left
  if [ $cap -lt 5 ]; then
    echo "SKIPPED (the script's time budget is spent): matfree_bench $*" >> $log
    return
  fi
  echo "## timeout $cap matfree_bench $*" >> $log
  timeout $cap stdbuf -oL $BENCH "$@" >> $log 2>&1
  echo "rc=$? after $SECONDS s" >> $log
}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $OUT/tests.log
nproc >> $OUT/tests.log
( cd $B && timeout 100 stdbuf -oL ctest -j4 -R '^matfree' --output-on-failure ) >> $OUT/tests.log 2>&1
echo "ctest rc=$?" >> $OUT/tests.log
timeout 40 stdbuf -oL $CS --tool memcheck --leak-check no $B/tests/matfree -dim 3 -orders 2 -faces 2 -bc -perturb 0.2 -gpu \
  -types sumfact,sumfact_gather,sumfact_recompute,elmat_atomic,elmat_color,elmat_gather -assembled aijcusparse,ellwarp >> $OUT/tests.log 2>&1
echo "memcheck rc=$?" >> $OUT/tests.log

# the comparisons on one mesh per p (~2 M dofs)
GPU="-gpu -ops poisson -reps 20 -types sumfact,sumfact_recompute,elmat_atomic,elmat_color,elmat_gather,elmat_max -assembled_coo -assembled_coo_convert -assembled_max_p 4 -assembled_types ellwarp,aijcusparse"
CPU="-cpu_types elmat_color,elmat_private,elmat_gather,sumfact_private -cpu_threads 0 -cpu_reps 5"
step peers.log 70 $GPU $CPU -orders 1 -dofs 2e6 -max_cells 2100000
step peers.log 55 $GPU $CPU -orders 2 -dofs 2e6
step peers.log 60 $GPU $CPU -orders 3 -dofs 2e6
step peers.log 75 $GPU $CPU -orders 4 -dofs 2e6

# BP3 and BP1, sum factorisation, p = 1..8 (gather by node: p = 1 only; measured for all p in logs-regs/)
step bp3.log 30 -gpu -ops poisson -reps 20 -orders 1 -dofs 1e6 -max_cells 1100000 -types sumfact,sumfact_recompute,sumfact_gather
step bp3.log 40 -gpu -ops poisson -reps 20 -orders 2,3,4 -dofs 4e6 -types sumfact,sumfact_recompute
step bp3.log 30 -gpu -ops poisson -reps 20 -orders 5,6,7,8 -dofs 4e6 -types sumfact,sumfact_recompute
step bp1.log 30 -gpu -ops mass -reps 20 -orders 1 -dofs 1e6 -max_cells 1100000 -types sumfact,sumfact_recompute
step bp1.log 30 -gpu -ops mass -reps 20 -orders 2,3,4 -dofs 4e6 -types sumfact,sumfact_recompute
step bp1.log 25 -gpu -ops mass -reps 20 -orders 5,6,7,8 -dofs 4e6 -types sumfact,sumfact_recompute

# performance vs dofs with the time left (3-D p = 1..3 are in logs-regs/sweep.log)
step sweep.log 30 -gpu -ops poisson -reps 20 -orders 4 -dofs 1e4,3e4,1e5,3e5,1e6,3e6 -types sumfact,elmat_atomic
step sweep.log 30 -gpu -ops poisson -reps 20 -dim 2 -orders 1,2,3,4 -dofs 1e4,1e5,1e6 -max_cells 1100000 -types sumfact,elmat_atomic,elmat_color
step sweep.log 30 -gpu -ops poisson -reps 20 -dim 2 -orders 1,2,3,4 -dofs 4e6 -max_cells 1100000 -types sumfact,sumfact_gather,elmat_atomic,elmat_color,elmat_gather,elmat_max

{
  tail -3 $OUT/tests.log; grep -E "Failed|FAIL" $OUT/tests.log | head
  for f in peers bp3 bp1 sweep; do
    echo "== $f"
    grep BENCH $OUT/$f.log | sed 's/BENCH //' | awk '{print $1, $2, $3, $4, $5, $6, $7, $8}' | column -t
    grep COMPARE $OUT/$f.log
    grep -E "^rc=|SKIPPED" $OUT/$f.log | sort | uniq -c
  done
  echo "script: $SECONDS s"
} > $OUT/summary.log 2>&1
cat $OUT/summary.log

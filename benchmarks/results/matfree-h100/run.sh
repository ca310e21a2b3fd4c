#!/usr/bin/env bash
# issue 19: the matrix-free Q_p operators on the H100, about 6 min, at most 7.7 (a global deadline: every process runs
# under `timeout min(its cap, time left)`, a step with under 5 s left is skipped and says so).  One matfree_bench
# process per (p, variant group), in the order of what matters most; six output files:
#   tests.log      the GPU tests of tests/matfree.c, and compute-sanitizer memcheck of one small case (every variant)
#   bp3.log        BP3 (Poisson, q = p+2) 3-D: sumfact (stored / recomputed geometry, atomics / gather) p = 1..8 at
#                  ~4 M dofs (p = 1: 1 M, the host set-up of 4 M cells is too slow); the paper's element-matrix
#                  variants (one matrix: the box is uniform) p = 1..4 at ~2 M dofs (p = 1: 0.5 M)
#   assembled.log  the assembled peers, p = 1..3: PETSc's host assembly (DMPlexSNESComputeJacobianFEM, ~35-70 us a
#                  dof: sized to ~25 s) converted to ELLWARP and AIJCUSPARSE, beside sumfact on the same mesh
#   bp1.log        BP1 (mass) 3-D, sumfact stored / recomputed, p = 1..8 at ~4 M dofs (p = 1: 0.5 M)
#   sweep.log      performance vs dofs (the paper's Figs. 2-3): 3-D sumfact and elmat_atomic, p = 1..4, 1e4 .. 3e6
#                  dofs; 2-D sumfact, elmat_atomic, elmat_color, p = 1..4, 1e4 .. 4e6 (Fig. 4a: every variant at 4 M)
#   cpu.log        the CPU versions on all the host's cores (host vectors: elmat_color = the paper's CPU Color,
#                  elmat_gather, sumfact_gather), 3-D p = 1..4 at ~1 M dofs
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
( cd $B && timeout 90 ctest -j4 -R '^matfree' --output-on-failure ) >> $OUT/tests.log 2>&1
echo "ctest rc=$?" >> $OUT/tests.log
timeout 40 $CS --tool memcheck --leak-check no $B/tests/matfree -dim 3 -orders 2,5 -faces 2 -bc -perturb 0.2 -gpu \
  -types sumfact,sumfact_gather,sumfact_recompute,elmat_atomic,elmat_color,elmat_gather >> $OUT/tests.log 2>&1
echo "memcheck rc=$?" >> $OUT/tests.log

S3="-gpu -ops poisson -reps 20"
# BP3 3-D, sum factorisation, p = 1..8
step bp3.log 40 $S3 -orders 1 -dofs 1e6 -max_cells 1100000 -types sumfact,sumfact_recompute,sumfact_gather
for p in 2 3 4 5 6 7 8; do
  step bp3.log 30 $S3 -orders $p -dofs 4e6 -max_cells 1100000 -types sumfact,sumfact_recompute,sumfact_gather,sumfact_gather_recompute
done
# the assembled peers on the largest mesh whose host assembly takes ~25 s
step assembled.log 50 $S3 -orders 1 -dofs 3.5e5 -max_cells 1100000 -types sumfact,sumfact_recompute,elmat_atomic -assembled
step assembled.log 50 $S3 -orders 2 -dofs 7e5 -types sumfact,sumfact_recompute,elmat_atomic -assembled
step assembled.log 50 $S3 -orders 3 -dofs 4.5e5 -types sumfact,sumfact_recompute,elmat_atomic -assembled
# the paper's variants (element matrices, thread per element), 3-D p = 1..4
step bp3.log 25 $S3 -orders 1 -dofs 5e5 -max_cells 1100000 -types elmat_atomic,elmat_color,elmat_gather,elmat_max,sumfact
for p in 2 3 4; do
  step bp3.log 25 $S3 -orders $p -dofs 2e6 -types elmat_atomic,elmat_color,elmat_gather,elmat_max,sumfact
done
# BP1 3-D
step bp1.log 25 -gpu -ops mass -reps 20 -orders 1 -dofs 5e5 -max_cells 1100000 -types sumfact,sumfact_recompute
for p in 2 3 4 5 6 7 8; do
  step bp1.log 20 -gpu -ops mass -reps 20 -orders $p -dofs 4e6 -max_cells 1100000 -types sumfact,sumfact_recompute
done
# performance vs dofs
step sweep.log 30 $S3 -orders 1 -dofs 1e4,3e4,1e5,3e5,1e6 -max_cells 1100000 -types sumfact,elmat_atomic
for p in 2 3 4; do
  step sweep.log 25 $S3 -orders $p -dofs 1e4,3e4,1e5,3e5,1e6,3e6 -max_cells 1100000 -types sumfact,elmat_atomic
done
step sweep.log 30 $S3 -dim 2 -orders 1,2,3,4 -dofs 1e4,1e5,1e6 -max_cells 1100000 -types sumfact,elmat_atomic,elmat_color
step sweep.log 30 $S3 -dim 2 -orders 1,2,3,4 -dofs 4e6 -max_cells 1100000 -types sumfact,sumfact_gather,elmat_atomic,elmat_color,elmat_gather,elmat_max
# the CPU versions (host vectors, all cores)
for p in 1 2 3 4; do
  step cpu.log 20 -ops poisson -reps 5 -orders $p -dofs 1e6 -max_cells 400000 -types elmat_color,elmat_gather,sumfact_gather -dm_assembly_matfree_host_threads 0
done

tail -3 $OUT/tests.log; grep -E "Failed|FAIL" $OUT/tests.log | head
for f in bp3 assembled bp1 sweep cpu; do
  echo "== $f"
  grep BENCH $OUT/$f.log | sed 's/BENCH //' | awk '{print $1, $2, $3, $4, $5, $6, $7, $8}' | column -t
  grep -E "^rc=|SKIPPED" $OUT/$f.log | sort | uniq -c
done

#!/usr/bin/env bash
# issue 19: the matrix-free Q_p operators on the H100 (about 5 min, at most 8 by the timeouts; 6 output files).  The GPU tests of tests/matfree.c (also under
# compute-sanitizer memcheck for one small case), then matfree_bench: BP3 and BP1, p = 1..8, 3-D, every variant
# (elmat_* for p <= 4: the paper's range), then the assembled peers (PETSc's assembly on the host, converted to
# ELLWARP and AIJCUSPARSE) on a smaller mesh for p = 1..3 beside the matrix-free variants on the same mesh.
cd "$(dirname "$0")/../../.."   # the repository root
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=/usr/local/cuda-13.0/bin/compute-sanitizer
[ -x $CS ] || CS=compute-sanitizer
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $OUT/tests.log
( cd $B && timeout 120 ctest -j4 -R '^matfree' --output-on-failure ) >> $OUT/tests.log 2>&1
echo "ctest rc=$?" >> $OUT/tests.log
timeout 40 $CS --tool memcheck --leak-check no $B/tests/matfree -dim 3 -orders 2,5 -faces 2 -bc -perturb 0.2 -gpu \
  -types sumfact,sumfact_gather,sumfact_recompute,elmat_atomic,elmat_color,elmat_gather > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/memcheck.log
# BP3 with every variant (elmat_* for p <= 4; geometry stored and recomputed), BP1 with the sum-factorised ones; p = 1..8, about 4 M dofs
# (cells capped at 150k: p = 1, 2 get fewer dofs; the set-up, about 20 us a cell, is on the host), q = p+2 as the CEED BPs
timeout 110 stdbuf -oL $B/benchmarks/matfree/matfree_bench -gpu -orders 1,2,3,4,5,6,7,8 -dofs 4e6 -max_cells 150000 -ops poisson \
  -types sumfact,sumfact_gather,sumfact_recompute,sumfact_gather_recompute,elmat_atomic,elmat_color,elmat_gather,elmat_max -reps 20 > $OUT/bp3.log 2>&1
echo "bench rc=$?" >> $OUT/bp3.log
timeout 50 stdbuf -oL $B/benchmarks/matfree/matfree_bench -gpu -orders 1,2,3,4,5,6,7,8 -dofs 4e6 -max_cells 150000 -ops mass \
  -types sumfact,sumfact_gather,sumfact_recompute -reps 20 > $OUT/bp1.log 2>&1
echo "bench rc=$?" >> $OUT/bp1.log
# the assembled peers, p = 1..3 at about 0.2 M dofs (PETSc's host assembly bounds the size)
timeout 70 stdbuf -oL $B/benchmarks/matfree/matfree_bench -gpu -orders 1,2,3 -dofs 2e5 -ops poisson \
  -types sumfact,sumfact_recompute,elmat_color -assembled -assembled_types ellwarp,aijcusparse -reps 20 > $OUT/assembled.log 2>&1
echo "bench rc=$?" >> $OUT/assembled.log
# bp3-2d.log: the paper's 2-D figure (Fig. 4a): p = 1..4, the element-matrix variants beside sum factorisation
timeout 40 stdbuf -oL $B/benchmarks/matfree/matfree_bench -gpu -dim 2 -orders 1,2,3,4 -dofs 4e6 -max_cells 150000 -ops poisson \
  -types sumfact,sumfact_gather,elmat_atomic,elmat_color,elmat_gather,elmat_max -reps 20 > $OUT/bp3-2d.log 2>&1
echo "bench rc=$?" >> $OUT/bp3-2d.log
# the CPU versions on all the host's cores (host vectors; the paper's CPU Color, and the gathers), 3-D p = 1..4
timeout 50 stdbuf -oL $B/benchmarks/matfree/matfree_bench -orders 1,2,3,4 -dofs 1e6 -max_cells 150000 -ops poisson \
  -types elmat_color,elmat_gather,sumfact_gather -dm_assembly_matfree_host_threads 0 -reps 5 >> $OUT/bp3-2d.log 2>&1
echo "cpu bench rc=$?" >> $OUT/bp3-2d.log
tail -3 $OUT/tests.log; grep -E "Failed|FAIL" $OUT/tests.log | head; tail -3 $OUT/memcheck.log
for f in bp3 bp1 bp3-2d; do grep BENCH $OUT/$f.log | awk '{print $2, $3, $4, $5, $7, $8, $11, $12}' | column -t; tail -1 $OUT/$f.log; done
grep BENCH $OUT/assembled.log | awk '{print $2, $3, $4, $5, $7, $8}' | column -t; tail -1 $OUT/assembled.log

#!/usr/bin/env bash
# issue 19: the small-p sumfact kernel (SumFact3DSmall): GPU tests, memcheck + racecheck, its SASS counts, BP3 p = 1..3
# against the assembled ELLWARP and AIJCUSPARSE at ~2 M dofs, BP1 p = 1, 2 (one H100, < 3 min)
cd "$(dirname "$0")/../../../.."  # the repository root (a copy carrying .gpu/, after scripts/gpu-pack.sh)
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD; CS=/usr/local/cuda-13.0/bin/compute-sanitizer
( cd $B && timeout 150 ctest -L gpu -R matfree -j 6 --output-on-failure ) > $OUT/matfree-tests.log 2>&1; echo "ctest rc=$?" >> $OUT/matfree-tests.log
grep -E "tests passed|Failed|rc=" $OUT/matfree-tests.log
M=$OUT/memcheck.log
timeout 120 $CS --tool memcheck --error-exitcode 9 $B/tests/matfree -dim 3 -orders 1,2 -faces 3 -bc -perturb 0.2 -qextra 1 -types sumfact,sumfact_recompute,sumfact_gather_recompute -gpu > $M 2>&1; echo "memcheck rc=$?" >> $M
timeout 60 $CS --tool racecheck --error-exitcode 9 $B/tests/matfree -dim 3 -orders 2 -faces 2 -qextra 1 -types sumfact_recompute -gpu >> $M 2>&1; echo "racecheck rc=$?" >> $M
tail -4 $M
/usr/local/cuda-13.0/bin/cuobjdump -sass $B/lib/libpetscellwarp.so.0 2>/dev/null | awk '/Function : .*SumFact3DSmallILi3ELi4ELb1ELb1E/{p=1;next} /Function :/{p=0} p' > ${TMPDIR:-/tmp}/k.sass
echo "p2 small recompute SASS: DFMA $(grep -c DFMA ${TMPDIR:-/tmp}/k.sass), with c[0x0] $(grep DFMA ${TMPDIR:-/tmp}/k.sass | grep -c 'c\[0x0\]'), LDS $(grep -c 'LDS' ${TMPDIR:-/tmp}/k.sass)" >> $M
S=$OUT/matfree-small.log; nvidia-smi --query-gpu=name --format=csv,noheader > $S
BENCH=$B/benchmarks/matfree/matfree_bench
for p in 2 1 3; do
  timeout 75 stdbuf -oL $BENCH -gpu -ops poisson -reps 30 -orders $p -dofs 2e6 -types sumfact_recompute,sumfact -assembled_coo -assembled_types ellwarp,aijcusparse -assembled_max_p 3 >> $S 2>&1; echo "rc=$? p=$p" >> $S
done
timeout 60 stdbuf -oL $BENCH -gpu -ops mass -reps 30 -orders 1,2 -dofs 2e6 -types sumfact_recompute,sumfact >> $S 2>&1; echo "rc=$? mass" >> $S
grep -E "^BENCH|^COMPARE|rc=" $S | cut -c1-220

#!/usr/bin/env bash
# issue 14 (H100): the GPU tests, ksp ex56 -ne 69 with its default PC (ICC) ellwarp vs aijcusparse, then PCGAMG's
# set-up and solve for elasticity (3 rounds) and Poisson 128^3 (3 rounds) through ../run-setup.sh
cd "$(dirname "$0")/../../../.."  # the repository root (run from a copy carrying .gpu/, after scripts/gpu-pack.sh)
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD; L=$B/lib/libpetscellwarp.so
ELLWARP_GPU_TIMEOUT=185 ELLWARP_GPU_JOBS=8 timeout 200 bash scripts/gpu-test.sh -L gpu -E petsc_suite > $OUT/gputests.log 2>&1
tail -4 $OUT/gputests.log
grep -E "Failed|\*\*\*" $OUT/gputests.log | head
C="-ne 69 -vec_type cuda -ksp_rtol 1e-8 -log_view"
for t in aijcusparse ellwarp; do
  x=(); [ $t = ellwarp ] && x=(-dll_append $L -info :mat)
  echo "=== ex56 default PC (ICC) $t" >> $OUT/icc.log
  timeout 60 stdbuf -oL $B/tests/tutorials/ksp_ex56 $C -mat_type $t "${x[@]}" > /tmp/i_$t.log 2>&1
  grep -E "factorization of a MATSEQELLWARP|iterations" /tmp/i_$t.log | head -3 >> $OUT/icc.log
  grep -E "^(PCSetUp|KSPSolve|MatSolve|MatICCFactorSym|MatCholFctrNum) " /tmp/i_$t.log | cut -c1-60 >> $OUT/icc.log
done
cat $OUT/icc.log
GAMG_SPECS="elasticity 3 150;poisson 3 130" timeout 300 bash benchmarks/results/gamg-h100/run-setup.sh > /dev/null 2>&1
grep -A6 "ellwarp_run" $OUT/gamg-setup.txt
head -30 $OUT/events-setup.txt

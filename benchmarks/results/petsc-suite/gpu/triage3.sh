#!/usr/bin/env bash
# issue 14: the new GPU tests (cuSPARSE factorizations, ex250, stag ex4) and the suite's formerly failing cases
cd "$(dirname "$0")/../../../.."  # the repository root (this script lives in benchmarks/results/<dir>/scripts or .../<dir>)
source scripts/gpu-env.sh
export ELLWARP_GPU_TIMEOUT=150 ELLWARP_GPU_JOBS=8
stdbuf -oL bash scripts/gpu-test.sh -R 'cusparse_gpu|tutorial_dm_stag|mpiops|mpicoo' > $OUT/ctest.log 2>&1 || echo "ctest rc=$?" >> $OUT/ctest.log
L=/tmp/ellwarp-gpubuild/lib/libpetscellwarp.so
timeout 520 stdbuf -oL python3 benchmarks/petsc-suite/run_petsc_suite.py --mode gpu --run-only --exe-dir $PWD/.gpu/suite-exe \
   --petsc-src $PWD/.gpu/petsc-src --petsc-prefix $ELLWARP_PETSC_PREFIX --lib $L \
   --filter 'ex125_cusparse|ex309|ex56_2$|ex56_pbjacobi|ex18_cusparse|ex254|ex7_gamg|stag_tutorials-ex4' \
   --jobs 6 --timeout 400 -o /tmp/suite-gpu --failures-file benchmarks/petsc-suite/expected-failures-cpu.txt > $OUT/suite.log 2>&1
echo "suite rc=$?" >> $OUT/suite.log
cp /tmp/suite-gpu/results.md $OUT/ 2>/dev/null
tar -C /tmp -czf $OUT/suite-out.tgz suite-gpu 2>/dev/null
grep -E "tests passed|Failed|Timeout|\*\*\*" $OUT/ctest.log | head -20; grep '\[run\]' $OUT/suite.log | cut -c1-200

#!/usr/bin/env bash
# issue 14: the new GPU tests, memcheck of the cuSPARSE-factor path, then PETSc's whole suite in gpu mode
cd "$(dirname "$0")/../../../.."  # the repository root (this script lives in benchmarks/results/<dir>/scripts or .../<dir>)
source scripts/gpu-env.sh
export ELLWARP_GPU_TIMEOUT=150 ELLWARP_GPU_JOBS=10
stdbuf -oL bash scripts/gpu-test.sh -R 'cusparse_gpu|tutorial_mat_ex250|tutorial_dm_stag|petscsuite|tutorial_ksp_ex56|tutorial_snes_ex5' > $OUT/ctest.log 2>&1 || echo "ctest rc=$?" >> $OUT/ctest.log
L=/tmp/ellwarp-gpubuild/lib/libpetscellwarp.so
( cd $ELLWARP_GPU_BUILD/tests/tutorials && timeout 100 /usr/local/cuda-13.0/bin/compute-sanitizer --tool memcheck --leak-check no ./ksp_ex2 -m 20 -n 20 -pc_type ilu -pc_factor_mat_solver_type cusparse -mat_type ellwarp -vec_type cuda -dll_append $L -ksp_converged_reason 2>&1 | tail -3 ) > $OUT/memcheck.txt 2>&1
timeout 470 stdbuf -oL python3 benchmarks/petsc-suite/run_petsc_suite.py --mode gpu --run-only --exe-dir $PWD/.gpu/suite-exe \
   --petsc-src $PWD/.gpu/petsc-src --petsc-prefix $ELLWARP_PETSC_PREFIX --lib $L --note "$(nvidia-smi --query-gpu=name --format=csv,noheader), library of $(sed -n 's/.* from //p' .gpu/manifest.env | head -1)" \
   --jobs 12 --timeout 150 -o /tmp/suite-gpu --failures-file benchmarks/petsc-suite/expected-failures-cpu.txt > $OUT/suite.log 2>&1
echo "suite rc=$?" >> $OUT/suite.log
cp /tmp/suite-gpu/results.md /tmp/suite-gpu/results.tsv $OUT/ 2>/dev/null
tar -C /tmp -czf $OUT/suite-out.tgz suite-gpu 2>/dev/null
grep -E "tests passed|Failed|Timeout|\*\*\*" $OUT/ctest.log | head -20; cat $OUT/memcheck.txt; tail -3 $OUT/suite.log

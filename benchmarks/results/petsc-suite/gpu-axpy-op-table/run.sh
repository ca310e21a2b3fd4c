#!/usr/bin/env bash
# merged state (issues 14, 19, 20): all GPU tests, memcheck of new device paths, PETSc's suite on the cases that failed
cd "$(dirname "$0")/../../../.."  # the repository root (a copy carrying .gpu/, after scripts/gpu-pack.sh)
R=$PWD
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD; L=$B/lib/libpetscellwarp.so; CS=/usr/local/cuda-13.0/bin/compute-sanitizer
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gputests.log
ELLWARP_GPU_TIMEOUT=185 ELLWARP_GPU_JOBS=8 timeout 240 bash scripts/gpu-test.sh -L gpu -E petsc_suite >> $OUT/gputests.log 2>&1
( timeout 90 $CS --tool memcheck --leak-check no $B/tests/matfree -dim 3 -orders 2 -faces 2 -bc -perturb 0.2 -gpu -types elmat_atomic -assembled aijcusparse,ellwarp 2>&1 | tail -2
  timeout 60 $CS --tool memcheck --leak-check no $B/tests/integration -elem prism -faces 2 -gpu 2>&1 | tail -2
  cd $B/tests/tutorials && timeout 60 $CS --tool memcheck --leak-check no ./ksp_ex56 -ne 9 -pc_type gamg -mat_type ellwarp -vec_type cuda -dll_append $L -ksp_converged_reason 2>&1 | tail -2 ) > $OUT/memcheck.txt 2>&1
cd $R
F='ksp_ksp_tutorials-ex5[456]_|ksp_ksp_tutorials-ex7_gamg_cuda|mat_tests-ex123_1_cuda|mat_tests-ex250_cuda|snes_tests-ex13_cuda|snes_tutorials-ex17_ge_q1_0|snes_tutorials-ex19_cuda|snes_tutorials-ex56_|snes_tutorials-ex5_7_ksp_view_pre|snes_tutorials-ex5_hem_view_detailed|snes_tutorials-ex5_mis_view_detailed'
timeout 270 stdbuf -oL python3 benchmarks/petsc-suite/run_petsc_suite.py --mode gpu --run-only --exe-dir $R/.gpu/suite-exe \
   --petsc-src $R/.gpu/petsc-src --petsc-prefix $ELLWARP_PETSC_PREFIX --lib $L --filter "$F" --note "$(nvidia-smi --query-gpu=name --format=csv,noheader), library of $(sed -n 's/.* from //p' .gpu/manifest.env | head -1)" \
   --jobs 10 --timeout 200 -o /tmp/suite-gpu --failures-file benchmarks/petsc-suite/expected-failures-cpu.txt > $OUT/suite.log 2>&1
echo "suite rc=$?" >> $OUT/suite.log
cp /tmp/suite-gpu/results.md $OUT/ 2>/dev/null
grep -E "tests passed|\(Failed\)|Timeout" $OUT/gputests.log | head -20; cat $OUT/memcheck.txt; grep "^\[run\]" $OUT/suite.log | awk '{print $3}' | sort | uniq -c; grep "^\[run\]" $OUT/suite.log | grep -v " pass \| skip " | cut -c1-200

#!/usr/bin/env bash
# The fem kind of run_petsc_suite.py in gpu mode, first run: every case of PETSc's PetscFE SNES/TS programs with
# -dm_mat_type/-mat_type aijcusparse against ellwarp (CUDA vectors).  Carried: the bundle, the examples built here
# (run_petsc_suite.py --mode gpu --kinds fem --build-only --exe-dir .gpu/suite-exe) and PETSc's config/, snes and ts
# tutorials/tests and datafiles (.gpu/petsc-src).  Files under $OUT.
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
L=$ELLWARP_GPU_BUILD/lib/libpetscellwarp.so
timeout 500 stdbuf -oL python3 benchmarks/petsc-suite/run_petsc_suite.py --mode gpu --kinds fem --run-only --exe-dir $PWD/.gpu/suite-exe \
   --petsc-src $PWD/.gpu/petsc-src --petsc-prefix $ELLWARP_PETSC_PREFIX --lib $L --note "$(nvidia-smi --query-gpu=name --format=csv,noheader), library of $(sed -n 's/.* from //p' .gpu/manifest.env | head -1)" \
   --jobs 12 --timeout 120 -o /tmp/suite-gpu --failures-file benchmarks/petsc-suite/expected-failures-cpu.txt --failures-file benchmarks/petsc-suite/expected-failures-gpu.txt > $OUT/suite.log 2>&1
echo "suite rc=$?" >> $OUT/suite.log
cp /tmp/suite-gpu/results.md /tmp/suite-gpu/results.tsv $OUT/ 2>/dev/null
tar -C /tmp -czf $OUT/suite-out.tgz suite-gpu 2>/dev/null
tail -3 $OUT/suite.log; grep "^\[run\]" $OUT/suite.log | awk '{print $3}' | sort | uniq -c; grep "^\[run\]" $OUT/suite.log | grep -v " pass \| skip " | cut -c1-220

#!/usr/bin/env bash
# PCGAMG with MATELLWARP against AIJCUSPARSE on PETSc's ksp ex45 (3-D Poisson 128^3) and ex56 (elasticity -ne 69),
# three rounds in alternating order (benchmarks/gamg/run_gamg.sh), and the set-up events of one round of ex45.
# Device script: run from a copy carrying .gpu/ (scripts/gpu-pack.sh); outputs under $OUT.
cd "$(dirname "$0")/../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gamg.txt"
timeout 420 bash benchmarks/gamg/run_gamg.sh -o /tmp/gamg --exe-dir "$B/tests/tutorials" --lib "$B/lib/libpetscellwarp.so" --rounds 3 >> "$OUT/gamg.txt" 2>&1
ev="^(MatAssemblyEnd|MatAXPY|MatConvert|MatTranspose|MatMatMultSym|MatMatMultNum|MatPtAPSymbolic|MatPtAPNumeric|MatCUSPARSCopyTo|MatCUSPARSCopyFr|MatCreateGraph|Ellwarp[A-Za-z]*|DMCreateMat|PCGAMGCreateG|PCGAMGProl|PCGAMGOptProl|PCGAMGCreateL|PCSetUp|KSPSolve) "
for t in aijcusparse ellwarp; do
  echo "== po_$t (ksp ex45 128^3, round 1, set-up events: name, count, max time)"
  grep -E "$ev" "/tmp/gamg/poisson_${t}_r1.log" | awk '{print $1, $2, $4}'
done > "$OUT/events-poisson.txt"
tar -C /tmp/gamg -czf "$OUT/gamg-logs.tgz" .
tail -8 "$OUT/gamg.txt"

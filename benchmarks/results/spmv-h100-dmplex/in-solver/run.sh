#!/usr/bin/env bash
# Issue 17, the products as a user's solver runs them: PETSc's own ksp/tutorials/ex10 (a program we did not write)
# loads each box matrix of the DMPlex default numbering (0.33 M rows) with -mat_type aijcusparse or ellwarp (SELL has no MatLoad)
# and runs 300 iterations of GMRES(30) and of CG (no norm, so no divergence test stops the singular Neumann matrix),
# Jacobi; -log_view -log_view_gpu_time gives MatMult's GPU time per call.  Between two products the solver's vector
# work runs (GMRES: 30 basis vectors, 80-90 MB at these sizes, pass through L2), so the L2 state is a real one, not
# a chosen flush.  Two rounds, types alternating.  Then one GPU tutorial test.  Files under $OUT.
cd "$(dirname "$0")/../../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
M=${TMPDIR:-/tmp}/ellwarp-insolver-mats; L=$OUT/gen.log; ROWS=320000; GEN_TIMEOUT=150
source benchmarks/results/spmv-h100-dmplex/gen-matrices.sh
gen_begin
gen_matrices box default p1s p2s q1s q2s q2v
gen_finish
# ex10 is built beside the bundle (the bundle carries no PETSc examples), from PETSc's installed example source:
#   P=$ELLWARP_PETSC_PREFIX; mpicc -O2 $P/share/petsc/examples/src/ksp/ksp/tutorials/ex10.c -o .gpu/ex10 \
#     $(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --cflags --libs petsc) -Wl,-rpath,$P/lib
# and carried with it (carry .gpu/ex10).
X=${TMPDIR:-/tmp}/ellwarp-ex10; mkdir -p $X
cp .gpu/ex10 $X/ex10
R=$OUT/insolver.txt; : > $R
for round in 1 2; do
  for f in $(echo $BIN | tr , ' '); do
    n=$(basename $f .bin)
    for ksp in gmres cg; do
      kopt="-ksp_type gmres -ksp_gmres_restart 30"; [ $ksp = cg ] && kopt="-ksp_type cg -ksp_norm_type none"
      for t in aijcusparse ellwarp; do
        lv=$X/lv-$n-$ksp-$t-$round.txt
        timeout 60 $X/ex10 -f $f -rhs one -dll_append $B/lib/libpetscellwarp.so -mat_type $t -vec_type cuda -use_gpu_aware_mpi 0 $kopt -pc_type jacobi -ksp_max_it 300 -ksp_rtol 1e-30 -ksp_atol 0 -ksp_divtol 1e300 -log_view ascii:$lv -log_view_gpu_time > $X/out-$n-$ksp-$t-$round.txt 2>&1
        rc=$?
        # ex10 solves twice (PetscPreLoad): the last MatMult line is the second solve's; field 22 is its GPU Mflop/s
        awk -v n=$n -v k=$ksp -v t=$t -v r=$round -v rc=$rc '$1=="MatMult" {c=$2; us=$6/($22*1e6)/$2*1e6; w=$4/$2*1e6} END {printf "%-22s %-6s %-12s round %d rc %d calls %4d gpu_us/call %8.2f wall_us/call %8.2f\n", n, k, t, r, rc, c, us, w}' $lv >> $R 2>/dev/null || echo "$n $ksp $t round $round rc $rc no log" >> $R
      done
    done
  done
done
cat $R
tar -C $X -cJf $OUT/ex10-logs.tar.xz .
rm -rf $M
# the GPU tutorial test whose expectation changed with SeqAIJPetscDispatch (the other GPU tests passed in the call
# before, from the same bundle), run as its CTest line does, with the new expectation
bash tests/support/run_expect.sh --gpu require $B/tests/support/have_device -- bash tests/tutorials/compare.sh --lib $B/lib/libpetscellwarp.so --gpu --short --expect-info "ILU factorization of a MATSEQELLWARP with solver type petsc .given by name.: PETSc's, on the host" --reject-info cuSPARSE $B/tests/tutorials/ksp_ex2 -m 20 -n 20 -pc_type ilu -pc_factor_mat_solver_type petsc -ksp_monitor -ksp_converged_reason > $OUT/ilu_petsc_gpu.log 2>&1
echo "ilu_petsc_gpu rc=$?" | tee -a $OUT/ilu_petsc_gpu.log

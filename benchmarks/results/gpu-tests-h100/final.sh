#!/usr/bin/env bash
# the session's last device call: round-2 measurements of issues 18 and 20, the scalar column-mode check (issue 17),
# then every GPU test of the merged library; each part's files go back as one tarball
cd "$(dirname "$0")/../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
O=$OUT; W=/tmp/final; rm -rf $W; mkdir -p $W/ownergeo $W/prism $W/q1s $W/tests
OUT=$W/ownergeo timeout 150 bash benchmarks/results/elasticity-h100/logs-ownergeo/run-round2.sh > $W/ownergeo/stdout.log 2>&1
echo "ownergeo rc=$?" >> $O/summary.log
OUT=$W/prism timeout 150 bash benchmarks/results/integration-h100/logs-prism-host/run-round2.sh > $W/prism/stdout.log 2>&1
echo "prism rc=$?" >> $O/summary.log
OUT=$W/q1s B=$B timeout 100 bash benchmarks/results/spmv-h100-dmplex/column-modes-scalar/q1s.sh > /dev/null 2>&1
echo "q1s rc=$?" >> $O/summary.log
nvidia-smi --query-gpu=name --format=csv,noheader > $W/tests/gpu-tests-all.log
ELLWARP_GPU_TIMEOUT=190 ELLWARP_GPU_JOBS=8 timeout 200 bash scripts/gpu-test.sh -L gpu -E 'petsc_suite|assembly_elasticity|^integration' >> $W/tests/gpu-tests-all.log 2>&1
echo "gpu tests rc=$?" >> $O/summary.log
for p in ownergeo prism q1s tests; do tar -C $W -czf $O/$p.tar.gz $p; done
cat $O/summary.log; tail -4 $W/tests/gpu-tests-all.log; cat $W/ownergeo/stdout.log | tail -25; tail -30 $W/prism/stdout.log
grep -E "^## |^# \[|ellwarp_auto|sell32|aijcusparse" $W/q1s/columns-scalar.log | cut -c1-80

#!/usr/bin/env bash
# final figures without the cell-type label: set-up against the peer, a second set-up run, 500 ms on 1 M vertices
cd "$(dirname "$0")/../../../.."  # the repository root (this script lives in benchmarks/results/<dir>/scripts or .../<dir>)
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/setup-summary.txt
mkdir -p $OUT/setup
( cd $B && timeout 100 ctest -j4 -L gpu -R "assembly_setup|assembly_layout|cardiac_compare|cardiac_ts|assembly.gpu$" ) 2>&1 | grep -E "tests passed|Failed" >> $OUT/setup-summary.txt
timeout 150 bash benchmarks/cardiac/setup_compare.sh -x $B/examples/cardiac -b $PWD/.gpu/base/cardiac -L $PWD/.gpu/base/lib -o $OUT/setup -r 1 >> $OUT/setup-summary.txt 2>&1
timeout 60 bash benchmarks/cardiac/setup_compare.sh -x $B/examples/cardiac -o $OUT/setup2 -r 1 >> $OUT/setup-summary.txt 2>&1
mv $OUT/setup2/lv1m_new_1.log $OUT/setup/lv1m_new_2.log; rm -rf $OUT/setup2
( time timeout 150 bash benchmarks/cardiac/lv1m_500ms.sh -x $B/examples/cardiac -o /tmp/lv500 ) > $OUT/lv500.log 2>&1
cat /tmp/lv500/lv1m-500ms.json >> $OUT/lv500.log
cat $OUT/setup-summary.txt
for f in $OUT/setup/lv1m_new_*.log; do echo "== $f"; grep -E "^Cardiac|^DMAsm|^DMPlexBuFr|^MatGetOrdering" $f | awk '{print $1, $4}' | tr '\n' ' '; echo; done
grep -E "setup [0-9.]+ s =|per step|activated|process wall|^real|bytes model" $OUT/lv500.log | cut -c1-300

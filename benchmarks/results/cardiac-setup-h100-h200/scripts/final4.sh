#!/usr/bin/env bash
# final figures after reverting the device element map: set-up against the peer, a second set-up run, 500 ms on 1 M vertices
cd "$(dirname "$0")/../../../.."  # the repository root (this script lives in benchmarks/results/<dir>/scripts or .../<dir>)
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/setup-summary.txt
( cd $B && timeout 120 ctest -j8 -L gpu -R "assembly_setup|cardiac|assembly\.gpu$|assembly_layout" ) > $OUT/gpu-tests.log 2>&1; echo "ctest rc=$?" >> $OUT/gpu-tests.log
mkdir -p $OUT/setup
timeout 150 bash benchmarks/cardiac/setup_compare.sh -x $B/examples/cardiac -b $PWD/.gpu/base/cardiac -L $PWD/.gpu/base/lib -o $OUT/setup -r 1 >> $OUT/setup-summary.txt 2>&1
timeout 60 bash benchmarks/cardiac/setup_compare.sh -x $B/examples/cardiac -o $OUT/setup2 -r 1 >> $OUT/setup-summary.txt 2>&1
mv $OUT/setup2/lv1m_new_1.log $OUT/setup/lv1m_new_2.log; rm -rf $OUT/setup2
( time timeout 150 bash benchmarks/cardiac/lv1m_500ms.sh -x $B/examples/cardiac -o /tmp/lv500 ) > $OUT/lv500.log 2>&1
cat /tmp/lv500/lv1m-500ms.json >> $OUT/lv500.log
tail -3 $OUT/gpu-tests.log; cat $OUT/setup-summary.txt
for f in $OUT/setup/lv1m_new_*.log; do echo "== $f"; grep -E "^Cardiac|^DMAsm|^DMPlexBuFr|^MatGetOrdering" $f | awk '{print $1, $4}' | tr '\n' ' '; echo; done
grep -E "setup [0-9.]+ s =|per step|activated|process wall|^real|bytes model" $OUT/lv500.log | cut -c1-300

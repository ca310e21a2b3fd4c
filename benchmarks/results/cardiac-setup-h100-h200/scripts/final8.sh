#!/usr/bin/env bash
# The set-up on the host's cores (branch cardiac-setup, merged) against main before it (.gpu/base): set-up + first
# step of the 1 M LV and the 20 k demo (setup_compare.sh, then a second run of the new code), and 500 ms of the
# 1 M LV with its activation PNG for both (the process wall time against the program's total)
cd "$(dirname "$0")/../../../.."  # the repository root (this script lives in benchmarks/results/<dir>/scripts or .../<dir>)
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/setup-summary.txt
nproc >> $OUT/setup-summary.txt
mkdir -p /tmp/s8
( cd $B && timeout 120 ctest -j4 -L gpu -R "assembly_setup|cardiac_compare|cardiac_ts|cardiac_plex|cardiac_section" ) 2>&1 | grep -E "tests passed|Failed" >> $OUT/setup-summary.txt
timeout 150 bash benchmarks/cardiac/setup_compare.sh -x $B/examples/cardiac -b $PWD/.gpu/base/cardiac -L $PWD/.gpu/base/lib -o /tmp/s8/setup -r 1 >> $OUT/setup-summary.txt 2>&1
timeout 60 bash benchmarks/cardiac/setup_compare.sh -x $B/examples/cardiac -o /tmp/s8/setup2 -r 1 >> $OUT/setup-summary.txt 2>&1
mv /tmp/s8/setup2/lv1m_new_1.log /tmp/s8/setup/lv1m_new_2.log
timeout 100 bash benchmarks/cardiac/lv1m_500ms.sh -x $B/examples/cardiac -o /tmp/s8/lv500new > /dev/null 2>&1
LD_LIBRARY_PATH=$PWD/.gpu/base/lib:$LD_LIBRARY_PATH timeout 100 bash benchmarks/cardiac/lv1m_500ms.sh -x $PWD/.gpu/base/cardiac -o /tmp/s8/lv500base > /dev/null 2>&1
cp /tmp/s8/lv500new/lv1m-500ms.log $OUT/lv500-new.log; cp /tmp/s8/lv500base/lv1m-500ms.log $OUT/lv500-base.log
cmp /tmp/s8/lv500new/activation.png /tmp/s8/lv500base/activation.png && echo "activation PNG identical" >> $OUT/setup-summary.txt
tar -C /tmp/s8 -czf $OUT/setup-logs.tgz setup
cat $OUT/setup-summary.txt
for f in /tmp/s8/setup/lv1m_*.log; do echo "== $f"; grep -E "^Cardiac|^DMAsm|^MatGetOrdering" $f | awk '{print $1, $4}' | tr '\n' ' '; echo; done
for f in $OUT/lv500-*.log; do echo "== $f"; grep -E "setup [0-9.]+ s =|per step \(|activated|process wall|cardiac: process|bytes model against" $f | cut -c1-250; done

#!/usr/bin/env bash
# Issue 18, the padding left to the target: the kiran plans no longer zero the target's padding at each assembly
# (MatAssemblyBlock keeps it 0) where the elements touch every CSR entry.  One H100 call: the elasticity GPU tests
# (padding 0 after reassembly, an untouched CSR entry zeroed) and memcheck; then mesh 1 (192x24x24) kiran:ownergeo
# into ELLWARP and AIJCUSPARSE, the library before (8380532: a zeroing kernel over the 909 831 padding slots at each
# assembly, carried as .gpu/bundle-base.tar.xz, its bench run with its own libraries) and after, in three alternating
# rounds; and into ELLWARP layouts of the same matrix without the K2 padding (-mat_ellwarp_kernel k1: rows sorted
# whole; -mat_ellwarp_tune sort_window=256: K1 sorted in windows, every block list fits).  Files under $OUT.
cd "$(dirname "$0")/../../../../.."
mkdir -p /tmp/base
if [ -f .gpu/bundle-base.tar.xz ]; then
  timeout 300 tar -C / -xJf .gpu/bundle-base.tar.xz
  cp -r /tmp/ellwarp-gpubuild/lib /tmp/base/lib
  cp /tmp/ellwarp-gpubuild/benchmarks/elasticity/elasticity_bench /tmp/base/
fi
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
CS=$(command -v compute-sanitizer || echo /usr/local/cuda-13.0/bin/compute-sanitizer)
L=$OUT/gpu-tests.log
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > $L
( cd $B && timeout 150 stdbuf -oL ctest -L gpu -R 'assembly_elasticity|example_elasticity' --output-on-failure ) >> $L 2>&1
echo "ctest rc=$?" >> $L
timeout 90 stdbuf -oL $CS --tool memcheck --leak-check no $B/tests/assembly_elasticity -elem hex -faces 3 -distort -gpu >> $L 2>&1
echo "memcheck rc=$?" >> $L
R=$OUT/bench.log
COMMON="-repeats 5 -peak_bw 2990 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo -meshes 192x24x24"
for round in 1 2 3; do
  echo "# round $round: before (8380532, padding zeroed at each assembly)" >> $R
  LD_LIBRARY_PATH=/tmp/base/lib:$LD_LIBRARY_PATH timeout 90 stdbuf -oL /tmp/base/elasticity_bench $COMMON -targets ellwarp,aijcusparse 2>&1 | grep -E "^kiran" >> $R
  echo "# round $round: after (padding left to the target)" >> $R
  timeout 90 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench $COMMON -targets ellwarp,aijcusparse 2>&1 | grep -E "^kiran" >> $R
  for lay in "-mat_ellwarp_kernel k1" "-mat_ellwarp_tune sort_window=256"; do
    echo "# round $round: after, ELLWARP layout $lay" >> $R
    timeout 90 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench $COMMON -targets ellwarp $lay 2>&1 | grep -E "^kiran" >> $R
  done
done
echo "# what the plans chose (DMAssemblyView, after)" >> $R
for lay in "" "-mat_ellwarp_kernel k1" "-mat_ellwarp_tune sort_window=256"; do
  echo "## layout: ${lay:-default}" >> $R
  timeout 60 stdbuf -oL $B/benchmarks/elasticity/elasticity_bench -repeats 1 -cpu_max_elements 0 -check_max_elements 0 -peer_max_elements 0 -methods kiran:ownergeo -meshes 192x24x24 -targets ellwarp $lay -dm_assembly_view 2>&1 | grep -E "block lists:|bytes per element" | sort -u | cut -c1-330 >> $R
done
grep -E "tests passed|Failed|ERROR SUMMARY|rc=" $L | head; cat $R | cut -c1-160

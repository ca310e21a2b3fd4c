#!/usr/bin/env bash
# GPU measurement of the kernel variants in one call (issue 3: powerlaw_web, qcd; issue 4: COO with
# duplicates), each against the peers measured in the same run:
#   bash benchmarks/spmv/run_variants.sh [-o DIR] [--build B] [-- extra spmv_bench options]
# 1. coo_bench -n 40 -repeats 50 -variants all                     -> DIR/coo-variants.txt
# 2. run_suite.sh --no-sell (every suite matrix) -formats ellwarp,aijcusparse,cusparse,sell32,variants
#    -variants all                                                  -> DIR/spmv/main.txt, main.json, spmv.json
# 3. DIR/summary.txt: the COO VARIANT lines, and per matrix the defaults and the best variant against
#    the best peer (ratios of cold times, > 1: faster than every peer).
# B defaults to $ELLWARP_GPU_BUILD, else build/.  Each step runs under timeout (COO 120 s, SpMV 300 s).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="" build=${ELLWARP_GPU_BUILD:-$root/build}
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run_variants.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
out=${out:-$root/benchmarks/results/variants-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
rc=0
echo "[run_variants] COO -> $out/coo-variants.txt" >&2
timeout -k 10 120 "$build/benchmarks/coo/coo_bench" -n 40 -repeats 50 -variants all > "$out/coo-variants.txt" 2>&1 || rc=$?
echo "[run_variants] SpMV -> $out/spmv" >&2
timeout -k 10 300 bash "$here/run_suite.sh" --no-sell --bench "$build/benchmarks/spmv/spmv_bench" -o "$out/spmv" -- \
  -formats ellwarp,aijcusparse,cusparse,sell32,variants -variants all "$@" || rc=$?
{
  echo "# COO with duplicates (ms; aijcsp/var > 1: faster than AIJCUSPARSE)"
  grep -E '^(VARIANT|variant|type|seq|ratio|#)' "$out/coo-variants.txt"
  echo
  echo "# SpMV, per matrix: the defaults (variant 'default' re-measured, and 'ellwarp_auto') and the best variant by /bestpeer"
  awk '$1 == "VARIANT" && $4 == "ok" {
         m = $2; v = $3; bp = $18; au = $10
         if (v == "default") def[m] = sprintf("default %.3f (/auto %.3f)", bp, au)
         if (!(m in best) || bp > best[m]) { best[m] = bp; bv[m] = v; bau[m] = au }
         if (!(m in order)) { order[m] = ++n; names[n] = m }
       }
       END { for (i = 1; i <= n; i++) { m = names[i]; printf "%-20s /bestpeer: %s; best %s %.3f (/auto %.3f)\n", m, def[m], bv[m], best[m], bau[m] } }' "$out/spmv/main.txt"
  echo
  grep '^VARIANT' "$out/spmv/main.txt"
} > "$out/summary.txt"
cat "$out/summary.txt"
exit $rc

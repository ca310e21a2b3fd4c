# The DMPlex-built matrices of this directory's device scripts (run.sh, run-blocklanes.sh, run-dict.sh), sourced by
# them after `source scripts/gpu-env.sh`: benchmarks/spmv/plex_matrices, one process per (mesh, kind, numbering) on the
# host's cores, writing PETSc binary files into $M (local disk, not $OUT: up to ~1 GB each).  One copy of the
# generation block the scripts had each written out.  Expects B (the build directory), ROWS, M (the matrix
# directory), L (the generation log, $OUT/gen.log) and GEN_TIMEOUT (seconds per process, default 200).
#   gen_begin                        a fresh $M with the gmsh LV mesh in it; the GPU and core count into $L
#   gen_matrices MESH ORDERS KINDS.. one background process per kind and numbering (ORDERS: space-separated, e.g.
#                                    "default rcm"), named MESH-KIND-ORDER (its log $M/gen-MESH-KIND-ORDER.log); MESH
#                                    box (DMPlexCreateBoxMesh) or gmsh (the LV refined by DMRefine)
#   gen_finish [STATS]               waits for them: each process's rc, their logs and the listing of $M into $L, the
#                                    STATS lines (header once, then sorted) into the file STATS where given; sets BIN,
#                                    the comma-separated binaries whose writing finished (a generation cut by its
#                                    timeout leaves no "# wrote" line)
GEN_TIMEOUT=${GEN_TIMEOUT:-200}
gen_pids=""

gen_begin() {
  rm -rf "$M"; mkdir -p "$M"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader > "$L"
  nproc >> "$L"
  xz -dc examples/cardiac/data/lv_coarse.msh.xz > "$M/lv_coarse.msh"
}

gen_matrices() { # MESH ORDERS KINDS...
  local mesh=$1 orders=$2 k o
  shift 2
  local extra=()
  [ "$mesh" = gmsh ] && extra=(-gmsh "$M/lv_coarse.msh")
  for k in "$@"; do
    for o in $orders; do
      timeout "$GEN_TIMEOUT" stdbuf -oL $B/benchmarks/spmv/plex_matrices -rows $ROWS -out_dir "$M" -kinds $k -orders $o "${extra[@]}" > "$M/gen-$mesh-$k-$o.log" 2>&1 &
      gen_pids="$gen_pids $!"
    done
  done
}

gen_finish() { # [STATS file]
  local p
  for p in $gen_pids; do wait $p; echo "pid $p rc=$?" >> "$L"; done
  gen_pids=""
  cat "$M"/gen-*.log >> "$L"
  if [ -n "${1:-}" ]; then
    grep -h "^# STATS" "$M"/gen-*.log | head -1 > "$1"
    grep -h "^STATS" "$M"/gen-*.log | sort >> "$1"
  fi
  ls -la "$M" >> "$L"
  BIN=$(grep -h "^# wrote" "$M"/gen-*.log | awk '{print $3}' | sort | paste -sd, -)
}

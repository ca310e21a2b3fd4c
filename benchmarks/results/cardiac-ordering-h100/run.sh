#!/usr/bin/env bash
# The cardiac example in three dof numberings (issue 17, the paper's Kr/Krs through the assembler), the same executable
# in one call: the 1.08 M-vertex LV (-mesh lv -refine 2, 6.05 M tets, dt 0.25 ms) for 200 steps in
#   plex    -rcm 0                                 DMPlex's default numbering (gmsh file order, refinement appended)
#   dmrcm   -rcm 0 -dm_assembly_ordering rcm       DMAssembly's locality ordering (RCM of the DM's dofs)
#   dmell   -rcm 0 -dm_assembly_ordering ellwarp   the same, then ELLWARP's row order (256-row windows longest first)
#   own     (default)                              the example's own vertex RCM (LVMeshRenumberRCM) before DMPlex
#   dmrcmw, dmellw: dmrcm, dmell with the layout's 256-row sort window forced (-mat_ellwarp_tune sort_window=256):
#           the paper's K1r against K1 on the same slices (dmell's row permutation is then the identity)
# two rounds in alternating order; then the 20 k README demo (500 ms) in each numbering, whose activation maps
# (vertex order, -act_view) must agree.  Device script: run from a copy carrying .gpu/ (scripts/gpu-pack.sh);
# outputs under $OUT (summary + one tarball of logs).  About 3-4 minutes.
cd "$(dirname "$0")/../../.."
source scripts/gpu-env.sh
B=$ELLWARP_GPU_BUILD
S=$OUT/cardiac-ordering-summary.txt
W=/tmp/cord
mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$S"
declare -A OPT=([plex]="-rcm 0" [dmrcm]="-rcm 0 -dm_assembly_ordering rcm" [dmell]="-rcm 0 -dm_assembly_ordering ellwarp" [own]=""
  [dmrcmw]="-rcm 0 -dm_assembly_ordering rcm -mat_ellwarp_tune sort_window=256" [dmellw]="-rcm 0 -dm_assembly_ordering ellwarp -mat_ellwarp_tune sort_window=256")
lv() { # name round
  timeout 100 stdbuf -oL "$B/examples/cardiac" -mesh lv -refine 2 -dm_mat_type ellwarp -dm_vec_type cuda -dt 0.25 -steps 200 \
    -monitor_every 100 -final_vtu 0 -png 0 -output_dir $W/out-$1 -dm_assembly_view -jac_view ::ascii_info -log_view \
    ${OPT[$1]} > $W/lv1m-$1-$2.log 2>&1
  echo "rc=$? lv1m $1 round $2" >> "$S"
}
# CORD_NAMES / CORD_ROUNDS: a shorter run (e.g. CORD_NAMES="plex dmrcm own" CORD_ROUNDS=1)
names=${CORD_NAMES:-plex dmrcm dmell own dmrcmw dmellw}
for n in $names; do lv $n 1; done
if [ "${CORD_ROUNDS:-2}" -ge 2 ]; then for n in $(echo $names | tr ' ' '\n' | tac); do lv $n 2; done; fi
for n in plex dmrcm dmell own; do
  timeout 60 stdbuf -oL "$B/examples/cardiac" -dm_mat_type ellwarp -dm_vec_type cuda -dt 0.25 -t_end 500 -final_vtu 0 -png 0 \
    -output_dir $W/demo-$n -dm_assembly_view -act_view ascii:$W/act-$n.txt -log_view ${OPT[$n]} > $W/demo-$n.log 2>&1
  echo "rc=$? demo $n" >> "$S"
done
python3 - "$W" >> "$S" <<'PY'
import sys
w = sys.argv[1]
def load(n):  # VecView ASCII: a header, then one value per line (vertex order of that run's mesh)
    v = []
    for line in open(f"{w}/act-{n}.txt"):
        try: v.append(float(line.split()[0]))
        except (ValueError, IndexError): pass
    return v
try:
    ref = load("plex")
    for n in ("dmrcm", "dmell"):  # -rcm 0 like plex: the same vertex order, compared vertex by vertex
        a = load(n)
        d = max(abs(x - y) for x, y in zip(a, ref)) if len(a) == len(ref) else float("nan")
        print(f"demo activation times {n} vs plex: {len(a)} vertices, max |difference| {d:.3g} ms")
    a, b = sorted(load("own")), sorted(ref)  # own RCM renumbered the vertices: compared as sorted distributions
    d = max(abs(x - y) for x, y in zip(a, b)) if len(a) == len(b) else float("nan")
    print(f"demo activation times own vs plex (sorted, the vertex numbers differ): max |difference| {d:.3g} ms")
except Exception as e:
    print("activation comparison failed:", e)
PY
for f in $W/*.log; do
  echo "== $f" >> "$S"
  grep -E "dof ordering|sort window|column modes|per step \(|activated|bytes model|setup [0-9.]+ s =|^MatMult |^DMAsmReduce|^KSPSolve" "$f" | cut -c1-300 >> "$S"
done
tar -C $W -czf "$OUT/cardiac-ordering-logs.tgz" $(cd $W && ls *.log)
cat "$S"

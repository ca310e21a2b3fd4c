#!/usr/bin/env python3
"""Issue 7's Figure 1/12 study as a picture: wall time per time step and its assembly part of the
cardiac example on the LV refinements, GPU (MATELLWARP, device assembly) against the CPU run on all cores
(AIJ, host assembly, N MPI ranks), with the ratio above each mesh.

  plot_refine.py GPU_BENCH_JSON CPU_RUN_JSON... [-o out.png]

GPU_BENCH_JSON: refine_study.sh's bench.json (runs labelled <mesh>-gpu, <mesh>-cusparse);
CPU_RUN_JSON: cpu_allcores.sh's runs/<mesh>-cpunp<N>.json (one per mesh)."""
import argparse
import json
import os


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gpu")
    ap.add_argument("cpu", nargs="+")
    ap.add_argument("-o", default=None)
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("plot_refine.py: matplotlib is not installed (pip install matplotlib)")
    gpu = {r["label"].rsplit("-gpu", 1)[0]: r for r in json.load(open(a.gpu)) if r["label"].endswith("-gpu")}
    cpu = {}
    for f in a.cpu:
        r = json.load(open(f))
        cpu[r["label"].split("-cpunp")[0]] = r
    meshes = sorted((m for m in gpu if m in cpu), key=lambda m: gpu[m]["vertices"])
    if not meshes:
        raise SystemExit("plot_refine.py: no mesh has both a GPU and a CPU run")
    fig, ax = plt.subplots(figsize=(8.5, 4.8))
    # not stacked: on a log axis a stack hides its upper parts; one bar per pipeline and phase instead
    bars = [("GPU step", gpu, "step_ms", "#4c72b0", ""), ("GPU assembly", gpu, "assembly_ms", "#8fb0e0", ""),
            ("CPU step", cpu, "step_ms", "#dd8452", "//"), ("CPU assembly", cpu, "assembly_ms", "#f0b890", "//")]
    w = 0.2
    for i, m in enumerate(meshes):
        for j, (name, runs, key, color, hatch) in enumerate(bars):
            ax.bar(i + (j - 1.5) * w, runs[m][key], w, color=color, hatch=hatch, edgecolor="black", linewidth=0.4,
                   label=name if i == 0 else None)
        ratio = cpu[m]["step_ms"] / gpu[m]["step_ms"]
        ax.text(i, max(gpu[m]["step_ms"], cpu[m]["step_ms"]) * 1.3, f"{ratio:.1f}x", ha="center", fontsize=9)
    ax.set_yscale("log")
    ax.set_xticks(range(len(meshes)))
    ax.set_xticklabels([f"{m}\n{gpu[m]['vertices']:,} vertices" for m in meshes], fontsize=8)
    ax.set_ylabel("wall time per time step (ms)")
    nprocs = next(iter(cpu.values())).get("nprocs", "?")
    ax.set_title(f"Cardiac example per time step: GPU (MATELLWARP, device assembly) vs CPU on {nprocs} cores (AIJ)\n"
                 "ratio above = CPU step time / GPU step time (step = assembly + solve + rest)", fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    ax.set_ylim(top=ax.get_ylim()[1] * 3)
    fig.tight_layout()
    out = a.o or os.path.join(os.path.dirname(a.gpu), "refine.png")
    fig.savefig(out, dpi=130)
    print("wrote", out)


if __name__ == "__main__":
    main()

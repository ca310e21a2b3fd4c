#!/usr/bin/env python3
"""Performance against problem size of the matrix-free variants (the paper's Figures 2-4: GDOF/s per variant and p),
from the BENCH lines of benchmarks/matfree/matfree_bench.

usage: plot_matfree.py LOG [LOG ...] [-o matfree.png] [--op BP3]
One panel per (dimension, p); one line per variant (sumfact, elmat_atomic = the paper's GPU_Atomic, elmat_color =
GPU_Color, coo_* = the assembled operators, ...).  Points of the same (variant, dofs) in several logs: the last wins."""
import argparse
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FIELD = re.compile(r"(\w+)=([^\s]+)")


def parse(paths, op):
    pts = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                if not line.startswith("BENCH "):
                    continue
                d = dict(FIELD.findall(line))
                if d.get("op") != op or "gdofs" not in d:
                    continue
                key = (int(d.get("dim", "3")), int(d["p"]), d["variant"], int(d["dofs"]))
                pts[key] = float(d["gdofs"])
    return pts


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("logs", nargs="+")
    ap.add_argument("-o", "--out", default="matfree.png")
    ap.add_argument("--op", default="BP3")
    a = ap.parse_args()
    pts = parse(a.logs, a.op)
    if not pts:
        raise SystemExit("no BENCH lines for " + a.op)
    panels = sorted({(k[0], k[1]) for k in pts})
    cols = min(4, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.4 * rows), squeeze=False)
    for ax, (dim, p) in zip(axes.flat, panels):
        for v in sorted({k[2] for k in pts if k[0] == dim and k[1] == p}):
            xs = sorted(k[3] for k in pts if k[:3] == (dim, p, v))
            if len(xs) < 1:
                continue
            ax.plot(xs, [pts[(dim, p, v, x)] for x in xs], marker="o", markersize=3, label=v)
        ax.set_xscale("log")
        ax.set_title("%s, %d-D, p = %d" % (a.op, dim, p), fontsize=9)
        ax.set_xlabel("dofs", fontsize=8)
        ax.set_ylabel("GDOF/s (one MatMult)", fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print("wrote", a.out)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Bar chart of the element-integration bench (Banas et al., Tables 6-7): per element x problem, each loop order's
and the automatic choice's time as a % of its own bound (the roofline the program measures), device and host.

usage: plot_integration.py integration-bench.log [-o integration.png]
Reads the table lines of benchmarks/integration/integration_bench ("where | elem | problem | var | ...")."""
import argparse
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LINE = re.compile(r"^(device|host)\s*\|\s*(tet|prism)\s*\|\s*(poisson|cdr)\s*\|\s*(qss|sqs|ssq|auto)\s*\|(.*)$")
PCT = re.compile(r"([0-9.]+) % of bound")
NS = re.compile(r"([0-9.]+) ns/elem")


def parse(path):
    rows = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            where, elem, prob, var, rest = m.groups()
            p, t = PCT.search(rest), NS.search(rest)
            if p and t:
                rows[(where, elem, prob, var)] = (float(p.group(1)), float(t.group(1)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("log")
    ap.add_argument("-o", "--out", default="integration.png")
    a = ap.parse_args()
    rows = parse(a.log)
    if not rows:
        raise SystemExit("no table lines in " + a.log)
    cases = [(e, p) for e in ("tet", "prism") for p in ("poisson", "cdr")]
    variants = ["qss", "sqs", "ssq", "auto"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, where, target in zip(axes, ("device", "host"), ({"tet": 90, "prism": 60}, {"tet": 50, "prism": 50})):
        w = 0.2
        for k, v in enumerate(variants):
            xs, ys, ts = [], [], []
            for i, c in enumerate(cases):
                r = rows.get((where, c[0], c[1], v))
                if r:
                    xs.append(i + (k - 1.5) * w)
                    ys.append(r[0])
                    ts.append(r[1])
            bars = ax.bar(xs, ys, w, label=v if v != "auto" else "auto (chosen)", hatch="//" if v == "auto" else None)
            for b, t in zip(bars, ts):
                ax.text(b.get_x() + b.get_width() / 2, b.get_height() + 1, "%.3g" % t, ha="center", va="bottom", fontsize=6, rotation=90)
        for i, c in enumerate(cases):
            ax.hlines(target[c[0]], i - 0.45, i + 0.45, colors="k", linestyles="dashed", linewidth=1)
        ax.set_xticks(range(len(cases)))
        ax.set_xticklabels(["%s\n%s" % (e, "Poisson" if p == "poisson" else "conv-diff-reaction") for e, p in cases])
        ax.set_title("%s (ns per element above the bars; dashed: the issue's target)" % where, fontsize=9)
        ax.set_ylim(0, 125)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("% of the case's bound (measured copy bandwidth / FMA rate)")
    axes[0].legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(a.out, dpi=130)
    print("wrote", a.out)


if __name__ == "__main__":
    main()

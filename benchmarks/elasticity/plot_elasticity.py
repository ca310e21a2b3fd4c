#!/usr/bin/env python3
"""Figure 12/14-like plots of benchmarks/elasticity/elasticity_bench -o DIR output (DIR/elasticity.json; several
files are merged): Jacobian time per mesh and strategy, and speed-up over assembly by element (kiran:element).
Usage: plot_elasticity.py out.png dir1/elasticity.json [dir2/elasticity.json ...]   (needs matplotlib)"""
import json, sys

def main():
    out, files = sys.argv[1], sys.argv[2:]
    meshes = []
    for f in files:
        meshes += json.load(open(f))["meshes"]
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = []
    for m in meshes:
        for r in m["rows"]:
            key = r["method"] + " -> " + r["target"]
            if r.get("jacobian_s", 0) > 0 and key not in names:
                names.append(key)
    x = [m["elements"] for m in meshes]
    fig, ax = plt.subplots(1, 2, figsize=(13, 5))
    for key in names:
        t, s = [], []
        for m in meshes:
            rows = {r["method"] + " -> " + r["target"]: r for r in m["rows"]}
            base = [r for r in m["rows"] if r["method"] == "kiran:element" and r["target"] == rows.get(key, {}).get("target")]
            r = rows.get(key)
            t.append(1e3 * r["jacobian_s"] if r else float("nan"))
            s.append(base[0]["jacobian_s"] / r["jacobian_s"] if r and base else float("nan"))
        ax[0].plot(x, t, "o-", label=key)
        ax[1].plot(x, s, "o-", label=key)
    ax[0].set_xscale("log"); ax[0].set_yscale("log"); ax[0].set_xlabel("hexahedra"); ax[0].set_ylabel("Jacobian assembly (ms)")
    ax[1].set_xscale("log"); ax[1].set_xlabel("hexahedra"); ax[1].set_ylabel("speed-up over kiran:element (same target)")
    ax[0].legend(fontsize=7); ax[1].grid(True); ax[0].grid(True)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print("wrote", out)

if __name__ == "__main__":
    main()

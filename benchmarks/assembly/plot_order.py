#!/usr/bin/env python3
"""Figure 13/14-like plots of order_bench's JSON (benchmarks/assembly/order_bench.c):
left, assembly time per element (ns, log scale) against the Lagrange order for every method/target, the peer
(element kernel + MatSetValuesCOO into AIJCUSPARSE) and the serial CPU; right, the speed-up over the serial CPU.
Usage: plot_order.py DIR/order.json [out.png]   (matplotlib is optional: without it the data are printed)."""
import json
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = json.load(open(sys.argv[1]))
    out = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1].rsplit(".", 1)[0] + ".png"
    orders = [o["order"] for o in d["orders"]]
    series = {"cpu (host method, serial)": [1e9 * o["cpu_s"] / o["nelem"] for o in d["orders"]],
              "peer: element kernel + COO -> aijcusparse": [1e9 * o["peer_s"] / o["nelem"] for o in d["orders"]]}
    if all(o.get("petsc_fem_s", 0) > 0 for o in d["orders"]):
        series["PETSc DMPlexSNESComputeJacobianFEM (serial)"] = [1e9 * o["petsc_fem_s"] / o["nelem"] for o in d["orders"]]
    for i, r in enumerate(d["orders"][0]["rows"]):
        # s == 0: not run (sharednz beyond P1): a gap in the curve
        series["%s -> %s" % (r["method"], r["target"])] = [1e9 * o["rows"][i]["s"] / o["nelem"] if o["rows"][i]["s"] > 0 else float("nan") for o in d["orders"]]
    cpu = series["cpu (host method, serial)"]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not available; the data (ns/element):")
        for k, v in series.items():
            print("%-45s %s" % (k, " ".join("%10.3f" % x for x in v)))
        return
    fig, ax = plt.subplots(1, 2, figsize=(13, 5))
    for k, v in series.items():
        style = "k--" if k.startswith("cpu") else ("k:" if k.startswith("PETSc") else ("r-o" if k.startswith("peer") else "-o"))
        ax[0].semilogy(orders, v, style, label=k, ms=4)
        if not k.startswith("cpu") and not k.startswith("PETSc"):
            ax[1].semilogy(orders, [c / x for c, x in zip(cpu, v)], style, label=k, ms=4)
    ax[0].set_xlabel("Lagrange order")
    ax[0].set_ylabel("Jacobian assembly time per element (ns)")
    ax[0].set_title("time per element (cf. Cecka, Lew, Darve Fig. 13)")
    ax[1].set_xlabel("Lagrange order")
    ax[1].set_ylabel("speed-up over the serial CPU")
    ax[1].set_title("speed-up (cf. Fig. 14)")
    for a in ax:
        a.set_xticks(orders)
        a.grid(True, which="both", alpha=0.3)
    ax[0].legend(fontsize=6, loc="upper left")
    ax[1].legend(fontsize=6, loc="best")
    fig.suptitle("2-D heat problem, ~%d dofs per order, %s" % (d["ndofs_target"], d["device"]))
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print("wrote", out)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Bar chart of SpMV effective bandwidth per matrix and format, from spmv_bench -json out.json.

usage: plot.py out.json [-o out.png] [--hot]
Effective bandwidth uses the same CSR byte count for every format (12 nnz + 8 ncols + 8 nrows);
the dashed line is the device-to-device copy bandwidth measured in the same run."""
import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FORMATS = [
    ("ellwarp_auto", "ELLWARP auto"),
    ("ellwarp_best", "ELLWARP best (sweep)"),
    ("aijcusparse", "PETSc AIJCUSPARSE"),
    ("cusparse_csr_best", "cuSPARSE CSR (best ALG)"),
    ("cusparse_sell32", "cuSPARSE SELL-32"),
    ("petsc_sellcuda", "PETSc SELLCUDA"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json")
    ap.add_argument("-o", "--output", default=None)
    ap.add_argument("--hot", action="store_true", help="plot back-to-back (L2-warm) instead of cold timings")
    a = ap.parse_args()
    d = json.load(open(a.json))
    key = "gbs_hot" if a.hot else "gbs_cold"
    mats = d["matrices"]
    names = [m["name"] for m in mats]
    fig, ax = plt.subplots(figsize=(max(8, 1.3 * len(mats) + 2), 5))
    nf = len(FORMATS)
    w = 0.8 / nf
    for k, (fk, label) in enumerate(FORMATS):
        vals, notes = [], []
        for m in mats:
            v, note = 0.0, ""
            if fk == "ellwarp_best":
                b = m.get("sweep", {}).get("best")
                if b:
                    if not a.hot:
                        v = b["gbs_cold"]
                    elif b.get("hot_us"):
                        v = m["csr_bytes"] / (b["hot_us"] * 1e3)
            else:
                f = m["formats"].get(fk)
                if f is not None:
                    if f["status"] == "ok":
                        v = f[key]
                    else:
                        note = f["status"]
            vals.append(v)
            notes.append(note)
        xs = [i - 0.4 + (k + 0.5) * w for i in range(len(mats))]
        ax.bar(xs, vals, w, label=label)
        for x, v, note in zip(xs, vals, notes):
            if note:
                ax.text(x, 5, note, rotation=90, ha="center", va="bottom", fontsize=6)
    if d.get("copy_gbs"):
        ax.axhline(d["copy_gbs"], ls="--", color="k", lw=1, label="device copy (read+write)")
    ax.set_xticks(range(len(mats)))
    ax.set_xticklabels([f"{n}\n{m['rows']/1e6:.2f}M rows\n{m['nnz']/1e6:.1f}M nnz" for n, m in zip(names, mats)], fontsize=7)
    ax.set_ylabel("effective bandwidth (GB/s), CSR bytes / time")
    ax.set_title(f"SpMV y=Ax, double, {'hot (back-to-back)' if a.hot else 'cold (L2 flushed)'} - {d.get('device', '')}")
    ax.legend(fontsize=7, ncol=2)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    out = a.output or a.json.rsplit(".", 1)[0] + ("_hot" if a.hot else "") + ".png"
    fig.savefig(out, dpi=150)
    print("wrote", out)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Merge per-matrix PETSc SELLCUDA results (separate spmv_bench runs) into the main spmv_bench output.

usage: merge_sell.py MAIN.json MAIN.txt SELLDIR OUT.json OUT.txt [--timeout S]

MAIN.json/MAIN.txt: the main run (spmv_bench -json MAIN.json ... -sell_mode skip > MAIN.txt).
SELLDIR/<matrix>.json: `spmv_bench -matrices <matrix> -formats sellcuda -sell_mode inline -json ...` of one
matrix; SELLDIR/<matrix>.status: one line "<status> <exit code>" written by run_suite.sh, status one of
ok | timeout | error | skipped (then the rest of the line is the note).
The matrix's "petsc_sellcuda" entry in the JSON (same fields as spmv_bench writes) and its row in the
text tables (per-matrix table and the summary's "sellcu" column) are replaced.  Python 3 stdlib only."""
import json
import math
import os
import re
import sys

STATUS_RE = re.compile(r"^  (\S+)\s+(ok|error|skipped|timeout|not run)\s")


def gbs(nbytes, us):
    return nbytes / (us * 1e3) if us and us > 0 else 0.0


def fmt_e(v):
    """C's %10.2e for finite numbers, inf/nan as printf writes them."""
    if v is None:
        v = math.inf
    if math.isinf(v):
        return "%10s" % ("inf" if v > 0 else "-inf")
    if math.isnan(v):
        return "%10s" % "nan"
    return "%10.2e" % v


def table_row(f, csr_bytes):
    """The row spmv_bench prints for one format (same widths)."""
    err = f.get("rel_err")
    wrong = " !!WRONG" if f["status"] == "ok" and err is not None and err > 1e-12 else ""
    return "  %-20s %-8s %10.2f %10.2f %9.1f %9.1f %9.3f %s%s %s" % (
        f["name"], f["status"], f["cold_us"], f["hot_us"], gbs(csr_bytes, f["cold_us"]), gbs(csr_bytes, f["hot_us"]),
        f["conv_s"], fmt_e(err), wrong, f.get("note", ""))


def sell_entry(name, selldir, timeout, csr_bytes):
    """The petsc_sellcuda entry for matrix `name`, from SELLDIR."""
    st_file = os.path.join(selldir, name + ".status")
    js_file = os.path.join(selldir, name + ".json")
    status, rc, note = "error", "?", "no result"
    if os.path.exists(st_file):
        parts = open(st_file).read().strip().split(" ", 2)
        status = parts[0] if parts else "error"
        rc = parts[1] if len(parts) > 1 else "?"
        note = parts[2] if len(parts) > 2 else ""
    e = {"status": status, "note": note, "conv_s": 0.0, "hot_us": 0.0, "cold_us": 0.0, "gbs_hot": 0.0,
         "gbs_cold": 0.0, "rel_err": -1.0}
    if status == "timeout":
        e["note"] = "conversion+timing exceeded %g s (separate process, includes matrix generation)" % timeout
    elif status == "ok":
        try:
            d = json.load(open(js_file))
            m = [x for x in d["matrices"] if x["name"] == name]
            f = m[0]["formats"]["petsc_sellcuda"] if m else None
        except (OSError, ValueError, KeyError, IndexError) as ex:
            f, e["note"] = None, "unreadable result %s: %s" % (js_file, ex)
        if f is None:
            e["status"] = "error"
            e["note"] = e["note"] if e["note"] != note else "no petsc_sellcuda result for %s in %s" % (name, js_file)
        else:
            e.update(f)
            if e["status"] == "ok":
                e["note"] = (e.get("note") or "") + ("; " if e.get("note") else "") + "separate process (run_suite.sh)"
    elif status == "error" and not note:
        e["note"] = "spmv_bench exited with status %s" % rc
    # keep the gbs fields consistent with the times (as spmv_bench computes them)
    e["gbs_hot"] = gbs(csr_bytes, e["hot_us"])
    e["gbs_cold"] = gbs(csr_bytes, e["cold_us"])
    return e


def main():
    args = sys.argv[1:]
    timeout = 0.0
    if "--timeout" in args:
        i = args.index("--timeout")
        timeout = float(args[i + 1])
        del args[i:i + 2]
    if len(args) != 5:
        sys.exit(__doc__)
    main_json, main_txt, selldir, out_json, out_txt = args
    d = json.load(open(main_json))
    lines = open(main_txt).read().split("\n")
    sell = {}
    for m in d["matrices"]:
        e = sell_entry(m["name"], selldir, timeout, m["csr_bytes"])
        fm = m.setdefault("formats", {})
        fm["petsc_sellcuda"] = e  # replaces in place (same position) or appends
        sell[m["name"]] = e
    d["sellcuda_mode"] = "separate spmv_bench process per matrix, -sell_mode inline, timeout %g s (run_suite.sh)" % timeout

    # text: per-matrix tables.  A block starts at "# [ t s] <name>: ..." and its table at "  format ".
    out, cur, in_table, done = [], None, False, set()
    hdr = re.compile(r"^# \[\s*[\d.]+ s\] (\S+): ")

    def flush_row():
        if cur in sell and cur not in done:
            out.append(table_row(dict(sell[cur], name="petsc_sellcuda"), csr_of[cur]))
            done.add(cur)

    csr_of = {m["name"]: m["csr_bytes"] for m in d["matrices"]}
    for ln in lines:
        mh = hdr.match(ln)
        if mh:
            cur, in_table = mh.group(1), False
        elif cur and ln.startswith("  format "):
            in_table = True
        elif in_table:
            ms = STATUS_RE.match(ln)
            if ms:
                if ms.group(1) == "petsc_sellcuda":
                    flush_row()
                    continue
                if ms.group(1) == "cusparse_csr_best":  # spmv_bench prints petsc_sellcuda before it
                    flush_row()
            else:
                flush_row()
                in_table = False
        if ln.startswith("# summary"):
            cur = None
        out.append(ln)

    # text: the summary's "sellcu" column (9th field); widths as spmv_bench prints them
    widths = [-20, 9, 11, 8, 8, 8, 8, 8, 8, 8, 7, 7, 7]
    res, in_sum = [], False
    for ln in out:
        if ln.startswith("matrix ") and "sellcu" in ln:
            in_sum = True
        elif in_sum:
            t = ln.split()
            if len(t) == 13 and t[0] in sell:
                e = sell[t[0]]
                t[8] = "%.1f" % (e["gbs_cold"] if e["status"] == "ok" else 0.0)
                ln = " ".join(("%-*s" % (-w, s)) if w < 0 else ("%*s" % (w, s)) for w, s in zip(widths, t))
            elif not ln.strip() or ln.startswith("#"):
                in_sum = False
        res.append(ln)
    res.append("# petsc_sellcuda: %s" % d["sellcuda_mode"])
    for name, e in sell.items():
        res.append("#   %-20s %-8s %s" % (name, e["status"], e.get("note", "")))

    with open(out_json, "w") as fp:
        json.dump(d, fp, indent=2)
        fp.write("\n")
    with open(out_txt, "w") as fp:
        fp.write("\n".join(res).rstrip("\n") + "\n")
    print("merged SELLCUDA results of %d matrices: %s, %s" % (len(sell), out_json, out_txt))


if __name__ == "__main__":
    main()

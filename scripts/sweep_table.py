#!/usr/bin/env python3
"""Compact markdown table of an `nttbench run` JSON report of NTT cases: one
row per (log N, L), one column per (direction, tier, variant), medians in
microseconds; a last column pair gives the best-to-first-variant ratio.

Usage: scripts/sweep_table.py report.json [more.json ...]"""
import json
import sys


def main(paths):
    cells, variants, keys = {}, [], set()
    for path in paths:
        with open(path) as f:
            rep = json.load(f)
        for c in rep.get("cases", []):
            p = c.get("params", {})
            if "log_n" not in p or c.get("tier") not in ("warm", "cold"):
                continue
            v = c["variant"]
            if v not in variants:
                variants.append(v)
            med = (c.get("stats") or {}).get("median")
            key = (p["log_n"], p["limbs"], p["direction"][:3], c["tier"], v)
            cells[key] = med / 1e3 if c.get("status") == "ok" and med else None
            keys.add((p["log_n"], p["limbs"]))
    cols = [(d, t) for d in ("for", "inv") for t in ("warm", "cold")
            if any(k[2] == d and k[3] == t and x is not None for k, x in cells.items())]
    head = ["log N", "L"] + ["%s %s %s" % (d, t, v) for d, t in cols for v in variants]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * 2 + "---:|" * (len(head) - 2))
    for ln, lb in sorted(keys):
        row = [str(ln), str(lb)]
        for d, t in cols:
            vals = [cells.get((ln, lb, d, t, v)) for v in variants]
            ok = [x for x in vals if x is not None]
            best = min(ok) if ok else None
            for x in vals:
                s = "–" if x is None else "%.2f" % x
                row.append("**%s**" % s if x is not None and x == best and len(ok) > 1 else s)
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/env python3
"""Summarises Nsight Compute CSVs (docs/methodology.md, "Proof that cold is cold"): for each
variant and tier, the median L2 hit rate, L2 read hit rate and DRAM bytes read
of the timed NTT kernels (the 20 samples; the verified launch and the two
warm-up launches before them, and the verified launches after, are dropped).
Usage: ncu_summary.py DIR   (DIR holds ncu_<variant>_<tier>.csv, or .csv.gz)"""
import collections
import csv
import gzip
import io
import statistics
import sys

METRICS = (("lts__t_sector_hit_rate.pct", "L2 hit", "%.1f%%", 1),
           ("lts__t_sector_op_read_hit_rate.pct", "read hit", "%.1f%%", 1),
           ("dram__bytes_read.sum", "DRAM read", "%.3f MB", 1e-6),
           ("lts__t_sectors_op_read.sum", "L2 read sectors", "%.0f", 1))


def kernels(path):
    try:
        text = open(path, errors="replace").read()
    except OSError:
        try:
            text = gzip.open(path + ".gz", "rt", errors="replace").read()
        except OSError:
            return []
    start = text.find('"ID"')
    if start < 0:
        return []
    k = collections.OrderedDict()
    for r in csv.DictReader(io.StringIO(text[start:])):
        d = k.setdefault(r["ID"], {"name": r["Kernel Name"].split("(")[0]})
        try:
            d[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        except ValueError:
            pass
    return list(k.values())


def main(d):
    for v in ("gpu-regs", "gpu-smem"):
        for tier in ("warm", "cold"):
            ks = kernels(f"{d}/ncu_{v}_{tier}.csv")
            if not ks:
                print(f"ncu {v} {tier}: no CSV rows")
                continue
            per = max(1, len(ks) // 24)  # kernels per NTT launch
            timed = ks[3 * per: 23 * per]
            print(f"ncu {v} {tier}: {len(ks)} kernels, {per} per NTT, {len(timed)} timed")
            for name in dict.fromkeys(k["name"] for k in timed):
                g = [k for k in timed if k["name"] == name]
                cells = []
                for m, label, fmt, scale in METRICS:
                    vals = [k[m] for k in g if m in k]
                    if vals:
                        cells.append(f"{label} " + fmt % (statistics.median(vals) * scale))
                print(f"  {name[-56:]}: " + ", ".join(cells) + f" (n={len(g)})")


if __name__ == "__main__":
    main(sys.argv[1])

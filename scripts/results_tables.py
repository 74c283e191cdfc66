#!/usr/bin/env python3
"""Markdown tables of docs/results.md from the device run's reports.

  scripts/results_tables.py targets RESULTS.json   per-target table of the fastest
      GPU NTT against the open peers' figures (peer / 1.3), and the monotonicity check
  scripts/results_tables.py stage STAGE.json       stage tier: median, NTT share and
      the per-NTT warm / cold / in-stage comparison of every case (with a column for the
      set when the run has several; "-" where a step has no NTT time of its own)
  scripts/results_tables.py gpus STAGE.json        stage tier on several GPUs (--gpus):
      median per GPU count, its ratio to one GPU, and the communication figures (the
      exchanges' time, the waiting, the bytes moved and the most on one device pair)

Python 3 standard library only; reads `nttbench run --format json` reports (or gzipped)."""
import gzip
import json
import sys


def load(path):
    """A report's JSON; a path ending in .gz is read through gzip."""
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)

# Fastest open-library figure per shape (µs, H100 SXM, 60-bit primes, median
# per call), measured side by side with the same methodology: Phantom,
# Cheddar (64-bit mode) and GPU-NTT as HEonGPU calls it. The target is 1.3x
# faster than the fastest of them.
PEERS = [  # (log N, L, direction, tier, fastest peer µs)
    (15, 1, "forward", "warm", 9.3), (15, 1, "forward", "cold", 11.7),
    (16, 1, "forward", "warm", 9.8), (16, 1, "forward", "cold", 12.6),
    (16, 1, "inverse", "cold", 14.2), (17, 1, "forward", "cold", 16.7),
    (16, 8, "forward", "cold", 25.2), (16, 32, "forward", "warm", 57.2),
    (16, 32, "forward", "cold", 60.7), (16, 32, "inverse", "cold", 70.2),
    (16, 64, "forward", "cold", 106.5), (15, 32, "forward", "cold", 38.0),
    (17, 8, "forward", "cold", 41.3), (17, 32, "forward", "cold", 119.4),
]


def ntt_cells(path):
    """{(variant, log N, L, direction, tier): median µs} of the ok NTT cases."""
    cells = {}
    for c in load(path)["cases"]:
        p = c.get("params", {})
        if c.get("status") == "ok" and "log_n" in p and c.get("stats"):
            key = (c["variant"], p["log_n"], p["limbs"], p["direction"], c["tier"])
            cells[key] = c["stats"]["median"] / 1e3
    return cells


def best(cells, shape):
    """(variant, µs) of the fastest variant at shape (log N, L, dir, tier)."""
    found = [(t, v) for (v, *s), t in cells.items() if tuple(s) == shape]
    t, v = min(found)
    return v, t


def targets(path):
    cells = ntt_cells(path)
    print("| log N | L | direction | tier | fastest peer | target (peer / 1.3) | fastest here | µs | status |")
    print("|---:|---:|---|---|---:|---:|---|---:|---|")
    for ln, lb, d, t, peer in PEERS:
        v, us = best(cells, (ln, lb, d, t))
        ok = "met" if us <= peer / 1.3 else "missed"
        print(f"| {ln} | {lb} | {d} | {t} | {peer:.1f} | {peer / 1.3:.1f} | {v} | {us:.2f} | {ok} |")
    for (ln, lb, d, t, lim) in [(16, 32, "forward", "cold", 25.0), (16, 32, "forward", "warm", 22.0),
                                (16, 1, "forward", "cold", 6.0)]:
        v, us = best(cells, (ln, lb, d, t))
        ok = "met" if us <= lim else "missed"
        print(f"| {ln} | {lb} | {d} | {t} | – | {lim:.1f} | {v} | {us:.2f} | {ok} |")
    drops = {v: 0 for v in sorted({k[0] for k in cells})}
    for (v, ln, lb, d, t), us in cells.items():
        for nxt in ((v, ln + 1, lb, d, t), (v, ln, lb * 2, d, t)):
            drops[v] += nxt in cells and cells[nxt] < 0.98 * us
    print("\nNeighbouring cells where the time falls by more than 2 % as log N or L grows: " +
          ", ".join(f"{v} {n}" for v, n in drops.items()) + ".")


def stage(path):
    """One row per ok stage case; a column for the set when the run has several."""
    cases = [c for c in load(path)["cases"] if c.get("status") == "ok"]
    sets = len({c["params"]["preset"] for c in cases}) > 1
    print("| variant | " + ("set | " if sets else "") + "stage | median µs [95 % CI] | NTT limbs "
          "fwd+inv | NTT share | fwd ns/limb: in-stage / warm / cold | inv ns/limb: in-stage / "
          "warm / cold | steps / stage |")
    print("|---|" + ("---|" if sets else "") + "---|---:|---:|---:|---|---|---:|")
    for c in cases:
        m, s = c.get("metrics", {}), c["stats"]
        def trio(d):  # a figure the report has not (null: a fused step) prints as "-"
            return " / ".join("-" if m.get(k) is None else "%.0f" % m[k] for k in
                              (f"in_stage_{d}_ns_per_limb", f"warm_{d}_ns_per_limb", f"cold_{d}_ns_per_limb"))
        print(f"| {c['variant']} | " + (f"{c['params']['preset']} | " if sets else "") +
              f"{c['params']['stage']} | {s['median'] / 1e3:.1f} "
              f"[{s['median_ci95_lo'] / 1e3:.1f}, {s['median_ci95_hi'] / 1e3:.1f}] | "
              f"{m.get('ntt_fwd_limbs', 0):.0f}+{m.get('ntt_inv_limbs', 0):.0f} | "
              f"{100 * m.get('ntt_share', 0):.0f} % | {trio('fwd')} | {trio('inv')} | "
              f"{m.get('breakdown_vs_stage', float('nan')):.2f} |")


def gpus(path):
    """One row per (variant, preset, stage, GPU count)."""
    rows, one = [], {}
    for c in load(path)["cases"]:
        if c.get("status") != "ok":
            continue
        p, m = c["params"], c.get("metrics", {})
        key = (c["variant"], p["preset"], p["stage"])
        g = p.get("gpus", 1)
        if g == 1:
            one[key] = c["stats"]["median"]
        rows.append((key, g, c["stats"], m))
    print("| variant | set | stage | GPUs | median µs [95 % CI] | vs 1 GPU | exchanges µs "
          "(first GPU) | waiting for them µs (share) | under compute µs | moved MiB (most "
          "per device pair) |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for key, g, s, m in sorted(rows, key=lambda r: (r[0], r[1])):
        ratio = f"{s['median'] / one[key]:.2f}x" if key in one else "-"
        comm = (f"{m['comm_ns'] / 1e3:.1f} | {m['comm_exposed_ns'] / 1e3:.1f} "
                f"({100 * m.get('comm_share', 0):.0f} %) | {m['comm_overlap_ns'] / 1e3:.1f}"
                if "comm_ns" in m else "- | - | -")
        moved = (f"{m['comm_bytes'] / 2**20:.1f} ({m['comm_link_bytes'] / 2**20:.1f})"
                 if "comm_bytes" in m else "-")
        ci = f"[{s['median_ci95_lo'] / 1e3:.1f}, {s['median_ci95_hi'] / 1e3:.1f}]"
        print(f"| {key[0]} | {key[1]} | {key[2]} | {g} | {s['median'] / 1e3:.1f} {ci} | {ratio} "
              f"| {comm} | {moved} |")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("targets", "stage", "gpus"):
        sys.exit(__doc__)
    {"targets": targets, "stage": stage, "gpus": gpus}[sys.argv[1]](sys.argv[2])

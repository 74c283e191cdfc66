"""The bound roofline of scripts/plot: every timed GPU NTT case of a run report as a point
(butterflies per coefficient byte, butterflies per second) under the roofs of its ceilings, the
copy bandwidth (a slope: bytes per second times butterflies per byte) and the butterfly ceiling
of its word size (flat), its marker the case's bound class. The ceilings are the report's
"ceilings" block, else those `nttbench report` uses for a file without one: the run's copy
bandwidth and the H100 calibration scaled by SMs x clock (bench/report/bound.c,
docs/methodology.md "Bounds"). The class is the case's recorded "bound", else the same rule:
the largest of the fractions of the copy bandwidth, the butterfly ceiling and the launch floor
when it is at least one half, latency-bound otherwise."""
import matplotlib.pyplot as plt

REF_SM_MHZ = 132 * 1980.0  # the H100 the defaults were measured on: SMs x default clock
REF_BFLY = {64: 877.1e9, 32: 2648.2e9}
REF_LAUNCH_NS, REF_BOUNDARY_NS = 3136.0, 800.0
THRESHOLD = 0.5
CLASS_MARKERS = {"compute-bound": "o", "memory-bound": "s", "launch-bound": "^",
                 "latency-bound": "X", "unknown": "."}


def ceilings(doc):
    """The report's ceilings, else the defaults for its GPU; None for a run without a GPU."""
    if isinstance(doc.get("ceilings"), dict):
        return doc["ceilings"]
    gpu = (doc.get("environment") or {}).get("gpu")
    if not isinstance(gpu, dict):
        return None
    scale = (gpu.get("sm_count") or 0) * (gpu.get("default_sm_clock_mhz") or 0) / REF_SM_MHZ
    return {"copy_bandwidth_Bps": gpu.get("copy_bandwidth_Bps"), "copy_source": "run",
            "butterflies_per_s": REF_BFLY[64] * scale or None,
            "butterflies32_per_s": REF_BFLY[32] * scale or None, "butterfly_source": "default",
            "launch_ns": REF_LAUNCH_NS, "kernel_boundary_ns": REF_BOUNDARY_NS}


def bound_class(case, ceil, bfly, nbytes, t_s, word):
    """The case's recorded class, else the rule of nb_bound_classify."""
    b = case.get("bound")
    if isinstance(b, dict) and b.get("class"):
        return b["class"]
    launches = sum(k.get("launches", 0) for k in case.get("kernels") or []) or 1
    copy = ceil.get("copy_bandwidth_Bps")
    top = ceil.get("butterflies_per_s" if word == 64 else "butterflies32_per_s")
    launch = ceil.get("launch_ns")
    fr = {"memory-bound": nbytes / copy / t_s if copy else None,
          "compute-bound": bfly / top / t_s if top else None,
          "launch-bound": (launch + (launches - 1) * (ceil.get("kernel_boundary_ns") or 0)) * 1e-9 / t_s
          if launch else None}
    known = [(k, v) for k, v in fr.items() if v is not None]
    if not known:
        return "unknown"
    cls, best = max(known, key=lambda kv: kv[1])
    return cls if best >= THRESHOLD else "latency-bound"


def bound_roofline(doc, style, device):
    """{"roofline-bounds": figure} for a report with timed GPU NTT cases, else {}."""
    ceil = ceilings(doc)
    cases = [c for c in doc.get("cases", []) if c.get("backend") == "gpu" and c.get("status") == "ok"
             and c.get("tier") in ("warm", "cold") and (c.get("stats") or {}).get("median")]
    if not ceil or not cases:
        return {}
    fig, ax = plt.subplots(figsize=(9, 5.5), constrained_layout=True)
    variants = list(dict.fromkeys(c["variant"] for c in cases))
    xs, words, seen = [], set(), set()
    for c in cases:
        p = c["params"]
        w = p.get("word_bits", 64)
        n = 2.0 ** p["log_n"]
        bfly, nbytes = n / 2 * p["log_n"] * p["limbs"], 2 * (w // 8) * n * p["limbs"]
        t_s = c["stats"]["median"] * 1e-9
        cls = bound_class(c, ceil, bfly, nbytes, t_s, w)
        colour = style(variants.index(c["variant"]))[0]
        key = (c["variant"], cls)
        ax.plot([bfly / nbytes], [bfly / t_s / 1e9], linestyle="none", marker=CLASS_MARKERS.get(cls, "."),
                color=colour, markerfacecolor=colour if c["tier"] == "warm" else "none", markersize=6,
                label=None if key in seen else f"{c['variant']}, {cls}",
                gid=f"case|{c['variant']}|{c['tier']}|{c['label']}|{cls}")
        seen.add(key)
        xs.append(bfly / nbytes)
        words.add(w)
    lo, hi = min(xs) / 2, max(xs) * 2
    grid = [lo * (hi / lo) ** (i / 64) for i in range(65)]
    copy = ceil.get("copy_bandwidth_Bps")
    for w in sorted(words, reverse=True):
        top = ceil.get("butterflies_per_s" if w == 64 else "butterflies32_per_s")
        if not copy and not top:
            continue
        roof = [min(v for v in (x * copy if copy else None, top) if v) / 1e9 for x in grid]
        ax.plot(grid, roof, color="0.3", linestyle="-" if w == 64 else "--", linewidth=1.2,
                label=f"roof, {w}-bit words: min(copy bandwidth x intensity, butterfly ceiling)",
                gid=f"roof|{w}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("butterflies per coefficient byte (log N / 4W, W = bytes per word)")
    ax.set_ylabel("butterflies per second, median [G/s]")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    src = f"copy: {ceil.get('copy_source', '?')}, butterflies: {ceil.get('butterfly_source', '?')}"
    fig.suptitle(f"NTT cases against the copy-bandwidth and butterfly ceilings ({src})\n"
                 f"{device(doc)}; filled: warm, hollow: cold; marker: bound class")
    return {"roofline-bounds": fig}

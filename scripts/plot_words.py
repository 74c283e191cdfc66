"""The word-size figure of scripts/plot: every timed stage case on 32-bit words beside its
64-bit twin at the nearest log Q, each bar's label naming it (the set X-w32 against X or
X-w64, the same stage, rounding, mode, cache state and GPU count), as horizontal bars of the
median stage time split by the breakdown's NTT and base conversion shares, with the 32-bit
over 64-bit ratio."""
import math

import matplotlib.pyplot as plt


def median_ns(case):
    return case["stats"]["median"]


def gpus_of(case):
    """The GPUs a stage case ran on (1 when it does not say)."""
    g = case["params"].get("gpus", 1)
    return g if isinstance(g, (int, float)) and g > 1 else 1


def word_pairs(doc):
    """[(stage label, case 64, case 32)]: stage cases on 32-bit words beside their 64-bit twins
    (preset X-w32 with X or X-w64, same stage, rounding, mode, cache state and GPU count, nearest
    log Q within one prime's bits: the larger positive prime_bits of the two, 62 when neither
    records one), as the table writer and `compare --match word` pair them."""
    cases = [c for c in doc.get("cases", []) if c.get("tier") == "stage"
             and c.get("status") == "ok" and c.get("metrics")]
    out = []
    for c32 in [c for c in cases if c["params"].get("word_bits") == 32]:
        p32, (best, best_d) = c32["params"], (None, float("inf"))
        base = p32.get("preset", "")[:-4] if p32.get("preset", "").endswith("-w32") else None
        for c in cases:
            p = c["params"]
            if (p.get("word_bits") != 64 or c.get("cache_state") != c32.get("cache_state")
                    or base is None or p.get("preset") not in (base, base + "-w64")
                    or any(p.get(k) != p32.get(k) for k in ("stage", "rounding", "mode"))
                    or gpus_of(c) != gpus_of(c32)):
                continue
            d = abs(p.get("log_q", 0) - p32.get("log_q", 0))
            bits = [b for b in (p.get("prime_bits"), p32.get("prime_bits"))
                    if isinstance(b, (int, float)) and math.isfinite(b) and b > 0]
            if d <= (max(bits) if bits else 62) and d < best_d:
                best, best_d = c, d
        if best:
            label = p32.get("stage", c32["label"]) + (" " + p32["rounding"] if p32.get("rounding") else "")
            out.append((label, best, c32))
    return out


def stage_words(doc, style, device):
    pairs = word_pairs(doc)
    if not pairs:
        return {}
    fig, ax = plt.subplots(figsize=(10, 0.9 * len(pairs) + 2.2), constrained_layout=True)
    parts = (("NTT", "ntt_share", style(0)[0], "//"), ("base conversion", "conv_share", style(1)[0], None),
             ("the rest", None, style(2)[0], None))
    ticks = []  # (y, label)
    for i, (label, c64, c32) in enumerate(pairs):
        for k, c in enumerate((c64, c32)):
            y = 2.4 * i + k
            total = median_ns(c) / 1e3
            m, left = c.get("metrics") or {}, 0.0
            for name, key, colour, hatch in parts:
                share = (m.get(key) or 0.0) if key else max(0.0, 1.0 - (m.get("ntt_share") or 0.0)
                                                             - (m.get("conv_share") or 0.0))
                ax.barh(y, total * share, left=left, color=colour, hatch=hatch, edgecolor="white",
                        linewidth=0.5, label=name, gid=f"word|{label}|{c['params'].get('word_bits')}|{name}")
                left += total * share
            ax.text(left, y, f" {total:.0f} µs" + (f"  ({median_ns(c32) / median_ns(c64):.2f}x)" if k else ""),
                    va="center", fontsize=7)
            lq = c["params"].get("log_q")
            ticks.append((y, f"{label} · {c['variant']} ({c['params'].get('word_bits')}-bit"
                             + (f", log Q {lq:.0f})" if isinstance(lq, (int, float)) else ")")))
    ax.set_yticks([t[0] for t in ticks], [t[1] for t in ticks], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("median stage time [µs], split by the breakdown's shares (ratio: 32-bit / 64-bit)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_xlim(0, ax.get_xlim()[1] * 1.2)
    uniq = {lab: h for h, lab in zip(*ax.get_legend_handles_labels())}
    ax.legend(uniq.values(), uniq.keys(), loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    presets = sorted({c["params"].get("preset", "") for _, a, b in pairs for c in (a, b)})
    fig.suptitle(f"CKKS stages on 64-bit and 32-bit words at the nearest log Q\n{device(doc)}; "
                 f"sets {', '.join(presets)}; stage tier")
    return {"stage-words": fig}

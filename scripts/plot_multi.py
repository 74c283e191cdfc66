"""The several-GPU figure of scripts/plot: every timed stage case of a run report that ran on
more than one GPU, and the one-GPU cases of the same stages, as the stage's median time against
the GPU count (one line per variant, preset and stage: log-log axes, the ideal 1/G scaling
dotted from the one-GPU point), and beside it, per case on several GPUs, the share of the stage
spent waiting for exchanges ("exposed" communication: the breakdown's `comm` step) and the share
of the exchanges' own time that compute covered (comm_overlap_ns over the stage median)."""
import matplotlib.pyplot as plt


def gpus_of(case):
    return int(case["params"].get("gpus", 1))


def stage_gpus(doc, style, device):
    cases = [c for c in doc.get("cases", []) if c.get("tier") == "stage" and c.get("status") == "ok"
             and isinstance(c.get("stats"), dict)]
    if not any(gpus_of(c) > 1 for c in cases):
        return {}
    series = {}
    for c in cases:
        p = c["params"]
        key = (c["variant"], p.get("preset", ""), p.get("stage", c["label"]))
        series.setdefault(key, []).append((gpus_of(c), c["stats"]["median"] / 1e3, c))
    series = {k: sorted(v, key=lambda t: t[0]) for k, v in series.items() if len(v) > 1}
    if not series:
        return {}
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 5.2), constrained_layout=True)
    for i, ((variant, preset, stage), pts) in enumerate(sorted(series.items())):
        colour, marker = style(i)
        g = [x for x, _, _ in pts]
        t = [y for _, y, _ in pts]
        ax.plot(g, t, marker=marker, color=colour, label=f"{stage} · {preset} · {variant}",
                gid=f"gpus|{variant}|{preset}|{stage}")
        if g[0] == 1:
            ax.plot(g, [t[0] / x for x in g], ":", color=colour, linewidth=0.8)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(plt.matplotlib.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xticks(sorted({x for pts in series.values() for x, _, _ in pts}))
    ax.get_xaxis().set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlabel("GPUs (limbs of Q and P split across them)")
    ax.set_ylabel("stage median [µs] (dotted: 1/G from one GPU)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    labels, exposed, covered = [], [], []
    for (variant, preset, stage), pts in sorted(series.items()):
        for g, t, c in pts:
            if g < 2:
                continue
            m = c.get("metrics", {})
            labels.append(f"{stage} {preset} {variant} ×{g}")
            exposed.append(100.0 * m.get("comm_share", 0.0))
            covered.append(100.0 * m.get("comm_overlap_ns", 0.0) / (t * 1e3) if t > 0 else 0.0)
    y = range(len(labels))
    bx.barh([v - 0.2 for v in y], exposed, height=0.4, color="#D55E00",
            label="waiting for exchanges (exposed)", gid="comm|exposed")
    bx.barh([v + 0.2 for v in y], covered, height=0.4, color="#009E73",
            label="exchanges under compute (overlapped)", gid="comm|overlap")
    bx.set_yticks(list(y))
    bx.set_yticklabels(labels, fontsize=7)
    bx.invert_yaxis()
    bx.set_xlabel("share of the stage median [%]")
    bx.grid(True, axis="x", alpha=0.3)
    bx.legend(fontsize=7, loc="lower right")
    fig.suptitle(f"CKKS stages on several GPUs\n{device(doc)}; stage tier, cold (every GPU's L2 "
                 "evicted, inputs rotated)")
    return {"stage-gpus": fig}

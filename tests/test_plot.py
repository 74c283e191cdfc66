"""Test of scripts/plot: renders every figure from the result files in tests/data, checks
that each PNG and SVG exists and is well-formed, and that the values drawn (read back from
the figure objects) equal the medians of the input files, recomputed here independently;
the time-against-log-Q figure from a synthetic version-4 report with two word sizes, and
none from the older files; the bound roofline's points and classes.
Exits 77 (skip) when matplotlib is not installed.
usage: test_plot.py SCRIPTS_PLOT DATA_DIR"""
import gzip
import importlib.machinery
import importlib.util
import json
import math
import os
import sys
import tempfile

from plot_env import finish, require_matplotlib

require_matplotlib(__file__, "the plot test")

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def load_module(path):
    loader = importlib.machinery.SourceFileLoader("nb_plot", path)
    spec = importlib.util.spec_from_loader("nb_plot", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def artists(fig):
    for ax in fig.axes:
        for line in ax.get_lines():
            yield line
        for patch in ax.patches:
            yield patch


def check_roofline(fig, doc, xkey, fixed):
    """Lines 'time|variant|tier' and 'bandwidth|variant|tier' against the file's medians."""
    seen = 0
    for a in artists(fig):
        gid = a.get_gid() or ""
        kind, _, rest = gid.partition("|")
        if kind not in ("time", "bandwidth"):
            continue
        variant, tier = rest.split("|")
        want = {}
        for c in doc["cases"]:
            p = c["params"]
            if c["variant"] == variant and c["tier"] == tier and c["status"] == "ok" \
                    and p["direction"] == "forward" and all(p[k] == v for k, v in fixed.items()):
                med = c["stats"]["median"]
                want.setdefault(p[xkey], med / 1e3 if kind == "time"
                                else c["figures"]["coefficient_bytes"] / (med * 1e-9) / 1e9)
        xs, ys = list(a.get_xdata()), list(a.get_ydata())
        check(xs == sorted(want), f"{gid}: x {xs} != {sorted(want)}")
        check(all(close(y, want[x]) for x, y in zip(xs, ys)), f"{gid}: values differ from medians")
        seen += 1
    return seen


def word_doc():
    """A version-4 report: cpu-harvey (64-bit) and cpu-harvey32 (32-bit) at three log Q, warm."""
    cases = []
    for v, w, bits in (("cpu-harvey", 64, 60), ("cpu-harvey32", 32, 31)):
        for k, limbs in enumerate((1, 2, 4)):
            lq = round(limbs * (bits - 1e-6), 1)
            cases.append({"tier": "warm", "variant": v, "backend": "cpu", "label": f"L={limbs}",
                          "status": "ok", "mode": "per-launch", "stats": {"median": 1000.0 * (k + 1) * (w / 32)},
                          "figures": {"coefficient_bytes": 2 * w / 8 * 1024 * limbs},
                          "params": {"direction": "forward", "log_n": 10, "n": 1024, "limbs": limbs,
                                     "prime_bits": bits, "word_bits": w, "log_q": lq}})
    return {"schema": "nttbench-report", "schema_version": 4, "cases": cases,
            "environment": {"host": {"cpu": "AMD EPYC"}, "gpu": None}, "_path": "word.json"}


def check_logq(mod):
    doc = word_doc()
    figs = mod.figures([doc])
    check("time-logq-forward-warm-logn10" in figs, "time-logq figure for two word sizes")
    check(not any(n.startswith("time-logq-forward-cold") for n in figs), "no cold figure without cold cases")
    lines = {l.get_gid(): l for l in figs["time-logq-forward-warm-logn10"].axes[0].get_lines()
             if (l.get_gid() or "").startswith("logq|")}
    check(sorted(lines) == ["logq|cpu-harvey32|32", "logq|cpu-harvey|64"], f"lines {sorted(lines)}")
    for gid, line in lines.items():
        _, v, w = gid.split("|")
        want = sorted((c["params"]["log_q"], c["stats"]["median"] / 1e3) for c in doc["cases"]
                      if c["variant"] == v and c["params"]["word_bits"] == int(w))
        check(list(line.get_xdata()) == [x for x, _ in want], f"{gid}: x is log Q")
        check(all(close(y, t) for y, (_, t) in zip(line.get_ydata(), want)), f"{gid}: medians")
        check(line.get_linestyle() == ("--" if w == "32" else "-"), f"{gid}: style of the word size")
    title = figs["time-logq-forward-warm-logn10"]._suptitle.get_text()
    check("64-bit words solid, 32-bit words dashed" in title, f"title names both styles: {title!r}")
    # Guards: a variant run at two prime sizes was one zig-zag line; now a line per size, named
    mixed = {**doc, "cases": doc["cases"] + [
        {**c, "params": {**c["params"], "prime_bits": 30, "log_q": c["params"]["log_q"] - 1.0}}
        for c in doc["cases"] if c["params"]["word_bits"] == 32]}
    mixed_lines = sorted(l.get_gid() for l in
                         mod.figures([mixed])["time-logq-forward-warm-logn10"].axes[0].get_lines()
                         if (l.get_gid() or "").startswith("logq|"))
    check(mixed_lines == ["logq|cpu-harvey32|32|q30", "logq|cpu-harvey32|32|q31",
                          "logq|cpu-harvey|64"], f"lines per prime size {mixed_lines}")
    # one word size: the title names that one only; a span of 1.2 decades around one power of
    # ten (0.4 to 6 ms, where matplotlib labels 10^3 alone) has labels between them too
    one = {**doc, "cases": [dict(c, stats={"median": m}) for c, m in
                            zip([c for c in doc["cases"] if c["params"]["word_bits"] == 64],
                                (4e5, 1.5e6, 6e6))]}
    fig = mod.figures([one])["time-logq-forward-warm-logn10"]
    title = fig._suptitle.get_text()
    check("64-bit words solid" in title and "32-bit" not in title, f"one word size: {title!r}")
    fig.canvas.draw()
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels(minor=False) + ax.get_yticklabels(minor=True)
              if t.get_text() and ax.get_ylim()[0] <= t.get_position()[1] <= ax.get_ylim()[1]]
    check(len(labels) >= 2, f"a y range of about a decade is labelled more than once: {labels}")


def check_bounds(mod, data):
    """The bound roofline of the recorded H100 cases: one point per case at (butterflies per
    byte, butterflies per second), its class the one `nttbench report` gives the same file
    (tests/test_bench_paper_cli.c), under the 64-bit roof of the default ceilings."""
    doc = mod.load(os.path.join(data, "ntt-h100-bounds.json"))
    fig = mod.figures([doc])["roofline-bounds"]
    want = {("gpu-fast", "inv logn=17 L=32 q60"): "compute-bound",
            ("gpu-fast", "fwd logn=12 L=1 q60"): "launch-bound",
            ("gpu-smem", "inv logn=17 L=64 q60"): "latency-bound",
            ("gpu-radix2", "fwd logn=16 L=8 q60"): "latency-bound",
            ("gpu-regs", "inv logn=17 L=64 q60"): "compute-bound"}
    points = [l for l in fig.axes[0].get_lines() if (l.get_gid() or "").startswith("case|")]
    check(len(points) == len(want), f"{len(points)} points, expected {len(want)}")
    for line in points:
        _, v, tier, label, cls = line.get_gid().split("|")
        check(want.get((v, label)) == cls, f"{v} {label}: {cls}, expected {want.get((v, label))}")
        c = next(c for c in doc["cases"] if c["variant"] == v and c["label"] == label)
        p = c["params"]
        bfly = 2 ** p["log_n"] / 2 * p["log_n"] * p["limbs"]
        check(close(line.get_xdata()[0], p["log_n"] / 32), f"{v} {label}: butterflies per byte")
        check(close(line.get_ydata()[0], bfly / c["stats"]["median"]), f"{v} {label}: G/s")
    roof = [l for l in fig.axes[0].get_lines() if l.get_gid() == "roof|64"]
    check(len(roof) == 1 and close(max(roof[0].get_ydata()), 877.1), "the 64-bit roof at 877.1 G/s")


def check_gpus(mod, data):
    """The several-GPU figure of a recorded H100 run (1, 2 and 4 GPUs): one line per stage at
    (GPU count, stage median), and per case on several GPUs the exposed share of communication
    (the breakdown's comm step) and the overlapped share (comm_overlap_ns over the median)."""
    doc = mod.load(os.path.join(data, "stage-h100-gpus.json"))
    fig = mod.figures([doc])["stage-gpus"]
    lines = {l.get_gid(): l for l in fig.axes[0].get_lines() if (l.get_gid() or "").startswith("gpus|")}
    check(set(lines) == {"gpus|gpu-fast|ckks16-l30-d3|keyswitch", "gpus|gpu-fast|ckks16-l30-d3|modup"},
          f"lines {sorted(lines)}")
    for gid, line in lines.items():
        stage = gid.split("|")[3]
        want = sorted((c["params"].get("gpus", 1), c["stats"]["median"] / 1e3) for c in doc["cases"]
                      if c["params"]["stage"] == stage)
        check(list(line.get_xdata()) == [g for g, _ in want], f"{gid}: x is the GPU count")
        check(all(close(y, t) for y, (_, t) in zip(line.get_ydata(), want)), f"{gid}: medians")
    bars = [a for a in artists(fig) if a.get_gid() in ("comm|exposed", "comm|overlap")]
    several = [c for c in doc["cases"] if c["params"].get("gpus", 1) > 1]
    exposed = sorted(a.get_width() for a in bars if a.get_gid() == "comm|exposed")
    check(len(exposed) == len(several), f"{len(exposed)} exposed bars, expected {len(several)}")
    check(all(close(w, t) for w, t in zip(exposed, sorted(100 * c["metrics"]["comm_share"]
                                                          for c in several))), "exposed shares")
    overlap = sorted(a.get_width() for a in bars if a.get_gid() == "comm|overlap")
    check(all(close(w, t) for w, t in zip(overlap, sorted(
        100 * c["metrics"]["comm_overlap_ns"] / c["stats"]["median"] for c in several))),
        "overlapped shares")


def check_words(mod, data):
    """The word-size figure: a 32-bit stage case beside its 64-bit twin (set X-w32 against X, the
    same stage and GPU count, log Q within one prime: 62 bits when no prime size is recorded) as
    bars of the median split by the NTT and base-conversion shares; a 32-bit case without a twin
    (another stage, or the same on two GPUs) draws nothing."""
    doc = mod.load(os.path.join(data, "stage-h100-small.json"))
    base = [c for c in doc["cases"] if c["variant"] == "gpu-regs"]
    c64 = json.loads(json.dumps(base[0]))
    c64["params"].update(word_bits=64, log_q=1592.0)
    c64["metrics"]["conv_share"] = 0.30
    c32 = json.loads(json.dumps(c64))
    c32["variant"] = "gpu-x32"
    c32["params"].update(preset=c64["params"]["preset"] + "-w32", word_bits=32, log_q=1590.0)
    c32["stats"]["median"] = 0.7 * c64["stats"]["median"]
    c32["metrics"].update(ntt_share=0.6, conv_share=0.25)
    lone = json.loads(json.dumps(c32))
    lone["params"]["stage"] = "rescale"
    split = json.loads(json.dumps(c32))  # its twin ran on one GPU: no pair
    split["params"]["gpus"] = 2
    split["stats"]["median"] = 0.4 * c64["stats"]["median"]
    doc["cases"] = [c64, c32, lone, split]
    fig = mod.figures([doc])["stage-words"]
    bars = {a.get_gid(): a.get_width() for a in artists(fig)
            if (a.get_gid() or "").startswith("word|")}
    stage = c64["params"]["stage"]
    check(len(bars) == 6 and all(g.split("|")[1] == stage for g in bars),
          f"two cases of three parts each: {bars}")
    for c in (c64, c32):
        m, total, bits = c["metrics"], c["stats"]["median"] / 1e3, c["params"]["word_bits"]
        want = {"NTT": m["ntt_share"], "base conversion": m["conv_share"],
                "the rest": 1 - m["ntt_share"] - m["conv_share"]}
        for name, share in want.items():
            gid = f"word|{stage}|{bits}|{name}"
            check(gid in bars and close(bars[gid], total * share), f"{gid}: {bars.get(gid)}")
    texts = [t.get_text() for t in fig.axes[0].texts]
    check(any("(0.70x)" in t for t in texts), f"the 32-bit over 64-bit ratio: {texts}")
    check(not any("(0.40x)" in t for t in texts), f"a 2-GPU case paired with a 1-GPU one: {texts}")


def main():
    plot_path, data = sys.argv[1], sys.argv[2]
    files = [os.path.join(data, f) for f in ("ntt-h100-small.json", "stage-h100-small.json",
                                             "calibrate-h100.json", "ntt-cpu-logn.json")]
    mod = load_module(plot_path)
    with tempfile.TemporaryDirectory() as out:
        check(mod.main(files + ["--out", out]) == 0, "plot failed")
        names = sorted(os.listdir(out))
        for fig in ("roofline-limbs-forward-logn16", "roofline-logn-forward-L4",
                    "ntt-warm-cold-instage", "stage-breakdown", "calibrate-hot-cold"):
            for ext in ("png", "svg"):
                path = os.path.join(out, f"{fig}.{ext}")
                check(os.path.getsize(path) > 1000 if os.path.exists(path) else False, f"{path} missing")
            with open(os.path.join(out, fig + ".png"), "rb") as f:
                check(f.read(8) == b"\x89PNG\r\n\x1a\n", f"{fig}.png is not a PNG")
            with open(os.path.join(out, fig + ".svg")) as f:
                check("<svg" in f.read(2000), f"{fig}.svg is not an SVG")
        check(len(names) % 2 == 0, "every figure in both formats")
        # three files with one name stem: every figure of each kept, none overwritten
        same = []
        for k in range(3):
            sub = os.path.join(out, f"d{k}")
            os.makedirs(sub)
            same.append(os.path.join(sub, "run.json"))
            with open(files[0]) as src, open(same[-1], "w") as dst:
                dst.write(src.read())
        three = os.path.join(out, "three")
        check(mod.main(same + ["--out", three]) == 0, "plot of three files named alike failed")
        one = len(os.listdir(os.path.join(out, "one"))) if mod.main(
            [same[0], "--out", os.path.join(out, "one")]) == 0 else 0
        check(one > 0 and len(os.listdir(three)) == 3 * one,
              f"{len(os.listdir(three))} figure files from three files named alike, want 3 x {one}")
        bad = os.path.join(out, "bad.json")
        with open(bad, "w") as f:
            f.write('{"schema": "nttbench-verify"}')
        check(mod.main([bad, "--out", out]) == 2, "a wrong-schema file is refused with exit 2")

    docs = [mod.load(p) for p in files]
    figs = mod.figures(docs)
    ntt, stage, calib, cpu = [json.load(open(p)) for p in files]
    check(check_roofline(figs["roofline-limbs-forward-logn16"], ntt, "limbs", {"log_n": 16}) == 12,
          "6 time + 6 bandwidth lines (3 variants x warm, cold)")
    check(check_roofline(figs["roofline-logn-forward-L4"], cpu, "log_n", {"limbs": 4}) == 4,
          "2 time + 2 bandwidth lines against log N")

    bars = {a.get_gid(): a.get_height() for a in artists(figs["ntt-warm-cold-instage"])
            if (a.get_gid() or "").startswith("bar|")}
    n_bars = 0
    for c in stage["cases"]:
        m, st = c["metrics"], c["params"]["stage"]
        for d, tag in (("forward", "fwd"), ("inverse", "inv")):
            for name, key in ((f"in {st}", f"in_stage_{tag}_ns_per_limb"), ("warm", f"warm_{tag}_ns_per_limb"),
                              ("cold", f"cold_{tag}_ns_per_limb")):
                gid = f"bar|{d}|{c['variant']}|{name}"
                check(gid in bars and close(bars[gid], m[key] / 1e3), f"{gid} != {m[key]}")
                n_bars += gid in bars
    check(len(bars) == 2 * 3 * 6, f"{len(bars)} bars, expected 36 (2 directions x 3 variants x 6)")
    clipped = [t.get_text() for a in figs["ntt-warm-cold-instage"].axes for t in a.texts]
    check(clipped and all(t.endswith(" µs") for t in clipped), f"clipped bars carry a unit: {clipped}")
    legend = [t.get_text() for t in figs["roofline-limbs-forward-logn16"].legends[0].get_texts()]
    check(legend.count("copy-bandwidth floor") == 1 and "measured copy bandwidth" not in legend,
          f"the copy bandwidth once in the roofline legend: {legend}")

    widths = {a.get_gid(): a.get_width() for a in artists(figs["stage-breakdown"])
              if (a.get_gid() or "").startswith("step|")}
    for c in stage["cases"]:
        for s in c["breakdown"]["steps"]:
            gid = f"step|{c['variant']}|{c['params']['stage']}|{s['name']}"
            check(gid in widths and close(widths[gid], s["median_ns"] / 1e3), f"{gid} width")
    check(len(widths) == sum(len(c["breakdown"]["steps"]) for c in stage["cases"]), "one bar per step")

    lines = {l.get_gid(): l for l in figs["calibrate-hot-cold"].axes[1].get_lines() if l.get_gid()}
    gap = lines.get("calib|gap")
    rows = calib["hot_cold_copy"]
    check(gap is not None and all(close(y, 100 * r["cold_over_hot_minus_1"]) for y, r in zip(gap.get_ydata(), rows))
          and len(gap.get_ydata()) == len(rows), "calibrate gap values")
    check(all(close(x, r["working_set_bytes"] / 2**20) for x, r in zip(gap.get_xdata(), rows)), "working sets")
    for f in figs.values():
        title = f._suptitle.get_text() if f._suptitle else ""
        check(("H100" in title or "EPYC" in title or "Xeon" in title), f"device in title: {title!r}")

    check(not any(n.startswith("time-logq") for n in figs), "no log-Q figure from files without log_q")
    check_logq(mod)
    check_bounds(mod, data)
    check_gpus(mod, data)
    check_words(mod, data)
    return finish(failures, "scripts/plot figures")


if __name__ == "__main__":
    sys.exit(main())

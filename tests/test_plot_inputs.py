"""Bad and doubtful inputs of scripts/plot, run as a user runs it: each case gives the
expected exit code and exactly one line on stderr ("plot: error: ..." or "plot: warning: ..."),
never a traceback. Exits 77 (skip) when matplotlib is not installed.
Each case is a row (what, command, exit code, message) of TABLE, which scripts/reliability-table
puts into docs/reliability.md.
usage: test_plot_inputs.py SCRIPTS_PLOT DATA_DIR [TABLE]"""
import copy
import gzip
import json
import os
import subprocess
import sys
import tempfile

from plot_env import finish, require_matplotlib

require_matplotlib(__file__, "the plot input test")

failures = []
rows = []


def plot(script, args):
    p = subprocess.run([sys.executable, script] + args, capture_output=True, text=True)
    return p.returncode, p.stderr


def expect(script, what, args, code, kind, needle, hide=()):
    """Exit `code` and one stderr line 'plot: KIND: ...' containing needle; the row is kept
    with each path of `hide` written as its key."""
    rc, err = plot(script, args)
    lines = err.splitlines()
    if rc != code or len(lines) != 1 or not lines[0].startswith(f"plot: {kind}: ") \
            or needle not in lines[0]:
        failures.append(f"{what}: exit {rc} (want {code}), stderr:\n{err}"
                        f"(want one '{kind}' line containing {needle!r})")
        return
    cmd, msg = " ".join(["scripts/plot"] + args), lines[0][len("plot: "):]
    if kind == "error":
        msg = msg[len("error: "):]
    for path, key in hide:
        cmd, msg = cmd.replace(path, key), msg.replace(path, key)
    rows.append(f"{what}\t{cmd}\t{rc}\t{msg}\n")


def write(tmp, name, doc):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def main():
    script, data = sys.argv[1], sys.argv[2]
    with open(os.path.join(data, "ntt-cpu-logn.json")) as f:
        base = json.load(f)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "figs")
        H = ((tmp, "DIR"), (data, "DATA"))

        doc = copy.deepcopy(base)
        doc.update(complete=False, cases_planned=len(doc["cases"]) + 3)
        expect(script, "incomplete file", [write(tmp, "partial.json", doc), "--out", out], 0,
               "warning", f"incomplete: its run had not finished when it was written "
               f"({len(doc['cases'])} of {len(doc['cases']) + 3} planned cases", hide=H)
        doc = copy.deepcopy(base)
        doc.update(interrupted=True)
        expect(script, "interrupted file", [write(tmp, "int.json", doc), "--out", out], 0,
               "warning", "the run was interrupted; the file holds", hide=H)
        rc, err = plot(script, [os.path.join(data, "ntt-cpu-logn.json"), "--out", out])
        if rc != 0 or err:
            failures.append(f"a file without a completion mark: exit {rc}, stderr {err!r}")
        with open(os.path.join(data, "ntt-cpu-logn.json"), "rb") as f:
            p = subprocess.run([sys.executable, script, "-", "--out", out], stdin=f,
                               capture_output=True, text=True)
        if p.returncode != 0 or p.stderr:
            failures.append(f"standard input ('-'): exit {p.returncode}, stderr {p.stderr!r}")
        good = os.path.join(data, "ntt-cpu-logn.json")
        doc = copy.deepcopy(base)
        doc["schema_version"] = 5
        expect(script, "schema version 5", [write(tmp, "v5.json", doc), "--out", out], 2, "error",
               "unsupported schema_version 5 (this script reads 1..4)", hide=H)
        for what, value in (("median -1", -1), ("median 1e300", 1e300)):
            doc = copy.deepcopy(base)
            doc["cases"][0]["stats"]["median"] = value
            expect(script, what, [write(tmp, "median.json", doc), "--out", out], 2, "error",
                   f"case 0: 'stats.median' {value!r} is not a time in (0, 1e15] ns", hide=H)
        doc = copy.deepcopy(base)
        doc["cases"][0]["stats"]["median"] *= 1.5  # its samples say otherwise
        expect(script, "median that is not its samples' median", [write(tmp, "edit.json", doc),
               "--out", out], 2, "error", "case 0: 'stats.median'", hide=H)
        doc = copy.deepcopy(base)
        doc["cases"][0]["samples_ns"][1] = float("nan")
        expect(script, "NaN sample", [write(tmp, "nan.json", doc), "--out", out], 2, "error",
               "case 0: sample 1 is not a time in (0, 1e15] ns", hide=H)
        for k in ("0", "-1"):
            expect(script, f"--ops-per-butterfly {k}", [good, "--out", out, "--ops-per-butterfly", k],
                   2, "error", f"--ops-per-butterfly '{k}' is not a number above 0", hide=H)
        expect(script, "--out naming a file", [good, "--out", good], 2, "error",
               "exists and is not a folder", hide=H)
        expect(script, "--out that cannot be created", [good, "--out", "/proc/nttbench/figs"], 2,
               "error", "cannot write the figures into the folder '/proc/nttbench/figs'", hide=H)
        expect(script, "standard input twice", ["-", "-", "--out", out], 2, "error",
               "at most one file can be read from standard input ('-')", hide=H)
        # a tier or status no run writes was drawn as if it were one
        for what, key, value in (("unknown tier", "tier", "hot"),
                                 ("unknown status", "status", "weird")):
            doc = copy.deepcopy(base)
            doc["cases"][0][key] = value
            expect(script, f"a case of {what}", [write(tmp, "kind.json", doc), "--out", out], 2,
                   "error", f"case 0: {key} '{value}' is not", hide=H)
        # the same run given twice was drawn twice, as two runs
        expect(script, "the same file twice", [good, good, "--out", out], 2, "error",
               "again: each run is drawn once", hide=H)
        # Fields of the wrong kind each ended in a Python traceback and exit 1.
        for what, edit, needle in (
                ("case that is not an object", lambda d: d["cases"].__setitem__(0, "x"),
                 "case 0 is not an object"),
                ("params that are not an object", lambda d: d["cases"][0].__setitem__("params", "x"),
                 "case 0: 'params' is not an object"),
                ("log N written as text", lambda d: d["cases"][0]["params"].__setitem__("log_n", "10"),
                 "case 0: 'params.log_n' is not a number"),
                ("NTT case without limbs", lambda d: d["cases"][0]["params"].pop("limbs"),
                 "case 0: no 'params.limbs' (a number)"),
                ("stats that are a number", lambda d: d["cases"][0].__setitem__("stats", 5),
                 "case 0: 'stats' is not an object"),
                ("samples_ns that is a number", lambda d: d["cases"][0].__setitem__("samples_ns", 5),
                 "case 0: 'samples_ns' is not an array"),
                ("environment that is text", lambda d: d.__setitem__("environment", "x"),
                 "'environment' is not an object"),
                ("copy bandwidth written as text",
                 lambda d: d["environment"]["host"].__setitem__("copy_bandwidth_Bps", "x"),
                 "a field the figures need is missing or malformed (TypeError: ")):
            doc = copy.deepcopy(base)
            edit(doc)
            expect(script, what, [write(tmp, "kind.json", doc), "--out", out], 2, "error", needle,
                   hide=H)
        # sizes no run writes, which compare refuses or the figures' axes would show, and
        # statistics without the count their median is checked against
        for what, edit, needle in (
                ("word size of 7 bits",
                 lambda c: c["params"].__setitem__("word_bits", 7),
                 "case 0: 'params.word_bits' is not 32 or 64"),
                ("log N of NaN", lambda c: c["params"].__setitem__("log_n", float("nan")),
                 "case 0: 'params.log_n' nan is not a whole number"),
                ("a negative limb count", lambda c: c["params"].__setitem__("limbs", -2),
                 "case 0: 'params.limbs' -2 is not a count of limbs (1 or more)"),
                ("N that is not 2^log N", lambda c: c["params"].__setitem__("n", 0),
                 "case 0: 'params.log_n' 10 and 'params.n' 0 are not log N in [1, 40] and 2^log N"),
                ("log Q of 1e308 bits", lambda c: c["params"].__setitem__("log_q", 1e308),
                 "case 0: 'params.log_q' 1e+308 is not in (0, 1000000]"),
                ("statistics without their sample count", lambda c: c["stats"].pop("samples"),
                 "case 0: 'stats' has no sample count ('stats.samples')")):
            doc = copy.deepcopy(base)
            edit(doc["cases"][0])
            expect(script, what, [write(tmp, "sizes.json", doc), "--out", out], 2, "error", needle,
                   hide=H)
        doc = copy.deepcopy(base)
        doc["cases"][0]["contended"] = True
        expect(script, "a case timed on a contended host", [write(tmp, "busy.json", doc), "--out",
               out], 0, "warning", "1 of 16 timed cases ran on a contended host", hide=H)
        doc = copy.deepcopy(base)
        doc.update(complete=True, cases_planned=20)
        expect(script, "a finished run's file missing cases", [write(tmp, "short.json", doc),
               "--out", out], 0, "warning", "holds 16 of 20 planned cases although its run "
               "finished: cases were removed from it", hide=H)
        # a gzip file whose deflate stream is damaged, and JSON nested past the parser's depth
        packed = bytearray(gzip.compress(json.dumps(base).encode(), mtime=0))
        packed[30:60] = bytes(b ^ 0xFF for b in packed[30:60])
        bad_gz = os.path.join(tmp, "damaged.json.gz")
        with open(bad_gz, "wb") as f:
            f.write(packed)
        try:  # zlib's own words for the damage, which depend on its version
            gzip.decompress(bytes(packed))
            zlib_says = "no error"
        except Exception as e:
            zlib_says = str(e)
        expect(script, "damaged gzip file", [bad_gz, "--out", out], 2, "error",
               f"damaged.json.gz: cannot read JSON ({zlib_says})",
               hide=H + ((zlib_says, "zlib's message"),))
        deep = os.path.join(tmp, "deep.json")
        with open(deep, "w") as f:
            f.write("[" * 100000 + "]" * 100000)
        expect(script, "JSON nested 100000 deep", [deep, "--out", out], 2, "error",
               "deep.json: cannot read JSON (nested too deeply)", hide=H)
        # hand-edited breakdowns were drawn: a bar of 1e300 us, a missing bar under an NTT share
        # its steps no longer had, a label of 99 % over bars of 58 %
        with open(os.path.join(data, "stage-h100-small.json")) as f:
            stage = json.load(f)
        for what, edit, needle in (
                ("breakdown step with a negative median",
                 lambda c: c["breakdown"]["steps"][3].__setitem__("median_ns", -5000),
                 "case 0: breakdown step 3 ('ntt'): median -5000 is not a time in (0, 1e15] ns"),
                ("breakdown step removed",
                 lambda c: c["breakdown"]["steps"].pop(2),
                 "case 0: 'breakdown.sum_of_steps_ns' 388800 ns disagrees with the sum of its steps"),
                ("breakdown NTT share edited",
                 lambda c: c["breakdown"].__setitem__("ntt_share", 0.99),
                 "case 0: 'breakdown.ntt_share' 0.99 disagrees with its NTT steps' share of their sum"),
                ("per-limb stage metric below zero",
                 lambda c: c["metrics"].__setitem__("in_stage_fwd_ns_per_limb", -3),
                 "case 0: 'metrics.in_stage_fwd_ns_per_limb' -3 is not a time in (0, 1e15] ns")):
            doc = copy.deepcopy(stage)
            edit(doc["cases"][0])
            expect(script, what, [write(tmp, "stage.json", doc), "--out", out], 2, "error", needle,
                   hide=H)
        with open(os.path.join(data, "calibrate-h100.json")) as f:
            calib = json.load(f)
        calib["hot_cold_copy"][0].pop("hot_Bps")
        expect(script, "calibration row without its hot bandwidth",
               [write(tmp, "calib.json", calib), "--out", out], 2, "error",
               "hot_cold_copy row 0: no 'hot_Bps' (a number)", hide=H)

    if len(sys.argv) > 3:
        with open(sys.argv[3], "w", encoding="utf-8") as f:
            f.writelines(rows)
    return finish(failures, "scripts/plot inputs")


if __name__ == "__main__":
    sys.exit(main())

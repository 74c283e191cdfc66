"""Test of scripts/tune_medians.py: its rows equal the medians of a real run
report (tests/data), recomputed here independently; a failed case gives no row
and is named on stderr; bad arguments, files and malformed cases exit 2 with
one line on stderr and nothing on stdout.
usage: test_tune_medians.py SCRIPT DATA_DIR"""
import json
import os
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(script, *args):
    p = subprocess.run([sys.executable, script] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def expected_rows(build, pas, rep):
    rows = []
    for c in rep["cases"]:
        p = c.get("params") or {}
        if "log_n" in p and c["tier"] in ("warm", "cold") and c["status"] == "ok":
            rows.append((build, pas, c["variant"], str(p["log_n"]), str(p["limbs"]),
                         p["direction"], c["tier"], c["stats"]["median"] / 1000.0))
    return rows


def parse(out):
    lines = out.splitlines()
    check(lines and lines[0] == "build,pass,variant,log_n,limbs,direction,tier,median_us",
          "header line")
    return [tuple(f[:7]) + (float(f[7]),) for f in (l.split(",") for l in lines[1:])]


def same(got, want):
    return len(got) == len(want) and all(
        g[:7] == w[:7] and abs(g[7] - w[7]) <= 0.005 + 1e-9 for g, w in zip(got, want))


def main(script, data):
    src = os.path.join(data, "ntt-h100-small.json")
    with open(src) as f:
        rep = json.load(f)
    want = expected_rows("base", "1", rep) + expected_rows("new", "2", rep)
    check(len(want) >= 8, "the data file has NTT cases")
    rc, out, err = run(script, "base:1=" + src, "new:2=" + src)
    check(rc == 0 and err == "", "a good run exits 0 silently (rc %d, %r)" % (rc, err))
    check(same(parse(out), want), "rows equal the report's medians")

    with tempfile.TemporaryDirectory() as tmp:
        bad = json.loads(json.dumps(rep))
        victim = next(c for c in bad["cases"] if c["status"] == "ok" and "log_n" in c["params"])
        victim["status"] = "failed"
        failed = os.path.join(tmp, "failed.json")
        with open(failed, "w") as f:
            json.dump(bad, f)
        rc, out, err = run(script, "b:1=" + failed)
        check(rc == 0, "a report with a failed case still writes the others")
        check(same(parse(out), expected_rows("b", "1", bad)), "no row for the failed case")
        check(victim["label"] in err and "failed" in err, "the failed case is named: %r" % err)

        notrep = os.path.join(tmp, "other.json")
        with open(notrep, "w") as f:
            json.dump({"cases": []}, f)
        broken = json.loads(json.dumps(rep))
        next(c for c in broken["cases"] if "log_n" in c["params"])["params"]["limbs"] = "x"
        malformed = os.path.join(tmp, "malformed.json")
        with open(malformed, "w") as f:
            json.dump(broken, f)
        for args in (["b:1"], ["b=" + src], [":1=" + src], ["b,x:1=" + src],
                     ["b:1=" + notrep], ["b:1=" + malformed],
                     ["b:1=" + os.path.join(tmp, "missing.json")],
                     ["b:1=" + script], []):
            rc, out, err = run(script, *args)
            check(rc == 2 and out == "" and len(err.strip().splitlines()) >= 1,
                  "bad input %r: exit 2, nothing on stdout (rc %d)" % (args, rc))
            if args:
                check(len(err.strip().splitlines()) == 1, "bad input %r: one line" % (args,))
    for f in failures:
        print("FAIL: " + f)
    print("%d checks failed" % len(failures) if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))

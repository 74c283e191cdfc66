#!/usr/bin/env python3
"""The medians of tuning runs as one CSV: for each `nttbench run` JSON report
named BUILD:PASS=FILE (BUILD: which kernels ran, e.g. "release" or a candidate;
PASS: which pass of an A/B sequence), one row per NTT case that verified and
was timed: build,pass,variant,log_n,limbs,direction,tier,median_us (two
decimals). The docs/data/tune-*.csv files of docs/tuning.md are made with it.

Usage: scripts/tune_medians.py BUILD:PASS=report.json [...] > medians.csv
Exit: 0 written; 2 bad argument, or a file that is not an nttbench run report
or holds a malformed case (one line on stderr). Cases that failed or were skipped are not rows; each is
named on stderr."""
import json
import sys

HEADER = "build,pass,variant,log_n,limbs,direction,tier,median_us"


def fail(msg):
    print("tune_medians: " + msg, file=sys.stderr)
    sys.exit(2)


def parse_arg(arg):
    label, sep, path = arg.partition("=")
    build, sep2, pas = label.partition(":")
    if not sep or not sep2 or not build or not pas or not path:
        fail("expected BUILD:PASS=FILE, got %r" % arg)
    if any(ch in label for ch in ',"\n'):
        fail("a label may not hold a comma, quote or newline: %r" % label)
    return build, pas, path


def rows_of(build, pas, path):
    try:
        with open(path) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: %s" % (path, e))
    if not isinstance(rep, dict) or rep.get("schema") != "nttbench-report" \
            or not isinstance(rep.get("cases"), list):
        fail("%s: not an nttbench run report" % path)
    out = []
    for c in rep["cases"]:
        p = c.get("params") or {}
        if "log_n" not in p or c.get("tier") not in ("warm", "cold"):
            continue
        st = c.get("stats") or {}
        if c.get("status") != "ok" or st.get("unit") != "ns" or st.get("median") is None:
            print("tune_medians: %s: %s %s %s: %s, no row" % (
                path, c.get("tier"), c.get("variant"), c.get("label"), c.get("status")),
                file=sys.stderr)
            continue
        try:
            out.append("%s,%s,%s,%d,%d,%s,%s,%.2f" % (
                build, pas, c["variant"], p["log_n"], p["limbs"], p["direction"], c["tier"],
                st["median"] / 1e3))
        except (KeyError, TypeError, ValueError):
            fail("%s: malformed case %r" % (path, c.get("label")))
    return out


def main(args):
    if not args:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    rows = [HEADER]
    for arg in args:
        rows += rows_of(*parse_arg(arg))
    sys.stdout.write("\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

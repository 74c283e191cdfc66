"""Test that docs/results.md's tables are what the commands it shows print from
the reports it ships: each (script, subcommand, report under docs/data) below
is run, and every line it prints must stand, verbatim, in docs/results.md. A
script that fails on a shipped report (a field it does not expect, a null) or
a table edited by hand fails the test, naming the line.
usage: test_results_tables.py SOURCE_ROOT"""
import gzip
import os
import subprocess
import sys
import tempfile

# (script, subcommand or None, report) for the tables regenerated from docs/data
TABLES = [
    ("results_tables.py", "targets", "ntt-h100-all-shapes.json.gz"),
    ("sweep_table.py", None, "ntt-h100-all-shapes.json.gz"),
    ("results_tables.py", "stage", "stage-h100-ckks16-l30-d3.json.gz"),
    ("results_tables.py", "stage", "stage-micro-words-h200.json.gz"),
    ("results_tables.py", "gpus", "stage-gpus-h200x4-rule.json.gz"),
]


def main(root):
    with open(os.path.join(root, "docs", "results.md")) as f:
        doc = f.read()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for script, sub, report in TABLES:
            plain = os.path.join(tmp, report[:-3])  # every script reads the plain JSON
            with gzip.open(os.path.join(root, "docs", "data", report), "rb") as src, \
                    open(plain, "wb") as dst:
                dst.write(src.read())
            cmd = [sys.executable, os.path.join(root, "scripts", script)]
            cmd += ([sub] if sub else []) + [plain]
            p = subprocess.run(cmd, capture_output=True, text=True)
            what = " ".join([script] + ([sub] if sub else []) + [report])
            lines = [l for l in p.stdout.splitlines() if l.strip()]
            if p.returncode != 0 or not lines:
                failures.append(f"{what}: exit {p.returncode}, {len(lines)} lines: "
                                f"{p.stderr.strip()[-300:]}")
                continue
            missing = [l for l in lines if l not in doc]
            if missing:
                failures.append(f"{what}: {len(missing)} of {len(lines)} lines not in "
                                f"docs/results.md, the first: {missing[0]}")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"ok: {len(TABLES)} tables of docs/results.md regenerate from docs/data")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))

"""Bad and doubtful inputs of scripts/plot, run as a user runs it: each case gives the
expected exit code and exactly one line on stderr ("plot: error: ..." or "plot: warning: ..."),
never a traceback. Exits 77 (skip) when matplotlib is not installed.
usage: test_plot_inputs.py SCRIPTS_PLOT DATA_DIR"""
import copy
import json
import os
import subprocess
import sys
import tempfile

from plot_env import finish, require_matplotlib

require_matplotlib(__file__, "the plot input test")

failures = []


def plot(script, args):
    p = subprocess.run([sys.executable, script] + args, capture_output=True, text=True)
    return p.returncode, p.stderr


def expect(script, what, args, code, kind, needle):
    """Exit `code` and one stderr line 'plot: KIND: ...' containing needle."""
    rc, err = plot(script, args)
    lines = err.splitlines()
    if rc != code or len(lines) != 1 or not lines[0].startswith(f"plot: {kind}: ") \
            or needle not in lines[0]:
        failures.append(f"{what}: exit {rc} (want {code}), stderr:\n{err}"
                        f"(want one '{kind}' line containing {needle!r})")


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

        doc = copy.deepcopy(base)
        doc.update(complete=False, cases_planned=len(doc["cases"]) + 3)
        expect(script, "incomplete file", [write(tmp, "partial.json", doc), "--out", out], 0,
               "warning", f"incomplete: its run had not finished when it was written "
               f"({len(doc['cases'])} of {len(doc['cases']) + 3} planned cases")
        doc = copy.deepcopy(base)
        doc.update(interrupted=True)
        expect(script, "interrupted file", [write(tmp, "int.json", doc), "--out", out], 0,
               "warning", "the run was interrupted; the file holds")
        rc, err = plot(script, [os.path.join(data, "ntt-cpu-logn.json"), "--out", out])
        if rc != 0 or err:
            failures.append(f"a file without a completion mark: exit {rc}, stderr {err!r}")
        with open(os.path.join(data, "ntt-cpu-logn.json"), "rb") as f:
            p = subprocess.run([sys.executable, script, "-", "--out", out], stdin=f,
                               capture_output=True, text=True)
        if p.returncode != 0 or p.stderr:
            failures.append(f"standard input ('-'): exit {p.returncode}, stderr {p.stderr!r}")
        expect(script, "standard input twice", ["-", "-", "--out", out], 2, "error",
               "at most one file can be read from standard input ('-')")

    return finish(failures, "scripts/plot inputs")


if __name__ == "__main__":
    sys.exit(main())

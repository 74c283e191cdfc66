"""Shared start of the scripts/plot tests: matplotlib or a skip.

Debian's python3-matplotlib belongs to /usr/bin/python3; a pyenv/conda python on PATH does
not see it, so a test started by another python re-executes itself with /usr/bin/python3 once.
Without matplotlib anywhere, the test exits 77 (skip) after saying so."""
import os
import sys


def finish(failures, what):
    """Prints each failure and a summary line; the exit code."""
    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failures: {what}")
    return 1 if failures else 0


def require_matplotlib(script, what):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        if os.path.exists("/usr/bin/python3") and not os.environ.get("NB_PLOT_REEXEC") \
                and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
            os.environ["NB_PLOT_REEXEC"] = "1"
            os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(script)] + sys.argv[1:])
        print(f"matplotlib is not installed: skipping {what}")
        sys.exit(77)

#!/usr/bin/env bash
# scripts/setup shows the failing step's output: a bad meson option in a
# fresh build folder must put meson's own error text on stderr (it used to
# end with exit 1 and nothing else), and setup must still exit non-zero.
# Usage: test_setup_errors.sh SOURCE-ROOT
set -uo pipefail
root=${1:?source root}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
NB_BUILDDIR="$tmp/build" "$root/scripts/setup" -Dno_such_option=1 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 0 ]; then
    echo "FAIL: setup with a bogus option exited 0" >&2
    exit 1
fi
if ! grep -q "no_such_option" "$tmp/err"; then
    echo "FAIL: meson's error text did not reach stderr; stderr was:" >&2
    cat "$tmp/err" >&2
    exit 1
fi
if ! grep -q "nttbench setup: 'meson setup" "$tmp/err"; then
    echo "FAIL: the failing step is not named" >&2
    cat "$tmp/err" >&2
    exit 1
fi
echo "ok: setup exit $rc, meson's message shown"

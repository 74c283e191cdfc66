#!/usr/bin/env bash
# Every C code block of docs/api.md is built by the test suite: each ```c
# block must be, byte for byte, a file of docs/examples/ that tests/meson.build
# compiles (bench_api.c is built and run as example_bench_api). A snippet
# pasted into the page without a built twin fails here.
# Usage: test_api_snippets.sh SOURCE-ROOT
set -euo pipefail
src=$(cd "${1:?source root}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -v dir="$tmp" '/^```c[[:space:]]*$/ { n++; inside = 1; next }
    inside && /^```/ { inside = 0; next }
    inside { print > (dir "/block" n ".c") }' "$src/docs/api.md"
fail=0 count=0
for b in "$tmp"/block*.c; do
    [ -e "$b" ] || continue
    count=$((count + 1))
    twin=""
    for e in "$src"/docs/examples/*.c; do cmp -s "$b" "$e" && twin=$e; done
    if [ -z "$twin" ]; then
        echo "FAIL: docs/api.md shows a C block (starting '$(head -n1 "$b")') that is no file of docs/examples/" >&2
        fail=1
    elif ! grep -q "docs/examples/$(basename "$twin")" "$src/tests/meson.build"; then
        echo "FAIL: docs/examples/$(basename "$twin") is shown in docs/api.md but not built by tests/meson.build" >&2
        fail=1
    fi
done
[ "$fail" = 0 ] || exit 1
echo "ok: $count C block(s) of docs/api.md are built examples"

#!/usr/bin/env bash
# The CPU plug-in path of docs/variants.md works exactly as written: the C
# block shown there is byte-for-byte docs/examples/plugin_cpu.c, and the
# shell block (only its `B=` line pointed at this build) builds the plug-in
# with cc, lists it, verifies it against the GMP reference and times it.
# Usage: test_doc_examples.sh SOURCE-ROOT BUILD-DIR
set -euo pipefail
src=$(cd "${1:?source root}" && pwd)
build=$(cd "${2:?build dir}" && pwd)
doc="$src/docs/variants.md"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The fenced block that follows a marker line, without the fences.
block() {
    awk -v m="$1" 'index($0, m) == 1 { want = 1; next }
        want && /^```/ { if (inside) exit; inside = 1; next }
        inside { print }' "$doc"
}

block '<!-- example: docs/examples/plugin_cpu.c -->' >"$tmp/shown.c"
if ! cmp -s "$tmp/shown.c" "$src/docs/examples/plugin_cpu.c"; then
    echo "FAIL: docs/variants.md does not show docs/examples/plugin_cpu.c as it is:" >&2
    diff "$tmp/shown.c" "$src/docs/examples/plugin_cpu.c" >&2 || true
    exit 1
fi

block '<!-- commands: cpu-plugin -->' >"$tmp/commands.sh"
grep -q '^B=build' "$tmp/commands.sh" || { echo "FAIL: no 'B=build' line" >&2; exit 1; }
sed -i "s|^B=build.*|B='$build'|" "$tmp/commands.sh"
# a working copy of the source root in which the commands may write
mkdir "$tmp/root"
for e in "$src"/*; do ln -s "$e" "$tmp/root/"; done
(cd "$tmp/root" && OMP_NUM_THREADS=1 bash -euo pipefail "$tmp/commands.sh") >"$tmp/out" 2>&1 || {
    echo "FAIL: the commands of docs/variants.md failed:" >&2
    cat "$tmp/out" >&2
    exit 1
}
grep -q 'my-cpu-ntt' "$tmp/out" || { echo "FAIL: my-cpu-ntt not listed" >&2; exit 1; }
grep -q 'my-cpu-ntt' "$tmp/root/mine.csv" || { echo "FAIL: my-cpu-ntt not timed" >&2; exit 1; }
echo "ok: docs/variants.md CPU plug-in built, listed, verified and timed"

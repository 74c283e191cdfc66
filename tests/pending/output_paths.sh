#!/usr/bin/env bash
# --output must not replace symlinks, devices or FIFOs with a regular file.
set -u
nb=${1:?nttbench}; t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
args=(run --variant cpu-harvey --tier warm --logn 10 --limbs 1 --min-time 0.01 --timeout 1)
echo old >"$t/target.txt"; ln -s target.txt "$t/link.txt"
"$nb" --format csv --output "$t/link.txt" "${args[@]}" >/dev/null 2>&1
[ -L "$t/link.txt" ] || { echo "FAIL: the symlink was replaced by a regular file"; exit 1; }
grep -q cpu-harvey "$t/target.txt" || { echo "FAIL: the symlink target was not written"; exit 1; }
"$nb" --format csv --output /dev/stdout "${args[@]}" 2>/dev/null | grep -q cpu-harvey ||
    { echo "FAIL: --output /dev/stdout printed nothing"; exit 1; }
mkdir "$t/dir"; "$nb" --output "$t/dir" "${args[@]}" >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: --output DIRECTORY exit $rc, want 2"; exit 1; }
printf '1\n' >"$t/a.txt"; "$nb" --format json --output "$t/c.json" check --expected "$t/a.txt" \
    --actual "$t/a.txt" >/dev/null 2>&1
[ -s "$t/c.json" ] || { echo "FAIL: check ignores --output"; exit 1; }
echo ok

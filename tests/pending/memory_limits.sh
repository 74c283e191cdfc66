#!/usr/bin/env bash
# Sizes that cannot fit are refused up front with exit 2 and the sizes named.
set -u
nb=${1:?nttbench}
out=$(timeout 20 "$nb" run --variant cpu-harvey --tier warm --logn 17 --limbs 4096 2>&1); rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: 46 GB case exit $rc, want 2 at once"; exit 1; }
echo "$out" | grep -qi "bytes\|GB\|GiB" || { echo "FAIL: sizes not named: $out"; exit 1; }
"$nb" run --tier stage --preset test-tiny --level 99 >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: impossible --level exit $rc, want 2"; exit 1; }
echo ok

#!/usr/bin/env bash
# Every run report the docs cite (docs/data/*.json and *.json.gz whose schema
# is nttbench-report) loads with `nttbench report`, so a reader can rerun
# the docs' tables from them; calibration files (another schema) are left
# to `nttbench calibrate`'s own tests. Fails naming each file that does not.
# Usage: test_docs_data_loads.sh NTTBENCH SOURCE_ROOT
set -uo pipefail
nb=${1:?nttbench}
root=${2:?source root}
fail=0 seen=0
for f in "$root"/docs/data/*.json "$root"/docs/data/*.json.gz; do
    [ -f "$f" ] || continue
    case "$f" in
    *.gz) cat=(zcat "$f") ;;
    *) cat=(cat "$f") ;;
    esac
    head -c 512 < <("${cat[@]}" 2>/dev/null) | grep -q '"schema": *"nttbench-report"' || continue
    seen=$((seen + 1))
    if ! err=$("${cat[@]}" | "$nb" report - 2>&1 >/dev/null); then
        echo "FAIL: ${f#"$root"/} does not load: $err"
        fail=1
    fi
done
[ "$seen" -gt 0 ] || { echo "FAIL: no run report found under docs/data"; exit 1; }
[ "$fail" -eq 0 ] && echo "ok: $seen run reports under docs/data load"
exit "$fail"

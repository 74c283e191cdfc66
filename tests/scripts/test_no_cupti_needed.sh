#!/usr/bin/env bash
# libcupti is opened at run time (bench/timing/cupti_load.h), never linked:
# no file given may list it among its NEEDED entries (readelf -d). Each file
# must list some NEEDED entry, so that an unreadable dynamic section cannot
# pass. Exit 77 (skip) when readelf is absent.
# Usage: test_no_cupti_needed.sh READELF|'' FILE...
set -uo pipefail
readelf=${1-}
shift
if [ -z "$readelf" ] || ! command -v "$readelf" >/dev/null 2>&1; then
    echo "SKIP: readelf not found"
    exit 77
fi
[ "$#" -gt 0 ] || { echo "FAIL: no file to check"; exit 1; }
rc=0
for f in "$@"; do
    needed=$("$readelf" -d "$f" 2>&1 | grep '(NEEDED)')
    if [ -z "$needed" ]; then
        echo "FAIL: $f: readelf -d lists no NEEDED entry"
        rc=1
    elif grep -qi 'libcupti' <<<"$needed"; then
        echo "FAIL: $f needs libcupti at load time: $(grep -i libcupti <<<"$needed" | tr -s ' ')"
        rc=1
    else
        echo "ok: $f ($(wc -l <<<"$needed") NEEDED entries, none libcupti)"
    fi
done
exit $rc

#!/usr/bin/env bash
# A busy competing process must be seen: CPU cases flagged "contended".
set -u
nb=${1:?nttbench}
( while :; do :; done ) & busy=$!; trap 'kill $busy' EXIT
"$nb" --format json run --variant cpu-harvey --tier warm --logn 14 --limbs 8 --min-time 0.5 \
    2>/dev/null | grep -q '"contended": true' || { echo "FAIL: no case flagged contended"; exit 1; }
echo ok

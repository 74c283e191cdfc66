#!/usr/bin/env bash
# The JSON records the seed exactly (here 2^64 - 1), so a run can be replayed.
set -u
nb=${1:?nttbench}; s=18446744073709551615
"$nb" --format json verify --variant cpu-harvey --logn 10 --limbs 1 --bits 36 --seed $s |
    grep -q "\"seed\": \"\?$s\"\?" || { echo "FAIL: verify JSON does not hold seed $s"; exit 1; }
"$nb" --format json run --variant cpu-harvey --tier warm --logn 10 --limbs 1 --min-time 0.01 \
    --seed $s 2>/dev/null | grep -q "\"seed\": \"\?$s\"\?" ||
    { echo "FAIL: run JSON does not hold seed $s"; exit 1; }
echo ok

#!/usr/bin/env bash
# run with a CPU and a GPU variant, no GPU: the message names the GPU variant (not "gpu").
set -u
nb=${1:?nttbench}
g=$("$nb" list | awk '$2 == "gpu" {print $1; exit}')
[ -n "$g" ] || { echo "skip: no GPU variant registered"; exit 77; }
err=$("$nb" run --variant "cpu-harvey,$g" --logn 10 --limbs 1 2>&1 >/dev/null)
echo "$err" | grep -q "'$g'" || { echo "FAIL: $err"; exit 1; }
echo ok

#!/usr/bin/env bash
# env explains a missing GPU; calibrate on the CPU prints no GPU launch figure.
set -u
nb=${1:?nttbench}
"$nb" env | grep -E '^GPU' | grep -qv 'none$' || { echo "FAIL: env shows 'GPU none' without the reason"; exit 1; }
"$nb" calibrate --backend cpu 2>/dev/null | grep -q 'back-to-back' &&
    { echo "FAIL: calibrate --backend cpu prints a launch figure"; exit 1; }
echo ok

#!/usr/bin/env bash
# The environment tells the truth without a GPU: `env` gives the reason next
# to "GPU none", and where no NVIDIA driver library exists at all a GPU
# request says so (not CUDA's "driver version is insufficient"); `calibrate
# --backend cpu` prints no GPU launch figure and states the one host copy
# method that `env` and a run's environment block state too.
# Usage: test_truthful_env.sh NTTBENCH
set -uo pipefail
nb=${1:?nttbench}
envtext=$("$nb" env)
gpu=$(grep -E '^GPU ' <<<"$envtext")
case "$gpu" in
*"none ("*")") ;;
*none*) echo "FAIL: env shows '$gpu' without the reason"; exit 1 ;;
*) echo "(a GPU is present: $gpu)" ;;
esac
libs=$(ldconfig -p 2>/dev/null || true)
case "$libs$gpu" in
*libcuda.so.1* | *"built without CUDA"*) ;; # a driver library, or no CUDA built in
*)
    if [ ! -e /dev/nvidiactl ] && [ "${gpu#*none}" != "$gpu" ]; then
        err=$("$nb" run --backend gpu 2>&1 >/dev/null)
        case "$err" in
        *"no NVIDIA driver found"*) ;;
        *) echo "FAIL: run --backend gpu without a driver says: $err"; exit 1 ;;
        esac
    fi
    ;;
esac
cal=$("$nb" calibrate --backend cpu --min-time 0.01 --timeout 0.2 2>/dev/null)
case "$cal" in
*back-to-back*) echo "FAIL: calibrate --backend cpu prints a launch figure"; exit 1 ;;
esac
method=$(sed -n 's/^host copy bandwidth.*(read + write; \(.*\))$/\1/p' <<<"$envtext")
[ -n "$method" ] || { echo "FAIL: env does not state the copy method"; exit 1; }
grep -qF "$method" <<<"$cal" || { echo "FAIL: calibrate states another copy method"; exit 1; }
run=$("$nb" --format json run --variant cpu-harvey --tier warm --logn 10 --limbs 1 \
    --min-time 0.01 2>/dev/null)
grep -qF "\"copy_bandwidth_method\": \"$method\"" <<<"$run" ||
    { echo "FAIL: the run's environment block states another copy method"; exit 1; }
echo ok

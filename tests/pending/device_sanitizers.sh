#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck and initcheck on the GPU tests (GPU machine only).
set -u
build=${1:?build dir}
command -v compute-sanitizer >/dev/null || { echo "skip: no compute-sanitizer"; exit 77; }
for tool in memcheck racecheck initcheck; do
    for t in test_gpu_ntt test_gpu_ckks; do
        compute-sanitizer --tool $tool --error-exitcode 1 "$build/tests/$t" >/tmp/cs-$tool-$t.log 2>&1 ||
            { echo "FAIL: $tool $t"; tail -20 /tmp/cs-$tool-$t.log; exit 1; }
        grep -h "ERROR SUMMARY" /tmp/cs-$tool-$t.log
    done
done
echo ok

#!/usr/bin/env bash
# A CPU run that shares the host with busy processes is flagged: one spinning
# child per online CPU runs for the length of a short run (each bounded by
# `timeout`, all killed on exit), and the JSON case must read
# "contended": true with the reason, the CSV column must say true, and stderr
# must carry the one-line warning. The run's own threads plus the spinners
# exceed the CPUs at both readings, so the run-queue rule alone flags it.
# Usage: test_cpu_contention.sh NTTBENCH
set -uo pipefail
nb=${1:?nttbench}
tmp=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
cpus=$(getconf _NPROCESSORS_ONLN)
for _ in $(seq "$cpus"); do
    timeout 60 bash -c 'while :; do :; done' &
    pids+=($!)
done
sleep 0.2
"$nb" --format json --output "$tmp/r.json" run --variant cpu-harvey --tier warm --logn 12 \
    --limbs 2 --min-time 0.2 2>"$tmp/err" >/dev/null
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: run exited $rc: $(cat "$tmp/err")"; exit 1; }
grep -q '"contended": true' "$tmp/r.json" ||
    { echo "FAIL: no case flagged contended with $cpus spinners on $cpus CPUs"; exit 1; }
grep -q '"reason": ".*other runnable\|"reason": ".*context switches' "$tmp/r.json" ||
    { echo "FAIL: the contention reason is missing"; exit 1; }
grep -q 'contended host' "$tmp/err" || { echo "FAIL: no warning on stderr"; exit 1; }
[ "$(grep -c 'contended host' "$tmp/err")" -eq 1 ] || { echo "FAIL: more than one warning line"; exit 1; }
"$nb" --format csv run --variant cpu-harvey --tier warm --logn 12 --limbs 2 --min-time 0.2 \
    2>/dev/null >"$tmp/r.csv"
col=$(head -1 "$tmp/r.csv" | tr ',' '\n' | grep -n '^contended$' | cut -d: -f1)
[ -n "$col" ] || { echo "FAIL: no contended column in the CSV"; exit 1; }
[ "$(sed -n 2p "$tmp/r.csv" | cut -d, -f"$col")" = true ] ||
    { echo "FAIL: CSV contended column is not true"; exit 1; }
echo ok

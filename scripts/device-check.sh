#!/bin/bash
# Checks and measures nttbench on a GPU machine, in phases (so it fits the
# device tool's 10-minute calls; a later phase reuses the build of an earlier
# one when the machine is still warm):
#   check : build, the whole test suite (GPU suite included), compute-sanitizer
#           memcheck + racecheck of one size per GPU variant (through
#           `nttbench verify`), `nttbench calibrate`
#   ntt   : warm + cold tiers of every GPU variant, N = 2^16, 60-bit primes,
#           L = 1, 8, 32, 64, forward and inverse (the docs/results.md table)
#   stage : the stage tier (modup, moddown, keyswitch, rescale) of ckks16-l30-d3
#           for every GPU variant, with breakdown and micro-benchmarks
# Usage, from the repository root:  scripts/device-check.sh [check] [ntt] [stage]
# Logs and JSON go to $OUT (default /tmp/nb-out); the last lines are a summary.
# On the lent device machine, .devdeps/ holds the -dev packages (GMP, CMocka,
# jansson) that machine lacks; elsewhere they come from the system.
set -u
PHASES="${*:-check ntt stage}"
has() { [[ " $PHASES " == *" $1 "* ]]; }
OUT=${OUT:-/tmp/nb-out}
mkdir -p "$OUT"
if [ -d .devdeps ]; then
    R=/tmp/devroot
    for f in .devdeps/*.deb; do dpkg -x "$f" $R; done
    export PKG_CONFIG_PATH=$R/usr/lib/x86_64-linux-gnu/pkgconfig PKG_CONFIG_SYSROOT_DIR=$R
    export CPATH=$R/usr/include:$R/usr/include/x86_64-linux-gnu
    export LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu LD_LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu
fi
B=${NB_BUILD:-/tmp/nb-check}
NB=$B/bench/cli/nttbench
summary="$OUT/summary.txt"
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu \
    --format=csv,noheader 2>&1 | tee -a "$summary"
if [ ! -f "$B/build.ninja" ]; then
    meson setup "$B" -Dtests=enabled > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi
ninja -C "$B" >> "$OUT/build.log" 2>&1 || { grep -A8 -i error "$OUT/build.log" | head -60; exit 1; }
stamp "build ok"

if has check; then
    meson test -C "$B" --no-rebuild --num-processes 8 --print-errorlogs > "$OUT/tests.log" 2>&1
    stamp "meson test rc=$?"
    grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:|^Timeout:" "$OUT/tests.log" | tee -a "$summary"
    for tool in memcheck racecheck; do
        for cfg in "gpu-radix2 16" "gpu-smem 16" "gpu-regs 16" "gpu-regs 12" "gpu-regs 17"; do
            set -- $cfg
            timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 \
                "$NB" --quiet verify --variant "$1" --logn "$2" --limbs 2 --bits 60 \
                --direction forward,inverse > "$OUT/san.tmp" 2>&1
            rc=$?
            cat "$OUT/san.tmp" >> "$OUT/sanitizer.log"
            stamp "$tool $1 logn=$2 L=2: rc=$rc $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san.tmp" | tr '\n' ' ')"
        done
    done
    rm -f "$OUT/san.tmp"
    "$NB" calibrate --format json --output "$OUT/calibrate.json" > "$OUT/calibrate.txt" 2>&1
    stamp "calibrate rc=$?"
    cat "$OUT/calibrate.txt" >> "$summary"
fi

if has ntt; then
    "$NB" run --tier warm,cold --variant gpu-radix2,gpu-smem,gpu-regs --logn 16 \
        --limbs 1,8,32,64 --bits 60 --direction forward,inverse --timeout 5 --no-progress \
        --format json --output "$OUT/ntt.json" > "$OUT/ntt.txt" 2> "$OUT/ntt.err"
    stamp "ntt sweep rc=$?"
    cat "$OUT/ntt.txt" >> "$summary"
fi

if has stage; then
    "$NB" run --tier stage --variant gpu-regs,gpu-smem,gpu-radix2 --preset ckks16-l30-d3 \
        --max-noise 1 --timeout 4 --no-progress \
        --format json --output "$OUT/stage.json" > "$OUT/stage.txt" 2> "$OUT/stage.err"
    stamp "stage tier rc=$?"
    cat "$OUT/stage.txt" >> "$summary"
fi
stamp "done"

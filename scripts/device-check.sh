#!/bin/bash
# Checks and measures nttbench on a GPU machine, in phases (so it fits the
# device tool's 10-minute calls; a later phase reuses the build of an earlier
# one when the machine is still warm):
#   check : build, the whole test suite (GPU suite included), compute-sanitizer
#           memcheck + racecheck of one or more sizes per GPU variant (through
#           `nttbench verify`; gpu-fast at both of its block shapes),
#           `nttbench calibrate`
#   ntt   : warm + cold tiers of every GPU variant, N = 2^16, 60-bit primes,
#           L = 1, 8, 32, 64, forward and inverse (the docs/results.md table)
#   stage : the stage tier (modup, moddown, keyswitch, rescale) of ckks16-l30-d3
#           for every GPU variant ($STAGE_VARIANTS), with breakdown and
#           micro-benchmarks
#   gpuntt: the GPU NTT test (bit-exact against cpu-harvey and GMP) alone
#   sanfast: compute-sanitizer memcheck + racecheck of gpu-fast at small and
#           large log N (through `nttbench verify`)
#   sweep : warm + cold of gpu-regs and gpu-fast at every CKKS shape (log N
#           12..17 x L 1..64, forward and inverse) -> $OUT/sweep.json and the
#           markdown table $OUT/sweep.md (scripts/sweep_table.py)
#   ncu   : Nsight Compute of gpu-fast, log N 16, L = 1 and 32, cold semantics
# Usage, from the repository root:  scripts/device-check.sh [check] [ntt] [stage] ...
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

sanitize() { # sanitize VARIANT LOGN...: memcheck + racecheck through nttbench verify, L=$SAN_L
    local v=$1 L=${SAN_L:-2}; shift
    for tool in memcheck racecheck; do
        for n in "$@"; do
            timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 \
                "$NB" --quiet verify --variant "$v" --logn "$n" --limbs $L --bits 60 \
                --direction forward,inverse > "$OUT/san.tmp" 2>&1
            rc=$?
            cat "$OUT/san.tmp" >> "$OUT/sanitizer.log"
            stamp "$tool $v logn=$n L=$L: rc=$rc $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san.tmp" | tr '\n' ' ')"
        done
    done
    rm -f "$OUT/san.tmp"
}

if has check; then
    meson test -C "$B" --no-rebuild --num-processes 8 --print-errorlogs > "$OUT/tests.log" 2>&1
    stamp "meson test rc=$?"
    grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:|^Timeout:" "$OUT/tests.log" | tee -a "$summary"
    sanitize gpu-radix2 16
    sanitize gpu-smem 16
    sanitize gpu-regs 16 12 17
    sanitize gpu-fast 12 16
    SAN_L=8 sanitize gpu-fast 16 # 2^19 coefficients: gpu-fast's shape for large calls
    "$NB" calibrate --format json --output "$OUT/calibrate.json" > "$OUT/calibrate.txt" 2>&1
    stamp "calibrate rc=$?"
    cat "$OUT/calibrate.txt" >> "$summary"
fi

if has ntt; then
    "$NB" run --tier warm,cold --variant gpu-radix2,gpu-smem,gpu-regs,gpu-fast --logn 16 \
        --limbs 1,8,32,64 --bits 60 --direction forward,inverse --timeout 5 --no-progress \
        --format json --output "$OUT/ntt.json" > "$OUT/ntt.txt" 2> "$OUT/ntt.err"
    stamp "ntt sweep rc=$?"
    cat "$OUT/ntt.txt" >> "$summary"
fi

if has stage; then
    "$NB" run --tier stage --variant "${STAGE_VARIANTS:-gpu-fast,gpu-regs,gpu-smem,gpu-radix2}" \
        --preset ckks16-l30-d3 \
        --max-noise 1 --timeout 4 --no-progress \
        --format json --output "$OUT/stage.json" > "$OUT/stage.txt" 2> "$OUT/stage.err"
    stamp "stage tier rc=$?"
    cat "$OUT/stage.txt" >> "$summary"
fi
if has gpuntt; then
    meson test -C "$B" --no-rebuild --print-errorlogs gpu_ntt > "$OUT/tests.log" 2>&1
    stamp "meson test gpu_ntt rc=$?"
    grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:" "$OUT/tests.log" | tee -a "$summary"
fi

if has sanfast; then
    sanitize gpu-fast ${SAN_LOGN:-10 12 16 17}
    SAN_L=8 sanitize gpu-fast 16
fi

if has sweep; then
    "$NB" run --tier warm,cold --variant "${SWEEP_VARIANTS:-gpu-regs,gpu-fast}" \
        --logn "${SWEEP_LOGN:-12:17}" --limbs "${SWEEP_LIMBS:-1,2,4,8,16,32,64}" --bits 60 \
        --direction forward,inverse \
        ${SWEEP_TIMING:---min-time 0.05 --timeout 0.5} --no-progress \
        --format json --output "$OUT/sweep.json" > "$OUT/sweep.txt" 2> "$OUT/sweep.err"
    stamp "sweep rc=$?"
    python3 scripts/sweep_table.py "$OUT/sweep.json" > "$OUT/sweep.md"
    cat "$OUT/sweep.md"
fi

if has ncu; then # cold semantics: the suite flushes; ncu must neither flush nor lock clocks
    for L in ${NCU_LIMBS:-1 32}; do
        timeout 120 ncu --cache-control none --clock-control none --replay-mode application \
            --section SpeedOfLight --section LaunchStats --section Occupancy \
            --section SchedulerStats --section WarpStateStats --section ComputeWorkloadAnalysis \
            --section MemoryWorkloadAnalysis --kernel-name regex:fast_phase --launch-skip 4 --launch-count 2 \
            "$NB" run --variant gpu-fast --tier cold --logn 16 --limbs $L --mode batch --batch 1 \
            --min-samples 3 --max-samples 3 --min-time 0 --warmup 1 --warmup-time 0 \
            --throttle-threshold 0 --seed 1 -q --direction forward \
            --format json --output "$OUT/ncu-run.json" > "$OUT/ncu-L$L.txt" 2>&1
        stamp "ncu L=$L rc=$?"
        grep -E "fast_phase|Duration|DRAM Throughput|Issue Slots Busy|Issued Ipc|No Eligible|Achieved Occupancy|Registers Per|Block Size|Grid Size|Stall|Warp Cycles Per Issued" \
            "$OUT/ncu-L$L.txt" | head -80
    done
fi
stamp "done"

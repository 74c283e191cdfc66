#!/bin/bash
# Device acceptance of the timing core (issue 3), in one device call:
# build, the bench tests (GPU suite included), calibrate, a warm + cold run
# of every GPU variant, the three timing modes, --l2-persist, and the Nsight
# Compute proof that the cold tier is cold (L2 hit rate and DRAM bytes of the
# timed NTT, warm vs cold). Key files land in $OUT, every log in
# $OUT/logs.tgz, a summary in $OUT/summary.txt.
# Usage (device tool, repository root, carry .devdeps):  bash scripts/device-bench-acceptance.sh
# MINTIME (default 0.1) shortens the runs to spare the shared device budget.
set -u
OUT=${OUT:-/tmp/nb-out}
MINTIME=${MINTIME:-0.1}
W=/tmp/nb-work
mkdir -p "$OUT" "$W"
R=/tmp/devroot
for f in .devdeps/*.deb; do dpkg -x "$f" $R; done
export PKG_CONFIG_PATH=$R/usr/lib/x86_64-linux-gnu/pkgconfig PKG_CONFIG_SYSROOT_DIR=$R
export CPATH=$R/usr/include:$R/usr/include/x86_64-linux-gnu
export LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu LD_LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu
B=/tmp/nb-build
S="$OUT/summary.txt"
: >"$S"
log() { echo "$@" | tee -a "$S"; }

t0=$(date +%s)
if ! { meson setup $B -Dtests=enabled >"$W/build.log" 2>&1 &&
       ninja -C $B bench/cli/nttbench tests/test_gpu_bench tests/test_bench_stats \
           tests/test_bench_runner tests/test_bench_report tests/test_bench_cli \
           tests/libnb_plugin_example.so >>"$W/build.log" 2>&1; }; then
    tail -40 "$W/build.log"
    exit 1
fi
log "build: $(( $(date +%s) - t0 )) s"
NB=$B/bench/cli/nttbench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks_event_reasons.active \
    --format=csv >>"$S" 2>&1

# 1. tests (GPU suite and the CPU bench tests, on this machine too)
meson test -C $B --no-rebuild gpu_bench bench_stats bench_runner bench_report bench_cli \
    >"$W/tests.log" 2>&1
log "tests: $(grep -E '^(Ok|Fail|Skipped):' "$W/tests.log" | tr '\n' ' ')"
cp $B/meson-logs/testlog.txt "$W/testlog.txt"
grep -E '^# ' "$W/testlog.txt" | grep -v SEED >>"$S"

# 2. environment and calibration
$NB env >"$W/env.txt" 2>&1
cat "$W/env.txt" >>"$S"
t0=$(date +%s)
$NB calibrate --format json --output "$OUT/calibrate.json" >"$W/calibrate.txt" 2>"$W/calibrate.err"
log "calibrate rc=$? ($(( $(date +%s) - t0 )) s): nttbench calibrate"
$NB calibrate --format md --min-time 0.05 >"$W/calibrate.md" 2>>"$W/calibrate.err"
sed -n '/calibration/,$p' "$W/calibrate.md" >>"$S"

# 3. warm + cold of every GPU variant (the defaults: logN 16, L 1,8,32)
T="--min-time $MINTIME --timeout 5"
t0=$(date +%s)
$NB run $T --format json --output "$OUT/run_default.json" >"$W/run_default.txt" 2>"$W/run_default.err"
log "run default rc=$? ($(( $(date +%s) - t0 )) s): nttbench run $T"
cat "$W/run_default.txt" >>"$S"

# 4. the three timing modes, and the L2-persist extreme
t0=$(date +%s)
$NB run $T --variant gpu-regs,gpu-radix2 --tier warm,cold --logn 16 --limbs 32 \
    --mode per-launch,batch,graph --format json --output "$OUT/run_modes.json" \
    >"$W/run_modes.txt" 2>"$W/run_modes.err"
log "run modes rc=$? ($(( $(date +%s) - t0 )) s)"
cat "$W/run_modes.txt" >>"$S"
$NB run $T --variant gpu-regs --tier warm --logn 16 --limbs 8,32 --l2-persist 1.0 \
    >"$W/run_persist.txt" 2>&1
log "run l2-persist rc=$?"
cat "$W/run_persist.txt" >>"$S"

# 5. Nsight Compute: L2 hit rate (and DRAM bytes read) of the timed NTT
# kernels, warm vs cold. Batch mode K=1 (no blocking kernel under the
# profiler), exactly 20 samples, no throttle discards, application replay so
# every pass sees the real cache state.
M=lts__t_sector_hit_rate.pct,lts__t_sector_op_read_hit_rate.pct,dram__bytes_read.sum,lts__t_sectors_op_read.sum
for v in gpu-regs gpu-smem; do
    for tier in warm cold; do
        ncu --cache-control none --clock-control none --replay-mode application --metrics $M \
            --kernel-name regex:'regs_phase|smem_|radix2_' --csv \
            $NB run --variant $v --tier $tier --logn 16 --limbs 8 --mode batch --batch 1 \
            --min-samples 20 --max-samples 20 --min-time 0 --warmup 2 --warmup-time 0 \
            --throttle-threshold 0 --seed 1 -q --format json \
            --output "$W/ncu_${v}_${tier}.json" >"$W/ncu_${v}_${tier}.csv" 2>"$W/ncu_${v}_${tier}.err"
        log "ncu $v $tier rc=$?"
    done
done
python3 "$(dirname "$0")/ncu_summary.py" "$W" | tee -a "$S"
cp "$W/ncu_gpu-regs_warm.csv" "$W/ncu_gpu-regs_cold.csv" "$OUT/" 2>/dev/null
tar czf "$OUT/logs.tgz" -C "$W" .
echo "---- summary ----"
cat "$S"

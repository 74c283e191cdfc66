#!/bin/bash
# Checks and measures nttbench on a GPU machine, in phases (so it fits the
# device tool's 10-minute calls; a later phase reuses the build of an earlier
# one when the machine is still warm):
#   check : build, the whole test suite (GPU suite included), compute-sanitizer
#           memcheck, racecheck and initcheck of every GPU variant (through
#           `nttbench verify`; gpu-fast at both of its block shapes) and of the
#           GPU CKKS stages (`nttbench verify --stage`), `nttbench calibrate`
#   ntt   : warm + cold tiers of every GPU variant, N = 2^16, 60-bit primes,
#           L = 1, 8, 32, 64, forward and inverse (the docs/results.md table)
#   word  : the 32-bit GPU variants, warm + cold, log N 15..17 x 1..128 limbs of
#           31-bit primes, and gpu-fast against gpu-fast32 at equal log Q
#           (docs/results.md's word-size tables) -> $OUT/word32.json, $OUT/wordq.json
#   stage : the stage tier (modup, moddown, keyswitch, rescale) of ckks16-l30-d3
#           for every GPU variant ($STAGE_VARIANTS), with breakdown and
#           micro-benchmarks
#   stagew: the stage tier of ckks16-l30-d3 (gpu-fast) beside its 32-bit twin
#           ckks16-l30-d3-w32 (gpu-fast32), and of Cheddar's two log N 16
#           bootstrapping sets -> $OUT/stagew.json, the word-size table in stagew.txt
#   wordx : the word phase's sweeps at log N 12..14 (32-bit limbs) and the
#           equal-log-Q comparison at log N 12..14 and 17 -> $OUT/word32x.json,
#           $OUT/wordqx.json
#   gpu   : the GPU tests and the sanitizer runs of `check`, without the CPU tests
#   gpusuite: the GPU tests alone
#   multi : several GPUs: test_gpu_multi, then the stage tier of ckks16-l30-d3 and
#           its 32-bit twin on 1..G GPUs ($MULTI_GPUS, default every count up to the
#           GPUs present) -> $OUT/multi.json, multi.txt; test_gpu_trace (its two-GPU
#           test) and the kernel trace of the key switch on 1 and 2 GPUs
#           -> $OUT/multi-trace.json, multi-trace.txt
#   san, calib: the sanitizer runs of `check` alone; `nttbench calibrate` alone
#   gpuntt: the GPU NTT test (bit-exact against cpu-harvey and GMP) alone
#   results: the full table of docs/results.md: warm + cold of every GPU variant
#           at log N 12..17 x L 1..64, forward and inverse -> $OUT/results.json,
#           $OUT/results.md
#   ncu   : Nsight Compute of gpu-fast, log N 16, L = 1 and 32, forward, cold semantics
#           ($NCU_VARIANT, $NCU_BITS, $NCU_LIMBS and $NCU_DIRECTION choose another)
#   ncuconv: Nsight Compute of one base conversion (11 -> 31 primes) inside the
#           ckks16-l30-d3 key switch ($NCU_CONV_VARIANT, $NCU_CONV_PRESET and
#           $NCU_CONV_KERNEL, a regex, choose another: gpu-fast32,
#           ckks16-l30-d3-w32 and conv32_pipe_kernel for the 32-bit one)
#   ab    : this tree side by side with a baseline source tarball ($NB_BASE_TAR,
#           e.g. `git archive -o .devdeps/base.tar HEAD` before the change):
#           both built, then `nttbench run $AB_ARGS` with each build in turn,
#           twice (base, new, base, new), and `nttbench compare` of each pair
#           -> $OUT/ab-{base,new}-{1,2}.json, $OUT/ab-compare-{1,2}.txt
# Usage, from the repository root:  scripts/device-check.sh [check] [ntt] [stage] ...
# NB_PREBUILT=1 with NB_BUILD=DIR: DIR holds bench/cli/nttbench and libnttbench.so
# built elsewhere (carried), nothing is built; SAN_ONLY=REGEX: only the sanitizer
# runs of the variants it matches.
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
if [ -n "${NB_PREBUILT:-}" ]; then # binaries built elsewhere with the same nvcc, carried here
    stamp "prebuilt $NB"
else
    if [ ! -f "$B/build.ninja" ]; then
        meson setup "$B" -Dtests=enabled > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
    fi
    ninja -C "$B" >> "$OUT/build.log" 2>&1 || { grep -A8 -i error "$OUT/build.log" | head -60; exit 1; }
    stamp "build ok"
fi

# One compute-sanitizer run: TOOL NAME ARGS... (nttbench arguments); the
# summary line goes to $OUT/san-NAME-TOOL.txt, the whole log to sanitizer.log.
san_one() {
    local tool=$1 name=$2; shift 2
    local log="$OUT/san-$name-$tool.log"
    timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 "$NB" --quiet "$@" > "$log" 2>&1
    echo "$tool $name: rc=$? $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tr '\n' ' ')" \
        > "$OUT/san-$name-$tool.txt"
}
# Every GPU variant through `verify` (L = 2: sub-ranges too; gpu-fast at both of
# its block shapes, L = 8 and 32 at log N 16 are its large one, 32 with the
# early trigger and L2 evict-first hints; with 60-bit primes it reduces less
# often, with 62-bit ones as usual; gpu-fast32 likewise, with 30-bit primes
# on its Harvey butterflies and 31-bit ones on the q < 2^31 family) and the GPU CKKS stages
# through `verify --stage`, under memcheck, racecheck and initcheck, in parallel.
sanitize_all() {
    local jobs=()
    for tool in memcheck racecheck initcheck; do
        for cfg in "gpu-radix2 16 2" "gpu-smem 16 2" "gpu-regs 12 2" "gpu-regs 16 2" "gpu-fast 16 1" \
                   "gpu-regs 17 2" "gpu-fast 12 2" "gpu-fast 16 2" "gpu-fast 16 8" "gpu-fast 16 32" \
                   "gpu-fast 17 2" "gpu-fast 16 32 62" "gpu-fast 16 1 62" \
                   "gpu-radix2-32 16 2 31" "gpu-fast32 16 1 31" "gpu-fast32 16 2 30" \
                   "gpu-fast32 16 32 31" "gpu-fast32 16 64 30" "gpu-fast32 12 2 31" \
                   "gpu-fast32 17 2 31"; do
            set -- $cfg
            [[ "$1" =~ ${SAN_ONLY:-.} ]] || continue
            san_one $tool "$1-$2-L$3-q${4:-60}" verify --variant "$1" --logn "$2" --limbs "$3" \
                --bits "${4:-60}" --direction forward,inverse &
            jobs+=($!)
        done
        for v in gpu-regs gpu-fast gpu-fast32 gpu-radix2-32; do
            [[ "stages-$v" =~ ${SAN_ONLY:-.} ]] || continue
            local preset=test-small
            [[ "$v" == *32 ]] && preset=test-small-w32
            san_one $tool "stages-$v" verify --stage modup,moddown,keyswitch,rescale \
                --preset $preset --variant $v &
            jobs+=($!)
        done
        wait "${jobs[@]}"
        jobs=()
    done
    cat "$OUT"/san-*.log >> "$OUT/sanitizer.log" 2>/dev/null
    rm -f "$OUT"/san-*.log
    cat "$OUT"/san-*.txt | tee -a "$summary"
    rm -f "$OUT"/san-*.txt
}

if has check; then
    meson test -C "$B" --no-rebuild --num-processes 8 --print-errorlogs > "$OUT/tests.log" 2>&1
    stamp "meson test rc=$?"
    grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:|^Timeout:" "$OUT/tests.log" | tee -a "$summary"
    sanitize_all
    stamp "sanitizers done"
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

if has word; then
    "$NB" run --tier warm,cold --word 32 --variant gpu-fast32 --logn 15:17 \
        --limbs 1,2,4,8,16,32,64,128 --bits 31 --direction forward,inverse \
        ${WORD_TIMING:---min-time 0.02 --timeout 0.3} --no-progress \
        --format json --output "$OUT/word32.json" > "$OUT/word32.txt" 2> "$OUT/word32.err"
    stamp "word32 sweep rc=$?"
    "$NB" run --tier warm,cold --word 32,64 --variant gpu-fast,gpu-fast32,gpu-radix2-32 --logn 16 \
        --logq ${WORD_LOGQ:-120,480,960,1920,3840} --direction forward,inverse \
        ${WORD_TIMING:---min-time 0.02 --timeout 0.3} --no-progress \
        --format json --output "$OUT/wordq.json" > "$OUT/wordq.txt" 2> "$OUT/wordq.err"
    stamp "word log Q sweep rc=$?"
    grep -E "gpu-fast|gpu-radix2-32" "$OUT/wordq.txt" | cut -c1-140 | tee -a "$summary"
fi

if has stage; then
    "$NB" run --tier stage --variant "${STAGE_VARIANTS:-gpu-fast,gpu-regs,gpu-smem,gpu-radix2}" \
        --preset ckks16-l30-d3 \
        --max-noise 1 --timeout 4 --no-progress \
        --format json --output "$OUT/stage.json" > "$OUT/stage.txt" 2> "$OUT/stage.err"
    stamp "stage tier rc=$?"
    cat "$OUT/stage.txt" >> "$summary"
fi
if has stagew; then
    "$NB" run --tier stage --variant gpu-fast,gpu-fast32 \
        --preset ckks16-l30-d3,ckks16-l30-d3-w32,cheddar16-boot-w64,cheddar16-boot-w32 \
        --max-noise 1 --timeout 4 --no-progress \
        --format json --output "$OUT/stagew.json" > "$OUT/stagew.txt" 2> "$OUT/stagew.err"
    stamp "stage tier, both word sizes rc=$?"
    sed -n '/^Word sizes/,/^$/p' "$OUT/stagew.txt" | tee -a "$summary"
fi
if has wordx; then
    "$NB" run --tier warm,cold --word 32 --variant gpu-fast32 --logn 12:14 \
        --limbs 1,2,4,8,16,32,64,128 --bits 31 --direction forward,inverse \
        ${WORD_TIMING:---min-time 0.02 --timeout 0.3} --no-progress \
        --format json --output "$OUT/word32x.json" > "$OUT/word32x.txt" 2> "$OUT/word32x.err"
    stamp "word32 sweep log N 12..14 rc=$?"
    "$NB" run --tier warm,cold --word 32,64 --variant gpu-fast,gpu-fast32 --logn 12,13,14,17 \
        --logq ${WORD_LOGQ:-120,480,960,1920,3840} --direction forward,inverse \
        ${WORD_TIMING:---min-time 0.02 --timeout 0.3} --no-progress \
        --format json --output "$OUT/wordqx.json" > "$OUT/wordqx.txt" 2> "$OUT/wordqx.err"
    stamp "word log Q sweep log N 12..14, 17 rc=$?"
fi
if has gpu; then # the GPU tests and the sanitizers alone (after a GPU-only change)
    meson test -C "$B" --no-rebuild --suite gpu --num-processes 4 --print-errorlogs > "$OUT/tests.log" 2>&1
    stamp "meson test --suite gpu rc=$?"
    grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:" "$OUT/tests.log" | tee -a "$summary"
    sanitize_all
    stamp "sanitizers done"
fi
if has san; then # the sanitizer runs alone (works with NB_PREBUILT)
    sanitize_all
    stamp "sanitizers done"
fi
if has calib; then
    "$NB" calibrate --format json --output "$OUT/calibrate.json" > "$OUT/calibrate.txt" 2>&1
    stamp "calibrate rc=$?"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
def walk(x, p=""):
    if isinstance(x, dict):
        for k, v in x.items(): walk(v, p + "." + k)
    elif isinstance(x, (int, float)) and not isinstance(x, bool): print(p[1:], x)
walk(d.get("device", d))' "$OUT/calibrate.json" | grep -iE "butterfl|bandwidth|launch|barrier|clock" | head -30 | tee -a "$summary"
fi
if has gpusuite; then # the GPU tests alone
    meson test -C "$B" --no-rebuild --suite gpu --num-processes 4 --print-errorlogs > "$OUT/tests.log" 2>&1
    stamp "meson test --suite gpu rc=$?"
    grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:" "$OUT/tests.log" | tee -a "$summary"
fi
if has multi; then # several GPUs: the bit-exactness test, then the stage tier on 1..G GPUs
    if [ -z "${NB_NCCL_LIBRARY:-}" ]; then # the image's NCCL is the nvidia-nccl-cu13 wheel
        d=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null)
        [ -n "$d" ] && [ -f "$d/lib/libnccl.so.2" ] && export NB_NCCL_LIBRARY="$d/lib/libnccl.so.2"
    fi
    export NCCL_NVLS_ENABLE=0
    stamp "NCCL: ${NB_NCCL_LIBRARY:-found by the loader}"
    "$B/tests/test_gpu_multi" > "$OUT/multi-test.log" 2>&1
    stamp "test_gpu_multi rc=$? $(grep -E 'PASSED|FAILED' "$OUT/multi-test.log" | tr '\n' ' ')"
    G=$(nvidia-smi -L | wc -l)
    "$NB" env > "$OUT/multi-env.txt" 2>&1
    grep -E "^ *GPUs" "$OUT/multi-env.txt" | tee -a "$summary"
    "$NB" run --tier stage --variant gpu-fast,gpu-fast32 --preset ckks16-l30-d3,ckks16-l30-d3-w32 \
        --gpus "${MULTI_GPUS:-$(seq -s, 1 "$G")}" --no-micro --max-noise 1 --timeout 4 \
        --no-progress --format json --output "$OUT/multi.json" > "$OUT/multi.txt" 2> "$OUT/multi.err"
    stamp "stage tier on 1..$G GPUs rc=$?"
    "$B/tests/test_gpu_trace" > "$OUT/multi-trace-test.log" 2>&1
    stamp "test_gpu_trace rc=$? $(grep -E 'PASSED|FAILED|SKIPPED|skipped' "$OUT/multi-trace-test.log" | tr '\n' ' ')"
    "$NB" run --tier stage --stage keyswitch --variant gpu-fast --preset ckks16-l30-d3 --gpus 1,2 \
        --trace --no-micro --timeout 4 --no-progress --format json \
        --output "$OUT/multi-trace.json" > "$OUT/multi-trace.txt" 2>&1
    stamp "traced key switch on 1 and 2 GPUs rc=$?"
fi
if has gpuntt; then
    meson test -C "$B" --no-rebuild --print-errorlogs gpu_ntt > "$OUT/tests.log" 2>&1
    stamp "meson test gpu_ntt rc=$?"
    grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:" "$OUT/tests.log" | tee -a "$summary"
fi


if has results; then # the full table of docs/results.md: every GPU variant at every CKKS shape
    "$NB" run --tier warm,cold --variant gpu-radix2,gpu-smem,gpu-regs,gpu-fast \
        --logn 12:17 --limbs 1,2,4,8,16,32,64 --bits 60 --direction forward,inverse \
        ${RESULTS_TIMING:---min-time 0.02 --timeout 0.3} --no-progress \
        --format json --output "$OUT/results.json" > "$OUT/results.txt" 2> "$OUT/results.err"
    stamp "results rc=$?"
    python3 scripts/sweep_table.py "$OUT/results.json" > "$OUT/results.md"
fi

if has ncu; then # cold semantics: the suite flushes; ncu must neither flush nor lock clocks
    for L in ${NCU_LIMBS:-1 32}; do # NCU_VARIANT, NCU_BITS, NCU_DIRECTION: another variant, prime size, direction
        timeout 120 ncu --cache-control none --clock-control none --replay-mode application \
            --section SpeedOfLight --section LaunchStats --section Occupancy \
            --section SchedulerStats --section WarpStateStats --section ComputeWorkloadAnalysis \
            --section MemoryWorkloadAnalysis \
            --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio|sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active' \
            --kernel-name regex:fast_phase --launch-skip 4 --launch-count 2 \
            "$NB" run --variant ${NCU_VARIANT:-gpu-fast} --bits ${NCU_BITS:-60} --tier cold --logn 16 \
            --limbs $L --mode batch --batch 1 \
            --min-samples 3 --max-samples 3 --min-time 0 --warmup 1 --warmup-time 0 \
            --throttle-threshold 0 --seed 1 -q --direction ${NCU_DIRECTION:-forward} \
            --format json --output "$OUT/ncu-run.json" > "$OUT/ncu-L$L.txt" 2>&1
        stamp "ncu L=$L rc=$?"
        grep -E "fast_phase|Duration|DRAM Throughput|Issue Slots Busy|Issued Ipc|No Eligible|Achieved Occupancy|Registers Per|Block Size|Grid Size|Stall|stalled|pipe_|Warp Cycles Per Issued" \
            "$OUT/ncu-L$L.txt" | grep -v "==PROF==" | head -120
    done
fi
if has ncuconv; then # batch mode: no blocking kernel, which ncu's serialization would stall
    timeout 150 ncu --cache-control none --clock-control none --replay-mode application \
        --section SpeedOfLight --section LaunchStats --section Occupancy \
        --section SchedulerStats --section WarpStateStats --section ComputeWorkloadAnalysis \
        --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio|sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active|smsp__inst_executed\.sum$' \
        --kernel-name regex:${NCU_CONV_KERNEL:-conv_kernel} --launch-skip 5 --launch-count 1 \
        "$NB" run --tier stage --variant ${NCU_CONV_VARIANT:-gpu-fast} \
        --preset ${NCU_CONV_PRESET:-ckks16-l30-d3} --stage keyswitch \
        --no-micro --mode batch --batch 1 --min-samples 1 --max-samples 1 --min-time 0 \
        --warmup 1 --warmup-time 0 --timeout 5 --no-progress -q > "$OUT/ncu-conv.txt" 2>&1
    stamp "ncu conversion rc=$?"
    grep -E "conv.*kernel|Duration|DRAM Throughput|Issue Slots Busy|Registers Per|Achieved Occupancy|inst_executed\.sum |pipe_(alu|fmaheavy|lsu)\.avg|stalled_(math|not_sel|wait|long|barrier|dispatch)" \
        "$OUT/ncu-conv.txt" | grep -v "==PROF==" | head -40
fi
if has ab; then
    BB=/tmp/nb-base
    if [ ! -f "$BB/build.ninja" ]; then
        mkdir -p $BB-src && tar -xf "${NB_BASE_TAR:-.devdeps/base.tar}" -C $BB-src &&
            meson setup "$BB" $BB-src -Dtests=disabled > "$OUT/build-base.log" 2>&1 ||
            { tail -30 "$OUT/build-base.log"; exit 1; }
    fi
    ninja -C "$BB" >> "$OUT/build-base.log" 2>&1 || { grep -A8 -i error "$OUT/build-base.log" | head -40; exit 1; }
    stamp "baseline build ok"
    AB=${AB_ARGS:---tier warm,cold --variant gpu-fast --logn 16 --limbs 1,8,32 --bits 60 --direction forward,inverse --min-time 0.02 --timeout 0.3}
    for pass in 1 2; do
        for b in base new; do
            bin=$NB; [ $b = base ] && bin=$BB/bench/cli/nttbench
            $bin run $AB --no-progress --format json --output "$OUT/ab-$b-$pass.json" \
                > "$OUT/ab-$b-$pass.txt" 2>&1
            stamp "ab $b pass $pass rc=$?"
        done
        "$NB" compare "$OUT/ab-base-$pass.json" "$OUT/ab-new-$pass.json" --threshold 1 \
            > "$OUT/ab-compare-$pass.txt" 2>&1
        stamp "ab compare pass $pass rc=$?"
    done
    # both passes of each build as repeated runs: the run-to-run spread enters the verdict
    "$NB" compare "$OUT/ab-base-1.json" "$OUT/ab-base-2.json" -- "$OUT/ab-new-1.json" \
        "$OUT/ab-new-2.json" --threshold 1 > "$OUT/ab-compare-runs.txt" 2>&1
    stamp "ab compare runs rc=$?"
fi
stamp "done"

#!/bin/bash
# One device call for the GPU NTT variants: build, GPU tests, compute-sanitizer
# (memcheck + racecheck, one size per variant), the tuning probe's timings,
# the SASS of gpu-regs and an Nsight Compute profile of gpu-regs at L = 32.
# Usage (repository root, on the device machine, $OUT set):
#   scripts/gpu_ntt_device.sh [build] [test] [sanitize] [probe] [sass] [ncu]
# (no arguments = all steps). Logs go to $OUT; the last lines printed are the
# probe table.
set -u
STEPS="${*:-build test sanitize probe sass ncu bench}"
has() { [[ " $STEPS " == *" $1 "* ]]; }
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
B=/tmp/b
R=/tmp/devroot
for f in .devdeps/*.deb; do dpkg -x "$f" $R; done
export PKG_CONFIG_PATH=$R/usr/lib/x86_64-linux-gnu/pkgconfig PKG_CONFIG_SYSROOT_DIR=$R \
  CPATH=$R/usr/include:$R/usr/include/x86_64-linux-gnu LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu \
  LD_LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv | tee "$OUT/build.log"

if has build; then
  { [ -d $B ] || meson setup $B -Dtests=enabled >/dev/null; } &&
  ninja -C $B tests/test_gpu_ntt >> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  has bench && { ninja -C $B bench/cli/nttbench >> "$OUT/build.log" 2>&1 || echo "nttbench build failed"; }
  nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -I. scripts/gpu_ntt_probe.cu scripts/gpu_ntt_probe_alt.cu scripts/gpu_ntt_probe_alt2.cu scripts/gpu_ntt_probe_alt3.cu \
    -o $B/probe -L$B -lnttbench -Xlinker -rpath=$B -Xptxas -v >> "$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; exit 1; }
  echo "build ok"
fi

if has test; then
  meson test -C $B --no-rebuild --print-errorlogs gpu_ntt > "$OUT/build.log.test" 2>&1
  echo "meson test rc=$?"
  grep -E "^ *[0-9]+/[0-9]+ |Ok:|Fail:|Skipped:" "$OUT/build.log.test"
  cat "$OUT/build.log.test" $B/meson-logs/testlog.txt >> "$OUT/build.log" 2>/dev/null
  rm -f "$OUT/build.log.test"
  grep -E "PASSED|FAILED|\[  (OK|FAILED) \]|seed|mismatch|guard" $B/meson-logs/testlog.txt | tail -16
fi

if has sanitize; then
  : > "$OUT/sanitizer.log"
  for tool in memcheck racecheck; do
    for cfg in "gpu-radix2 16" "gpu-smem 16" "gpu-regs 16" "gpu-regs 12" "gpu-regs 17"; do
      set -- $cfg
      echo "== $tool $1 log_n=$2 L=2" >> "$OUT/sanitizer.log"
      timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 $B/probe --check-only 1 \
        --variant $1 --logn $2 --limbs 2 >> "$OUT/sanitizer.log" 2>&1
      echo "rc=$?" >> "$OUT/sanitizer.log"
    done
  done
  grep -E "^==|rc=|ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer.log" | paste - - - | head -20
fi

if has sass; then
  cuobjdump -res-usage $B/libnttbench.so.p/ntt_gpu_*.cu.o 2>&1 | grep -E "Function|REG" \
    >> "$OUT/build.log"
fi

if has ncu; then
  timeout 200 ncu --set full -k regex:regs_phase --launch-count 4 -o /tmp/ncu_regs -f \
    $B/probe --check-only 1 --variant ${NCU_VARIANT:-gpu-regs} --limbs 32 > "$OUT/ncu.log" 2>&1
  echo "ncu rc=$?"
  ncu --import /tmp/ncu_regs.ncu-rep --page details > "$OUT/ncu_details.txt" 2>&1
  ncu --import /tmp/ncu_regs.ncu-rep --page raw 2>&1 | grep -E "regs_phase|smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active.ratio|sm__inst_executed_pipe_[a-z_]+.avg.pct_of_peak_sustained_active|sm__pipe_[a-z_]+_cycles_active.avg.pct_of_peak_sustained_active|dram__bytes_read.sum |dram__bytes_write.sum |lts__t_sector_hit_rate.pct " \
    >> "$OUT/ncu_details.txt"
  grep -E "regs_phase|Duration|DRAM Throughput|Compute \(SM\) Throughput|Issue Slots Busy|Registers Per|Achieved Occupancy" \
    "$OUT/ncu_details.txt" | head -40
fi

if has probe; then
  $B/probe --logn 16 --bits 60 --limbs 1,8,32,64 --samples ${PROBE_SAMPLES:-100} \
    --variant ${PROBE_VARIANTS:-gpu-radix2,gpu-regs,gpu-regs-alt,gpu-regs-nopdl,gpu-regs-r64} | tee "$OUT/probe.txt"
fi

if has bench; then
  # the suite's own warm and cold tiers (official numbers)
  $B/bench/cli/nttbench calibrate --format md > "$OUT/bench.md" 2>&1
  $B/bench/cli/nttbench run --tier warm,cold --variant ${BENCH_VARIANTS:-gpu-radix2,gpu-smem,gpu-regs} \
    --logn 16 --limbs 1,8,32,64 --bits 60 --direction forward,inverse ${BENCH_OPTS:-} \
    --format json --output "$OUT/bench.json" 2>> "$OUT/bench.md"
  echo "nttbench run rc=$?"
  tail -5 "$OUT/bench.md"
fi

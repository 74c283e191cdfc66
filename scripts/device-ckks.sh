#!/bin/bash
# ckks helper (issue 5) device run: build, GPU CKKS tests, stage tier.
# usage: bash scripts/device-ckks.sh PHASE   (run from the repo root, $OUT set)
set -u
PHASE=${1:-1}
R=/tmp/devroot; for f in .devdeps/*.deb; do dpkg -x $f $R; done
export PKG_CONFIG_PATH=$R/usr/lib/x86_64-linux-gnu/pkgconfig PKG_CONFIG_SYSROOT_DIR=$R \
  CPATH=$R/usr/include:$R/usr/include/x86_64-linux-gnu LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu \
  LD_LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,memory.total,driver_version \
  --format=csv > $OUT/gpu.txt 2>&1; cat $OUT/gpu.txt
t0=$(date +%s)
BD=/tmp/b-ckks
BL=/tmp/ckks-build.log
[ -d $BD ] || meson setup $BD -Dtests=enabled > $BL 2>&1 || { tail -30 $BL; exit 1; }
ninja -C $BD tests/test_gpu_ckks bench/cli/nttbench >> $BL 2>&1 \
  || { grep -B2 -A12 -i "error" $BL | head -80; exit 1; }
git log -1 --format=%h 2>/dev/null; pwd
echo "build done in $(( $(date +%s) - t0 )) s"
B=$BD/bench/cli/nttbench
T="--max-noise 1 --timeout 4 --no-progress"
if [ "$PHASE" = 1 ] || [ "$PHASE" = 3 ] || [ "$PHASE" = 4 ]; then
  timeout 240 $BD/tests/test_gpu_ckks > $OUT/test_gpu_ckks.log 2>&1; echo "test_gpu_ckks rc=$?"
  grep -E "^#|OK|FAIL|ERROR|PASSED|seed=" $OUT/test_gpu_ckks.log | tail -30
  echo "tests done at $(( $(date +%s) - t0 )) s"
  timeout 280 $B run --tier stage --variant gpu-smem,gpu-regs,gpu-radix2 --preset ckks16-l30-d3 \
    $T --format json --output $OUT/stage-l30.json 2> $OUT/stage-l30.err; echo "stage rc=$?"
  tail -5 $OUT/stage-l30.err
fi
if [ "$PHASE" = 2 ] || [ "$PHASE" = 3 ]; then
  :
  timeout 330 $B run --tier stage --variant gpu-smem,gpu-regs --preset 100x-16-d3,100x-17-d3 \
    $T --format json --output $OUT/stage-100x.json 2> $OUT/stage-100x.err; echo "stage rc=$?"
  tail -5 $OUT/stage-100x.err
  timeout 120 $B run --tier stage --variant gpu-regs --preset ckks16-l30-d3 --mode graph \
    --stage keyswitch,modup,rescale $T --no-micro --format json --output $OUT/stage-graph.json \
    2> $OUT/stage-graph.err; echo "graph rc=$?"
  tail -3 $OUT/stage-graph.err
  timeout 120 $B run --tier stage --variant gpu-regs --preset 100x-16-d45 --stage keyswitch,modup \
    $T --no-micro --format json --output $OUT/stage-d45.json 2> $OUT/stage-d45.err
  echo "d45 rc=$?"; tail -3 $OUT/stage-d45.err
fi
echo "all done at $(( $(date +%s) - t0 )) s"

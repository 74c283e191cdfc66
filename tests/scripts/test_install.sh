#!/usr/bin/env bash
# nttbench as an installed dependency, as a distribution or a user sees it:
# `meson install --destdir` into a staging folder, then, with PKG_CONFIG_PATH
# and PKG_CONFIG_SYSROOT_DIR pointed there and nothing of the source tree on
# any path,
#   * the version: pkg-config's, the installed `nttbench --version`'s and the
#     soname agree with meson.build's;
#   * the installed nttbench-plot finds its module (share/nttbench) and draws
#     the bound roofline (when matplotlib is there);
#   * every installed header compiles alone as C11 and C++17 (-Werror) with
#     only the installed include folder (test_public_headers.sh --installed);
#   * docs/variants.md's CPU plug-in and docs/api.md's tier example are built
#     by the shell blocks those pages show (pkg-config alone) and run: the
#     installed `nttbench verify --plugin` passes the plug-in, the example
#     prints its "N cases, 0 not ok" line and writes its report;
#   * a Meson project with dependency('nttbench') and (when cmake exists) a
#     CMake project with the three lines of docs/api.md build and print
#     nb_version().
# A path of pkg-config's flags outside the staged prefix (the CUDA headers of
# a CUDA build) is linked into the staging folder, as a real sysroot holds it.
# Usage: test_install.sh SOURCE-ROOT BUILD-DIR VERSION MESON-COMMAND...
set -euo pipefail
src=$(cd "${1:?source root}" && pwd)
build=$(cd "${2:?build dir}" && pwd)
version=${3:?version}
shift 3
meson_cmd=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/stage
fail() { echo "FAIL: $*" >&2; exit 1; }
# run LOG CMD...: the command's output goes to LOG, shown when it fails
run() {
    local log=$1
    shift
    "$@" >"$log" 2>&1 || { cat "$log" >&2; fail "'$*' failed"; }
}

run "$tmp/install.log" "${meson_cmd[@]}" install -C "$build" --no-rebuild --destdir "$stage"
pc=$(find "$stage" -name nttbench.pc)
[ "$(echo "$pc" | wc -l)" = 1 ] && [ -n "$pc" ] || fail "one nttbench.pc expected, found: $pc"
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$stage
libdir=$(dirname "$(dirname "$pc")")
bindir=$(dirname "$(find "$stage" -path '*/bin/nttbench')")
for f in $(PKG_CONFIG_SYSROOT_DIR= pkg-config --cflags-only-I nttbench); do
    d=${f#-I}
    if [ ! -e "$stage$d" ] && [ -d "$d" ]; then
        mkdir -p "$(dirname "$stage$d")"
        ln -s "$d" "$stage$d"
    fi
done

# ---- versions ----
[ "$(pkg-config --modversion nttbench)" = "$version" ] ||
    fail "pkg-config --modversion nttbench is '$(pkg-config --modversion nttbench)', not $version"
IFS=. read -r major minor _ <<<"$version"
soversion=$([ "$major" = 0 ] && echo "$major.$minor" || echo "$major")
[ -f "$libdir/libnttbench.so.$version" ] && [ -L "$libdir/libnttbench.so.$soversion" ] &&
    [ -L "$libdir/libnttbench.so" ] || fail "libnttbench.so{,.$soversion,.$version} not in $libdir"
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
"$bindir/nttbench" --version | grep -q "^nttbench $version (" ||
    fail "installed nttbench --version: $("$bindir/nttbench" --version)"
[ -x "$bindir/nttbench-plot" ] || fail "nttbench-plot not installed"
# its module beside it in share/nttbench: the installed script draws the bound roofline
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    run "$tmp/plot.log" "$bindir/nttbench-plot" "$src/tests/data/ntt-h100-bounds.json" --out "$tmp/plot"
    [ -f "$tmp/plot/roofline-bounds.png" ] || fail "installed nttbench-plot drew no roofline-bounds"
fi
[ -n "$(find "$stage" -path '*/share/doc/nttbench/docs/api.md')" ] || fail "docs not installed"
for f in "$src"/docs/examples/*.c "$src"/docs/figures/*.png; do  # every one the docs name
    f=${f#"$src"/}
    [ -n "$(find "$stage" -path "*/share/doc/nttbench/$f")" ] || fail "$f not installed"
done

# ---- the installed headers, alone ----
inc=$(pkg-config --variable=includedir nttbench)/nttbench
inc=$stage${inc#"$stage"}
# shellcheck disable=SC2046
run "$tmp/headers.log" bash "$src/tests/scripts/test_public_headers.sh" --installed "$inc" \
    $(pkg-config --cflags nttbench)
cat "$tmp/headers.log"

# ---- the documented out-of-tree builds, exactly as shown ----
# The fenced block that follows a marker line in a page, without the fences.
block() {
    awk -v m="$2" 'index($0, m) == 1 { want = 1; next }
        want && /^```/ { if (inside) exit; inside = 1; next }
        inside { print }' "$1"
}
mkdir -p "$tmp/work/docs"
ln -s "$src/docs/examples" "$tmp/work/docs/examples"
block "$src/docs/variants.md" '<!-- commands: cpu-plugin-installed -->' >"$tmp/plugin.sh"
block "$src/docs/api.md" '<!-- commands: bench-api-installed -->' >"$tmp/bench_api.sh"
for f in plugin.sh bench_api.sh; do
    grep -q 'pkg-config --cflags --libs nttbench' "$tmp/$f" || fail "$f: no pkg-config build line"
done
(cd "$tmp/work" && PATH="$bindir:$PATH" OMP_NUM_THREADS=1 bash -euo pipefail "$tmp/plugin.sh") \
    >"$tmp/plugin.out" 2>&1 || { cat "$tmp/plugin.out" >&2; fail "docs/variants.md's installed plug-in lines"; }
grep -q 'my-cpu-ntt .* PASS' "$tmp/plugin.out" &&
    grep -Eq '^[1-9][0-9]* passed, 0 failed, 0 skipped, 0 errors' "$tmp/plugin.out" ||
    { cat "$tmp/plugin.out" >&2; fail "the plug-in was not verified"; }
(cd "$tmp/work" && OMP_NUM_THREADS=1 bash -euo pipefail "$tmp/bench_api.sh") \
    >"$tmp/bench_api.out" 2>&1 || { cat "$tmp/bench_api.out" >&2; fail "docs/api.md's installed example lines"; }
grep -Eq '^[0-9]+ cases, 0 not ok, report in report.json$' "$tmp/bench_api.out" &&
    grep -q '"schema": "nttbench-report"' "$tmp/work/report.json" ||
    { cat "$tmp/bench_api.out" >&2; fail "the tier example's output"; }
echo "ok: docs/variants.md's plug-in verified and docs/api.md's example run against the install"

# ---- Meson and CMake consumers ----
want="$version $(sed -n 's/^#define NB_PLUGIN_ABI_VERSION \([0-9]*\)$/\1/p' "$inc/ntt/variant.h")"
run "$tmp/meson.log" "${meson_cmd[@]}" setup "$tmp/meson-build" "$src/tests/install"
run "$tmp/meson.log" "${meson_cmd[@]}" compile -C "$tmp/meson-build"
[ "$("$tmp/meson-build/consumer")" = "$want" ] || fail "Meson consumer printed $("$tmp/meson-build/consumer")"
echo "ok: dependency('nttbench') builds against the install ($want)"
if command -v cmake >/dev/null; then
    while IFS= read -r line; do
        grep -Fxq "$line" "$src/docs/api.md" || fail "docs/api.md does not show the CMake line '$line'"
    done < <(grep -E '^(find_package|pkg_check_modules|target_link_libraries)' \
                  "$src/tests/install/CMakeLists.txt")
    run "$tmp/cmake.log" cmake -S "$src/tests/install" -B "$tmp/cmake-build"
    run "$tmp/cmake.log" cmake --build "$tmp/cmake-build"
    [ "$("$tmp/cmake-build/myprog")" = "$want" ] || fail "CMake consumer printed $("$tmp/cmake-build/myprog")"
    echo "ok: the three CMake lines of docs/api.md build against the install"
else
    echo "note: cmake not found: the CMake consumer was not built"
fi

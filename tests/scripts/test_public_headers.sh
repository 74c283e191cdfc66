#!/usr/bin/env bash
# Every public header compiles on its own, as C11 and as C++17, with warnings
# as errors. In the source tree: the umbrella nttbench.h, every header it
# includes (transitively, inside the tree) and every header docs/api.md
# names. Installed (--installed): every header under the installed include
# folder, with nothing but that folder (and pkg-config's other flags) on the
# include path, so a header that includes one that is not installed fails.
# A header that needs another one included first, or that is not valid C++,
# fails either way.
# Usage: test_public_headers.sh SOURCE-ROOT
#        test_public_headers.sh --installed INCLUDE-DIR [CFLAGS...]
set -euo pipefail
cc=${CC:-gcc}
cxx=${CXX:-g++}
command -v "$cc" >/dev/null && command -v "$cxx" >/dev/null ||
    { echo "SKIP: $cc or $cxx not found" >&2; exit 77; }

if [ "${1:-}" = "--installed" ]; then
    inc=$(cd "${2:?include dir}" && pwd)
    shift 2
    flags=("-I$inc" "$@")
    cd "$inc"
    headers=$(find . -name '*.h' | sed 's|^\./||' | sort)
    where="headers installed under $inc"
else
    src=$(cd "${1:?source root}" && pwd)
    flags=(-I.)
    cd "$src"
    headers=$( {
        echo nttbench.h
        "$cc" -MM -I. -x c nttbench.h | tr ' \\' '\n\n' | grep '\.h$' || true
        grep -o '`[a-z0-9_/]*\.h`' docs/api.md | tr -d '`'
    } | sort -u)
    where="public headers"
fi
[ -n "$headers" ] || { echo "FAIL: no headers found" >&2; exit 1; }
fail=0
for h in $headers; do
    [ -f "$h" ] || { echo "FAIL: docs/api.md names $h, which does not exist" >&2; fail=1; continue; }
    "$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only "${flags[@]}" -x c "$h" ||
        { echo "FAIL: $h does not compile on its own as C11" >&2; fail=1; }
    "$cxx" -std=c++17 -Wall -Wextra -Werror -fsyntax-only "${flags[@]}" -x c++ "$h" ||
        { echo "FAIL: $h does not compile on its own as C++17" >&2; fail=1; }
done
[ "$fail" = 0 ] || exit 1
echo "ok: $(echo "$headers" | wc -l) $where compile alone as C11 and C++17"

#!/usr/bin/env bash
# Every public header compiles on its own, as C11 and as C++17, with warnings
# as errors: the umbrella nttbench.h, every header it includes (transitively,
# inside the tree) and every header docs/api.md names. A header that needs
# another one included first, or that is not valid C++, fails here.
# Usage: test_public_headers.sh SOURCE-ROOT
set -euo pipefail
src=$(cd "${1:?source root}" && pwd)
cd "$src"
cc=${CC:-gcc}
cxx=${CXX:-g++}
command -v "$cc" >/dev/null && command -v "$cxx" >/dev/null ||
    { echo "SKIP: $cc or $cxx not found" >&2; exit 77; }

headers=$( {
    echo nttbench.h
    "$cc" -MM -I. -x c nttbench.h | tr ' \\' '\n\n' | grep '\.h$' || true
    grep -o '`[a-z0-9_/]*\.h`' docs/api.md | tr -d '`'
} | sort -u)
fail=0
for h in $headers; do
    [ -f "$h" ] || { echo "FAIL: docs/api.md names $h, which does not exist" >&2; fail=1; continue; }
    "$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only -I. -x c "$h" ||
        { echo "FAIL: $h does not compile on its own as C11" >&2; fail=1; }
    "$cxx" -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I. -x c++ "$h" ||
        { echo "FAIL: $h does not compile on its own as C++17" >&2; fail=1; }
done
[ "$fail" = 0 ] || exit 1
echo "ok: $(echo "$headers" | wc -l) public headers compile alone as C11 and C++17"

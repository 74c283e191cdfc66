#!/usr/bin/env python3
"""The layering test: reads the object files of the given build targets with
`nm`, maps each object to its source file and that file to a layer, and fails
(exit 1, one line per violation) on

  * a cycle between source files at the symbol level: A needs a symbol B
    defines and B, directly or through other files, needs one A defines
    (strongly connected components of the file graph), and
  * a dependency up the layers (LAYERS below), or reference/ needing anything
    but the layers in REFERENCE_SEES.

Usage (meson passes the paths; see tests/meson.build):
  layering.py --nm NM --source-root DIR --build-root DIR TARGET...
    TARGET is a built library or executable; its objects are TARGET + '.p/*.o',
    matched to their sources through BUILD_ROOT/compile_commands.json.
  layering.py --self-test
    checks the analysis on a planted cycle and a planted upward call.
Exit: 0 clean, 1 violations, 2 bad usage or unreadable build.
Python 3 standard library only.
"""
import argparse
import json
import os
import subprocess
import sys

# ---- the layer map: the one place to update when folders move ----
# Layers from the ground up; a file may need symbols of its own layer and of
# the layers below it.
LAYERS = ["core", "ntt", "ckks", "bench/timing", "bench/report", "bench/tiers", "bench/cli"]
# Source path prefix -> layer; the first (longest listed first) match wins.
LAYER_OF_PREFIX = [
    ("core/", "core"),
    ("ntt/", "ntt"),
    ("ckks/", "ckks"),
    ("reference/", "reference"),
    ("bench/timing/", "bench/timing"),
    ("bench/report/", "bench/report"),
    ("bench/tiers/", "bench/tiers"),
    ("bench/cli/", "bench/cli"),
]
# reference/ is a side layer: it may see only these, and only layers at or
# above REFERENCE_USERS_FROM may need it.
REFERENCE_SEES = {"core", "ntt"}
REFERENCE_USERS_FROM = "bench/timing"

# nm -P types that define a symbol other files can link against (weak and
# local symbols do not make a dependency).
STRONG_DEFINED = set("TDBRGSC")


def layer_of(path):
    """Layer of a source path relative to the source root, or None."""
    for prefix, layer in LAYER_OF_PREFIX:
        if path.startswith(prefix):
            return layer
    return None


def may_depend(user, used):
    """True if a file of layer `user` may need a symbol of layer `used`."""
    if user == used:
        return True
    if user == "reference":
        return used in REFERENCE_SEES
    if used == "reference":
        return LAYERS.index(user) >= LAYERS.index(REFERENCE_USERS_FROM)
    return LAYERS.index(used) < LAYERS.index(user)


def parse_nm(text):
    """(defined, undefined) global symbol sets of one `nm -P -g` listing."""
    defined, undefined = set(), set()
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in STRONG_DEFINED:
            defined.add(name)
    return defined, undefined


def file_graph(symbols):
    """symbols: {source: (defined, undefined)} -> ({a: {b: [sym...]}}, errors)."""
    owner, errors = {}, []
    for src in sorted(symbols):
        for sym in symbols[src][0]:
            if sym in owner and owner[sym] != src:
                errors.append(f"duplicate: {sym} is defined in {owner[sym]} and {src}")
            owner.setdefault(sym, src)
    graph = {src: {} for src in symbols}
    for src, (_, undefined) in symbols.items():
        for sym in sorted(undefined):
            dst = owner.get(sym)
            if dst is not None and dst != src:
                graph[src].setdefault(dst, []).append(sym)
    return graph, errors


def strongly_connected(graph):
    """Tarjan's algorithm, iterative; returns the components, each sorted."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    n = stack.pop()
                    on_stack.discard(n)
                    comp.append(n)
                    if n == node:
                        break
                comps.append(sorted(comp))
    return comps


def violations(symbols):
    """All violation lines for {source: (defined, undefined)}, sorted."""
    graph, out = file_graph(symbols)
    for comp in strongly_connected(graph):
        if len(comp) < 2:
            continue
        members = set(comp)
        edges = [f"{a} needs {graph[a][b][0]} from {b}"
                 for a in comp for b in sorted(graph[a]) if b in members]
        out.append(f"cycle: {' <-> '.join(comp)} ({'; '.join(edges)})")
    for src in sorted(graph):
        for dst in sorted(graph[src]):
            lu, ld = layer_of(src), layer_of(dst)
            if lu is None or ld is None:
                out.append(f"unmapped: {src if lu is None else dst} has no layer "
                           "(add its folder to LAYER_OF_PREFIX)")
            elif not may_depend(lu, ld):
                out.append(f"upward: {src} ({lu}) needs {', '.join(graph[src][dst][:3])} "
                           f"from {dst} ({ld})")
    return sorted(set(out))


def collect(nm, source_root, build_root, targets):
    """{source relative to source_root: (defined, undefined)} of the targets."""
    with open(os.path.join(build_root, "compile_commands.json")) as f:
        commands = json.load(f)
    objdirs = [os.path.realpath(t) + ".p" + os.sep for t in targets]
    root = os.path.realpath(source_root) + os.sep
    symbols = {}
    for e in commands:
        obj = os.path.realpath(os.path.join(e["directory"], e["output"]))
        if not any(obj.startswith(d) for d in objdirs):
            continue
        src = os.path.realpath(os.path.join(e["directory"], e["file"]))
        if not src.startswith(root):
            continue  # generated sources live in the build tree
        if not os.path.exists(obj):
            raise FileNotFoundError(f"{obj} is not built")
        text = subprocess.run([nm, "-P", "-g", obj], check=True, capture_output=True,
                              text=True).stdout
        d, u = parse_nm(text)
        rel = src[len(root):]
        old = symbols.get(rel, (set(), set()))
        symbols[rel] = (old[0] | d, old[1] | u)
    return symbols


def self_test():
    """The analysis catches a planted cycle and a planted upward call, and
    passes a clean graph. Returns the number of failed checks."""
    listings = {
        "core/a.c": "nb_a T 0 10\nnb_b U\nmalloc U\n",       # core needs ntt: upward
        "ntt/b.c": "nb_b T 0 10\nnb_a U\nfree U\n",          # cycle a <-> b
        "ckks/c.c": "nb_c T 0 10\nnb_a U\nhelper t 20 4\n",  # clean downward use
        "reference/r.c": "nb_r T 0 8\nnb_c U\n",             # reference sees ckks: not allowed
        "bench/cli/m.c": "main T 0 4\nnb_r U\nnb_c U\n",     # clean: cli may use reference
        "bench/tiers/s.c": "nb_s T 0 8\nnb_r U\nnb_c U\n",   # clean: a tier's check may too
        "ckks/k.c": "nb_k T 0 8\nnb_r U\n",                 # below bench/timing: not allowed
    }
    symbols = {src: parse_nm(text) for src, text in listings.items()}
    got = violations(symbols)
    want_prefixes = [
        "cycle: core/a.c <-> ntt/b.c",
        "upward: core/a.c (core) needs nb_b from ntt/b.c (ntt)",
        "upward: reference/r.c (reference) needs nb_c from ckks/c.c (ckks)",
        "upward: ckks/k.c (ckks) needs nb_r from reference/r.c (reference)",
    ]
    failed = 0
    for w in want_prefixes:
        if not any(line.startswith(w) for line in got):
            print(f"self-test: missed '{w}'", file=sys.stderr)
            failed += 1
    if len(got) != len(want_prefixes):
        print(f"self-test: expected {len(want_prefixes)} violations, got {got}", file=sys.stderr)
        failed += 1
    clean = {src: parse_nm(t) for src, t in listings.items() if src in ("ckks/c.c", "bench/cli/m.c")}
    clean["core/a.c"] = parse_nm("nb_a T 0 10\n")
    if violations(clean):
        print(f"self-test: clean graph reported {violations(clean)}", file=sys.stderr)
        failed += 1
    if layer_of("bench/timing/run.c") != "bench/timing" or layer_of("bench/cli/main.c") != "bench/cli":
        print("self-test: bench/ mapping broken", file=sys.stderr)
        failed += 1
    print("self-test: " + ("ok" if not failed else f"{failed} check(s) failed"))
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--nm", default="nm")
    ap.add_argument("--source-root")
    ap.add_argument("--build-root")
    ap.add_argument("targets", nargs="*")
    args = ap.parse_args()
    if args.self_test:
        return 1 if self_test() else 0
    if not (args.source_root and args.build_root and args.targets):
        print("layering: need --source-root, --build-root and at least one target",
              file=sys.stderr)
        return 2
    try:
        symbols = collect(args.nm, args.source_root, args.build_root, args.targets)
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        print(f"layering: cannot read the build: {e}", file=sys.stderr)
        return 2
    if not symbols:
        print("layering: no object files found for the given targets", file=sys.stderr)
        return 2
    lines = violations(symbols)
    for line in lines:
        print(line)
    print(f"layering: {len(symbols)} source files, {len(lines)} violation(s)")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())

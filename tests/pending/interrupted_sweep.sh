#!/usr/bin/env bash
# SIGINT mid-sweep: finished cases are kept, the report says it was interrupted.
set -u
nb=${1:?nttbench}; t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
"$nb" --format json --output "$t/r.json" run --variant cpu-harvey --tier warm \
    --logn 10:16 --limbs 1,2,4,8 --min-time 0.3 >/dev/null 2>&1 &
pid=$!; sleep 4; kill -INT "$pid"; wait "$pid"; rc=$?
[ -s "$t/r.json" ] || { echo "FAIL: no report after SIGINT (exit $rc)"; exit 1; }
python3 - "$t/r.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
cases = r.get("cases", [])
if not any(c.get("status") == "ok" for c in cases): sys.exit("FAIL: finished cases lost")
if not r.get("interrupted"): sys.exit("FAIL: report not marked interrupted")
PY
ls "$t" | grep -q '\.tmp\.' && { echo "FAIL: temporary file left behind"; exit 1; }
[ "$rc" -eq 130 ] || { echo "FAIL: exit $rc after SIGINT (documented: 130)"; exit 1; }
echo ok

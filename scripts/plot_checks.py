"""The input checks of scripts/plot: what the figures read of a result file, as `nttbench
compare` reads it (fields of their kinds, the tier and status a run writes, sizes no run
writes, times in (0, 1e15] ns, breakdowns that agree with their steps), refused with one
InputError line naming the case and field; and the warnings of a report that is interrupted,
incomplete, cut, or timed on a contended host."""
import math
import sys

MAX_TIME_NS = 1e15
MAX_LOG_Q = 1e6  # bits; far beyond any modulus a run can build


class InputError(Exception):
    """A result file the figures cannot be drawn from; its text is the one line printed."""


NUM = (int, float)  # a JSON number, not a boolean
KIND = {dict: "an object", str: "a string", list: "an array", NUM: "a number", bool: "true or false"}
REPORT_FIELDS = {"cases": list, "environment": dict, "environment.host": dict, "environment.gpu": dict}
CASE_FIELDS = {**dict.fromkeys(("tier", "variant", "label", "status"), str), "params": dict,
               **dict.fromkeys(("stats", "figures", "metrics", "breakdown"), dict), "samples_ns": list,
               **{f"params.{k}": NUM for k in ("log_n", "n", "limbs", "prime_bits", "word_bits", "log_q")},
               **{f"params.{k}": str for k in ("direction", "stage", "preset", "rounding")},
               "figures.coefficient_bytes": NUM, "breakdown.ntt_share": NUM, "breakdown.steps": list}
NTT_PARAMS = {f"params.{k}": NUM for k in ("log_n", "n", "limbs", "prime_bits")}
STEP_FIELDS = {"name": str, "median_ns": NUM, "is_ntt": bool}
CALIB_FIELDS = {"hot_cold_copy": list, "cache_bytes": NUM, "gap_threshold": NUM, "backend": str}
ROW_FIELDS = dict.fromkeys(("working_set_bytes", "hot_Bps", "cold_Bps", "cold_over_hot_minus_1"), NUM)


def is_time(v):
    """A time a file may hold: a number in (0, 1e15] ns (NaN and infinities are not)."""
    return type(v) in NUM and 0 < v <= MAX_TIME_NS


def field(obj, path):
    """obj's value at a dotted path ("stats.median"); None where a part is absent."""
    for k in path.split("."):
        obj = obj.get(k) if isinstance(obj, dict) else None
    return obj


def check_fields(obj, fields, where, required=()):
    """obj an object whose fields (dotted paths, parents first) are absent, null or of their
    kind, those of `required` present; InputError naming `where` and the field."""
    if not isinstance(obj, dict):
        raise InputError(f"{where} is not an object")
    for path, kind in fields.items():
        v = field(obj, path)
        if v is None and path in required:
            raise InputError(f"{where}: no '{path}' ({KIND[kind]})")
        if v is not None and not (type(v) in kind if kind is NUM else type(v) is kind):
            raise InputError(f"{where}: '{path}' is not {KIND[kind]}")


def check_ntt_params(p, where):
    """An NTT case's sizes as a run writes them: log N a whole number in [1, 40] with n = 2^log N,
    limbs (absent only from a case that was never built) a whole number from 1, prime_bits a
    whole number in [2, 64]."""
    whole = {k: p[k] for k in ("log_n", "n", "limbs", "prime_bits") if k in p}
    for k, v in whole.items():
        if not math.isfinite(v) or v != int(v):
            raise InputError(f"{where}: 'params.{k}' {v!r} is not a whole number")
    if not 1 <= p["log_n"] <= 40 or p["n"] != 2 ** int(p["log_n"]):
        raise InputError(f"{where}: 'params.log_n' {p['log_n']!r} and 'params.n' {p['n']!r} are "
                         "not log N in [1, 40] and 2^log N")
    if p.get("limbs", 1) < 1:
        raise InputError(f"{where}: 'params.limbs' {p['limbs']!r} is not a count of limbs "
                         "(1 or more)")
    if not 2 <= p["prime_bits"] <= 64:
        raise InputError(f"{where}: 'params.prime_bits' {p['prime_bits']!r} is not in [2, 64]")


def check_case(c, where):
    """What the figures read of a case, as `nttbench compare` reads it (the strings tier,
    variant, label and status, the tier and status among those a run writes, a params object)
    and fields of their kinds, times in (0, 1e15] ns."""
    check_fields(c, CASE_FIELDS, where, required=("tier", "variant", "label", "status", "params"))
    if c["tier"] not in ("warm", "cold", "stage"):
        raise InputError(f"{where}: tier {c['tier']!r} is not warm, cold or stage")
    if c["status"] not in ("ok", "verify-failed", "error", "skipped", "interrupted"):
        raise InputError(f"{where}: status {c['status']!r} is not ok, verify-failed, error, "
                         "skipped or interrupted")
    if c["tier"] in ("warm", "cold"):  # an NTT case: the roofline figures sort and scale by these
        # an error or skipped row of a --logq target no limb count reaches has no limbs
        unbuilt = c["status"] in ("error", "skipped")
        check_fields(c, NTT_PARAMS, where,
                     required=tuple(k for k in NTT_PARAMS if k != "params.limbs" or not unbuilt))
        check_ntt_params(c["params"], where)
    p = c["params"]
    if p.get("word_bits") is not None and p["word_bits"] not in (32, 64):
        raise InputError(f"{where}: 'params.word_bits' is not 32 or 64")
    if p.get("log_q") is not None and not 0 < p["log_q"] <= MAX_LOG_Q:
        raise InputError(f"{where}: 'params.log_q' {p['log_q']!r} is not in (0, {MAX_LOG_Q:.0f}]")
    if isinstance(c.get("stats"), dict) and field(c, "stats.samples") is None:
        raise InputError(f"{where}: 'stats' has no sample count ('stats.samples')")
    median = field(c, "stats.median")
    if median is not None and not is_time(median):
        raise InputError(f"{where}: 'stats.median' {median!r} is not a time in (0, 1e15] ns")
    samples = c.get("samples_ns") or []
    for k, v in enumerate(samples):
        if not is_time(v):
            raise InputError(f"{where}: sample {k} is not a time in (0, 1e15] ns")
    # every sample kept (not a reservoir): the median must be theirs, as compare and report check
    if median is not None and samples and c.get("samples_selection") != "reservoir" \
            and field(c, "stats.samples") == len(samples):
        s, n = sorted(samples), len(samples)
        m = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
        if abs(m - median) > 1e-6 * abs(m):
            raise InputError(f"{where}: 'stats.median' {median:.6g} ns disagrees with the median "
                             f"of its {n} samples_ns, {m:.6g} ns")
    check_fields(c, {f"metrics.{k}": NUM for k in c.get("metrics") or {}}, where)
    for k, v in (c.get("metrics") or {}).items():
        if k.endswith("_ns_per_limb") and v is not None and not is_time(v):
            raise InputError(f"{where}: 'metrics.{k}' {v!r} is not a time in (0, 1e15] ns")
    steps = field(c, "breakdown.steps") or []
    for k, step in enumerate(steps):
        check_fields(step, STEP_FIELDS, f"{where}: breakdown step {k}", required=tuple(STEP_FIELDS))
        if not is_time(step["median_ns"]):
            raise InputError(f"{where}: breakdown step {k} ('{step['name']}'): median "
                             f"{step['median_ns']!r} is not a time in (0, 1e15] ns")
    if steps:  # the figure draws the steps and labels the share: both must be the run's
        total = sum(s["median_ns"] for s in steps)
        ntt = sum(s["median_ns"] for s in steps if s["is_ntt"])
        listed, share = field(c, "breakdown.sum_of_steps_ns"), field(c, "breakdown.ntt_share")
        if type(listed) in NUM and abs(listed - total) > 1e-6 * total + 1:
            raise InputError(f"{where}: 'breakdown.sum_of_steps_ns' {listed:.6g} ns disagrees "
                             f"with the sum of its steps, {total:.6g} ns")
        if share is not None and abs(share - ntt / total) > 1e-4:
            raise InputError(f"{where}: 'breakdown.ntt_share' {share:.6g} disagrees with its "
                             f"NTT steps' share of their sum, {ntt / total:.6g}")


def warn_incomplete(doc, path):
    """Warning lines on stderr for a run report that is interrupted, incomplete (files without
    the "complete" field are only checked for "interrupted") or holds fewer cases than its run
    planned, and for timed cases that ran on a contended host."""
    if doc.get("schema") != "nttbench-report":
        return
    n = len(doc.get("cases") or [])
    planned = doc.get("cases_planned")
    count = f"{n} of {planned} planned cases" if isinstance(planned, int) else f"{n} cases"
    if doc.get("interrupted") is True:
        sys.stderr.write(f"plot: warning: {path}: the run was interrupted; the file holds {count}\n")
    elif doc.get("complete") is False:
        sys.stderr.write(f"plot: warning: {path}: incomplete: its run had not finished when it "
                         f"was written ({count}; still running, or killed)\n")
    elif isinstance(planned, int) and n < planned:
        sys.stderr.write(f"plot: warning: {path}: holds {count} although its run finished: "
                         "cases were removed from it\n")
    timed = [c for c in doc.get("cases") or [] if field(c, "stats.median") is not None]
    busy = sum(1 for c in timed if c.get("contended") is True)
    if busy:
        sys.stderr.write(f"plot: warning: {path}: {busy} of {len(timed)} timed cases ran on a "
                         "contended host: their times are upper bounds, not the code's speed\n")

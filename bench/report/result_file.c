/* The result-file reader: loads an `nttbench run` JSON report with jansson,
 * checks its schema and field types, and exposes each case as an nb_rf_case
 * (matching key, median, samples, SM clocks). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/timing/rank_stats.h"
#include "bench/report/report.h"
#include "bench/report/result_file.h"

struct nb_result_file {
    char *path;
    json_t *root;
    nb_rf_case *cases;
    size_t n;
};

const char *nb_clock_source_name(nb_clock_source s)
{
    switch (s) {
    case NB_CLOCK_PER_SAMPLE: return "per-sample";
    case NB_CLOCK_RECORDED: return "recorded";
    default: return "none";
    }
}

const json_t *nb_json_path(const json_t *obj, const char *path)
{
    char key[64];
    while (obj && path && *path) {
        const char *dot = strchr(path, '.');
        size_t len = dot ? (size_t)(dot - path) : strlen(path);
        if (len >= sizeof key)
            return NULL;
        memcpy(key, path, len);
        key[len] = '\0';
        obj = json_is_object(obj) ? json_object_get(obj, key) : NULL;
        path = dot ? dot + 1 : NULL;
    }
    return obj;
}

static const char *str_or(const json_t *o, const char *key, const char *dflt)
{
    const json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : dflt;
}

static double num_or_nan(const json_t *v) { return json_is_number(v) ? json_number_value(v) : NAN; }

/* A numeric array field into a malloc'd vector; -1 when an element is not a number. */
static int numbers(const json_t *a, double **out, size_t *n, int allow_null, int *n_null)
{
    *out = NULL;
    *n = 0;
    *n_null = 0;
    if (!a || json_is_null(a))
        return 0;
    if (!json_is_array(a))
        return -1;
    size_t len = json_array_size(a);
    double *v = malloc((len ? len : 1) * sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < len; i++) {
        const json_t *e = json_array_get(a, i);
        if (json_is_number(e)) {
            v[i] = json_number_value(e);
        } else if (allow_null && json_is_null(e)) {
            v[i] = NAN;
            (*n_null)++;
        } else {
            free(v);
            return -1;
        }
    }
    *out = v;
    *n = len;
    return 0;
}

static double recorded_clock(const json_t *c)
{
    const json_t *clk = json_object_get(c, "clocks");
    double sum = 0;
    int k = 0;
    static const char *const which[] = {"nvml_before", "nvml_after"};
    for (int i = 0; i < 2; i++) {
        const json_t *nv = json_object_get(clk, which[i]);
        double v = num_or_nan(json_object_get(nv, "sm_clock_mhz"));
        if (isfinite(v) && v > 0 && v <= NB_RF_MAX_CLOCK_MHZ) {
            sum += v;
            k++;
        }
    }
    if (k)
        return sum / k;
    double d = num_or_nan(json_object_get(clk, "default_sm_mhz"));
    return isfinite(d) && d > 0 && d <= NB_RF_MAX_CLOCK_MHZ ? d : NAN;
}

/* samples_stored / samples_selection (optional): the stored count must match
 * samples_ns when the file has samples_ns (without it the case has no stored
 * samples to test) and stay within what a run stores (files that record it
 * come from runs that keep a reservoir beyond the cap), the selection be
 * "all" or "reservoir" and agree with stats.samples ("all": as many as
 * stored; "reservoir": more than the cap, the cap stored). Needs
 * n_recorded_samples and has_stats set. */
static nb_status stored_samples(const json_t *c, nb_rf_case *out, const char *p, size_t idx)
{
    const json_t *st = json_object_get(c, "samples_stored");
    const json_t *sel = json_object_get(c, "samples_selection");
    if (st && !json_is_integer(st))
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'samples_stored' is not a count",
                            p, idx);
    if (!json_object_get(c, "samples_ns")) /* none kept: insufficient data, as documented */
        st = NULL;
    if (st && (size_t)json_integer_value(st) != out->n_samples)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'samples_stored' does not "
                            "match the %zu entries of 'samples_ns'", p, idx, out->n_samples);
    if (st && out->n_samples > NB_REPORT_MAX_STORED_SAMPLES)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'samples_ns' holds %zu samples; "
                            "a run stores at most %d (a reservoir beyond that)", p, idx,
                            out->n_samples, NB_REPORT_MAX_STORED_SAMPLES);
    const char *v = json_string_value(sel);
    if (sel && (!v || (strcmp(v, "all") && strcmp(v, "reservoir"))))
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'samples_selection' is not "
                            "\"all\" or \"reservoir\"", p, idx);
    out->samples_reservoir = v && !strcmp(v, "reservoir");
    /* what a run writes: every sample up to the cap, a full reservoir beyond
     * (or none kept, when the reservoir could not be allocated) */
    const size_t all = out->n_recorded_samples, cap = NB_REPORT_MAX_STORED_SAMPLES;
    if (st && v && out->has_stats && json_object_get(json_object_get(c, "stats"), "samples") &&
        !(out->samples_reservoir && out->n_samples == 0) &&
        (out->samples_reservoir ? all <= cap || out->n_samples != cap : all != out->n_samples))
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'samples_selection' \"%s\" with "
                            "%zu stored of %zu samples ('stats.samples'): a run stores all of "
                            "up to %zu samples, a reservoir of %zu beyond that", p, idx, v,
                            out->n_samples, all, cap, cap);
    return NB_OK;
}

/* When samples_ns holds every accepted sample (stats.samples of them, not a
 * reservoir), stats.median must be their median: a file whose summary and
 * samples disagree was edited or damaged, and which one compare should
 * trust is unknown. Relative tolerance 1e-6 (the writer keeps 10 digits). */
static nb_status median_agrees(const nb_rf_case *c, const char *p, size_t idx)
{
    if (!c->has_stats || !c->n_samples || c->samples_reservoir ||
        c->n_recorded_samples != c->n_samples)
        return NB_OK;
    const double m = nb_rank_median(c->samples_ns, c->n_samples);
    if (fabs(m - c->median_ns) <= 1e-6 * fabs(m))
        return NB_OK;
    return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'stats.median' %.6g ns disagrees with "
                        "the median of its %zu samples_ns, %.6g ns", p, idx, c->median_ns,
                        c->n_samples, m);
}

/* params.word_bits (64 when absent: files before version 4) and
 * params.log_q (else the log2 of the product of params.primes, else NAN). */
static nb_status word_and_log_q(const json_t *params, nb_rf_case *out, const char *p, size_t idx)
{
    const json_t *wb = json_object_get(params, "word_bits");
    out->word_bits = 64;
    if (wb && (!json_is_integer(wb) ||
               (json_integer_value(wb) != 32 && json_integer_value(wb) != 64)))
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'params.word_bits' is not 32 "
                            "or 64", p, idx);
    if (wb)
        out->word_bits = (unsigned)json_integer_value(wb);
    const json_t *lq = json_object_get(params, "log_q");
    if (lq && !json_is_null(lq) && !json_is_number(lq))
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'params.log_q' is not a number",
                            p, idx);
    out->log_q = num_or_nan(lq);
    if (isfinite(out->log_q) && !(out->log_q > 0 && out->log_q <= 1e6)) /* as plot reads it */
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'params.log_q' %g is not in "
                            "(0, 1000000]", p, idx, out->log_q);
    const json_t *primes = json_object_get(params, "primes");
    if (!isfinite(out->log_q) && json_is_array(primes) && json_array_size(primes)) {
        double sum = 0.0;
        size_t i;
        const json_t *q;
        json_array_foreach(primes, i, q) {
            if (!json_is_integer(q) || json_integer_value(q) < 2)
                return NB_OK; /* not primes: log Q stays unknown */
            sum += log2((double)json_integer_value(q));
        }
        out->log_q = sum;
    }
    return NB_OK;
}

/* cache_state (optional) names a state a run writes, and an "ok" case passed
 * every check that ran (verification.before and .after, each "pass", "fail"
 * or "not-run" when present): a case that is "ok" after a failed check, or in
 * a state no run has, was edited or damaged. */
static nb_status state_and_checks(const json_t *c, const char *status, const char *p, size_t idx)
{
    static const char *const states[] = {"warm", "flush", "rotate", "both"};
    const json_t *cs = json_object_get(c, "cache_state");
    if (cs && !json_is_null(cs)) {
        int known = 0;
        for (size_t i = 0; json_is_string(cs) && i < sizeof states / sizeof states[0]; i++)
            known |= !strcmp(json_string_value(cs), states[i]);
        if (!known)
            return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'cache_state' is none of "
                                "warm, flush, rotate, both", p, idx);
    }
    const json_t *v = json_object_get(c, "verification");
    static const char *const when[] = {"before", "after"};
    for (int i = 0; i < 2 && json_is_object(v); i++) {
        const json_t *w = json_object_get(v, when[i]);
        const char *word = json_string_value(w);
        if (w && !json_is_null(w) &&
            (!word || (strcmp(word, "pass") && strcmp(word, "fail") && strcmp(word, "not-run"))))
            return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'verification.%s' is none "
                                "of pass, fail, not-run", p, idx, when[i]);
        if (word && !strcmp(word, "fail") && !strcmp(status, "ok"))
            return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: status ok, but its check %s "
                                "timing failed", p, idx, when[i]);
    }
    return NB_OK;
}

static nb_status read_case(nb_result_file *f, size_t idx, const json_t *c, nb_rf_case *out)
{
    const char *p = f->path;
    if (!json_is_object(c))
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu is not an object", p, idx);
    static const char *const required[] = {"tier", "variant", "label", "status"};
    for (int i = 0; i < 4; i++)
        if (!json_is_string(json_object_get(c, required[i])))
            return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu has no string '%s'", p, idx,
                                required[i]);
    static const char *const statuses[] = {"ok", "verify-failed", "error", "skipped",
                                           "interrupted"};
    static const char *const tiers[] = {"warm", "cold", "stage"};
    const char *status = json_string_value(json_object_get(c, "status"));
    const char *tier = json_string_value(json_object_get(c, "tier"));
    int known = 0;
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
        known |= !strcmp(status, statuses[i]);
    if (!known)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: status '%.40s' is none of ok, "
                            "verify-failed, error, skipped, interrupted", p, idx, status);
    known = 0;
    for (size_t i = 0; i < sizeof tiers / sizeof tiers[0]; i++)
        known |= !strcmp(tier, tiers[i]);
    if (!known)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: tier '%.40s' is none of warm, "
                            "cold, stage", p, idx, tier);
    NB_TRY(state_and_checks(c, status, p, idx));
    const json_t *params = json_object_get(c, "params");
    if (!json_is_object(params))
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu has no 'params' object (what "
                            "the case measured; it is matched on them)", p, idx);
    NB_TRY(word_and_log_q(params, out, p, idx));
    out->json = c;
    out->tier = str_or(c, "tier", "");
    out->variant = str_or(c, "variant", "");
    out->backend = str_or(c, "backend", "");
    out->label = str_or(c, "label", "");
    out->status = str_or(c, "status", "");
    out->mode = str_or(c, "mode", "");
    const json_t *lps = json_object_get(c, "launches_per_sample");
    out->launches_per_sample = json_is_integer(lps) ? (size_t)json_integer_value(lps) : 1;
    const json_t *st = json_object_get(c, "stats");
    if (st && !json_is_null(st) && !json_is_object(st))
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'stats' is not an object", p,
                            idx);
    out->has_stats = json_is_object(st) && json_is_number(json_object_get(st, "median"));
    if (json_is_object(st) && !out->has_stats)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'stats' has no numeric median",
                            p, idx);
    if (!out->has_stats && !strcmp(status, "ok") &&
        json_array_size(json_object_get(c, "samples_ns")))
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: timed (status ok, samples) but "
                            "without statistics", p, idx);
    out->median_ns = out->has_stats ? num_or_nan(json_object_get(st, "median")) : NAN;
    out->noise_pct = out->has_stats ? num_or_nan(json_object_get(st, "noise_pct")) : NAN;
    const json_t *ns = json_object_get(st, "samples");
    if (out->has_stats && !ns) /* every writer records it; without it no count is checked */
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'stats' has no sample count "
                            "('stats.samples')", p, idx);
    if (ns && (!json_is_integer(ns) || json_integer_value(ns) < 0))
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'stats.samples' is not a count "
                            "(a whole number, 0 or more)", p, idx);
    out->n_recorded_samples = ns ? (size_t)json_integer_value(ns) : 0;
    const json_t *stop = json_object_get(c, "stopping");
    out->noise_target_met = json_is_true(json_object_get(stop, "noise_target_met"));
    out->stop_reason = str_or(stop, "reason", "");
    const json_t *contended = json_object_get(c, "contended");
    if (contended && !json_is_boolean(contended) && !json_is_null(contended))
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'contended' is not true or "
                            "false", p, idx);
    out->contended = json_is_true(contended);
    out->contention_reason = str_or(json_object_get(c, "contention"), "reason", "");
    double *samples = NULL, *clocks = NULL;
    size_t n = 0, nc = 0;
    int nulls = 0, clock_nulls = 0;
    if (numbers(json_object_get(c, "samples_ns"), &samples, &n, 0, &nulls) != 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'samples_ns' is not an array "
                            "of numbers", p, idx);
    for (size_t i = 0; i < n; i++)
        if (!(samples[i] > 0) || !(samples[i] <= NB_RF_MAX_TIME_NS)) {
            free(samples);
            return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: sample %zu is not a "
                                "time in (0, 1e15] ns", p, idx, i);
        }
    if (out->has_stats && !(out->median_ns > 0 && out->median_ns <= NB_RF_MAX_TIME_NS)) {
        free(samples);
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'stats.median' %g is not a time "
                            "in (0, 1e15] ns", p, idx, out->median_ns);
    }
    if (numbers(json_object_get(c, "sample_sm_clock_mhz"), &clocks, &nc, 1, &clock_nulls) != 0) {
        free(samples);
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: 'sample_sm_clock_mhz' is not "
                            "an array of numbers or nulls", p, idx);
    }
    for (size_t i = 0; i < nc; i++)
        if (!isnan(clocks[i]) && !(clocks[i] > 0 && clocks[i] <= NB_RF_MAX_CLOCK_MHZ)) {
            nb_set_error(NB_ERR_INVALID_ARG, "%s: case %zu: sample %zu's SM clock "
                         "('sample_sm_clock_mhz'), %g MHz, is not in (0, 1e5] MHz", p, idx, i,
                         clocks[i]);
            free(samples);
            free(clocks);
            return NB_ERR_INVALID_ARG;
        }
    out->samples_ns = samples;
    out->n_samples = n;
    out->recorded_clock_mhz = strcmp(out->backend, "cpu") ? recorded_clock(c) : NAN;
    if (nc == n && n > 0 && clock_nulls == 0) {
        out->clock_source = NB_CLOCK_PER_SAMPLE;
        out->clock_mhz = clocks;
        out->median_clock_mhz = nb_rank_median(clocks, nc);
    } else {
        free(clocks);
        out->clock_source = isfinite(out->recorded_clock_mhz) ? NB_CLOCK_RECORDED : NB_CLOCK_NONE;
        out->median_clock_mhz = out->recorded_clock_mhz;
    }
    NB_TRY(stored_samples(c, out, p, idx));
    NB_TRY(median_agrees(out, p, idx));
    out->key = nb_rf_case_key(c, NULL, 0, 1);
    out->word_key = nb_rf_case_key(c, NULL, 1, 0);
    const json_t *pb = json_object_get(params, "prime_bits");
    out->prime_bits = json_is_integer(pb) ? (unsigned)json_integer_value(pb) : 0;
    if (!out->key || !out->word_key)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", p);
    return NB_OK;
}

/* The whole of `p` ("-": standard input) in one pass, so that a pipe, a FIFO
 * or a process substitution can be read: *buf (malloc'd, NUL-terminated). */
static nb_status read_all(const char *p, char **buf, size_t *len)
{
    FILE *fp = strcmp(p, "-") ? fopen(p, "rb") : stdin;
    if (!fp)
        return nb_set_error(NB_ERR_IO, "%s: cannot open: %s", p, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    nb_status s = b ? NB_OK : nb_set_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", p);
    while (s == NB_OK) {
        if (n + 1 >= cap) {
            char *nb = cap < ((size_t)1 << 40) ? realloc(b, cap * 2) : NULL;
            if (!nb) {
                s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", p);
                break;
            }
            b = nb;
            cap *= 2;
        }
        size_t got = fread(b + n, 1, cap - 1 - n, fp);
        n += got;
        if (got == 0 && ferror(fp))
            s = nb_set_error(NB_ERR_IO, "%s: cannot read: %s", p, strerror(errno));
        else if (got == 0)
            break;
    }
    if (fp != stdin)
        fclose(fp);
    if (s != NB_OK) {
        free(b);
        return s;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return NB_OK;
}

/* Reads `path` once and parses it into f->root; the messages name the file. */
static nb_status parse(nb_result_file *f)
{
    const char *p = f->path;
    char *buf = NULL;
    size_t len = 0;
    NB_TRY(read_all(p, &buf, &len));
    if (len >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b) {
        free(buf);
        return nb_set_error(NB_ERR_IO, "%s: gzip-compressed; decompress it first (gzip -dk, "
                            "or give '-' and pipe it: zcat F.json.gz | nttbench ...)", p);
    }
    json_error_t err;
    f->root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
    free(buf);
    if (!f->root)
        return nb_set_error(NB_ERR_IO, "%s: not valid JSON (line %d: %s)", p, err.line,
                            err.text);
    const char *schema = str_or(f->root, "schema", NULL);
    if (!json_is_object(f->root) || !schema)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: not an nttbench report (no 'schema')", p);
    if (strcmp(schema, NB_RESULT_SCHEMA) != 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: schema '%s', expected '%s' (a run report)",
                            p, schema, NB_RESULT_SCHEMA);
    const json_t *ver = json_object_get(f->root, "schema_version");
    if (!json_is_integer(ver) || json_integer_value(ver) < 1 ||
        json_integer_value(ver) > NB_RESULT_SCHEMA_MAX_VERSION)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: unsupported schema_version (this nttbench "
                            "reads 1..%d)", p, NB_RESULT_SCHEMA_MAX_VERSION);
    if (!json_is_array(json_object_get(f->root, "cases")))
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: 'cases' is not an array", p);
    const json_t *env = json_object_get(f->root, "environment");
    if (env && !json_is_null(env) && !json_is_object(env))
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: 'environment' is not an object", p);
    static const char *const flags[] = {"complete", "interrupted"};
    for (int i = 0; i < 2; i++) {
        const json_t *v = json_object_get(f->root, flags[i]);
        if (v && !json_is_boolean(v))
            return nb_set_error(NB_ERR_INVALID_ARG, "%s: '%s' is not true or false", p,
                                flags[i]);
    }
    const json_t *planned = json_object_get(f->root, "cases_planned");
    if (planned && !json_is_null(planned) &&
        (!json_is_integer(planned) || json_integer_value(planned) < 0))
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: 'cases_planned' is not a count", p);
    return NB_OK;
}

nb_rf_completeness nb_result_file_completeness(const nb_result_file *f, char *why, size_t n)
{
    if (why && n)
        why[0] = '\0';
    if (!f)
        return NB_RF_UNKNOWN;
    const json_t *complete = json_object_get(f->root, "complete");
    const json_t *planned = json_object_get(f->root, "cases_planned");
    nb_rf_completeness c = json_is_true(json_object_get(f->root, "interrupted"))
                               ? NB_RF_INTERRUPTED
                           : json_is_false(complete) ? NB_RF_INCOMPLETE
                           : json_is_true(complete)  ? NB_RF_COMPLETE
                                                     : NB_RF_UNKNOWN;
    if ((c == NB_RF_COMPLETE || c == NB_RF_UNKNOWN) && json_is_integer(planned) &&
        (json_int_t)f->n < json_integer_value(planned))
        c = NB_RF_SHORT;
    if (!why || !n || c == NB_RF_COMPLETE || c == NB_RF_UNKNOWN)
        return c;
    char count[64];
    if (json_is_integer(planned))
        snprintf(count, sizeof count, "%zu of %lld planned cases", f->n,
                 (long long)json_integer_value(planned));
    else
        snprintf(count, sizeof count, "%zu case%s", f->n, f->n == 1 ? "" : "s");
    if (c == NB_RF_INTERRUPTED)
        snprintf(why, n, "%s: the run was interrupted; the file holds %s", f->path, count);
    else if (c == NB_RF_SHORT)
        snprintf(why, n, "%s: holds %s although its run finished: cases were removed from it",
                 f->path, count);
    else
        snprintf(why, n, "%s: incomplete: its run had not finished when it was written "
                 "(%s; still running, or killed)", f->path, count);
    return c;
}

nb_status nb_result_file_load(nb_result_file **out, const char *path)
{
    if (!out || !path)
        return nb_set_error(NB_ERR_INVALID_ARG, "result file: NULL argument");
    *out = NULL;
    nb_result_file *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path))) {
        free(f);
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    nb_status s = parse(f);
    const json_t *cases = s == NB_OK ? json_object_get(f->root, "cases") : NULL;
    size_t n = json_array_size(cases);
    if (s == NB_OK && !(f->cases = calloc(n ? n : 1, sizeof *f->cases)))
        s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    for (size_t i = 0; s == NB_OK && i < n; i++) {
        s = read_case(f, i, json_array_get(cases, i), &f->cases[i]);
        f->n = i + 1; /* free what read_case set, even on failure */
    }
    if (s != NB_OK) {
        nb_result_file_destroy(f);
        return s;
    }
    *out = f;
    return NB_OK;
}

void nb_result_file_destroy(nb_result_file *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++) {
        free((void *)f->cases[i].samples_ns);
        free((void *)f->cases[i].clock_mhz);
        free((void *)f->cases[i].key);
        free((void *)f->cases[i].word_key);
    }
    free(f->cases);
    json_decref(f->root);
    free(f->path);
    free(f);
}

nb_status nb_result_file_ignore(nb_result_file *f, const char *const *params, int variant)
{
    if (!f)
        return nb_set_error(NB_ERR_INVALID_ARG, "result file: NULL argument");
    for (size_t i = 0; i < f->n; i++) {
        nb_rf_case *c = &f->cases[i];
        char *key = nb_rf_case_key(c->json, params, 0, !variant);
        char *word_key = nb_rf_case_key(c->json, params, 1, 0);
        if (!key || !word_key) {
            free(key);
            free(word_key);
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", f->path);
        }
        free((void *)c->key);
        free((void *)c->word_key);
        c->key = key;
        c->word_key = word_key;
    }
    return NB_OK;
}

int nb_result_file_has_param(const nb_result_file *f, const char *name)
{
    for (size_t i = 0; f && name && i < f->n; i++)
        if (json_object_get(json_object_get(f->cases[i].json, "params"), name))
            return 1;
    return 0;
}

const char *nb_result_file_path(const nb_result_file *f) { return f ? f->path : ""; }
size_t nb_result_file_case_count(const nb_result_file *f) { return f ? f->n : 0; }
const nb_rf_case *nb_result_file_case(const nb_result_file *f, size_t i)
{
    return f && i < f->n ? &f->cases[i] : NULL;
}
const json_t *nb_result_file_json(const nb_result_file *f) { return f ? f->root : NULL; }

static const json_t *object_or_null(const nb_result_file *f, const char *key)
{
    const json_t *v = f ? json_object_get(f->root, key) : NULL;
    return json_is_object(v) ? v : NULL;
}

const json_t *nb_result_file_env(const nb_result_file *f) { return object_or_null(f, "environment"); }
const json_t *nb_result_file_options(const nb_result_file *f) { return object_or_null(f, "options"); }

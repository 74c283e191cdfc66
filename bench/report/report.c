/* The report model: cases (tier, cache state, variant, parameters, result,
 * figures, breakdown, metrics, status) collected into a report with the
 * environment, the options and the command line; and the format names. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/report/internal.h"

const char *nb_case_status_name(nb_case_status s)
{
    switch (s) {
    case NB_CASE_OK: return "ok";
    case NB_CASE_VERIFY_FAILED: return "verify-failed";
    case NB_CASE_ERROR: return "error";
    case NB_CASE_SKIPPED: return "skipped";
    case NB_CASE_INTERRUPTED: return "interrupted";
    }
    return "unknown";
}

/* ------------------------------------------------------------------ cases */

/* src into dst[n] as one line of UTF-8 text: each byte that is not part of a
 * UTF-8 sequence, and each control character (a newline would break a row of
 * every format), written as the four characters \xNN, and the text cut, if
 * it must be, at a whole sequence; so every writer (JSON holds text only)
 * keeps it. */
static void text_copy(char *dst, size_t n, const char *src)
{
    size_t o = 0;
    for (size_t i = 0; src[i] && o + 1 < n;) {
        const unsigned char c = (unsigned char)src[i];
        size_t len = c < 0x20 || c == 0x7f ? 0
                     : c < 0x80            ? 1
                     : (c >> 5) == 6       ? 2
                     : (c >> 4) == 14      ? 3
                     : (c >> 3) == 30      ? 4
                                           : 0;
        for (size_t k = 1; k < len; k++)
            if (((unsigned char)src[i + k] >> 6) != 2) /* a NUL ends the check too */
                len = 0;
        if (len) {
            json_t *valid = json_stringn(src + i, len); /* overlong forms, surrogates */
            if (!valid)
                len = 0;
            json_decref(valid);
        }
        if (len ? o + len >= n : o + 4 >= n)
            break;
        if (len) {
            memcpy(dst + o, src + i, len);
            o += len;
            i += len;
        } else {
            o += (size_t)snprintf(dst + o, n - o, "\\x%02x", c);
            i++;
        }
    }
    dst[o] = '\0';
}

nb_status nb_case_create(nb_case **out, const char *tier, nb_cache_state cache,
                         const char *variant, nb_backend backend, const char *label)
{
    if (!out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_case_create: NULL");
    nb_case *c = calloc(1, sizeof *c);
    if (!c)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    text_copy(c->tier, sizeof c->tier, tier ? tier : "");
    c->cache = cache;
    c->backend = backend;
    text_copy(c->variant, sizeof c->variant, variant ? variant : "");
    text_copy(c->label, sizeof c->label, label ? label : "");
    c->wall_s = NAN;
    *out = c;
    return NB_OK;
}

void nb_case_destroy(nb_case *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_params; i++) {
        free(c->params[i].s);
        free(c->params[i].list);
    }
    free(c->params);
    free(c->metrics);
    nb_bench_result_free(&c->result);
    free(c->bd);
    nb_trace_free(c->trace);
    free(c->trace);
    free(c->json_text);
    free(c);
}

static param *new_param(nb_case *c, const char *key)
{
    if (!c || !key)
        return NULL;
    param *p = realloc(c->params, (c->n_params + 1) * sizeof *p);
    if (!p)
        return NULL;
    c->params = p;
    p = &c->params[c->n_params++];
    memset(p, 0, sizeof *p);
    text_copy(p->key, sizeof p->key, key);
    return p;
}

/* NB_ERR_INVALID_ARG for a NULL case or key (what new_param cannot tell
 * from running out of memory). */
static nb_status param_args(const nb_case *c, const char *key)
{
    return c && key ? NB_OK : nb_set_error(NB_ERR_INVALID_ARG, "case parameter: NULL case or key");
}

nb_status nb_case_param_int(nb_case *c, const char *key, long long value)
{
    NB_TRY(param_args(c, key));
    param *p = new_param(c, key);
    if (!p)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "case parameter: out of memory");
    p->type = P_INT;
    p->i = value;
    return NB_OK;
}

nb_status nb_case_param_str(nb_case *c, const char *key, const char *value)
{
    NB_TRY(param_args(c, key));
    param *p = new_param(c, key);
    const char *v = value ? value : "";
    if (!p || !(p->s = malloc(4 * strlen(v) + 1)))
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "case parameter: out of memory");
    text_copy(p->s, 4 * strlen(v) + 1, v);
    p->type = P_STR;
    return NB_OK;
}

nb_status nb_case_param_u64_list(nb_case *c, const char *key, const uint64_t *v, size_t n)
{
    NB_TRY(param_args(c, key));
    if (n && !v)
        return nb_set_error(NB_ERR_INVALID_ARG, "case parameter '%s': NULL list of %zu", key, n);
    for (size_t i = 0; i < n; i++)
        if (v[i] > (uint64_t)INT64_MAX) /* a JSON integer is signed 64-bit */
            return nb_set_error(NB_ERR_INVALID_ARG, "case parameter '%s': value %zu, %llu, is "
                                "above 2^63 - 1", key, i, (unsigned long long)v[i]);
    param *p = new_param(c, key);
    if (!p)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "case parameter: out of memory");
    p->type = P_U64S;
    if (n) {
        p->list = malloc(n * sizeof *v);
        if (!p->list)
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "case parameter: out of memory");
        memcpy(p->list, v, n * sizeof *v);
    }
    p->n = n;
    return NB_OK;
}

nb_status nb_case_param_real(nb_case *c, const char *key, double value, int decimals)
{
    NB_TRY(param_args(c, key));
    if (decimals < 0 || decimals > 9)
        return nb_set_error(NB_ERR_INVALID_ARG, "case parameter '%s': %d decimals", key, decimals);
    param *p = new_param(c, key);
    if (!p)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "case parameter: out of memory");
    const double scale = pow(10.0, decimals);
    p->type = P_REAL;
    p->i = decimals;
    /* a value too large to scale has no digits below the decimals asked for */
    p->r = isfinite(value * scale) ? round(value * scale) / scale : value;
    return NB_OK;
}

nb_status nb_case_metric(nb_case *c, const char *key, double value)
{
    if (!c || !key)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_case_metric: NULL");
    metric *m = realloc(c->metrics, (c->n_metrics + 1) * sizeof *m);
    if (!m)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "case metric: out of memory");
    c->metrics = m;
    text_copy(m[c->n_metrics].key, sizeof m[c->n_metrics].key, key);
    m[c->n_metrics].v = value;
    c->n_metrics++;
    return NB_OK;
}

void nb_case_set_status(nb_case *c, nb_case_status s, const char *message)
{
    if (!c)
        return;
    /* a case whose sampling was interrupted is never reported as complete */
    c->status = s == NB_CASE_OK && c->has_result && c->result.stop == NB_STOP_INTERRUPTED
                    ? NB_CASE_INTERRUPTED
                    : s;
    text_copy(c->message, sizeof c->message, message ? message : "");
}

nb_case_status nb_case_get_status(const nb_case *c) { return c ? c->status : NB_CASE_ERROR; }

size_t nb_case_sample_count(const nb_case *c)
{
    return c && c->has_result ? c->result.n_samples : 0;
}

void nb_case_set_cause(nb_case *c, nb_status cause)
{
    if (c)
        c->cause = cause;
}

nb_status nb_case_get_cause(const nb_case *c) { return c ? c->cause : NB_OK; }

void nb_case_name(char *buf, size_t n, int warm, const char *variant, const char *label,
                  const char *mode)
{
    const size_t ll = strlen(label), ml = mode ? strlen(mode) : 0;
    const int has_mode = !mode || (ll >= ml && strcmp(label + ll - ml, mode) == 0 &&
                                   (ll == ml || label[ll - ml - 1] == ' '));
    snprintf(buf, n, "%s %s %s%s%s", warm ? "warm" : "cold", variant, label,
             has_mode ? "" : " ", has_mode ? "" : mode);
}

const char *nb_case_get_message(const nb_case *c) { return c ? c->message : ""; }

nb_status nb_case_set_result(nb_case *c, const nb_bench_result *r)
{
    if (!c || !r)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_case_set_result: NULL");
    if (r->n_samples && !r->sample_s)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_case_set_result: %zu samples without "
                            "their array", r->n_samples);
    nb_bench_result_free(&c->result);
    c->result = *r;
    c->result.sample_s = NULL;
    c->result.sample_clock_mhz = NULL;
    c->result.n_samples = 0;
    if (r->n_samples) {
        c->result.sample_s = malloc(r->n_samples * sizeof(double));
        c->result.sample_clock_mhz = malloc(r->n_samples * sizeof(double));
        if (!c->result.sample_s || !c->result.sample_clock_mhz) {
            nb_bench_result_free(&c->result);
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "case result: out of memory");
        }
        memcpy(c->result.sample_s, r->sample_s, r->n_samples * sizeof(double));
        for (size_t i = 0; i < r->n_samples; i++) /* no clocks given: each unknown */
            c->result.sample_clock_mhz[i] = r->sample_clock_mhz ? r->sample_clock_mhz[i] : NAN;
        c->result.n_samples = r->n_samples;
    }
    c->has_result = 1;
    if (c->status == NB_CASE_OK && r->stop == NB_STOP_INTERRUPTED)
        c->status = NB_CASE_INTERRUPTED;
    return NB_OK;
}

nb_status nb_case_set_kernels(nb_case *c, const nb_ntt_kernel *k, size_t n, const char *why)
{
    if (!c || (k == NULL && n))
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_case_set_kernels: NULL");
    if (!k) {
        c->kernels_state = 2;
        c->n_kernels = 0;
        snprintf(c->kernels_why, sizeof c->kernels_why, "%s", why ? why : "");
        return NB_OK;
    }
    c->n_kernels = n < NB_CASE_MAX_KERNELS ? n : NB_CASE_MAX_KERNELS;
    memcpy(c->kernels, k, c->n_kernels * sizeof *k);
    c->kernels_state = 1;
    c->kernels_why[0] = '\0';
    return NB_OK;
}

void nb_case_set_profile(nb_case *c, const nb_profile *p)
{
    if (!c || !p)
        return;
    c->profile = *p;
    c->has_profile = 1;
}

void nb_case_set_figures(nb_case *c, const nb_ntt_figures *f)
{
    if (!c || !f)
        return;
    c->fig = *f;
    c->has_figures = 1;
}

nb_status nb_case_set_breakdown(nb_case *c, const nb_breakdown *b)
{
    if (!c || !b)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_case_set_breakdown: NULL");
    if (b->n_steps > NB_MAX_STEPS)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_case_set_breakdown: %zu steps (at most %d)",
                            (size_t)b->n_steps, NB_MAX_STEPS);
    if (!c->bd)
        c->bd = malloc(sizeof *c->bd);
    if (!c->bd)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "case breakdown: out of memory");
    *c->bd = *b;
    c->has_breakdown = 1;
    return NB_OK;
}

nb_status nb_case_set_trace(nb_case *c, const nb_trace *t, const char *why)
{
    if (!c)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_case_set_trace: NULL");
    if (!t) {
        nb_trace_free(c->trace);
        free(c->trace);
        c->trace = NULL;
        c->trace_state = 2;
        snprintf(c->trace_why, sizeof c->trace_why, "%s", why ? why : "");
        return NB_OK;
    }
    nb_trace *copy = malloc(sizeof *copy);
    if (!copy)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "case trace: out of memory");
    const nb_status s = nb_trace_copy(copy, t);
    if (s != NB_OK) {
        free(copy);
        return s;
    }
    nb_trace_free(c->trace);
    free(c->trace);
    c->trace = copy;
    c->trace_state = 1;
    c->trace_why[0] = '\0';
    return NB_OK;
}

/* ---------------------------------------------------------------- reports */

nb_status nb_report_create(nb_report **out, const char *kind)
{
    if (!out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_report_create: NULL");
    nb_report *r = calloc(1, sizeof *r);
    if (!r)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    snprintf(r->kind, sizeof r->kind, "%s", kind ? kind : "run");
    r->complete = -1;
    r->wall_s = NAN;
    *out = r;
    return NB_OK;
}

void nb_report_destroy(nb_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        nb_case_destroy(r->cases[i]);
    free(r->cases);
    json_decref(r->argv);
    free(r);
}

/* An argument as a JSON string, in text_copy's form (nothing is dropped). */
static json_t *argument(const char *a)
{
    const size_t n = 4 * strlen(a) + 1;
    char *t = malloc(n);
    if (!t)
        return NULL;
    text_copy(t, n, a);
    json_t *j = json_string(t);
    free(t);
    return j;
}

nb_status nb_report_set_argv(nb_report *r, int argc, char *const *argv)
{
    if (!r || argc < 0 || (argc > 0 && !argv))
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_report_set_argv: NULL report or arguments");
    json_decref(r->argv);
    r->argv = json_array();
    for (int i = 0; i < argc && r->argv; i++) {
        json_t *a = argument(argv[i] ? argv[i] : "");
        if (!a || json_array_append_new(r->argv, a) != 0)
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory for the command line");
    }
    return r->argv ? NB_OK : nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
}

void nb_report_set_env(nb_report *r, const nb_env *e)
{
    if (r && e) {
        r->env = *e;
        r->has_env = 1;
    }
}

void nb_report_set_options(nb_report *r, const nb_bench_opts *o)
{
    if (r && o) {
        r->opts = *o;
        r->has_opts = 1;
    }
}

void nb_report_set_ceilings(nb_report *r, const nb_ceilings *c)
{
    if (r && c) {
        r->ceilings = *c;
        r->has_ceilings = 1;
    }
}

nb_status nb_report_add_case(nb_report *r, nb_case *c)
{
    if (!r || !c) {
        nb_case_destroy(c);
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_report_add_case: NULL");
    }
    if (r->n == r->cap) {
        size_t nc = r->cap ? 2 * r->cap : 16;
        nb_case **p = realloc(r->cases, nc * sizeof *p);
        if (!p) {
            nb_case_destroy(c);
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "report: out of memory");
        }
        r->cases = p;
        r->cap = nc;
    }
    r->cases[r->n++] = c;
    return NB_OK;
}

size_t nb_report_case_count(const nb_report *r) { return r ? r->n : 0; }

const nb_case *nb_report_case_at(const nb_report *r, size_t i)
{
    return r && i < r->n ? r->cases[i] : NULL;
}


static const char *const format_names[] = {"table", "md", "csv", "json"};

const char *nb_format_name(nb_format f)
{
    return (unsigned)f < 4 ? format_names[f] : "unknown";
}

nb_status nb_format_parse(const char *s, nb_format *out)
{
    if (!out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_format_parse: NULL result");
    for (int i = 0; s && i < 4; i++)
        if (strcmp(s, format_names[i]) == 0) {
            *out = (nb_format)i;
            return NB_OK;
        }
    return nb_set_error(NB_ERR_INVALID_ARG, "unknown format '%s' (table, md, csv, json)",
                        s ? s : "(null)");
}

void nb_report_set_interrupted(nb_report *r, int interrupted)
{
    if (r)
        r->interrupted = interrupted != 0;
}

void nb_report_set_planned(nb_report *r, size_t cases_planned)
{
    if (r) {
        r->cases_planned = cases_planned;
        if (r->complete < 0)
            r->complete = 0;
    }
}

void nb_report_write_completion(const nb_report *r, FILE *f, int md)
{
    if (r->complete != 0)
        return;
    char planned[48] = "";
    if (r->cases_planned)
        snprintf(planned, sizeof planned, " of %zu planned", r->cases_planned);
    fprintf(f, "\n%s%s%s: %zu%s case%s so far%s\n", md ? "**" : "",
            r->interrupted ? "Interrupted" : "Incomplete", md ? "**" : "", r->n, planned,
            r->n == 1 && !r->cases_planned ? "" : "s",
            r->interrupted ? " (a signal stopped the sweep)"
                           : " (the run had not finished when this was written)");
}

void nb_report_set_complete(nb_report *r, int complete)
{
    if (r)
        r->complete = complete != 0;
}

const param *nb_case_param_find(const nb_case *c, const char *key)
{
    for (size_t i = 0; i < c->n_params; i++)
        if (strcmp(c->params[i].key, key) == 0)
            return &c->params[i];
    return NULL;
}

double nb_case_metric_find(const nb_case *c, const char *key)
{
    for (size_t i = 0; i < c->n_metrics; i++)
        if (strcmp(c->metrics[i].key, key) == 0)
            return c->metrics[i].v;
    return NAN;
}

/* Reports: cases (parameters, result, figures, breakdown) collected into a
 * report with the environment and the options, written as a terminal table,
 * markdown, CSV or schema-versioned JSON (jansson; every accepted sample and
 * its SM clock), and the atomic file writer (temporary file + rename). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/internal.h"

typedef enum { P_INT, P_STR, P_U64S } param_type;

typedef struct param {
    char key[48];
    param_type type;
    long long i;
    char *s;
    uint64_t *list;
    size_t n;
} param;

typedef struct metric {
    char key[48];
    double v;
} metric;

struct nb_case {
    nb_tier tier;
    char variant[64];
    nb_backend backend;
    char label[160];
    param *params;
    size_t n_params;
    metric *metrics;
    size_t n_metrics;
    nb_case_status status;
    char message[512];
    int has_result, has_figures, has_breakdown;
    nb_bench_result result;
    nb_ntt_figures fig;
    nb_breakdown *bd;
};

struct nb_report {
    char kind[32];
    json_t *argv;
    int has_env, has_opts;
    nb_env env;
    nb_bench_opts opts;
    nb_case **cases;
    size_t n, cap;
};

const char *nb_case_status_name(nb_case_status s)
{
    switch (s) {
    case NB_CASE_OK: return "ok";
    case NB_CASE_VERIFY_FAILED: return "verify-failed";
    case NB_CASE_ERROR: return "error";
    case NB_CASE_SKIPPED: return "skipped";
    }
    return "unknown";
}

/* ------------------------------------------------------------------ cases */

nb_status nb_case_create(nb_case **out, nb_tier tier, const char *variant, nb_backend backend,
                         const char *label)
{
    if (!out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_case_create: NULL");
    nb_case *c = calloc(1, sizeof *c);
    if (!c)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    c->tier = tier;
    c->backend = backend;
    snprintf(c->variant, sizeof c->variant, "%s", variant ? variant : "");
    snprintf(c->label, sizeof c->label, "%s", label ? label : "");
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
    snprintf(p->key, sizeof p->key, "%s", key);
    return p;
}

nb_status nb_case_param_int(nb_case *c, const char *key, long long value)
{
    param *p = new_param(c, key);
    if (!p)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "case parameter: out of memory");
    p->type = P_INT;
    p->i = value;
    return NB_OK;
}

nb_status nb_case_param_str(nb_case *c, const char *key, const char *value)
{
    param *p = new_param(c, key);
    if (!p || !(p->s = strdup(value ? value : "")))
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "case parameter: out of memory");
    p->type = P_STR;
    return NB_OK;
}

nb_status nb_case_param_u64_list(nb_case *c, const char *key, const uint64_t *v, size_t n)
{
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

nb_status nb_case_metric(nb_case *c, const char *key, double value)
{
    if (!c || !key)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_case_metric: NULL");
    metric *m = realloc(c->metrics, (c->n_metrics + 1) * sizeof *m);
    if (!m)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "case metric: out of memory");
    c->metrics = m;
    snprintf(m[c->n_metrics].key, sizeof m[c->n_metrics].key, "%s", key);
    m[c->n_metrics].v = value;
    c->n_metrics++;
    return NB_OK;
}

void nb_case_set_status(nb_case *c, nb_case_status s, const char *message)
{
    if (!c)
        return;
    c->status = s;
    snprintf(c->message, sizeof c->message, "%s", message ? message : "");
}

nb_case_status nb_case_get_status(const nb_case *c) { return c ? c->status : NB_CASE_ERROR; }

nb_status nb_case_set_result(nb_case *c, const nb_bench_result *r)
{
    if (!c || !r)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_case_set_result: NULL");
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
        memcpy(c->result.sample_clock_mhz, r->sample_clock_mhz, r->n_samples * sizeof(double));
        c->result.n_samples = r->n_samples;
    }
    c->has_result = 1;
    return NB_OK;
}

void nb_case_set_figures(nb_case *c, const nb_ntt_figures *f)
{
    if (!c || !f)
        return;
    c->fig = *f;
    c->has_figures = 1;
}

void nb_case_set_breakdown(nb_case *c, const nb_breakdown *b)
{
    if (!c || !b)
        return;
    if (!c->bd)
        c->bd = malloc(sizeof *c->bd);
    if (!c->bd)
        return;
    *c->bd = *b;
    c->has_breakdown = 1;
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

nb_status nb_report_set_argv(nb_report *r, int argc, char *const *argv)
{
    if (!r)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_report_set_argv: NULL");
    json_decref(r->argv);
    r->argv = json_array();
    for (int i = 0; i < argc; i++)
        json_array_append_new(r->argv, json_string(argv[i] ? argv[i] : ""));
    return NB_OK;
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

/* ------------------------------------------------------------------- JSON */

static json_t *ns(double s) { return nb_json_real(s * 1e9); }

static const char *verify_word(int v) { return v > 0 ? "pass" : v < 0 ? "fail" : "not-run"; }

static json_t *case_json(const nb_case *c)
{
    json_t *j = json_object();
    json_object_set_new(j, "tier", json_string(nb_tier_name(c->tier)));
    json_object_set_new(j, "variant", json_string(c->variant));
    json_object_set_new(j, "backend", json_string(nb_backend_name(c->backend)));
    json_object_set_new(j, "label", json_string(c->label));
    json_t *params = json_object();
    for (size_t i = 0; i < c->n_params; i++) {
        const param *p = &c->params[i];
        if (p->type == P_INT) {
            json_object_set_new(params, p->key, json_integer(p->i));
        } else if (p->type == P_STR) {
            json_object_set_new(params, p->key, json_string(p->s));
        } else {
            json_t *a = json_array();
            for (size_t k = 0; k < p->n; k++)
                json_array_append_new(a, json_integer((json_int_t)p->list[k]));
            json_object_set_new(params, p->key, a);
        }
    }
    json_object_set_new(j, "params", params);
    json_object_set_new(j, "status", json_string(nb_case_status_name(c->status)));
    json_object_set_new(j, "message", json_string(c->message));
    if (c->has_result) {
        const nb_bench_result *r = &c->result;
        json_object_set_new(j, "mode", json_string(nb_mode_name(r->mode)));
        json_object_set_new(j, "launches_per_sample",
                            json_integer((json_int_t)r->launches_per_sample));
        json_object_set_new(j, "blocking_kernel", json_boolean(r->blocked));
        json_object_set_new(j, "verification",
                            json_pack("{s:s, s:s}", "before", verify_word(r->verified_before),
                                      "after", verify_word(r->verified_after)));
        const nb_cache_plan *p = &r->cache;
        json_t *cache = json_pack("{s:s, s:b, s:I, s:I, s:I, s:I, s:I}", "tier",
                                  nb_tier_name(p->tier), "flush", p->flush, "sets",
                                  (json_int_t)p->sets, "graphs", (json_int_t)p->graphs,
                                  "launches_per_sample", (json_int_t)p->launches, "cache_bytes",
                                  (json_int_t)p->cache_bytes, "footprint_bytes",
                                  (json_int_t)p->footprint);
        json_object_set_new(cache, "allocated_bytes", nb_json_real(p->allocated_bytes));
        json_object_set_new(cache, "min_reuse_bytes", nb_json_real(p->reuse_bytes));
        json_object_set_new(cache, "flush_bytes", nb_json_real(r->flush_bytes));
        json_object_set_new(cache, "l2_persist_bytes", nb_json_real(r->persist_bytes));
        json_object_set_new(cache, "l2_persist_hit_ratio",
                            r->persist_bytes > 0 ? json_real(r->persist_hit_ratio) : json_null());
        json_object_set_new(j, "cache", cache);
        json_t *stop = json_pack("{s:s, s:b, s:I, s:I}", "reason", nb_stop_reason_name(r->stop),
                                 "noise_target_met", r->noise_target_met, "warmup_samples",
                                 (json_int_t)r->warmup_samples, "throttled_discarded",
                                 (json_int_t)r->throttled_samples);
        json_object_set_new(stop, "measured_time_s", nb_json_real(r->measured_s));
        json_object_set_new(stop, "wall_time_s", nb_json_real(r->wall_s));
        json_object_set_new(j, "stopping", stop);
        if (r->n_samples) {
            const nb_stats *s = &r->stats;
            json_t *st = json_object();
            json_object_set_new(st, "unit", json_string("ns"));
            json_object_set_new(st, "samples", json_integer((json_int_t)s->n));
            json_object_set_new(st, "median", ns(s->median));
            json_object_set_new(st, "mean", ns(s->mean));
            json_object_set_new(st, "min", ns(s->min));
            json_object_set_new(st, "max", ns(s->max));
            json_object_set_new(st, "stddev", ns(s->stddev));
            json_object_set_new(st, "noise_pct", nb_json_real(s->noise_pct));
            json_object_set_new(st, "p10", ns(s->p10));
            json_object_set_new(st, "p90", ns(s->p90));
            json_object_set_new(st, "median_ci95_lo", ns(s->ci_lo));
            json_object_set_new(st, "median_ci95_hi", ns(s->ci_hi));
            json_object_set_new(st, "median_ci_coverage", nb_json_real(s->ci_level));
            json_object_set_new(j, "stats", st);
        } else {
            json_object_set_new(j, "stats", json_null());
        }
        json_t *clk = json_object();
        json_object_set_new(clk, "default_sm_mhz",
                            r->default_clock_mhz > 0 ? json_real(r->default_clock_mhz)
                                                     : json_null());
        json_object_set_new(clk, "nvml_before", nb_nvml_to_json(&r->nvml_before));
        json_object_set_new(clk, "nvml_after", nb_nvml_to_json(&r->nvml_after));
        json_object_set_new(j, "clocks", clk);
        json_t *samples = json_array(), *clocks = json_array();
        for (size_t i = 0; i < r->n_samples; i++) {
            json_array_append_new(samples, ns(r->sample_s[i]));
            json_array_append_new(clocks, nb_json_real(r->sample_clock_mhz[i]));
        }
        json_object_set_new(j, "samples_ns", samples);
        json_object_set_new(j, "sample_sm_clock_mhz", clocks);
    }
    if (c->has_figures) {
        const nb_ntt_figures *f = &c->fig;
        json_t *fj = json_object();
        json_object_set_new(fj, "coefficient_bytes", nb_json_real(f->coefficient_bytes));
        json_object_set_new(fj, "twiddle_bytes", nb_json_real(f->twiddle_bytes));
        json_object_set_new(fj, "bandwidth_Bps", nb_json_real(f->bandwidth_Bps));
        json_object_set_new(fj, "bandwidth_with_twiddles_Bps",
                            nb_json_real(f->bandwidth_with_twiddles_Bps));
        json_object_set_new(fj, "fraction_of_copy_bandwidth", nb_json_real(f->frac_copy));
        json_object_set_new(fj, "fraction_of_peak_bandwidth", nb_json_real(f->frac_peak));
        json_object_set_new(fj, "butterflies_per_s", nb_json_real(f->butterflies_per_s));
        json_object_set_new(j, "figures", fj);
    }
    if (c->has_breakdown) {
        const nb_breakdown *b = c->bd;
        json_t *steps = json_array();
        for (size_t i = 0; i < b->n_steps; i++) {
            const nb_step_stat *s = &b->steps[i];
            json_t *sj = json_pack("{s:s, s:b, s:b, s:I, s:I}", "name", s->name, "is_ntt",
                                   s->is_ntt, "inverse", s->inverse, "count",
                                   (json_int_t)s->count, "ntt_limbs", (json_int_t)s->ntt_limbs);
            json_object_set_new(sj, "median_ns", ns(s->median_s));
            json_object_set_new(sj, "share", nb_json_real(s->share));
            json_array_append_new(steps, sj);
        }
        json_t *bj = json_object();
        json_object_set_new(bj, "passes", json_integer((json_int_t)b->passes));
        json_object_set_new(bj, "blocking_kernel", json_boolean(b->blocked));
        json_object_set_new(bj, "steps", steps);
        json_object_set_new(bj, "sum_of_steps_ns", ns(b->sum_s));
        json_object_set_new(bj, "marked_launch_ns", ns(b->launch_s));
        json_object_set_new(bj, "ntt_ns", ns(b->ntt_s));
        json_object_set_new(bj, "ntt_share", nb_json_real(b->ntt_share));
        json_object_set_new(bj, "ntt_forward_limbs", json_integer((json_int_t)b->ntt_fwd_limbs));
        json_object_set_new(bj, "ntt_inverse_limbs", json_integer((json_int_t)b->ntt_inv_limbs));
        json_object_set_new(j, "breakdown", bj);
    }
    if (c->n_metrics) {
        json_t *m = json_object();
        for (size_t i = 0; i < c->n_metrics; i++)
            json_object_set_new(m, c->metrics[i].key, nb_json_real(c->metrics[i].v));
        json_object_set_new(j, "metrics", m);
    }
    return j;
}

static json_t *report_json(const nb_report *r)
{
    json_t *j = json_object();
    json_object_set_new(j, "schema", json_string(NB_REPORT_SCHEMA));
    json_object_set_new(j, "schema_version", json_integer(NB_REPORT_SCHEMA_VERSION));
    json_object_set_new(j, "command", json_string(r->kind));
    json_object_set_new(j, "command_line", r->argv ? json_incref(r->argv) : json_array());
    json_object_set_new(j, "environment", r->has_env ? nb_env_to_json(&r->env) : json_null());
    json_object_set_new(j, "options", r->has_opts ? nb_opts_to_json(&r->opts) : json_null());
    json_t *cases = json_array();
    size_t fails = 0, errors = 0, skipped = 0;
    for (size_t i = 0; i < r->n; i++) {
        json_array_append_new(cases, case_json(r->cases[i]));
        fails += r->cases[i]->status == NB_CASE_VERIFY_FAILED;
        errors += r->cases[i]->status == NB_CASE_ERROR;
        skipped += r->cases[i]->status == NB_CASE_SKIPPED;
    }
    json_object_set_new(j, "cases", cases);
    json_object_set_new(j, "summary",
                        json_pack("{s:I, s:I, s:I, s:I}", "cases", (json_int_t)r->n,
                                  "verify_failed", (json_int_t)fails, "errors",
                                  (json_int_t)errors, "skipped", (json_int_t)skipped));
    return j;
}

/* -------------------------------------------------------- text formats */

static void fmt_time(char *buf, size_t n, double s)
{
    if (!isfinite(s))
        snprintf(buf, n, "-");
    else if (s < 1e-6)
        snprintf(buf, n, "%.1f ns", s * 1e9);
    else if (s < 1e-3)
        snprintf(buf, n, "%.2f us", s * 1e6);
    else if (s < 1.0)
        snprintf(buf, n, "%.3f ms", s * 1e3);
    else
        snprintf(buf, n, "%.3f s", s);
}

static void fmt_num(char *buf, size_t n, double v, const char *fmt)
{
    if (!isfinite(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, fmt, v);
}

enum { COLS = 13 };
static const char *const col_names[COLS] = {"tier",    "variant", "case",   "mode",  "samples",
                                            "median",  "95% CI",  "noise",  "GB/s",  "% copy",
                                            "% peak",  "Gbfly/s", "notes"};

static void case_cells(const nb_case *c, char cells[COLS][200])
{
    for (int i = 0; i < COLS; i++)
        snprintf(cells[i], 200, "-");
    snprintf(cells[0], 200, "%s", nb_tier_name(c->tier));
    snprintf(cells[1], 200, "%s", c->variant);
    snprintf(cells[2], 200, "%s", c->label);
    char notes[200] = "";
    if (c->has_result) {
        const nb_bench_result *r = &c->result;
        if (r->mode == NB_MODE_PER_LAUNCH)
            snprintf(cells[3], 200, "%s", nb_mode_name(r->mode));
        else
            snprintf(cells[3], 200, "%s x%zu", nb_mode_name(r->mode), r->launches_per_sample);
        if (r->n_samples) {
            char a[32], b[32];
            snprintf(cells[4], 200, "%zu", r->n_samples);
            fmt_time(cells[5], 200, r->stats.median);
            fmt_time(a, sizeof a, r->stats.ci_lo);
            fmt_time(b, sizeof b, r->stats.ci_hi);
            snprintf(cells[6], 200, "%s .. %s", a, b);
            snprintf(cells[7], 200, "%.2f%%", r->stats.noise_pct);
        }
        size_t u = 0;
        if (r->n_samples && !r->noise_target_met)
            u += (size_t)snprintf(notes + u, sizeof notes - u, "noise>target ");
        if (r->n_samples && (r->stop == NB_STOP_TIMEOUT || r->stop == NB_STOP_MAX_SAMPLES))
            u += (size_t)snprintf(notes + u, sizeof notes - u, "stop:%s ",
                                  nb_stop_reason_name(r->stop));
        if (r->throttled_samples && u < sizeof notes)
            u += (size_t)snprintf(notes + u, sizeof notes - u, "throttled:%zu ",
                                  r->throttled_samples);
        if (r->cache.tier != NB_TIER_WARM && u < sizeof notes)
            u += (size_t)snprintf(notes + u, sizeof notes - u, "%s%s%zu-sets ",
                                  r->cache.flush ? "flush " : "",
                                  r->cache.sets > 1 ? "rot " : "", r->cache.sets);
        if (r->persist_bytes > 0 && u < sizeof notes)
            snprintf(notes + u, sizeof notes - u, "l2-persist ");
    }
    if (c->has_figures) {
        fmt_num(cells[8], 200, c->fig.bandwidth_Bps / 1e9, "%.1f");
        fmt_num(cells[9], 200, 100.0 * c->fig.frac_copy, "%.1f");
        fmt_num(cells[10], 200, 100.0 * c->fig.frac_peak, "%.1f");
        fmt_num(cells[11], 200, c->fig.butterflies_per_s / 1e9, "%.2f");
    }
    if (c->status != NB_CASE_OK) {
        char tmp[200];
        snprintf(tmp, sizeof tmp, "%s: %.150s %.30s", nb_case_status_name(c->status),
                 c->message, notes);
        memcpy(notes, tmp, sizeof notes);
    }
    size_t len = strlen(notes);
    while (len && notes[len - 1] == ' ')
        notes[--len] = '\0';
    snprintf(cells[12], 200, "%s", len ? notes : "");
}

static void write_breakdowns(const nb_report *r, FILE *f, int md)
{
    for (size_t i = 0; i < r->n; i++) {
        const nb_case *c = r->cases[i];
        if (!c->has_breakdown)
            continue;
        const nb_breakdown *b = c->bd;
        char t1[32], t2[32];
        fmt_time(t1, sizeof t1, b->sum_s);
        fmt_time(t2, sizeof t2, b->launch_s);
        fprintf(f, "\n%sbreakdown: %s %s (%zu passes; steps sum %s, marked launch %s; NTT "
                   "share %.1f%%, %zu fwd + %zu inv limb-NTTs)\n",
                md ? "**" : "", c->variant, c->label, b->passes, t1, t2, 100.0 * b->ntt_share,
                b->ntt_fwd_limbs, b->ntt_inv_limbs);
        if (md)
            fprintf(f, "\n| step | count | median | share |\n| --- | --- | --- | --- |\n");
        for (size_t k = 0; k < b->n_steps; k++) {
            fmt_time(t1, sizeof t1, b->steps[k].median_s);
            if (md)
                fprintf(f, "| %s%s | %zu | %s | %.1f%% |\n", b->steps[k].name,
                        b->steps[k].is_ntt ? " (NTT)" : "", b->steps[k].count, t1,
                        100.0 * b->steps[k].share);
            else
                fprintf(f, "  %-20s x%-4zu %12s  %5.1f%%%s\n", b->steps[k].name,
                        b->steps[k].count, t1, 100.0 * b->steps[k].share,
                        b->steps[k].is_ntt ? "  NTT" : "");
        }
    }
}

static nb_status write_table(const nb_report *r, FILE *f, int md)
{
    char(*cells)[COLS][200] = calloc(r->n ? r->n : 1, sizeof *cells);
    if (!cells)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "table: out of memory");
    size_t w[COLS];
    for (int k = 0; k < COLS; k++)
        w[k] = strlen(col_names[k]);
    for (size_t i = 0; i < r->n; i++) {
        case_cells(r->cases[i], cells[i]);
        for (int k = 0; k < COLS; k++)
            if (strlen(cells[i][k]) > w[k])
                w[k] = strlen(cells[i][k]);
    }
    if (md) {
        fputs("|", f);
        for (int k = 0; k < COLS; k++)
            fprintf(f, " %s |", col_names[k]);
        fputs("\n|", f);
        for (int k = 0; k < COLS; k++)
            fputs(k >= 4 && k <= 11 ? " ---: |" : " --- |", f);
        fputc('\n', f);
        for (size_t i = 0; i < r->n; i++) {
            fputs("|", f);
            for (int k = 0; k < COLS; k++)
                fprintf(f, " %s |", cells[i][k]);
            fputc('\n', f);
        }
    } else {
        for (int k = 0; k < COLS; k++)
            fprintf(f, k >= 4 && k <= 11 ? "%*s  " : "%-*s  ", (int)w[k], col_names[k]);
        fputc('\n', f);
        for (size_t i = 0; i < r->n; i++) {
            for (int k = 0; k < COLS; k++)
                fprintf(f, k >= 4 && k <= 11 ? "%*s  " : "%-*s  ", (int)w[k], cells[i][k]);
            fputc('\n', f);
        }
    }
    free(cells);
    write_breakdowns(r, f, md);
    return NB_OK;
}

void nb_csv_write_field(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n\r")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
}

static void csv_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.9g", v);
}

/* Keys in order of first appearance across cases. */
static size_t collect_keys(const nb_report *r, int metrics, char (*keys)[48], size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        const nb_case *c = r->cases[i];
        size_t m = metrics ? c->n_metrics : c->n_params;
        for (size_t k = 0; k < m; k++) {
            const char *key = metrics ? c->metrics[k].key : c->params[k].key;
            size_t j = 0;
            while (j < n && strcmp(keys[j], key) != 0)
                j++;
            if (j == n && n < max)
                snprintf(keys[n++], 48, "%s", key);
        }
    }
    return n;
}

static nb_status write_csv(const nb_report *r, FILE *f)
{
    static const char *const fixed[] = {
        "mode",          "launches_per_sample", "status",        "samples",
        "median_ns",     "mean_ns",             "min_ns",        "max_ns",
        "stddev_ns",     "noise_pct",           "p10_ns",        "p90_ns",
        "ci95_lo_ns",    "ci95_hi_ns",          "stop_reason",   "noise_target_met",
        "throttled",     "sets",                "flush",         "coefficient_bytes",
        "twiddle_bytes", "bandwidth_GBps",      "frac_copy",     "frac_peak",
        "butterflies_per_s"};
    char pkeys[64][48], mkeys[64][48];
    size_t np = collect_keys(r, 0, pkeys, 64), nm = collect_keys(r, 1, mkeys, 64);
    fputs("tier,variant,backend,label", f);
    for (size_t k = 0; k < np; k++)
        fprintf(f, ",%s", pkeys[k]);
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
        fprintf(f, ",%s", fixed[k]);
    for (size_t k = 0; k < nm; k++)
        fprintf(f, ",%s", mkeys[k]);
    fputs(",message\n", f);
    for (size_t i = 0; i < r->n; i++) {
        const nb_case *c = r->cases[i];
        fprintf(f, "%s,", nb_tier_name(c->tier));
        nb_csv_write_field(f, c->variant);
        fprintf(f, ",%s,", nb_backend_name(c->backend));
        nb_csv_write_field(f, c->label);
        for (size_t k = 0; k < np; k++) {
            fputc(',', f);
            for (size_t j = 0; j < c->n_params; j++) {
                const param *p = &c->params[j];
                if (strcmp(p->key, pkeys[k]) != 0)
                    continue;
                if (p->type == P_INT)
                    fprintf(f, "%lld", p->i);
                else if (p->type == P_STR)
                    nb_csv_write_field(f, p->s);
                else
                    for (size_t m = 0; m < p->n; m++)
                        fprintf(f, "%s%llu", m ? ";" : "", (unsigned long long)p->list[m]);
                break;
            }
        }
        const nb_bench_result *r_ = c->has_result ? &c->result : NULL;
        const nb_stats *s = r_ && r_->n_samples ? &r_->stats : NULL;
        fprintf(f, ",%s,", r_ ? nb_mode_name(r_->mode) : "");
        if (r_)
            fprintf(f, "%zu", r_->launches_per_sample);
        fprintf(f, ",%s,", nb_case_status_name(c->status));
        if (s)
            fprintf(f, "%zu", s->n);
        const double vals[] = {s ? s->median * 1e9 : NAN, s ? s->mean * 1e9 : NAN,
                               s ? s->min * 1e9 : NAN,    s ? s->max * 1e9 : NAN,
                               s ? s->stddev * 1e9 : NAN, s ? s->noise_pct : NAN,
                               s ? s->p10 * 1e9 : NAN,    s ? s->p90 * 1e9 : NAN,
                               s ? s->ci_lo * 1e9 : NAN,  s ? s->ci_hi * 1e9 : NAN};
        for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
            fputc(',', f);
            csv_num(f, vals[k]);
        }
        fprintf(f, ",%s,%s,", s ? nb_stop_reason_name(r_->stop) : "",
                s ? (r_->noise_target_met ? "true" : "false") : "");
        if (r_)
            fprintf(f, "%zu,%zu,%s", r_->throttled_samples, r_->cache.sets,
                    r_->cache.flush ? "true" : "false");
        else
            fputs(",,", f);
        const nb_ntt_figures *g = c->has_figures ? &c->fig : NULL;
        const double fv[] = {g ? g->coefficient_bytes : NAN, g ? g->twiddle_bytes : NAN,
                             g ? g->bandwidth_Bps / 1e9 : NAN, g ? g->frac_copy : NAN,
                             g ? g->frac_peak : NAN, g ? g->butterflies_per_s : NAN};
        for (size_t k = 0; k < sizeof fv / sizeof fv[0]; k++) {
            fputc(',', f);
            csv_num(f, fv[k]);
        }
        for (size_t k = 0; k < nm; k++) {
            fputc(',', f);
            for (size_t j = 0; j < c->n_metrics; j++)
                if (strcmp(c->metrics[j].key, mkeys[k]) == 0) {
                    csv_num(f, c->metrics[j].v);
                    break;
                }
        }
        fputc(',', f);
        nb_csv_write_field(f, c->message);
        fputc('\n', f);
    }
    return NB_OK;
}

nb_status nb_report_write(const nb_report *r, nb_format fmt, FILE *f)
{
    if (!r || !f)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_report_write: NULL argument");
    nb_status s = NB_OK;
    switch (fmt) {
    case NB_FORMAT_JSON: {
        json_t *j = report_json(r);
        if (json_dumpf(j, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) !=
            0)
            s = nb_set_error(NB_ERR_IO, "cannot write JSON");
        json_decref(j);
        fputc('\n', f);
        break;
    }
    case NB_FORMAT_CSV: s = write_csv(r, f); break;
    case NB_FORMAT_MD: s = write_table(r, f, 1); break;
    case NB_FORMAT_TABLE: s = write_table(r, f, 0); break;
    default: s = nb_set_error(NB_ERR_INVALID_ARG, "unknown format %d", (int)fmt);
    }
    if (s == NB_OK && ferror(f))
        s = nb_set_error(NB_ERR_IO, "write error: %s", strerror(errno));
    return s;
}

/* ------------------------------------------------------------ atomic files */

nb_status nb_write_file_atomic(const char *path, nb_writer_fn fn, void *ctx)
{
    if (!path || !fn)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_write_file_atomic: NULL argument");
    if (strcmp(path, "-") == 0) {
        nb_status s = fn(ctx, stdout);
        fflush(stdout);
        return s;
    }
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (!tmp)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        nb_status s = nb_set_error(NB_ERR_IO, "cannot create '%s': %s", tmp, strerror(errno));
        free(tmp);
        return s;
    }
    nb_status s = fn(ctx, f);
    if (s == NB_OK && fflush(f) != 0)
        s = nb_set_error(NB_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
    if (s == NB_OK && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS)
        s = nb_set_error(NB_ERR_IO, "cannot sync '%s': %s", tmp, strerror(errno));
    if (fclose(f) != 0 && s == NB_OK)
        s = nb_set_error(NB_ERR_IO, "cannot close '%s': %s", tmp, strerror(errno));
    if (s == NB_OK && rename(tmp, path) != 0)
        s = nb_set_error(NB_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path,
                         strerror(errno));
    if (s != NB_OK)
        unlink(tmp);
    free(tmp);
    return s;
}

typedef struct report_writer {
    const nb_report *r;
    nb_format fmt;
} report_writer;

static nb_status write_report_cb(void *ctx, FILE *f)
{
    const report_writer *w = ctx;
    return nb_report_write(w->r, w->fmt, f);
}

nb_status nb_report_write_file(const nb_report *r, nb_format fmt, const char *path)
{
    report_writer w = {r, fmt};
    return nb_write_file_atomic(path, write_report_cb, &w);
}

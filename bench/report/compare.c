/* The comparison model: case matching, the per-case tests in time and cycle
 * space, verdicts, and the environment / option differences of two result
 * files. The writers are in compare_write.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/timing/rank_stats.h"
#include "bench/report/compare.h"

const char *nb_verdict_name(nb_verdict v)
{
    switch (v) {
    case NB_VERDICT_SAME: return "same";
    case NB_VERDICT_FASTER: return "faster";
    case NB_VERDICT_SLOWER: return "slower";
    case NB_VERDICT_CLOCK: return "clock-change";
    case NB_VERDICT_NOISY: return "noisy";
    case NB_VERDICT_INSUFFICIENT: return "insufficient-data";
    }
    return "unknown";
}

void nb_compare_opts_default(nb_compare_opts *o)
{
    o->threshold_pct = 1.0;
    o->alpha = 0.01;
    o->level = 0.95;
    o->min_samples = 5;
    o->match = NB_MATCH_SAME;
    o->keep = NULL;
    o->keep_ctx = NULL;
}

/* 1 when the case takes part (opts.keep). */
static int kept(const nb_comparison *c, const nb_rf_case *k)
{
    return !c->opts.keep || c->opts.keep(c->opts.keep_ctx, k);
}

/* Time and cycle tests of samples a (base) and b (new); noise_ok: both sides met
 * their noise target. */
static nb_status run_test(const double *a, size_t na, const double *b, size_t nb,
                          const nb_compare_opts *o, int noise_ok, nb_compare_test *t)
{
    nb_mwu u;
    nb_shift_ci ci;
    NB_TRY(nb_mann_whitney(a, na, b, nb, &u));
    NB_TRY(nb_ratio_ci(a, na, b, nb, o->level, &ci));
    t->done = 1;
    t->p = u.p;
    t->ratio = ci.estimate;
    t->lo = ci.lo;
    t->hi = ci.hi;
    const double up = 1.0 + o->threshold_pct / 100.0, down = 1.0 / up;
    if (u.p < o->alpha && ci.estimate > up)
        t->verdict = NB_VERDICT_SLOWER;
    else if (u.p < o->alpha && ci.estimate < down)
        t->verdict = NB_VERDICT_FASTER;
    else if (ci.lo >= down && ci.hi <= up)
        t->verdict = NB_VERDICT_SAME;
    else
        t->verdict = noise_ok ? NB_VERDICT_SAME : NB_VERDICT_NOISY;
    return NB_OK;
}

/* Cycles (ns x MHz / 1000) of a case: per-sample clocks, or one clock for all. */
static double *cycles_of(const nb_rf_case *c, int per_sample)
{
    double *v = malloc((c->n_samples ? c->n_samples : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < c->n_samples; i++)
        v[i] = c->samples_ns[i] *
               (per_sample ? c->clock_mhz[i] : c->median_clock_mhz) / 1000.0;
    return v;
}

static nb_status cycle_test(nb_compare_row *r, const nb_compare_opts *o, int noise_ok)
{
    const nb_rf_case *a = r->base, *b = r->new_;
    r->cycle_source = a->clock_source < b->clock_source ? a->clock_source : b->clock_source;
    if (r->cycle_source == NB_CLOCK_NONE)
        return NB_OK;
    int per_sample = r->cycle_source == NB_CLOCK_PER_SAMPLE;
    double *ca = cycles_of(a, per_sample), *cb = cycles_of(b, per_sample);
    nb_status s = ca && cb ? run_test(ca, a->n_samples, cb, b->n_samples, o, noise_ok, &r->cycles)
                           : nb_set_error(NB_ERR_OUT_OF_MEMORY, "compare: out of memory");
    free(ca);
    free(cb);
    return s;
}

static nb_status compare_case(nb_compare_row *r, const nb_compare_opts *o)
{
    const nb_rf_case *a = r->base, *b = r->new_;
    r->base_median_ns = a->median_ns;
    r->new_median_ns = b->median_ns;
    r->base_clock_mhz = a->median_clock_mhz;
    r->new_clock_mhz = b->median_clock_mhz;
    r->time.ratio = b->median_ns / a->median_ns;
    r->time.lo = r->time.hi = r->time.p = NAN;
    r->cycles = r->time;
    r->verdict = NB_VERDICT_INSUFFICIENT;
    if (strcmp(a->status, "ok") || strcmp(b->status, "ok")) {
        snprintf(r->note, sizeof r->note, "status %s / %s", a->status, b->status);
        return NB_OK;
    }
    if (a->n_samples < o->min_samples || b->n_samples < o->min_samples) {
        snprintf(r->note, sizeof r->note, "%zu / %zu stored samples (at least %zu needed)",
                 a->n_samples, b->n_samples, o->min_samples);
        return NB_OK;
    }
    const int noise_ok = a->noise_target_met && b->noise_target_met;
    NB_TRY(run_test(a->samples_ns, a->n_samples, b->samples_ns, b->n_samples, o, noise_ok,
                    &r->time));
    NB_TRY(cycle_test(r, o, noise_ok));
    r->verdict = r->time.verdict;
    size_t u = 0;
    if (r->cycles.done && (r->time.verdict == NB_VERDICT_SLOWER ||
                           r->time.verdict == NB_VERDICT_FASTER) &&
        r->cycles.verdict == NB_VERDICT_SAME) {
        r->verdict = NB_VERDICT_CLOCK;
        u += (size_t)snprintf(r->note, sizeof r->note, "time %s, cycles unchanged; ",
                              nb_verdict_name(r->time.verdict));
    } else if (r->cycles.done && r->cycles.verdict != r->time.verdict) {
        u += (size_t)snprintf(r->note, sizeof r->note, "cycles: %s; ",
                              nb_verdict_name(r->cycles.verdict));
    }
    if (isfinite(r->base_clock_mhz) && isfinite(r->new_clock_mhz) &&
        fabs(r->new_clock_mhz / r->base_clock_mhz - 1.0) > 0.01 && u < sizeof r->note)
        u += (size_t)snprintf(r->note + u, sizeof r->note - u, "SM clock %.0f -> %.0f MHz; ",
                              r->base_clock_mhz, r->new_clock_mhz);
    if (!noise_ok && u < sizeof r->note)
        u += (size_t)snprintf(r->note + u, sizeof r->note - u, "noise target not met; ");
    if ((a->samples_reservoir || b->samples_reservoir) && u < sizeof r->note)
        snprintf(r->note + u, sizeof r->note - u, "tested on %zu / %zu stored of %zu / %zu "
                 "samples (reservoir); ", a->n_samples, b->n_samples, a->n_recorded_samples,
                 b->n_recorded_samples);
    size_t len = strlen(r->note);
    while (len && (r->note[len - 1] == ' ' || r->note[len - 1] == ';'))
        r->note[--len] = '\0';
    return NB_OK;
}

/* ------------------------------------------------------------ environment */

static void json_text(const json_t *v, char *buf, size_t n)
{
    if (!v) {
        snprintf(buf, n, "-");
        return;
    }
    if (json_is_string(v)) {
        snprintf(buf, n, "%s", json_string_value(v));
        return;
    }
    char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    snprintf(buf, n, "%s", s ? s : "?");
    free(s);
}

static nb_status add_diff(nb_comparison *c, const char *prefix, const char *field,
                          const json_t *a, const json_t *b)
{
    if ((!a && !b) || (a && b && json_equal((json_t *)a, (json_t *)b)))
        return NB_OK;
    nb_env_diff *d = realloc(c->env_diffs, (c->n_env_diffs + 1) * sizeof *d);
    if (!d)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "compare: out of memory");
    c->env_diffs = d;
    d = &d[c->n_env_diffs++];
    snprintf(d->field, sizeof d->field, "%s%s", prefix, field);
    json_text(a, d->base, sizeof d->base);
    json_text(b, d->new_, sizeof d->new_);
    return NB_OK;
}

/* The fields whose difference can change a timing. */
static const char *const env_fields[] = {
    "gpu.name",        "gpu.compute_capability", "gpu.sm_count",      "gpu.l2_bytes",
    "gpu.memory_clock_mhz", "gpu.default_sm_clock_mhz", "gpu.ecc",   "gpu.nvml_driver",
    "gpu.cuda_driver", "gpu.cuda_runtime",       "host.cpu",          "host.cores",
    "host.omp_threads", "host.llc_bytes",        "host.os",           "nttbench_version",
    "git_commit",      "build",                  NULL};

static nb_status env_differences(nb_comparison *c)
{
    const json_t *ea = nb_result_file_env(c->base), *eb = nb_result_file_env(c->new_);
    for (int i = 0; env_fields[i]; i++)
        NB_TRY(add_diff(c, "environment.", env_fields[i], nb_json_path(ea, env_fields[i]),
                        nb_json_path(eb, env_fields[i])));
    const json_t *oa = nb_result_file_options(c->base), *ob = nb_result_file_options(c->new_);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)oa, key, v)
        NB_TRY(add_diff(c, "options.", key, v, json_object_get(ob, key)));
    json_object_foreach((json_t *)ob, key, v)
        if (!json_object_get(oa, key))
            NB_TRY(add_diff(c, "options.", key, NULL, v));
    return NB_OK;
}

/* ---------------------------------------------------------------- matching */

/* Under NB_MATCH_WORD: the 64-bit case of base for the 32-bit case b (nearest
 * log Q within one prime's bits, the first on a tie; used or not, as several
 * 32-bit variants may face the same one), or the case count when none. */
static size_t word_partner(const nb_comparison *c, const nb_rf_case *b)
{
    size_t na = nb_result_file_case_count(c->base), best = na;
    double best_d = INFINITY;
    if (b->word_bits != 32 || !isfinite(b->log_q))
        return na;
    for (size_t i = 0; i < na; i++) {
        const nb_rf_case *a = nb_result_file_case(c->base, i);
        if (a->word_bits != 64 || !isfinite(a->log_q) || strcmp(a->word_key, b->word_key) ||
            !kept(c, a))
            continue;
        const double d = fabs(a->log_q - b->log_q);
        const unsigned tol = a->prime_bits > b->prime_bits ? a->prime_bits : b->prime_bits;
        if (d <= (tol ? tol : 62) && d < best_d) {
            best_d = d;
            best = i;
        }
    }
    return best;
}

static nb_status match(nb_comparison *c)
{
    size_t na = nb_result_file_case_count(c->base), nn = nb_result_file_case_count(c->new_);
    char *used = calloc(nn ? nn : 1, 1);
    c->rows = calloc((na > nn ? na : nn) + 1, sizeof *c->rows);
    c->unmatched_base = calloc(na ? na : 1, sizeof *c->unmatched_base);
    c->unmatched_new = calloc(nn ? nn : 1, sizeof *c->unmatched_new);
    if (!used || !c->rows || !c->unmatched_base || !c->unmatched_new) {
        free(used);
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "compare: out of memory");
    }
    for (size_t j = 0; j < nn; j++)
        used[j] = !kept(c, nb_result_file_case(c->new_, j)); /* left out: never listed */
    if (c->opts.match == NB_MATCH_WORD) {
        char *base_used = calloc(na ? na : 1, 1);
        if (!base_used) {
            free(used);
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "compare: out of memory");
        }
        for (size_t j = 0; j < nn; j++) {
            const nb_rf_case *b = nb_result_file_case(c->new_, j);
            size_t i = used[j] ? na : word_partner(c, b);
            if (i == na)
                continue;
            used[j] = base_used[i] = 1;
            c->rows[c->n_rows].base = nb_result_file_case(c->base, i);
            c->rows[c->n_rows++].new_ = b;
        }
        for (size_t i = 0; i < na; i++)
            if (!base_used[i] && kept(c, nb_result_file_case(c->base, i)))
                c->unmatched_base[c->n_unmatched_base++] = nb_result_file_case(c->base, i);
        free(base_used);
        na = 0; /* done: only the unmatched new cases are left to list */
    }
    for (size_t i = 0; i < na; i++) {
        const nb_rf_case *a = nb_result_file_case(c->base, i);
        if (!kept(c, a))
            continue;
        size_t j = 0;
        while (j < nn && (used[j] || strcmp(a->key, nb_result_file_case(c->new_, j)->key)))
            j++;
        if (j == nn) {
            c->unmatched_base[c->n_unmatched_base++] = a;
            continue;
        }
        used[j] = 1;
        c->rows[c->n_rows].base = a;
        c->rows[c->n_rows++].new_ = nb_result_file_case(c->new_, j);
    }
    for (size_t j = 0; j < nn; j++)
        if (!used[j])
            c->unmatched_new[c->n_unmatched_new++] = nb_result_file_case(c->new_, j);
    free(used);
    return NB_OK;
}

nb_status nb_compare(const nb_result_file *base, const nb_result_file *new_,
                     const nb_compare_opts *opts, nb_comparison **out)
{
    if (!base || !new_ || !out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_compare: NULL argument");
    *out = NULL;
    nb_compare_opts o;
    nb_compare_opts_default(&o);
    if (opts)
        o = *opts;
    if (!(o.threshold_pct >= 0 && o.threshold_pct < 1000) || !(o.alpha > 0 && o.alpha < 1) ||
        !(o.level > 0 && o.level < 1))
        return nb_set_error(NB_ERR_INVALID_ARG, "compare: threshold must be in [0, 1000) %%, "
                            "alpha and level in (0, 1)");
    nb_comparison *c = calloc(1, sizeof *c);
    if (!c)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "compare: out of memory");
    c->base = base;
    c->new_ = new_;
    c->opts = o;
    nb_status s = match(c);
    if (s == NB_OK && c->n_rows == 0)
        s = nb_set_error(NB_ERR_INVALID_ARG,
                         o.match == NB_MATCH_WORD
                             ? "no 32-bit case of %s matches a 64-bit case of %s (same tier, "
                               "direction, log N, log Q within a prime)"
                         : o.keep ? "no case of %s that the filter keeps matches a case of %s"
                                  : "no case of %s matches a case of %s",
                         nb_result_file_path(new_), nb_result_file_path(base));
    for (size_t i = 0; s == NB_OK && i < c->n_rows; i++) {
        s = compare_case(&c->rows[i], &o);
        if (s == NB_OK)
            c->counts[c->rows[i].verdict]++;
    }
    if (s == NB_OK)
        s = env_differences(c);
    if (s != NB_OK) {
        nb_comparison_destroy(c);
        return s;
    }
    *out = c;
    return NB_OK;
}

void nb_comparison_destroy(nb_comparison *c)
{
    if (!c)
        return;
    free(c->rows);
    free(c->unmatched_base);
    free(c->unmatched_new);
    free(c->env_diffs);
    free(c);
}

int nb_comparison_regressed(const nb_comparison *c)
{
    return c && c->opts.match != NB_MATCH_WORD && c->counts[NB_VERDICT_SLOWER] > 0;
}

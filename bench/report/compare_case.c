/* The per-case model of a comparison (docs/methodology.md, "Comparing runs"):
 * the within-run test of the first runs' samples (Hodges-Lehmann ratio,
 * Moses interval, Mann-Whitney U), the test the verdict rests on (the spread
 * of repeated runs' medians pooled with an assumed run-to-run noise, or with
 * one run a side the within-run interval widened by that noise), the same on
 * cycles, contention and the verdict of one matched case. Matching is in
 * compare.c, the writers in compare_write.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/timing/rank_stats.h"
#include "bench/timing/stats.h"
#include "bench/report/compare.h"
#include "bench/report/internal.h"

const char *nb_verdict_name(nb_verdict v)
{
    switch (v) {
    case NB_VERDICT_SAME: return "same";
    case NB_VERDICT_FASTER: return "faster";
    case NB_VERDICT_SLOWER: return "slower";
    case NB_VERDICT_CLOCK: return "clock-change";
    case NB_VERDICT_NOISY: return "noisy";
    case NB_VERDICT_CONTENDED: return "contended";
    case NB_VERDICT_INSUFFICIENT: return "insufficient-data";
    }
    return "unknown";
}

const char *nb_variance_source_name(nb_variance_source s)
{
    switch (s) {
    case NB_VARIANCE_FLOOR: return "assumed-run-noise";
    case NB_VARIANCE_RUNS: return "repeated-runs";
    default: return "within-run";
    }
}

void nb_compare_opts_default(nb_compare_opts *o)
{
    o->threshold_pct = 1.0;
    o->alpha = 0.01;
    o->level = 0.95;
    o->min_samples = 5;
    o->match = NB_MATCH_SAME;
    o->run_noise_pct = -1.0;
    o->strict = 0;
    o->keep = NULL;
    o->keep_ctx = NULL;
    o->ignored = NULL;
}

/* The within-run test of samples a (base) and b (new); its verdict is set by
 * judge(). */
static nb_status within_test(const double *a, size_t na, const double *b, size_t nb,
                             const nb_compare_opts *o, nb_compare_test *t)
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
    return NB_OK;
}

/* The variance model of one row, shared by its time and cycle tests. */
typedef struct model {
    nb_variance_source source;
    double noise;  /* assumed run-to-run noise, relative (0.01 = 1 %) */
    double sd, df; /* the sd of one run's log location used, and the quantile's df */
    double spread; /* repeated runs: the sd of their log locations alone (NAN otherwise) */
} model;

/* The upper alpha quantile of the chi-square distribution with df degrees of
 * freedom (Wilson-Hilferty; within 1 % of the exact value for df 1..20 at
 * alpha = 0.01, and within 4 % at alpha = 0.001). */
static double chi2_upper(double alpha, double df)
{
    const double c = 2.0 / (9.0 * df), z = nb_normal_upper_quantile(alpha);
    const double t = 1.0 - c + z * sqrt(c);
    return df * t * t * t;
}

/* The test on the runs' log locations la[0..ka) (base) and lb[0..kb) (new),
 * given the within-run test of the first runs; fills t (not its verdict) and
 * m->sd, m->df. One run a side: the within-run estimate, its variance plus
 * twice the assumed run noise's (each run drifts on its own), a normal
 * quantile. Repeated runs: the difference of the mean log locations, the
 * pooled variance of the runs moderated by the assumed noise counted as
 * NB_RUN_NOISE_PRIOR_DF degrees of freedom (none when the noise is 0, or when
 * the runs' variance is significantly above it), never below what one run's
 * samples allow, Student's t with the pooled df. */
static void runs_test(const double *la, size_t ka, const double *lb, size_t kb,
                      const nb_compare_test *within, const nb_compare_opts *o, model *m,
                      nb_compare_test *t)
{
    const double zw = nb_normal_upper_quantile((1.0 - o->level) / 2.0);
    const double se_w = (log(within->hi) - log(within->lo)) / (2.0 * zw);
    double est, var;
    if (m->source == NB_VARIANCE_WITHIN) {
        *t = *within;
        m->sd = NAN;
        m->df = INFINITY;
        return;
    }
    if (m->source == NB_VARIANCE_FLOOR) {
        est = log(within->ratio);
        var = se_w * se_w + 2.0 * m->noise * m->noise;
        m->sd = sqrt(m->noise * m->noise + se_w * se_w / 2.0);
        m->df = INFINITY;
    } else {
        double ma = 0, mb = 0, ss = 0;
        for (size_t i = 0; i < ka; i++)
            ma += la[i] / (double)ka;
        for (size_t i = 0; i < kb; i++)
            mb += lb[i] / (double)kb;
        for (size_t i = 0; i < ka; i++)
            ss += (la[i] - ma) * (la[i] - ma);
        for (size_t i = 0; i < kb; i++)
            ss += (lb[i] - mb) * (lb[i] - mb);
        const double d = (double)(ka + kb - 2), prior = m->noise * m->noise + se_w * se_w / 2.0;
        /* the prior only while the runs do not contradict it: their own variance
         * above it at p < NB_RUN_NOISE_CONFLICT_P (chi-square) drops it */
        const int conflict =
            d > 0 && ss / d > prior * chi2_upper(NB_RUN_NOISE_CONFLICT_P, d) / d;
        const double d0 = m->noise > 0 && !conflict ? NB_RUN_NOISE_PRIOR_DF : 0;
        const double s2 = fmax((d0 * prior + ss) / (d0 + d), se_w * se_w / 2.0);
        m->spread = d > 0 ? sqrt(ss / d) : NAN;
        est = mb - ma;
        var = s2 * (1.0 / (double)ka + 1.0 / (double)kb);
        m->sd = sqrt(s2);
        m->df = d0 + d;
    }
    const double se = sqrt(var), q = nb_student_t_upper_quantile((1.0 - o->level) / 2.0, m->df);
    t->done = 1;
    t->ratio = exp(est);
    t->lo = exp(est - q * se);
    t->hi = exp(est + q * se);
    t->p = se > 0 ? fmin(1.0, 2.0 * nb_student_t_upper(fabs(est) / se, m->df))
                  : (est == 0 ? 1.0 : 0.0);
    if (m->source == NB_VARIANCE_FLOOR) /* the verdict needs both tests: the larger p */
        t->p = fmax(t->p, within->p);
}

/* The verdict of a test: significant (p < alpha; with one run a side the
 * within-run test agreeing) and beyond the threshold, else same when the
 * interval lies within the threshold, or the runs are precise (noise_ok,
 * precise_runs) and the estimate lies within it, else noisy. (The within-run
 * interval alone never makes `same` of a test that covers the run-to-run
 * noise: it speaks of the two runs, not of the code.) */
static nb_verdict judge(const nb_compare_test *t, const nb_compare_test *within,
                        const model *m, const nb_compare_opts *o, int noise_ok)
{
    const double up = 1.0 + o->threshold_pct / 100.0, down = 1.0 / up;
    const int sig = t->p < o->alpha && (m->source == NB_VARIANCE_RUNS || within->p < o->alpha);
    if (sig && t->ratio > up)
        return NB_VERDICT_SLOWER;
    if (sig && t->ratio < down)
        return NB_VERDICT_FASTER;
    if (t->lo >= down && t->hi <= up)
        return NB_VERDICT_SAME;
    return noise_ok && t->ratio >= down && t->ratio <= up ? NB_VERDICT_SAME : NB_VERDICT_NOISY;
}

/* The spread of a run's samples as a relative standard deviation, robust to
 * outliers: (log p90 - log p10) / (2 z_0.9), which is the standard deviation
 * of normal log times; 0 with fewer than 5 samples or on failure. A run that
 * missed its noise target with samples this scattered cannot promise that
 * its median reproduces more closely. */
static double sample_spread(const nb_rf_case *c)
{
    nb_stats st;
    if (c->n_samples < 5 || nb_stats_compute(c->samples_ns, c->n_samples, &st) != NB_OK ||
        !(st.p10 > 0) || st.p90 < st.p10)
        return 0.0;
    return (log(st.p90) - log(st.p10)) / (2.0 * nb_normal_upper_quantile(0.1));
}

static int usable(const nb_rf_case *c) { return !strcmp(c->status, "ok") && c->has_stats; }

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

/* The log locations of a side's usable runs into l (k of them): log median
 * time, plus log median clock for cycles. */
static void locations(const nb_rf_case *const *runs, size_t n, int cycles, double *l, size_t *k)
{
    *k = 0;
    for (size_t i = 0; i < n; i++)
        if (usable(runs[i]) && (!cycles || runs[i]->median_clock_mhz > 0))
            l[(*k)++] = log(runs[i]->median_ns) +
                        (cycles ? log(runs[i]->median_clock_mhz / 1000.0) : 0.0);
}

/* Whether a row's runs are precise enough for `same` on the ratio alone:
 * every usable run of both sides met its noise target with a noise of at
 * most the threshold (a loose --max-noise met says nothing at 1 %), and with
 * repeated runs their own spread (m->spread, after runs_test; not the
 * moderated sd, which the assumed noise keeps above it) is within the
 * threshold too, so that runs which disagree are judged by their interval. */
static int precise_runs(const nb_compare_row *r, const nb_compare_opts *o, const model *m)
{
    for (int k = 0; k < 2; k++) {
        const nb_rf_case *const *runs = k ? r->new_run : r->base_run;
        for (size_t i = 0, n = k ? r->n_new_run : r->n_base_run; i < n; i++)
            if (usable(runs[i]) &&
                !(runs[i]->noise_target_met && runs[i]->noise_pct <= o->threshold_pct))
                return 0;
    }
    return m->source != NB_VARIANCE_RUNS || 100.0 * m->spread <= o->threshold_pct;
}

/* One metric (times or cycles) of a row: within-run test, runs test, verdict. */
static nb_status test_metric(nb_compare_row *r, const nb_compare_opts *o, model *m, int cycles,
                             nb_compare_test *within, nb_compare_test *t)
{
    const nb_rf_case *a = r->base, *b = r->new_;
    const int per_sample = r->cycle_source == NB_CLOCK_PER_SAMPLE;
    double *ca = cycles ? cycles_of(a, per_sample) : NULL;
    double *cb = cycles ? cycles_of(b, per_sample) : NULL;
    double *la = malloc((r->n_base_run + r->n_new_run) * sizeof *la);
    nb_status s = NB_OK;
    if (!la || (cycles && (!ca || !cb)))
        s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "compare: out of memory");
    if (s == NB_OK)
        s = within_test(cycles ? ca : a->samples_ns, a->n_samples,
                        cycles ? cb : b->samples_ns, b->n_samples, o, within);
    if (s == NB_OK) {
        size_t ka, kb;
        double *lb = la + r->n_base_run;
        locations(r->base_run, r->n_base_run, cycles, la, &ka);
        locations(r->new_run, r->n_new_run, cycles, lb, &kb);
        if (!cycles) {
            r->base_runs = ka;
            r->new_runs = kb;
        }
        m->source = ka && kb && ka + kb > 2 ? NB_VARIANCE_RUNS
                    : m->noise > 0          ? NB_VARIANCE_FLOOR
                                            : NB_VARIANCE_WITHIN;
        runs_test(la, ka, lb, kb, within, o, m, t);
        const int noise_ok = precise_runs(r, o, m);
        const model alone = {NB_VARIANCE_WITHIN, 0, NAN, INFINITY, NAN};
        within->verdict = judge(within, within, &alone, o, noise_ok);
        t->verdict = judge(t, within, m, o, noise_ok);
    }
    free(ca);
    free(cb);
    free(la);
    return s;
}

/* Geometric mean of the usable runs' median SM clocks; NaN when one lacks it. */
static double side_clock(const nb_rf_case *const *runs, size_t n)
{
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!usable(runs[i]))
            continue;
        if (!(runs[i]->median_clock_mhz > 0))
            return NAN;
        sum += log(runs[i]->median_clock_mhz);
        k++;
    }
    return k ? exp(sum / (double)k) : NAN;
}

/* Appends a clause to the row's note, "; " between clauses (cut at its size). */
static void note_add(nb_compare_row *r, const char *fmt, ...)
{
    size_t u = strlen(r->note);
    if (u + 3 >= sizeof r->note)
        return;
    if (u)
        u += (size_t)snprintf(r->note + u, sizeof r->note - u, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->note + u, sizeof r->note - u, fmt, ap);
    va_end(ap);
}

/* Sets r->contended from the runs' flags (bit 0 base, bit 1 new) and notes
 * the side and reason of the first contended run. */
static void contention(nb_compare_row *r)
{
    const nb_rf_case *first = NULL;
    const char *side = "";
    for (int k = 0; k < 2; k++) {
        const nb_rf_case *const *runs = k ? r->new_run : r->base_run;
        for (size_t i = 0, n = k ? r->n_new_run : r->n_base_run; i < n; i++)
            if (runs[i]->contended) {
                r->contended |= 1 << k;
                if (!first) {
                    first = runs[i];
                    side = k ? "new" : "base";
                }
            }
    }
    if (first)
        note_add(r, "%s run contended%s%.160s%s", side, *first->contention_reason ? " (" : "",
                 first->contention_reason, *first->contention_reason ? ")" : "");
}

nb_status nb_compare_judge_row(nb_compare_row *r, const nb_compare_opts *o, size_t n_base_files,
                               size_t n_new_files)
{
    const nb_rf_case *a = r->base, *b = r->new_;
    r->base_median_ns = a->median_ns;
    r->new_median_ns = b->median_ns;
    r->time.ratio = b->median_ns / a->median_ns;
    r->time.lo = r->time.hi = r->time.p = NAN;
    r->cycles = r->within = r->time;
    r->verdict = NB_VERDICT_INSUFFICIENT;
    r->run_sd_pct = NAN;
    r->base_clock_mhz = r->new_clock_mhz = NAN; /* null in JSON and CSV until measured */
    r->df = INFINITY;
    const int gpu = strcmp(a->backend, "cpu") != 0;
    double noise = o->run_noise_pct >= 0 ? o->run_noise_pct
                   : gpu ? NB_RUN_NOISE_GPU_PCT : NB_RUN_NOISE_CPU_PCT;
    /* the assumed noise is at least the spread of the samples of a first run
     * that missed its noise target */
    const double spread = 100.0 * fmax(a->noise_target_met ? 0.0 : sample_spread(a),
                                       b->noise_target_met ? 0.0 : sample_spread(b));
    const int widened = o->run_noise_pct < 0 && spread > noise;
    if (widened)
        noise = spread;
    r->run_noise_pct = noise;
    r->cycle_source = a->clock_source < b->clock_source ? a->clock_source : b->clock_source;
    if (strcmp(a->status, "ok") || strcmp(b->status, "ok")) {
        snprintf(r->note, sizeof r->note, "status %s / %s", a->status, b->status);
        return NB_OK;
    }
    if (a->n_samples < o->min_samples || b->n_samples < o->min_samples) {
        snprintf(r->note, sizeof r->note, "%zu / %zu stored samples (at least %zu needed)",
                 a->n_samples, b->n_samples, o->min_samples);
        return NB_OK;
    }
    model m = {NB_VARIANCE_WITHIN, noise / 100.0, NAN, INFINITY, NAN};
    NB_TRY(test_metric(r, o, &m, 0, &r->within, &r->time));
    r->source = m.source;
    r->run_sd_pct = 100.0 * m.sd;
    r->df = m.df;
    if (r->cycle_source != NB_CLOCK_NONE) {
        model mc = m;
        nb_compare_test wc;
        NB_TRY(test_metric(r, o, &mc, 1, &wc, &r->cycles));
    }
    r->base_clock_mhz = side_clock(r->base_run, r->n_base_run);
    r->new_clock_mhz = side_clock(r->new_run, r->n_new_run);
    r->verdict = r->time.verdict;
    const int changed =
        r->time.verdict == NB_VERDICT_SLOWER || r->time.verdict == NB_VERDICT_FASTER;
    /* a clock change explains the time only when the cycles did not change
     * and the clock moved the other way by at least half as much; with the
     * cycles inconclusive the time's verdict stands, and the note says that
     * the clock moved as much */
    const double clock_move = log(r->new_clock_mhz / r->base_clock_mhz);
    const int clock_explains = isfinite(clock_move) && -clock_move * log(r->time.ratio) > 0 &&
                               fabs(clock_move) >= 0.5 * fabs(log(r->time.ratio));
    if (r->cycles.done && changed && r->cycles.verdict == NB_VERDICT_SAME && clock_explains) {
        r->verdict = NB_VERDICT_CLOCK;
        note_add(r, "time %s, cycles unchanged", nb_verdict_name(r->time.verdict));
    } else if (r->cycles.done && changed && r->cycles.verdict == NB_VERDICT_NOISY &&
               clock_explains) {
        note_add(r, "the SM clock moved as much: the cycles (noisy, ratio %.4f) cannot tell the "
                 "clock from the code", r->cycles.ratio);
    } else if (r->cycles.done && r->cycles.verdict != r->time.verdict) {
        note_add(r, "cycles: %s", nb_verdict_name(r->cycles.verdict));
    }
    if (isfinite(clock_move) && fabs(clock_move) > log(1.01))
        note_add(r, "SM clock %.0f -> %.0f MHz", r->base_clock_mhz, r->new_clock_mhz);
    if (!(a->noise_target_met && b->noise_target_met))
        note_add(r, "noise target not met");
    if (widened)
        note_add(r, "run noise taken as the samples' spread, %.2g %%", noise);
    if (a->samples_reservoir || b->samples_reservoir)
        note_add(r, "tested on %zu / %zu stored of %zu / %zu samples (reservoir)", a->n_samples,
                 b->n_samples, a->n_recorded_samples, b->n_recorded_samples);
    if (r->base_runs < n_base_files || r->new_runs < n_new_files)
        note_add(r, "timed in %zu of %zu base and %zu of %zu new runs", r->base_runs,
                 n_base_files, r->new_runs, n_new_files);
    contention(r);
    if (r->contended && !o->strict) {
        note_add(r, "not judged (would be %s; --strict judges it)", nb_verdict_name(r->verdict));
        r->verdict = NB_VERDICT_CONTENDED;
    }
    return NB_OK;
}

/* Statistics of a case's samples and the online stopping rule (Welford mean
 * and variance, a window of recent noise estimates). Pure functions: no
 * clock, no I/O, so tests drive them with hand-computed data and fake time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/timing/stats.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between order statistics, h = (n - 1) p (numpy's
 * default "linear" method, Hyndman & Fan type 7). `s` sorted. */
static double quantile_sorted(const double *s, size_t n, double p)
{
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n)
        return s[n - 1];
    return s[lo] + (h - (double)lo) * (s[lo + 1] - s[lo]);
}

double nb_median_inplace(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return quantile_sorted(v, n, 0.5);
}

/* Largest j >= 1 with P(Bin(n, 1/2) <= j - 1) <= alpha/2; 0 if none. Also the
 * coverage 1 - 2 P(X <= j - 1) of [x_(j), x_(n+1-j)]. */
static size_t median_ci_rank(size_t n, double *coverage)
{
    const double half_alpha = 0.025;
    const double log_norm = lgamma((double)n + 1.0) - (double)n * log(2.0);
    double cdf = 0.0;
    size_t j = 0;
    for (size_t k = 0; k < n / 2; k++) {
        double pmf = exp(log_norm - lgamma((double)k + 1.0) - lgamma((double)(n - k) + 1.0));
        if (cdf + pmf > half_alpha)
            break;
        cdf += pmf;
        j = k + 1; /* P(X <= k) <= alpha/2, so rank j = k + 1 qualifies */
    }
    /* cdf now is P(X <= j - 1) for the chosen j */
    *coverage = j ? 1.0 - 2.0 * cdf : 1.0 - 2.0 * pow(0.5, (double)n);
    return j;
}

nb_status nb_stats_compute(const double *x, size_t n, nb_stats *out)
{
    if (!x || !out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_stats_compute: NULL argument");
    if (n == 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_stats_compute: no samples");
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return nb_set_error(NB_ERR_INVALID_ARG, "nb_stats_compute: sample %zu is not finite",
                                i);
    double *s = malloc(n * sizeof *s);
    if (!s)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "nb_stats_compute: out of memory");
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);

    memset(out, 0, sizeof *out);
    out->n = n;
    out->min = s[0];
    out->max = s[n - 1];
    out->median = quantile_sorted(s, n, 0.5);
    out->p10 = quantile_sorted(s, n, 0.1);
    out->p90 = quantile_sorted(s, n, 0.9);

    /* two-pass mean and variance (exact enough for any n we keep) */
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += s[i];
    out->mean = sum / (double)n;
    double ss = 0.0;
    for (size_t i = 0; i < n; i++)
        ss += (s[i] - out->mean) * (s[i] - out->mean);
    out->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN; /* one sample: unknown */
    out->noise_pct = n < 2 ? NAN : out->mean != 0.0 ? 100.0 * out->stddev / out->mean : 0.0;

    double coverage;
    size_t j = median_ci_rank(n, &coverage);
    if (j >= 1) {
        out->ci_lo = s[j - 1];
        out->ci_hi = s[n - j];
    } else {
        out->ci_lo = s[0];
        out->ci_hi = s[n - 1];
    }
    out->ci_level = coverage;
    free(s);
    return NB_OK;
}

/* ---------------------------------------------------------------- stopping */

#define STABLE_EVERY 64       /* check noise stability every this many samples */
#define STABLE_MIN_HISTORY 64 /* ... once this many noise estimates exist */
#define STABLE_REL_SPREAD 0.05

void nb_stop_rule_init(nb_stop_rule *r, const nb_bench_opts *o, double start_s)
{
    memset(r, 0, sizeof *r);
    r->min_samples = o->min_samples;
    r->max_samples = o->max_samples;
    r->min_time_s = o->min_time_s;
    r->max_noise_pct = o->max_noise_pct;
    r->timeout_s = o->timeout_s;
    r->start_s = start_s;
}

double nb_stop_rule_noise_pct(const nb_stop_rule *r)
{
    if (r->n < 2 || r->mean <= 0.0)
        return INFINITY;
    return 100.0 * sqrt(r->m2 / (double)(r->n - 1)) / r->mean;
}

void nb_stop_rule_add(nb_stop_rule *r, double sample_s, double measured_s)
{
    r->n++;
    r->total_s += measured_s;
    double d = sample_s - r->mean;
    r->mean += d / (double)r->n;
    r->m2 += d * (sample_s - r->mean);
    double noise = nb_stop_rule_noise_pct(r);
    if (isfinite(noise)) {
        r->noise_hist[r->hist_pos] = noise;
        r->hist_pos = (r->hist_pos + 1) % NB_NOISE_WINDOW;
        if (r->hist_len < NB_NOISE_WINDOW)
            r->hist_len++;
    }
}

/* Relative standard deviation of the recorded noise estimates. */
static double noise_spread(const nb_stop_rule *r)
{
    double mean = 0.0, ss = 0.0;
    for (size_t i = 0; i < r->hist_len; i++)
        mean += r->noise_hist[i];
    mean /= (double)r->hist_len;
    for (size_t i = 0; i < r->hist_len; i++)
        ss += (r->noise_hist[i] - mean) * (r->noise_hist[i] - mean);
    if (mean <= 0.0)
        return 0.0;
    return sqrt(ss / (double)(r->hist_len - 1)) / mean;
}

int nb_stop_rule_done(const nb_stop_rule *r, double now_s, nb_stop_reason *why)
{
    nb_stop_reason dummy;
    if (!why)
        why = &dummy;
    if (r->n >= r->min_samples && r->total_s >= r->min_time_s) {
        if (nb_stop_rule_noise_pct(r) <= r->max_noise_pct) {
            *why = NB_STOP_CONVERGED;
            return 1;
        }
        if (r->hist_len >= STABLE_MIN_HISTORY && r->n % STABLE_EVERY == 0 &&
            noise_spread(r) < STABLE_REL_SPREAD) {
            *why = NB_STOP_NOISE_STABLE;
            return 1;
        }
    }
    if (r->n >= r->max_samples) {
        *why = NB_STOP_MAX_SAMPLES;
        return 1;
    }
    if (now_s - r->start_s >= r->timeout_s) {
        *why = NB_STOP_TIMEOUT;
        return 1;
    }
    return 0;
}

size_t nb_stop_rule_until_check(const nb_stop_rule *r)
{
    if (r->n >= r->max_samples)
        return 1;
    size_t k = r->max_samples - r->n;
    const size_t to_stable = STABLE_EVERY - r->n % STABLE_EVERY;
    if (to_stable < k)
        k = to_stable;
    /* samples before min-samples and min-time can both be met */
    double earliest = r->n < r->min_samples ? (double)(r->min_samples - r->n) : 0.0;
    if (r->total_s < r->min_time_s && r->n > 0 && r->total_s > 0) {
        const double need = ceil((r->min_time_s - r->total_s) / (r->total_s / (double)r->n));
        if (need > earliest)
            earliest = need;
    }
    if (earliest >= 1.0 && earliest < (double)k)
        k = (size_t)earliest;
    return k;
}

size_t nb_batch_size(size_t k_max, size_t until_check, size_t ops_per_sample,
                     double est_sample_s)
{
    if (ops_per_sample == 0 || !(est_sample_s > 0.0) || !isfinite(est_sample_s))
        return 1;
    size_t k = k_max < until_check ? k_max : until_check;
    const size_t by_queue = NB_BATCH_QUEUE_OPS / ops_per_sample;
    if (by_queue < k)
        k = by_queue;
    const double by_time = floor(NB_BATCH_TARGET_S / est_sample_s);
    if (by_time < (double)k)
        k = (size_t)by_time;
    return k < 1 ? 1 : k;
}

const char *nb_stop_reason_name(nb_stop_reason r)
{
    switch (r) {
    case NB_STOP_CONVERGED: return "converged";
    case NB_STOP_NOISE_STABLE: return "noise-stable";
    case NB_STOP_MAX_SAMPLES: return "max-samples";
    case NB_STOP_TIMEOUT: return "timeout";
    case NB_STOP_INTERRUPTED: return "interrupted";
    }
    return "unknown";
}

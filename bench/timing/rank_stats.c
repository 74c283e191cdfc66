/* Mann-Whitney U (exact and normal approximation with tie correction) and the
 * Hodges-Lehmann shift with its Moses confidence interval, for comparing two
 * runs' timing samples, and Student's t distribution for comparing the
 * medians of repeated runs (bench/report/compare_case.c). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/timing/rank_stats.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double *sorted_copy(const double *v, size_t n)
{
    double *c = malloc((n ? n : 1) * sizeof *c);
    if (!c)
        return NULL;
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_double);
    return c;
}

static nb_status check_sample(const double *v, size_t n, const char *what)
{
    if (!v || n == 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: empty sample", what);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return nb_set_error(NB_ERR_INVALID_ARG, "%s: value %zu is not finite", what, i);
    return NB_OK;
}

double nb_rank_median(const double *v, size_t n)
{
    if (!v || n == 0)
        return NAN;
    double *c = sorted_copy(v, n);
    if (!c)
        return NAN;
    double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
    free(c);
    return m;
}

double nb_normal_upper_quantile(double p)
{
    if (!(p > 0.0 && p < 1.0))
        return NAN;
    double lo = -40.0, hi = 40.0;
    for (int it = 0; it < 200; it++) {
        double mid = 0.5 * (lo + hi);
        if (0.5 * erfc(mid / sqrt(2.0)) > p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* Regularized incomplete beta I_x(a, b) by the continued fraction of
 * Numerical Recipes (modified Lentz), x in [0, 1]. */
static double incomplete_beta(double x, double a, double b)
{
    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    if (x > (a + 1.0) / (a + b + 2.0)) /* the fraction converges fast below this point */
        return 1.0 - incomplete_beta(1.0 - x, b, a);
    const double front =
        exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x)) / a;
    const double tiny = 1e-300;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    d = 1.0 / (fabs(d) < tiny ? tiny : d);
    double f = d;
    for (int m = 1; m <= 500; m++) {
        for (int half = 0; half < 2; half++) {
            const double num = half ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
                                    : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
            d = 1.0 + num * d;
            d = 1.0 / (fabs(d) < tiny ? tiny : d);
            c = 1.0 + num / c;
            c = fabs(c) < tiny ? tiny : c;
            f *= c * d;
        }
        if (fabs(c * d - 1.0) < 1e-15)
            break;
    }
    return front * f;
}

double nb_student_t_upper(double t, double df)
{
    if (isnan(t) || isnan(df) || !(df > 0.0))
        return NAN;
    if (isinf(df))
        return 0.5 * erfc(t / sqrt(2.0));
    const double tail = 0.5 * incomplete_beta(df / (df + t * t), df / 2.0, 0.5);
    return t >= 0.0 ? tail : 1.0 - tail;
}

double nb_student_t_upper_quantile(double p, double df)
{
    if (!(p > 0.0 && p < 1.0) || isnan(df) || !(df > 0.0))
        return NAN;
    if (isinf(df))
        return nb_normal_upper_quantile(p);
    double lo = -1e3, hi = 1e3; /* beyond: p below 1e-6 at df = 1 */
    while (nb_student_t_upper(hi, df) > p && hi < 1e300)
        hi *= 1e3;
    while (nb_student_t_upper(lo, df) < p && lo > -1e300)
        lo *= 1e3;
    for (int it = 0; it < 300 && hi - lo > 1e-13 * fmax(1.0, fabs(hi)); it++) {
        const double mid = 0.5 * (lo + hi);
        if (nb_student_t_upper(mid, df) > p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

nb_status nb_mwu_exact_cdf(size_t m, size_t n, double u, double *p)
{
    if (!p || m == 0 || n == 0 || m + n > NB_MWU_EXACT_MAX_N)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "exact U distribution: sizes %zu, %zu outside [1, %u] in total", m,
                            n, NB_MWU_EXACT_MAX_N);
    /* Counts of U = d are the coefficients of the Gaussian binomial
     * [m+n choose m]_q, built as prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i); every
     * partial product is itself a Gaussian binomial, so all values are
     * integers below C(m+n, m) < 2^53. */
    size_t deg = m * n, cap = deg + m + 1;
    double *a = calloc(cap, sizeof *a);
    if (!a)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "exact U distribution: out of memory");
    a[0] = 1.0;
    for (size_t i = 1; i <= m; i++) {
        size_t top = i * n + i, s = n + i;
        for (size_t d = top; d >= s; d--)
            a[d] -= a[d - s];
        for (size_t d = i; d <= top; d++)
            a[d] += a[d - i];
    }
    double total = 0.0, below = 0.0;
    for (size_t d = 0; d <= deg; d++) {
        total += a[d];
        if ((double)d <= u + 1e-9)
            below += a[d];
    }
    free(a);
    *p = below / total;
    return NB_OK;
}

typedef struct tagged {
    double v;
    int from_x;
} tagged;

static int cmp_tagged(const void *a, const void *b)
{
    return cmp_double(&((const tagged *)a)->v, &((const tagged *)b)->v);
}

/* Rank sum of x in the pooled sample (mid-ranks for ties) and sum(t^3 - t). */
static nb_status rank_sum(const double *x, size_t nx, const double *y, size_t ny, double *rx,
                          double *ties)
{
    size_t n = nx + ny;
    tagged *t = malloc(n * sizeof *t);
    if (!t)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "Mann-Whitney: out of memory");
    for (size_t i = 0; i < nx; i++)
        t[i] = (tagged){x[i], 1};
    for (size_t j = 0; j < ny; j++)
        t[nx + j] = (tagged){y[j], 0};
    qsort(t, n, sizeof *t, cmp_tagged);
    double r = 0.0, tt = 0.0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && t[j + 1].v == t[i].v)
            j++;
        double mid = 0.5 * ((double)(i + 1) + (double)(j + 1)), g = (double)(j - i + 1);
        for (size_t k = i; k <= j; k++)
            if (t[k].from_x)
                r += mid;
        tt += g * g * g - g;
        i = j + 1;
    }
    free(t);
    *rx = r;
    *ties = tt;
    return NB_OK;
}

nb_status nb_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, nb_mwu *out)
{
    if (!out)
        return nb_set_error(NB_ERR_INVALID_ARG, "Mann-Whitney: NULL result");
    NB_TRY(check_sample(x, nx, "Mann-Whitney, first sample"));
    NB_TRY(check_sample(y, ny, "Mann-Whitney, second sample"));
    double rx = 0.0, ties = 0.0; /* set by rank_sum on success */
    NB_TRY(rank_sum(x, nx, y, ny, &rx, &ties));
    const double m = (double)nx, n = (double)ny, big_n = m + n;
    memset(out, 0, sizeof *out);
    out->u_x = rx - m * (m + 1.0) / 2.0;
    out->u_y = m * n - out->u_x;
    out->tie_term = ties;
    if (ties == 0.0 && nx + ny <= NB_MWU_EXACT_MAX_N) {
        double lo, hi;
        NB_TRY(nb_mwu_exact_cdf(nx, ny, out->u_x, &lo));
        NB_TRY(nb_mwu_exact_cdf(nx, ny, m * n - out->u_x, &hi)); /* P(U >= u) by symmetry */
        out->p = fmin(1.0, 2.0 * fmin(lo, hi));
        out->exact = 1;
        return NB_OK;
    }
    double var = m * n / 12.0 * ((big_n + 1.0) - ties / (big_n * (big_n - 1.0)));
    if (!(var > 0.0)) {
        out->p = 1.0;
        return NB_OK;
    }
    double d = out->u_x - m * n / 2.0;
    double corrected = fmax(0.0, fabs(d) - 0.5);
    out->z = (d < 0 ? -corrected : corrected) / sqrt(var);
    out->p = fmin(1.0, erfc(fabs(out->z) / sqrt(2.0)));
    return NB_OK;
}

/* Number of pairs with y_j - x_i <= d (x, y sorted ascending). */
static uint64_t count_le(const double *x, size_t nx, const double *y, size_t ny, double d)
{
    uint64_t c = 0;
    size_t p = 0;
    for (size_t j = 0; j < ny; j++) {
        while (p < nx && y[j] - x[p] > d)
            p++;
        c += nx - p;
    }
    return c;
}

/* Smallest pairwise difference strictly greater than lo. */
static double next_diff_above(const double *x, size_t nx, const double *y, size_t ny, double lo)
{
    double best = INFINITY;
    size_t p = 0;
    for (size_t j = 0; j < ny; j++) {
        while (p < nx && y[j] - x[p] > lo)
            p++;
        /* x[p-1] is the largest x with y_j - x > lo */
        if (p > 0 && y[j] - x[p - 1] < best)
            best = y[j] - x[p - 1];
    }
    return best;
}

/* The k-th smallest (1-based) of the nx*ny differences y_j - x_i. */
static double kth_diff(const double *x, size_t nx, const double *y, size_t ny, uint64_t k)
{
    double lo = y[0] - x[nx - 1], hi = y[ny - 1] - x[0];
    if (count_le(x, nx, y, ny, lo) >= k)
        return lo;
    for (int it = 0; it < 200; it++) {
        double tol = 1e-13 * fmax(1.0, fmax(fabs(lo), fabs(hi)));
        if (hi - lo <= tol)
            break;
        double mid = lo + 0.5 * (hi - lo);
        if (count_le(x, nx, y, ny, mid) >= k)
            hi = mid;
        else
            lo = mid;
    }
    double d = next_diff_above(x, nx, y, ny, lo);
    return d <= hi ? d : hi;
}

nb_status nb_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny,
                            double level, nb_shift_ci *out)
{
    if (!out || !(level > 0.0 && level < 1.0))
        return nb_set_error(NB_ERR_INVALID_ARG, "Hodges-Lehmann: level must be in (0, 1)");
    NB_TRY(check_sample(x, nx, "Hodges-Lehmann, first sample"));
    NB_TRY(check_sample(y, ny, "Hodges-Lehmann, second sample"));
    double *xs = sorted_copy(x, nx), *ys = sorted_copy(y, ny);
    if (!xs || !ys) {
        free(xs);
        free(ys);
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "Hodges-Lehmann: out of memory");
    }
    const uint64_t mn = (uint64_t)nx * (uint64_t)ny;
    if (mn % 2)
        out->estimate = kth_diff(xs, nx, ys, ny, mn / 2 + 1);
    else
        out->estimate = 0.5 * (kth_diff(xs, nx, ys, ny, mn / 2) +
                               kth_diff(xs, nx, ys, ny, mn / 2 + 1));
    const double z = nb_normal_upper_quantile((1.0 - level) / 2.0);
    const double m = (double)nx, n = (double)ny;
    double c = floor(m * n / 2.0 - z * sqrt(m * n * (m + n + 1.0) / 12.0));
    uint64_t ci = c < 1.0 ? 1 : (uint64_t)c;
    if (ci > (mn + 1) / 2)
        ci = (mn + 1) / 2;
    out->lo = kth_diff(xs, nx, ys, ny, ci);
    out->hi = kth_diff(xs, nx, ys, ny, mn + 1 - ci);
    out->level = level;
    free(xs);
    free(ys);
    return NB_OK;
}

nb_status nb_ratio_ci(const double *base, size_t nb, const double *new_, size_t nn,
                      double level, nb_shift_ci *out)
{
    NB_TRY(check_sample(base, nb, "ratio, base sample"));
    NB_TRY(check_sample(new_, nn, "ratio, new sample"));
    double *lb = malloc(nb * sizeof *lb), *ln = malloc(nn * sizeof *ln);
    nb_status s = NB_OK;
    if (!lb || !ln) {
        s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "ratio: out of memory");
        goto done;
    }
    for (size_t i = 0; i < nb && s == NB_OK; i++)
        if (base[i] > 0)
            lb[i] = log(base[i]);
        else
            s = nb_set_error(NB_ERR_INVALID_ARG, "ratio: base time %zu is not positive", i);
    for (size_t i = 0; i < nn && s == NB_OK; i++)
        if (new_[i] > 0)
            ln[i] = log(new_[i]);
        else
            s = nb_set_error(NB_ERR_INVALID_ARG, "ratio: new time %zu is not positive", i);
    if (s == NB_OK)
        s = nb_hodges_lehmann(lb, nb, ln, nn, level, out);
    if (s == NB_OK) {
        out->estimate = exp(out->estimate);
        out->lo = exp(out->lo);
        out->hi = exp(out->hi);
    }
done:
    free(lb);
    free(ln);
    return s;
}

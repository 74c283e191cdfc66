/* Rank statistics for comparing two samples of timings: the two-sided
 * Mann-Whitney U test (exact distribution for small samples without ties,
 * normal approximation with tie and continuity correction otherwise) and the
 * Hodges-Lehmann shift estimate with its distribution-free confidence
 * interval, applied to log times to give a ratio new/base with an interval;
 * Student's t distribution for the run-to-run test of `compare`.
 * Pure functions of their inputs: no allocation survives a call, nothing is
 * printed, no global state. */
#ifndef NB_RANK_STATS_H
#define NB_RANK_STATS_H

#include <stddef.h>

#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exact p-values are used when neither sample has ties and nx + ny is at
 * most this (the null distribution's counts stay exact in doubles). */
#define NB_MWU_EXACT_MAX_N 50u

typedef struct nb_mwu {
    double u_x;      /* U of x: pairs (x_i, y_j) with x_i > y_j, ties counted 1/2 */
    double u_y;      /* nx*ny - u_x */
    double z;        /* normal score of u_x (with continuity correction); 0 when exact */
    double p;        /* two-sided p-value in [0, 1] */
    int exact;       /* 1: p from the exact null distribution; 0: normal approximation */
    double tie_term; /* sum over tie groups of t^3 - t (0 without ties) */
} nb_mwu;

/* Two-sided Mann-Whitney U test of x[0..nx) against y[0..ny). Values must be
 * finite; nx, ny >= 1. When every value is equal the p-value is 1.
 * Errors: NULL pointers, empty samples, non-finite values (NB_ERR_INVALID_ARG),
 * allocation failure. */
nb_status nb_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, nb_mwu *out);

/* Lower-tail probability P(U <= u) of the exact null distribution of U for
 * samples of sizes m and n without ties (m + n <= NB_MWU_EXACT_MAX_N). */
nb_status nb_mwu_exact_cdf(size_t m, size_t n, double u, double *p);

typedef struct nb_shift_ci {
    double estimate; /* median of the nx*ny differences y_j - x_i */
    double lo, hi;   /* confidence bounds: order statistics of those differences */
    double level;    /* requested coverage, e.g. 0.95 */
} nb_shift_ci;

/* Hodges-Lehmann estimate of the shift y - x and its confidence interval
 * (the Moses interval: the C-th smallest and C-th largest of the nx*ny
 * pairwise differences, C from the normal approximation of U's null
 * distribution, at least 1). Runs in O((nx + ny) log) time and O(nx + ny)
 * memory (the differences are counted, never stored). level in (0, 1). */
nb_status nb_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny,
                            double level, nb_shift_ci *out);

/* The ratio new/base of two samples of positive times: exp of the
 * Hodges-Lehmann shift of the log times, with the exponentiated interval.
 * Errors: a time <= 0 or non-finite. */
nb_status nb_ratio_ci(const double *base, size_t nb, const double *new_, size_t nn,
                      double level, nb_shift_ci *out);

/* Median of v[0..n) (mean of the two middle values for even n); v is not
 * modified. NaN when n == 0 or on allocation failure. */
double nb_rank_median(const double *v, size_t n);

/* Upper quantile z with P(Z > z) = p of the standard normal, p in (0, 1). */
double nb_normal_upper_quantile(double p);

/* Upper tail P(T > t) of Student's t distribution with df > 0 degrees of
 * freedom, for any finite t; df = INFINITY gives the standard normal's.
 * NaN for df <= 0 or a NaN argument. Accurate to about 1e-12 (a continued
 * fraction of the regularized incomplete beta function). */
double nb_student_t_upper(double t, double df);

/* Upper quantile t with P(T > t) = p of Student's t with df > 0 degrees of
 * freedom (df = INFINITY: the normal's), p in (0, 1); NaN otherwise. */
double nb_student_t_upper_quantile(double p, double df);

#ifdef __cplusplus
}
#endif
#endif

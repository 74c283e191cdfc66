/* Tests of bench/timing/rank_stats: Mann-Whitney U and its p-values against
 * hand-computed values (exact null distribution of small samples, normal
 * approximation with ties), the Hodges-Lehmann shift and its interval against
 * brute-force enumeration of all pairwise differences on seeded random
 * samples with ties, the ratio interval of log times, and Student's t
 * tail and quantiles against closed forms and printed tables. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/timing/rank_stats.h"
#include "testutil.h"

static void test_exact_cdf_matches_enumerated_counts(void **state)
{
    (void)state;
    /* m = n = 3: counts of U = 0..9 are 1 1 2 3 3 3 3 2 1 1 (sum C(6,3) = 20). */
    static const double counts[10] = {1, 1, 2, 3, 3, 3, 3, 2, 1, 1};
    double cum = 0, p;
    for (int u = 0; u < 10; u++) {
        cum += counts[u];
        assert_int_equal(nb_mwu_exact_cdf(3, 3, u, &p), NB_OK);
        assert_true(fabs(p - cum / 20.0) < 1e-15);
    }
    /* m = 2, n = 2: 1 1 2 1 1 of 6. */
    assert_int_equal(nb_mwu_exact_cdf(2, 2, 2, &p), NB_OK);
    assert_true(fabs(p - 4.0 / 6.0) < 1e-15);
    /* m = 1, n = 4: uniform over 0..4. */
    assert_int_equal(nb_mwu_exact_cdf(1, 4, 1, &p), NB_OK);
    assert_true(fabs(p - 2.0 / 5.0) < 1e-15);
    assert_int_equal(nb_mwu_exact_cdf(30, 30, 0, &p), NB_ERR_INVALID_ARG);
}

static void test_exact_p_of_separated_samples(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3}, y[] = {4, 5, 6};
    nb_mwu r;
    assert_int_equal(nb_mann_whitney(x, 3, y, 3, &r), NB_OK);
    assert_true(r.exact);
    assert_true(r.u_x == 0.0 && r.u_y == 9.0);
    assert_true(fabs(r.p - 0.1) < 1e-15); /* 2 / C(6,3) */
    assert_int_equal(nb_mann_whitney(y, 3, x, 3, &r), NB_OK);
    assert_true(r.u_x == 9.0 && fabs(r.p - 0.1) < 1e-15);
    const double a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8};
    assert_int_equal(nb_mann_whitney(a, 4, b, 4, &r), NB_OK);
    assert_true(fabs(r.p - 2.0 / 70.0) < 1e-15);
    /* interleaved: U = 8 of 16, the centre: p = 1 */
    const double c[] = {1, 4, 5, 8}, d[] = {2, 3, 6, 7};
    assert_int_equal(nb_mann_whitney(c, 4, d, 4, &r), NB_OK);
    assert_true(r.u_x == 8.0 && r.p == 1.0);
}

static void test_normal_approximation_with_ties(void **state)
{
    (void)state;
    /* Pooled ranks: 1 | 2,2,2 -> 3 | 3,3 -> 5.5 | 4 -> 7 | 5 -> 8; R_x = 12.5, U_x = 2.5;
     * ties 3 and 2: T = 24 + 6 = 30; var = 16/12 (9 - 30/56) = 11.2857142857;
     * z = -(5.5 - 0.5)/sqrt(var) = -1.48835139; p = erfc(|z|/sqrt 2) = 0.136658248. */
    const double x[] = {1, 2, 2, 3}, y[] = {2, 3, 4, 5};
    nb_mwu r;
    assert_int_equal(nb_mann_whitney(x, 4, y, 4, &r), NB_OK);
    assert_false(r.exact);
    assert_true(r.u_x == 2.5);
    assert_true(r.tie_term == 30.0);
    assert_true(fabs(r.z + 1.4883513944689681) < 1e-12);
    assert_true(fabs(r.p - 0.13665824773814753) < 1e-12);
}

static void test_large_samples_give_tiny_p(void **state)
{
    (void)state;
    /* x = 0..99, y = 50..149: U_x = 1250 (50 ties at 1/2), T = 50 * 6 = 300,
     * z = -9.16165842, p = 5.11057824e-20. */
    double x[100], y[100];
    for (int i = 0; i < 100; i++) {
        x[i] = i;
        y[i] = i + 50;
    }
    nb_mwu r;
    assert_int_equal(nb_mann_whitney(x, 100, y, 100, &r), NB_OK);
    assert_true(r.u_x == 1250.0 && r.tie_term == 300.0);
    assert_true(fabs(r.z + 9.161658419279883) < 1e-9);
    assert_true(fabs(r.p / 5.1105782352776827e-20 - 1.0) < 1e-6);
}

static void test_all_equal_gives_p_one_and_bad_input_is_rejected(void **state)
{
    (void)state;
    double x[60], y[60];
    for (int i = 0; i < 60; i++)
        x[i] = y[i] = 7.0;
    nb_mwu r;
    assert_int_equal(nb_mann_whitney(x, 60, y, 60, &r), NB_OK);
    assert_true(r.p == 1.0);
    assert_int_equal(nb_mann_whitney(x, 0, y, 3, &r), NB_ERR_INVALID_ARG);
    x[3] = NAN;
    assert_int_equal(nb_mann_whitney(x, 60, y, 60, &r), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "not finite"));
    nb_shift_ci ci;
    const double neg[] = {1, -2}, pos[] = {1, 2};
    assert_int_equal(nb_ratio_ci(neg, 2, pos, 2, 0.95, &ci), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_hodges_lehmann(pos, 2, pos, 2, 1.5, &ci), NB_ERR_INVALID_ARG);
}

static void test_hodges_lehmann_hand_examples(void **state)
{
    (void)state;
    /* differences sorted: -1 0 1 1 2 3 3 4 5 -> estimate 2; level 0.5: C = 2 -> [0, 4];
     * level 0.95: C = floor(4.5 - 1.95996 * 2.29129) = 0 -> 1 -> [-1, 5]. */
    const double x[] = {1, 2, 3}, y[] = {2, 4, 6};
    nb_shift_ci ci;
    assert_int_equal(nb_hodges_lehmann(x, 3, y, 3, 0.5, &ci), NB_OK);
    assert_true(ci.estimate == 2.0 && ci.lo == 0.0 && ci.hi == 4.0);
    assert_int_equal(nb_hodges_lehmann(x, 3, y, 3, 0.95, &ci), NB_OK);
    assert_true(ci.lo == -1.0 && ci.hi == 5.0);
    /* even count: -9 -8 1 2 -> (-8 + 1) / 2 */
    const double a[] = {0, 10}, b[] = {1, 2};
    assert_int_equal(nb_hodges_lehmann(a, 2, b, 2, 0.5, &ci), NB_OK);
    assert_true(ci.estimate == -3.5);
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Selection of order statistics of the pairwise differences equals sorting them all. */
static void test_hodges_lehmann_matches_brute_force(void **state)
{
    (void)state;
    for (int trial = 0; trial < 40; trial++) {
        size_t nx = 1 + nb_test_rand_below(40), ny = 1 + nb_test_rand_below(40);
        double x[40], y[40], d[1600];
        for (size_t i = 0; i < nx; i++) /* quantised: many ties */
            x[i] = 100.0 + 0.5 * (double)nb_test_rand_below(20);
        for (size_t j = 0; j < ny; j++)
            y[j] = 101.0 + 0.5 * (double)nb_test_rand_below(25);
        size_t k = 0;
        for (size_t i = 0; i < nx; i++)
            for (size_t j = 0; j < ny; j++)
                d[k++] = y[j] - x[i];
        qsort(d, k, sizeof *d, cmpd);
        double med = k % 2 ? d[k / 2] : 0.5 * (d[k / 2 - 1] + d[k / 2]);
        double c = floor(k / 2.0 - nb_normal_upper_quantile(0.025) *
                                       sqrt((double)k * (double)(nx + ny + 1) / 12.0));
        size_t ci = c < 1 ? 1 : (size_t)c;
        if (ci > (k + 1) / 2)
            ci = (k + 1) / 2;
        nb_shift_ci r;
        assert_int_equal(nb_hodges_lehmann(x, nx, y, ny, 0.95, &r), NB_OK);
        if (r.estimate != med || r.lo != d[ci - 1] || r.hi != d[k - ci])
            fail_msg("trial %d nx=%zu ny=%zu: got %g [%g, %g], want %g [%g, %g]", trial, nx, ny,
                     r.estimate, r.lo, r.hi, med, d[ci - 1], d[k - ci]);
    }
}

static void test_ratio_of_scaled_times(void **state)
{
    (void)state;
    double base[500], scaled[500];
    for (int i = 0; i < 500; i++) {
        base[i] = 1000.0 * (1.0 + 0.01 * (double)nb_test_rand_below(1000) / 1000.0);
        scaled[i] = 1.1 * base[i];
    }
    nb_shift_ci r;
    assert_int_equal(nb_ratio_ci(base, 500, scaled, 500, 0.95, &r), NB_OK);
    assert_true(fabs(r.estimate - 1.1) < 1e-9);
    assert_true(r.lo <= r.estimate && r.estimate <= r.hi);
    assert_true(r.lo > 1.09 && r.hi < 1.11);
    assert_true(fabs(nb_normal_upper_quantile(0.025) - 1.959963984540054) < 1e-9);
    assert_true(nb_rank_median(base, 0) != nb_rank_median(base, 0)); /* NaN */
}

/* Student's t: df 1 and 2 in closed form, the quantiles of printed tables
 * (to their 4-5 digits), the normal at df = infinity, symmetry. */
static void test_student_t_matches_tables(void **state)
{
    (void)state;
    const double pi = 3.14159265358979323846;
    for (double t = -5; t <= 5; t += 0.25) {
        assert_true(fabs(nb_student_t_upper(t, 1) - (0.5 - atan(t) / pi)) < 1e-12);
        assert_true(fabs(nb_student_t_upper(t, 2) - 0.5 * (1 - t / sqrt(2 + t * t))) < 1e-12);
        assert_true(fabs(nb_student_t_upper(t, 7) + nb_student_t_upper(-t, 7) - 1) < 1e-12);
    }
    static const struct { double p, df, q; } table[] = {
        {0.025, 1, 12.7062}, {0.025, 4, 2.7764}, {0.025, 30, 2.0423},
        {0.005, 8, 3.3554},  {0.005, 12, 3.0545}, {0.05, 3, 2.3534},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        assert_true(fabs(nb_student_t_upper_quantile(table[i].p, table[i].df) - table[i].q) <
                    1e-4 * table[i].q);
    assert_true(fabs(nb_student_t_upper_quantile(0.025, INFINITY) - 1.959964) < 1e-6);
    assert_true(fabs(nb_student_t_upper(1.959964, INFINITY) - 0.025) < 1e-7);
    assert_true(isnan(nb_student_t_upper_quantile(0.025, 0)));
    assert_true(isnan(nb_student_t_upper(1.0, -1)));
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_cdf_matches_enumerated_counts),
        cmocka_unit_test(test_exact_p_of_separated_samples),
        cmocka_unit_test(test_normal_approximation_with_ties),
        cmocka_unit_test(test_large_samples_give_tiny_p),
        cmocka_unit_test(test_all_equal_gives_p_one_and_bad_input_is_rejected),
        cmocka_unit_test(test_hodges_lehmann_hand_examples),
        cmocka_unit_test(test_hodges_lehmann_matches_brute_force),
        cmocka_unit_test(test_ratio_of_scaled_times),
        cmocka_unit_test(test_student_t_matches_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

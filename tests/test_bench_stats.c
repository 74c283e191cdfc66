/* Tests of the timing core's pure parts: statistics against hand-computed
 * values, the stopping rule driven by a fake clock (sample by sample and in
 * the batches the GPU sample loop takes), the batch sizing, the cache planner
 * (including the graph that replays too few rotated buffers), and the names
 * of tiers and options. */
#include <math.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/timing/plan.h"
#include "bench/timing/stats.h"
#include "testutil.h"

#define CLOSE(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

/* ------------------------------------------------------------ statistics */

static void test_stats_one_to_ten_match_hand_values(void **state)
{
    (void)state;
    const double x[10] = {7, 3, 10, 1, 5, 9, 2, 8, 4, 6}; /* 1..10 shuffled */
    nb_stats s;
    assert_int_equal(nb_stats_compute(x, 10, &s), NB_OK);
    assert_int_equal(s.n, 10);
    CLOSE(s.median, 5.5, 1e-12);
    CLOSE(s.mean, 5.5, 1e-12);
    CLOSE(s.min, 1.0, 0);
    CLOSE(s.max, 10.0, 0);
    CLOSE(s.stddev, sqrt(82.5 / 9.0), 1e-12); /* sum (i - 5.5)^2 = 82.5 */
    CLOSE(s.noise_pct, 100.0 * sqrt(82.5 / 9.0) / 5.5, 1e-9);
    CLOSE(s.p10, 1.9, 1e-12); /* h = 0.9: 1 + 0.9 * (2 - 1) */
    CLOSE(s.p90, 9.1, 1e-12); /* h = 8.1: 9 + 0.1 * (10 - 9) */
    /* P(Bin(10,1/2) <= 1) = 11/1024 <= 0.025 < P(<= 2) = 56/1024: ranks 2 and 9 */
    CLOSE(s.ci_lo, 2.0, 0);
    CLOSE(s.ci_hi, 9.0, 0);
    CLOSE(s.ci_level, 1.0 - 22.0 / 1024.0, 1e-12);
    /* the input is left as it was */
    assert_true(x[0] == 7 && x[9] == 6);
}

static void test_stats_small_odd_sample(void **state)
{
    (void)state;
    const double x[5] = {3, 1, 4, 1, 5};
    nb_stats s;
    assert_int_equal(nb_stats_compute(x, 5, &s), NB_OK);
    CLOSE(s.median, 3.0, 0);
    CLOSE(s.mean, 2.8, 1e-12);
    CLOSE(s.stddev, sqrt(12.8 / 4.0), 1e-12);
    CLOSE(s.p10, 1.0, 1e-12); /* h = 0.4 between 1 and 1 */
    CLOSE(s.p90, 4.6, 1e-12); /* h = 3.6: 4 + 0.6 */
    /* n < 6: no distribution-free 95% interval exists: [min, max], coverage 1 - 2/32 */
    CLOSE(s.ci_lo, 1.0, 0);
    CLOSE(s.ci_hi, 5.0, 0);
    CLOSE(s.ci_level, 1.0 - 2.0 / 32.0, 1e-12);
}

/* The shared median of the breakdown and the clock probe: middle value of an
 * odd count, mean of the two middle values of an even one, any input order. */
static void test_median_inplace_odd_even_and_unsorted(void **state)
{
    (void)state;
    double odd[5] = {9, -1, 4, 100, 3};
    CLOSE(nb_median_inplace(odd, 5), 4.0, 0);
    double even[6] = {8, 2, 6, 4, 12, 10};
    CLOSE(nb_median_inplace(even, 6), 7.0, 0);
    double one[1] = {2.5};
    CLOSE(nb_median_inplace(one, 1), 2.5, 0);
}

static void test_stats_median_ci_of_hundred_uses_ranks_40_and_61(void **state)
{
    (void)state;
    double x[100];
    for (int i = 0; i < 100; i++)
        x[i] = (double)((i * 37) % 100 + 1); /* a permutation of 1..100 */
    nb_stats s;
    assert_int_equal(nb_stats_compute(x, 100, &s), NB_OK);
    CLOSE(s.median, 50.5, 1e-12);
    CLOSE(s.ci_lo, 40.0, 0);
    CLOSE(s.ci_hi, 61.0, 0);
    CLOSE(s.ci_level, 0.9647997997822952, 1e-9);
    assert_true(s.ci_level >= 0.95);
}

static void test_stats_edge_cases(void **state)
{
    (void)state;
    nb_stats s;
    const double one = 7.25;
    assert_int_equal(nb_stats_compute(&one, 1, &s), NB_OK);
    CLOSE(s.median, 7.25, 0);
    /* one sample says nothing of the spread: unknown, not 0 */
    assert_true(isnan(s.stddev) && isnan(s.noise_pct));
    CLOSE(s.ci_lo, 7.25, 0);
    CLOSE(s.ci_hi, 7.25, 0);
    CLOSE(s.ci_level, 0.0, 0);
    const double six[6] = {6, 5, 4, 3, 2, 1};
    assert_int_equal(nb_stats_compute(six, 6, &s), NB_OK);
    CLOSE(s.ci_lo, 1.0, 0); /* P(X <= 0) = 1/64 <= 0.025: rank 1 */
    CLOSE(s.ci_hi, 6.0, 0);
    CLOSE(s.ci_level, 1.0 - 2.0 / 64.0, 1e-12);
    assert_int_equal(nb_stats_compute(six, 0, &s), NB_ERR_INVALID_ARG);
    const double bad[2] = {1.0, NAN};
    assert_int_equal(nb_stats_compute(bad, 2, &s), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_stats_compute(NULL, 2, &s), NB_ERR_INVALID_ARG);
}

/* -------------------------------------------------------- stopping rule */

static nb_bench_opts opts_with(size_t min_samples, double min_time, double max_noise,
                               double timeout, size_t max_samples)
{
    nb_bench_opts o;
    nb_bench_opts_default(&o);
    o.min_samples = min_samples;
    o.min_time_s = min_time;
    o.max_noise_pct = max_noise;
    o.timeout_s = timeout;
    o.max_samples = max_samples;
    return o;
}

static void test_stop_converges_exactly_at_min_time(void **state)
{
    (void)state;
    /* constant 2^-7 s samples: zero noise; min-time 0.5 s reached at sample 64 */
    nb_bench_opts o = opts_with(10, 0.5, 0.5, 15.0, 100000);
    nb_stop_rule r;
    double now = 100.0; /* fake wall clock */
    nb_stop_rule_init(&r, &o, now);
    nb_stop_reason why;
    for (int i = 1; i <= 64; i++) {
        nb_stop_rule_add(&r, 0.0078125, 0.0078125);
        now += 0.0078125;
        int done = nb_stop_rule_done(&r, now, &why);
        if (i < 64)
            assert_false(done);
        else {
            assert_true(done);
            assert_int_equal(why, NB_STOP_CONVERGED);
        }
    }
    CLOSE(nb_stop_rule_noise_pct(&r), 0.0, 1e-9);
}

static void test_stop_needs_min_samples(void **state)
{
    (void)state;
    nb_bench_opts o = opts_with(10, 0.0, 0.5, 15.0, 100000);
    nb_stop_rule r;
    nb_stop_rule_init(&r, &o, 0.0);
    nb_stop_reason why;
    for (int i = 1; i <= 10; i++) {
        nb_stop_rule_add(&r, 1.0, 1.0);
        assert_int_equal(nb_stop_rule_done(&r, 0.0, &why), i == 10);
    }
    assert_int_equal(why, NB_STOP_CONVERGED);
}

static void test_stop_noise_stable_when_target_unreachable(void **state)
{
    (void)state;
    /* alternating 1 and 3 units: the noise settles near 50%, far above 0.5% */
    nb_bench_opts o = opts_with(10, 0.0, 0.5, 1e9, 1000000);
    nb_stop_rule r;
    nb_stop_rule_init(&r, &o, 0.0);
    nb_stop_reason why = NB_STOP_CONVERGED;
    size_t n = 0;
    while (n < 100000) {
        n++;
        nb_stop_rule_add(&r, n % 2 ? 1e-3 : 3e-3, n % 2 ? 1e-3 : 3e-3);
        if (nb_stop_rule_done(&r, 0.0, &why))
            break;
    }
    assert_int_equal(why, NB_STOP_NOISE_STABLE);
    assert_int_equal(n % 64, 0); /* checked every 64 samples */
    assert_true(n >= 128 && n <= 4096);
    assert_true(nb_stop_rule_noise_pct(&r) > 40.0);
}

static void test_stop_timeout_flags_the_result(void **state)
{
    (void)state;
    nb_bench_opts o = opts_with(10, 100.0, 0.5, 3.5, 100000);
    nb_stop_rule r;
    nb_stop_rule_init(&r, &o, 50.0);
    nb_stop_reason why;
    double now = 50.0;
    int n = 0, done = 0;
    while (!done) {
        n++;
        nb_stop_rule_add(&r, 1.0, 1.0);
        now += 1.0;
        done = nb_stop_rule_done(&r, now, &why);
    }
    assert_int_equal(n, 4); /* 4 s of wall time >= 3.5 s */
    assert_int_equal(why, NB_STOP_TIMEOUT);
}

static void test_stop_max_samples(void **state)
{
    (void)state;
    nb_bench_opts o = opts_with(10, 100.0, 0.5, 1e9, 20);
    nb_stop_rule r;
    nb_stop_rule_init(&r, &o, 0.0);
    nb_stop_reason why;
    int n = 0, done = 0;
    while (!done) {
        n++;
        nb_stop_rule_add(&r, 1e-3, 1e-3);
        done = nb_stop_rule_done(&r, 0.0, &why);
    }
    assert_int_equal(n, 20);
    assert_int_equal(why, NB_STOP_MAX_SAMPLES);
}

static void test_stop_batch_time_counts_towards_min_time(void **state)
{
    (void)state;
    /* batch of 4: per-launch 2^-7 s, measured 2^-5 s per sample: 16 samples */
    nb_bench_opts o = opts_with(10, 0.5, 0.5, 15.0, 100000);
    nb_stop_rule r;
    nb_stop_rule_init(&r, &o, 0.0);
    nb_stop_reason why;
    int n = 0;
    do {
        n++;
        nb_stop_rule_add(&r, 0.0078125, 4 * 0.0078125);
    } while (!nb_stop_rule_done(&r, 0.0, &why));
    assert_int_equal(n, 16);
    assert_int_equal(why, NB_STOP_CONVERGED);
}

/* Drives a rule made from o as the GPU loop does: batches of nb_batch_size
 * samples (k_max 64, 4 queue entries per sample, 10 us wall per sample), the
 * rule checked after each batch; sample i (from 1) takes f(i) seconds.
 * Returns the samples taken and the largest batch in *kmax. */
static size_t run_batched(const nb_bench_opts *o, double (*f)(size_t), nb_stop_reason *why,
                          size_t *kmax)
{
    nb_stop_rule rule, *r = &rule;
    nb_stop_rule_init(r, o, 0.0);
    size_t n = 0;
    *kmax = 0;
    for (;;) {
        const size_t k = nb_batch_size(64, nb_stop_rule_until_check(r), 4, 1e-5);
        assert_true(k >= 1 && k <= 64);
        if (k > *kmax)
            *kmax = k;
        for (size_t j = 0; j < k; j++) {
            n++;
            nb_stop_rule_add(r, f(n), f(n));
        }
        if (nb_stop_rule_done(r, 0.0, why))
            return n;
        assert_true(n < 10000000);
    }
}

static double constant_sample(size_t i)
{
    (void)i;
    return 0.0078125;
}

static double alternating_sample(size_t i)
{
    return i % 2 ? 1e-3 : 3e-3;
}

static void test_batched_rule_converges_where_sample_by_sample_does(void **state)
{
    (void)state;
    /* zero noise, min-time 0.5 s reached at sample 64 exactly: batches end
     * at min-samples (10), then at min-time's estimate (64) */
    nb_bench_opts o = opts_with(10, 0.5, 0.5, 15.0, 100000);
    nb_stop_reason why;
    size_t kmax;
    assert_int_equal(run_batched(&o, constant_sample, &why, &kmax), 64);
    assert_int_equal(why, NB_STOP_CONVERGED);
}

static void test_batched_rule_stops_noise_stable_on_a_multiple_of_64(void **state)
{
    (void)state;
    nb_bench_opts o = opts_with(10, 0.0, 0.5, 1e9, 1000000);
    nb_stop_reason why;
    size_t kmax;
    const size_t n = run_batched(&o, alternating_sample, &why, &kmax);
    assert_int_equal(why, NB_STOP_NOISE_STABLE);
    assert_int_equal(n % 64, 0);
    assert_int_equal(kmax, 64);
    /* the same point as one sample at a time */
    nb_stop_rule one;
    nb_stop_rule_init(&one, &o, 0.0);
    size_t m = 0;
    nb_stop_reason why1;
    do {
        m++;
        nb_stop_rule_add(&one, alternating_sample(m), alternating_sample(m));
    } while (!nb_stop_rule_done(&one, 0.0, &why1));
    assert_int_equal(m, n);
}

static void test_batched_rule_never_passes_max_samples(void **state)
{
    (void)state;
    nb_bench_opts o = opts_with(10, 100.0, 0.5, 1e9, 100);
    nb_stop_reason why;
    size_t kmax;
    assert_int_equal(run_batched(&o, constant_sample, &why, &kmax), 100);
    assert_int_equal(why, NB_STOP_MAX_SAMPLES);
}

static void test_until_check_counts_to_min_samples_and_min_time(void **state)
{
    (void)state;
    nb_bench_opts o = opts_with(10, 1.0, 0.5, 1e9, 100000);
    nb_stop_rule r;
    nb_stop_rule_init(&r, &o, 0.0);
    assert_int_equal(nb_stop_rule_until_check(&r), 10);
    for (int i = 0; i < 10; i++)
        nb_stop_rule_add(&r, 0.0078125, 0.0078125);
    /* 10/128 s of 1 s measured at 1/128 s a sample: 118 more, cut at 64 */
    assert_int_equal(nb_stop_rule_until_check(&r), 54);
    for (int i = 0; i < 54; i++)
        nb_stop_rule_add(&r, 0.0078125, 0.0078125);
    assert_int_equal(nb_stop_rule_until_check(&r), 64);
    for (int i = 0; i < 63; i++)
        nb_stop_rule_add(&r, 0.0078125, 0.0078125);
    assert_int_equal(nb_stop_rule_until_check(&r), 1); /* min-time at the next sample */
    nb_stop_rule_add(&r, 0.0078125, 0.0078125);
    nb_stop_rule_add(&r, 0.0078125, 0.0078125);
    /* both met at 129: the next noise-stable check, at 192 */
    assert_int_equal(nb_stop_rule_until_check(&r), 63);
}

static void test_batch_size_respects_each_limit(void **state)
{
    (void)state;
    assert_int_equal(nb_batch_size(64, 1000, 4, 1e-5), 64);        /* --batch-samples */
    assert_int_equal(nb_batch_size(64, 7, 4, 1e-5), 7);            /* the stopping rule */
    assert_int_equal(nb_batch_size(64, 1000, NB_BATCH_QUEUE_OPS / 10, 1e-5), 10); /* queue */
    assert_int_equal(nb_batch_size(64, 1000, 4, NB_BATCH_TARGET_S / 5), 5); /* GPU time */
    assert_int_equal(nb_batch_size(64, 1000, 4, 1.0), 1);          /* a long sample */
    assert_int_equal(nb_batch_size(64, 1000, 0, 1e-5), 1);         /* launch not counted */
    assert_int_equal(nb_batch_size(64, 1000, 4, 0.0), 1);          /* no estimate yet */
    assert_int_equal(nb_batch_size(64, 1000, 4, NAN), 1);
    assert_int_equal(nb_batch_size(1, 1000, 4, 1e-5), 1);          /* today's behaviour */
    assert_int_equal(nb_batch_size(64, 1000, 100000, 1e-5), 1);    /* never below one */
}

/* -------------------------------------------------------------- planner */

#define MB ((size_t)1 << 20)

static void test_plan_warm_uses_one_set(void **state)
{
    (void)state;
    nb_cache_plan p;
    assert_int_equal(nb_cache_plan_make(&p, NB_CACHE_WARM, NB_MODE_BATCH, 8, MB,
                                        10 * MB, 0, 3.0),
                     NB_OK);
    assert_int_equal(p.sets, 1);
    assert_int_equal(p.graphs, 1);
    assert_false(p.flush);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(nb_cache_plan_set(&p, i, i % 8), 0);
}

static void test_plan_rotation_touches_three_caches_between_reuses(void **state)
{
    (void)state;
    nb_cache_plan p;
    assert_int_equal(nb_cache_plan_make(&p, NB_COLD_ROTATE, NB_MODE_PER_LAUNCH, 1,
                                        MB, 10 * MB, 0, 3.0),
                     NB_OK);
    assert_int_equal(p.sets, 30);
    assert_false(p.flush);
    CLOSE(p.reuse_bytes, 30.0 * MB, 0.5); /* 29 other sets + its own */
    for (size_t i = 0; i < 65; i++)
        assert_int_equal(nb_cache_plan_set(&p, i, 0), i % 30);
}

static void test_plan_flush_only_per_launch_is_cold(void **state)
{
    (void)state;
    nb_cache_plan p;
    assert_int_equal(nb_cache_plan_make(&p, NB_COLD_FLUSH, NB_MODE_PER_LAUNCH, 1,
                                        MB, 10 * MB, 0, 3.0),
                     NB_OK);
    assert_int_equal(p.sets, 1);
    assert_true(p.flush);
    assert_true(isinf(p.reuse_bytes)); /* every launch follows a flush */
}

static void test_plan_flush_only_batch_is_rejected(void **state)
{
    (void)state;
    /* launches 2..K of a sample re-touch the set just used: warm */
    nb_cache_plan p;
    assert_int_equal(nb_cache_plan_make(&p, NB_COLD_FLUSH, NB_MODE_BATCH, 4, MB,
                                        10 * MB, 0, 3.0),
                     NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "not cold"));
}

static void test_plan_batch_rotates_across_samples(void **state)
{
    (void)state;
    nb_cache_plan p;
    assert_int_equal(nb_cache_plan_make(&p, NB_COLD_ROTATE, NB_MODE_BATCH, 3, MB,
                                        10 * MB, 7, 3.0),
                     NB_ERR_INVALID_ARG); /* 7 sets: reuse after 7 MB < 10 MB */
    assert_int_equal(nb_cache_plan_make(&p, NB_COLD_ROTATE, NB_MODE_BATCH, 3, MB,
                                        10 * MB, 0, 3.0),
                     NB_OK);
    assert_int_equal(p.sets, 30);
    assert_false(p.flush);
    assert_int_equal(nb_cache_plan_set(&p, 2, 1), 7);  /* (2*3 + 1) % 30 */
    assert_int_equal(nb_cache_plan_set(&p, 10, 0), 0); /* 30 % 30 */
    CLOSE(p.reuse_bytes, 30.0 * MB, 0.5);
    /* with a flush per sample only reuse inside a sample matters: 7 sets of 3
     * launches are cold, 2 sets are not (launch 3 reuses set 0 after 2 MB) */
    assert_int_equal(nb_cache_plan_make(&p, NB_COLD_BOTH, NB_MODE_BATCH, 3, MB,
                                        10 * MB, 7, 3.0),
                     NB_OK);
    assert_true(isinf(p.reuse_bytes));
    assert_int_equal(nb_cache_plan_make(&p, NB_COLD_BOTH, NB_MODE_BATCH, 3, MB,
                                        10 * MB, 2, 3.0),
                     NB_ERR_INVALID_ARG);
}

static void test_plan_graph_rounds_sets_and_captures_disjoint_graphs(void **state)
{
    (void)state;
    nb_cache_plan p;
    assert_int_equal(nb_cache_plan_make(&p, NB_COLD_ROTATE, NB_MODE_GRAPH, 4, MB,
                                        10 * MB, 0, 3.0),
                     NB_OK);
    assert_int_equal(p.sets, 32); /* 30 rounded up to a multiple of K = 4 */
    assert_int_equal(p.graphs, 8);
    assert_int_equal(nb_cache_plan_set(&p, 9, 2), 6); /* graph 9 % 8 = 1: sets 4..7 */
    CLOSE(p.reuse_bytes, 32.0 * MB, 0.5);
}

static void test_plan_check_catches_graph_replaying_few_buffers(void **state)
{
    (void)state;
    /* 32 sets allocated (3.2x the cache) but one graph of 4 launches replayed:
     * only 4 MB are touched between reuses, the data stays in a 10 MB cache */
    nb_cache_plan p;
    memset(&p, 0, sizeof p);
    p.cache = NB_CACHE_ROTATED;
    p.mode = NB_MODE_GRAPH;
    p.launches = 4;
    p.sets = 32;
    p.graphs = 1;
    p.footprint = MB;
    p.cache_bytes = 10 * MB;
    p.allocated_bytes = 32.0 * MB;
    assert_int_equal(nb_cache_plan_check(&p), NB_ERR_INVALID_ARG);
    CLOSE(p.reuse_bytes, 4.0 * MB, 0.5);
    /* and a warm cache is never rejected, only described */
    p.cache = NB_CACHE_WARM;
    assert_int_equal(nb_cache_plan_check(&p), NB_OK);
}

static void test_plan_large_footprint_needs_one_set(void **state)
{
    (void)state;
    nb_cache_plan p;
    assert_int_equal(nb_cache_plan_make(&p, NB_COLD_ROTATE, NB_MODE_PER_LAUNCH, 1,
                                        40 * MB, 10 * MB, 0, 3.0),
                     NB_OK);
    assert_int_equal(p.sets, 1);
    CLOSE(p.reuse_bytes, 40.0 * MB, 0.5);
    assert_int_equal(nb_cache_plan_make(&p, NB_COLD_ROTATE, NB_MODE_PER_LAUNCH, 1, 0,
                                        10 * MB, 0, 3.0),
                     NB_ERR_INVALID_ARG);
}

static void test_cache_bytes_cpu_is_positive(void **state)
{
    (void)state;
    size_t b = 0;
    assert_int_equal(nb_cache_bytes(NB_BACKEND_CPU, &b), NB_OK);
    assert_true(b >= 64 * 1024);
}

/* -------------------------------------------------------------- options */

static void test_names_round_trip(void **state)
{
    (void)state;
    for (size_t t = 0; t < nb_tier_count(); t++)
        assert_ptr_equal(nb_tier_find(nb_tier_at(t)->name), nb_tier_at(t));
    for (int c = NB_CACHE_EVICTED; c <= NB_CACHE_COLD; c++) {
        nb_cold_method x;
        assert_int_equal(nb_cold_parse(nb_cache_state_name((nb_cache_state)c), &x), NB_OK);
        assert_int_equal(x, c);
    }
    assert_string_equal(nb_cache_state_name(NB_CACHE_WARM), "warm");
    for (int t = 0; t < 3; t++) {
        nb_mode m;
        assert_int_equal(nb_mode_parse(nb_mode_name((nb_mode)t), &m), NB_OK);
        assert_int_equal(m, t);
    }
    for (int f = 0; f < 4; f++) {
        nb_format x;
        assert_int_equal(nb_format_parse(nb_format_name((nb_format)f), &x), NB_OK);
        assert_int_equal(x, f);
    }
    nb_cold_method c;
    assert_int_equal(nb_cold_parse("rotate", &c), NB_OK);
    assert_int_equal(c, NB_COLD_ROTATE);
    assert_int_equal(nb_cold_parse("lukewarm", &c), NB_ERR_INVALID_ARG);
    assert_null(nb_tier_find("hot"));
    assert_non_null(strstr(nb_last_error(), "ntt"));
    assert_string_equal(nb_stop_reason_name(NB_STOP_NOISE_STABLE), "noise-stable");
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_one_to_ten_match_hand_values),
        cmocka_unit_test(test_stats_small_odd_sample),
        cmocka_unit_test(test_median_inplace_odd_even_and_unsorted),
        cmocka_unit_test(test_stats_median_ci_of_hundred_uses_ranks_40_and_61),
        cmocka_unit_test(test_stats_edge_cases),
        cmocka_unit_test(test_stop_converges_exactly_at_min_time),
        cmocka_unit_test(test_stop_needs_min_samples),
        cmocka_unit_test(test_stop_noise_stable_when_target_unreachable),
        cmocka_unit_test(test_stop_timeout_flags_the_result),
        cmocka_unit_test(test_stop_max_samples),
        cmocka_unit_test(test_stop_batch_time_counts_towards_min_time),
        cmocka_unit_test(test_batched_rule_converges_where_sample_by_sample_does),
        cmocka_unit_test(test_batched_rule_stops_noise_stable_on_a_multiple_of_64),
        cmocka_unit_test(test_batched_rule_never_passes_max_samples),
        cmocka_unit_test(test_until_check_counts_to_min_samples_and_min_time),
        cmocka_unit_test(test_batch_size_respects_each_limit),
        cmocka_unit_test(test_plan_warm_uses_one_set),
        cmocka_unit_test(test_plan_rotation_touches_three_caches_between_reuses),
        cmocka_unit_test(test_plan_flush_only_per_launch_is_cold),
        cmocka_unit_test(test_plan_flush_only_batch_is_rejected),
        cmocka_unit_test(test_plan_batch_rotates_across_samples),
        cmocka_unit_test(test_plan_graph_rounds_sets_and_captures_disjoint_graphs),
        cmocka_unit_test(test_plan_check_catches_graph_replaying_few_buffers),
        cmocka_unit_test(test_plan_large_footprint_needs_one_set),
        cmocka_unit_test(test_cache_bytes_cpu_is_positive),
        cmocka_unit_test(test_names_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

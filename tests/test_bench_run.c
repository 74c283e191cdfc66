/* Tests of the sample loop (nb_bench_run) and the breakdown pass on the CPU
 * backend: a scripted workload on a fake clock (exact sample counts, warm-up,
 * batch mode, verification before and after, rotation order, timeout), the
 * marked breakdown (merged steps, shares, limb counts), the workload destroy
 * operation, the clean no-device errors, and the options' defaults and the
 * checks that name the flag at fault. */
#include <math.h>
#include <string.h>

#include "bench/bench.h"
#include "testutil.h"

#define CLOSE(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

/* ------------------------------------------------------ a fake workload */

static double fake_now;
static double fake_clock(void *ctx)
{
    (void)ctx;
    return fake_now;
}

typedef struct fake {
    nb_backend backend;
    double launch_s;       /* each launch advances the fake clock by this */
    size_t footprint;
    size_t sets;           /* from setup */
    size_t launches;       /* total launches */
    size_t set_log[4096];  /* set of each launch */
    int fail_verify_after; /* verify fails once launches exceed this (0 = never) */
    int fail_always;       /* verify always fails */
    int verify_calls, setup_calls, teardown_calls, prepare_calls;
    int marked;            /* launch_marked: steps */
} fake;

static nb_status f_setup(void *ctx, size_t sets, void *stream)
{
    (void)stream;
    fake *f = ctx;
    f->sets = sets;
    f->setup_calls++;
    return NB_OK;
}

static size_t f_bytes(const void *ctx) { return 2 * ((const fake *)ctx)->footprint; }
static size_t f_footprint(const void *ctx) { return ((const fake *)ctx)->footprint; }

static nb_status f_prepare(void *ctx, size_t set, void *stream)
{
    (void)set;
    (void)stream;
    ((fake *)ctx)->prepare_calls++;
    return NB_OK;
}

static nb_status f_launch(void *ctx, size_t set, void *stream)
{
    (void)stream;
    fake *f = ctx;
    if (set >= f->sets)
        return nb_set_error(NB_ERR_INTERNAL, "set %zu out of %zu", set, f->sets);
    if (f->launches < 4096)
        f->set_log[f->launches] = set;
    f->launches++;
    fake_now += f->launch_s;
    return NB_OK;
}

/* steps: intt 1u, conv 3u, ntt 2u, conv 2u (u = launch_s / 8) */
static nb_status f_launch_marked(void *ctx, size_t set, void *stream, nb_step_marks *m)
{
    (void)stream;
    fake *f = ctx;
    (void)set;
    f->launches++;
    const double u = f->launch_s / 8.0;
    fake_now += 1 * u;
    NB_TRY(nb_step_mark(m, "intt", 1, 2, 1));
    fake_now += 3 * u;
    NB_TRY(nb_step_mark(m, "conv", 0, 0, 0));
    fake_now += 2 * u;
    NB_TRY(nb_step_mark(m, "ntt", 1, 4, 0));
    fake_now += 2 * u;
    NB_TRY(nb_step_mark(m, "conv", 0, 0, 0));
    return NB_OK;
}

static nb_status f_verify(void *ctx, size_t set, void *stream)
{
    (void)stream;
    fake *f = ctx;
    f->verify_calls++;
    if (f->fail_always ||
        (f->fail_verify_after && f->launches > (size_t)f->fail_verify_after))
        return nb_set_error(NB_ERR_VERIFY, "set %zu: limb 0 index 3: got 1, expected 2", set);
    return NB_OK;
}

static void f_teardown(void *ctx) { ((fake *)ctx)->teardown_calls++; }

static const nb_workload_ops fake_ops = {
    .setup = f_setup,
    .bytes_per_launch = f_bytes,
    .prepare = f_prepare,
    .launch = f_launch,
    .launch_marked = f_launch_marked,
    .verify = f_verify,
    .teardown = f_teardown,
    .footprint_bytes = f_footprint,
};

static fake *new_fake(double launch_s, size_t footprint)
{
    fake *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->backend = NB_BACKEND_CPU;
    f->launch_s = launch_s;
    f->footprint = footprint;
    return f;
}

static nb_bench_opts fake_opts(void)
{
    nb_bench_opts o;
    nb_bench_opts_default(&o);
    o.clock = fake_clock;
    o.warmup_samples = 3;
    o.warmup_time_s = 0;
    o.nvtx = 0;
    return o;
}

/* ----------------------------------------------------------------- tests */

static void test_run_converges_with_exact_counts(void **state)
{
    (void)state;
    fake *f = new_fake(0.0078125, 4096);
    nb_workload w = {"fake", NB_BACKEND_CPU, &fake_ops, f};
    nb_bench_opts o = fake_opts();
    nb_bench_result r;
    assert_int_equal(nb_bench_run(&w, NULL, &o, &r), NB_OK);
    assert_int_equal(r.n_samples, 64); /* 64 * 2^-7 = 0.5 s of measured time */
    assert_int_equal(r.stop, NB_STOP_CONVERGED);
    assert_true(r.noise_target_met);
    assert_int_equal(r.warmup_samples, 3);
    CLOSE(r.stats.median, 0.0078125, 1e-15);
    CLOSE(r.measured_s, 0.5, 1e-12);
    assert_int_equal(r.verified_before, 1);
    assert_int_equal(r.verified_after, 1);
    /* 1 verified launch + 3 warm-up + 64 samples + 1 verified launch, one set */
    assert_int_equal(f->launches, 69);
    assert_int_equal(f->sets, 1);
    assert_int_equal(f->setup_calls, 1);
    assert_int_equal(f->teardown_calls, 1);
    assert_int_equal(f->prepare_calls, 2);
    assert_true(isnan(r.sample_clock_mhz[0])); /* CPU: no SM clock */
    assert_int_equal(r.launches_per_sample, 1);
    nb_bench_result_free(&r);
    free(f);
}

static void test_run_batch_divides_by_k(void **state)
{
    (void)state;
    fake *f = new_fake(0.0078125, 4096);
    nb_workload w = {"fake", NB_BACKEND_CPU, &fake_ops, f};
    nb_bench_opts o = fake_opts();
    o.mode = NB_MODE_BATCH;
    o.batch = 4;
    nb_bench_result r;
    assert_int_equal(nb_bench_run(&w, NULL, &o, &r), NB_OK);
    assert_int_equal(r.n_samples, 16); /* each sample measures 4 launches */
    assert_int_equal(r.launches_per_sample, 4);
    CLOSE(r.stats.median, 0.0078125, 1e-15);
    assert_int_equal(f->launches, 1 + 3 * 4 + 16 * 4 + 1);
    nb_bench_result_free(&r);
    free(f);
}

static void test_wrong_result_is_never_timed(void **state)
{
    (void)state;
    fake *f = new_fake(1e-3, 4096);
    f->fail_always = 1;
    nb_workload w = {"fake-wrong", NB_BACKEND_CPU, &fake_ops, f};
    nb_bench_opts o = fake_opts();
    nb_bench_result r;
    assert_int_equal(nb_bench_run(&w, NULL, &o, &r), NB_ERR_VERIFY);
    assert_int_equal(r.verified_before, -1);
    assert_int_equal(r.n_samples, 0);
    assert_int_equal(f->launches, 1); /* only the verified launch ran */
    assert_non_null(strstr(r.message, "before timing"));
    assert_non_null(strstr(r.message, "limb 0 index 3"));
    assert_int_equal(f->teardown_calls, 1);
    nb_bench_result_free(&r);
    free(f);
}

static void test_corruption_under_repetition_is_caught_after(void **state)
{
    (void)state;
    fake *f = new_fake(0.0078125, 4096);
    f->fail_verify_after = 20; /* correct at first, wrong after 20 launches */
    nb_workload w = {"fake-racy", NB_BACKEND_CPU, &fake_ops, f};
    nb_bench_opts o = fake_opts();
    nb_bench_result r;
    assert_int_equal(nb_bench_run(&w, NULL, &o, &r), NB_ERR_VERIFY);
    assert_int_equal(r.verified_before, 1);
    assert_int_equal(r.verified_after, -1);
    assert_int_equal(r.n_samples, 64); /* kept, but flagged */
    assert_non_null(strstr(r.message, "after timing"));
    nb_bench_result_free(&r);
    free(f);
}

static void test_timeout_with_fake_clock(void **state)
{
    (void)state;
    fake *f = new_fake(1.0, 4096);
    nb_workload w = {"fake-slow", NB_BACKEND_CPU, &fake_ops, f};
    nb_bench_opts o = fake_opts();
    o.warmup_samples = 1;
    o.timeout_s = 5.0;
    o.min_time_s = 100.0;
    nb_bench_result r;
    assert_int_equal(nb_bench_run(&w, NULL, &o, &r), NB_OK);
    assert_int_equal(r.stop, NB_STOP_TIMEOUT);
    assert_int_equal(r.n_samples, 5);
    CLOSE(r.wall_s, 5.0, 1e-9);
    nb_bench_result_free(&r);
    free(f);
}

static void test_cold_rotates_sets_round_robin(void **state)
{
    (void)state;
    size_t llc = 0;
    assert_int_equal(nb_cache_bytes(NB_BACKEND_CPU, &llc), NB_OK);
    fake *f = new_fake(0.0078125, llc / 4); /* 12 sets for 3x the LLC */
    nb_workload w = {"fake-cold", NB_BACKEND_CPU, &fake_ops, f};
    nb_bench_opts o = fake_opts();
    o.cache = NB_COLD_ROTATE;
    nb_bench_result r;
    assert_int_equal(nb_bench_run(&w, NULL, &o, &r), NB_OK);
    assert_int_equal(f->sets, 12);
    assert_int_equal(r.cache.sets, 12);
    assert_false(r.cache.flush);
    /* timed launches (after 1 verified + 3 warm-up) continue the rotation */
    for (size_t i = 1; i < 1 + 3 + 64; i++)
        assert_int_equal(f->set_log[i], (i - 1) % 12);
    assert_true(r.cache.reuse_bytes >= (double)llc);
    nb_bench_result_free(&r);
    free(f);
}

static void test_graph_mode_and_persist_rejected_on_cpu(void **state)
{
    (void)state;
    fake *f = new_fake(1e-3, 4096);
    nb_workload w = {"fake", NB_BACKEND_CPU, &fake_ops, f};
    nb_bench_opts o = fake_opts();
    o.mode = NB_MODE_GRAPH;
    nb_bench_result r;
    assert_int_equal(nb_bench_run(&w, NULL, &o, &r), NB_ERR_UNSUPPORTED);
    assert_non_null(strstr(nb_last_error(), "graph"));
    o = fake_opts();
    o.l2_persist = 0.5;
    assert_int_equal(nb_bench_run(&w, NULL, &o, &r), NB_ERR_UNSUPPORTED);
    assert_int_equal(f->setup_calls, 0); /* rejected before any setup */
    free(f);
}

static void test_gpu_workload_without_device_fails_cleanly(void **state)
{
    (void)state;
    if (nb_gpu_count() > 0)
        skip();
    fake *f = new_fake(1e-3, 4096);
    nb_workload w = {"fake-gpu", NB_BACKEND_GPU, &fake_ops, f};
    nb_bench_opts o = fake_opts();
    nb_bench_result r;
    assert_int_equal(nb_bench_run(&w, NULL, &o, &r), NB_ERR_NO_DEVICE);
    nb_breakdown b;
    assert_int_equal(nb_bench_breakdown(&w, NULL, &o, 5, &b), NB_ERR_NO_DEVICE);
    assert_int_equal(f->setup_calls, 0);
    const nb_ntt_variant *v = NULL;
    for (size_t i = 0; i < nb_ntt_variant_count(); i++)
        if (nb_ntt_variant_at(i)->backend == NB_BACKEND_GPU)
            v = nb_ntt_variant_at(i);
    if (v) {
        nb_workload *nw = NULL;
        assert_int_equal(nb_ntt_workload_create(&nw, v, 10, 1, 60, 0, 1, NULL),
                         NB_ERR_NO_DEVICE);
        assert_null(nw);
    }
    nb_workload *cw = NULL;
    assert_int_equal(nb_copy_workload_create(&cw, NB_BACKEND_GPU, 4096), NB_ERR_NO_DEVICE);
    size_t l2;
    assert_int_equal(nb_cache_bytes(NB_BACKEND_GPU, &l2), NB_ERR_NO_DEVICE);
    free(f);
}

static void test_breakdown_merges_steps_and_counts_limbs(void **state)
{
    (void)state;
    fake *f = new_fake(8.0e-3, 4096); /* unit = 1 ms */
    nb_workload w = {"fake-stage", NB_BACKEND_CPU, &fake_ops, f};
    nb_bench_opts o = fake_opts();
    nb_breakdown b;
    assert_int_equal(nb_bench_breakdown(&w, NULL, &o, 7, &b), NB_OK);
    assert_int_equal(b.passes, 7);
    assert_int_equal(b.n_steps, 3);
    assert_string_equal(b.steps[0].name, "intt");
    assert_string_equal(b.steps[1].name, "conv");
    assert_string_equal(b.steps[2].name, "ntt");
    assert_int_equal(b.steps[1].count, 2);
    CLOSE(b.steps[0].median_s, 1e-3, 1e-12);
    CLOSE(b.steps[1].median_s, 5e-3, 1e-12);
    CLOSE(b.steps[2].median_s, 2e-3, 1e-12);
    CLOSE(b.sum_s, 8e-3, 1e-12);
    CLOSE(b.launch_s, 8e-3, 1e-12);
    CLOSE(b.steps[1].share, 5.0 / 8.0, 1e-12);
    CLOSE(b.ntt_share, 3.0 / 8.0, 1e-12);
    assert_int_equal(b.ntt_fwd_limbs, 4);
    assert_int_equal(b.ntt_inv_limbs, 2);
    /* verify before and after, 1 + 1 warm-up + 7 passes + 1 launches */
    assert_int_equal(f->verify_calls, 2);
    assert_int_equal(f->launches, 10);
    assert_int_equal(f->teardown_calls, 1);
    free(f);
}

static void test_step_mark_null_is_noop(void **state)
{
    (void)state;
    assert_int_equal(nb_step_mark(NULL, "ntt", 1, 8, 0), NB_OK);
}

/* ------------------------------------------- the real NTT / copy workloads */

static int destroyed;
static void count_destroy(void *ctx)
{
    destroyed++;
    free(ctx);
}

static void test_workload_destroy_calls_its_own_operation_once(void **state)
{
    (void)state;
    /* a workload whose handle lives inside its ctx, freed by its destroy */
    typedef struct own {
        fake f; /* first: the ctx the fake operations read */
        nb_workload w;
    } own;
    static nb_workload_ops ops;
    ops = fake_ops;
    ops.destroy = count_destroy;
    own *o = calloc(1, sizeof *o);
    assert_non_null(o);
    o->f.backend = NB_BACKEND_CPU;
    o->f.launch_s = 1e-6;
    o->f.footprint = 64;
    o->w = (nb_workload){"own", NB_BACKEND_CPU, &ops, o};
    nb_bench_opts opts = fake_opts();
    opts.min_samples = 2;
    opts.min_time_s = 0;
    opts.max_noise_pct = 1000;
    nb_bench_result r;
    assert_int_equal(nb_bench_run(&o->w, NULL, &opts, &r), NB_OK);
    nb_bench_result_free(&r);
    destroyed = 0;
    nb_workload_destroy(&o->w);
    assert_int_equal(destroyed, 1);
    nb_workload_destroy(NULL); /* accepted */
    /* a caller-owned workload without destroy is left alone */
    fake *f = new_fake(1e-6, 64);
    nb_workload w = {"caller-owned", NB_BACKEND_CPU, &fake_ops, f};
    nb_workload_destroy(&w);
    assert_int_equal(destroyed, 1);
    free(f);
}

static void test_opts_defaults_follow_nvbench(void **state)
{
    (void)state;
    nb_bench_opts o;
    nb_bench_opts_default(&o);
    assert_int_equal(o.min_samples, 10);
    CLOSE(o.min_time_s, 0.5, 0);
    CLOSE(o.max_noise_pct, 0.5, 0);
    CLOSE(o.timeout_s, 15.0, 0);
    CLOSE(o.throttle_threshold_pct, 75.0, 0);
    CLOSE(o.throttle_recovery_s, 0.05, 0);
    assert_int_equal(o.cache, NB_CACHE_WARM);
    assert_int_equal(o.mode, NB_MODE_PER_LAUNCH);
    assert_int_equal(o.batch_samples, 1);
    assert_int_equal(o.queue_ahead, 1);
    assert_true(o.l2_persist < 0);
    assert_int_equal(nb_bench_opts_check(&o), NB_OK);
}

/* Options at their defaults but `field` = `value` are refused, and the
 * message names `flag`. */
#define REFUSED(field, value, flag)                                              \
    do {                                                                         \
        nb_bench_opts o;                                                         \
        nb_bench_opts_default(&o);                                               \
        o.field = value;                                                         \
        assert_int_equal(nb_bench_opts_check(&o), NB_ERR_INVALID_ARG);           \
        assert_non_null(strstr(nb_last_error(), flag));                          \
    } while (0)

static void test_opts_check_names_the_flag(void **state)
{
    (void)state;
    REFUSED(max_samples, 5, "--max-samples");
    REFUSED(timeout_s, 0, "--timeout");
    REFUSED(l2_persist, 1.5, "--l2-persist");
    REFUSED(batch_samples, 0, "--batch-samples");
    REFUSED(queue_ahead, 2, "--queue-ahead");
    nb_bench_opts o; /* a pinned fraction is for a warm cache only */
    nb_bench_opts_default(&o);
    o.l2_persist = 0.5;
    o.cache = NB_CACHE_COLD;
    assert_int_equal(nb_bench_opts_check(&o), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "--l2-persist"));
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_converges_with_exact_counts),
        cmocka_unit_test(test_run_batch_divides_by_k),
        cmocka_unit_test(test_wrong_result_is_never_timed),
        cmocka_unit_test(test_corruption_under_repetition_is_caught_after),
        cmocka_unit_test(test_timeout_with_fake_clock),
        cmocka_unit_test(test_cold_rotates_sets_round_robin),
        cmocka_unit_test(test_graph_mode_and_persist_rejected_on_cpu),
        cmocka_unit_test(test_gpu_workload_without_device_fails_cleanly),
        cmocka_unit_test(test_breakdown_merges_steps_and_counts_limbs),
        cmocka_unit_test(test_step_mark_null_is_noop),
        cmocka_unit_test(test_workload_destroy_calls_its_own_operation_once),
        cmocka_unit_test(test_opts_defaults_follow_nvbench),
        cmocka_unit_test(test_opts_check_names_the_flag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

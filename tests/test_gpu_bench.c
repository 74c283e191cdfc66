/* GPU tests of the timing core: the environment of a real device, the clock
 * probe (plausible SM clocks per sample), the blocking kernel (per-launch and
 * graph) and its timeout, batched and one-at-a-time samples of one case, batch and graph modes with cold rotation (graphs
 * capture disjoint sets), the L2 flush, --l2-persist (window set, limit
 * restored afterwards), every registered GPU NTT variant through the warm and
 * cold tiers, and the GPU breakdown pass. Exits 77 (skip) without a device.
 * Never asserts speed. */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/timing/internal.h"
#include "core/rng.h"
#include "testutil.h"

static void *stream;

static nb_bench_opts quick(void)
{
    nb_bench_opts o;
    nb_bench_opts_default(&o);
    o.min_time_s = 0.01;
    o.max_samples = 500;
    o.timeout_s = 5.0;
    o.warmup_samples = 2;
    o.warmup_time_s = 0.01;
    return o;
}

static void check_result(const nb_bench_result *r)
{
    assert_true(r->n_samples >= 10);
    assert_true(r->stats.median > 0);
    assert_int_equal(r->verified_before, 1);
    assert_int_equal(r->verified_after, 1);
    size_t with_clock = 0;
    for (size_t i = 0; i < r->n_samples; i++)
        if (isfinite(r->sample_clock_mhz[i])) {
            with_clock++;
            /* a real SM clock: between 100 MHz and 5 GHz */
            assert_true(r->sample_clock_mhz[i] > 100 && r->sample_clock_mhz[i] < 5000);
        }
    assert_true(with_clock >= r->n_samples / 2);
    assert_true(r->default_clock_mhz > 100);
}

static void test_gpu_environment(void **state)
{
    (void)state;
    nb_env e;
    assert_int_equal(nb_env_collect(&e, 1, 1), NB_OK);
    assert_true(e.has_gpu);
    assert_true(e.sm_count > 0);
    assert_true(e.l2_bytes > 0);
    assert_true(e.peak_Bps > 0);
    assert_true(e.gpu_copy_Bps > 0);
    assert_true(e.default_sm_mhz > 0);
    size_t l2 = 0;
    assert_int_equal(nb_cache_bytes(NB_BACKEND_GPU, &l2), NB_OK);
    assert_int_equal(l2, e.l2_bytes);
    printf("# %s: %d SMs, L2 %zu B, peak %.0f GB/s, copy %.0f GB/s, NVML: %s\n", e.gpu_name,
           e.sm_count, e.l2_bytes, e.peak_Bps / 1e9, e.gpu_copy_Bps / 1e9, e.nvml.note);
}

static void test_copy_all_modes_warm_and_cold(void **state)
{
    (void)state;
    nb_workload *w = NULL;
    assert_int_equal(nb_copy_workload_create(&w, NB_BACKEND_GPU, 1 << 20), NB_OK);
    static const nb_mode modes[] = {NB_MODE_PER_LAUNCH, NB_MODE_BATCH, NB_MODE_GRAPH};
    for (int tier = 0; tier < 2; tier++)
        for (size_t m = 0; m < 3; m++) {
            nb_bench_opts o = quick();
            o.cache = tier ? NB_CACHE_COLD : NB_CACHE_WARM;
            o.mode = modes[m];
            o.batch = 4;
            nb_bench_result r;
            nb_status s = nb_bench_run(w, stream, &o, &r);
            if (s != NB_OK)
                nb_test_fail("tier %d mode %s: %s", tier, nb_mode_name(modes[m]), nb_last_error());
            check_result(&r);
            assert_int_equal(r.launches_per_sample, m == 0 ? 1 : 4);
            assert_int_equal(r.blocked, modes[m] != NB_MODE_BATCH);
            if (tier) {
                assert_true(r.cache.flush);
                assert_true(r.cache.allocated_bytes >= 3.0 * r.cache.cache_bytes);
                if (modes[m] == NB_MODE_GRAPH)
                    assert_int_equal(r.cache.graphs * 4, r.cache.sets);
            }
            nb_bench_result_free(&r);
        }
    nb_workload_destroy(w);
}

/* A workload whose launch blocks the host longer than the blocking timeout. */
static nb_status slow_setup(void *ctx, size_t sets, void *s)
{
    (void)ctx;
    (void)sets;
    (void)s;
    return NB_OK;
}
static size_t slow_bytes(const void *ctx)
{
    (void)ctx;
    return 1 << 20;
}
static int slow_calls;
static nb_status slow_launch(void *ctx, size_t set, void *s)
{
    (void)ctx;
    (void)set;
    (void)s;
    if (++slow_calls > 1) /* the verified launch is quick; timed ones stall the host */
        usleep(400 * 1000);
    return NB_OK;
}
static nb_status slow_verify(void *ctx, size_t set, void *s)
{
    (void)ctx;
    (void)set;
    (void)s;
    return NB_OK;
}
static void slow_teardown(void *ctx) { (void)ctx; }
static const nb_workload_ops slow_ops = {
    .setup = slow_setup,
    .bytes_per_launch = slow_bytes,
    .launch = slow_launch,
    .verify = slow_verify,
    .teardown = slow_teardown,
};

static void test_blocking_kernel_times_out_cleanly(void **state)
{
    (void)state;
    nb_workload w = {"host-stalling launch", NB_BACKEND_GPU, &slow_ops, NULL};
    nb_bench_opts o = quick();
    o.blocking_timeout_s = 0.1;
    slow_calls = 0;
    nb_bench_result r;
    assert_int_equal(nb_bench_run(&w, stream, &o, &r), NB_ERR_TIMEOUT);
    assert_non_null(strstr(nb_last_error(), "blocking kernel timed out"));
    nb_bench_result_free(&r);
    /* the stream is usable afterwards */
    nb_workload *c = NULL;
    assert_int_equal(nb_copy_workload_create(&c, NB_BACKEND_GPU, 1 << 16), NB_OK);
    o = quick();
    assert_int_equal(nb_bench_run(c, stream, &o, &r), NB_OK);
    nb_bench_result_free(&r);
    nb_workload_destroy(c);
}

/* The first registered GPU variant on 64-bit words (NULL when none). */
static const nb_ntt_variant *first_gpu_variant(void)
{
    for (size_t i = 0; i < nb_ntt_variant_count(); i++) {
        const nb_ntt_variant *c = nb_ntt_variant_at(i);
        if (c->backend == NB_BACKEND_GPU && c->word_bits == 64)
            return c;
    }
    return NULL;
}

/* The rotated sets' inputs drawn on the device are the host's draws
 * (nb_rng_residue_at, the first value of a limb never 0), word for word, for
 * both word sizes, every value below its limb's bound, and nothing outside
 * [first, first + count) written (a poisoned buffer). */
static void test_device_drawn_sets_match_the_host_draws(void **state)
{
    (void)state;
#ifdef NB_HAVE_CUDA
    const uint64_t q64[3] = {(1ull << 61) - 1, 3, (1ull << 62) - 57};
    const uint64_t q32[3] = {(1ull << 31) - 1, 12289, 2};
    const uint64_t key = nb_test_rand();
    enum { LOG_N = 6, LIMBS = 3, SETS = 5 };
    const size_t words = (size_t)LIMBS << LOG_N, total = SETS * words;
    uint64_t got[SETS * (LIMBS << LOG_N)];
    for (int wide = 0; wide < 2; wide++) {
        const uint64_t *q = wide ? q64 : q32;
        const size_t wb = wide ? 8 : 4;
        nb_buffer *buf = NULL, *qd = NULL;
        assert_int_equal(nb_buffer_create(&buf, NB_BACKEND_GPU, total * wb), NB_OK);
        assert_int_equal(nb_buffer_create(&qd, NB_BACKEND_GPU, sizeof q64), NB_OK);
        assert_int_equal(nb_buffer_upload(qd, 0, q, sizeof q64, stream), NB_OK);
        assert_int_equal(nb_buffer_fill(buf, 0xA5, stream), NB_OK);
        /* sets 1 .. SETS-2: the first and last set stay poisoned */
        assert_int_equal(nb_gpu_fill_residues(nb_buffer_ptr(buf), wide ? 64 : 32, words,
                                              (SETS - 2) * words, LOG_N, LIMBS,
                                              nb_buffer_ptr(qd), key, stream),
                         NB_OK);
        unsigned char raw[sizeof got];
        assert_int_equal(nb_buffer_download(buf, 0, raw, total * wb, stream), NB_OK);
        for (size_t g = 0; g < total; g++) {
            uint64_t v = 0;
            memcpy(&v, raw + g * wb, wb);
            got[g] = v;
        }
        for (size_t g = 0; g < total; g++) {
            const size_t w = g % words, l = w >> LOG_N;
            uint64_t want = wide ? 0xA5A5A5A5A5A5A5A5ull : 0xA5A5A5A5ull;
            if (g >= words && g < (SETS - 1) * words) {
                want = nb_rng_residue_at(key, g, q[l]);
                if (want == 0 && (w & ((1u << LOG_N) - 1)) == 0)
                    want = 1;
                assert_true(got[g] < q[l]);
            }
            if (got[g] != want)
                nb_test_fail("%d-bit word %zu (limb %zu): %llu, host %llu", wide ? 64 : 32, g, l,
                             (unsigned long long)got[g], (unsigned long long)want);
        }
        nb_buffer_destroy(buf);
        nb_buffer_destroy(qd);
    }
#endif
}

/* Samples of the same case, warm and cold, per-launch and graph, taken three
 * ways: in batches behind one blocking kernel, one at a time with the next
 * queued ahead (the default), and one at a time queued after the last was
 * read (--queue-ahead 0): the same number of samples, every one positive and
 * finite, one synchronisation per sample one at a time (and one more for the
 * sample dropped at the end when queued ahead), fewer when batched, and
 * medians that agree (printed; only a gross disagreement, such as launch
 * latency or a flush inside the events, fails). */
static void test_batched_and_unbatched_samples_agree(void **state)
{
    (void)state;
    const nb_ntt_variant *v = first_gpu_variant();
    if (!v)
        skip();
    nb_workload *w = NULL;
    unsigned log_n = v->min_log_n > 14 ? v->min_log_n : 14;
    assert_int_equal(nb_ntt_workload_create(&w, v, log_n, 4, 60, 0, nb_test_rand(), stream),
                     NB_OK);
    static const char *const how[3] = {"one at a time", "queued ahead", "batched"};
    for (int k = 0; k < 3; k++) {
        nb_bench_result r[3];
        for (int b = 0; b < 3; b++) {
            nb_bench_opts o = quick();
            o.cache = k == 0 ? NB_CACHE_WARM : NB_CACHE_COLD;
            o.mode = k == 2 ? NB_MODE_GRAPH : NB_MODE_PER_LAUNCH;
            o.batch = 4;
            o.min_samples = o.max_samples = 256;
            o.min_time_s = 0.0;
            o.timeout_s = 30.0;
            o.batch_samples = b == 2 ? 64 : 1;
            o.queue_ahead = b == 1;
            nb_status s = nb_bench_run(w, stream, &o, &r[b]);
            if (s != NB_OK)
                nb_test_fail("k=%d %s: %s", k, how[b], nb_last_error());
            check_result(&r[b]);
            assert_int_equal(r[b].n_samples, 256);
            for (size_t i = 0; i < r[b].n_samples; i++)
                assert_true(isfinite(r[b].sample_s[i]) && r[b].sample_s[i] > 0);
        }
        assert_int_equal(r[0].sampling_syncs, 256);
        assert_int_equal(r[0].batch_max, 1);
        assert_int_equal(r[1].sampling_syncs, 257);
        assert_int_equal(r[1].batch_max, 1);
        assert_true(r[2].batch_max > 1);
        assert_true(r[2].sampling_syncs < r[0].sampling_syncs);
        for (int b = 1; b < 3; b++) {
            const double ratio = r[b].stats.median / r[0].stats.median;
            printf("# %s k=%d: median %.3f us %s (%zu synchronisations, batches up to %zu, "
                   "sampling phase %.1f ms), %.3f us one at a time (%.1f ms): ratio %.4f\n",
                   v->name, k, r[b].stats.median * 1e6, how[b], r[b].sampling_syncs,
                   r[b].batch_max, r[b].wall_s * 1e3, r[0].stats.median * 1e6,
                   r[0].wall_s * 1e3, ratio);
            assert_true(ratio > 0.8 && ratio < 1.25);
        }
        for (int b = 0; b < 3; b++)
            nb_bench_result_free(&r[b]);
    }
    nb_workload_destroy(w);
}

static void test_gpu_ntt_variants_warm_cold_graph(void **state)
{
    (void)state;
    size_t ran = 0;
    for (size_t i = 0; i < nb_ntt_variant_count(); i++) {
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        if (v->backend != NB_BACKEND_GPU || v->word_bits != 64) /* the NTT workload's words */
            continue;
        unsigned log_n = v->min_log_n > 12 ? v->min_log_n : 12;
        for (int inverse = 0; inverse < 2; inverse++) {
            nb_workload *w = NULL;
            assert_int_equal(
                nb_ntt_workload_create(&w, v, log_n, 3, 60, inverse, nb_test_rand(), stream),
                NB_OK);
            for (int k = 0; k < 3; k++) {
                nb_bench_opts o = quick();
                o.cache = k == 1 ? NB_CACHE_COLD : NB_CACHE_WARM;
                o.mode = k == 2 ? NB_MODE_GRAPH : NB_MODE_PER_LAUNCH;
                if (k == 2) {
                    o.cache = NB_CACHE_COLD; /* graphs over rotated sets */
                    o.batch = 8;
                }
                nb_bench_result r;
                nb_status s = nb_bench_run(w, stream, &o, &r);
                if (s != NB_OK)
                    nb_test_fail("%s %s k=%d: %s", v->name, inverse ? "inv" : "fwd", k,
                                 nb_last_error());
                check_result(&r);
                nb_bench_result_free(&r);
            }
            nb_workload_destroy(w);
            ran++;
        }
    }
    printf("# %zu GPU variant/direction pairs timed\n", ran);
}

static void test_l2_persist_sets_and_restores(void **state)
{
    (void)state;
    const nb_ntt_variant *v = first_gpu_variant();
    if (!v)
        skip();
    size_t before = 0, after = 0;
    assert_int_equal(nb_gpu_l2_persisting_limit(&before), NB_OK);
    nb_workload *w = NULL;
    assert_int_equal(nb_ntt_workload_create(&w, v, 14, 4, 60, 0, nb_test_rand(), stream), NB_OK);
    nb_bench_opts o = quick();
    o.l2_persist = 1.0;
    nb_bench_result r;
    nb_status s = nb_bench_run(w, stream, &o, &r);
    if (s == NB_ERR_UNSUPPORTED) {
        nb_workload_destroy(w);
        skip(); /* no persisting L2 on this device */
    }
    assert_int_equal(s, NB_OK);
    assert_true(r.persist_bytes == 8.0 * (1 << 14) * 4);
    assert_true(r.persist_hit_ratio == 1.0);
    nb_bench_result_free(&r);
    assert_int_equal(nb_gpu_l2_persisting_limit(&after), NB_OK);
    assert_int_equal(after, before);
    o.l2_persist = -1;
    o.cache = NB_CACHE_COLD;
    assert_int_equal(nb_bench_run(w, stream, &o, &r), NB_OK);
    nb_bench_result_free(&r);
    assert_int_equal(nb_gpu_l2_persisting_limit(&after), NB_OK);
    assert_int_equal(after, before);
    nb_workload_destroy(w);
}

/* A marked GPU workload: three device copies with marks a, b, a. */
typedef struct marked {
    nb_buffer *a, *b;
} marked;
static marked mk;
static nb_status mk_setup(void *ctx, size_t sets, void *s)
{
    (void)ctx;
    (void)sets;
    NB_TRY(nb_buffer_create(&mk.a, NB_BACKEND_GPU, 8 << 20));
    NB_TRY(nb_buffer_create(&mk.b, NB_BACKEND_GPU, 8 << 20));
    NB_TRY(nb_buffer_fill(mk.a, 3, s));
    return nb_stream_sync(s);
}
static size_t mk_bytes(const void *ctx)
{
    (void)ctx;
    return 16 << 20;
}
static nb_status mk_marked(void *ctx, size_t set, void *s, nb_step_marks *m)
{
    (void)ctx;
    (void)set;
    NB_TRY(nb_buffer_copy(mk.b, 0, mk.a, 0, 8 << 20, s));
    NB_TRY(nb_step_mark(m, "a", 1, 2, 0));
    NB_TRY(nb_buffer_copy(mk.a, 0, mk.b, 0, 4 << 20, s));
    NB_TRY(nb_step_mark(m, "b", 0, 0, 0));
    NB_TRY(nb_buffer_copy(mk.b, 0, mk.a, 0, 8 << 20, s));
    return nb_step_mark(m, "a", 1, 2, 0);
}
static nb_status mk_launch(void *ctx, size_t set, void *s) { return mk_marked(ctx, set, s, NULL); }
static nb_status mk_verify(void *ctx, size_t set, void *s)
{
    (void)ctx;
    (void)set;
    unsigned char x[16];
    NB_TRY(nb_buffer_download(mk.b, 1000, x, sizeof x, s));
    for (int i = 0; i < 16; i++)
        if (x[i] != 3)
            return nb_set_error(NB_ERR_VERIFY, "byte %d is %d", i, x[i]);
    return NB_OK;
}
static void mk_teardown(void *ctx)
{
    (void)ctx;
    nb_buffer_destroy(mk.a);
    nb_buffer_destroy(mk.b);
    mk.a = mk.b = NULL;
}
static const nb_workload_ops mk_ops = {
    .setup = mk_setup,
    .bytes_per_launch = mk_bytes,
    .launch = mk_launch,
    .launch_marked = mk_marked,
    .verify = mk_verify,
    .teardown = mk_teardown,
};

static void test_gpu_breakdown(void **state)
{
    (void)state;
    nb_workload w = {"three copies", NB_BACKEND_GPU, &mk_ops, NULL};
    nb_bench_opts o = quick();
    nb_breakdown b;
    assert_int_equal(nb_bench_breakdown(&w, stream, &o, 10, &b), NB_OK);
    assert_int_equal(b.n_steps, 2);
    assert_string_equal(b.steps[0].name, "a");
    assert_int_equal(b.steps[0].count, 2);
    assert_int_equal(b.ntt_fwd_limbs, 4);
    assert_true(b.blocked);
    assert_true(b.steps[0].median_s > 0 && b.steps[1].median_s > 0);
    assert_true(fabs(b.steps[0].share + b.steps[1].share - 1.0) < 1e-9);
    assert_true(fabs(b.ntt_share - b.steps[0].share) < 1e-9);
    /* the steps cover the whole marked launch */
    assert_true(fabs(b.sum_s - b.launch_s) <= 0.2 * b.launch_s);
    nb_bench_result r;
    assert_int_equal(nb_bench_run(&w, stream, &o, &r), NB_OK);
    nb_bench_result_free(&r);
}

/* The kernel-boundary and grid-barrier workloads: where the device runs
 * them, the timing core times them like any workload (per launch, behind the
 * blocking kernel); *unsupported_out tells which ran. */
static void check_sync_workload(nb_status (*create)(nb_workload **, int *), int *unsupported_out)
{
    nb_workload *w = NULL;
    int unsupported = -1;
    assert_int_equal(create(&w, &unsupported), NB_OK);
    assert_true(unsupported == 0 || unsupported == 1);
    *unsupported_out = unsupported;
    if (unsupported) {
        assert_null(w);
        return;
    }
    assert_non_null(w);
    nb_bench_opts o = quick();
    o.max_samples = 50;
    nb_bench_result r;
    assert_int_equal(nb_bench_run(w, stream, &o, &r), NB_OK);
    check_result(&r);
    nb_bench_result_free(&r);
    nb_workload_destroy(w);
}

static void test_sync_workloads_gpu(void **state)
{
    (void)state;
    int boundary_unsupported, barrier_unsupported;
    check_sync_workload(nb_boundary_workload_create, &boundary_unsupported);
    check_sync_workload(nb_grid_barrier_workload_create, &barrier_unsupported);
    printf("# kernel boundary: %s, grid barrier: %s\n",
           boundary_unsupported ? "not on this device" : "timed",
           barrier_unsupported ? "not on this device" : "timed");
}

static void test_calibrate_gpu(void **state)
{
    (void)state;
    nb_bench_opts o = quick();
    o.max_samples = 50;
    nb_calibration c;
    assert_int_equal(nb_calibrate(NB_BACKEND_GPU, stream, &o, &c), NB_OK);
    assert_true(c.copy_Bps > 0 && c.cache_Bps > 0);
    assert_true(c.launch_batch_s > 0 && c.launch_device_s > 0 && c.launch_sync_s > 0);
    int unsupported;
    check_sync_workload(nb_boundary_workload_create, &unsupported);
    assert_true(unsupported ? isnan(c.boundary_s) : c.boundary_s > 0);
    check_sync_workload(nb_grid_barrier_workload_create, &unsupported);
    assert_true(unsupported ? isnan(c.grid_barrier_s) : c.grid_barrier_s > 0);
    assert_int_equal(c.n_points, 7);
    assert_true(c.butterflies_per_s > 0);
    assert_true(c.butterflies32_per_s > 0);
    printf("# forward butterflies from registers: %.1f G/s (64-bit), %.1f G/s (32-bit)\n",
           c.butterflies_per_s / 1e9, c.butterflies32_per_s / 1e9);
    printf("# copy %.0f GB/s, L2 copy %.0f GB/s, launch %.2f us (batch), %.2f us (device)\n",
           c.copy_Bps / 1e9, c.cache_Bps / 1e9, c.launch_batch_s * 1e6,
           c.launch_device_s * 1e6);
    printf("# kernel boundary %.2f us, grid barrier %.2f us (device time)\n", c.boundary_s * 1e6,
           c.grid_barrier_s * 1e6);
}

/* The butterfly-ceiling workload checks what it computed, on 64- and 32-bit
 * words: outputs left poisoned (no launch) fail its verify, a launch passes
 * it, and the timing core times it with verification before and after. */
static void test_butterfly_ceiling(void **state)
{
    (void)state;
    for (unsigned word_bits = 64; word_bits >= 32; word_bits -= 32) {
        nb_workload *w = NULL;
        double per_launch = 0;
        assert_int_equal(nb_butterfly_workload_create(&w, word_bits, &per_launch), NB_OK);
        assert_true(per_launch >= 1e6);
        const nb_workload_ops *ops = w->ops;
        assert_int_equal(ops->setup(w->ctx, 1, stream), NB_OK);
        assert_int_equal(ops->prepare(w->ctx, 0, stream), NB_OK);
        assert_int_equal(ops->verify(w->ctx, 0, stream), NB_ERR_VERIFY);
        assert_non_null(strstr(nb_last_error(), "unwritten"));
        assert_int_equal(ops->launch(w->ctx, 0, stream), NB_OK);
        assert_int_equal(ops->verify(w->ctx, 0, stream), NB_OK);
        ops->teardown(w->ctx);
        nb_bench_opts o = quick();
        o.max_samples = 20;
        nb_bench_result r;
        assert_int_equal(nb_bench_run(w, stream, &o, &r), NB_OK);
        assert_int_equal(r.verified_before, 1);
        assert_int_equal(r.verified_after, 1);
        assert_true(r.stats.median > 0);
        printf("# %u-bit words: %.3g butterflies per launch in %.1f us: %.1f G/s\n", word_bits,
               per_launch, r.stats.median * 1e6, per_launch / r.stats.median / 1e9);
        nb_bench_result_free(&r);
        nb_workload_destroy(w);
    }
}

/* A device that refuses the grid barrier's cooperative launch although it
 * has the feature (an MPS partition of fewer SMs than the device reports;
 * here forced by asking for more blocks per SM than can be resident): the
 * launch is NB_ERR_UNSUPPORTED and leaves no CUDA error behind, the workload
 * says unsupported, and calibrate completes with that row n/a and the others
 * measured. Afterwards the barrier runs again. */
static void test_refused_grid_barrier(void **state)
{
    (void)state;
#ifdef NB_HAVE_CUDA
    nb_gpu_barrier_blocks_per_sm = 4096;
    assert_int_equal(nb_gpu_grid_barrier_launch(stream), NB_ERR_UNSUPPORTED);
    assert_non_null(strstr(nb_last_error(), "grid barrier"));
    assert_int_equal(nb_gpu_empty_launch(stream), NB_OK); /* the last-error check passes */
    assert_int_equal(nb_stream_sync(stream), NB_OK);
    nb_workload *w = (nb_workload *)&w;
    int unsupported = -1;
    assert_int_equal(nb_grid_barrier_workload_create(&w, &unsupported), NB_OK);
    assert_int_equal(unsupported, 1);
    assert_null(w);
    nb_bench_opts o = quick();
    o.max_samples = 50;
    nb_calibration c;
    const nb_status st = nb_calibrate(NB_BACKEND_GPU, stream, &o, &c);
    nb_gpu_barrier_blocks_per_sm = 1;
    assert_int_equal(st, NB_OK);
    assert_true(isnan(c.grid_barrier_s));
    assert_true(c.copy_Bps > 0 && c.cache_Bps > 0 && c.launch_device_s > 0);
    assert_int_equal(c.n_points, 7);
    int boundary = 0, barrier = 0;
    assert_int_equal(nb_gpu_sync_features(&boundary, &barrier), NB_OK);
    assert_true(boundary ? c.boundary_s > 0 : isnan(c.boundary_s));
    if (barrier)
        assert_int_equal(nb_gpu_grid_barrier_launch(stream), NB_OK);
    assert_int_equal(nb_stream_sync(stream), NB_OK);
#endif
}

int main(void)
{
    nb_test_require_gpu_or_skip();
    nb_test_seed_init();
    if (nb_stream_create(&stream) != NB_OK) {
        printf("cannot create a stream: %s\n", nb_last_error());
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_environment),
        cmocka_unit_test(test_copy_all_modes_warm_and_cold),
        cmocka_unit_test(test_blocking_kernel_times_out_cleanly),
        cmocka_unit_test(test_batched_and_unbatched_samples_agree),
        cmocka_unit_test(test_device_drawn_sets_match_the_host_draws),
        cmocka_unit_test(test_gpu_ntt_variants_warm_cold_graph),
        cmocka_unit_test(test_l2_persist_sets_and_restores),
        cmocka_unit_test(test_gpu_breakdown),
        cmocka_unit_test(test_sync_workloads_gpu),
        cmocka_unit_test(test_calibrate_gpu),
        cmocka_unit_test(test_refused_grid_barrier),
        cmocka_unit_test(test_butterfly_ceiling),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    nb_stream_destroy(stream);
    return rc;
}

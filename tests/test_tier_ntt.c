/* Tests of the NTT tier on the CPU backend: the NTT workload timed warm and
 * cold on the real clock, its figures, and the tier run from C through the
 * tier table (every case verified, one row per case, the cache state in the
 * report). */
#include <math.h>
#include <string.h>

#include <jansson.h>

#include "bench/bench.h"
#include "benchutil.h"
#include "testutil.h"

#define CLOSE(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void test_ntt_workload_cpu_warm_and_cold(void **state)
{
    (void)state;
    const nb_ntt_variant *v = nb_ntt_variant_find("cpu-harvey");
    assert_non_null(v);
    for (int inverse = 0; inverse < 2; inverse++) {
        nb_workload *w = NULL;
        assert_int_equal(nb_ntt_workload_create(&w, v, 10, 2, 50, inverse, nb_test_rand(), NULL),
                         NB_OK);
        const nb_ntt_tables *t = nb_ntt_workload_tables(w);
        assert_non_null(t);
        assert_int_equal(t->limbs, 2);
        assert_true(t->q[0] < (1ull << 50) && t->q[0] > (1ull << 49));
        assert_int_equal(w->ops->bytes_per_launch(w->ctx), 2 * 8 * 1024 * 2);
        nb_bench_opts o = nb_test_quick_opts();
        for (int tier = 0; tier < 2; tier++) {
            o.cache = tier ? NB_CACHE_COLD : NB_CACHE_WARM;
            nb_bench_result r;
            assert_int_equal(nb_bench_run(w, NULL, &o, &r), NB_OK);
            assert_true(r.n_samples >= o.min_samples);
            assert_true(r.stats.median > 0);
            assert_int_equal(r.verified_before, 1);
            assert_int_equal(r.verified_after, 1);
            if (tier) {
                assert_true(r.cache.flush);
                assert_true(r.cache.sets > 1);
                assert_true(r.cache.allocated_bytes >= 3.0 * r.cache.cache_bytes);
                assert_true(r.flush_bytes >= 2.0 * r.cache.cache_bytes);
            }
            nb_bench_result_free(&r);
        }
        nb_workload_destroy(w);
    }
}

static void test_ntt_figures_model(void **state)
{
    (void)state;
    nb_ntt_figures f;
    nb_ntt_figures_compute(16, 8, 64, 1e-3, 2e9, 0, &f);
    CLOSE(f.coefficient_bytes, 2.0 * 8 * 65536 * 8, 0);
    CLOSE(f.twiddle_bytes, 2.0 * 8 * 65536 * 8, 0);
    CLOSE(f.bandwidth_Bps, f.coefficient_bytes / 1e-3, 1e-3);
    CLOSE(f.frac_copy, f.bandwidth_Bps / 2e9, 1e-12);
    assert_true(isnan(f.frac_peak));
    CLOSE(f.butterflies_per_s, 32768.0 * 16 * 8 / 1e-3, 1.0);
}

typedef struct progress_log {
    size_t calls;
} progress_log;

static void count_progress(void *ctx, const char *what, const char *result)
{
    assert_non_null(what);
    assert_non_null(result);
    ((progress_log *)ctx)->calls++;
}

/* Fills a run of cpu-harvey, log N 10, L 1 and 2, both directions, into r. */
static void cpu_sweep(nb_tier_run *r, nb_report *rep, const nb_ntt_variant **v,
                      progress_log *log)
{
    static const unsigned logn[] = {10}, bits[] = {50};
    static const size_t limbs[] = {1, 2};
    static const nb_mode modes[] = {NB_MODE_PER_LAUNCH};
    *v = nb_ntt_variant_find("cpu-harvey");
    assert_non_null(*v);
    memset(r, 0, sizeof *r);
    r->report = rep;
    r->timing = nb_test_quick_opts();
    r->sweep = (nb_sweep){.variants = v, .n_variants = 1, .log_n = logn, .n_log_n = 1,
                          .limbs = limbs, .n_limbs = 2, .prime_bits = bits, .n_prime_bits = 1,
                          .directions = 3, .modes = modes, .n_modes = 1, .seed = nb_test_rand()};
    r->progress = count_progress;
    r->progress_ctx = log;
}

static void test_ntt_tier_runs_from_c_in_any_cache_state(void **state)
{
    (void)state;
    const nb_tier *t = nb_tier_find("ntt");
    assert_non_null(t);
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    const nb_ntt_variant *v;
    progress_log log = {0};
    nb_tier_run r;
    cpu_sweep(&r, rep, &v, &log);
    const nb_cache_state states[] = {NB_CACHE_WARM, NB_CACHE_COLD, NB_CACHE_EVICTED,
                                     NB_CACHE_ROTATED};
    for (size_t i = 0; i < 4; i++) {
        r.timing.cache = states[i];
        assert_int_equal(nb_tier_run_one(t, &r), NB_OK);
    }
    assert_int_equal(nb_report_case_count(rep), 16); /* 4 states x 2 directions x 2 limbs */
    assert_int_equal(log.calls, 16);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(nb_report_write(rep, NB_FORMAT_JSON, f), NB_OK);
    fclose(f);
    json_t *j = json_loads(buf, 0, NULL);
    assert_non_null(j);
    json_t *cases = json_object_get(j, "cases");
    static const char *const words[] = {"warm", "cold", "cold", "cold"};
    static const char *const names[] = {"warm", "both", "flush", "rotate"};
    for (size_t i = 0; i < 16; i++) {
        json_t *c = json_array_get(cases, i);
        assert_string_equal(json_string_value(json_object_get(c, "status")), "ok");
        assert_string_equal(json_string_value(json_object_get(c, "tier")), words[i / 4]);
        assert_string_equal(json_string_value(json_object_get(c, "cache_state")), names[i / 4]);
        json_t *plan = json_object_get(c, "cache");
        assert_string_equal(json_string_value(json_object_get(plan, "state")), names[i / 4]);
        assert_int_equal(json_is_true(json_object_get(plan, "flush")),
                         i >= 4 && i < 12); /* both and flush evict */
    }
    json_decref(j);
    free(buf);
    nb_report_destroy(rep);
}

static void test_ntt_tier_skips_what_the_variant_cannot_run(void **state)
{
    (void)state;
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    const nb_ntt_variant *v;
    progress_log log = {0};
    nb_tier_run r;
    cpu_sweep(&r, rep, &v, &log);
    static const nb_mode graph[] = {NB_MODE_GRAPH};
    r.sweep.modes = graph;
    r.sweep.directions = 1;
    assert_int_equal(nb_tier_run_one(nb_tier_find("ntt"), &r), NB_OK);
    assert_int_equal(nb_report_case_count(rep), 2);
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(nb_case_get_status(nb_report_case_at(rep, i)), NB_CASE_SKIPPED);
    nb_report_destroy(rep);
}

static void test_tier_table_checks_before_running(void **state)
{
    (void)state;
    assert_true(nb_tier_count() >= 2);
    assert_null(nb_tier_find("lukewarm"));
    assert_non_null(strstr(nb_last_error(), "stage"));
    nb_tier_run r;
    memset(&r, 0, sizeof r);
    nb_bench_opts_default(&r.timing);
    assert_int_equal(nb_tier_run_one(nb_tier_find("ntt"), &r), NB_ERR_INVALID_ARG);
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    r.report = rep;
    r.timing.cache = (nb_cache_state)7;
    assert_int_equal(nb_tier_run_one(nb_tier_find("ntt"), &r), NB_ERR_INVALID_ARG);
    r.timing.cache = NB_CACHE_WARM;
    const nb_ntt_variant *vars[1] = {NULL};
    r.sweep.variants = vars;
    r.sweep.n_variants = 1;
    assert_int_equal(nb_tier_run_one(nb_tier_find("ntt"), &r), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_report_case_count(rep), 0);
    nb_report_destroy(rep);
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ntt_workload_cpu_warm_and_cold),
        cmocka_unit_test(test_ntt_figures_model),
        cmocka_unit_test(test_ntt_tier_runs_from_c_in_any_cache_state),
        cmocka_unit_test(test_ntt_tier_skips_what_the_variant_cannot_run),
        cmocka_unit_test(test_tier_table_checks_before_running),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

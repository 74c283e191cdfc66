/* The stage tier on the CPU backend: every stage of a small preset runs
 * through the shared timing core (timed pass, breakdown pass, micro-benchmark
 * comparison), is verified against the CPU pipeline, reports the NTT counts
 * of nb_ckks_ntt_counts and serialises to the report JSON with its
 * breakdown; a wrong NTT inside a stage is caught by verification; a warm
 * stage run keeps one buffer set and evicts nothing; the sweep runs from C
 * through the tier table. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tiers/stage.h"
#include "bench/tiers/tiers.h"
#include "reportutil.h"

static void fast_opts(nb_bench_opts *o)
{
    nb_bench_opts_default(o);
    o->min_samples = 3;
    o->min_time_s = 0.002;
    o->max_noise_pct = 100.0;
    o->timeout_s = 5.0;
    o->warmup_samples = 1;
    o->warmup_time_s = 0.0;
    o->cache = NB_COLD_ROTATE;
}

static void test_stage_names_parse(void **state)
{
    (void)state;
    nb_ckks_stage s[8];
    size_t n = 0;
    assert_int_equal(nb_stage_parse_list("modup,moddown,keyswitch,rescale", s, 8, &n), NB_OK);
    assert_int_equal(n, 4);
    for (size_t i = 0; i < 4; i++) {
        nb_ckks_stage back;
        assert_int_equal(nb_stage_parse(nb_stage_name(s[i]), &back), NB_OK);
        assert_int_equal(back, s[i]);
    }
    assert_int_equal(nb_stage_parse_list("modup,bogus", s, 8, &n), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "bogus"));
    assert_int_equal(nb_stage_parse_list("", s, 8, &n), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_stage_parse_list("modup,moddown", s, 1, &n), NB_ERR_INVALID_ARG);
    /* a repeat is kept once, in first-seen order; an empty item is refused */
    assert_int_equal(nb_stage_parse_list("rescale,modup,rescale", s, 8, &n), NB_OK);
    assert_int_equal(n, 2);
    assert_int_equal(s[0], NB_CKKS_STAGE_RESCALE);
    assert_int_equal(s[1], NB_CKKS_STAGE_MODUP);
    assert_int_equal(nb_stage_parse_list("modup,,rescale", s, 8, &n), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_stage_parse_list("modup,", s, 8, &n), NB_ERR_INVALID_ARG);
}

static double metric(json_t *c, const char *key)
{
    json_t *v = json_object_get(json_object_get(c, "metrics"), key);
    if (!json_is_number(v))
        nb_test_fail("metric %s missing or not a number", key);
    return json_number_value(v);
}

/* Guards: on a set made for 32-bit words (two primes per rescale) the
 * micro-benchmarks asked for primes of the pair's size (50 bits), which no
 * 32-bit variant takes: every time NAN and a message. */
static void test_micro_benchmarks_of_a_32_bit_set(void **state)
{
    (void)state;
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "test-tiny-w32"), NB_OK);
    nb_bench_opts o;
    fast_opts(&o);
    nb_stage_micro micro;
    assert_int_equal(nb_stage_micro_measure(&micro, p, nb_ntt_variant_find("cpu-harvey32"),
                                            SIZE_MAX, &o, NULL),
                     NB_OK);
    /* every one measured: no message, or only that one missed its noise target */
    if (micro.message[0] && !strstr(micro.message, "missed their noise target"))
        nb_test_fail("micro-benchmarks: %s", micro.message);
    assert_true(micro.warm_fwd_s > 0 && micro.cold_fwd_s > 0);
    assert_true(micro.warm_inv_s > 0 && micro.cold_inv_s > 0);
    nb_ckks_params_destroy(p);
}

static void test_every_stage_runs_verified_with_breakdown(void **state)
{
    (void)state;
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "test-small"), NB_OK);
    const nb_ntt_variant *v = nb_ntt_variant_find("cpu-harvey");
    nb_bench_opts o;
    fast_opts(&o);
    nb_stage_micro micro;
    assert_int_equal(nb_stage_micro_measure(&micro, p, v, SIZE_MAX, &o, NULL), NB_OK);
    /* every one measured: no message, or only that one missed its noise target */
    if (micro.message[0] && !strstr(micro.message, "missed their noise target"))
        nb_test_fail("micro-benchmarks: %s", micro.message);
    assert_true(micro.warm_fwd_s > 0 && micro.cold_fwd_s > 0);
    assert_true(micro.warm_inv_s > 0 && micro.cold_inv_s > 0);
    assert_int_equal(micro.limbs, p->max_level + 1);

    for (int st = 0; st < 4; st++) {
        nb_stage_config cfg = {(nb_ckks_stage)st, SIZE_MAX, NB_CKKS_RESCALE_FLOOR, 42, 0, 0, 0};
        nb_case *c = NULL;
        assert_int_equal(nb_stage_run_case(&c, p, v, &cfg, &micro, &o, 5, NULL), NB_OK);
        assert_non_null(c);
        if (nb_case_get_status(c) != NB_CASE_OK) {
            json_t *j = nb_test_case_json(c);
            nb_test_fail("stage %s: status %s: %s", nb_stage_name(cfg.stage),
                         json_string_value(json_object_get(j, "status")),
                         json_string_value(json_object_get(j, "message")));
        }
        json_t *j = nb_test_case_json(c);
        json_t *params = json_object_get(j, "params");
        assert_string_equal(json_string_value(json_object_get(j, "tier")), "stage");
        assert_string_equal(json_string_value(json_object_get(params, "stage")),
                            nb_stage_name(cfg.stage));
        assert_string_equal(json_string_value(json_object_get(params, "preset")), "test-small");
        assert_int_equal(json_integer_value(json_object_get(params, "level")), p->max_level);
        json_t *ver = json_object_get(j, "verification");
        assert_string_equal(json_string_value(json_object_get(ver, "before")), "pass");
        assert_string_equal(json_string_value(json_object_get(ver, "after")), "pass");

        size_t fwd, inv;
        nb_ckks_ntt_counts(p, cfg.stage, p->max_level, &fwd, &inv);
        json_t *bd = json_object_get(j, "breakdown");
        assert_true(json_is_object(bd));
        assert_int_equal(json_integer_value(json_object_get(bd, "ntt_forward_limbs")), fwd);
        assert_int_equal(json_integer_value(json_object_get(bd, "ntt_inverse_limbs")), inv);
        assert_int_equal((size_t)metric(j, "ntt_fwd_limbs"), fwd);
        assert_int_equal((size_t)metric(j, "ntt_inv_limbs"), inv);
        /* the steps: intt, conv and ntt in every stage; shares sum to 1 */
        json_t *steps = json_object_get(bd, "steps");
        int seen_intt = 0, seen_ntt = 0, seen_conv = 0;
        double share = 0;
        for (size_t i = 0; i < json_array_size(steps); i++) {
            json_t *s = json_array_get(steps, i);
            const char *name = json_string_value(json_object_get(s, "name"));
            seen_intt |= strcmp(name, "intt") == 0;
            seen_ntt |= strcmp(name, "ntt") == 0;
            seen_conv |= strcmp(name, "conv") == 0;
            share += json_number_value(json_object_get(s, "share"));
        }
        assert_true(seen_intt && seen_ntt && seen_conv);
        assert_true(fabs(share - 1.0) < 1e-6);
        const double ntt_share = metric(j, "ntt_share");
        assert_true(ntt_share > 0 && ntt_share < 1);
        assert_true(metric(j, "stage_median_ns") > 0);
        assert_true(metric(j, "in_stage_fwd_ns_per_limb") > 0);
        assert_true(metric(j, "in_stage_inv_ns_per_limb") > 0);
        assert_true(metric(j, "breakdown_vs_stage") > 0);
        assert_true(metric(j, "warm_fwd_ns_per_limb") > 0);
        assert_true(metric(j, "in_stage_vs_cold_fwd") > 0);
        json_decref(j);
    }
    nb_ckks_params_destroy(p);
}

/* A CPU variant that returns a wrong residue: a stage using it must fail
 * verification and never be reported as a timing. */
static const nb_ntt_variant *harvey;
static nb_status broken_plan_create(void **plan, const nb_ntt_tables *t, void *stream)
{
    return harvey->plan_create(plan, t, stream);
}
static void broken_plan_destroy(void *plan) { harvey->plan_destroy(plan); }
static nb_status broken_forward(void *plan, void *words, size_t first, size_t count,
                                void *stream)
{
    uint64_t *data = (uint64_t *)words;
    NB_TRY(harvey->forward(plan, data, first, count, stream));
    data[3] = data[3] ? data[3] - 1 : 1;
    return NB_OK;
}
static nb_status broken_inverse(void *plan, void *words, size_t first, size_t count,
                                void *stream)
{
    uint64_t *data = (uint64_t *)words;
    return harvey->inverse(plan, data, first, count, stream);
}
static const nb_ntt_variant broken = {
    .name = "test-broken-forward",
    .description = "cpu-harvey with one wrong forward output",
    .backend = NB_BACKEND_CPU,
    .min_log_n = 1,
    .max_log_n = 17,
    .word_bits = 64,
    .max_prime_bits = 62,
    .plan_create = broken_plan_create,
    .plan_destroy = broken_plan_destroy,
    .forward = broken_forward,
    .inverse = broken_inverse,
};

static void test_wrong_ntt_inside_a_stage_fails_verification(void **state)
{
    (void)state;
    harvey = nb_ntt_variant_find("cpu-harvey");
    assert_non_null(harvey);
    assert_int_equal(nb_ntt_variant_register(&broken), NB_OK);
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "test-small"), NB_OK);
    nb_bench_opts o;
    fast_opts(&o);
    nb_stage_config cfg = {NB_CKKS_STAGE_MODDOWN, SIZE_MAX, NB_CKKS_RESCALE_FLOOR, 7, 0, 0, 0};
    nb_case *c = NULL;
    assert_int_equal(nb_stage_run_case(&c, p, &broken, &cfg, NULL, &o, 3, NULL), NB_OK);
    assert_int_equal(nb_case_get_status(c), NB_CASE_VERIFY_FAILED);
    json_t *j = nb_test_case_json(c);
    const char *msg = json_string_value(json_object_get(j, "message"));
    assert_non_null(strstr(msg, "differ from the CPU pipeline"));
    json_decref(j);
    nb_ckks_params_destroy(p);
}

/* Guards: a case list's estimate of a stage case's bytes took 8-byte words
 * and one dropped prime for every set; it is the workload's own footprint,
 * on both word sizes, at every stage and at the levels a rescale takes. */
static void test_stage_set_bytes_is_the_workloads_footprint(void **state)
{
    (void)state;
    const char *sets[2][2] = {{"test-tiny", "cpu-harvey"}, {"test-tiny-w32", "cpu-harvey32"}};
    for (int k = 0; k < 2; k++) {
        nb_ckks_params *p = NULL;
        assert_int_equal(nb_ckks_params_from_preset(&p, sets[k][0]), NB_OK);
        const nb_ntt_variant *v = nb_ntt_variant_find(sets[k][1]);
        assert_non_null(v);
        for (int st = 0; st < 4; st++)
            for (size_t l = p->rescale_primes; l <= p->max_level; l++) {
                nb_stage_config cfg = {(nb_ckks_stage)st, l, NB_CKKS_RESCALE_FLOOR, 5, 0, 0, 0};
                nb_workload *w = NULL;
                assert_int_equal(nb_stage_workload_create(&w, p, v, &cfg, NULL), NB_OK);
                const double want = (double)w->ops->footprint_bytes(w->ctx);
                if (nb_stage_set_bytes(p, (nb_ckks_stage)st, l) != want)
                    nb_test_fail("%s stage %d l=%zu: estimate %.0f, footprint %.0f", sets[k][0],
                                 st, l, nb_stage_set_bytes(p, (nb_ckks_stage)st, l), want);
                nb_workload_destroy(w);
            }
        nb_ckks_params_destroy(p);
    }
}

static void test_bad_stage_configs_are_rejected(void **state)
{
    (void)state;
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "test-tiny"), NB_OK);
    const nb_ntt_variant *v = nb_ntt_variant_find("cpu-harvey");
    nb_workload *w = (nb_workload *)0x1;
    nb_stage_config cfg = {NB_CKKS_STAGE_RESCALE, 0, NB_CKKS_RESCALE_FLOOR, 1, 0, 0, 0};
    assert_int_equal(nb_stage_workload_create(&w, p, v, &cfg, NULL), NB_ERR_INVALID_ARG);
    assert_null(w);
    cfg.level = p->max_level;
    cfg.rounding = (nb_ckks_rounding)9; /* refused at once, not after the case's build */
    assert_int_equal(nb_stage_workload_create(&w, p, v, &cfg, NULL), NB_ERR_INVALID_ARG);
    cfg.rounding = NB_CKKS_RESCALE_FLOOR;
    cfg.stage = NB_CKKS_STAGE_MODUP;
    cfg.level = p->max_level + 1;
    assert_int_equal(nb_stage_workload_create(&w, p, v, &cfg, NULL), NB_ERR_INVALID_ARG);
    cfg.level = 1;
    assert_int_equal(nb_stage_workload_create(&w, p, v, &cfg, NULL), NB_OK);
    size_t f, i;
    nb_stage_workload_ntt_counts(w, &f, &i);
    size_t ef, ei;
    nb_ckks_ntt_counts(p, NB_CKKS_STAGE_MODUP, 1, &ef, &ei);
    assert_int_equal(f, ef);
    assert_int_equal(i, ei);
    nb_workload_destroy(w);
    nb_workload_destroy(NULL);
    nb_ckks_params_destroy(p);
}

static void test_warm_stage_keeps_one_set_and_its_breakdown(void **state)
{
    (void)state;
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "test-small"), NB_OK);
    const nb_ntt_variant *v = nb_ntt_variant_find("cpu-harvey");
    nb_bench_opts o;
    fast_opts(&o);
    o.cache = NB_CACHE_WARM;
    nb_stage_config cfg = {NB_CKKS_STAGE_KEYSWITCH, SIZE_MAX, NB_CKKS_RESCALE_FLOOR,
                           nb_test_rand(), 0, 0, 0};
    nb_case *c = NULL;
    assert_int_equal(nb_stage_run_case(&c, p, v, &cfg, NULL, &o, 5, NULL), NB_OK);
    assert_int_equal(nb_case_get_status(c), NB_CASE_OK);
    json_t *j = nb_test_case_json(c);
    assert_string_equal(json_string_value(json_object_get(j, "tier")), "stage");
    assert_string_equal(json_string_value(json_object_get(j, "cache_state")), "warm");
    json_t *plan = json_object_get(j, "cache");
    assert_int_equal(json_integer_value(json_object_get(plan, "sets")), 1);
    assert_true(json_is_false(json_object_get(plan, "flush")));
    json_t *bd = json_object_get(j, "breakdown");
    assert_non_null(bd);
    assert_true(json_array_size(json_object_get(bd, "steps")) >= 3);
    assert_true(json_integer_value(json_object_get(bd, "ntt_forward_limbs")) > 0);
    json_decref(j);
    nb_ckks_params_destroy(p);
}

static void test_stage_sweep_runs_from_c_through_the_table(void **state)
{
    (void)state;
    const nb_tier *t = nb_tier_find("stage");
    assert_non_null(t);
    assert_true(t->cache_states & (1u << NB_CACHE_WARM));
    assert_true(t->default_states == (1u << NB_CACHE_COLD));
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    const nb_ntt_variant *vars[1] = {nb_ntt_variant_find("cpu-harvey")};
    static const nb_mode modes[] = {NB_MODE_PER_LAUNCH};
    static const char *const presets[] = {"test-tiny"};
    static const size_t levels[] = {1, 99};
    nb_stage_tier_opts so;
    nb_stage_tier_opts_default(&so);
    so.stages[0] = NB_CKKS_STAGE_RESCALE;
    so.stages[1] = NB_CKKS_STAGE_MODUP;
    so.n_stages = 2;
    so.presets = presets;
    so.n_presets = 1;
    so.levels = levels;
    so.n_levels = 2;
    so.micro = 0;
    so.passes = 3;
    nb_tier_run r;
    memset(&r, 0, sizeof r);
    r.report = rep;
    fast_opts(&r.timing);
    r.timing.cache = NB_CACHE_WARM;
    r.sweep.variants = vars;
    r.sweep.n_variants = 1;
    r.sweep.modes = modes;
    r.sweep.n_modes = 1;
    r.sweep.seed = nb_test_rand();
    r.tier_opts = &so;
    /* level 99 is above the preset's L: refused before any case runs */
    assert_int_equal(nb_tier_run_one(t, &r), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_report_case_count(rep), 0);
    assert_non_null(strstr(nb_last_error(), "--level 99"));
    /* rescale drops a level: level 0 is below its minimum */
    static const size_t level0[] = {0};
    so.levels = level0;
    so.n_levels = 1;
    assert_int_equal(nb_tier_run_one(t, &r), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_report_case_count(rep), 0);
    /* level 1: two stages */
    so.n_levels = 1;
    so.levels = levels;
    assert_int_equal(nb_tier_run_one(t, &r), NB_OK);
    assert_int_equal(nb_report_case_count(rep), 2);
    assert_int_equal(nb_case_get_status(nb_report_case_at(rep, 0)), NB_CASE_OK);
    assert_int_equal(nb_case_get_status(nb_report_case_at(rep, 1)), NB_CASE_OK);
    /* each case's wall time covers its build and breakdown passes, which
     * run outside its sampling run: none of it counts as between cases */
    nb_overhead ov;
    nb_report_overhead(rep, &ov);
    assert_int_equal(ov.cases, 2);
    assert_true(ov.build_s > 0.0);
    assert_true(ov.cases_s > ov.sampling_s + ov.verify_s + ov.setup_s);
    nb_report_destroy(rep);
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stage_names_parse),
        cmocka_unit_test(test_bad_stage_configs_are_rejected),
        cmocka_unit_test(test_stage_set_bytes_is_the_workloads_footprint),
        cmocka_unit_test(test_micro_benchmarks_of_a_32_bit_set),
        cmocka_unit_test(test_every_stage_runs_verified_with_breakdown),
        cmocka_unit_test(test_wrong_ntt_inside_a_stage_fails_verification),
        cmocka_unit_test(test_warm_stage_keeps_one_set_and_its_breakdown),
        cmocka_unit_test(test_stage_sweep_runs_from_c_through_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

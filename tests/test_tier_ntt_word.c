/* Tests of the word size in the NTT tier (bench/tiers/ntt*.c): a 32-bit
 * variant's workload moves 4-byte words and is verified against the 64-bit
 * oracle (a wrong 32-bit word is caught), the word packing helpers, the limb
 * count chosen for a log Q target with both word sizes' primes, and the
 * tier's cases carrying word_bits and log_q. */
#include <math.h>
#include <string.h>

#include <jansson.h>

#include "bench/bench.h"
#include "benchutil.h"
#include "testutil.h"

static void test_words_pack_and_widen_round_trip_in_place(void **state)
{
    (void)state;
    uint64_t a[64], b[64];
    for (size_t i = 0; i < 64; i++)
        a[i] = b[i] = nb_test_rand_below((1ull << 31) - 1) + 1;
    nb_words_from_u64(a, a, 64, 32);
    for (size_t i = 0; i < 64; i++)
        assert_int_equal(((uint32_t *)a)[i], (uint32_t)b[i]);
    nb_words_to_u64(a, a, 64, 32);
    assert_memory_equal(a, b, sizeof a);
    nb_words_from_u64(a, b, 64, 64); /* 64-bit words: a copy */
    assert_memory_equal(a, b, sizeof a);
}

static void test_workload32_moves_4_byte_words_and_verifies(void **state)
{
    (void)state;
    const nb_ntt_variant *v = nb_ntt_variant_find("cpu-harvey32");
    assert_non_null(v);
    for (int inverse = 0; inverse < 2; inverse++) {
        nb_workload *w = NULL;
        assert_int_equal(nb_ntt_workload_create(&w, v, 10, 3, 31, inverse, nb_test_rand(), NULL),
                         NB_OK);
        assert_int_equal(w->ops->bytes_per_launch(w->ctx), 2 * 4 * 1024 * 3);
        assert_int_equal(w->ops->footprint_bytes(w->ctx), 4 * 1024 * 3);
        assert_non_null(strstr(w->label, "q31 w32 logQ="));
        nb_bench_opts o = nb_test_quick_opts();
        for (int tier = 0; tier < 2; tier++) {
            o.cache = tier ? NB_CACHE_COLD : NB_CACHE_WARM;
            nb_bench_result r;
            assert_int_equal(nb_bench_run(w, NULL, &o, &r), NB_OK);
            assert_int_equal(r.verified_before, 1);
            assert_int_equal(r.verified_after, 1);
            nb_bench_result_free(&r);
        }
        nb_workload_destroy(w);
    }
}

/* cpu-harvey32 with one output word changed: the oracle comparison must see it. */
static nb_status wrong_forward(void *plan, void *data, size_t first, size_t count, void *stream)
{
    NB_TRY(nb_ntt_variant_find("cpu-harvey32")->forward(plan, data, first, count, stream));
    ((uint32_t *)data)[5] ^= 1;
    return NB_OK;
}

static void test_workload32_wrong_word_fails_verification(void **state)
{
    (void)state;
    static nb_ntt_variant broken;
    broken = *nb_ntt_variant_find("cpu-harvey32");
    broken.name = "test-broken32";
    broken.forward = wrong_forward;
    broken.forward_to = NULL;
    broken.inverse_to = NULL;
    if (!nb_ntt_variant_find("test-broken32"))
        assert_int_equal(nb_ntt_variant_register(&broken), NB_OK);
    nb_workload *w = NULL;
    assert_int_equal(nb_ntt_workload_create(&w, &broken, 8, 2, 30, 0, nb_test_rand(), NULL),
                     NB_OK);
    assert_int_equal(w->ops->setup(w->ctx, 1, NULL), NB_OK);
    assert_int_equal(w->ops->launch(w->ctx, 0, NULL), NB_OK);
    assert_int_equal(w->ops->verify(w->ctx, 0, NULL), NB_ERR_VERIFY);
    assert_non_null(strstr(nb_last_error(), "limb 0 index 5"));
    nb_workload_destroy(w);
}

/* The rule of docs/cli.md: the smallest L with log2 Q >= BITS - bits/2. */
static void test_limbs_for_log_q_is_smallest_within_half_a_prime(void **state)
{
    (void)state;
    static const unsigned bits[] = {60, 31, 30};
    static const unsigned targets[] = {1, 60, 100, 200, 400, 1000};
    for (size_t b = 0; b < 3; b++)
        for (size_t t = 0; t < 6; t++) {
            size_t L;
            double got;
            assert_int_equal(nb_ntt_limbs_for_log_q(16, bits[b], targets[t], 4096, &L, &got),
                             NB_OK);
            uint64_t q[64];
            assert_true(L + 1 <= 64);
            assert_int_equal(nb_primes_generate(16, bits[b], L + 1, NULL, 0, q), NB_OK);
            const double want = targets[t] - bits[b] / 2.0;
            assert_true(fabs(nb_log_q(q, L) - got) < 1e-9);
            assert_true(L == 1 || got >= want);
            assert_true(L == 1 || nb_log_q(q, L - 1) < want);
            if (L > 1 || targets[t] > bits[b] / 2) /* never more than half a prime under */
                assert_true(got >= targets[t] - bits[b] / 2.0);
        }
    size_t L;
    double got;
    assert_int_equal(nb_ntt_limbs_for_log_q(16, 60, 200, 4096, &L, &got), NB_OK);
    assert_true(L == 3 && fabs(got - 180.0) < 0.05); /* the example of docs/cli.md */
    assert_int_equal(nb_ntt_limbs_for_log_q(16, 31, 200, 4096, &L, &got), NB_OK);
    assert_true(L == 6 && fabs(got - 186.0) < 0.05);
    assert_int_equal(nb_ntt_limbs_for_log_q(16, 60, 100000, 8, &L, &got), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "more than 8 limbs"));
}

/* The tier from C over a 64- and a 32-bit variant at the same log Q targets:
 * every case has word_bits, log_q and log_q_target, and each word size its
 * own prime size. */
static void test_tier_cases_carry_word_bits_and_log_q(void **state)
{
    (void)state;
    const nb_ntt_variant *v[] = {nb_ntt_variant_find("cpu-harvey"),
                                 nb_ntt_variant_find("cpu-harvey32")};
    static const unsigned logn[] = {10}, bits[] = {60}, bits32[] = {31}, log_q[] = {120, 240};
    static const nb_mode modes[] = {NB_MODE_PER_LAUNCH};
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    nb_tier_run r = {.report = rep, .timing = nb_test_quick_opts()};
    r.timing.cache = NB_CACHE_WARM;
    r.sweep = (nb_sweep){.variants = v, .n_variants = 2, .log_n = logn, .n_log_n = 1,
                         .prime_bits = bits, .n_prime_bits = 1, .directions = 1,
                         .modes = modes, .n_modes = 1, .seed = nb_test_rand(),
                         .prime_bits_32 = bits32, .n_prime_bits_32 = 1, .log_q = log_q,
                         .n_log_q = 2};
    assert_int_equal(nb_tier_run_one(nb_tier_find("ntt"), &r), NB_OK);
    assert_int_equal(nb_report_case_count(rep), 4);
    char *path = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&path, &len);
    assert_int_equal(nb_report_write(rep, NB_FORMAT_JSON, f), NB_OK);
    fclose(f);
    json_t *j = json_loads(path, 0, NULL);
    assert_non_null(j);
    static const long long want_limbs[] = {2, 4, 4, 8}; /* 60-bit: 120, 240; 31-bit */
    for (size_t i = 0; i < 4; i++) {
        json_t *c = json_array_get(json_object_get(j, "cases"), i);
        json_t *p = json_object_get(c, "params");
        const long long wb = json_integer_value(json_object_get(p, "word_bits"));
        assert_string_equal(json_string_value(json_object_get(c, "status")), "ok");
        assert_int_equal(wb, i < 2 ? 64 : 32);
        assert_int_equal(json_integer_value(json_object_get(p, "prime_bits")), i < 2 ? 60 : 31);
        assert_int_equal(json_integer_value(json_object_get(p, "limbs")), want_limbs[i]);
        assert_int_equal(json_integer_value(json_object_get(p, "log_q_target")), log_q[i % 2]);
        const double lq = json_number_value(json_object_get(p, "log_q"));
        assert_true(fabs(lq - log_q[i % 2]) <= (i < 2 ? 30.0 : 15.5));
        assert_true(fabs(lq * 10 - round(lq * 10)) < 1e-6); /* one decimal */
        const double bytes = json_number_value(
            json_object_get(json_object_get(c, "figures"), "coefficient_bytes"));
        assert_true(bytes == 2.0 * (wb / 8) * 1024 * (double)want_limbs[i]);
        char expect[48];
        snprintf(expect, sizeof expect, "w%lld logQ=%.1f", wb, lq);
        assert_non_null(strstr(json_string_value(json_object_get(c, "label")), expect));
    }
    json_decref(j);
    free(path);
    nb_report_destroy(rep);
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words_pack_and_widen_round_trip_in_place),
        cmocka_unit_test(test_workload32_moves_4_byte_words_and_verifies),
        cmocka_unit_test(test_workload32_wrong_word_fails_verification),
        cmocka_unit_test(test_limbs_for_log_q_is_smallest_within_half_a_prime),
        cmocka_unit_test(test_tier_cases_carry_word_bits_and_log_q),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

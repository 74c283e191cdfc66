/* The public C API on arguments outside its contracts: each call returns its
 * documented status (or, for the void helpers, leaves its outputs as
 * documented) and never crashes, overruns a buffer or aborts. The NTT tier
 * with a limb count whose byte size wraps records a failed case; overlapping
 * copies, a guard range outside its buffer, variants that were never
 * registered, values a JSON integer cannot hold and NaN options are refused;
 * the accessors take NULL. Run under the sanitizer build in CI. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/tiers/stage.h"
#include "ckks/ckks.h"
#include "benchutil.h"
#include "testutil.h"

/* Guards: limbs = 2^61 + 1 wrapped limbs * 8 to 8 bytes and the primes were
 * written past that heap block (glibc abort). */
static void test_ntt_tier_with_a_wrapping_limb_count_records_a_failed_case(void **state)
{
    (void)state;
    const nb_ntt_variant *v[] = {nb_ntt_variant_find("cpu-harvey")};
    static const unsigned logn[] = {4}, bits[] = {20};
    static const size_t limbs[] = {((size_t)1 << 61) + 1, SIZE_MAX};
    static const nb_mode modes[] = {NB_MODE_PER_LAUNCH};
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    nb_tier_run r = {.report = rep, .timing = nb_test_quick_opts()};
    r.timing.cache = NB_CACHE_WARM;
    r.sweep = (nb_sweep){.variants = v, .n_variants = 1, .log_n = logn, .n_log_n = 1,
                         .limbs = limbs, .n_limbs = 2, .prime_bits = bits, .n_prime_bits = 1,
                         .directions = 1, .modes = modes, .n_modes = 1, .seed = nb_test_rand()};
    assert_int_equal(nb_tier_run_one(nb_tier_find("ntt"), &r), NB_OK);
    assert_int_equal(nb_report_case_count(rep), 2);
    for (size_t i = 0; i < 2; i++) {
        const nb_case *c = nb_report_case_at(rep, i);
        assert_int_not_equal(nb_case_get_status(c), NB_CASE_OK);
        assert_true(nb_case_get_message(c)[0] != '\0'); /* why it cannot run */
    }
    nb_report_destroy(rep);
}

/* Guards: a word size other than 32 wrote 8-byte words into a buffer of
 * 4-byte ones (ASan: stack-buffer-overflow). */
static void test_word_helpers_write_nothing_for_other_word_sizes(void **state)
{
    (void)state;
    uint32_t b[4] = {7, 7, 7, 7};
    const uint64_t a[4] = {1, 2, 3, 4};
    static const unsigned bad[] = {0, 16, 48, 128};
    for (size_t i = 0; i < 4; i++) {
        nb_words_from_u64(b, a, 4, bad[i]);
        for (size_t k = 0; k < 4; k++)
            assert_int_equal(b[k], 7);
    }
    uint64_t w[2] = {9, 9};
    nb_words_to_u64(w, b, 2, 16);
    assert_int_equal(w[0], 9);
    nb_words_from_u64(NULL, a, 4, 32); /* nothing to write to */
}

/* Guards: overlapping regions went to memcpy (undefined; ASan
 * memcpy-param-overlap) with NB_OK. */
static void test_overlapping_copy_is_refused(void **state)
{
    (void)state;
    char m[64];
    for (int i = 0; i < 64; i++)
        m[i] = (char)i;
    EXPECT_STATUS(nb_mem_copy(NB_BACKEND_CPU, m, m + 8, 16, NULL), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "overlap"));
    EXPECT_STATUS(nb_mem_copy(NB_BACKEND_CPU, m + 8, m, 16, NULL), NB_ERR_INVALID_ARG);
    assert_int_equal(m[8], 8); /* untouched */
    assert_int_equal(nb_mem_copy(NB_BACKEND_CPU, m, m + 16, 16, NULL), NB_OK); /* adjacent */
    assert_int_equal(m[0], 16);
    EXPECT_STATUS(nb_mem_copy((nb_backend)5, m, m + 32, 8, NULL), NB_ERR_INVALID_ARG);
}

/* Guards: a guard range of SIZE_MAX bytes tried to allocate them and said
 * "out of host memory"; a guard failure was called a "buffer copy". */
static void test_guard_range_outside_its_buffer_is_invalid(void **state)
{
    (void)state;
    nb_buffer *b = NULL;
    assert_int_equal(nb_buffer_create(&b, NB_BACKEND_CPU, 100), NB_OK);
    EXPECT_STATUS(nb_buffer_guard_set(b, 2, SIZE_MAX, NULL), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "nb_buffer_guard_set"));
    size_t changed = 0;
    EXPECT_STATUS(nb_buffer_guard_check(b, 90, 11, &changed, NULL), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "nb_buffer_guard_check"));
    assert_int_equal(nb_buffer_guard_set(b, 90, 10, NULL), NB_OK);
    assert_int_equal(nb_buffer_guard_check(b, 90, 10, &changed, NULL), NB_OK);
    assert_int_equal(changed, 10);
    nb_buffer_destroy(b);
}

/* Guards: nb_ntt_create took a variant that was never registered with word
 * size 16, or 32-bit words with primes of 50 bits, and planned it. */
static void test_create_checks_a_variant_it_was_not_given_by_the_registry(void **state)
{
    (void)state;
    uint64_t q20, q50;
    assert_int_equal(nb_primes_generate(4, 20, 1, NULL, 0, &q20), NB_OK);
    assert_int_equal(nb_primes_generate(4, 50, 1, NULL, 0, &q50), NB_OK);
    nb_ntt_variant w = *nb_ntt_variant_find("cpu-harvey");
    w.name = "x";
    w.word_bits = 16;
    nb_ntt *t = (nb_ntt *)0x1;
    EXPECT_STATUS(nb_ntt_create(&t, &w, 4, &q20, NULL, 1, NULL), NB_ERR_INVALID_ARG);
    assert_null(t);
    nb_ntt_variant w32 = *nb_ntt_variant_find("cpu-harvey32");
    w32.name = "y";
    w32.max_prime_bits = 62;
    EXPECT_STATUS(nb_ntt_create(&t, &w32, 4, &q50, NULL, 1, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_ntt_variant_check(&w32), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ntt_variant_check(nb_ntt_variant_find("cpu-harvey32")), NB_OK);
}

/* Guards: a list value of 2^64 - 1 was written to JSON as -1. */
static void test_list_values_beyond_json_integers_are_refused(void **state)
{
    (void)state;
    nb_case *c = NULL;
    assert_int_equal(nb_case_create(&c, "warm", NB_CACHE_WARM, "v", NB_BACKEND_CPU, "l"), NB_OK);
    const uint64_t big[2] = {5, UINT64_MAX};
    EXPECT_STATUS(nb_case_param_u64_list(c, "l", big, 2), NB_ERR_INVALID_ARG);
    const uint64_t top[1] = {(uint64_t)INT64_MAX};
    assert_int_equal(nb_case_param_u64_list(c, "l", top, 1), NB_OK);
    /* samples counted without their array */
    nb_bench_result r;
    memset(&r, 0, sizeof r);
    r.n_samples = 5;
    EXPECT_STATUS(nb_case_set_result(c, &r), NB_ERR_INVALID_ARG);
    nb_trace t;
    memset(&t, 0, sizeof t);
    t.n_acts = 3;
    EXPECT_STATUS(nb_case_set_trace(c, &t, NULL), NB_ERR_INVALID_ARG);
    nb_case_destroy(c);
}

/* Guards: NaN for --l2-persist passed the option check; an unknown backend
 * was taken for the GPU. */
static void test_nan_and_unknown_enum_values_are_invalid(void **state)
{
    (void)state;
    nb_bench_opts o;
    nb_bench_opts_default(&o);
    o.cache = NB_CACHE_WARM;
    o.l2_persist = NAN;
    EXPECT_STATUS(nb_bench_opts_check(&o), NB_ERR_INVALID_ARG);
    size_t bytes = 0;
    EXPECT_STATUS(nb_cache_bytes((nb_backend)5, &bytes), NB_ERR_INVALID_ARG);
    char path[4];
    setenv("NB_NCU", "/bin/true", 1);
    EXPECT_STATUS(nb_ncu_find(path, sizeof path), NB_ERR_INVALID_ARG); /* would be "/bi" */
    unsetenv("NB_NCU");
    char ver[32];
    EXPECT_STATUS(nb_ncu_version(NULL, 1, ver, sizeof ver), NB_ERR_INVALID_ARG);
}

/* Guards: each of these crashed on a NULL argument. */
static void test_accessors_take_null(void **state)
{
    (void)state;
    EXPECT_STATUS(nb_host_llc_env(NULL), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_set_error(NB_ERR_IO, NULL), NB_ERR_IO);
    assert_string_equal(nb_last_error(), "");
    assert_int_equal(nb_ckks_digits(NULL, 3), 0);
    assert_int_equal(nb_ckks_key_limbs(NULL), 0);
    size_t first = 9, count = 9;
    nb_ckks_digit_range(NULL, 0, 0, &first, &count);
    assert_int_equal(first + count, 0);
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "test-tiny"), NB_OK);
    nb_ckks_digit_range(p, 0, 0, NULL, NULL);
    nb_ckks_params_destroy(p);
    nb_report_overhead(NULL, NULL);
    nb_overhead ov;
    ov.samples = 9;
    nb_report_overhead(NULL, &ov);
    assert_int_equal(ov.samples, 0);
    assert_true(nb_log_q(NULL, 3) == 0.0);
    assert_string_equal(nb_stage_rounding_suffix(NULL), "");
    char label[8] = "x";
    nb_stage_config cfg = {0};
    nb_stage_case_label(label, sizeof label, NULL, &cfg);
    assert_string_equal(label, "");
    assert_true(isnan(nb_profile_time_ns(NULL)) && isnan(nb_profile_dram_frac(NULL)) &&
                isnan(nb_profile_issue_frac(NULL)));
    nb_bound b;
    nb_bound_classify(1e-6, 1e6, 1e6, 64, 1, NULL, &b);
    assert_int_equal(b.cls, NB_BOUND_UNKNOWN);
    nb_bound_refine(NULL, 0.5, 0.5);
    nb_ceilings_default(NULL, 1e12, 132, 1980);
    nb_ceilings_overlay(NULL, NULL);
    nb_rng_seed(NULL, 1);
    long long total = 0;
    nb_parse_proc_stat("cpu  1 2 3 4 5 6 7 8\nprocs_running 2\n", &total, NULL, NULL);
    assert_int_equal(total, 36);
    nb_contention cont;
    nb_contention_judge(NULL, NULL, 1, 1, &cont);
    assert_int_equal(cont.contended, 0);
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ntt_tier_with_a_wrapping_limb_count_records_a_failed_case),
        cmocka_unit_test(test_word_helpers_write_nothing_for_other_word_sizes),
        cmocka_unit_test(test_overlapping_copy_is_refused),
        cmocka_unit_test(test_guard_range_outside_its_buffer_is_invalid),
        cmocka_unit_test(test_create_checks_a_variant_it_was_not_given_by_the_registry),
        cmocka_unit_test(test_list_values_beyond_json_integers_are_refused),
        cmocka_unit_test(test_nan_and_unknown_enum_values_are_invalid),
        cmocka_unit_test(test_accessors_take_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

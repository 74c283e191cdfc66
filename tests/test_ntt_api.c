/* Bad input everywhere in the ntt/ public API: every call returns the right
 * nb_status with a non-empty nb_last_error() message and never crashes or
 * touches caller data. Also the variant registry: registration of malformed
 * variants, duplicates, lookup of unknown names, and that a registered
 * plug-in variant is reached through nb_ntt only with validated calls. */
#include <string.h>

#include "ntt/arith.h"
#include "reference/reference.h"
#include "testutil.h"

static const nb_ntt_variant *harvey(void)
{
    const nb_ntt_variant *v = nb_ntt_variant_find("cpu-harvey");
    assert_non_null(v);
    return v;
}

static uint64_t prime_for(unsigned log_n, unsigned bits)
{
    uint64_t q;
    assert_int_equal(nb_primes_generate(log_n, bits, 1, NULL, 0, &q), NB_OK);
    return q;
}

/* smallest prime = 1 mod 2N at or above 2^62 */
static uint64_t prime_above_2_62(unsigned log_n)
{
    const uint64_t m = 2ull << log_n;
    for (uint64_t c = (1ull << 62) + 1;; c += m)
        if (nb_is_prime(c))
            return c;
}

/* a prime = 1 mod N but not 1 mod 2N */
static uint64_t prime_1_mod_n_only(unsigned log_n)
{
    uint64_t q[64];
    assert_int_equal(nb_primes_generate(log_n - 1, 40, 64, NULL, 0, q), NB_OK);
    for (int i = 0; i < 64; i++)
        if (q[i] % (2ull << log_n) != 1)
            return q[i];
    fail_msg("no prime = N+1 mod 2N among 64");
    return 0;
}

/* ---- nb_ntt_create ---- */

static void test_create_rejects_null_arguments_and_zero_limbs(void **state)
{
    (void)state;
    const uint64_t q = prime_for(10, 50);
    nb_ntt *ntt = (nb_ntt *)0x1;
    EXPECT_STATUS(nb_ntt_create(NULL, harvey(), 10, &q, NULL, 1, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_ntt_create(&ntt, NULL, 10, &q, NULL, 1, NULL), NB_ERR_INVALID_ARG);
    ntt = (nb_ntt *)0x1;
    EXPECT_STATUS(nb_ntt_create(&ntt, harvey(), 10, NULL, NULL, 1, NULL), NB_ERR_INVALID_ARG);
    assert_null(ntt);
    ntt = (nb_ntt *)0x1;
    EXPECT_STATUS(nb_ntt_create(&ntt, harvey(), 10, &q, NULL, 0, NULL), NB_ERR_INVALID_ARG);
    assert_null(ntt);
}

static void test_create_rejects_log_n_out_of_range(void **state)
{
    (void)state;
    const uint64_t q = prime_for(17, 60); /* NTT-friendly for every log_n <= 17 */
    const unsigned bad[] = {0, 18, 19, 32, 64, 1000, ~0u};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        nb_ntt *ntt = (nb_ntt *)0x1;
        EXPECT_STATUS(nb_ntt_create(&ntt, harvey(), bad[i], &q, NULL, 1, NULL),
                      NB_ERR_INVALID_ARG);
        assert_null(ntt);
    }
    for (unsigned log_n = 1; log_n <= 17; log_n++) {
        nb_ntt *ntt = NULL;
        EXPECT_STATUS(nb_ntt_create(&ntt, harvey(), log_n, &q, NULL, 1, NULL), NB_OK);
        nb_ntt_destroy(ntt);
    }
}

static void test_create_rejects_bad_primes(void **state)
{
    (void)state;
    const unsigned log_n = 12;
    const uint64_t good = prime_for(log_n, 55), m = 2ull << log_n;
    const uint64_t bad[] = {
        0, 1, 2, 3, 4,
        (m + 1) * (2 * m + 1),     /* composite, = 1 mod 2N */
        good + 2,                  /* not = 1 mod 2N */
        1000000007ull,             /* prime, not NTT-friendly */
        prime_1_mod_n_only(log_n), /* = N + 1 mod 2N */
        prime_above_2_62(log_n),   /* NTT prime >= 2^62 */
        1ull << 62,                /* the bound itself */
        ~0ull,                     /* 2^64 - 1 */
        18446744073709551557ull,   /* largest 64-bit prime */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        /* alone, and as the last limb of an otherwise good batch */
        uint64_t qs[3] = {good, prime_for(log_n, 40), bad[i]};
        nb_ntt *ntt = (nb_ntt *)0x1;
        EXPECT_STATUS(nb_ntt_create(&ntt, harvey(), log_n, &bad[i], NULL, 1, NULL),
                      NB_ERR_INVALID_ARG);
        assert_null(ntt);
        EXPECT_STATUS(nb_ntt_create(&ntt, harvey(), log_n, qs, NULL, 3, NULL),
                      NB_ERR_INVALID_ARG);
        assert_null(ntt);
    }
}

static void test_create_rejects_bad_roots(void **state)
{
    (void)state;
    const unsigned log_n = 8;
    const uint64_t q = prime_for(log_n, 45);
    uint64_t psi;
    assert_int_equal(nb_root_minimal(q, log_n, &psi), NB_OK);
    const uint64_t bad[] = {0, 1, q - 1, q, q + psi, ~0ull, nb_pow_mod(psi, 2, q),
                            nb_pow_mod(psi, 256, q) /* = -1 */, 2 /* not a root (checked) */};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (nb_root_validate(bad[i], q, log_n) == NB_OK)
            continue; /* 2 might be a primitive root by chance */
        nb_ntt *ntt = (nb_ntt *)0x1;
        EXPECT_STATUS(nb_ntt_create(&ntt, harvey(), log_n, &q, &bad[i], 1, NULL),
                      NB_ERR_INVALID_ARG);
        assert_null(ntt);
        /* second limb bad */
        uint64_t qs2[2] = {q, q}, ps2[2] = {psi, bad[i]};
        EXPECT_STATUS(nb_ntt_create(&ntt, harvey(), log_n, qs2, ps2, 2, NULL),
                      NB_ERR_INVALID_ARG);
        assert_null(ntt);
    }
    /* a good user root is accepted and kept */
    const uint64_t psi3 = nb_pow_mod(psi, 3, q);
    nb_ntt *ntt = NULL;
    EXPECT_STATUS(nb_ntt_create(&ntt, harvey(), log_n, &q, &psi3, 1, NULL), NB_OK);
    assert_int_equal(nb_ntt_get_tables(ntt)->psi[0], psi3);
    nb_ntt_destroy(ntt);
}

/* ---- nb_ntt_forward / nb_ntt_inverse ---- */

/* cpu-harvey over four fresh `bits`-bit primes q[0..4) of N = 64. */
static nb_ntt *harvey_64x4(uint64_t q[4], unsigned bits)
{
    assert_int_equal(nb_primes_generate(6, bits, 4, NULL, 0, q), NB_OK);
    nb_ntt *ntt = NULL;
    assert_int_equal(nb_ntt_create(&ntt, harvey(), 6, q, NULL, 4, NULL), NB_OK);
    return ntt;
}

static void test_transform_calls_reject_bad_ranges_and_leave_data(void **state)
{
    (void)state;
    const size_t n = 64, L = 4;
    uint64_t q[4];
    nb_ntt *ntt = harvey_64x4(q, 40);
    uint64_t data[4 * 64], copy[4 * 64];
    nb_test_fill_residues(data, n, q, L);
    memcpy(copy, data, sizeof data);
    nb_status (*fn[2])(nb_ntt *, void *, size_t, size_t, void *) = {nb_ntt_forward,
                                                                         nb_ntt_inverse};
    for (int d = 0; d < 2; d++) {
        EXPECT_STATUS(fn[d](NULL, data, 0, 1, NULL), NB_ERR_INVALID_ARG);
        EXPECT_STATUS(fn[d](ntt, NULL, 0, 1, NULL), NB_ERR_INVALID_ARG);
        EXPECT_STATUS(fn[d](ntt, data, 0, 0, NULL), NB_ERR_INVALID_ARG);
        EXPECT_STATUS(fn[d](ntt, data, 0, 5, NULL), NB_ERR_INVALID_ARG);
        EXPECT_STATUS(fn[d](ntt, data, 4, 1, NULL), NB_ERR_INVALID_ARG);
        EXPECT_STATUS(fn[d](ntt, data, 3, 2, NULL), NB_ERR_INVALID_ARG);
        EXPECT_STATUS(fn[d](ntt, data, 1, SIZE_MAX, NULL), NB_ERR_INVALID_ARG); /* overflow */
        EXPECT_STATUS(fn[d](ntt, data, SIZE_MAX, 2, NULL), NB_ERR_INVALID_ARG);
        EXPECT_STATUS(fn[d](ntt, data, SIZE_MAX, 1, NULL), NB_ERR_INVALID_ARG);
        assert_memory_equal(data, copy, sizeof data);
    }
    /* the boundary itself is fine */
    EXPECT_STATUS(nb_ntt_forward(ntt, data + 3 * n, 3, 1, NULL), NB_OK);
    EXPECT_STATUS(nb_ntt_forward(ntt, data, 0, 4, NULL), NB_OK);
    nb_ntt_destroy(ntt);
}

/* Out-of-place calls (a variant without them: copy + in place) equal the
 * in-place transform of a copy, leave src unchanged, write every word of the
 * range in dst and nothing outside it; overlap and bad ranges are refused. */
static void test_out_of_place_calls_match_in_place_and_leave_src(void **state)
{
    (void)state;
    const size_t n = 64, L = 4;
    uint64_t q[4];
    nb_ntt *ntt = harvey_64x4(q, 50);
    assert_int_equal(nb_ntt_out_of_place(ntt), 0);
    static uint64_t src[4 * 64], keep[4 * 64], dst[4 * 64], want[4 * 64];
    nb_status (*in_place[2])(nb_ntt *, void *, size_t, size_t, void *) = {nb_ntt_forward,
                                                                              nb_ntt_inverse};
    nb_status (*to[2])(nb_ntt *, void *, const void *, size_t, size_t, void *) = {
        nb_ntt_forward_to, nb_ntt_inverse_to};
    for (int d = 0; d < 2; d++) {
        nb_test_fill_residues(src, n, q, L);
        memcpy(keep, src, sizeof src);
        memset(dst, 0xA5, sizeof dst);
        memcpy(want, dst, sizeof dst);
        memcpy(want + n, src + n, 2 * n * sizeof *src);
        assert_int_equal(in_place[d](ntt, want + n, 1, 2, NULL), NB_OK);
        assert_int_equal(to[d](ntt, dst + n, src + n, 1, 2, NULL), NB_OK);
        assert_memory_equal(dst, want, sizeof dst); /* limbs 1, 2 written; 0, 3 poison */
        assert_memory_equal(src, keep, sizeof src);
        assert_int_equal(to[d](ntt, src, src, 0, L, NULL), NB_OK); /* dst == src: in place */
        memcpy(want, keep, sizeof keep);
        assert_int_equal(in_place[d](ntt, want, 0, L, NULL), NB_OK);
        assert_memory_equal(src, want, sizeof src);
        memcpy(keep, src, sizeof src);
        EXPECT_STATUS(to[d](ntt, src + n, src, 0, 2, NULL), NB_ERR_INVALID_ARG); /* overlap */
        EXPECT_STATUS(to[d](ntt, src, src + n, 0, 2, NULL), NB_ERR_INVALID_ARG);
        EXPECT_STATUS(to[d](ntt, NULL, src, 0, 1, NULL), NB_ERR_INVALID_ARG);
        EXPECT_STATUS(to[d](ntt, dst, NULL, 0, 1, NULL), NB_ERR_INVALID_ARG);
        EXPECT_STATUS(to[d](ntt, dst, src, 3, 2, NULL), NB_ERR_INVALID_ARG);
        EXPECT_STATUS(to[d](NULL, dst, src, 0, 1, NULL), NB_ERR_INVALID_ARG);
        assert_memory_equal(src, keep, sizeof src);
    }
    nb_ntt_destroy(ntt);
}

static void test_destroy_and_getters_accept_null(void **state)
{
    (void)state;
    nb_ntt_destroy(NULL);
    nb_ntt_tables_destroy(NULL);
    assert_null(nb_ntt_get_tables(NULL));
    assert_null(nb_ntt_get_variant(NULL));
    harvey()->plan_destroy(NULL);
}

/* ---- nb_ntt_tables_create ---- */

static void test_tables_create_rejects_bad_arguments(void **state)
{
    (void)state;
    const unsigned log_n = 5;
    const uint64_t q = prime_for(log_n, 30);
    uint64_t psi;
    assert_int_equal(nb_root_minimal(q, log_n, &psi), NB_OK);
    nb_ntt_tables *t = (nb_ntt_tables *)0x1;
    EXPECT_STATUS(nb_ntt_tables_create(NULL, log_n, &q, NULL, 1), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_ntt_tables_create(&t, log_n, NULL, NULL, 1), NB_ERR_INVALID_ARG);
    t = (nb_ntt_tables *)0x1;
    EXPECT_STATUS(nb_ntt_tables_create(&t, log_n, &q, NULL, 0), NB_ERR_INVALID_ARG);
    assert_null(t);
    EXPECT_STATUS(nb_ntt_tables_create(&t, 0, &q, NULL, 1), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_ntt_tables_create(&t, 18, &q, NULL, 1), NB_ERR_INVALID_ARG);
    const uint64_t q2 = q + 2, bad_psi = nb_pow_mod(psi, 2, q);
    EXPECT_STATUS(nb_ntt_tables_create(&t, log_n, &q2, NULL, 1), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_ntt_tables_create(&t, log_n, &q, &bad_psi, 1), NB_ERR_INVALID_ARG);
    assert_null(t);
    EXPECT_STATUS(nb_ntt_tables_create(&t, log_n, &q, &psi, 1), NB_OK);
    nb_ntt_tables_destroy(t);
}

/* ---- the registry ---- */

static int calls_forward, calls_inverse;

static nb_status ok_plan_create(void **plan, const nb_ntt_tables *t, void *stream)
{
    (void)stream;
    *plan = (void *)t;
    return NB_OK;
}
static void ok_plan_destroy(void *plan) { (void)plan; }

/* A plug-in variant built on the reference: per-limb GMP transforms. It also
 * asserts the guarantees the wrapper promises to variants. */
static nb_status ref_forward(void *plan, void *words, size_t first, size_t count, void *s)
{
    uint64_t *data = (uint64_t *)words;
    (void)s;
    const nb_ntt_tables *t = plan;
    assert_non_null(data);
    assert_true(count >= 1 && first + count <= t->limbs);
    calls_forward++;
    for (size_t k = 0; k < count; k++)
        NB_TRY(nb_ref_ntt_forward(data + k * t->n, t->log_n, t->q[first + k], t->psi[first + k]));
    return NB_OK;
}
static nb_status ref_inverse(void *plan, void *words, size_t first, size_t count, void *s)
{
    uint64_t *data = (uint64_t *)words;
    (void)s;
    const nb_ntt_tables *t = plan;
    assert_non_null(data);
    assert_true(count >= 1 && first + count <= t->limbs);
    calls_inverse++;
    for (size_t k = 0; k < count; k++)
        NB_TRY(nb_ref_ntt_inverse(data + k * t->n, t->log_n, t->q[first + k], t->psi[first + k]));
    return NB_OK;
}

static nb_status failing_plan_create(void **plan, const nb_ntt_tables *t, void *stream)
{
    (void)plan, (void)t, (void)stream;
    return nb_set_error(NB_ERR_OUT_OF_MEMORY, "test: plan allocation failed");
}

static const nb_ntt_variant good_template = {
    .name = "test-ref",
    .description = "reference NTT registered by test_ntt_api",
    .backend = NB_BACKEND_CPU,
    .min_log_n = 3,
    .max_log_n = 9,
    .word_bits = 64,
    .max_prime_bits = 40,
    .plan_create = ok_plan_create,
    .plan_destroy = ok_plan_destroy,
    .forward = ref_forward,
    .inverse = ref_inverse,
};

static nb_status unused_to(void *plan, void *dst_words, const void *src_words, size_t first,
                          size_t count, void *stream)
{
    uint64_t *dst = (uint64_t *)dst_words;
    const uint64_t *src = (const uint64_t *)src_words;
    (void)plan, (void)dst, (void)src, (void)first, (void)count, (void)stream;
    return NB_OK;
}

static void test_register_rejects_malformed_variants(void **state)
{
    (void)state;
    const size_t before = nb_ntt_variant_count();
    /* each malformed copy must live for the program (the registry keeps
     * pointers to accepted ones); none of these is accepted */
    static nb_ntt_variant v[17];
    for (int i = 0; i < 17; i++) {
        v[i] = good_template;
        v[i].name = "test-malformed";
    }
    v[0].name = NULL;
    v[1].name = "";
    v[2].description = NULL;
    v[3].plan_create = NULL;
    v[4].plan_destroy = NULL;
    v[5].forward = NULL;
    v[6].inverse = NULL;
    v[7].min_log_n = 0;
    v[8].max_log_n = 18;
    v[9].min_log_n = 10, v[9].max_log_n = 9;
    v[10].max_prime_bits = 63;
    v[11].max_prime_bits = 1;
    v[12].backend = (nb_backend)7;
    v[13].name = "cpu-harvey"; /* duplicate of a built-in */
    v[15].forward_to = unused_to; /* out-of-place entries: both or neither */
    v[16].inverse_to = unused_to;
    for (int i = 0; i < 17; i++)
        if (i != 14)
            EXPECT_STATUS(nb_ntt_variant_register(&v[i]), NB_ERR_INVALID_ARG);
    v[14].word_bits = 16; /* 64 and 32 are the word sizes */
    EXPECT_STATUS(nb_ntt_variant_register(&v[14]), NB_ERR_INVALID_ARG);
    v[14].word_bits = 32; /* 32-bit words serve primes below 2^31 at most */
    v[14].max_prime_bits = 32;
    EXPECT_STATUS(nb_ntt_variant_register(&v[14]), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_ntt_variant_register(NULL), NB_ERR_INVALID_ARG);
    /* names are given in comma lists and written unquoted: a comma, a blank
     * or a control character would make one unselectable or split a row */
    static const char *const bad_names[] = {"a,b", "a b", "bad\nname", "tab\tname"};
    for (int i = 0; i < 4; i++) {
        v[0] = good_template;
        v[0].name = bad_names[i];
        EXPECT_STATUS(nb_ntt_variant_register(&v[0]), NB_ERR_INVALID_ARG);
        assert_non_null(strstr(nb_last_error(), "letters, digits"));
    }
    assert_int_equal(nb_ntt_variant_count(), before);
    assert_null(nb_ntt_variant_find("test-malformed"));
}

static void test_find_unknown_name_returns_null_with_message(void **state)
{
    (void)state;
    nb_clear_error();
    assert_null(nb_ntt_variant_find("no-such-variant"));
    assert_non_null(strstr(nb_last_error(), "no-such-variant"));
    nb_clear_error();
    assert_null(nb_ntt_variant_find(NULL));
    assert_true(strlen(nb_last_error()) > 0);
    nb_clear_error();
    assert_null(nb_ntt_variant_find(""));
    assert_true(strlen(nb_last_error()) > 0);
    assert_null(nb_ntt_variant_find("CPU-HARVEY")); /* names are exact */
    assert_null(nb_ntt_variant_at(nb_ntt_variant_count()));
    assert_null(nb_ntt_variant_at(SIZE_MAX));
}

static void test_builtins_are_listed_and_well_formed(void **state)
{
    (void)state;
    const size_t n = nb_ntt_variant_count();
    assert_true(n >= 1);
    assert_ptr_equal(nb_ntt_variant_at(0), harvey()); /* built-ins first */
    for (size_t i = 0; i < n; i++) {
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        assert_non_null(v);
        assert_ptr_equal(nb_ntt_variant_find(v->name), v);
        assert_true(v->min_log_n >= NB_MIN_LOG_N && v->max_log_n <= NB_MAX_LOG_N);
        assert_true(v->min_log_n <= v->max_log_n);
        assert_true(v->word_bits == 64 || v->word_bits == 32);
        assert_true(v->max_prime_bits <=
                    (v->word_bits == 32 ? NB_MAX_PRIME_BITS_32 : NB_MAX_PRIME_BITS));
        assert_true(strlen(v->description) > 0);
        assert_non_null(nb_backend_name(v->backend));
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(nb_ntt_variant_at(j)->name, v->name);
    }
    assert_string_equal(nb_backend_name(NB_BACKEND_CPU), "cpu");
    assert_string_equal(nb_backend_name(NB_BACKEND_GPU), "gpu");
    assert_int_equal(harvey()->min_log_n, 1);
    assert_int_equal(harvey()->max_log_n, 17);
    assert_int_equal(harvey()->max_prime_bits, NB_MAX_PRIME_BITS);
}

static void test_registered_variant_is_found_and_served_only_valid_calls(void **state)
{
    (void)state;
    static nb_ntt_variant mine;
    mine = good_template;
    const size_t before = nb_ntt_variant_count();
    EXPECT_STATUS(nb_ntt_variant_register(&mine), NB_OK);
    assert_int_equal(nb_ntt_variant_count(), before + 1);
    assert_ptr_equal(nb_ntt_variant_at(before), &mine);
    assert_ptr_equal(nb_ntt_variant_find("test-ref"), &mine);
    /* the same struct or name a second time is a duplicate */
    EXPECT_STATUS(nb_ntt_variant_register(&mine), NB_ERR_INVALID_ARG);
    static nb_ntt_variant twin;
    twin = good_template;
    EXPECT_STATUS(nb_ntt_variant_register(&twin), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ntt_variant_count(), before + 1);

    /* the variant's ranges are enforced by nb_ntt_create as UNSUPPORTED */
    nb_ntt *ntt = (nb_ntt *)0x1;
    const uint64_t q40 = prime_for(10, 40), q41 = prime_for(10, 41); /* fine for log_n <= 10 */
    EXPECT_STATUS(nb_ntt_create(&ntt, &mine, 2, &q40, NULL, 1, NULL), NB_ERR_UNSUPPORTED);
    assert_null(ntt);
    EXPECT_STATUS(nb_ntt_create(&ntt, &mine, 10, &q40, NULL, 1, NULL), NB_ERR_UNSUPPORTED);
    EXPECT_STATUS(nb_ntt_create(&ntt, &mine, 9, &q41, NULL, 1, NULL), NB_ERR_UNSUPPORTED);
    /* ... while out-of-contract requests are still INVALID_ARG */
    EXPECT_STATUS(nb_ntt_create(&ntt, &mine, 18, &q40, NULL, 1, NULL), NB_ERR_INVALID_ARG);

    /* a valid plan: results equal the built-in variant's */
    const unsigned log_n = 9;
    const size_t n = 512;
    uint64_t q[3], a[3 * 512], b[3 * 512];
    assert_int_equal(nb_primes_generate(log_n, 40, 3, NULL, 0, q), NB_OK);
    nb_ntt *ref = NULL, *fast = NULL;
    EXPECT_STATUS(nb_ntt_create(&ref, &mine, log_n, q, NULL, 3, NULL), NB_OK);
    EXPECT_STATUS(nb_ntt_create(&fast, harvey(), log_n, q, NULL, 3, NULL), NB_OK);
    assert_ptr_equal(nb_ntt_get_variant(ref), &mine);
    nb_test_fill_residues(a, n, q, 3);
    memcpy(b, a, sizeof a);
    calls_forward = calls_inverse = 0;
    EXPECT_STATUS(nb_ntt_forward(ref, a + n, 1, 2, NULL), NB_OK);
    EXPECT_STATUS(nb_ntt_forward(fast, b + n, 1, 2, NULL), NB_OK);
    assert_memory_equal(a, b, sizeof a);
    EXPECT_STATUS(nb_ntt_inverse(ref, a, 0, 3, NULL), NB_OK);
    EXPECT_STATUS(nb_ntt_inverse(fast, b, 0, 3, NULL), NB_OK);
    assert_memory_equal(a, b, sizeof a);
    /* bad calls are stopped by the wrapper: the variant never sees them */
    EXPECT_STATUS(nb_ntt_forward(ref, a, 2, 2, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_ntt_inverse(ref, NULL, 0, 1, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_ntt_inverse(ref, a, 0, 0, NULL), NB_ERR_INVALID_ARG);
    assert_int_equal(calls_forward, 1);
    assert_int_equal(calls_inverse, 1);
    nb_ntt_destroy(ref);
    nb_ntt_destroy(fast);
}

static void test_plan_failure_propagates_from_create(void **state)
{
    (void)state;
    static nb_ntt_variant failing;
    failing = good_template;
    failing.name = "test-failing-plan";
    failing.plan_create = failing_plan_create;
    EXPECT_STATUS(nb_ntt_variant_register(&failing), NB_OK);
    const uint64_t q = prime_for(5, 30);
    nb_ntt *ntt = (nb_ntt *)0x1;
    EXPECT_STATUS(nb_ntt_create(&ntt, &failing, 5, &q, NULL, 1, NULL), NB_ERR_OUT_OF_MEMORY);
    assert_null(ntt);
    assert_non_null(strstr(nb_last_error(), "plan allocation failed"));
}

static void test_registry_full_is_an_error(void **state)
{
    (void)state;
    /* fill the registry: the first refusal must be an error, not a crash */
    static nb_ntt_variant many[256];
    static char names[256][32];
    size_t accepted = 0;
    nb_status s = NB_OK;
    for (size_t i = 0; i < 256 && s == NB_OK; i++) {
        many[i] = good_template;
        snprintf(names[i], sizeof names[i], "test-fill-%zu", i);
        many[i].name = names[i];
        nb_clear_error();
        s = nb_ntt_variant_register(&many[i]);
        accepted += s == NB_OK;
    }
    assert_int_not_equal(s, NB_OK);
    assert_true(strlen(nb_last_error()) > 0);
    assert_true(accepted > 0);
    /* everything accepted is still findable */
    for (size_t i = 0; i < accepted; i++)
        assert_ptr_equal(nb_ntt_variant_find(names[i]), &many[i]);
}

/* ---- a second transform on built tables ---- */

static void test_create_on_tables_borrows_the_tables_and_agrees_with_create(void **state)
{
    (void)state;
    const unsigned log_n = 8;
    const size_t n = (size_t)1 << log_n;
    uint64_t q[2];
    assert_int_equal(nb_primes_generate(log_n, 40, 2, NULL, 0, q), NB_OK);
    nb_ntt *a = NULL, *b = NULL;
    assert_int_equal(nb_ntt_create(&a, harvey(), log_n, q, NULL, 2, NULL), NB_OK);
    const nb_ntt_tables *t = nb_ntt_get_tables(a);
    EXPECT_STATUS(nb_ntt_create_on_tables(&b, &good_template, t, NULL), NB_OK);
    assert_ptr_equal(nb_ntt_get_tables(b), t);
    uint64_t x[2 * 256], y[2 * 256], in[2 * 256];
    nb_test_fill_residues(in, n, q, 2);
    memcpy(x, in, sizeof x);
    memcpy(y, in, sizeof y);
    assert_int_equal(nb_ntt_forward(a, x, 0, 2, NULL), NB_OK);
    assert_int_equal(nb_ntt_forward(b, y, 0, 2, NULL), NB_OK);
    assert_memory_equal(x, y, sizeof x);
    nb_ntt_destroy(b); /* must not free the borrowed tables */
    memcpy(y, in, sizeof y);
    assert_int_equal(nb_ntt_forward(a, y, 0, 2, NULL), NB_OK);
    assert_memory_equal(x, y, sizeof x);
    nb_ntt_destroy(a);
}

static void test_create_on_tables_rejects_null_and_unsupported_sizes(void **state)
{
    (void)state;
    const unsigned log_n = 10; /* above good_template's max_log_n = 9 */
    const uint64_t q = prime_for(log_n, 40);
    nb_ntt *a = NULL, *b = (nb_ntt *)0x1;
    assert_int_equal(nb_ntt_create(&a, harvey(), log_n, &q, NULL, 1, NULL), NB_OK);
    EXPECT_STATUS(nb_ntt_create_on_tables(&b, &good_template, nb_ntt_get_tables(a), NULL),
                  NB_ERR_UNSUPPORTED);
    assert_null(b);
    EXPECT_STATUS(nb_ntt_create_on_tables(&b, NULL, nb_ntt_get_tables(a), NULL),
                  NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_ntt_create_on_tables(&b, harvey(), NULL, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_ntt_create_on_tables(NULL, harvey(), nb_ntt_get_tables(a), NULL),
                  NB_ERR_INVALID_ARG);
    nb_ntt_destroy(a);
}

static void test_gpu_variants_refuse_to_plan_without_device(void **state)
{
    (void)state;
    if (nb_gpu_count() > 0)
        skip(); /* only meaningful on a machine without a usable GPU */
    for (size_t i = 0; i < nb_ntt_variant_count(); i++) {
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        if (v->backend != NB_BACKEND_GPU)
            continue;
        const unsigned log_n = v->max_log_n;
        const uint64_t q = prime_for(log_n, v->max_prime_bits);
        nb_ntt *ntt = (nb_ntt *)0x1;
        EXPECT_STATUS(nb_ntt_create(&ntt, v, log_n, &q, NULL, 1, NULL), NB_ERR_NO_DEVICE);
        assert_null(ntt);
    }
}

int main(void)
{
    nb_test_seed_init();
    if (getenv("NB_TEST_FILTER")) /* run only the tests matching this pattern */
        cmocka_set_test_filter(getenv("NB_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_rejects_null_arguments_and_zero_limbs),
        cmocka_unit_test(test_create_rejects_log_n_out_of_range),
        cmocka_unit_test(test_create_rejects_bad_primes),
        cmocka_unit_test(test_create_rejects_bad_roots),
        cmocka_unit_test(test_transform_calls_reject_bad_ranges_and_leave_data),
        cmocka_unit_test(test_out_of_place_calls_match_in_place_and_leave_src),
        cmocka_unit_test(test_destroy_and_getters_accept_null),
        cmocka_unit_test(test_tables_create_rejects_bad_arguments),
        cmocka_unit_test(test_builtins_are_listed_and_well_formed),
        cmocka_unit_test(test_register_rejects_malformed_variants),
        cmocka_unit_test(test_find_unknown_name_returns_null_with_message),
        cmocka_unit_test(test_registered_variant_is_found_and_served_only_valid_calls),
        cmocka_unit_test(test_plan_failure_propagates_from_create),
        cmocka_unit_test(test_create_on_tables_borrows_the_tables_and_agrees_with_create),
        cmocka_unit_test(test_create_on_tables_rejects_null_and_unsupported_sizes),
        cmocka_unit_test(test_gpu_variants_refuse_to_plan_without_device),
        cmocka_unit_test(test_registry_full_is_an_error), /* last: fills the registry */
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

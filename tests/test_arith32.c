/* The 32-bit word functions of ntt/arith.h against GMP on random values over
 * their full documented input domain (plus the domain's edges), for primes
 * of every size from 2 to 31 bits: NTT primes from nb_primes_generate (the
 * largest below 2^31 and 2^30 for the largest N included), random non-NTT
 * primes of each size and small ones. Output ranges are checked too. The
 * 64-bit functions are test_arith.c's. */
#include <gmp.h>

#include "ntt/arith.h"
#include "ntt/primes.h"
#include "gmputil.h"
#include "testutil.h"

#define MAX_PRIMES 160
static uint32_t primes[MAX_PRIMES];
static size_t n_primes;

#define SAMPLES 20000

static void add_prime(uint64_t q)
{
    for (size_t i = 0; i < n_primes; i++)
        if (primes[i] == q)
            return;
    assert_true(n_primes < MAX_PRIMES);
    primes[n_primes++] = (uint32_t)q;
}

static int setup_primes(void **state)
{
    (void)state;
    uint64_t out[2];
    for (unsigned bits = 3; bits <= 31; bits++)
        if (nb_primes_generate(1, bits, 2, NULL, 0, out) == NB_OK) {
            add_prime(out[0]);
            add_prime(out[1]);
        }
    for (unsigned bits = 30; bits <= 31; bits++) { /* the edges of both butterfly families */
        if (nb_primes_generate(17, bits, 2, NULL, 0, out) != NB_OK)
            return -1;
        add_prime(out[0]);
        add_prime(out[1]);
    }
    mpz_t z;
    mpz_init(z);
    for (unsigned bits = 2; bits <= 31; bits++) {
        for (;;) {
            const uint64_t lo = 1ull << (bits - 1);
            mpz_set_ui(z, lo + nb_test_rand_below(lo));
            mpz_nextprime(z, z);
            if (mpz_sizeinbase(z, 2) == bits && mpz_cmp_ui(z, 2) > 0)
                break;
        }
        add_prime(mpz_get_ui(z));
    }
    uint64_t p = (1ull << 31) - 1; /* the largest prime below 2^31 of any kind */
    while (!gmp_is_prime(p))
        p -= 2;
    add_prime(p);
    mpz_clear(z);
    const uint32_t small[] = {3, 5, 7, 17, 97, 257, 7681, 12289, 65537};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
        add_prime(small[i]);
    return 0;
}

/* A value in [0, bound) (bound in [1, 2^32]): uniform, or one time in four
 * next to 0, the top, or a multiple of q up to 4q. */
static uint32_t sample_below(uint64_t bound, uint32_t q)
{
    const uint64_t r = nb_test_rand();
    if ((r & 3) != 0)
        return (uint32_t)nb_test_rand_below(bound);
    const uint64_t k = (r >> 2) % 6, d = (r >> 8) % 3;
    const uint64_t v = k == 0 ? d : k == 1 ? bound - 1 - d : (k - 1) * (uint64_t)q - 1 + d;
    return (uint32_t)(v < bound ? v : bound - 1);
}

#define CHECK(cond, fn, q, a, b)                                                          \
    do {                                                                                  \
        if (!(cond))                                                                      \
            nb_test_fail("%s: q=%" PRIu32 " a=%" PRIu32 " b=%" PRIu32 ": %s", fn,            \
                         (uint32_t)(q), (uint32_t)(a), (uint32_t)(b), #cond);             \
    } while (0)

static void test_prime_list_covers_every_size_and_both_edges(void **state)
{
    (void)state;
    unsigned seen = 0;
    for (size_t i = 0; i < n_primes; i++) {
        assert_true(gmp_is_prime(primes[i]));
        seen |= 1u << (64 - __builtin_clzll(primes[i]) - 1);
    }
    assert_int_equal(seen, 0x7ffffffeu); /* bits 2..31 */
    assert_int_equal(NB_MAX_PRIME_BITS_32, 31);
    assert_int_equal(NB_LAZY4_PRIME_BITS_32, 30);
}

static void test_mulhi32_equals_the_high_word_of_the_product(void **state)
{
    (void)state;
    for (int i = 0; i < 16 * SAMPLES; i++) {
        const uint32_t a = (uint32_t)nb_test_rand(), b = i ? (uint32_t)nb_test_rand() : ~0u;
        CHECK(nb_mulhi32(a, b) == (uint32_t)(((uint64_t)a * b) >> 32), "nb_mulhi32", 0, a, b);
    }
}

static void test_csub32_and_reductions_equal_gmp_remainder(void **state)
{
    (void)state;
    for (size_t p = 0; p < n_primes; p++) {
        const uint32_t q = primes[p];
        for (int i = 0; i < SAMPLES; i++) {
            const uint32_t x = i == 0 ? 2 * q - 1 : sample_below(2ull * q, q);
            CHECK(nb_csub32(x, q) == (x >= q ? x - q : x), "nb_csub32", q, x, 0);
            CHECK(nb_reduce32_2q(x, q) == gmp_mod(x, q), "nb_reduce32_2q", q, x, 0);
            if (q >> NB_LAZY4_PRIME_BITS_32)
                continue;
            const uint32_t y = i == 0 ? 4 * q - 1 : sample_below(4ull * q, q);
            CHECK(nb_reduce32_4q(y, q) == gmp_mod(y, q), "nb_reduce32_4q", q, y, 0);
        }
    }
}

static void test_shoup32_constant_is_the_high_word_of_the_64_bit_one(void **state)
{
    (void)state;
    for (size_t p = 0; p < n_primes; p++) {
        const uint32_t q = primes[p];
        for (int i = 0; i < SAMPLES / 4; i++) {
            const uint32_t w = i == 0 ? q - 1 : sample_below(q, q);
            mpz_t z;
            mpz_init_set_ui(z, w);
            mpz_mul_2exp(z, z, 32);
            mpz_fdiv_q_ui(z, z, q);
            const uint32_t want = (uint32_t)mpz_get_ui(z);
            mpz_clear(z);
            CHECK(nb_shoup32_precompute(w, q) == want, "nb_shoup32_precompute", q, w, 0);
            CHECK(nb_shoup32_from64(nb_shoup_precompute(w, q)) == want, "nb_shoup32_from64", q,
                  w, 0);
            if (w)
                CHECK(nb_shoup32_recover(want, q) == w, "nb_shoup32_recover", q, w, 0);
        }
    }
}

static void test_mul_shoup32_is_congruent_lazy_below_2q_and_reduced_below_q(void **state)
{
    (void)state;
    for (size_t p = 0; p < n_primes; p++) {
        const uint32_t q = primes[p];
        for (int i = 0; i < SAMPLES; i++) {
            const uint32_t w = i == 0 ? q - 1 : sample_below(q, q);
            const uint32_t ws = nb_shoup32_precompute(w, q);
            const uint32_t a = i == 0 ? ~0u : (i & 1) ? (uint32_t)nb_test_rand()
                                                      : sample_below(2ull * q, q);
            const uint32_t r = nb_mul_shoup32_lazy(a, w, ws, q);
            CHECK(r < 2ull * q, "nb_mul_shoup32_lazy", q, a, w);
            CHECK(gmp_mod(r, q) == gmp_mulmod(a, w, q), "nb_mul_shoup32_lazy", q, a, w);
            CHECK(nb_mul_shoup32(a, w, ws, q) == gmp_mulmod(a, w, q), "nb_mul_shoup32", q, a, w);
        }
    }
}

static void test_shoup32_product_is_the_exact_twiddle_and_its_companion(void **state)
{
    (void)state;
    for (size_t p = 0; p < n_primes; p++) {
        const uint32_t q = primes[p];
        for (int i = 0; i < SAMPLES; i++) {
            const uint32_t a = i == 0 ? q - 1 : sample_below(q, q);
            const uint32_t c = i == 0 ? q - 1 : sample_below(q, q);
            uint32_t r[4], w, ws;
            nb_shoup32_record(c, q, r);
            /* c 2^32 = r[1] q + r[2] and r[2] 2^32 = r[3] q + (a remainder below q) */
            CHECK(r[0] == c && r[2] == gmp_mulmod(c, (uint32_t)(((uint64_t)1 << 32) % q), q),
                  "nb_shoup32_record", q, c, 0);
            CHECK((uint64_t)r[1] * q + r[2] == (uint64_t)c << 32, "nb_shoup32_record", q, c, 0);
            CHECK(((uint64_t)r[2] << 32) - (uint64_t)r[3] * q < q, "nb_shoup32_record", q, c, 0);
            nb_shoup32_product(a, r, q, &w, &ws);
            CHECK(w == gmp_mulmod(a, c, q), "nb_shoup32_product", q, a, c);
            CHECK(ws == nb_shoup32_precompute(w, q), "nb_shoup32_product", q, a, c);
        }
    }
}

typedef void (*butterfly32_fn)(uint32_t *, uint32_t *, uint32_t, uint32_t, uint32_t);
typedef void (*butterfly32_ac_fn)(uint32_t *, uint32_t *, uint32_t, uint32_t, uint32_t, uint32_t,
                                  uint32_t);

/* Butterfly `fn` (twiddle w), or `fn_ac` (twiddle w = a c mod q given as
 * its two factors) when fn is NULL, on x, y below in * q (top of the domain
 * and x = 0 first): outputs below out * q and congruent to the definition,
 * for every prime of at most max_bits bits. */
static void check_butterfly_as(butterfly32_fn fn, butterfly32_ac_fn fn_ac, const char *name,
                               int inverse, unsigned max_bits, uint64_t in, uint64_t out)
{
    size_t tested = 0;
    for (size_t p = 0; p < n_primes; p++) {
        const uint32_t q = primes[p];
        if (q >> max_bits)
            continue;
        tested++;
        for (int i = 0; i < SAMPLES; i++) {
            const uint32_t a = i == 0 ? q - 1 : sample_below(q, q);
            const uint32_t c = i == 0 ? q - 1 : sample_below(q, q);
            const uint32_t w = fn ? a : (uint32_t)gmp_mulmod(a, c, q);
            const uint32_t ws = nb_shoup32_precompute(w, q);
            const uint32_t x = i == 0 ? (uint32_t)(in * q - 1) : i == 1 ? 0 : sample_below(in * q, q);
            const uint32_t y = i < 2 ? (uint32_t)(in * q - 1) : sample_below(in * q, q);
            uint32_t xo = x, yo = y;
            if (fn)
                fn(&xo, &yo, w, ws, q);
            else
                fn_ac(&xo, &yo, a, nb_shoup32_precompute(a, q), c, nb_shoup32_precompute(c, q), q);
            CHECK(xo < out * q && yo < out * q, name, q, x, y);
            const uint64_t wy = gmp_mulmod(y, w, q), xm = gmp_mod(x, q), ym = gmp_mod(y, q);
            const uint64_t want_x = inverse ? (xm + ym) % q : (xm + wy) % q;
            const uint64_t want_y = inverse ? gmp_mulmod((xm + q - ym) % q, w, q) : (xm + q - wy) % q;
            CHECK(gmp_mod(xo, q) == want_x, name, q, x, y);
            CHECK(gmp_mod(yo, q) == want_y, name, q, x, y);
        }
    }
    assert_true(tested >= 2 * (max_bits - 2));
}

static void check_butterfly(butterfly32_fn fn, const char *name, int inverse, unsigned max_bits,
                            uint64_t in, uint64_t out)
{
    check_butterfly_as(fn, NULL, name, inverse, max_bits, in, out);
}

static void test_ct_butterfly32_is_congruent_and_stays_below_4q(void **state)
{
    (void)state;
    check_butterfly(nb_ct_butterfly32, "nb_ct_butterfly32", 0, NB_LAZY4_PRIME_BITS_32, 4, 4);
}

static void test_gs_butterfly32_is_congruent_and_stays_below_2q(void **state)
{
    (void)state;
    check_butterfly(nb_gs_butterfly32, "nb_gs_butterfly32", 1, NB_LAZY4_PRIME_BITS_32, 2, 2);
}

static void test_q31_butterflies_are_congruent_and_stay_below_2q(void **state)
{
    (void)state;
    check_butterfly(nb_ct_butterfly32_q31, "nb_ct_butterfly32_q31", 0, 31, 2, 2);
    check_butterfly(nb_gs_butterfly32_q31, "nb_gs_butterfly32_q31", 1, 31, 2, 2);
}

/* The twiddle as two factors (the row stages whose twiddles serve one or two
 * butterflies): the same domains, ranges and congruences as with a c mod q. */
static void test_butterflies_with_two_factors_match_the_twiddle_they_form(void **state)
{
    (void)state;
    const unsigned lazy = NB_LAZY4_PRIME_BITS_32;
    check_butterfly_as(NULL, nb_ct_butterfly32_ac, "nb_ct_butterfly32_ac", 0, lazy, 4, 4);
    check_butterfly_as(NULL, nb_gs_butterfly32_ac, "nb_gs_butterfly32_ac", 1, lazy, 2, 2);
    check_butterfly_as(NULL, nb_ct_butterfly32_q31_ac, "nb_ct_butterfly32_q31_ac", 0, 31, 2, 2);
    check_butterfly_as(NULL, nb_gs_butterfly32_q31_ac, "nb_gs_butterfly32_q31_ac", 1, 31, 2, 2);
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prime_list_covers_every_size_and_both_edges),
        cmocka_unit_test(test_mulhi32_equals_the_high_word_of_the_product),
        cmocka_unit_test(test_csub32_and_reductions_equal_gmp_remainder),
        cmocka_unit_test(test_shoup32_constant_is_the_high_word_of_the_64_bit_one),
        cmocka_unit_test(test_mul_shoup32_is_congruent_lazy_below_2q_and_reduced_below_q),
        cmocka_unit_test(test_shoup32_product_is_the_exact_twiddle_and_its_companion),
        cmocka_unit_test(test_ct_butterfly32_is_congruent_and_stays_below_4q),
        cmocka_unit_test(test_gs_butterfly32_is_congruent_and_stays_below_2q),
        cmocka_unit_test(test_q31_butterflies_are_congruent_and_stay_below_2q),
        cmocka_unit_test(test_butterflies_with_two_factors_match_the_twiddle_they_form),
    };
    return cmocka_run_group_tests(tests, setup_primes, NULL);
}

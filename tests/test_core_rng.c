/* core/rng: the splitmix64 stream is the published one and deterministic per
 * seed, every output bit is uniform, nb_rng_below / nb_rng_fill_residues
 * are uniform on [0, bound) without modulo bias, and nb_rng_residue_at is
 * floor(x q / 2^128) of its two counter outputs (checked with GMP) and
 * uniform. Statistical checks use fixed
 * seeds and bounds several standard deviations wide, so they are
 * deterministic and cannot fail by chance. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <gmp.h>

#include "core/rng.h"

#define DRAWS 40000

static void test_splitmix64_matches_published_vector_for_seed_zero(void **state)
{
    (void)state;
    /* the reference splitmix64 stream seeded with 0 */
    static const uint64_t want[] = {0xE220A8397B1DCDAFull, 0x6E789E6AA1B965F4ull,
                                    0x06C45D188009454Full};
    nb_rng r;
    nb_rng_seed(&r, 0);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_int_equal(nb_rng_next(&r), want[i]);
}

static void test_same_seed_gives_same_stream_and_other_seeds_differ(void **state)
{
    (void)state;
    nb_rng a, b, c;
    nb_rng_seed(&a, 42);
    nb_rng_seed(&b, 42);
    nb_rng_seed(&c, 43);
    size_t equal_to_other = 0;
    for (int i = 0; i < 1000; i++) {
        const uint64_t x = nb_rng_next(&a);
        assert_int_equal(x, nb_rng_next(&b));
        equal_to_other += x == nb_rng_next(&c);
    }
    assert_true(equal_to_other == 0);
    uint64_t fa[64], fb[64];
    nb_rng_seed(&a, 7);
    nb_rng_seed(&b, 7);
    nb_rng_fill_residues(&a, fa, 64, 1000003);
    nb_rng_fill_residues(&b, fb, 64, 1000003);
    assert_memory_equal(fa, fb, sizeof fa);
}

static void test_every_output_bit_is_set_about_half_the_time(void **state)
{
    (void)state;
    nb_rng r;
    nb_rng_seed(&r, 0x5EED);
    unsigned ones[64] = {0};
    for (int i = 0; i < DRAWS; i++) {
        const uint64_t x = nb_rng_next(&r);
        for (int b = 0; b < 64; b++)
            ones[b] += (x >> b) & 1;
    }
    /* binomial(DRAWS, 1/2): sd = 100; 6 sd */
    for (int b = 0; b < 64; b++) {
        if (fabs((double)ones[b] - DRAWS / 2.0) > 600.0)
            fail_msg("bit %d set %u times in %d draws", b, ones[b], DRAWS);
    }
}

/* bound = ceil(2^65 / 3): plain x % bound would hit [0, 2^64 - bound), about
 * the lower half of the range, twice as often (P(below bound/2) = 2/3). */
static void test_below_has_no_modulo_bias_for_a_bound_near_two_thirds_of_2_64(void **state)
{
    (void)state;
    const uint64_t bound = 0xAAAAAAAAAAAAAAABull;
    nb_rng r;
    nb_rng_seed(&r, 12345);
    unsigned low = 0;
    for (int i = 0; i < DRAWS; i++) {
        const uint64_t x = nb_rng_below(&r, bound);
        assert_true(x < bound);
        low += x < bound / 2;
    }
    const double p = (double)low / DRAWS; /* sd = 0.0025 when unbiased */
    if (fabs(p - 0.5) > 0.015)
        fail_msg("P(x < bound/2) = %.4f, expected 0.5 (2/3 means modulo bias)", p);
}

static void test_below_small_bound_passes_chi_square(void **state)
{
    (void)state;
    enum { BOUND = 7 };
    nb_rng r;
    nb_rng_seed(&r, 99);
    unsigned count[BOUND] = {0};
    for (int i = 0; i < DRAWS; i++) {
        const uint64_t x = nb_rng_below(&r, BOUND);
        assert_true(x < BOUND);
        count[x]++;
    }
    double chi2 = 0, e = (double)DRAWS / BOUND;
    for (int k = 0; k < BOUND; k++)
        chi2 += (count[k] - e) * (count[k] - e) / e;
    /* 6 degrees of freedom: P(chi2 > 27.9) = 1e-4 */
    if (chi2 > 27.9)
        fail_msg("chi-square %.2f over %d values", chi2, BOUND);
}

static void test_below_one_is_always_zero(void **state)
{
    (void)state;
    nb_rng r;
    nb_rng_seed(&r, 3);
    for (int i = 0; i < 100; i++)
        assert_int_equal(nb_rng_below(&r, 1), 0);
}

static void test_fill_residues_equals_successive_below_calls(void **state)
{
    (void)state;
    const uint64_t q = (1ull << 61) - 1; /* a 61-bit prime */
    uint64_t got[257];
    nb_rng a, b;
    nb_rng_seed(&a, 2024);
    nb_rng_seed(&b, 2024);
    memset(got, 0xA5, sizeof got);
    nb_rng_fill_residues(&a, got, 256, q);
    for (size_t i = 0; i < 256; i++) {
        assert_true(got[i] < q);
        assert_int_equal(got[i], nb_rng_below(&b, q));
    }
    assert_int_equal(got[256], 0xA5A5A5A5A5A5A5A5ull); /* nothing past n written */
    assert_int_equal(nb_rng_next(&a), nb_rng_next(&b)); /* same number of draws */
}

/* Guards the division-free loop of nb_rng_fill_residues: the same values and
 * the same number of draws as nb_rng_below for bounds of every size, the
 * edges of the quotient estimate (1, powers of two and their neighbours,
 * 2^64 - 1) and random ones, and 0 (all zeros, no draw). */
static void test_fill_residues_equals_below_for_every_kind_of_bound(void **state)
{
    (void)state;
    nb_rng pick;
    nb_rng_seed(&pick, 0x5EED);
    uint64_t bounds[64] = {1, 2, 3, 12289, (1ull << 31) - 1, 1ull << 32, (1ull << 61) - 1,
                           (1ull << 62) - 57, 1ull << 63, (1ull << 63) + 1, UINT64_MAX - 58,
                           UINT64_MAX, 0};
    size_t nb = 13;
    while (nb < 64) {
        uint64_t b = nb_rng_next(&pick) >> (nb_rng_next(&pick) % 64);
        bounds[nb++] = b ? b : 5;
    }
    enum { N = 500 };
    static uint64_t got[N];
    for (size_t k = 0; k < nb; k++) {
        nb_rng a, b;
        const uint64_t seed = nb_rng_next(&pick);
        nb_rng_seed(&a, seed);
        nb_rng_seed(&b, seed);
        nb_rng_fill_residues(&a, got, N, bounds[k]);
        for (size_t i = 0; i < N; i++)
            if (got[i] != nb_rng_below(&b, bounds[k]))
                fail_msg("bound %" PRIu64 " value %zu: %" PRIu64 " (seed %" PRIu64 ")", bounds[k],
                         i, got[i], seed);
        assert_int_equal(nb_rng_next(&a), nb_rng_next(&b));
    }
}

/* nb_rng_residue_at against GMP: floor((hi 2^64 + lo) q / 2^128) with hi, lo
 * the counter outputs 2i + 1 and 2i + 2 of the key, for bounds of every size
 * (1, 2^64 - 1 and the edges around 2^31, 2^32, 2^62, 2^63 among them) and
 * indices near 0 and near 2^64. */
static void test_residue_at_is_the_top_of_x_times_q(void **state)
{
    (void)state;
    const uint64_t bounds[] = {1, 2, 3, 12289, (1ull << 31) - 1, (1ull << 32) + 15,
                               (1ull << 61) - 1, (1ull << 62) - 57, (1ull << 63) + 1,
                               UINT64_MAX - 58, UINT64_MAX};
    const uint64_t keys[] = {0, 0x243F6A8885A308D3ull, UINT64_MAX};
    const uint64_t g = 0x9E3779B97F4A7C15ull;
    mpz_t x, t;
    mpz_inits(x, t, NULL);
    for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++)
        for (size_t k = 0; k < 3; k++)
            for (uint64_t j = 0; j < 64; j++) {
                const uint64_t i = j < 32 ? j : UINT64_MAX - (j - 32);
                const uint64_t q = bounds[b], key = keys[k];
                mpz_set_ui(x, nb_rng_mix(key + (2 * i + 1) * g));
                mpz_mul_2exp(x, x, 64);
                mpz_add_ui(x, x, nb_rng_mix(key + (2 * i + 2) * g));
                mpz_mul_ui(x, x, q);
                mpz_tdiv_q_2exp(t, x, 128);
                const uint64_t got = nb_rng_residue_at(key, i, q);
                if (mpz_cmp_ui(t, got) != 0 || got >= q)
                    fail_msg("q %" PRIu64 " key %" PRIu64 " i %" PRIu64 ": %" PRIu64
                             ", GMP %" PRIu64,
                             q, key, i, got, (uint64_t)mpz_get_ui(t));
            }
    mpz_clears(x, t, NULL);
}

/* nb_rng_mix is splitmix64's output step: the stream seeded with s is
 * nb_rng_mix(s + k golden), k = 1, 2, ... */
static void test_mix_is_the_output_step_of_the_stream(void **state)
{
    (void)state;
    nb_rng r;
    nb_rng_seed(&r, 77);
    for (uint64_t k = 1; k <= 100; k++)
        assert_int_equal(nb_rng_next(&r), nb_rng_mix(77 + k * 0x9E3779B97F4A7C15ull));
}

static void test_residue_at_small_bound_passes_chi_square(void **state)
{
    (void)state;
    enum { BOUND = 7 };
    unsigned count[BOUND] = {0};
    for (uint64_t i = 0; i < DRAWS; i++)
        count[nb_rng_residue_at(0xC0FFEE, i, BOUND)]++;
    double chi2 = 0, e = (double)DRAWS / BOUND;
    for (int k = 0; k < BOUND; k++)
        chi2 += (count[k] - e) * (count[k] - e) / e;
    if (chi2 > 27.9) /* 6 degrees of freedom: P(chi2 > 27.9) = 1e-4 */
        fail_msg("chi-square %.2f over %d values", chi2, BOUND);
}

/* nb_rng_fill_limbs_at: value i of limb l of set s is nb_rng_residue_at at
 * word s limbs n + l n + i of the limb's prime, but a limb's first value,
 * which is never 0 for q > 1 (with q = 2 about half the limbs draw a 0
 * there; it becomes 1) and stays 0, the only residue, for q = 1. Limbs of
 * 2^17 values run in parallel; each set is drawn alone, so set 1 does not
 * depend on set 0 having been drawn. */
static void test_fill_limbs_at_is_residue_at_by_word(void **state)
{
    (void)state;
    enum { LIMBS = 40, N = 1 << 17 };
    uint64_t q[LIMBS];
    for (size_t l = 0; l < LIMBS; l++)
        q[l] = l == 0 ? 1 : l % 2 ? 2 : (1ull << 61) - 1 - 2 * l; /* q = 1: every value 0 */
    uint64_t *a = malloc((size_t)LIMBS * N * sizeof *a);
    assert_non_null(a);
    const uint64_t key = 0x0123456789ABCDEFull;
    size_t made_one = 0;
    for (uint64_t set = 1; set < 3; set++) {
        memset(a, 0xFF, (size_t)LIMBS * N * sizeof *a); /* poison */
        nb_rng_fill_limbs_at(key, set * LIMBS * N, a, N, q, LIMBS);
        for (size_t l = 0; l < LIMBS; l++)
            for (size_t i = 0; i < N; i++) {
                uint64_t want = nb_rng_residue_at(key, set * LIMBS * N + l * N + i, q[l]);
                if (i == 0 && want == 0 && q[l] > 1) {
                    want = 1;
                    made_one++;
                }
                if (a[l * N + i] != want)
                    fail_msg("set %" PRIu64 " limb %zu index %zu: %" PRIu64 ", want %" PRIu64,
                             set, l, i, a[l * N + i], want);
            }
    }
    assert_true(made_one > 0); /* the rule was exercised */
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splitmix64_matches_published_vector_for_seed_zero),
        cmocka_unit_test(test_same_seed_gives_same_stream_and_other_seeds_differ),
        cmocka_unit_test(test_every_output_bit_is_set_about_half_the_time),
        cmocka_unit_test(test_below_has_no_modulo_bias_for_a_bound_near_two_thirds_of_2_64),
        cmocka_unit_test(test_below_small_bound_passes_chi_square),
        cmocka_unit_test(test_below_one_is_always_zero),
        cmocka_unit_test(test_fill_residues_equals_successive_below_calls),
        cmocka_unit_test(test_fill_residues_equals_below_for_every_kind_of_bound),
        cmocka_unit_test(test_residue_at_is_the_top_of_x_times_q),
        cmocka_unit_test(test_mix_is_the_output_step_of_the_stream),
        cmocka_unit_test(test_residue_at_small_bound_passes_chi_square),
        cmocka_unit_test(test_fill_limbs_at_is_residue_at_by_word),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

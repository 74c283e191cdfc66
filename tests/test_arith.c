/* Every function of ntt/arith.h against GMP on random values over its full
 * documented input domain (plus the domain's edges), for primes of every size
 * from 2 to 62 bits: NTT primes from nb_primes_generate (the largest below
 * 2^62 and 2^61 included), random non-NTT primes of each size and small ones.
 * Output ranges (lazy [0, 2q) / [0, 4q), reduced [0, q)) are checked too. */
#include <gmp.h>

#include "ntt/arith.h"
#include "gmputil.h"
#include "testutil.h"

#define MAX_PRIMES 256
static uint64_t primes[MAX_PRIMES];
static size_t n_primes;

/* random samples per prime and function (edges are added on top) */
#define SAMPLES 4000

static void add_prime(uint64_t q)
{
    for (size_t i = 0; i < n_primes; i++)
        if (primes[i] == q)
            return;
    assert_true(n_primes < MAX_PRIMES);
    primes[n_primes++] = q;
}

static int setup_primes(void **state)
{
    (void)state;
    uint64_t out[4];
    /* NTT primes for small N: the 2 largest below 2^bits, bits = 3..62 */
    for (unsigned bits = 3; bits <= 62; bits++) {
        if (nb_primes_generate(1, bits, 2, NULL, 0, out) == NB_OK) {
            add_prime(out[0]);
            add_prime(out[1]);
        } else if (nb_primes_generate(1, bits, 1, NULL, 0, out) == NB_OK) {
            add_prime(out[0]);
        }
    }
    /* the largest NTT primes below 2^62 and 2^61 for the largest N */
    if (nb_primes_generate(17, 62, 2, NULL, 0, out) != NB_OK)
        return -1;
    add_prime(out[0]);
    add_prime(out[1]);
    if (nb_primes_generate(17, 61, 1, NULL, 0, out) != NB_OK)
        return -1;
    add_prime(out[0]);
    /* a random (generally not NTT-friendly) prime of every size 2..62 */
    mpz_t z;
    mpz_init(z);
    for (unsigned bits = 2; bits <= 62; bits++) {
        for (;;) {
            uint64_t lo = 1ull << (bits - 1);
            mpz_set_ui(z, lo + nb_test_rand_below(lo));
            mpz_nextprime(z, z);
            if (mpz_sizeinbase(z, 2) == bits && mpz_cmp_ui(z, 2) > 0)
                break;
        }
        add_prime(mpz_get_ui(z));
    }
    /* the largest prime below 2^62 of any kind, and small classics */
    uint64_t p = (1ull << 62) - 1;
    while (mpz_set_ui(z, p), !mpz_probab_prime_p(z, 40))
        p -= 2;
    add_prime(p);
    mpz_clear(z);
    const uint64_t small[] = {3, 5, 7, 17, 97, 257, 7681, 12289, 65537};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
        add_prime(small[i]);
    return 0;
}

/* ---- GMP helpers ---- */

static void mpz_set_u128(mpz_t z, uint64_t lo, uint64_t hi)
{
    mpz_set_ui(z, hi);
    mpz_mul_2exp(z, z, 64);
    mpz_add_ui(z, z, lo);
}

/* (hi:lo) mod q, exactly. */
static uint64_t gmp_mod_u128(uint64_t lo, uint64_t hi, uint64_t q)
{
    mpz_t z;
    mpz_init(z);
    mpz_set_u128(z, lo, hi);
    uint64_t r = mpz_fdiv_ui(z, q);
    mpz_clear(z);
    return r;
}

/* A value in [0, bound): uniform, or (one time in four) next to an edge of
 * [0, bound) or of the multiples of q inside it. bound >= 1; bound = 0 means
 * 2^64. */
static uint64_t sample_below(uint64_t bound, uint64_t q)
{
    uint64_t r = nb_test_rand();
    if ((r & 3) != 0)
        return bound ? nb_test_rand_below(bound) : nb_test_rand();
    const uint64_t k = (r >> 2) % 6, d = (r >> 8) % 3;
    uint64_t v;
    switch (k) {
    case 0: v = d; break;               /* 0, 1, 2 */
    case 1: v = bound - 1 - d; break;   /* top of the domain */
    case 2: v = q - 1 + d; break;       /* around q */
    case 3: v = 2 * q - 1 + d; break;   /* around 2q */
    case 4: v = 3 * q - 1 + d; break;   /* around 3q */
    default: v = 4 * q - 1 - d; break;  /* just below 4q */
    }
    if (bound && v >= bound)
        v = bound - 1;
    return v;
}

/* fails with the seed, the function name, the prime and the inputs */
#define CHECK(cond, fn, q, a, b)                                                         \
    do {                                                                                 \
        if (!(cond))                                                                     \
            nb_test_fail("%s: q=%" PRIu64 " a=%" PRIu64 " b=%" PRIu64 ": %s", fn,           \
                         (uint64_t)(q), (uint64_t)(a), (uint64_t)(b), #cond);            \
    } while (0)

/* ---- tests ---- */

static void test_mulhi_and_mul_wide_equal_gmp_product(void **state)
{
    (void)state;
    mpz_t z, w;
    mpz_inits(z, w, NULL);
    for (int i = 0; i < 20000; i++) {
        const uint64_t a = i < 4 ? (i & 1 ? ~0ull : 0) : nb_test_rand();
        const uint64_t b = i < 4 ? (i & 2 ? ~0ull : 1) : nb_test_rand();
        uint64_t hi, lo = nb_mul_wide(a, b, &hi);
        mpz_set_ui(z, a);
        mpz_mul_ui(z, z, b);
        mpz_set_u128(w, lo, hi);
        CHECK(mpz_cmp(z, w) == 0, "nb_mul_wide", 0, a, b);
        CHECK(nb_mulhi(a, b) == hi, "nb_mulhi", 0, a, b);
    }
    mpz_clears(z, w, NULL);
}

static void test_add_mod_equals_gmp_and_is_reduced(void **state)
{
    (void)state;
    for (size_t p = 0; p < n_primes; p++) {
        const uint64_t q = primes[p];
        for (int i = 0; i < SAMPLES; i++) {
            const uint64_t a = sample_below(q, q), b = sample_below(q, q);
            const uint64_t r = nb_add_mod(a, b, q);
            mpz_t z;
            mpz_init_set_ui(z, a);
            mpz_add_ui(z, z, b);
            CHECK(r == mpz_fdiv_ui(z, q), "nb_add_mod", q, a, b);
            mpz_clear(z);
        }
    }
}

static void test_sub_mod_equals_gmp_and_is_reduced(void **state)
{
    (void)state;
    for (size_t p = 0; p < n_primes; p++) {
        const uint64_t q = primes[p];
        for (int i = 0; i < SAMPLES; i++) {
            const uint64_t a = sample_below(q, q), b = sample_below(q, q);
            mpz_t z;
            mpz_init_set_ui(z, a);
            mpz_sub_ui(z, z, b);
            CHECK(nb_sub_mod(a, b, q) == mpz_fdiv_ui(z, q), "nb_sub_mod", q, a, b);
            mpz_clear(z);
        }
    }
}

static void test_neg_mod_equals_gmp_and_is_reduced(void **state)
{
    (void)state;
    for (size_t p = 0; p < n_primes; p++) {
        const uint64_t q = primes[p];
        for (int i = 0; i < SAMPLES; i++) {
            const uint64_t a = sample_below(q, q);
            mpz_t z;
            mpz_init_set_ui(z, a);
            mpz_neg(z, z);
            CHECK(nb_neg_mod(a, q) == mpz_fdiv_ui(z, q), "nb_neg_mod", q, a, 0);
            mpz_clear(z);
        }
    }
}

static void test_reduce_2q_and_4q_equal_gmp_remainder(void **state)
{
    (void)state;
    for (size_t p = 0; p < n_primes; p++) {
        const uint64_t q = primes[p];
        for (int i = 0; i < SAMPLES; i++) {
            const uint64_t x2 = sample_below(2 * q, q), x4 = sample_below(4 * q, q);
            CHECK(nb_reduce_2q(x2, q) == gmp_mod(x2, q), "nb_reduce_2q", q, x2, 0);
            CHECK(nb_reduce_4q(x4, q) == gmp_mod(x4, q), "nb_reduce_4q", q, x4, 0);
        }
        CHECK(nb_reduce_4q(4 * q - 1, q) == q - 1, "nb_reduce_4q", q, 4 * q - 1, 0);
        CHECK(nb_reduce_2q(2 * q - 1, q) == q - 1, "nb_reduce_2q", q, 2 * q - 1, 0);
    }
}

/* nb_csub over its whole domain x in [0, 2m), m <= 2^63: the moduli of the
 * list, their doubles (the lazy butterflies' 2q) and 2^63 itself, at both
 * ends of [0, m) and [m, 2m) and at random points. */
static void test_csub_subtracts_exactly_when_x_reaches_m(void **state)
{
    (void)state;
    for (size_t p = 0; p <= 2 * n_primes; p++) {
        const uint64_t m = p == 2 * n_primes ? (uint64_t)1 << 63
                           : p < n_primes    ? primes[p]
                                             : 2 * primes[p - n_primes];
        const uint64_t edges[] = {0, 1, m - 1, m, m + 1, 2 * m - 1};
        for (int i = 0; i < SAMPLES + 6; i++) {
            const uint64_t x = i < 6    ? edges[i]
                               : 2 * m != 0 ? nb_test_rand_below(2 * m)
                                       : nb_test_rand(); /* 2m = 2^64 */
            const uint64_t want = x >= m ? x - m : x;
            CHECK(nb_csub(x, m) == want, "nb_csub", m, x, 0);
        }
    }
}

static void test_barrett_constant_is_floor_2_128_over_q(void **state)
{
    (void)state;
    mpz_t z, m;
    mpz_inits(z, m, NULL);
    for (size_t p = 0; p < n_primes; p++) {
        const uint64_t q = primes[p];
        uint64_t lo, hi;
        nb_barrett_precompute(q, &lo, &hi);
        mpz_set_ui(z, 1);
        mpz_mul_2exp(z, z, 128);
        mpz_fdiv_q_ui(z, z, q);
        mpz_set_u128(m, lo, hi);
        CHECK(mpz_cmp(z, m) == 0, "nb_barrett_precompute", q, lo, hi);
    }
    mpz_clears(z, m, NULL);
}

static void test_reduce_128_equals_gmp_for_any_128_bit_value(void **state)
{
    (void)state;
    for (size_t p = 0; p < n_primes; p++) {
        const uint64_t q = primes[p];
        uint64_t mlo, mhi;
        nb_barrett_precompute(q, &mlo, &mhi);
        for (int i = 0; i < SAMPLES + 8; i++) {
            uint64_t lo, hi;
            switch (i) {
            case 0: lo = ~0ull, hi = ~0ull; break;       /* 2^128 - 1 */
            case 1: lo = 0, hi = 0; break;
            case 2: lo = q - 1, hi = 0; break;
            case 3: lo = q, hi = 0; break;
            case 4: lo = 0, hi = ~0ull; break;
            case 5: lo = ~0ull, hi = 0; break;
            case 6: /* (q-1)^2, the largest product of residues */
                lo = nb_mul_wide(q - 1, q - 1, &hi);
                break;
            case 7: /* 4q * 4q-ish lazy product */
                lo = nb_mul_wide(4 * q - 1, 4 * q - 1, &hi);
                break;
            default:
                lo = nb_test_rand();
                /* high words of every size, so small and large values occur */
                hi = nb_test_rand() >> (nb_test_rand() % 64);
                if (i % 5 == 0)
                    hi = 0;
            }
            const uint64_t r = nb_reduce_128(lo, hi, q, mlo, mhi);
            CHECK(r == gmp_mod_u128(lo, hi, q), "nb_reduce_128", q, lo, hi);
        }
    }
}

static void test_neg_inv_2_64_inverts_odd_words(void **state)
{
    (void)state;
    for (int i = 0; i < SAMPLES + (int)n_primes + 3; i++) {
        const uint64_t q = i < (int)n_primes ? primes[i]
                           : i == (int)n_primes       ? 1
                           : i == (int)n_primes + 1   ? ~0ull
                           : i == (int)n_primes + 2   ? 3
                                                      : nb_test_rand() | 1;
        CHECK(q * nb_neg_inv_2_64(q) == ~0ull, "nb_neg_inv_2_64", q, 0, 0);
    }
}

/* (S + m q) / 2^64 against GMP: S 2^-64 mod q, exact, below S / 2^64 + q,
 * over the whole domain S + (2^64 - 1) q < 2^128, its top edge included. */
static void test_redc_128_is_exact_and_bounded(void **state)
{
    (void)state;
    mpz_t s, w, r2, b;
    mpz_inits(s, w, r2, b, NULL);
    for (size_t p = 0; p < n_primes; p++) {
        const uint64_t q = primes[p], qn = nb_neg_inv_2_64(q);
        /* largest hi with every lo in the domain: hi <= 2^64 - 1 - q */
        const uint64_t hi_max = ~0ull - q;
        for (int i = 0; i < SAMPLES + 5; i++) {
            uint64_t lo, hi;
            switch (i) {
            case 0: lo = 0, hi = 0; break;
            case 1: lo = 1, hi = 0; break;
            case 2: lo = ~0ull, hi = hi_max; break;
            case 3: lo = 0, hi = hi_max; break;
            case 4: lo = nb_mul_wide(q - 1, q - 1, &hi); break;
            default:
                lo = nb_test_rand();
                hi = nb_test_rand_below(hi_max + 1) >> (nb_test_rand() % 64);
            }
            const uint64_t r = nb_redc_128(lo, hi, q, qn);
            mpz_set_u128(s, lo, hi);
            /* exact: r 2^64 = S + m q, m = lo * qn mod 2^64 */
            mpz_set_ui(w, lo * qn);
            mpz_mul_ui(w, w, q);
            mpz_add(w, w, s);
            mpz_set_ui(r2, r);
            mpz_mul_2exp(r2, r2, 64);
            CHECK(mpz_cmp(w, r2) == 0, "nb_redc_128 exact", q, lo, hi);
            /* r < S / 2^64 + q, i.e. r - q < hi + (lo > 0) */
            mpz_set_ui(b, hi);
            mpz_add_ui(b, b, q + (lo != 0));
            CHECK(mpz_cmp_ui(b, r) > 0, "nb_redc_128 bound", q, lo, hi);
        }
    }
    mpz_clears(s, w, r2, b, NULL);
}

static void test_reduce_64_equals_gmp_for_any_64_bit_value(void **state)
{
    (void)state;
    for (size_t p = 0; p < n_primes; p++) {
        const uint64_t q = primes[p];
        uint64_t mlo, mhi;
        nb_barrett_precompute(q, &mlo, &mhi);
        for (int i = 0; i < SAMPLES; i++) {
            const uint64_t x = i == 0 ? ~0ull : (i & 1) ? nb_test_rand() : sample_below(4 * q, q);
            CHECK(nb_reduce_64(x, q, mlo, mhi) == gmp_mod(x, q), "nb_reduce_64", q, x, 0);
        }
    }
}

static void test_mul_mod_equals_gmp_for_any_64_bit_operands(void **state)
{
    (void)state;
    for (size_t p = 0; p < n_primes; p++) {
        const uint64_t q = primes[p];
        uint64_t mlo, mhi;
        nb_barrett_precompute(q, &mlo, &mhi);
        for (int i = 0; i < SAMPLES; i++) {
            /* residues, and (every third sample) arbitrary 64-bit operands */
            const uint64_t a = i % 3 == 0 ? nb_test_rand() : sample_below(q, q);
            const uint64_t b = i % 3 == 0 ? nb_test_rand() : sample_below(q, q);
            CHECK(nb_mul_mod(a, b, q, mlo, mhi) == gmp_mulmod(a, b, q), "nb_mul_mod", q, a, b);
        }
        CHECK(nb_mul_mod(~0ull, ~0ull, q, mlo, mhi) == gmp_mulmod(~0ull, ~0ull, q), "nb_mul_mod",
              q, ~0ull, ~0ull);
    }
}

static void test_shoup_constant_is_floor_w_2_64_over_q(void **state)
{
    (void)state;
    mpz_t z;
    mpz_init(z);
    for (size_t p = 0; p < n_primes; p++) {
        const uint64_t q = primes[p];
        uint64_t ml, mh;
        nb_barrett_precompute(q, &ml, &mh);
        for (int i = 0; i < SAMPLES; i++) { /* i = 0, 1: the extremes 0 and q - 1 */
            const uint64_t w = i == 0 ? 0 : i == 1 ? q - 1 : sample_below(q, q);
            mpz_set_ui(z, w);
            mpz_mul_2exp(z, z, 64);
            mpz_fdiv_q_ui(z, z, q);
            CHECK(mpz_cmp_ui(z, nb_shoup_precompute(w, q)) == 0, "nb_shoup_precompute", q, w, 0);
            CHECK(mpz_cmp_ui(z, nb_shoup_precompute_mu(w, q, ml, mh)) == 0,
                  "nb_shoup_precompute_mu", q, w, 0);
        }
    }
    mpz_clear(z);
}

static void test_shoup_recover_returns_the_twiddle_for_every_nonzero_w(void **state)
{
    (void)state;
    for (size_t p = 0; p < n_primes; p++) {
        const uint64_t q = primes[p];
        if (q < 3)
            continue; /* the recovery needs an odd prime */
        for (int i = 0; i < SAMPLES; i++) {
            /* w in [1, q): the edges 1 and q - 1 first, then uniform */
            const uint64_t w = i == 0 ? 1 : i == 1 ? q - 1 : 1 + sample_below(q - 1, q - 1);
            const uint64_t ws = nb_shoup_precompute(w, q);
            CHECK(nb_shoup_recover(ws, q) == w, "nb_shoup_recover", q, w, ws);
        }
    }
}

static void test_mul_shoup_lazy_is_congruent_and_below_2q_for_any_64_bit_input(void **state)
{
    (void)state;
    for (size_t p = 0; p < n_primes; p++) {
        const uint64_t q = primes[p];
        for (int i = 0; i < SAMPLES; i++) {
            const uint64_t w = sample_below(q, q);
            const uint64_t ws = nb_shoup_precompute(w, q);
            /* the multiplicand may be any 64-bit value */
            const uint64_t a = i == 0 ? ~0ull : (i & 1) ? nb_test_rand() : sample_below(4 * q, q);
            const uint64_t r = nb_mul_shoup_lazy(a, w, ws, q);
            CHECK(r < 2 * q, "nb_mul_shoup_lazy", q, a, w);
            CHECK(gmp_mod(r, q) == gmp_mulmod(a, w, q), "nb_mul_shoup_lazy", q, a, w);
        }
    }
}

static void test_mul_shoup_equals_gmp_and_is_reduced(void **state)
{
    (void)state;
    for (size_t p = 0; p < n_primes; p++) {
        const uint64_t q = primes[p];
        for (int i = 0; i < SAMPLES; i++) {
            const uint64_t w = i == 0 ? q - 1 : sample_below(q, q);
            const uint64_t ws = nb_shoup_precompute(w, q);
            const uint64_t a = i == 0 ? ~0ull : (i & 1) ? nb_test_rand() : sample_below(4 * q, q);
            CHECK(nb_mul_shoup(a, w, ws, q) == gmp_mulmod(a, w, q), "nb_mul_shoup", q, a, w);
        }
    }
}

/* x' = x + w y, y' = x - w y (forward) or x' = x + y, y' = (x - y) w
 * (inverse) mod q, checked with GMP */
static void check_congruent(int inverse, uint64_t x, uint64_t y, uint64_t xo, uint64_t yo,
                            uint64_t w, uint64_t q, const char *fn)
{
    mpz_t s, d;
    mpz_init_set_ui(s, x);
    mpz_init_set_ui(d, x);
    if (inverse) {
        mpz_add_ui(s, s, y);
        mpz_sub_ui(d, d, y);
        mpz_mul_ui(d, d, w);
    } else {
        mpz_t wy;
        mpz_init_set_ui(wy, y);
        mpz_mul_ui(wy, wy, w);
        mpz_add(s, s, wy);
        mpz_sub(d, d, wy);
        mpz_clear(wy);
    }
    CHECK(gmp_mod(xo, q) == mpz_fdiv_ui(s, q), fn, q, x, y);
    CHECK(gmp_mod(yo, q) == mpz_fdiv_ui(d, q), fn, q, x, y);
    mpz_clears(s, d, NULL);
}

typedef void (*butterfly_fn)(uint64_t *, uint64_t *, uint64_t, uint64_t, uint64_t);

/* Butterfly `fn` on inputs x, y below in * q (the top of the domain and
 * x = 0 first, then edges and uniform values): outputs below out_x * q and
 * out_y * q, congruent to the definition. Primes of every size, or only
 * those below 2^61 (lazy8: the butterflies whose values reach 8q). */
static void check_butterfly(butterfly_fn fn, const char *name, int inverse, uint64_t in,
                            uint64_t out_x, uint64_t out_y, int lazy8)
{
    size_t tested = 0;
    for (size_t p = 0; p < n_primes; p++) {
        const uint64_t q = primes[p];
        if (lazy8 && (q >> NB_LAZY8_PRIME_BITS))
            continue;
        tested++;
        for (int i = 0; i < SAMPLES; i++) {
            const uint64_t w = i == 0 ? q - 1 : sample_below(q, q);
            const uint64_t ws = nb_shoup_precompute(w, q);
            const uint64_t x = i == 0 ? in * q - 1 : i == 1 ? 0 : sample_below(in * q, q);
            const uint64_t y = i < 2 ? in * q - 1 : sample_below(in * q, q);
            uint64_t xo = x, yo = y;
            fn(&xo, &yo, w, ws, q);
            CHECK(xo < out_x * q && yo < out_y * q, name, q, x, y);
            check_congruent(inverse, x, y, xo, yo, w, q, name);
        }
    }
    assert_true(tested > 60); /* every size up to 61 bits at least */
}

static void test_ct_butterfly_is_congruent_and_stays_below_4q(void **state)
{
    (void)state;
    check_butterfly(nb_ct_butterfly, "nb_ct_butterfly", 0, 4, 4, 4, 0);
}

static void test_gs_butterfly_is_congruent_and_stays_below_2q(void **state)
{
    (void)state;
    check_butterfly(nb_gs_butterfly, "nb_gs_butterfly", 1, 2, 2, 2, 0);
}

/* the forward pair that reduces every second stage: [0, 6q) -> [0, 8q) -> [0, 6q) */
static void test_ct_butterflies_6q_and_8q_are_congruent_and_keep_their_ranges(void **state)
{
    (void)state;
    check_butterfly(nb_ct_butterfly_6q, "nb_ct_butterfly_6q", 0, 6, 8, 8, 1);
    check_butterfly(nb_ct_butterfly_8q, "nb_ct_butterfly_8q", 0, 8, 6, 6, 1);
}

/* the inverse pair: products [0, 2q) and sums [0, 4q) in, [0, 4q) / [0, 2q) out */
static void test_gs_butterflies_2q_and_4q_are_congruent_and_keep_their_ranges(void **state)
{
    (void)state;
    check_butterfly(nb_gs_butterfly_2q, "nb_gs_butterfly_2q", 1, 2, 4, 2, 1);
    check_butterfly(nb_gs_butterfly_4q, "nb_gs_butterfly_4q", 1, 4, 4, 2, 1);
}

static void test_mul_sub_lo_w32_equals_the_64_bit_formula_for_any_words(void **state)
{
    (void)state;
    const uint64_t edge[] = {0, 1, 0xffffffffull, 0x100000000ull, ~0ull, 1ull << 63};
    for (int i = 0; i < 64 * SAMPLES; i++) {
        uint64_t v[4];
        for (int k = 0; k < 4; k++) /* one word in four from the edges */
            v[k] = (nb_test_rand() & 3) ? nb_test_rand() : edge[nb_test_rand_below(6)];
        const uint64_t want = v[0] * v[1] - v[2] * v[3];
        CHECK(nb_mul_sub_lo_w32(v[0], v[1], v[2], v[3]) == want, "nb_mul_sub_lo_w32", v[3], v[0],
              v[1]);
    }
}

static void test_reduce_8q_equals_gmp_remainder(void **state)
{
    (void)state;
    for (size_t p = 0; p < n_primes; p++) {
        const uint64_t q = primes[p];
        if (q >> NB_LAZY8_PRIME_BITS)
            continue;
        for (int i = 0; i < SAMPLES; i++) {
            const uint64_t x = i < 8 ? (uint64_t)i * q + (i & 1) : sample_below(8 * q, q);
            CHECK(nb_reduce_8q(x, q) == gmp_mod(x, q), "nb_reduce_8q", q, x, 0);
            CHECK(nb_reduce_8q(8 * q - 1, q) == q - 1, "nb_reduce_8q top", q, 8 * q - 1, 0);
        }
    }
}

static void test_prime_list_covers_every_size_and_the_extremes(void **state)
{
    (void)state;
    /* guards the other tests: every bit size 2..62 is present, and so are
     * primes within 2^20 of 2^62 and 2^61 */
    int seen[64] = {0}, near62 = 0, near61 = 0;
    for (size_t p = 0; p < n_primes; p++) {
        unsigned bits = 64 - (unsigned)__builtin_clzll(primes[p]);
        seen[bits] = 1;
        near62 |= primes[p] < (1ull << 62) && primes[p] > (1ull << 62) - (1ull << 20);
        near61 |= primes[p] < (1ull << 61) && primes[p] > (1ull << 61) - (1ull << 20);
    }
    for (unsigned b = 2; b <= 62; b++)
        assert_true(seen[b]);
    assert_true(near62 && near61);
    assert_int_equal(NB_MAX_PRIME_BITS, 62);
}

int main(void)
{
    nb_test_seed_init();
    if (getenv("NB_TEST_FILTER")) /* run only the tests matching this pattern */
        cmocka_set_test_filter(getenv("NB_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prime_list_covers_every_size_and_the_extremes),
        cmocka_unit_test(test_mulhi_and_mul_wide_equal_gmp_product),
        cmocka_unit_test(test_add_mod_equals_gmp_and_is_reduced),
        cmocka_unit_test(test_sub_mod_equals_gmp_and_is_reduced),
        cmocka_unit_test(test_neg_mod_equals_gmp_and_is_reduced),
        cmocka_unit_test(test_reduce_2q_and_4q_equal_gmp_remainder),
        cmocka_unit_test(test_csub_subtracts_exactly_when_x_reaches_m),
        cmocka_unit_test(test_barrett_constant_is_floor_2_128_over_q),
        cmocka_unit_test(test_reduce_128_equals_gmp_for_any_128_bit_value),
        cmocka_unit_test(test_neg_inv_2_64_inverts_odd_words),
        cmocka_unit_test(test_redc_128_is_exact_and_bounded),
        cmocka_unit_test(test_reduce_64_equals_gmp_for_any_64_bit_value),
        cmocka_unit_test(test_mul_mod_equals_gmp_for_any_64_bit_operands),
        cmocka_unit_test(test_shoup_constant_is_floor_w_2_64_over_q),
        cmocka_unit_test(test_shoup_recover_returns_the_twiddle_for_every_nonzero_w),
        cmocka_unit_test(test_mul_shoup_lazy_is_congruent_and_below_2q_for_any_64_bit_input),
        cmocka_unit_test(test_mul_shoup_equals_gmp_and_is_reduced),
        cmocka_unit_test(test_ct_butterfly_is_congruent_and_stays_below_4q),
        cmocka_unit_test(test_gs_butterfly_is_congruent_and_stays_below_2q),
        cmocka_unit_test(test_gs_butterflies_2q_and_4q_are_congruent_and_keep_their_ranges),
        cmocka_unit_test(test_mul_sub_lo_w32_equals_the_64_bit_formula_for_any_words),
        cmocka_unit_test(test_ct_butterflies_6q_and_8q_are_congruent_and_keep_their_ranges),
        cmocka_unit_test(test_reduce_8q_equals_gmp_remainder),
    };
    return cmocka_run_group_tests(tests, setup_primes, NULL);
}

/* ntt/primes.h against GMP and the definitions: primality (random values,
 * Carmichael numbers, strong pseudoprimes), NTT prime generation (prime,
 * q = 1 mod 2N, below 2^bits, decreasing, the largest ones, skip list,
 * determinism, errors), minimal primitive roots (psi^N = -1, minimal by brute
 * force for small q), modular helpers, and argument validation. */
#include <gmp.h>
#include <string.h>

#include "ntt/arith.h"
#include "gmputil.h"
#include "testutil.h"

static void expect_error(nb_status got, nb_status want)
{
    assert_int_equal(got, want);
    assert_true(strlen(nb_last_error()) > 0);
    nb_clear_error();
}

/* ---- primality ---- */

static void test_is_prime_matches_gmp_below_2_20(void **state)
{
    (void)state;
    for (uint64_t n = 0; n < (1u << 20); n++)
        if (nb_is_prime(n) != gmp_is_prime(n))
            nb_test_fail("nb_is_prime(%" PRIu64 ") = %d", n, nb_is_prime(n));
}

static void test_is_prime_matches_gmp_on_random_64_bit_values(void **state)
{
    (void)state;
    for (int i = 0; i < 200000; i++) {
        /* random values of every size; odd ones more often (more work) */
        uint64_t n = nb_test_rand() >> (nb_test_rand() % 64);
        if (i & 1)
            n |= 1;
        if (nb_is_prime(n) != gmp_is_prime(n))
            nb_test_fail("nb_is_prime(%" PRIu64 ") = %d", n, nb_is_prime(n));
    }
    /* just below 2^64 */
    for (uint64_t n = ~0ull; n > ~0ull - 20000; n--)
        if (nb_is_prime(n) != gmp_is_prime(n))
            nb_test_fail("nb_is_prime(%" PRIu64 ") = %d", n, nb_is_prime(n));
}

static void test_is_prime_rejects_products_of_two_primes(void **state)
{
    (void)state;
    /* semiprimes p*r with p, r ~ 32 bits, and Monier-style (k+1)(2k+1)
     * products, which fool Fermat-type tests more often than random values */
    mpz_t z;
    mpz_init(z);
    for (int i = 0; i < 20000; i++) {
        mpz_set_ui(z, nb_test_rand() >> 33);
        mpz_nextprime(z, z);
        uint64_t p = mpz_get_ui(z);
        mpz_set_ui(z, nb_test_rand() >> 33);
        mpz_nextprime(z, z);
        uint64_t r = mpz_get_ui(z);
        if (nb_is_prime(p * r))
            nb_test_fail("%" PRIu64 " * %" PRIu64 " reported prime", p, r);
        assert_true(nb_is_prime(p) && nb_is_prime(r));
        uint64_t k = nb_test_rand() >> 34;
        if (gmp_is_prime(k + 1) && gmp_is_prime(2 * k + 1))
            assert_false(nb_is_prime((k + 1) * (2 * k + 1)));
        /* prime squares */
        assert_false(nb_is_prime(p * p));
    }
    mpz_clear(z);
}

static void test_is_prime_rejects_carmichael_and_strong_pseudoprimes(void **state)
{
    (void)state;
    static const uint64_t composites[] = {
        /* Carmichael numbers */
        561, 1105, 1729, 2465, 2821, 6601, 8911, 10585, 15841, 29341, 41041, 46657, 52633,
        62745, 63973, 75361, 101101, 115921, 126217, 162401, 172081, 188461, 252601,
        278545, 294409, 314821, 334153, 340561, 399001, 410041, 449065, 488881, 512461,
        /* strong pseudoprimes to base 2 */
        2047, 3277, 4033, 4681, 8321, 15841, 29341, 42799, 49141, 52633, 65281, 74665,
        80581, 85489, 88357, 90751,
        /* the smallest strong pseudoprimes to the first k prime bases */
        1373653ull,                 /* bases 2, 3 */
        25326001ull,                /* 2, 3, 5 */
        3215031751ull,              /* 2, 3, 5, 7 */
        2152302898747ull,           /* 2 .. 11 */
        3474749660383ull,           /* 2 .. 13 */
        341550071728321ull,         /* 2 .. 17 */
        3825123056546413051ull,     /* 2 .. 23 */
        /* squares and products of small primes the trial division must not miss */
        1369ull, 37ull * 41, 4ull, 9ull, 25ull, 49ull, 121ull, 169ull,
        /* large Carmichael-type products (6k+1)(12k+1)(18k+1) */
        (6ull * 4 + 1) * (12ull * 4 + 1) * (18ull * 4 + 1),
        (6ull * 45 + 1) * (12ull * 45 + 1) * (18ull * 45 + 1),
    };
    for (size_t i = 0; i < sizeof composites / sizeof composites[0]; i++) {
        assert_false(gmp_is_prime(composites[i]));
        if (nb_is_prime(composites[i]))
            nb_test_fail("composite %" PRIu64 " reported prime", composites[i]);
    }
    /* Chernick Carmichael numbers (6k+1)(12k+1)(18k+1) with three prime
     * factors, up to 2^64 */
    int found = 0;
    for (uint64_t k = 1; k < 1400000; k++) {
        const uint64_t a = 6 * k + 1, b = 12 * k + 1, c = 18 * k + 1;
        if (!gmp_is_prime(a) || !gmp_is_prime(b) || !gmp_is_prime(c))
            continue;
        unsigned __int128 n = (unsigned __int128)a * b * c;
        if (n >> 64)
            break;
        found++;
        assert_false(nb_is_prime((uint64_t)n));
    }
    assert_true(found > 10);
    static const uint64_t primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43,
                                      18446744073709551557ull, /* largest below 2^64 */
                                      4611686018427387847ull,  /* largest below 2^62 */
                                      786433ull, 12289ull};
    for (size_t i = 0; i < sizeof primes / sizeof primes[0]; i++) {
        assert_true(gmp_is_prime(primes[i]));
        assert_true(nb_is_prime(primes[i]));
    }
    assert_false(nb_is_prime(0));
    assert_false(nb_is_prime(1));
}

/* ---- modular helpers ---- */

static void test_pow_mod_and_inv_mod_match_gmp(void **state)
{
    (void)state;
    for (int i = 0; i < 20000; i++) {
        const uint64_t q = (nb_test_rand() >> (nb_test_rand() % 62)) | 3;
        const uint64_t a = nb_test_rand(), e = nb_test_rand() >> (nb_test_rand() % 64);
        assert_int_equal(nb_pow_mod(a, e, q), gmp_powmod(a % q, e, q));
    }
    mpz_t z, m;
    mpz_inits(z, m, NULL);
    for (int i = 0; i < 2000; i++) {
        mpz_set_ui(z, nb_test_rand() >> (nb_test_rand() % 61 + 2));
        mpz_nextprime(z, z);
        const uint64_t q = mpz_get_ui(z);
        const uint64_t a = 1 + nb_test_rand_below(q - 1);
        mpz_set_ui(z, a);
        mpz_set_ui(m, q);
        assert_true(mpz_invert(z, z, m));
        assert_int_equal(nb_inv_mod(a, q), mpz_get_ui(z));
    }
    mpz_clears(z, m, NULL);
    assert_int_equal(nb_pow_mod(5, 0, 7), 1);
    assert_int_equal(nb_pow_mod(0, 0, 7), 1);
}

static void test_bitrev_reverses_low_bits(void **state)
{
    (void)state;
    for (unsigned bits = 1; bits <= 20; bits++)
        for (int i = 0; i < 2000; i++) {
            uint32_t x = (uint32_t)nb_test_rand_below(1u << bits);
            uint32_t r = nb_bitrev(x, bits);
            for (unsigned b = 0; b < bits; b++)
                assert_int_equal((r >> b) & 1, (x >> (bits - 1 - b)) & 1);
            assert_true(r < (1u << bits));
        }
}

/* ---- prime generation ---- */

/* Checks every property of a generated list: prime, = 1 mod 2N, < 2^bits,
 * strictly decreasing, not in skip, and maximal: every candidate c = 1 mod 2N
 * in (out[count-1], 2^bits) that is not listed is composite or skipped. */
static void check_generated(unsigned log_n, unsigned bits, const uint64_t *out, size_t count,
                            const uint64_t *skip, size_t n_skip)
{
    const uint64_t m = 2ull << log_n;
    for (size_t i = 0; i < count; i++) {
        assert_true(gmp_is_prime(out[i]));
        assert_int_equal(out[i] % m, 1);
        assert_true(out[i] < (1ull << bits));
        if (i)
            assert_true(out[i] < out[i - 1]);
        for (size_t s = 0; s < n_skip; s++)
            assert_true(out[i] != skip[s]);
    }
    size_t next = 0;
    for (uint64_t c = (((1ull << bits) - 1) / m) * m + 1; c >= out[count - 1]; c -= m) {
        if (c >= (1ull << bits))
            continue;
        if (next < count && c == out[next]) {
            next++;
            continue;
        }
        int skipped = 0;
        for (size_t s = 0; s < n_skip; s++)
            skipped |= skip[s] == c;
        if (!skipped && gmp_is_prime(c))
            nb_test_fail("log_n=%u bits=%u: prime candidate %" PRIu64 " was skipped", log_n,
                         bits, c);
    }
    assert_int_equal(next, count);
}

static void test_generated_primes_are_the_largest_ntt_primes(void **state)
{
    (void)state;
    uint64_t out[40];
    for (unsigned log_n = 1; log_n <= 17; log_n++) {
        for (unsigned bits = 20; bits <= 62; bits += 1 + (unsigned)nb_test_rand_below(6)) {
            const size_t count = 1 + (size_t)nb_test_rand_below(40);
            nb_status s = nb_primes_generate(log_n, bits, count, NULL, 0, out);
            if (s != NB_OK) {
                /* legitimately too few primes of this size: check that claim */
                assert_int_equal(s, NB_ERR_INVALID_ARG);
                assert_true(bits <= log_n + 12);
                continue;
            }
            check_generated(log_n, bits, out, count, NULL, 0);
        }
        /* always the top sizes */
        assert_int_equal(nb_primes_generate(log_n, 62, 8, NULL, 0, out), NB_OK);
        check_generated(log_n, 62, out, 8, NULL, 0);
        assert_int_equal(nb_primes_generate(log_n, 61, 8, NULL, 0, out), NB_OK);
        check_generated(log_n, 61, out, 8, NULL, 0);
    }
}

static void test_generated_primes_at_small_sizes(void **state)
{
    (void)state;
    uint64_t out[64];
    for (unsigned log_n = 1; log_n <= 4; log_n++)
        for (unsigned bits = log_n + 2; bits <= 19; bits++) {
            /* ask for as many as exist: count them by brute force */
            const uint64_t m = 2ull << log_n;
            size_t avail = 0;
            for (uint64_t c = m + 1; c < (1ull << bits); c += m) /* exactly `bits` bits */
                avail += c > (1ull << (bits - 1)) && gmp_is_prime(c);
            const size_t count = avail < 64 ? avail : 64;
            if (count == 0) {
                expect_error(nb_primes_generate(log_n, bits, 1, NULL, 0, out), NB_ERR_INVALID_ARG);
                continue;
            }
            assert_int_equal(nb_primes_generate(log_n, bits, count, NULL, 0, out), NB_OK);
            check_generated(log_n, bits, out, count, NULL, 0);
            if (avail < 64)
                expect_error(nb_primes_generate(log_n, bits, avail + 1, NULL, 0, out),
                             NB_ERR_INVALID_ARG);
        }
}

static void test_generated_primes_respect_skip_list(void **state)
{
    (void)state;
    for (unsigned log_n = 1; log_n <= 17; log_n += 4) {
        uint64_t q_base[10], p_base[6], all[16];
        /* take a Q basis, then a P basis skipping it: disjoint, and together
         * they are exactly the 16 largest primes */
        assert_int_equal(nb_primes_generate(log_n, 55, 10, NULL, 0, q_base), NB_OK);
        assert_int_equal(nb_primes_generate(log_n, 55, 6, q_base, 10, p_base), NB_OK);
        assert_int_equal(nb_primes_generate(log_n, 55, 16, NULL, 0, all), NB_OK);
        check_generated(log_n, 55, p_base, 6, q_base, 10);
        for (size_t i = 0; i < 6; i++)
            for (size_t j = 0; j < 10; j++)
                assert_true(p_base[i] != q_base[j]);
        assert_memory_equal(all, q_base, sizeof q_base);
        assert_memory_equal(all + 10, p_base, sizeof p_base);
        /* a sparse skip list of random members, plus non-members */
        uint64_t skip[5] = {all[3], all[7], 12345, all[0], 1};
        uint64_t out[11];
        assert_int_equal(nb_primes_generate(log_n, 55, 11, skip, 5, out), NB_OK);
        check_generated(log_n, 55, out, 11, skip, 5);
    }
}

static void test_generation_is_deterministic(void **state)
{
    (void)state;
    uint64_t a[32], b[32];
    for (int i = 0; i < 20; i++) {
        const unsigned log_n = 1 + (unsigned)nb_test_rand_below(17);
        const unsigned bits = 40 + (unsigned)nb_test_rand_below(23);
        memset(a, 0, sizeof a);
        memset(b, 0xA5, sizeof b);
        assert_int_equal(nb_primes_generate(log_n, bits, 32, NULL, 0, a), NB_OK);
        assert_int_equal(nb_primes_generate(log_n, bits, 32, NULL, 0, b), NB_OK);
        assert_memory_equal(a, b, sizeof a);
    }
}

static void test_generation_errors_when_too_few_primes_exist(void **state)
{
    (void)state;
    uint64_t out[8];
    /* q = 1 mod 2^18 below 2^20: only 786433 */
    assert_int_equal(nb_primes_generate(17, 20, 1, NULL, 0, out), NB_OK);
    assert_int_equal(out[0], 786433);
    expect_error(nb_primes_generate(17, 20, 2, NULL, 0, out), NB_ERR_INVALID_ARG);
    expect_error(nb_primes_generate(17, 20, 1, out, 1, out + 1), NB_ERR_INVALID_ARG);
    /* no candidate at all: 2N + 1 >= 2^bits */
    expect_error(nb_primes_generate(17, 18, 1, NULL, 0, out), NB_ERR_INVALID_ARG);
    expect_error(nb_primes_generate(1, 2, 1, NULL, 0, out), NB_ERR_INVALID_ARG);
    expect_error(nb_primes_generate(10, 11, 1, NULL, 0, out), NB_ERR_INVALID_ARG);
    /* 2^12 + 1 = 4097 = 17 * 241 is the only candidate below 2^13 for 2N = 4096 */
    expect_error(nb_primes_generate(11, 13, 1, NULL, 0, out), NB_ERR_INVALID_ARG);
}

static void test_generation_rejects_bad_arguments(void **state)
{
    (void)state;
    uint64_t out[4], skip[1] = {3};
    expect_error(nb_primes_generate(0, 40, 1, NULL, 0, out), NB_ERR_INVALID_ARG);
    expect_error(nb_primes_generate(18, 40, 1, NULL, 0, out), NB_ERR_INVALID_ARG);
    expect_error(nb_primes_generate(5, 1, 1, NULL, 0, out), NB_ERR_INVALID_ARG);
    expect_error(nb_primes_generate(5, 63, 1, NULL, 0, out), NB_ERR_INVALID_ARG);
    expect_error(nb_primes_generate(5, 64, 1, NULL, 0, out), NB_ERR_INVALID_ARG);
    expect_error(nb_primes_generate(5, 40, 0, NULL, 0, out), NB_ERR_INVALID_ARG);
    expect_error(nb_primes_generate(5, 40, 1, NULL, 0, NULL), NB_ERR_INVALID_ARG);
    expect_error(nb_primes_generate(5, 40, 1, NULL, 3, out), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_primes_generate(5, 40, 1, skip, 1, out), NB_OK);
}

/* ---- roots ---- */

static void test_minimal_root_is_primitive_and_minimal(void **state)
{
    (void)state;
    uint64_t qs[16];
    for (unsigned log_n = 1; log_n <= 17; log_n++) {
        /* small primes: brute force over every x < psi */
        const unsigned small_bits = log_n + 6 > 20 ? log_n + 6 : 20;
        size_t nq = 0;
        assert_int_equal(nb_primes_generate(log_n, small_bits < 24 ? small_bits : 24, 1, NULL,
                                            0, qs), NB_OK);
        nq++;
        /* and large ones, brute-forced as long as psi is small enough */
        assert_int_equal(nb_primes_generate(log_n, 62, 4, NULL, 0, qs + nq), NB_OK);
        nq += 4;
        assert_int_equal(nb_primes_generate(log_n, 30 + log_n, 3, NULL, 0, qs + nq), NB_OK);
        nq += 3;
        for (size_t i = 0; i < nq; i++) {
            const uint64_t q = qs[i], n = 1ull << log_n;
            uint64_t psi = 0;
            assert_int_equal(nb_root_minimal(q, log_n, &psi), NB_OK);
            assert_true(psi >= 2 && psi < q);
            assert_int_equal(gmp_powmod(psi, n, q), q - 1);
            assert_int_equal(nb_root_validate(psi, q, log_n), NB_OK);
            if (psi < (1u << 22))
                for (uint64_t x = 2; x < psi; x++)
                    if (gmp_powmod(x, n, q) == q - 1)
                        nb_test_fail("q=%" PRIu64 " log_n=%u: %" PRIu64
                                     " is a smaller primitive root than %" PRIu64,
                                     q, log_n, x, psi);
        }
    }
}

static void test_minimal_root_by_brute_force_for_tiny_primes(void **state)
{
    (void)state;
    /* every NTT prime below 2^14 for log_n 1..6: the minimum found by full
     * search, x^N computed by N-1 plain multiplications */
    for (unsigned log_n = 1; log_n <= 6; log_n++) {
        const uint64_t m = 2ull << log_n;
        for (uint64_t q = m + 1; q < (1u << 14); q += m) {
            if (!gmp_is_prime(q))
                continue;
            uint64_t want = 0;
            for (uint64_t x = 2; x < q && !want; x++) {
                uint64_t p = x;
                for (uint64_t e = 1; e < m / 2; e++)
                    p = p * x % q;
                if (p == q - 1)
                    want = x;
            }
            uint64_t psi = 0;
            assert_int_equal(nb_root_minimal(q, log_n, &psi), NB_OK);
            assert_int_equal(psi, want);
        }
    }
}

static void test_root_validate_rejects_non_primitive_roots(void **state)
{
    (void)state;
    for (unsigned log_n = 1; log_n <= 17; log_n++) {
        uint64_t q, psi;
        assert_int_equal(nb_primes_generate(log_n, 50, 1, NULL, 0, &q), NB_OK);
        assert_int_equal(nb_root_minimal(q, log_n, &psi), NB_OK);
        assert_int_equal(nb_root_validate(psi, q, log_n), NB_OK);
        /* odd powers of psi are primitive, even powers are not */
        const uint64_t psi3 = gmp_powmod(psi, 3, q), psi2 = gmp_powmod(psi, 2, q);
        assert_int_equal(nb_root_validate(psi3, q, log_n), NB_OK);
        expect_error(nb_root_validate(psi2, q, log_n), NB_ERR_INVALID_ARG);
        expect_error(nb_root_validate(1, q, log_n), NB_ERR_INVALID_ARG);
        expect_error(nb_root_validate(q - 1, q, log_n), NB_ERR_INVALID_ARG); /* order 2 */
        expect_error(nb_root_validate(0, q, log_n), NB_ERR_INVALID_ARG);
        expect_error(nb_root_validate(q, q, log_n), NB_ERR_INVALID_ARG);
        expect_error(nb_root_validate(q + psi, q, log_n), NB_ERR_INVALID_ARG);
        /* a root of the wrong size: primitive 4N-th root is not a 2N-th root */
        if (log_n < 17) {
            uint64_t q2, psi_big;
            if (nb_primes_generate(log_n + 1, 50, 1, NULL, 0, &q2) == NB_OK &&
                nb_root_minimal(q2, log_n + 1, &psi_big) == NB_OK)
                expect_error(nb_root_validate(psi_big, q2, log_n), NB_ERR_INVALID_ARG);
        }
    }
}

static void test_prime_validate_names_each_failure(void **state)
{
    (void)state;
    const unsigned log_n = 10;
    uint64_t q;
    assert_int_equal(nb_primes_generate(log_n, 40, 1, NULL, 0, &q), NB_OK);
    assert_int_equal(nb_prime_validate(q, log_n), NB_OK);
    expect_error(nb_prime_validate(q, 0), NB_ERR_INVALID_ARG);
    expect_error(nb_prime_validate(q, 18), NB_ERR_INVALID_ARG);
    expect_error(nb_prime_validate(0, log_n), NB_ERR_INVALID_ARG);
    expect_error(nb_prime_validate(1, log_n), NB_ERR_INVALID_ARG);
    expect_error(nb_prime_validate(2, log_n), NB_ERR_INVALID_ARG);
    expect_error(nb_prime_validate(q + 2, log_n), NB_ERR_INVALID_ARG); /* not 1 mod 2N */
    expect_error(nb_prime_validate(1ull << 40, log_n), NB_ERR_INVALID_ARG);
    /* composite = 1 mod 2N */
    expect_error(nb_prime_validate(2049ull * 4097ull, log_n), NB_ERR_INVALID_ARG);
    /* prime, but not 1 mod 2N (NTT-unfriendly) */
    assert_int_equal(nb_prime_validate(1000000007ull, log_n), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "NTT"));
    /* an NTT prime, but >= 2^62 */
    const uint64_t m = 2ull << log_n;
    uint64_t big = ((~0ull - 1) / m) * m + 1;
    while (!gmp_is_prime(big))
        big -= m;
    expect_error(nb_prime_validate(big, log_n), NB_ERR_INVALID_ARG);
    uint64_t q62;
    assert_int_equal(nb_primes_generate(log_n, 62, 1, NULL, 0, &q62), NB_OK);
    assert_int_equal(nb_prime_validate(q62, log_n), NB_OK);
    for (uint64_t c = (1ull << 62) + 1; c < (1ull << 62) + 100 * m; c += m)
        if (gmp_is_prime(c))
            expect_error(nb_prime_validate(c, log_n), NB_ERR_INVALID_ARG);
}

static void test_root_minimal_rejects_bad_arguments(void **state)
{
    (void)state;
    uint64_t psi = 77;
    expect_error(nb_root_minimal(12289, 10, NULL), NB_ERR_INVALID_ARG);
    expect_error(nb_root_minimal(12289, 13, &psi), NB_ERR_INVALID_ARG); /* 12289 = 3*2^12+1 */
    expect_error(nb_root_minimal(12288, 10, &psi), NB_ERR_INVALID_ARG);
    expect_error(nb_root_minimal(12289, 0, &psi), NB_ERR_INVALID_ARG);
    expect_error(nb_root_minimal(12289, 18, &psi), NB_ERR_INVALID_ARG);
    assert_int_equal(psi, 77); /* untouched on error */
    assert_int_equal(nb_root_minimal(12289, 11, &psi), NB_OK);
    assert_int_equal(gmp_powmod(psi, 2048, 12289), 12288);
}

int main(void)
{
    nb_test_seed_init();
    if (getenv("NB_TEST_FILTER")) /* run only the tests matching this pattern */
        cmocka_set_test_filter(getenv("NB_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_is_prime_matches_gmp_below_2_20),
        cmocka_unit_test(test_is_prime_matches_gmp_on_random_64_bit_values),
        cmocka_unit_test(test_is_prime_rejects_products_of_two_primes),
        cmocka_unit_test(test_is_prime_rejects_carmichael_and_strong_pseudoprimes),
        cmocka_unit_test(test_pow_mod_and_inv_mod_match_gmp),
        cmocka_unit_test(test_bitrev_reverses_low_bits),
        cmocka_unit_test(test_generated_primes_are_the_largest_ntt_primes),
        cmocka_unit_test(test_generated_primes_at_small_sizes),
        cmocka_unit_test(test_generated_primes_respect_skip_list),
        cmocka_unit_test(test_generation_is_deterministic),
        cmocka_unit_test(test_generation_errors_when_too_few_primes_exist),
        cmocka_unit_test(test_generation_rejects_bad_arguments),
        cmocka_unit_test(test_minimal_root_is_primitive_and_minimal),
        cmocka_unit_test(test_minimal_root_by_brute_force_for_tiny_primes),
        cmocka_unit_test(test_root_validate_rejects_non_primitive_roots),
        cmocka_unit_test(test_prime_validate_names_each_failure),
        cmocka_unit_test(test_root_minimal_rejects_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

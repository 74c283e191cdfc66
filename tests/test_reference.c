/* Self-checks of the GMP reference's transform and product (reference/
 * ntt_ref.c, poly_ref.c) against the definitions: the O(N log N) transform
 * against direct evaluation a(psi^(2*brv(k)+1)) (every point for N <= 2^10,
 * 64 random points up to 2^17), inverse against forward, the schoolbook
 * product against a naive fold and algebraic identities. Primes and roots
 * are found here with GMP so that the reference is checked independently of
 * ntt/. Its CRT: test_reference_crt.c. */
#include <gmp.h>
#include <string.h>

#include "ntt/arith.h"
#include "reference/reference.h"
#include "gmputil.h"
#include "testutil.h"

/* ---- independent helpers (GMP and the 128-bit product mod q) ---- */

/* The `skip`-th largest prime q < 2^bits with q = 1 mod 2^(log_n+1). */
static uint64_t ntt_prime(unsigned log_n, unsigned bits, unsigned skip)
{
    const uint64_t m = 2ull << log_n;
    uint64_t c = (((1ull << bits) - 2) / m) * m + 1;
    for (; c > m; c -= m)
        if (gmp_is_prime(c) && skip-- == 0)
            return c;
    fail_msg("no NTT prime for log_n=%u bits=%u", log_n, bits);
    return 0;
}

/* A random primitive 2N-th root of unity mod q. */
static uint64_t random_root(uint64_t q, unsigned log_n)
{
    const uint64_t n = 1ull << log_n;
    for (;;) {
        uint64_t x = 2 + nb_test_rand_below(q - 2);
        uint64_t r = gmp_powmod(x, (q - 1) / (2 * n), q);
        if (gmp_powmod(r, n, q) == q - 1)
            return r;
    }
}

/* Random bit size in [lo, hi]. */
static unsigned rand_bits(unsigned lo, unsigned hi)
{
    return lo + (unsigned)nb_test_rand_below(hi - lo + 1);
}

/* A prime of the requested size for log_n, randomly among the few largest. */
static uint64_t some_prime(unsigned log_n, unsigned bits)
{
    if (bits < log_n + 6)
        bits = log_n + 6;
    return ntt_prime(log_n, bits, (unsigned)nb_test_rand_below(3));
}

static uint64_t *random_poly(size_t n, uint64_t q)
{
    uint64_t *a = malloc(n * sizeof *a);
    assert_non_null(a);
    nb_test_fill_residues(a, n, &q, 1);
    return a;
}

/* ---- the transform ---- */

static void test_forward_equals_direct_evaluation_at_every_point(void **state)
{
    (void)state;
    const unsigned sizes[] = {20, 31, 45, 59, 62};
    for (unsigned log_n = 1; log_n <= 10; log_n++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            const size_t n = (size_t)1 << log_n;
            const uint64_t q = some_prime(log_n, sizes[s]);
            const uint64_t psi = random_root(q, log_n);
            uint64_t *a = random_poly(n, q), *f = malloc(n * sizeof *f);
            memcpy(f, a, n * sizeof *f);
            assert_int_equal(nb_ref_ntt_forward(f, log_n, q, psi), NB_OK);
            for (size_t k = 0; k < n; k++) {
                /* the definition, written out here once more */
                const uint64_t x = gmp_powmod(psi, 2 * (uint64_t)nb_ref_bitrev((uint32_t)k, log_n) + 1, q);
                uint64_t v = 0, xp = 1;
                for (size_t i = 0; i < n; i++) {
                    v = (uint64_t)(((unsigned __int128)a[i] * xp + v) % q);
                    xp = nb_mul_mod_host(xp, x, q);
                }
                if (f[k] != v)
                    nb_test_fail("log_n=%u q=%" PRIu64 " psi=%" PRIu64 " k=%zu: %" PRIu64
                                 " != %" PRIu64, log_n, q, psi, k, f[k], v);
                assert_int_equal(nb_ref_ntt_eval_point(a, log_n, q, psi, k), v);
            }
            free(a);
            free(f);
        }
    }
}

static void test_forward_equals_direct_evaluation_at_sampled_points(void **state)
{
    (void)state;
    for (unsigned log_n = 11; log_n <= 17; log_n++) {
        const size_t n = (size_t)1 << log_n;
        const uint64_t q = some_prime(log_n, rand_bits(20, 62));
        const uint64_t psi = random_root(q, log_n);
        uint64_t *a = random_poly(n, q), *f = malloc(n * sizeof *f);
        memcpy(f, a, n * sizeof *f);
        assert_int_equal(nb_ref_ntt_forward(f, log_n, q, psi), NB_OK);
        for (int s = 0; s < 64; s++) {
            /* always include both ends, then random points */
            size_t k = s == 0 ? 0 : s == 1 ? n - 1 : (size_t)nb_test_rand_below(n);
            uint64_t v = nb_ref_ntt_eval_point(a, log_n, q, psi, k);
            if (f[k] != v)
                nb_test_fail("log_n=%u q=%" PRIu64 " k=%zu: %" PRIu64 " != %" PRIu64, log_n, q,
                             k, f[k], v);
        }
        free(a);
        free(f);
    }
}

static void test_forward_direct_equals_fast_forward(void **state)
{
    (void)state;
    for (unsigned log_n = 1; log_n <= 9; log_n++) {
        const size_t n = (size_t)1 << log_n;
        const uint64_t q = some_prime(log_n, rand_bits(20, 62));
        const uint64_t psi = random_root(q, log_n);
        uint64_t *a = random_poly(n, q), *b = malloc(n * sizeof *b);
        memcpy(b, a, n * sizeof *b);
        assert_int_equal(nb_ref_ntt_forward(a, log_n, q, psi), NB_OK);
        assert_int_equal(nb_ref_ntt_forward_direct(b, log_n, q, psi), NB_OK);
        assert_memory_equal(a, b, n * sizeof *a);
        free(a);
        free(b);
    }
}

static void test_eval_point_equals_mpz_sum(void **state)
{
    (void)state;
    /* sum_i a_i psi^(e*i) with every power taken by mpz_powm */
    for (unsigned log_n = 1; log_n <= 8; log_n++) {
        const size_t n = (size_t)1 << log_n;
        const uint64_t q = some_prime(log_n, rand_bits(20, 62));
        const uint64_t psi = random_root(q, log_n);
        uint64_t *a = random_poly(n, q);
        mpz_t x, acc, term, qz;
        mpz_inits(x, acc, term, qz, NULL);
        mpz_set_ui(qz, q);
        for (int s = 0; s < 8; s++) {
            const size_t k = (size_t)nb_test_rand_below(n);
            const unsigned long e = 2ul * nb_ref_bitrev((uint32_t)k, log_n) + 1;
            mpz_set_ui(acc, 0);
            for (size_t i = 0; i < n; i++) {
                mpz_set_ui(x, psi);
                mpz_powm_ui(term, x, e * i, qz); /* psi^(e*i) mod q, unreduced exponent */
                mpz_mul_ui(term, term, a[i]);
                mpz_add(acc, acc, term);
                mpz_mod(acc, acc, qz);
            }
            assert_int_equal(nb_ref_ntt_eval_point(a, log_n, q, psi, k), mpz_get_ui(acc));
        }
        mpz_clears(x, acc, term, qz, NULL);
        free(a);
    }
}

static void test_inverse_of_forward_is_identity(void **state)
{
    (void)state;
    for (unsigned log_n = 1; log_n <= 17; log_n++) {
        const size_t n = (size_t)1 << log_n;
        const uint64_t q = some_prime(log_n, rand_bits(20, 62));
        const uint64_t psi = random_root(q, log_n);
        uint64_t *a = random_poly(n, q), *b = malloc(n * sizeof *b);
        memcpy(b, a, n * sizeof *b);
        assert_int_equal(nb_ref_ntt_forward(b, log_n, q, psi), NB_OK);
        assert_int_equal(nb_ref_ntt_inverse(b, log_n, q, psi), NB_OK);
        if (memcmp(a, b, n * sizeof *a) != 0)
            nb_test_fail("log_n=%u q=%" PRIu64 ": inverse(forward(a)) != a", log_n, q);
        free(a);
        free(b);
    }
}

static void test_forward_of_inverse_is_identity(void **state)
{
    (void)state;
    for (unsigned log_n = 1; log_n <= 14; log_n++) {
        const size_t n = (size_t)1 << log_n;
        const uint64_t q = some_prime(log_n, rand_bits(20, 62));
        const uint64_t psi = random_root(q, log_n);
        uint64_t *a = random_poly(n, q), *b = malloc(n * sizeof *b);
        memcpy(b, a, n * sizeof *b);
        assert_int_equal(nb_ref_ntt_inverse(b, log_n, q, psi), NB_OK);
        assert_int_equal(nb_ref_ntt_forward(b, log_n, q, psi), NB_OK);
        if (memcmp(a, b, n * sizeof *a) != 0)
            nb_test_fail("log_n=%u q=%" PRIu64 ": forward(inverse(a)) != a", log_n, q);
        free(a);
        free(b);
    }
}

static void test_inverse_of_unit_vector_is_scaled_point_values(void **state)
{
    (void)state;
    /* inverse(e_k)_i = N^-1 * x_k^-i with x_k = psi^(2 brv(k)+1): checks the
     * inverse directly, not only through the forward transform. */
    const unsigned log_n = 6;
    const size_t n = 64;
    const uint64_t q = some_prime(log_n, 50), psi = random_root(q, log_n);
    const uint64_t n_inv = gmp_powmod(n, q - 2, q);
    for (size_t k = 0; k < n; k++) {
        uint64_t e[64] = {0};
        e[k] = 1;
        assert_int_equal(nb_ref_ntt_inverse(e, log_n, q, psi), NB_OK);
        const uint64_t x = gmp_powmod(psi, 2 * (uint64_t)nb_ref_bitrev((uint32_t)k, log_n) + 1, q);
        const uint64_t x_inv = gmp_powmod(x, q - 2, q);
        uint64_t v = n_inv;
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(e[i], v);
            v = nb_mul_mod_host(v, x_inv, q);
        }
    }
}

static void test_forward_at_largest_primes(void **state)
{
    (void)state;
    /* the largest NTT primes below 2^62 and 2^61 and a tiny one, checked at
     * every point against eval_point */
    const unsigned log_n = 10;
    const size_t n = 1024;
    const uint64_t qs[] = {ntt_prime(log_n, 62, 0), ntt_prime(log_n, 61, 0),
                           ntt_prime(log_n, 14, 0)};
    for (size_t i = 0; i < 3; i++) {
        const uint64_t q = qs[i], psi = random_root(q, log_n);
        uint64_t *a = random_poly(n, q), *f = malloc(n * sizeof *f);
        for (size_t j = 0; j < n; j += 3)
            a[j] = q - 1; /* extreme coefficients */
        memcpy(f, a, n * sizeof *f);
        assert_int_equal(nb_ref_ntt_forward(f, log_n, q, psi), NB_OK);
        for (size_t k = 0; k < n; k++)
            assert_int_equal(f[k], nb_ref_ntt_eval_point(a, log_n, q, psi, k));
        free(a);
        free(f);
    }
}

static void test_structured_inputs_at_small_primes_equal_direct_evaluation(void **state)
{
    (void)state;
    /* zero, constant, monomial and all-(q-1) inputs at tiny primes, where
     * equal operands inside the transform are common: outputs must still be
     * reduced and equal the definition, and inverse must undo forward */
    const uint64_t qs[] = {17, 97, 257, 7681, 12289};
    for (size_t s = 0; s < sizeof qs / sizeof qs[0]; s++) {
        const uint64_t q = qs[s];
        for (unsigned log_n = 1; (2ull << log_n) <= q - 1 && log_n <= 8; log_n++) {
            if ((q - 1) % (2ull << log_n) != 0)
                continue;
            const size_t n = (size_t)1 << log_n;
            const uint64_t psi = random_root(q, log_n);
            uint64_t a[256], f[256];
            for (int pattern = 0; pattern < 24; pattern++) { /* 4..23: random in {0,1,2} */
                for (size_t i = 0; i < n; i++)
                    a[i] = pattern == 0   ? 0
                           : pattern == 1 ? 5 % q
                           : pattern == 2 ? (i == n / 2 ? q - 1 : 0)
                           : pattern == 3 ? q - 1
                                          : nb_test_rand_below(3);
                memcpy(f, a, n * sizeof *a);
                assert_int_equal(nb_ref_ntt_forward(f, log_n, q, psi), NB_OK);
                for (size_t k = 0; k < n; k++) {
                    assert_true(f[k] < q);
                    assert_int_equal(f[k], nb_ref_ntt_eval_point(a, log_n, q, psi, k));
                }
                assert_int_equal(nb_ref_ntt_inverse(f, log_n, q, psi), NB_OK);
                assert_memory_equal(f, a, n * sizeof *a);
            }
        }
    }
}

static void test_bitrev_matches_definition(void **state)
{
    (void)state;
    for (unsigned bits = 0; bits <= 17; bits++) {
        for (uint32_t x = 0; x < (1u << bits) && x < 5000; x++) {
            uint32_t r = nb_ref_bitrev(x, bits);
            for (unsigned i = 0; i < bits; i++)
                assert_int_equal((r >> i) & 1, (x >> (bits - 1 - i)) & 1);
            assert_true(r < (1u << bits));
            assert_int_equal(nb_ref_bitrev(r, bits), x);
        }
    }
}

static void test_params_valid_accepts_only_ntt_parameters(void **state)
{
    (void)state;
    const unsigned log_n = 5;
    const uint64_t q = ntt_prime(log_n, 40, 0), psi = random_root(q, log_n);
    assert_true(nb_ref_params_valid(log_n, q, psi));
    assert_false(nb_ref_params_valid(0, q, psi));
    assert_false(nb_ref_params_valid(18, q, psi));
    assert_false(nb_ref_params_valid(log_n, q + 2, psi)); /* not 1 mod 2N */
    assert_false(nb_ref_params_valid(log_n, q, nb_mul_mod_host(psi, psi, q))); /* order N */
    assert_false(nb_ref_params_valid(log_n, q, 0));
    assert_false(nb_ref_params_valid(log_n, q, q));
    assert_false(nb_ref_params_valid(log_n, q, 1));
    /* a prime = 1 mod 2N but >= 2^62 */
    const uint64_t m = 2ull << log_n;
    uint64_t big = ((~0ull - 1) / m) * m + 1;
    while (!gmp_is_prime(big))
        big -= m;
    assert_false(nb_ref_params_valid(log_n, big, random_root(big, log_n)));
    /* composite q = 1 mod 2N: (2N+1)(4N+1) */
    assert_false(nb_ref_params_valid(log_n, (m + 1) * (2 * m + 1), 3));
}

static void test_transforms_reject_bad_arguments_and_leave_input(void **state)
{
    (void)state;
    const unsigned log_n = 4;
    const size_t n = 16;
    const uint64_t q = ntt_prime(log_n, 30, 0), psi = random_root(q, log_n);
    uint64_t *a = random_poly(n, q), *b = malloc(n * sizeof *b);
    memcpy(b, a, n * sizeof *b);
    nb_status (*fns[])(uint64_t *, unsigned, uint64_t, uint64_t) = {
        nb_ref_ntt_forward, nb_ref_ntt_inverse, nb_ref_ntt_forward_direct};
    for (size_t f = 0; f < 3; f++) {
        assert_int_equal(fns[f](NULL, log_n, q, psi), NB_ERR_INVALID_ARG);
        assert_int_equal(fns[f](b, 0, q, psi), NB_ERR_INVALID_ARG);
        assert_int_equal(fns[f](b, 18, q, psi), NB_ERR_INVALID_ARG);
        assert_int_equal(fns[f](b, log_n, q + 2, psi), NB_ERR_INVALID_ARG);  /* not 1 mod 2N */
        {
            /* composite q = 97 * 193 = 1 mod 32 with a "root" psi^16 = -1 */
            const uint64_t qc = 97 * 193;
            uint64_t r1 = random_root(97, log_n), r2 = random_root(193, log_n), pc = r1;
            while (pc % 193 != r2)
                pc += 97;
            assert_int_equal(gmp_powmod(pc, 16, qc), qc - 1);
            uint64_t small[16];
            for (int i = 0; i < 16; i++)
                small[i] = nb_test_rand_below(qc);
            assert_int_equal(fns[f](small, log_n, qc, pc), NB_ERR_INVALID_ARG);
        }
        assert_int_equal(fns[f](b, log_n, q, nb_mul_mod_host(psi, psi, q)), NB_ERR_INVALID_ARG);
        assert_int_equal(fns[f](b, log_n, q, 0), NB_ERR_INVALID_ARG);
        assert_int_equal(fns[f](b, log_n, q, q + psi), NB_ERR_INVALID_ARG);
        b[7] = q; /* unreduced coefficient */
        assert_int_equal(fns[f](b, log_n, q, psi), NB_ERR_INVALID_ARG);
        b[7] = a[7];
        assert_memory_equal(a, b, n * sizeof *a);
    }
    assert_int_equal(nb_ref_ntt_eval_point(a, log_n, q, psi, n), UINT64_MAX);
    assert_int_equal(nb_ref_ntt_eval_point(NULL, log_n, q, psi, 0), UINT64_MAX);
    assert_int_equal(nb_ref_ntt_eval_point(a, log_n, q, 1, 0), UINT64_MAX);
    free(a);
    free(b);
}

/* ---- the schoolbook product ---- */

/* Naive definition: full product of length 2N-1, then fold X^(N+i) = -X^i. */
static void naive_negacyclic(uint64_t *out, const uint64_t *a, const uint64_t *b, size_t n,
                             uint64_t q)
{
    uint64_t *full = calloc(2 * n, sizeof *full);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            full[i + j] = (full[i + j] + nb_mul_mod_host(a[i], b[j], q)) % q;
    for (size_t i = 0; i < n; i++)
        out[i] = (full[i] + q - full[i + n]) % q;
    free(full);
}

static void test_negacyclic_mul_equals_naive_fold(void **state)
{
    (void)state;
    for (unsigned log_n = 1; log_n <= 8; log_n++) {
        const size_t n = (size_t)1 << log_n;
        /* any modulus: NTT primes, a 62-bit prime, and a composite */
        const uint64_t qs[] = {some_prime(log_n, rand_bits(20, 62)), ntt_prime(1, 62, 0),
                               1000000007ull * 3, 2};
        for (size_t s = 0; s < 4; s++) {
            const uint64_t q = qs[s];
            uint64_t *a = malloc(n * 8), *b = malloc(n * 8), *c = malloc(n * 8), *d = malloc(n * 8);
            for (size_t i = 0; i < n; i++) {
                a[i] = nb_test_rand_below(q);
                b[i] = nb_test_rand_below(q);
                c[i] = NB_TEST_POISON;
            }
            assert_int_equal(nb_ref_negacyclic_mul(c, a, b, log_n, q), NB_OK);
            naive_negacyclic(d, a, b, n, q);
            assert_memory_equal(c, d, n * 8);
            free(a), free(b), free(c), free(d);
        }
    }
}

static void test_negacyclic_mul_by_monomial_is_negacyclic_shift(void **state)
{
    (void)state;
    for (unsigned log_n = 1; log_n <= 9; log_n++) {
        const size_t n = (size_t)1 << log_n;
        const uint64_t q = some_prime(log_n, rand_bits(20, 62));
        uint64_t *a = random_poly(n, q), *x = calloc(n, 8), *c = malloc(n * 8);
        for (int s = 0; s < 4; s++) {
            const size_t k = s == 0 ? 0 : s == 1 ? n - 1 : (size_t)nb_test_rand_below(n);
            const uint64_t coef = 1 + nb_test_rand_below(q - 1);
            memset(x, 0, n * 8);
            x[k] = coef; /* coef * X^k */
            assert_int_equal(nb_ref_negacyclic_mul(c, a, x, log_n, q), NB_OK);
            for (size_t i = 0; i < n; i++) {
                /* X^k * a_j X^j: lands at i = j + k, negated if it wraps */
                uint64_t want = i >= k ? nb_mul_mod_host(a[i - k], coef, q)
                                       : (q - nb_mul_mod_host(a[i + n - k], coef, q)) % q;
                assert_int_equal(c[i], want);
            }
        }
        free(a), free(x), free(c);
    }
}

static void test_negacyclic_mul_is_commutative_and_bilinear(void **state)
{
    (void)state;
    for (unsigned log_n = 1; log_n <= 10; log_n++) {
        const size_t n = (size_t)1 << log_n;
        const uint64_t q = some_prime(log_n, rand_bits(20, 62));
        const uint64_t lam = 2 + nb_test_rand_below(q - 2);
        uint64_t *a = random_poly(n, q), *b = random_poly(n, q), *c = random_poly(n, q);
        uint64_t *ab = malloc(n * 8), *ba = malloc(n * 8), *ac = malloc(n * 8),
                 *bc = malloc(n * 8), *a_bc = malloc(n * 8), *la = malloc(n * 8),
                 *la_b = malloc(n * 8);
        for (size_t i = 0; i < n; i++) {
            bc[i] = (b[i] + c[i]) % q;
            la[i] = nb_mul_mod_host(lam, a[i], q);
        }
        assert_int_equal(nb_ref_negacyclic_mul(ab, a, b, log_n, q), NB_OK);
        assert_int_equal(nb_ref_negacyclic_mul(ba, b, a, log_n, q), NB_OK);
        assert_int_equal(nb_ref_negacyclic_mul(ac, a, c, log_n, q), NB_OK);
        assert_int_equal(nb_ref_negacyclic_mul(a_bc, a, bc, log_n, q), NB_OK);
        assert_int_equal(nb_ref_negacyclic_mul(la_b, la, b, log_n, q), NB_OK);
        assert_memory_equal(ab, ba, n * 8);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(a_bc[i], (ab[i] + ac[i]) % q);
            assert_int_equal(la_b[i], nb_mul_mod_host(lam, ab[i], q));
            assert_true(ab[i] < q);
        }
        free(a), free(b), free(c), free(ab), free(ba), free(ac), free(bc), free(a_bc);
        free(la), free(la_b);
    }
}

static void test_reference_ntt_diagonalizes_negacyclic_product(void **state)
{
    (void)state;
    /* convolution theorem: NTT(a*b) = NTT(a) . NTT(b) pointwise */
    for (unsigned log_n = 1; log_n <= 10; log_n++) {
        const size_t n = (size_t)1 << log_n;
        const uint64_t q = some_prime(log_n, rand_bits(20, 62));
        const uint64_t psi = random_root(q, log_n);
        uint64_t *a = random_poly(n, q), *b = random_poly(n, q), *c = malloc(n * 8);
        assert_int_equal(nb_ref_negacyclic_mul(c, a, b, log_n, q), NB_OK);
        assert_int_equal(nb_ref_ntt_forward(a, log_n, q, psi), NB_OK);
        assert_int_equal(nb_ref_ntt_forward(b, log_n, q, psi), NB_OK);
        assert_int_equal(nb_ref_ntt_forward(c, log_n, q, psi), NB_OK);
        for (size_t k = 0; k < n; k++)
            assert_int_equal(c[k], nb_mul_mod_host(a[k], b[k], q));
        free(a), free(b), free(c);
    }
}

static void test_negacyclic_mul_rejects_bad_arguments(void **state)
{
    (void)state;
    const unsigned log_n = 3;
    const uint64_t q = 97;
    uint64_t a[16], b[8], c[8];
    for (int i = 0; i < 16; i++)
        a[i] = (uint64_t)i + 1;
    for (int i = 0; i < 8; i++) {
        b[i] = (uint64_t)i + 2;
        c[i] = NB_TEST_POISON;
    }
    assert_int_equal(nb_ref_negacyclic_mul(NULL, a, b, log_n, q), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ref_negacyclic_mul(c, NULL, b, log_n, q), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ref_negacyclic_mul(c, a, NULL, log_n, q), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ref_negacyclic_mul(c, a, b, 0, q), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ref_negacyclic_mul(c, a, b, 18, q), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ref_negacyclic_mul(c, a, b, log_n, 1), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ref_negacyclic_mul(a, a, b, log_n, q), NB_ERR_INVALID_ARG);     /* alias */
    assert_int_equal(nb_ref_negacyclic_mul(a + 4, a, b, log_n, q), NB_ERR_INVALID_ARG); /* overlap */
    assert_int_equal(nb_ref_negacyclic_mul(b, a, b, log_n, q), NB_ERR_INVALID_ARG);
    b[3] = q;
    assert_int_equal(nb_ref_negacyclic_mul(c, a, b, log_n, q), NB_ERR_INVALID_ARG);
    for (int i = 0; i < 8; i++)
        assert_int_equal(c[i], NB_TEST_POISON);
    assert_int_equal(nb_ref_negacyclic_mul(a + 8, a, c, log_n, q), NB_ERR_INVALID_ARG); /* c unreduced */
}

int main(void)
{
    nb_test_seed_init();
    if (getenv("NB_TEST_FILTER")) /* run only the tests matching this pattern */
        cmocka_set_test_filter(getenv("NB_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_equals_direct_evaluation_at_every_point),
        cmocka_unit_test(test_forward_equals_direct_evaluation_at_sampled_points),
        cmocka_unit_test(test_forward_direct_equals_fast_forward),
        cmocka_unit_test(test_eval_point_equals_mpz_sum),
        cmocka_unit_test(test_inverse_of_forward_is_identity),
        cmocka_unit_test(test_forward_of_inverse_is_identity),
        cmocka_unit_test(test_inverse_of_unit_vector_is_scaled_point_values),
        cmocka_unit_test(test_forward_at_largest_primes),
        cmocka_unit_test(test_structured_inputs_at_small_primes_equal_direct_evaluation),
        cmocka_unit_test(test_bitrev_matches_definition),
        cmocka_unit_test(test_params_valid_accepts_only_ntt_parameters),
        cmocka_unit_test(test_transforms_reject_bad_arguments_and_leave_input),
        cmocka_unit_test(test_negacyclic_mul_equals_naive_fold),
        cmocka_unit_test(test_negacyclic_mul_by_monomial_is_negacyclic_shift),
        cmocka_unit_test(test_negacyclic_mul_is_commutative_and_bilinear),
        cmocka_unit_test(test_reference_ntt_diagonalizes_negacyclic_product),
        cmocka_unit_test(test_negacyclic_mul_rejects_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* ntt/tables.h against GMP: every twiddle entry psi^brv(i) and psi^-brv(i)
 * (bit reversal over log_n bits), every Shoup companion floor(w 2^64 / q),
 * Barrett constants, N^-1 and its Shoup value, for log N = 1..17, several
 * limbs of mixed sizes, minimal and user-chosen roots. */
#include <gmp.h>
#include <string.h>

#include "testutil.h"

static uint64_t shoup_gmp(uint64_t w, uint64_t q)
{
    mpz_t z;
    mpz_init_set_ui(z, w);
    mpz_mul_2exp(z, z, 64);
    mpz_fdiv_q_ui(z, z, q);
    uint64_t r = mpz_get_ui(z);
    mpz_clear(z);
    return r;
}

/* bit reversal written independently of nb_bitrev */
static size_t brv(size_t x, unsigned bits)
{
    size_t r = 0;
    for (unsigned i = 0; i < bits; i++)
        r |= ((x >> i) & 1) << (bits - 1 - i);
    return r;
}

static void check_tables(const nb_ntt_tables *t, const uint64_t *primes, const uint64_t *psis,
                         size_t limbs, unsigned log_n)
{
    const size_t n = (size_t)1 << log_n;
    assert_int_equal(t->log_n, log_n);
    assert_int_equal(t->n, n);
    assert_int_equal(t->limbs, limbs);
    mpz_t p, pi, qz, psiz, psi_inv, x;
    mpz_inits(p, pi, qz, psiz, psi_inv, x, NULL);
    for (size_t l = 0; l < limbs; l++) {
        const uint64_t q = primes[l];
        assert_int_equal(t->q[l], q);
        if (psis) {
            assert_int_equal(t->psi[l], psis[l]);
        } else {
            uint64_t m;
            assert_int_equal(nb_root_minimal(q, log_n, &m), NB_OK);
            assert_int_equal(t->psi[l], m);
        }
        mpz_set_ui(qz, q);
        mpz_set_ui(psiz, t->psi[l]);
        /* psi is a primitive 2N-th root */
        mpz_powm_ui(x, psiz, n, qz);
        assert_int_equal(mpz_get_ui(x), q - 1);
        assert_true(mpz_invert(psi_inv, psiz, qz));
        /* Barrett: floor(2^128 / q) */
        mpz_set_ui(x, 1);
        mpz_mul_2exp(x, x, 128);
        mpz_fdiv_q_ui(x, x, q);
        mpz_t mu;
        mpz_init_set_ui(mu, t->mu_hi[l]);
        mpz_mul_2exp(mu, mu, 64);
        mpz_add_ui(mu, mu, t->mu_lo[l]);
        assert_int_equal(mpz_cmp(mu, x), 0);
        mpz_clear(mu);
        /* N^-1 */
        mpz_set_ui(x, t->n_inv[l]);
        mpz_mul_ui(x, x, n);
        assert_int_equal(mpz_fdiv_ui(x, q), 1);
        assert_true(t->n_inv[l] < q);
        assert_int_equal(t->n_inv_shoup[l], shoup_gmp(t->n_inv[l], q));
        /* twiddles: entry brv(j) holds psi^j and psi^-j */
        mpz_set_ui(p, 1);
        mpz_set_ui(pi, 1);
        const uint64_t *fw = t->fwd + l * n, *fws = t->fwd_shoup + l * n;
        const uint64_t *iv = t->inv + l * n, *ivs = t->inv_shoup + l * n;
        for (size_t j = 0; j < n; j++) {
            const size_t r = brv(j, log_n);
            if (fw[r] != mpz_get_ui(p) || iv[r] != mpz_get_ui(pi))
                nb_test_fail("log_n=%u limb %zu q=%" PRIu64 ": twiddle at %zu (j=%zu) wrong",
                             log_n, l, q, r, j);
            if (fws[r] != shoup_gmp(fw[r], q) || ivs[r] != shoup_gmp(iv[r], q))
                nb_test_fail("log_n=%u limb %zu q=%" PRIu64 ": Shoup value at %zu wrong", log_n,
                             l, q, r);
            mpz_mul(p, p, psiz);
            mpz_mod(p, p, qz);
            mpz_mul(pi, pi, psi_inv);
            mpz_mod(pi, pi, qz);
        }
    }
    mpz_clears(p, pi, qz, psiz, psi_inv, x, NULL);
}

static void test_tables_hold_bit_reversed_powers_with_minimal_roots(void **state)
{
    (void)state;
    for (unsigned log_n = 1; log_n <= 17; log_n++) {
        const unsigned bits[3] = {62, 20 + log_n, 45};
        uint64_t q[3];
        for (int l = 0; l < 3; l++) {
            unsigned b = bits[l];
            while (nb_primes_generate(log_n, b, 1, q, (size_t)l, &q[l]) != NB_OK)
                b++;
        }
        nb_ntt_tables *t = NULL;
        assert_int_equal(nb_ntt_tables_create(&t, log_n, q, NULL, 3), NB_OK);
        check_tables(t, q, NULL, 3, log_n);
        nb_ntt_tables_destroy(t);
    }
}

static void test_tables_hold_bit_reversed_powers_with_user_roots(void **state)
{
    (void)state;
    for (unsigned log_n = 1; log_n <= 17; log_n += 2) {
        uint64_t q[2], psi[2];
        assert_int_equal(nb_primes_generate(log_n, 61, 2, NULL, 0, q), NB_OK);
        for (int l = 0; l < 2; l++) {
            uint64_t m;
            assert_int_equal(nb_root_minimal(q[l], log_n, &m), NB_OK);
            /* a random odd power of the minimal root is another primitive root */
            psi[l] = nb_pow_mod(m, 2 * nb_test_rand_below(1ull << log_n) + 1, q[l]);
        }
        nb_ntt_tables *t = NULL;
        assert_int_equal(nb_ntt_tables_create(&t, log_n, q, psi, 2), NB_OK);
        check_tables(t, q, psi, 2, log_n);
        nb_ntt_tables_destroy(t);
    }
}

int main(void)
{
    nb_test_seed_init();
    if (getenv("NB_TEST_FILTER")) /* run only the tests matching this pattern */
        cmocka_set_test_filter(getenv("NB_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables_hold_bit_reversed_powers_with_minimal_roots),
        cmocka_unit_test(test_tables_hold_bit_reversed_powers_with_user_roots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

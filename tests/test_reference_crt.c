/* Self-checks of the GMP reference's CRT (reference/crt_ref.c) against the
 * definition: composition against the residues x mod q_i, decomposition of
 * any integer (negative, beyond Q) against the non-negative remainders, the
 * round trip, the centred composition's range and the empty basis, over
 * random bases of distinct primes of 2 to 62 bits found with GMP. */
#include <gmp.h>
#include <string.h>

#include "reference/reference.h"
#include "testutil.h"

/* A random basis of `count` distinct primes of random sizes in [2, 62] bits. */
static void random_basis(uint64_t *primes, size_t count)
{
    mpz_t z;
    mpz_init(z);
    for (size_t i = 0; i < count;) {
        const unsigned bits = 2 + (unsigned)nb_test_rand_below(61); /* [2, 62] */
        uint64_t lo = 1ull << (bits - 1);
        mpz_set_ui(z, lo + nb_test_rand_below(lo));
        mpz_nextprime(z, z);
        uint64_t p = mpz_get_ui(z);
        if (mpz_sizeinbase(z, 2) > 62)
            continue;
        int dup = 0;
        for (size_t j = 0; j < i; j++)
            dup |= primes[j] == p;
        if (!dup)
            primes[i++] = p;
    }
    mpz_clear(z);
}

static void test_crt_compose_matches_residues(void **state)
{
    (void)state;
    for (int trial = 0; trial < 200; trial++) {
        const size_t count = 1 + (size_t)nb_test_rand_below(40);
        const size_t stride = 1 + (size_t)nb_test_rand_below(3);
        uint64_t primes[40], res[120];
        random_basis(primes, count);
        for (size_t i = 0; i < count; i++)
            res[i * stride] = nb_test_rand_below(primes[i]);
        mpz_t x, Q, Qd;
        mpz_inits(x, Q, Qd, NULL);
        nb_ref_crt_compose(x, res, stride, primes, count);
        nb_ref_basis_product(Q, primes, count);
        mpz_set_ui(Qd, 1);
        for (size_t i = 0; i < count; i++)
            mpz_mul_ui(Qd, Qd, primes[i]);
        assert_int_equal(mpz_cmp(Q, Qd), 0);
        assert_true(mpz_sgn(x) >= 0);
        assert_true(mpz_cmp(x, Q) < 0);
        for (size_t i = 0; i < count; i++)
            if (mpz_fdiv_ui(x, primes[i]) != res[i * stride])
                nb_test_fail("count=%zu i=%zu: x mod q_i != residue", count, i);
        mpz_clears(x, Q, Qd, NULL);
    }
}

static void test_crt_decompose_then_compose_is_identity(void **state)
{
    (void)state;
    gmp_randstate_t rs;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, (unsigned long)nb_test_rand());
    for (int trial = 0; trial < 200; trial++) {
        const size_t count = 1 + (size_t)nb_test_rand_below(40);
        uint64_t primes[40], res[40];
        random_basis(primes, count);
        mpz_t x, y, Q;
        mpz_inits(x, y, Q, NULL);
        nb_ref_basis_product(Q, primes, count);
        mpz_urandomm(x, rs, Q);
        if (trial == 0)
            mpz_sub_ui(x, Q, 1); /* largest value */
        nb_ref_crt_decompose(res, 1, x, primes, count);
        for (size_t i = 0; i < count; i++)
            assert_true(res[i] < primes[i]);
        nb_ref_crt_compose(y, res, 1, primes, count);
        assert_int_equal(mpz_cmp(x, y), 0);
        mpz_clears(x, y, Q, NULL);
    }
    gmp_randclear(rs);
}

static void test_crt_decompose_of_any_integer_is_floor_remainder(void **state)
{
    (void)state;
    gmp_randstate_t rs;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, (unsigned long)nb_test_rand());
    for (int trial = 0; trial < 200; trial++) {
        const size_t count = 1 + (size_t)nb_test_rand_below(20);
        const size_t stride = 1 + (size_t)nb_test_rand_below(4);
        uint64_t primes[20], res[80];
        random_basis(primes, count);
        mpz_t x, r, qz, y, Q;
        mpz_inits(x, r, qz, y, Q, NULL);
        mpz_urandomb(x, rs, 1 + (mp_bitcnt_t)nb_test_rand_below(3000)); /* beyond Q too */
        if (trial % 2)
            mpz_neg(x, x);
        nb_ref_crt_decompose(res, stride, x, primes, count);
        for (size_t i = 0; i < count; i++) {
            mpz_set_ui(qz, primes[i]);
            mpz_mod(r, x, qz); /* non-negative remainder */
            assert_int_equal(res[i * stride], mpz_get_ui(r));
        }
        /* compose gives x mod Q */
        nb_ref_crt_compose(y, res, stride, primes, count);
        nb_ref_basis_product(Q, primes, count);
        mpz_mod(r, x, Q);
        assert_int_equal(mpz_cmp(y, r), 0);
        mpz_clears(x, r, qz, y, Q, NULL);
    }
    gmp_randclear(rs);
}

static void test_crt_compose_centered_is_in_half_open_range(void **state)
{
    (void)state;
    gmp_randstate_t rs;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, (unsigned long)nb_test_rand());
    for (int trial = 0; trial < 200; trial++) {
        const size_t count = 1 + (size_t)nb_test_rand_below(10);
        uint64_t primes[10], res[10];
        random_basis(primes, count);
        mpz_t x, y, Q, half;
        mpz_inits(x, y, Q, half, NULL);
        nb_ref_basis_product(Q, primes, count);
        mpz_fdiv_q_2exp(half, Q, 1); /* floor(Q/2); Q odd or 2*... */
        mpz_urandomm(x, rs, Q);
        mpz_sub(x, x, half); /* x in [-floor(Q/2), Q - floor(Q/2)) */
        if (trial == 0)
            mpz_neg(x, half);
        nb_ref_crt_decompose(res, 1, x, primes, count);
        nb_ref_crt_compose_centered(y, res, 1, primes, count);
        /* Q is odd, so x already is the centered representative */
        assert_int_equal(mpz_cmp(x, y), 0);
        mpz_mul_2exp(half, y, 1);
        assert_true(mpz_cmp(half, Q) <= 0);
        mpz_neg(half, half);
        assert_true(mpz_cmp(half, Q) < 0);
        mpz_clears(x, y, Q, half, NULL);
    }
    gmp_randclear(rs);
    /* an even Q: x = Q/2 is its own centered representative, -Q/2 maps to it */
    const uint64_t even[3] = {2, 3, 1000000007ull};
    const uint64_t half_q = 3000000021ull; /* Q/2 */
    uint64_t res[3];
    mpz_t x, y;
    mpz_inits(x, y, NULL);
    mpz_set_si(x, -(long)half_q);
    nb_ref_crt_decompose(res, 1, x, even, 3);
    nb_ref_crt_compose_centered(y, res, 1, even, 3);
    assert_int_equal(mpz_cmp_ui(y, half_q), 0);
    mpz_set_ui(x, half_q + 1); /* above Q/2: negative representative */
    nb_ref_crt_decompose(res, 1, x, even, 3);
    nb_ref_crt_compose_centered(y, res, 1, even, 3);
    assert_int_equal(mpz_cmp_si(y, -(long)half_q + 1), 0);
    mpz_clears(x, y, NULL);
}

static void test_crt_of_empty_basis_is_zero(void **state)
{
    (void)state;
    mpz_t x;
    mpz_init_set_ui(x, 77);
    nb_ref_basis_product(x, NULL, 0);
    assert_int_equal(mpz_cmp_ui(x, 1), 0);
    nb_ref_crt_compose(x, NULL, 1, NULL, 0);
    assert_int_equal(mpz_sgn(x), 0);
    mpz_clear(x);
}

int main(void)
{
    nb_test_seed_init();
    if (getenv("NB_TEST_FILTER")) /* run only the tests matching this pattern */
        cmocka_set_test_filter(getenv("NB_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crt_compose_matches_residues),
        cmocka_unit_test(test_crt_decompose_then_compose_is_identity),
        cmocka_unit_test(test_crt_decompose_of_any_integer_is_floor_remainder),
        cmocka_unit_test(test_crt_compose_centered_is_in_half_open_range),
        cmocka_unit_test(test_crt_of_empty_basis_is_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

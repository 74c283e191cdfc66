/* GMP one-liners shared by the CPU tests: the independent arithmetic that
 * results are checked against. Header-only. */
#ifndef NB_GMPUTIL_H
#define NB_GMPUTIL_H

#include <gmp.h>
#include <stdint.h>

/* 1 if n is (probably, 2^-80 error) prime, by GMP. */
static inline int gmp_is_prime(uint64_t n)
{
    mpz_t z;
    mpz_init_set_ui(z, n);
    int p = mpz_probab_prime_p(z, 40) != 0;
    mpz_clear(z);
    return p;
}

/* b^e mod q, by GMP. */
static inline uint64_t gmp_powmod(uint64_t b, uint64_t e, uint64_t q)
{
    mpz_t x, m;
    mpz_init_set_ui(x, b);
    mpz_init_set_ui(m, q);
    mpz_powm_ui(x, x, e, m);
    uint64_t r = mpz_get_ui(x);
    mpz_clears(x, m, NULL);
    return r;
}

/* a * b mod q for any 64-bit a, b, by GMP. */
static inline uint64_t gmp_mulmod(uint64_t a, uint64_t b, uint64_t q)
{
    mpz_t z;
    mpz_init_set_ui(z, a);
    mpz_mul_ui(z, z, b);
    uint64_t r = mpz_fdiv_ui(z, q);
    mpz_clear(z);
    return r;
}

/* x mod q for a 64-bit x, by GMP. */
static inline uint64_t gmp_mod(uint64_t x, uint64_t q)
{
    mpz_t z;
    mpz_init_set_ui(z, x);
    uint64_t r = mpz_fdiv_ui(z, q);
    mpz_clear(z);
    return r;
}

#endif

/* Internal helpers of the GMP reference: single-word modular arithmetic done
 * by GMP's mpn layer (no 128-bit C arithmetic, nothing of libnttbench), and
 * the parameter checks shared by the reference transforms. Not installed. */
#ifndef NB_REF_INTERNAL_H
#define NB_REF_INTERNAL_H

#include <gmp.h>
#include <limits.h>
#include <stdint.h>

#if GMP_LIMB_BITS != 64
#error "the reference assumes 64-bit GMP limbs"
#endif
_Static_assert(sizeof(unsigned long) == 8, "the reference assumes 64-bit unsigned long");

/* a*b mod q for any 64-bit a, b and q >= 1: the exact two-limb product, then
 * GMP's remainder (mpn_divrem_1 returns it; the quotient is discarded). */
static inline uint64_t ref_mulmod(uint64_t a, uint64_t b, uint64_t q)
{
    mp_limb_t x = a, p[2], quot[2];
    p[1] = mpn_mul_1(p, &x, 1, (mp_limb_t)b);
    return (uint64_t)mpn_divrem_1(quot, 0, p, 2, (mp_limb_t)q);
}

/* a + b mod q and a - b mod q for a, b in [0, q), q < 2^63. */
static inline uint64_t ref_addmod(uint64_t a, uint64_t b, uint64_t q)
{
    uint64_t s = a + b;
    return s >= q ? s - q : s;
}
static inline uint64_t ref_submod(uint64_t a, uint64_t b, uint64_t q)
{
    return a >= b ? a - b : q - (b - a);
}

/* base^e mod q via mpz_powm; e may be any unsigned 64-bit value. */
static inline uint64_t ref_powmod(uint64_t base, uint64_t e, uint64_t q)
{
    mpz_t b, r, m;
    mpz_init_set_ui(b, base);
    mpz_init_set_ui(m, q);
    mpz_init(r);
    mpz_powm_ui(r, b, e, m);
    uint64_t out = mpz_get_ui(r);
    mpz_clears(b, r, m, NULL);
    return out;
}

/* a^-1 mod q (a invertible mod q). */
static inline uint64_t ref_invmod(uint64_t a, uint64_t q)
{
    mpz_t x, m;
    mpz_init_set_ui(x, a);
    mpz_init_set_ui(m, q);
    int ok = mpz_invert(x, x, m);
    uint64_t out = ok ? mpz_get_ui(x) : 0;
    mpz_clears(x, m, NULL);
    return out;
}

#endif

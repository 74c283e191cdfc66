/* Reference CRT between residues and integers, from the definition:
 *   x = sum_i (r_i * (Q/q_i)^-1 mod q_i) * (Q/q_i)  mod Q. */
#include "reference/ref_internal.h"
#include "reference/reference.h"

void nb_ref_basis_product(mpz_t out, const uint64_t *primes, size_t count)
{
    mpz_set_ui(out, 1);
    for (size_t i = 0; i < count; i++)
        mpz_mul_ui(out, out, primes[i]);
}

void nb_ref_crt_compose(mpz_t out, const uint64_t *residues, size_t stride,
                        const uint64_t *primes, size_t count)
{
    mpz_t Q, m, mi, qi, term, acc;
    mpz_inits(Q, m, mi, qi, term, acc, NULL);
    nb_ref_basis_product(Q, primes, count);
    for (size_t i = 0; i < count; i++) {
        mpz_set_ui(qi, primes[i]);
        mpz_divexact(m, Q, qi);      /* Q / q_i */
        mpz_invert(mi, m, qi);        /* (Q/q_i)^-1 mod q_i */
        mpz_mul_ui(term, mi, residues[i * stride]);
        mpz_mod(term, term, qi);
        mpz_addmul(acc, term, m);
    }
    mpz_mod(out, acc, Q);
    mpz_clears(Q, m, mi, qi, term, acc, NULL);
}

void nb_ref_crt_compose_centered(mpz_t out, const uint64_t *residues, size_t stride,
                                 const uint64_t *primes, size_t count)
{
    mpz_t Q, twice;
    mpz_inits(Q, twice, NULL);
    nb_ref_crt_compose(out, residues, stride, primes, count);
    nb_ref_basis_product(Q, primes, count);
    mpz_mul_2exp(twice, out, 1);
    if (mpz_cmp(twice, Q) > 0)
        mpz_sub(out, out, Q);
    mpz_clears(Q, twice, NULL);
}

void nb_ref_crt_decompose(uint64_t *residues, size_t stride, const mpz_t x,
                          const uint64_t *primes, size_t count)
{
    for (size_t i = 0; i < count; i++)
        residues[i * stride] = mpz_fdiv_ui(x, primes[i]); /* floor: in [0, q_i) */
}

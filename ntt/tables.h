/* Precomputed NTT tables for a batch of RNS limbs, in the SEAL/Phantom
 * convention (docs/api.md, "Ordering"):
 *   forward  : Cooley-Tukey, natural-order input, bit-reversed output;
 *              output entry k = a(psi^(2*brv(k)+1)) mod q.
 *   inverse  : Gentleman-Sande, bit-reversed input, natural output, scaled by
 *              N^-1 so that inverse(forward(a)) = a.
 * For limb l, fwd[l*N + i] = psi^brv(i) and inv[l*N + i] = psi^-brv(i)
 * (brv over log_n bits), each with its Shoup companion floor(w 2^64 / q).
 * The tables are read-only after creation; variants (CPU or GPU, built in or
 * plugged in) read them to build their plans. */
#ifndef NB_TABLES_H
#define NB_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_ntt_tables {
    unsigned log_n;
    size_t n;      /* 2^log_n */
    size_t limbs;  /* L */
    uint64_t *q;   /* [L] moduli */
    uint64_t *psi; /* [L] primitive 2N-th roots used */
    uint64_t *mu_lo, *mu_hi;        /* [L] Barrett floor(2^128 / q) */
    uint64_t *n_inv, *n_inv_shoup;  /* [L] N^-1 mod q and its Shoup value */
    uint64_t *fwd, *fwd_shoup;      /* [L*N] psi^brv(i)  */
    uint64_t *inv, *inv_shoup;      /* [L*N] psi^-brv(i) */
} nb_ntt_tables;

/* Builds tables for `limbs` primes. psis may be NULL (minimal primitive roots)
 * or give one root per prime (each validated). Every prime is validated
 * (prime, < 2^62, q = 1 mod 2N). */
nb_status nb_ntt_tables_create(nb_ntt_tables **out, unsigned log_n, const uint64_t *primes,
                               const uint64_t *psis, size_t limbs);
/* nb_ntt_tables_create for callers that validated every prime and log_n
 * already (nb_prime_validate) at their own API boundary: out, primes non-NULL,
 * limbs >= 1; roots given in psis are still checked. */
nb_status nb_ntt_tables_build(nb_ntt_tables **out, unsigned log_n, const uint64_t *primes,
                              const uint64_t *psis, size_t limbs);
void nb_ntt_tables_destroy(nb_ntt_tables *t);

#ifdef __cplusplus
}
#endif
#endif

/* NTT-friendly primes and primitive roots: deterministic generation of the
 * largest primes q < 2^bits with q = 1 (mod 2N), validation of user-supplied
 * primes and roots, and the minimal primitive 2N-th root of unity. */
#ifndef NB_PRIMES_H
#define NB_PRIMES_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NB_MIN_LOG_N 1u
#define NB_MAX_LOG_N 17u

/* 1 if n is prime (deterministic Miller-Rabin, exact for all 64-bit n). */
int nb_is_prime(uint64_t n);

/* a^e mod q, and a^-1 mod q for prime q and a != 0 mod q. Host arithmetic.
 * Domain q >= 1 (q = 0, which has no residues, returns 0). */
uint64_t nb_pow_mod(uint64_t a, uint64_t e, uint64_t q);
uint64_t nb_inv_mod(uint64_t a, uint64_t q);

/* Reverses the low `bits` bits of x. */
uint32_t nb_bitrev(uint32_t x, unsigned bits);

/* Writes the `count` largest primes q < 2^bits with q = 1 (mod 2^(log_n+1)),
 * in decreasing order, each of exactly `bits` bits (q > 2^(bits-1)),
 * skipping every prime listed in skip[0..n_skip).
 * Errors: log_n outside [NB_MIN_LOG_N, NB_MAX_LOG_N], bits outside
 * [NB_MIN_PRIME_BITS, NB_MAX_PRIME_BITS], count == 0, NULL out, or fewer than
 * `count` such primes exist. */
nb_status nb_primes_generate(unsigned log_n, unsigned bits, size_t count,
                             const uint64_t *skip, size_t n_skip, uint64_t *out);
/* nb_primes_generate without the last error: writes the largest such primes,
 * at most `count`, and their number to *found (fewer than count when no more
 * exist; NB_OK then too). */
nb_status nb_primes_generate_upto(unsigned log_n, unsigned bits, size_t count,
                                  const uint64_t *skip, size_t n_skip, uint64_t *out,
                                  size_t *found);

/* NB_OK if q is a prime < 2^NB_MAX_PRIME_BITS with q = 1 (mod 2N); otherwise
 * NB_ERR_INVALID_ARG with a message saying which condition failed. */
nb_status nb_prime_validate(uint64_t q, unsigned log_n);

/* NB_OK if psi is a primitive 2N-th root of unity mod q (psi^N = -1). */
nb_status nb_root_validate(uint64_t psi, uint64_t q, unsigned log_n);

/* The smallest integer in [2, q) that is a primitive 2N-th root of unity mod
 * q; fails with NB_ERR_INVALID_ARG unless q passes nb_prime_validate. */
nb_status nb_root_minimal(uint64_t q, unsigned log_n, uint64_t *psi);

/* For callers that validated q and log_n already (nb_prime_validate, once, at
 * their API boundary): the checks of nb_root_validate on psi alone, and
 * nb_root_minimal without re-validating q. Undefined for an invalid q. */
nb_status nb_root_check(uint64_t psi, uint64_t q, unsigned log_n);
nb_status nb_root_find_minimal(uint64_t q, unsigned log_n, uint64_t *psi);

#ifdef __cplusplus
}
#endif
#endif

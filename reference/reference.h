/* The GMP reference: slow, obviously correct implementations of the negacyclic
 * NTT, the schoolbook negacyclic product and CRT over any RNS basis, written
 * from the definitions. Tests check every fast path against these functions.
 * This library depends on GMP only: it uses our public headers' types
 * (nb_status) but calls no function of libnttbench, and sets no error message
 * (nb_last_error() is not touched); a failure is reported by the status alone.
 *
 * Ordering of the transforms (the library's convention, docs/api.md):
 *   forward: natural-order input, bit-reversed output,
 *            out[k] = a(psi^(2*brv(k)+1)) mod q, brv over log_n bits;
 *   inverse: the exact inverse (bit-reversed input, natural output). */
#ifndef NB_REFERENCE_H
#define NB_REFERENCE_H

#include <gmp.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NB_REF_MIN_LOG_N 1u
#define NB_REF_MAX_LOG_N 17u
#define NB_REF_MAX_PRIME_BITS 62u /* q < 2^62, the library's bound */

/* In-place negacyclic NTT over Z_q[X]/(X^N+1), N = 2^log_n.
 * Requires: log_n in [1, 17]; q prime, q < 2^62, q = 1 (mod 2N); psi a
 * primitive 2N-th root of unity mod q (psi^N = -1); a non-NULL with every
 * a[i] in [0, q). Otherwise returns NB_ERR_INVALID_ARG and leaves a unchanged
 * (NB_ERR_OUT_OF_MEMORY, a unchanged, if scratch cannot be allocated).
 * Output in [0, q), bit-reversed order as above. */
nb_status nb_ref_ntt_forward(uint64_t *a, unsigned log_n, uint64_t q, uint64_t psi);

/* Exact inverse of nb_ref_ntt_forward (bit-reversed in, natural out, scaled by
 * N^-1). Same requirements and errors. */
nb_status nb_ref_ntt_inverse(uint64_t *a, unsigned log_n, uint64_t q, uint64_t psi);

/* The definition: a(psi^(2*brv(k)+1)) mod q by direct evaluation, O(N).
 * Same requirements as nb_ref_ntt_forward plus k < N; returns UINT64_MAX
 * (never a residue) on bad arguments. */
uint64_t nb_ref_ntt_eval_point(const uint64_t *a, unsigned log_n, uint64_t q, uint64_t psi,
                               size_t k);

/* Schoolbook negacyclic product out = a*b mod (X^N+1, q), exact in mpz,
 * O(N^2). Requires log_n in [1, 17], any modulus q >= 2 (prime or not),
 * a[i], b[i] in [0, q), out not overlapping a or b (NB_ERR_INVALID_ARG
 * otherwise, out unchanged). Output in [0, q). */
nb_status nb_ref_negacyclic_mul(uint64_t *out, const uint64_t *a, const uint64_t *b,
                                unsigned log_n, uint64_t q);

/* CRT over the basis primes[0..count) (pairwise coprime moduli >= 2; primes
 * need not be prime). residues[i*stride] is x mod primes[i].
 * compose: out = the unique x in [0, Q), Q = prod primes[i] (0 when count=0);
 * residues need not be reduced (x mod q_i is what counts).
 * decompose: any integer x (negative allowed) -> residues[i*stride] = x mod
 * primes[i] in [0, primes[i]). */
void nb_ref_crt_compose(mpz_t out, const uint64_t *residues, size_t stride,
                        const uint64_t *primes, size_t count);
void nb_ref_crt_decompose(uint64_t *residues, size_t stride, const mpz_t x,
                          const uint64_t *primes, size_t count);

/* out = prod primes[i] (1 when count = 0). */
void nb_ref_basis_product(mpz_t out, const uint64_t *primes, size_t count);

/* ---- extras ---- */

/* Like nb_ref_crt_compose, but the centered representative:
 * out in (-Q/2, Q/2] (that is, x - Q when 2x > Q). */
void nb_ref_crt_compose_centered(mpz_t out, const uint64_t *residues, size_t stride,
                                 const uint64_t *primes, size_t count);

/* Reverses the low `bits` bits of x (bits <= 32). */
uint32_t nb_ref_bitrev(uint32_t x, unsigned bits);

/* 1 if q is a prime < 2^62 with q = 1 (mod 2^(log_n+1)) and psi is a primitive
 * 2N-th root of unity mod q, log_n in [1, 17]; else 0. GMP primality test. */
int nb_ref_params_valid(unsigned log_n, uint64_t q, uint64_t psi);

/* The O(N^2) transform by the definition (every output by direct
 * evaluation): same contract and ordering as nb_ref_ntt_forward. */
nb_status nb_ref_ntt_forward_direct(uint64_t *a, unsigned log_n, uint64_t q, uint64_t psi);

#ifdef __cplusplus
}
#endif
#endif

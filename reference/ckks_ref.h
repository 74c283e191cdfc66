/* GMP reference of the RNS-CKKS stage operations, from their definitions by
 * CRT composition: every polynomial is in coefficient form, limb-major
 * (limb i at a + i*n), residues in [0, q_i). Nothing here calls libnttbench;
 * the tests convert between NTT and coefficient form with nb_ref_ntt_*.
 *
 * Notation: for a basis C = {c_0..c_(k-1)} with product C, chat_i = C/c_i.
 * The fast base conversion value of x (residues x_i) is the integer
 *   conv_C(x) = sum_i [x_i * chat_i^-1]_{c_i} * chat_i,
 * which equals x + e*C with 0 <= e < k (x the CRT value in [0, C)). */
#ifndef NB_CKKS_REF_H
#define NB_CKKS_REF_H

#include <gmp.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* conv_C of one coefficient: residues[i*stride] mod from[i], i < n_from. */
void nb_ref_conv_value(mpz_t y, const uint64_t *residues, size_t stride, const uint64_t *from,
                       size_t n_from);

/* out (n_to limbs) = conv_C(in) mod to[j], for every coefficient of the
 * n_from-limb poly `in`. NB_ERR_INVALID_ARG on NULL or empty bases. */
nb_status nb_ref_baseconv(uint64_t *out, const uint64_t *in, size_t n, const uint64_t *from,
                          size_t n_from, const uint64_t *to, size_t n_to);

/* modUp of one digit. basis[0..total) is B_l = q_0..q_l, p_0..; the digit
 * is basis[first, first+count) (inside the Q part). `in` is a poly over
 * basis[0..q_count) of which only the digit limbs are read; `out` (total
 * limbs) gets the digit limbs unchanged and conv_digit(in) mod every other
 * prime of the basis. */
nb_status nb_ref_modup(uint64_t *out, const uint64_t *in, size_t n, const uint64_t *basis,
                       size_t total, size_t first, size_t count);

/* modDown: in over Q u P (q_count Q limbs then p_count P limbs), out over Q:
 * per coefficient, with x the CRT value over Q u P and v = conv_P([x]_P),
 * out = (x - v) / P mod q_i (the division is exact). */
nb_status nb_ref_moddown(uint64_t *out, const uint64_t *in, size_t n, const uint64_t *qs,
                         size_t q_count, const uint64_t *ps, size_t p_count);

/* The exact division modDown approximates: out = floor(x / P) mod q_i. */
nb_status nb_ref_div_floor(uint64_t *out, const uint64_t *in, size_t n, const uint64_t *qs,
                           size_t q_count, const uint64_t *ps, size_t p_count);

/* Rescale: in over q_0..q_l (count = l+1 >= 2 limbs), out over q_0..q_(l-1):
 * x the CRT value in [0, Q_l); round = 0: floor(x / q_l); round = 1:
 * floor((x + floor(q_l/2)) / q_l), each reduced mod q_i. */
nb_status nb_ref_rescale(uint64_t *out, const uint64_t *in, size_t n, const uint64_t *qs,
                         size_t count, int round);

/* Rescale by the top `drop` primes (drop >= 1, count > drop): out over
 * q_0..q_(count-drop-1) = floor(x / D) (round = 0) or floor((x + floor(D/2))
 * / D) (round = 1), D the product of the dropped primes. */
nb_status nb_ref_rescale_by(uint64_t *out, const uint64_t *in, size_t n, const uint64_t *qs,
                            size_t count, size_t drop, int round);

/* Hybrid key switch on big integers. log_n: N = 2^log_n. in: poly over
 * qs[0..q_count) (= Q_l). key: dnum_digits x 2 polys over Q_l u P
 * (q_count + p_count limbs each; digit j component k at limb offset
 * (2j+k)*(q_count+p_count)). Digit j is Q indices [j*alpha, min((j+1)*alpha,
 * q_count)); digits = ceil(q_count/alpha). Per digit, the integer
 * polynomial y_j = conv_digit(in) (coefficientwise), then
 *   acc_k = sum_j y_j * K_jk  mod (X^N + 1, Q_l P)   (schoolbook, in mpz),
 * and out_k = (acc_k - conv_P([acc_k]_P)) / P mod Q_l. O(N^2) per digit:
 * meant for N <= 256. */
nb_status nb_ref_keyswitch(uint64_t *out0, uint64_t *out1, const uint64_t *in,
                           const uint64_t *key, unsigned log_n, const uint64_t *qs,
                           size_t q_count, const uint64_t *ps, size_t p_count, size_t alpha);

#ifdef __cplusplus
}
#endif
#endif

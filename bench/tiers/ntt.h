/* The NTT tier: the NTT workload (one variant, one size, one direction on
 * every buffer set) and its per-case figures. Its cases are built by
 * nb_tier_ntt_run (bench/tiers/tiers.h). */
#ifndef NB_TIER_NTT_H
#define NB_TIER_NTT_H

#include "bench/report/report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most limbs an NTT workload (and so an NTT tier case) takes. */
#define NB_NTT_WORKLOAD_MAX_LIMBS 4096

/* An NTT workload: `limbs` primes of `prime_bits` bits (the largest NTT-
 * friendly ones, from nb_primes_generate), forward (inverse = 0) or inverse,
 * in place on each buffer set, in words of the variant's word_bits (W = 8
 * bytes for 64-bit variants, 4 for 32-bit ones). Inputs are seeded random
 * residues (never zero limbs) regenerated per set from `seed`, the same for
 * both word sizes; verify() compares with the 64-bit cpu-harvey over the same
 * tables (itself checked against the GMP reference in the tests), a 32-bit
 * variant's words widened first. The plan is built on `stream`. Reports
 * footprint N*L*W, bytes_per_launch 2*N*L*W, and supports --l2-persist. Its
 * label ends "q<bits> w<word_bits> logQ=<log2 of the primes' product, one
 * decimal>". */
nb_status nb_ntt_workload_create(nb_workload **out, const nb_ntt_variant *variant,
                                 unsigned log_n, size_t limbs, unsigned prime_bits, int inverse,
                                 uint64_t seed, void *stream);
/* The workload's tables (primes, roots), NULL for a non-NTT workload. */
const nb_ntt_tables *nb_ntt_workload_tables(const nb_workload *w);
/* The kernels its launch runs (nb_ntt_kernels over all its limbs in its
 * direction): up to max into out, their number into *n. NB_ERR_UNSUPPORTED
 * when the variant does not report them. */
nb_status nb_ntt_workload_kernels(const nb_workload *w, nb_ntt_kernel *out, size_t max,
                                  size_t *n);

/* Figures of an NTT case of `limbs` transforms of size 2^log_n in words of
 * word_bits (64 or 32) taking median_s; copy_Bps, peak_Bps <= 0 mean unknown
 * (fractions NAN). */
void nb_ntt_figures_compute(unsigned log_n, size_t limbs, unsigned word_bits, double median_s,
                            double copy_Bps, double peak_Bps, nb_ntt_figures *f);

/* log2 of the product of q[0..n), summed in double (exact to far better than
 * the one decimal reports print); 0 for a NULL q. */
double nb_log_q(const uint64_t *q, size_t n);

/* The limb count for a modulus of about `log_q` bits made of the primes of
 * an NTT workload (the `prime_bits`-bit primes nb_primes_generate gives for
 * log_n): the smallest L >= 1 with log2(q_1 ... q_L) >= log_q - prime_bits/2,
 * i.e. the L whose log Q is nearest to log_q (ties going up), never more than
 * half a prime under it. *actual (may be NULL) receives that log2. Fails
 * (NB_ERR_INVALID_ARG, message) when more than max_limbs primes would be
 * needed or fewer such primes exist. */
nb_status nb_ntt_limbs_for_log_q(unsigned log_n, unsigned prime_bits, unsigned log_q,
                                 size_t max_limbs, size_t *limbs, double *actual);

/* A variant's words to and from 64-bit values: n words of word_bits (64 or
 * 32) from / into uint64_t values (narrowing keeps the low 32 bits: residues
 * of primes below 2^32). dst and src may be the same buffer. Any other
 * word_bits, or a NULL buffer, writes nothing. */
void nb_words_from_u64(void *dst, const uint64_t *src, size_t n, unsigned word_bits);
void nb_words_to_u64(uint64_t *dst, const void *src, size_t n, unsigned word_bits);


#ifdef __cplusplus
}
#endif
#endif

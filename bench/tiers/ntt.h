/* The NTT tier: the NTT workload (one variant, one size, one direction on
 * every buffer set) and its per-case figures. Its cases are built by
 * nb_tier_ntt_run (bench/tiers/tiers.h). */
#ifndef NB_TIER_NTT_H
#define NB_TIER_NTT_H

#include "bench/report/report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An NTT workload: `limbs` primes of `prime_bits` bits (the largest NTT-
 * friendly ones, from nb_primes_generate), forward (inverse = 0) or inverse,
 * in place on each buffer set. Inputs are seeded random residues (never zero
 * limbs) regenerated per set from `seed`; verify() compares with cpu-harvey
 * (itself checked against the GMP reference in the tests). The plan is built on
 * `stream`. Reports footprint N*L*8, bytes_per_launch 2*N*L*8, and supports
 * --l2-persist. */
nb_status nb_ntt_workload_create(nb_workload **out, const nb_ntt_variant *variant,
                                 unsigned log_n, size_t limbs, unsigned prime_bits, int inverse,
                                 uint64_t seed, void *stream);
/* The workload's tables (primes, roots), NULL for a non-NTT workload. */
const nb_ntt_tables *nb_ntt_workload_tables(const nb_workload *w);

/* Figures of an NTT case of `limbs` transforms of size 2^log_n taking
 * median_s; copy_Bps, peak_Bps <= 0 mean unknown (fractions NAN). */
void nb_ntt_figures_compute(unsigned log_n, size_t limbs, double median_s, double copy_Bps,
                            double peak_Bps, nb_ntt_figures *f);


#ifdef __cplusplus
}
#endif
#endif

/* The one seeded pseudo-random generator of nttbench (splitmix64) and an
 * unbiased sampler of residues. Deterministic per seed on every platform, so
 * a failing test or a benchmark input can be replayed from its seed. Not for
 * cryptographic use. */
#ifndef NB_RNG_H
#define NB_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_rng { uint64_t state; } nb_rng;

/* Starts the stream of `seed`; every seed (0 included) is valid. */
void nb_rng_seed(nb_rng *r, uint64_t seed);

/* Next 64-bit output of splitmix64; all 64 bits are uniform. */
uint64_t nb_rng_next(nb_rng *r);

/* Uniform in [0, bound) for bound >= 1, without modulo bias: outputs below
 * 2^64 mod bound are rejected (at most half of the draws, expected fewer
 * than two draws per call). bound == 0 returns 0. */
uint64_t nb_rng_below(nb_rng *r, uint64_t bound);

/* dst[i] = nb_rng_below(r, q) for i < n (each uniform in [0, q)), in order. */
void nb_rng_fill_residues(nb_rng *r, uint64_t *dst, size_t n, uint64_t q);

/* A batch of `limbs` polynomials of n residues (limb l at dst + l*n), limb l
 * uniform in [0, q[l]) as nb_rng_fill_residues draws it, limb after limb,
 * its first value never 0 (a drawn 0 becomes 1): the inputs of the
 * benchmarks and checks, never an all-zero limb. */
void nb_rng_fill_limbs(nb_rng *r, uint64_t *dst, size_t n, const uint64_t *q, size_t limbs);

#ifdef __cplusplus
}
#endif
#endif

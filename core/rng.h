/* The one seeded pseudo-random generator of nttbench (splitmix64), an
 * unbiased sampler of residues, and a counter-based form of both (value i
 * of a key computed alone, the same on the host and on a GPU: the rotated
 * buffer sets are drawn on the device with it). Deterministic per seed on
 * every platform, so a failing test or a benchmark input can be replayed
 * from its seed. Not for cryptographic use. */
#ifndef NB_RNG_H
#define NB_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_rng { uint64_t state; } nb_rng;

/* Starts the stream of `seed`; every seed (0 included) is valid (a NULL r is
 * left alone). */
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
 * its first value never 0 for q[l] > 1 (a drawn 0 becomes 1): the inputs of
 * the benchmarks and checks, never an all-zero limb. */
void nb_rng_fill_limbs(nb_rng *r, uint64_t *dst, size_t n, const uint64_t *q, size_t limbs);

/* One buffer set of the counter-based draw (nb_rng_residue_at below), limbs
 * in parallel: dst[l n + i] = nb_rng_residue_at(key, first + l n + i, q[l])
 * for l < limbs, i < n, the first value of a limb never 0 for q[l] > 1 (a
 * drawn 0 becomes 1). `first` is the set's first word in its buffer's numbering, sets laid
 * out one after another (set s of `limbs` limbs: s limbs n), so the values
 * are nb_gpu_fill_residues' for that set, word for word, and a set's input
 * does not depend on how many sets there are. */
void nb_rng_fill_limbs_at(uint64_t key, uint64_t first, uint64_t *dst, size_t n,
                          const uint64_t *q, size_t limbs);

#ifdef __cplusplus
}
#endif

#if defined(__CUDACC__)
#define NB_RNG_HD __host__ __device__ __forceinline__
#else
#define NB_RNG_HD static inline
#endif

/* splitmix64's output function: a bijection of 64-bit words whose outputs
 * for consecutive inputs pass as independent. */
NB_RNG_HD uint64_t nb_rng_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Value i of key `key`, in [0, q) for q >= 1: floor(x q / 2^128) for the
 * 128-bit x = hi 2^64 + lo, hi and lo the outputs 2i + 1 and 2i + 2 of the
 * stream seeded with `key` (output k is nb_rng_mix(key + k golden), as
 * nb_rng_next gives it). Each residue's probability is within q / 2^128 of
 * 1/q (no rejection, so every i costs the same); depends on nothing but
 * (key, i, q). */
NB_RNG_HD uint64_t nb_rng_residue_at(uint64_t key, uint64_t i, uint64_t q)
{
    const uint64_t g = 0x9E3779B97F4A7C15ull;
    const uint64_t hi = nb_rng_mix(key + (2 * i + 1) * g);
    const uint64_t lo = nb_rng_mix(key + (2 * i + 2) * g);
#if defined(__CUDA_ARCH__)
    const uint64_t top = __umul64hi(lo, q), mid = hi * q;
    return __umul64hi(hi, q) + (mid + top < mid);
#else
    const uint64_t top = (uint64_t)(((unsigned __int128)lo * q) >> 64), mid = hi * q;
    return (uint64_t)(((unsigned __int128)hi * q) >> 64) + (mid + top < mid);
#endif
}

#endif

/* splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014) and rejection sampling for residues. */
#include "core/rng.h"

void nb_rng_seed(nb_rng *r, uint64_t seed)
{
    if (r)
        r->state = seed;
}

uint64_t nb_rng_next(nb_rng *r) { return nb_rng_mix(r->state += 0x9E3779B97F4A7C15ull); }

uint64_t nb_rng_below(nb_rng *r, uint64_t bound)
{
    if (bound == 0)
        return 0;
    /* 2^64 mod bound: the values [0, skip) are the surplus that x % bound
     * would map onto the smallest residues one extra time */
    const uint64_t skip = (0 - bound) % bound;
    uint64_t x;
    do
        x = nb_rng_next(r);
    while (x < skip);
    return x % bound;
}

/* The same draws and values as nb_rng_below, with its two divisions per
 * value taken out of the loop: the rejection threshold once, and x mod q by
 * the quotient estimate mulhi(x, floor((2^64 - 1) / q)), which is at most 2
 * below floor(x / q), so at most two subtractions follow. The inputs of
 * every rotated buffer set of a cold case are drawn here, outside the
 * samples but inside the sweep's wall time. */
void nb_rng_fill_residues(nb_rng *r, uint64_t *dst, size_t n, uint64_t q)
{
    if (q == 0) {
        for (size_t i = 0; i < n; i++)
            dst[i] = 0;
        return;
    }
    const uint64_t skip = (0 - q) % q, m = UINT64_MAX / q;
    for (size_t i = 0; i < n; i++) {
        uint64_t x;
        do
            x = nb_rng_next(r);
        while (x < skip);
        uint64_t rem = x - (uint64_t)(((unsigned __int128)x * m) >> 64) * q;
        while (rem >= q)
            rem -= q;
        dst[i] = rem;
    }
}

void nb_rng_fill_limbs(nb_rng *r, uint64_t *dst, size_t n, const uint64_t *q, size_t limbs)
{
    for (size_t l = 0; l < limbs; l++) {
        nb_rng_fill_residues(r, dst + l * n, n, q[l]);
        if (n && dst[l * n] == 0 && q[l] > 1)
            dst[l * n] = 1;
    }
}

void nb_rng_fill_limbs_at(uint64_t key, uint64_t first, uint64_t *dst, size_t n,
                          const uint64_t *q, size_t limbs)
{
#pragma omp parallel for schedule(static) if (limbs > 1 && limbs * n >= 65536)
    for (size_t l = 0; l < limbs; l++) {
        uint64_t *p = dst + l * n;
        for (size_t i = 0; i < n; i++)
            p[i] = nb_rng_residue_at(key, first + l * n + i, q[l]);
        if (n && p[0] == 0 && q[l] > 1)
            p[0] = 1;
    }
}

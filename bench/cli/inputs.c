/* Seeded random inputs of the CLI's checks (`verify`, `verify --stage`):
 * splitmix64 and residue polynomials drawn from it, so a printed seed
 * reproduces the inputs exactly. */
#include "bench/cli/cli.h"

uint64_t nb_cli_rand64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void nb_cli_fill_residues(uint64_t *a, size_t n, const uint64_t *q, size_t limbs,
                          uint64_t *state)
{
    for (size_t l = 0; l < limbs; l++) {
        const uint64_t lim = UINT64_MAX - UINT64_MAX % q[l];
        for (size_t i = 0; i < n; i++) {
            uint64_t x;
            do
                x = nb_cli_rand64(state);
            while (x >= lim);
            a[l * n + i] = x % q[l];
        }
        if (a[l * n] == 0)
            a[l * n] = 1;
    }
}

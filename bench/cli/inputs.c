/* Seeded random inputs of the CLI's checks (`verify`, `verify --stage`):
 * residue polynomials drawn from core's generator, so a printed seed
 * reproduces the inputs exactly. */
#include "bench/cli/cli.h"
#include "core/rng.h"

void nb_cli_fill_residues(uint64_t *a, size_t n, const uint64_t *q, size_t limbs,
                          uint64_t *state)
{
    nb_rng rng = {*state};
    for (size_t l = 0; l < limbs; l++) {
        nb_rng_fill_residues(&rng, a + l * n, n, q[l]);
        if (a[l * n] == 0)
            a[l * n] = 1;
    }
    *state = rng.state;
}

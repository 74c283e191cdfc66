/* Shared helpers for the CMocka tests: a seeded generator whose seed is
 * printed on failure, random residues (never all zeros), poison patterns and
 * the GPU skip rule (exit 77 when no device is present). Header-only. */
#ifndef NB_TESTUTIL_H
#define NB_TESTUTIL_H

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <setjmp.h>
#include <cmocka.h>

#include "ntt/ntt.h"

/* The run's seed: $NB_TEST_SEED if set, else time-based; printed once so a
 * failure can be replayed with NB_TEST_SEED=<seed>. */
static uint64_t nb_test_seed_value;
static uint64_t nb_test_rng_state;

static inline uint64_t nb_test_rand(void)
{
    /* splitmix64 */
    uint64_t z = (nb_test_rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline void nb_test_seed_init(void)
{
    const char *env = getenv("NB_TEST_SEED");
    nb_test_seed_value = env ? strtoull(env, NULL, 0)
                             : ((uint64_t)time(NULL) * 0x2545F4914F6CDD1Dull) ^ (uint64_t)clock();
    nb_test_rng_state = nb_test_seed_value;
    printf("# NB_TEST_SEED=%" PRIu64 " (set it to replay this run)\n", nb_test_seed_value);
    fflush(stdout);
}

/* Uniform in [0, q). */
static inline uint64_t nb_test_rand_below(uint64_t q)
{
    uint64_t lim = UINT64_MAX - UINT64_MAX % q, x;
    do
        x = nb_test_rand();
    while (x >= lim);
    return x % q;
}

/* Fills limbs of n coefficients with uniform residues mod q[l]; guarantees at
 * least one non-zero value per limb. */
static inline void nb_test_fill_residues(uint64_t *a, size_t n, const uint64_t *q, size_t limbs)
{
    for (size_t l = 0; l < limbs; l++) {
        for (size_t i = 0; i < n; i++)
            a[l * n + i] = nb_test_rand_below(q[l]);
        if (a[l * n] == 0)
            a[l * n] = 1 + nb_test_rand_below(q[l] - 1);
    }
}

/* Poison pattern for outputs: a value no reduced residue can equal. */
#define NB_TEST_POISON 0xA5A5A5A5A5A5A5A5ull

/* Report a mismatch with the seed, then fail. */
#define nb_test_fail(...)                                                        \
    do {                                                                         \
        print_error("seed=%" PRIu64 ": ", nb_test_seed_value);                  \
        print_error(__VA_ARGS__);                                                \
        print_error("\n");                                                       \
        fail();                                                                  \
    } while (0)

/* For GPU test programs: exit 77 (meson "skip") when no device is usable. */
static inline void nb_test_require_gpu_or_skip(void)
{
    if (nb_gpu_require() != NB_OK) {
        printf("SKIP: %s\n", nb_last_error());
        exit(77);
    }
}

#endif

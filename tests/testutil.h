/* Shared helpers for the CMocka tests: a seeded generator whose seed is
 * printed on failure, random residues (never all zeros), a file read whole,
 * poison patterns and the GPU skip rule (exit 77 when no device is present).
 * Header-only. */
#ifndef NB_TESTUTIL_H
#define NB_TESTUTIL_H

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <setjmp.h>
#include <cmocka.h>

#include "core/rng.h"
#include "ntt/ntt.h"

/* The run's seed: $NB_TEST_SEED if set, else time-based; printed once so a
 * failure can be replayed with NB_TEST_SEED=<seed>. */
static uint64_t nb_test_seed_value;
static nb_rng nb_test_rng;

static inline uint64_t nb_test_rand(void) { return nb_rng_next(&nb_test_rng); }

static inline void nb_test_seed_init(void)
{
    const char *env = getenv("NB_TEST_SEED");
    nb_test_seed_value = env ? strtoull(env, NULL, 0)
                             : ((uint64_t)time(NULL) * 0x2545F4914F6CDD1Dull) ^ (uint64_t)clock();
    nb_rng_seed(&nb_test_rng, nb_test_seed_value);
    printf("# NB_TEST_SEED=%" PRIu64 " (set it to replay this run)\n", nb_test_seed_value);
    fflush(stdout);
}

/* Uniform in [0, q), q >= 1. */
static inline uint64_t nb_test_rand_below(uint64_t q) { return nb_rng_below(&nb_test_rng, q); }

/* Fills limbs of n coefficients with uniform residues mod q[l]; guarantees at
 * least one non-zero value per limb. */
static inline void nb_test_fill_residues(uint64_t *a, size_t n, const uint64_t *q, size_t limbs)
{
    for (size_t l = 0; l < limbs; l++) {
        nb_rng_fill_residues(&nb_test_rng, a + l * n, n, q[l]);
        if (a[l * n] == 0)
            a[l * n] = 1 + nb_test_rand_below(q[l] - 1);
    }
}

/* Contents of the file at PATH as a NUL-terminated string (free() it); fails
 * the test if it cannot be read. */
static inline char *nb_test_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
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

/* Expects status `want` and a message; clears the message first so that a
 * stale one cannot satisfy the check. */
#define EXPECT_STATUS(call, want)                                                       \
    do {                                                                                \
        nb_clear_error();                                                               \
        nb_status got_ = (call);                                                        \
        if (got_ != (want))                                                             \
            nb_test_fail("%s returned %s, want %s (message: '%s')", #call,               \
                         nb_status_str(got_), nb_status_str(want), nb_last_error());    \
        if ((want) != NB_OK && strlen(nb_last_error()) == 0)                            \
            nb_test_fail("%s returned %s without a message", #call, nb_status_str(got_)); \
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

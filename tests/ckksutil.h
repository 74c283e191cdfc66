/* Helpers shared by the CPU CKKS pipeline tests (test_ckks_pipeline.c,
 * test_ckks_keyswitch.c): poisoned and copied word arrays, the reference's
 * transform between NTT and coefficient form, a limb-by-limb comparison, a
 * cpu-harvey pipeline over a preset or spec, the levels a test runs at and a
 * random key-switch key. Header-only. */
#ifndef NB_TEST_CKKSUTIL_H
#define NB_TEST_CKKSUTIL_H

#include <stdlib.h>
#include <string.h>

#include "ckks/ckks.h"
#include "reference/reference.h"
#include "testutil.h"

/* `words` words of NB_TEST_POISON (free() it). */
static inline uint64_t *alloc_poison(size_t words)
{
    uint64_t *a = malloc(words * sizeof *a);
    assert_non_null(a);
    for (size_t i = 0; i < words; i++)
        a[i] = NB_TEST_POISON;
    return a;
}

/* A copy of a[0..words) (free() it). */
static inline uint64_t *dup_words(const uint64_t *a, size_t words)
{
    uint64_t *b = malloc(words * sizeof *b);
    assert_non_null(b);
    memcpy(b, a, words * sizeof *b);
    return b;
}

/* In-place NTT-form <-> coefficient-form conversion with the reference NTT
 * and the library's default roots (minimal primitive 2N-th roots). */
static inline void ref_transform(uint64_t *a, const uint64_t *primes, size_t limbs,
                                 unsigned log_n, int inverse)
{
    const size_t n = (size_t)1 << log_n;
    for (size_t l = 0; l < limbs; l++) {
        uint64_t psi;
        assert_int_equal(nb_root_minimal(primes[l], log_n, &psi), NB_OK);
        nb_status s = inverse ? nb_ref_ntt_inverse(a + l * n, log_n, primes[l], psi)
                              : nb_ref_ntt_forward(a + l * n, log_n, primes[l], psi);
        assert_int_equal(s, NB_OK);
    }
}

/* Fails naming `what`, the limb and the index at the first word of got that
 * differs from want (limbs x n words each). */
static inline void expect_equal(const char *what, const uint64_t *want, const uint64_t *got,
                                size_t limbs, size_t n)
{
    for (size_t l = 0; l < limbs; l++)
        for (size_t i = 0; i < n; i++)
            if (want[l * n + i] != got[l * n + i])
                nb_test_fail("%s: limb %zu index %zu: want %llu got %llu", what, l, i,
                             (unsigned long long)want[l * n + i],
                             (unsigned long long)got[l * n + i]);
}

/* A parameter set and its cpu-harvey pipeline: make() from a preset name, or
 * from spec when preset is NULL; drop() frees both. */
typedef struct {
    nb_ckks_params *p;
    nb_ckks *c;
} fixture;

static inline fixture make(const char *preset, const nb_ckks_spec *spec)
{
    fixture f = {0};
    nb_status s = preset ? nb_ckks_params_from_preset(&f.p, preset)
                         : nb_ckks_params_create(&f.p, spec);
    if (s != NB_OK)
        nb_test_fail("params: %s", nb_last_error());
    const nb_ntt_variant *v = nb_ntt_variant_find("cpu-harvey");
    assert_non_null(v);
    if (nb_ckks_create(&f.c, f.p, v, NULL) != NB_OK)
        nb_test_fail("nb_ckks_create: %s", nb_last_error());
    return f;
}

static inline void drop(fixture *f)
{
    nb_ckks_destroy(f->c);
    nb_ckks_params_destroy(f->p);
}

/* levels exercised for a set: top, a middle one, and 0 or 1 */
static inline size_t pick_levels(const nb_ckks_params *p, size_t lv[3], size_t min_level)
{
    size_t k = 0;
    lv[k++] = p->max_level;
    if (p->max_level / 2 > min_level && p->max_level / 2 != p->max_level)
        lv[k++] = p->max_level / 2;
    if (min_level < p->max_level / 2)
        lv[k++] = min_level;
    return k;
}

/* A random key-switch key of the set (nb_ckks_key_limbs limbs, every poly
 * over all L+1+alpha primes). */
static inline uint64_t *random_key(const nb_ckks_params *p)
{
    const size_t limbs = nb_ckks_key_limbs(p), per = p->q_count + p->alpha;
    uint64_t *key = alloc_poison(limbs * p->n);
    for (size_t poly = 0; poly < limbs / per; poly++)
        nb_test_fill_residues(key + poly * per * p->n, p->n, p->primes, per);
    return key;
}

#endif

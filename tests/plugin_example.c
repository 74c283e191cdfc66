/* A variant registered from outside the library, as a researcher would ship
 * one: built as a shared module, loaded by `nttbench --plugin PATH`, which
 * calls its exported nb_plugin_init(). It registers four CPU variants:
 *   example-naive    a plain radix-2 NTT in the library's ordering convention
 *                    (forward: natural in, bit-reversed out; inverse: the
 *                    reverse, scaled by N^-1), reading the shared tables;
 *   example-broken   the same with one coefficient of each output corrupted, so
 *                    tests can prove that a wrong result is reported and never
 *                    timed (exit code 1);
 *   example-naive32  the same transform on 32-bit words (uint32_t data, primes
 *                    below 2^31), its Shoup companions the high words of the
 *                    tables' 64-bit ones;
 *   example-broken32 example-naive32 with one forward output per limb off by one.
 * Only public headers are used (variant interface, tables, arithmetic). */
#include <stdlib.h>

#include "ntt/arith.h"
#include "ntt/variant.h"

typedef struct {
    const nb_ntt_tables *t;
} naive_plan;

static nb_status plan_create(void **out, const nb_ntt_tables *t, void *stream)
{
    (void)stream;
    naive_plan *p = malloc(sizeof *p);
    if (!p)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "example-naive: out of memory");
    p->t = t;
    *out = p;
    return NB_OK;
}

static void plan_destroy(void *plan) { free(plan); }

/* Cooley-Tukey, natural in, bit-reversed out: twiddle of block i at stage m
 * is fwd[m + i] = psi^brv(m + i). */
static void fwd_limb(void *words, const nb_ntt_tables *t, size_t l)
{
    uint64_t *a = words;
    const size_t n = t->n;
    const uint64_t q = t->q[l], mlo = t->mu_lo[l], mhi = t->mu_hi[l];
    const uint64_t *w = t->fwd + l * n;
    for (size_t m = 1, len = n / 2; m < n; m <<= 1, len >>= 1)
        for (size_t i = 0; i < m; i++)
            for (size_t j = 2 * i * len; j < 2 * i * len + len; j++) {
                uint64_t u = a[j], v = nb_mul_mod(a[j + len], w[m + i], q, mlo, mhi);
                a[j] = nb_add_mod(u, v, q);
                a[j + len] = nb_sub_mod(u, v, q);
            }
}

/* Gentleman-Sande, bit-reversed in, natural out, then scale by N^-1. */
static void inv_limb(void *words, const nb_ntt_tables *t, size_t l)
{
    uint64_t *a = words;
    const size_t n = t->n;
    const uint64_t q = t->q[l], mlo = t->mu_lo[l], mhi = t->mu_hi[l];
    const uint64_t *w = t->inv + l * n;
    for (size_t m = n / 2, len = 1; m >= 1; m >>= 1, len <<= 1)
        for (size_t i = 0; i < m; i++)
            for (size_t j = 2 * i * len; j < 2 * i * len + len; j++) {
                uint64_t u = a[j], v = a[j + len];
                a[j] = nb_add_mod(u, v, q);
                a[j + len] = nb_mul_mod(nb_sub_mod(u, v, q), w[m + i], q, mlo, mhi);
            }
    for (size_t j = 0; j < n; j++)
        a[j] = nb_mul_mod(a[j], t->n_inv[l], q, mlo, mhi);
}

/* Transforms limbs [first, first + count) of `words` (words of `bytes` bytes,
 * limb k at k N words) with limb_fn, limb first + k with prime first + k. */
static nb_status each_limb(void *plan, void *words, size_t bytes, size_t first, size_t count,
                           void (*limb_fn)(void *, const nb_ntt_tables *, size_t))
{
    const nb_ntt_tables *t = ((naive_plan *)plan)->t;
    for (size_t k = 0; k < count; k++)
        limb_fn((char *)words + k * t->n * bytes, t, first + k);
    return NB_OK;
}

/* The deliberate bug of the broken variants: output N/2 of each limb + 1 mod q. */
static void break_one_output(void *plan, void *words, size_t bytes, size_t first, size_t count)
{
    const nb_ntt_tables *t = ((naive_plan *)plan)->t;
    for (size_t k = 0; k < count; k++) {
        const size_t i = k * t->n + t->n / 2;
        const uint64_t q = t->q[first + k];
        if (bytes == 8)
            ((uint64_t *)words)[i] = (((uint64_t *)words)[i] + 1) % q;
        else
            ((uint32_t *)words)[i] = (uint32_t)((((uint32_t *)words)[i] + 1ull) % q);
    }
}

static nb_status forward(void *plan, void *words, size_t first, size_t count, void *stream)
{
    (void)stream;
    return each_limb(plan, words, 8, first, count, fwd_limb);
}

static nb_status inverse(void *plan, void *words, size_t first, size_t count, void *stream)
{
    (void)stream;
    return each_limb(plan, words, 8, first, count, inv_limb);
}

static nb_status forward_broken(void *plan, void *words, size_t first, size_t count,
                                void *stream)
{
    NB_TRY(forward(plan, words, first, count, stream));
    break_one_output(plan, words, 8, first, count);
    return NB_OK;
}

/* 32-bit words (q < 2^31): the _q31 butterflies keep values in [0, 2q); the
 * last reduction brings them to [0, q). Same orderings as fwd_limb/inv_limb. */
static void fwd_limb32(void *words, const nb_ntt_tables *t, size_t l)
{
    uint32_t *a = words;
    const size_t n = t->n;
    const uint32_t q = (uint32_t)t->q[l];
    const uint64_t *w = t->fwd + l * n, *ws = t->fwd_shoup + l * n;
    for (size_t m = 1, len = n / 2; m < n; m <<= 1, len >>= 1)
        for (size_t i = 0; i < m; i++)
            for (size_t j = 2 * i * len; j < 2 * i * len + len; j++)
                nb_ct_butterfly32_q31(&a[j], &a[j + len], (uint32_t)w[m + i],
                                      nb_shoup32_from64(ws[m + i]), q);
    for (size_t j = 0; j < n; j++)
        a[j] = nb_reduce32_2q(a[j], q);
}

static void inv_limb32(void *words, const nb_ntt_tables *t, size_t l)
{
    uint32_t *a = words;
    const size_t n = t->n;
    const uint32_t q = (uint32_t)t->q[l];
    const uint64_t *w = t->inv + l * n, *ws = t->inv_shoup + l * n;
    for (size_t m = n / 2, len = 1; m >= 1; m >>= 1, len <<= 1)
        for (size_t i = 0; i < m; i++)
            for (size_t j = 2 * i * len; j < 2 * i * len + len; j++)
                nb_gs_butterfly32_q31(&a[j], &a[j + len], (uint32_t)w[m + i],
                                      nb_shoup32_from64(ws[m + i]), q);
    for (size_t j = 0; j < n; j++)
        a[j] = nb_mul_shoup32(a[j], (uint32_t)t->n_inv[l], nb_shoup32_from64(t->n_inv_shoup[l]),
                              q);
}

static nb_status forward32(void *plan, void *words, size_t first, size_t count, void *stream)
{
    (void)stream;
    return each_limb(plan, words, 4, first, count, fwd_limb32);
}

static nb_status inverse32(void *plan, void *words, size_t first, size_t count, void *stream)
{
    (void)stream;
    return each_limb(plan, words, 4, first, count, inv_limb32);
}

static nb_status forward32_broken(void *plan, void *words, size_t first, size_t count,
                                  void *stream)
{
    NB_TRY(forward32(plan, words, first, count, stream));
    break_one_output(plan, words, 4, first, count);
    return NB_OK;
}

static const nb_ntt_variant naive = {
    .name = "example-naive",
    .description = "plug-in example: plain radix-2 CT/GS with Barrett products (tests/plugin_example.c)",
    .backend = NB_BACKEND_CPU,
    .min_log_n = 1,
    .max_log_n = 17,
    .word_bits = 64,
    .max_prime_bits = NB_MAX_PRIME_BITS,
    .plan_create = plan_create,
    .plan_destroy = plan_destroy,
    .forward = forward,
    .inverse = inverse,
};

static const nb_ntt_variant broken = {
    .name = "example-broken",
    .description = "plug-in example with a deliberate bug: one forward output per limb is off by one",
    .backend = NB_BACKEND_CPU,
    .min_log_n = 2,
    .max_log_n = 17,
    .word_bits = 64,
    .max_prime_bits = NB_MAX_PRIME_BITS,
    .plan_create = plan_create,
    .plan_destroy = plan_destroy,
    .forward = forward_broken,
    .inverse = inverse,
};

static const nb_ntt_variant naive32 = {
    .name = "example-naive32",
    .description = "plug-in example on 32-bit words: plain radix-2 CT/GS with Shoup products "
                   "(tests/plugin_example.c)",
    .backend = NB_BACKEND_CPU,
    .min_log_n = 1,
    .max_log_n = 17,
    .word_bits = 32,
    .max_prime_bits = NB_MAX_PRIME_BITS_32,
    .plan_create = plan_create,
    .plan_destroy = plan_destroy,
    .forward = forward32,
    .inverse = inverse32,
};

static const nb_ntt_variant broken32 = {
    .name = "example-broken32",
    .description = "plug-in example on 32-bit words with a deliberate bug: one forward output "
                   "per limb is off by one",
    .backend = NB_BACKEND_CPU,
    .min_log_n = 2,
    .max_log_n = 17,
    .word_bits = 32,
    .max_prime_bits = NB_MAX_PRIME_BITS_32,
    .plan_create = plan_create,
    .plan_destroy = plan_destroy,
    .forward = forward32_broken,
    .inverse = inverse32,
};

/* The plug-in ABI of the headers it is built with, checked before loading. */
NB_PLUGIN_ABI_EXPORT;

/* The entry point nttbench looks up (NB_PLUGIN_INIT_SYMBOL). */
__attribute__((visibility("default"))) nb_status nb_plugin_init(void)
{
    NB_TRY(nb_ntt_variant_register(&naive));
    NB_TRY(nb_ntt_variant_register(&broken));
    NB_TRY(nb_ntt_variant_register(&naive32));
    return nb_ntt_variant_register(&broken32);
}

/* A variant registered from outside the library, as a researcher would ship
 * one: built as a shared module, loaded by `nttbench --plugin PATH`, which
 * calls its exported nb_plugin_init(). It registers two CPU variants:
 *   example-naive   a plain radix-2 NTT in the library's ordering convention
 *                   (forward: natural in, bit-reversed out; inverse: the
 *                   reverse, scaled by N^-1), reading the shared tables;
 *   example-broken  the same with one coefficient of each output corrupted, so
 *                   tests can prove that a wrong result is reported and never
 *                   timed (exit code 1).
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
static void fwd_limb(uint64_t *a, const nb_ntt_tables *t, size_t l)
{
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
static void inv_limb(uint64_t *a, const nb_ntt_tables *t, size_t l)
{
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

static nb_status forward(void *plan, void *words, size_t first, size_t count, void *stream)
{
    uint64_t *data = (uint64_t *)words;
    (void)stream;
    const nb_ntt_tables *t = ((naive_plan *)plan)->t;
    for (size_t k = 0; k < count; k++)
        fwd_limb(data + k * t->n, t, first + k);
    return NB_OK;
}

static nb_status inverse(void *plan, void *words, size_t first, size_t count, void *stream)
{
    uint64_t *data = (uint64_t *)words;
    (void)stream;
    const nb_ntt_tables *t = ((naive_plan *)plan)->t;
    for (size_t k = 0; k < count; k++)
        inv_limb(data + k * t->n, t, first + k);
    return NB_OK;
}

static nb_status forward_broken(void *plan, void *words, size_t first, size_t count,
                                void *stream)
{
    uint64_t *data = (uint64_t *)words;
    NB_TRY(forward(plan, data, first, count, stream));
    const nb_ntt_tables *t = ((naive_plan *)plan)->t;
    for (size_t k = 0; k < count; k++)
        data[k * t->n + t->n / 2] = (data[k * t->n + t->n / 2] + 1) % t->q[first + k];
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

/* The plug-in ABI of the headers it is built with, checked before loading. */
NB_PLUGIN_ABI_EXPORT;

/* The entry point nttbench looks up (NB_PLUGIN_INIT_SYMBOL). */
__attribute__((visibility("default"))) nb_status nb_plugin_init(void)
{
    NB_TRY(nb_ntt_variant_register(&naive));
    return nb_ntt_variant_register(&broken);
}

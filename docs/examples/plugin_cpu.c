/* A CPU NTT variant as a plug-in, in plain C: "my-cpu-ntt", radix-2
 * Cooley-Tukey / Gentleman-Sande with Harvey's lazy butterflies and the
 * library's precomputed Shoup twiddles. docs/variants.md shows this file and
 * the command that builds it; the test suite builds it the same way and
 * checks it with `nttbench verify`. */
#include <stdlib.h>

#include "ntt/arith.h"
#include "ntt/variant.h"

/* The plan only remembers the tables (owned by the caller, alive as long as
 * the plan). */
static nb_status my_plan_create(void **plan, const nb_ntt_tables *t, void *stream)
{
    (void)stream;
    const nb_ntt_tables **p = malloc(sizeof *p);
    if (!p)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "my-cpu-ntt: out of memory");
    *p = t;
    *plan = p;
    return NB_OK;
}

static void my_plan_destroy(void *plan)
{
    free(plan);
}

/* Forward transform of one limb l: natural order in, bit-reversed out,
 * values in [0, q). Stage m pairs a[j] and a[j + len] with fwd[m + i]. */
static void forward_limb(uint64_t *a, const nb_ntt_tables *t, size_t l)
{
    const size_t n = t->n;
    const uint64_t q = t->q[l];
    const uint64_t *w = t->fwd + l * n, *ws = t->fwd_shoup + l * n;
    for (size_t m = 1, len = n / 2; m < n; m <<= 1, len >>= 1)
        for (size_t i = 0; i < m; i++)
            for (size_t j = 2 * i * len; j < 2 * i * len + len; j++)
                nb_ct_butterfly(&a[j], &a[j + len], w[m + i], ws[m + i], q);
    for (size_t j = 0; j < n; j++)
        a[j] = nb_reduce_4q(a[j], q);
}

/* Inverse transform of one limb l: bit-reversed in, natural out, scaled by
 * N^-1, values in [0, q). */
static void inverse_limb(uint64_t *a, const nb_ntt_tables *t, size_t l)
{
    const size_t n = t->n;
    const uint64_t q = t->q[l];
    const uint64_t *w = t->inv + l * n, *ws = t->inv_shoup + l * n;
    for (size_t m = n / 2, len = 1; m >= 1; m >>= 1, len <<= 1)
        for (size_t i = 0; i < m; i++)
            for (size_t j = 2 * i * len; j < 2 * i * len + len; j++)
                nb_gs_butterfly(&a[j], &a[j + len], w[m + i], ws[m + i], q);
    for (size_t j = 0; j < n; j++)
        a[j] = nb_mul_shoup(a[j], t->n_inv[l], t->n_inv_shoup[l], q);
}

/* Limbs [first, first + count); data points at limb `first`, which uses the
 * tables of prime `first`. */
static nb_status my_forward(void *plan, void *words, size_t first, size_t count,
                            void *stream)
{
    uint64_t *data = (uint64_t *)words;
    (void)stream;
    const nb_ntt_tables *t = *(const nb_ntt_tables **)plan;
    for (size_t k = 0; k < count; k++)
        forward_limb(data + k * t->n, t, first + k);
    return NB_OK;
}

static nb_status my_inverse(void *plan, void *words, size_t first, size_t count,
                            void *stream)
{
    uint64_t *data = (uint64_t *)words;
    (void)stream;
    const nb_ntt_tables *t = *(const nb_ntt_tables **)plan;
    for (size_t k = 0; k < count; k++)
        inverse_limb(data + k * t->n, t, first + k);
    return NB_OK;
}

static const nb_ntt_variant my_cpu_ntt = {
    .name = "my-cpu-ntt",
    .description = "docs example: radix-2 CT/GS, Harvey butterflies, Shoup twiddles",
    .backend = NB_BACKEND_CPU,
    .min_log_n = 1,
    .max_log_n = 17,
    .word_bits = 64,
    .max_prime_bits = NB_MAX_PRIME_BITS,
    .plan_create = my_plan_create,
    .plan_destroy = my_plan_destroy,
    .forward = my_forward,
    .inverse = my_inverse,
};

/* The plug-in ABI these headers describe: nttbench refuses a plug-in built
 * for another one. */
NB_PLUGIN_ABI_EXPORT;

/* The entry point `nttbench --plugin` calls. */
__attribute__((visibility("default"))) nb_status nb_plugin_init(void)
{
    return nb_ntt_variant_register(&my_cpu_ntt);
}

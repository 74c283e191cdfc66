/* Two CPU variants that are right on a whole batch of limbs and wrong on a
 * sub-range, to prove that `nttbench verify` checks the plug-in contract
 * (limbs [first, first + count), data pointing at limb `first`):
 *   broken-ignores-first   uses the primes and twiddles of limbs 0.. instead
 *                          of first.. (a plug-in that ignores `first`);
 *   broken-writes-outside  transforms the range, then also rewrites the limb
 *                          just after it when there is one in the buffer
 *                          (a plug-in that ignores `count`);
 * and one wrong on every call, whose run fails its check before timing:
 *   broken-first-value     transforms, then flips the lowest bit of the
 *                          range's first value.
 * All delegate the arithmetic to the built-in cpu-harvey variant. */
#include <stdlib.h>

#include "ntt/variant.h"

typedef struct {
    const nb_ntt_variant *base;
    void *plan;
    size_t limbs, n;
} wrap_plan;

static nb_status plan_create(void **out, const nb_ntt_tables *t, void *stream)
{
    wrap_plan *p = calloc(1, sizeof *p);
    if (!p)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    p->base = nb_ntt_variant_find("cpu-harvey");
    p->limbs = t->limbs;
    p->n = t->n;
    nb_status s = p->base ? p->base->plan_create(&p->plan, t, stream) : NB_ERR_NOT_FOUND;
    if (s != NB_OK) {
        free(p);
        return s;
    }
    *out = p;
    return NB_OK;
}

static void plan_destroy(void *plan)
{
    wrap_plan *p = plan;
    if (p)
        p->base->plan_destroy(p->plan);
    free(p);
}

static nb_status fwd_ignores_first(void *plan, void *words, size_t first, size_t count,
                                   void *stream)
{
    uint64_t *data = (uint64_t *)words;
    (void)first;
    wrap_plan *p = plan;
    return p->base->forward(p->plan, data, 0, count, stream);
}

static nb_status inv_ignores_first(void *plan, void *words, size_t first, size_t count,
                                   void *stream)
{
    uint64_t *data = (uint64_t *)words;
    (void)first;
    wrap_plan *p = plan;
    return p->base->inverse(p->plan, data, 0, count, stream);
}

static nb_status fwd_writes_outside(void *plan, void *words, size_t first, size_t count,
                                    void *stream)
{
    uint64_t *data = (uint64_t *)words;
    wrap_plan *p = plan;
    NB_TRY(p->base->forward(p->plan, data, first, count, stream));
    if (first + count < p->limbs)
        data[count * p->n] = 1;
    return NB_OK;
}

static nb_status inv_writes_outside(void *plan, void *words, size_t first, size_t count,
                                    void *stream)
{
    uint64_t *data = (uint64_t *)words;
    wrap_plan *p = plan;
    NB_TRY(p->base->inverse(p->plan, data, first, count, stream));
    if (first + count < p->limbs)
        data[count * p->n] = 1;
    return NB_OK;
}

/* The transform's status; on success the range's first value is off by one. */
static nb_status flip_first(nb_status transformed, void *words)
{
    if (transformed == NB_OK)
        ((uint64_t *)words)[0] ^= 1;
    return transformed;
}

static nb_status fwd_first_value(void *plan, void *words, size_t first, size_t count,
                                 void *stream)
{
    wrap_plan *p = plan;
    return flip_first(p->base->forward(p->plan, words, first, count, stream), words);
}

static nb_status inv_first_value(void *plan, void *words, size_t first, size_t count,
                                 void *stream)
{
    wrap_plan *p = plan;
    return flip_first(p->base->inverse(p->plan, words, first, count, stream), words);
}

static const nb_ntt_variant ignores_first = {
    .name = "broken-ignores-first",
    .description = "test plug-in: uses limbs 0.. whatever `first` says",
    .backend = NB_BACKEND_CPU,
    .min_log_n = 1,
    .max_log_n = 17,
    .word_bits = 64,
    .max_prime_bits = 62,
    .plan_create = plan_create,
    .plan_destroy = plan_destroy,
    .forward = fwd_ignores_first,
    .inverse = inv_ignores_first,
};

static const nb_ntt_variant writes_outside = {
    .name = "broken-writes-outside",
    .description = "test plug-in: writes the limb after the range",
    .backend = NB_BACKEND_CPU,
    .min_log_n = 1,
    .max_log_n = 17,
    .word_bits = 64,
    .max_prime_bits = 62,
    .plan_create = plan_create,
    .plan_destroy = plan_destroy,
    .forward = fwd_writes_outside,
    .inverse = inv_writes_outside,
};

static const nb_ntt_variant first_value = {
    .name = "broken-first-value",
    .description = "test plug-in: the first value of the range is off in its lowest bit",
    .backend = NB_BACKEND_CPU,
    .min_log_n = 1,
    .max_log_n = 17,
    .word_bits = 64,
    .max_prime_bits = 62,
    .plan_create = plan_create,
    .plan_destroy = plan_destroy,
    .forward = fwd_first_value,
    .inverse = inv_first_value,
};

NB_PLUGIN_ABI_EXPORT;

__attribute__((visibility("default"))) nb_status nb_plugin_init(void)
{
    NB_TRY(nb_ntt_variant_register(&ignores_first));
    NB_TRY(nb_ntt_variant_register(&writes_outside));
    return nb_ntt_variant_register(&first_value);
}

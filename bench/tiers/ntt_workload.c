/* The NTT workload of the NTT tier: an in-place transform of any registered
 * variant on every buffer set, verified against cpu-harvey planned over the
 * variant's own tables (built, and their primes checked, once per case). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tiers/ntt.h"

#include "core/rng.h"

#ifdef NB_HAVE_CUDA
#include "core/cuda_check.h"
#endif

/* ------------------------------------------------------------------ NTT */

typedef struct ntt_ctx {
    nb_workload w; /* first: the handle returned to callers */
    char label[160];
    const nb_ntt_variant *variant;
    unsigned log_n;
    size_t n, limbs;
    int inverse;
    uint64_t seed;
    uint64_t *primes;
    nb_ntt *ntt;    /* the variant's plan */
    const nb_ntt_variant *oracle; /* cpu-harvey */
    void *oracle_plan;            /* its plan over the variant's own tables */
    void *stream;
    size_t sets;
    nb_buffer *data;   /* sets * n * limbs words */
    uint64_t *host_a;  /* n * limbs: staging / expected */
    uint64_t *host_b;  /* n * limbs: downloaded output */
} ntt_ctx;

/* Set `set`'s input: uniform residues, first coefficient of each limb non-zero. */
static void gen_input(const ntt_ctx *c, size_t set, uint64_t *a)
{
    nb_rng rng;
    nb_rng_seed(&rng, c->seed ^ (0xD1B54A32D192ED03ull * (set + 1)));
    for (size_t l = 0; l < c->limbs; l++) {
        nb_rng_fill_residues(&rng, a + l * c->n, c->n, c->primes[l]);
        if (a[l * c->n] == 0)
            a[l * c->n] = 1;
    }
}

static size_t set_words(const ntt_ctx *c) { return c->n * c->limbs; }

static void ntt_teardown(void *ctx)
{
    ntt_ctx *c = ctx;
    nb_buffer_destroy(c->data);
    free(c->host_a);
    free(c->host_b);
    c->data = NULL;
    c->host_a = c->host_b = NULL;
    c->sets = 0;
}

static nb_status ntt_upload(ntt_ctx *c, size_t set, void *stream)
{
    const size_t words = set_words(c);
    gen_input(c, set, c->host_a);
    return nb_buffer_upload(c->data, set * words * sizeof(uint64_t), c->host_a,
                            words * sizeof(uint64_t), stream);
}

static nb_status ntt_setup(void *ctx, size_t sets, void *stream)
{
    ntt_ctx *c = ctx;
    ntt_teardown(c);
    const size_t words = set_words(c);
    if (sets == 0 || words > SIZE_MAX / sizeof(uint64_t) / sets)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: bad set count %zu", c->label, sets);
    c->host_a = malloc(words * sizeof(uint64_t));
    c->host_b = malloc(words * sizeof(uint64_t));
    if (!c->host_a || !c->host_b)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "%s: out of host memory", c->label);
    NB_TRY(nb_buffer_create(&c->data, c->variant->backend, sets * words * sizeof(uint64_t)));
    c->sets = sets;
    for (size_t s = 0; s < sets; s++)
        NB_TRY(ntt_upload(c, s, stream));
    return NB_OK;
}

static size_t ntt_bytes(const void *ctx)
{
    const ntt_ctx *c = ctx;
    return 2 * set_words(c) * sizeof(uint64_t);
}

static size_t ntt_footprint(const void *ctx)
{
    const ntt_ctx *c = ctx;
    return set_words(c) * sizeof(uint64_t);
}

static nb_status ntt_prepare(void *ctx, size_t set, void *stream)
{
    ntt_ctx *c = ctx;
    if (set >= c->sets)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: set %zu of %zu", c->label, set, c->sets);
    return ntt_upload(c, set, stream);
}

static nb_status ntt_launch(void *ctx, size_t set, void *stream)
{
    ntt_ctx *c = ctx;
    uint64_t *p = (uint64_t *)nb_buffer_ptr(c->data) + set * set_words(c);
    return c->inverse ? nb_ntt_inverse(c->ntt, p, 0, c->limbs, stream)
                      : nb_ntt_forward(c->ntt, p, 0, c->limbs, stream);
}

static nb_status ntt_verify(void *ctx, size_t set, void *stream)
{
    ntt_ctx *c = ctx;
    const size_t words = set_words(c);
    NB_TRY(nb_buffer_download(c->data, set * words * sizeof(uint64_t), c->host_b,
                              words * sizeof(uint64_t), stream));
    gen_input(c, set, c->host_a);
    NB_TRY(c->inverse ? c->oracle->inverse(c->oracle_plan, c->host_a, 0, c->limbs, NULL)
                      : c->oracle->forward(c->oracle_plan, c->host_a, 0, c->limbs, NULL));
    size_t bad = 0, first = SIZE_MAX;
    for (size_t i = 0; i < words; i++)
        if (c->host_b[i] != c->host_a[i]) {
            if (first == SIZE_MAX)
                first = i;
            bad++;
        }
    if (bad)
        return nb_set_error(NB_ERR_VERIFY,
                            "%s: limb %zu index %zu: got %llu, expected %llu (cpu-harvey); "
                            "%zu of %zu values differ",
                            c->label, first / c->n, first % c->n,
                            (unsigned long long)c->host_b[first],
                            (unsigned long long)c->host_a[first], bad, words);
    return NB_OK;
}

static nb_status ntt_region(const void *ctx, size_t set, void **ptr, size_t *bytes)
{
    const ntt_ctx *c = ctx;
    if (set >= c->sets || !c->data)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: no set %zu", c->label, set);
    *ptr = (uint64_t *)nb_buffer_ptr(c->data) + set * set_words(c);
    *bytes = set_words(c) * sizeof(uint64_t);
    return NB_OK;
}

static void ntt_destroy(void *ctx);

static const nb_workload_ops ntt_ops = {
    .setup = ntt_setup,
    .bytes_per_launch = ntt_bytes,
    .prepare = ntt_prepare,
    .launch = ntt_launch,
    .launch_marked = NULL,
    .verify = ntt_verify,
    .teardown = ntt_teardown,
    .footprint_bytes = ntt_footprint,
    .input_region = ntt_region,
    .destroy = ntt_destroy,
};

static void ntt_destroy(void *ctx)
{
    ntt_ctx *c = ctx;
    ntt_teardown(c);
    nb_ntt_destroy(c->ntt);
    if (c->oracle)
        c->oracle->plan_destroy(c->oracle_plan);
    free(c->primes);
    free(c);
}

nb_status nb_ntt_workload_create(nb_workload **out, const nb_ntt_variant *variant,
                                 unsigned log_n, size_t limbs, unsigned prime_bits, int inverse,
                                 uint64_t seed, void *stream)
{
    if (!out || !variant)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ntt_workload_create: NULL argument");
    *out = NULL;
    if (limbs == 0 || limbs > 4096)
        return nb_set_error(NB_ERR_INVALID_ARG, "limbs=%zu outside [1, 4096]", limbs);
    if (variant->backend == NB_BACKEND_GPU)
        NB_TRY(nb_gpu_require());
    const nb_ntt_variant *harvey = nb_ntt_variant_find("cpu-harvey");
    if (!harvey)
        return nb_set_error(NB_ERR_INTERNAL, "cpu-harvey (the oracle) is not registered");
    ntt_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of host memory");
    c->variant = variant;
    c->log_n = log_n;
    c->n = (size_t)1 << (log_n < 63 ? log_n : 0);
    c->limbs = limbs;
    c->inverse = inverse != 0;
    c->seed = seed;
    c->stream = stream;
    snprintf(c->label, sizeof c->label, "%s %s logn=%u L=%zu q%u", variant->name,
             inverse ? "inv" : "fwd", log_n, limbs, prime_bits);
    nb_status s = NB_OK;
    c->primes = malloc(limbs * sizeof *c->primes);
    if (!c->primes)
        s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of host memory");
    if (s == NB_OK)
        s = nb_primes_generate(log_n, prime_bits, limbs, NULL, 0, c->primes);
    if (s == NB_OK)
        s = nb_ntt_create(&c->ntt, variant, log_n, c->primes, NULL, limbs, stream);
    if (s == NB_OK)
        s = harvey->plan_create(&c->oracle_plan, nb_ntt_get_tables(c->ntt), NULL);
    if (s == NB_OK)
        c->oracle = harvey; /* the tables (and the primes' checks) are the variant's */
    if (s != NB_OK) {
        ntt_destroy(c);
        return s;
    }
    c->w.label = c->label;
    c->w.backend = variant->backend;
    c->w.ops = &ntt_ops;
    c->w.ctx = c;
    *out = &c->w;
    return NB_OK;
}

const nb_ntt_tables *nb_ntt_workload_tables(const nb_workload *w)
{
    if (!w || w->ops != &ntt_ops)
        return NULL;
    return nb_ntt_get_tables(((const ntt_ctx *)w->ctx)->ntt);
}

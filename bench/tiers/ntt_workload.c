/* The NTT workload of the NTT tier: an in-place transform of any registered
 * variant on every buffer set, in the variant's word size (64- or 32-bit
 * words), verified against the 64-bit cpu-harvey planned over the variant's
 * own tables (built, and their primes checked, once per case); a 32-bit
 * variant's output is widened before the comparison. Set 0's input is
 * drawn from the seed's stream, and it and its oracle output are kept on the
 * host, so the checks before and after timing draw and transform it once.
 * The other sets' inputs are counter-based draws (nb_rng_residue_at), so any
 * value can be drawn alone: on a GPU by one kernel over every set, on the
 * CPU sets in parallel, and on the host again for the check of the set a
 * case used last (another set's check uses the input its prepare drew). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tiers/ntt.h"

#include "bench/timing/internal.h"
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
    size_t word_bytes; /* 8 or 4: the variant's word */
    nb_buffer *data;   /* sets * n * limbs words of word_bytes */
    nb_buffer *q_dev;  /* the primes on the device (GPU variants) */
    uint64_t *host_a;  /* n * limbs: staging / expected */
    uint64_t *host_b;  /* n * limbs: downloaded output, widened */
    void *host_w;      /* n * limbs words of word_bytes (32-bit variants; else NULL) */
    uint64_t *in0;     /* n * limbs: set 0's input */
    uint64_t *exp0;    /* n * limbs: the oracle's output on in0, once have_exp0 */
    int have_exp0;
    size_t staged;     /* the set whose input host_a holds (prepare), 0 = none */
} ntt_ctx;

/* Host bytes of inputs drawn before one copy to the sets (one set at least). */
#define SETUP_CHUNK_BYTES ((size_t)32 << 20)

static size_t set_words(const ntt_ctx *c) { return c->n * c->limbs; }

/* The key of the counter-based draws of sets 1, 2, ...: value j of set k
 * (j = l n + i) is draw k n L + j, so the sets are one stream. */
static uint64_t sets_key(const ntt_ctx *c) { return nb_rng_mix(c->seed ^ 0xA0761D6478BD642Full); }

/* Set `set`'s input: uniform residues, the first coefficient of each limb
 * non-zero; set 0 from the seed's stream, the others as nb_gpu_fill_residues
 * draws them. */
static void gen_input(const ntt_ctx *c, size_t set, uint64_t *a)
{
    if (set == 0) {
        nb_rng rng;
        nb_rng_seed(&rng, c->seed ^ 0xD1B54A32D192ED03ull);
        nb_rng_fill_limbs(&rng, a, c->n, c->primes, c->limbs);
        return;
    }
    nb_rng_fill_limbs_at(sets_key(c), (uint64_t)set * set_words(c), a, c->n, c->primes, c->limbs);
}

static size_t set_bytes(const ntt_ctx *c) { return set_words(c) * c->word_bytes; }

/* The data buffer holds a leading guard of LEAD_BYTES (a multiple of the
 * 256-byte alignment the sets keep), the sets, and then a guard of one set's
 * bytes: a variant that writes wider words than its word_bits (twice its
 * data) writes into it, not past the allocation. The leading guard and the
 * first GUARD_CHECK bytes of the trailing one are set (nb_buffer_guard_set)
 * and checked with every verification. */
#define LEAD_BYTES 256
#define GUARD_CHECK 4096

/* Byte offset of set `set` in the data buffer (set = c->sets: the guard). */
static size_t set_off(const ntt_ctx *c, size_t set) { return LEAD_BYTES + set * set_bytes(c); }

static nb_status guard(ntt_ctx *c, int check, void *stream)
{
    const size_t n = set_bytes(c) < GUARD_CHECK ? set_bytes(c) : GUARD_CHECK;
    const size_t off = set_off(c, c->sets);
    if (!check) {
        NB_TRY(nb_buffer_guard_set(c->data, 0, LEAD_BYTES, stream));
        return nb_buffer_guard_set(c->data, off, n, stream);
    }
    size_t at;
    NB_TRY(nb_buffer_guard_check(c->data, 0, LEAD_BYTES, &at, stream));
    if (at < LEAD_BYTES)
        return nb_set_error(NB_ERR_VERIFY,
                            "%s: wrote before the start of its data: byte %zu before the first "
                            "set changed (%s)",
                            c->label, (size_t)LEAD_BYTES - at, c->variant->name);
    NB_TRY(nb_buffer_guard_check(c->data, off, n, &at, stream));
    if (at < n)
        return nb_set_error(NB_ERR_VERIFY,
                            "%s: wrote past the end of its data: byte %zu after the last set "
                            "changed (%s: %s)",
                            c->label, at, c->variant->name,
                            nb_buffer_guard_hint(c->variant->word_bits));
    return NB_OK;
}

void nb_words_from_u64(void *dst, const uint64_t *src, size_t n, unsigned word_bits)
{
    if (!dst || !src)
        return;
    if (word_bits == 32)
        for (size_t i = 0; i < n; i++)
            ((uint32_t *)dst)[i] = (uint32_t)src[i];
    else if (word_bits == 64 && dst != src)
        memmove(dst, src, n * sizeof *src);
}

void nb_words_to_u64(uint64_t *dst, const void *src, size_t n, unsigned word_bits)
{
    if (!dst || !src)
        return;
    if (word_bits == 32)
        for (size_t i = n; i-- > 0;) /* backwards: dst may start where src does */
            dst[i] = ((const uint32_t *)src)[i];
    else if (word_bits == 64 && (const void *)dst != src)
        memmove(dst, src, n * sizeof *dst);
}

static void ntt_teardown(void *ctx)
{
    ntt_ctx *c = ctx;
    nb_buffer_destroy(c->data);
    nb_buffer_destroy(c->q_dev);
    c->q_dev = NULL;
    free(c->host_a);
    free(c->host_b);
    free(c->host_w);
    free(c->in0);
    free(c->exp0);
    c->data = NULL;
    c->host_a = c->host_b = c->in0 = c->exp0 = NULL;
    c->host_w = NULL;
    c->have_exp0 = 0;
    c->staged = 0;
    c->sets = 0;
}

/* Copies set `set`'s input `a` (64-bit values) to its place on the
 * variant's side, narrowed first for a 32-bit variant. */
static nb_status ntt_upload(ntt_ctx *c, size_t set, const uint64_t *a, void *stream)
{
    const void *src = a;
    if (c->host_w) {
        nb_words_from_u64(c->host_w, a, set_words(c), c->variant->word_bits);
        src = c->host_w;
    }
    return nb_buffer_upload(c->data, set_off(c, set), src, set_bytes(c), stream);
}

/* Draws the inputs of sets [first, first + count) into `chunk` (count sets
 * in the variant's words, set after set), sets in parallel; NB_ERR_OUT_OF_MEMORY
 * when a thread's scratch cannot be allocated. */
static nb_status draw_sets(const ntt_ctx *c, size_t first, size_t count, unsigned char *chunk)
{
    const size_t words = set_words(c);
    int failed = 0;
#pragma omp parallel if (count > 1)
    {
        uint64_t *tmp = c->host_w ? malloc(words * sizeof *tmp) : NULL;
        if (c->host_w && !tmp) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (size_t k = 0; k < count; k++) {
            void *dst = chunk + k * set_bytes(c);
            if (!c->host_w) {
                gen_input(c, first + k, dst);
            } else if (tmp) {
                gen_input(c, first + k, tmp);
                nb_words_from_u64(dst, tmp, words, c->variant->word_bits);
            }
        }
        free(tmp);
    }
    return failed ? nb_set_error(NB_ERR_OUT_OF_MEMORY, "%s: out of host memory", c->label)
                  : NB_OK;
}

/* Every set's input: set 0's kept in in0; the others drawn on the device
 * (GPU variants), else in parallel by the chunk of SETUP_CHUNK_BYTES and
 * copied in with one copy per chunk. */
static nb_status upload_all(ntt_ctx *c, void *stream)
{
    gen_input(c, 0, c->in0);
    NB_TRY(ntt_upload(c, 0, c->in0, stream));
    if (c->sets < 2)
        return NB_OK;
#ifdef NB_HAVE_CUDA
    if (c->variant->backend == NB_BACKEND_GPU) {
        NB_TRY(nb_buffer_create(&c->q_dev, NB_BACKEND_GPU, c->limbs * sizeof *c->primes));
        NB_TRY(nb_buffer_upload(c->q_dev, 0, c->primes, c->limbs * sizeof *c->primes, stream));
        return nb_gpu_fill_residues((char *)nb_buffer_ptr(c->data) + LEAD_BYTES,
                                    c->variant->word_bits,
                                    set_words(c), (c->sets - 1) * set_words(c), c->log_n,
                                    c->limbs, nb_buffer_ptr(c->q_dev), sets_key(c), stream);
    }
#endif
    size_t per = SETUP_CHUNK_BYTES / set_bytes(c);
    if (per < 1)
        per = 1;
    if (per > c->sets - 1)
        per = c->sets - 1;
    unsigned char *chunk = malloc(per * set_bytes(c));
    if (!chunk)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "%s: out of host memory", c->label);
    nb_status s = NB_OK;
    for (size_t first = 1; first < c->sets && s == NB_OK; first += per) {
        const size_t count = first + per <= c->sets ? per : c->sets - first;
        s = draw_sets(c, first, count, chunk);
        if (s == NB_OK)
            s = nb_buffer_upload(c->data, set_off(c, first), chunk, count * set_bytes(c),
                                 stream);
    }
    free(chunk);
    return s;
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
    c->in0 = malloc(words * sizeof(uint64_t));
    c->exp0 = malloc(words * sizeof(uint64_t));
    if (c->word_bytes != sizeof(uint64_t))
        c->host_w = malloc(set_bytes(c));
    if (!c->host_a || !c->host_b || !c->in0 || !c->exp0 ||
        (c->word_bytes != sizeof(uint64_t) && !c->host_w))
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "%s: out of host memory", c->label);
    NB_TRY(nb_buffer_create(&c->data, c->variant->backend,
                            LEAD_BYTES + (sets + 1) * set_bytes(c)));
    c->sets = sets;
    NB_TRY(guard(c, 0, stream));
    return upload_all(c, stream);
}

static size_t ntt_bytes(const void *ctx)
{
    const ntt_ctx *c = ctx;
    return 2 * set_bytes(c);
}

static size_t ntt_footprint(const void *ctx)
{
    const ntt_ctx *c = ctx;
    return set_bytes(c);
}

static nb_status ntt_prepare(void *ctx, size_t set, void *stream)
{
    ntt_ctx *c = ctx;
    if (set >= c->sets)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: set %zu of %zu", c->label, set, c->sets);
    if (set == 0)
        return ntt_upload(c, 0, c->in0, stream);
    gen_input(c, set, c->host_a);
    c->staged = set;
    return ntt_upload(c, set, c->host_a, stream);
}

static nb_status ntt_launch(void *ctx, size_t set, void *stream)
{
    ntt_ctx *c = ctx;
    if (set >= c->sets)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: set %zu of %zu", c->label, set, c->sets);
    void *p = (char *)nb_buffer_ptr(c->data) + set_off(c, set);
    return c->inverse ? nb_ntt_inverse(c->ntt, p, 0, c->limbs, stream)
                      : nb_ntt_forward(c->ntt, p, 0, c->limbs, stream);
}

static nb_status ntt_verify(void *ctx, size_t set, void *stream)
{
    ntt_ctx *c = ctx;
    if (set >= c->sets)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: set %zu of %zu", c->label, set, c->sets);
    const size_t words = set_words(c);
    void *dst = c->host_w ? c->host_w : (void *)c->host_b;
    NB_TRY(guard(c, 1, stream));
    NB_TRY(nb_buffer_download(c->data, set_off(c, set), dst, set_bytes(c), stream));
    if (c->host_w)
        nb_words_to_u64(c->host_b, c->host_w, words, c->variant->word_bits);
    uint64_t *want = set == 0 ? c->exp0 : c->host_a;
    if (set != 0 || !c->have_exp0) {
        if (set == 0)
            memcpy(want, c->in0, words * sizeof *want);
        else if (c->staged != set) /* else prepare left its input there */
            gen_input(c, set, want);
        c->staged = 0;
        NB_TRY(c->inverse ? c->oracle->inverse(c->oracle_plan, want, 0, c->limbs, NULL)
                          : c->oracle->forward(c->oracle_plan, want, 0, c->limbs, NULL));
        c->have_exp0 |= set == 0;
    }
    size_t bad = 0, first = SIZE_MAX;
    for (size_t i = 0; i < words; i++)
        if (c->host_b[i] != want[i]) {
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
                            (unsigned long long)want[first], bad, words);
    return NB_OK;
}

static nb_status ntt_region(const void *ctx, size_t set, void **ptr, size_t *bytes)
{
    const ntt_ctx *c = ctx;
    if (set >= c->sets || !c->data)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: no set %zu", c->label, set);
    *ptr = (char *)nb_buffer_ptr(c->data) + set_off(c, set);
    *bytes = set_bytes(c);
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
    if (limbs == 0 || limbs > NB_NTT_WORKLOAD_MAX_LIMBS)
        return nb_set_error(NB_ERR_INVALID_ARG, "limbs=%zu outside [1, %d]", limbs,
                            NB_NTT_WORKLOAD_MAX_LIMBS);
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
    c->word_bytes = variant->word_bits == 32 ? sizeof(uint32_t) : sizeof(uint64_t);
    nb_status s = NB_OK;
    c->primes = malloc(limbs * sizeof *c->primes);
    if (!c->primes)
        s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of host memory");
    if (s == NB_OK)
        s = nb_primes_generate(log_n, prime_bits, limbs, NULL, 0, c->primes);
    snprintf(c->label, sizeof c->label, "%s %s logn=%u L=%zu q%u w%u logQ=%.1f", variant->name,
             inverse ? "inv" : "fwd", log_n, limbs, prime_bits, variant->word_bits,
             s == NB_OK ? nb_log_q(c->primes, limbs) : 0.0);
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

double nb_log_q(const uint64_t *q, size_t n)
{
    double sum = 0.0;
    for (size_t i = 0; q && i < n; i++)
        sum += log2((double)q[i]);
    return sum;
}

nb_status nb_ntt_limbs_for_log_q(unsigned log_n, unsigned prime_bits, unsigned log_q,
                                 size_t max_limbs, size_t *limbs, double *actual)
{
    if (!limbs || prime_bits == 0 || max_limbs == 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ntt_limbs_for_log_q: bad argument");
    /* a prime of b bits adds between b - 1 and b bits: L <= target / (b - 1) + 1 */
    const double want = (double)log_q - prime_bits / 2.0;
    size_t cap = (size_t)(want > 0 ? want / (prime_bits > 1 ? prime_bits - 1 : 1) : 0) + 1;
    if (cap > max_limbs)
        cap = max_limbs;
    uint64_t *q = malloc(cap * sizeof *q);
    if (!q)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of host memory");
    size_t have = 0; /* the primes that exist, up to cap */
    nb_status s = nb_primes_generate_upto(log_n, prime_bits, cap, NULL, 0, q, &have);
    double sum = 0.0;
    size_t l = 0;
    while (s == NB_OK && l < have && (l == 0 || sum < want))
        sum += log2((double)q[l++]);
    free(q);
    if (s != NB_OK)
        return nb_set_error(s, "log Q %u with %u-bit primes at log N %u: %s", log_q, prime_bits,
                            log_n, nb_last_error());
    if ((l == 0 || sum < want) && have < cap)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "log Q %u with %u-bit primes at log N %u: only %zu prime%s q < 2^%u "
                            "with q = 1 mod 2^%u and exactly %u bits %s available, %.1f bits in "
                            "all", log_q, prime_bits, log_n, have, have == 1 ? "" : "s",
                            prime_bits, log_n + 1, prime_bits, have == 1 ? "is" : "are", sum);
    if (l == 0 || sum < want)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "log Q %u needs more than %zu limbs of %u-bit primes", log_q,
                            max_limbs, prime_bits);
    *limbs = l;
    if (actual)
        *actual = sum;
    return NB_OK;
}

nb_status nb_ntt_workload_kernels(const nb_workload *w, nb_ntt_kernel *out, size_t max,
                                  size_t *n)
{
    if (!w || w->ops != &ntt_ops || !n)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ntt_workload_kernels: not an NTT workload");
    const ntt_ctx *c = w->ctx;
    return nb_ntt_kernels(c->ntt, c->inverse, 0, c->limbs, out, max, n);
}

const nb_ntt_tables *nb_ntt_workload_tables(const nb_workload *w)
{
    if (!w || w->ops != &ntt_ops)
        return NULL;
    return nb_ntt_get_tables(((const ntt_ctx *)w->ctx)->ntt);
}

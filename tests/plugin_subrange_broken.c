/* Two CPU variants that are right on a whole batch of limbs and wrong on a
 * sub-range, to prove that `nttbench verify` checks the plug-in contract
 * (limbs [first, first + count), data pointing at limb `first`):
 *   broken-ignores-first   uses the primes and twiddles of limbs 0.. instead
 *                          of first.. (a plug-in that ignores `first`);
 *   broken-writes-outside  transforms the range, then also rewrites the limb
 *                          just after it when there is one in the buffer
 *                          (a plug-in that ignores `count`);
 * one wrong on every call, whose run fails its check before timing:
 *   broken-first-value     transforms, then flips the lowest bit of the
 *                          range's first value;
 * and two that break the rest of the interface:
 *   broken-wide-words      declares 32-bit words and transforms 64-bit ones
 *                          (twice the bytes of its data);
 *   broken-out-of-place    right in place, but its out-of-place entries
 *                          transform the source and never write the
 *                          destination;
 * broken-silent-error    fails every call with NB_ERR_UNSUPPORTED and no
 *                          message;
 *   broken-refuses         fails every call with NB_ERR_INVALID_ARG (a check
 *                          of its own that is wrong);
 *   broken-aborts          calls abort() (as glibc does on a corrupted heap);
 *   broken-writes-before   transforms, then flips a bit of the word just
 *                          before its data (a plug-in indexing from -1);
 *   broken-writes-tables   its plan_create changes a twiddle of the tables
 *                          it is given (a plug-in converting them in place);
 *   broken-no-plan         its plan_create returns NB_OK and no plan;
 *   broken-unreduced       transforms, then adds q to the first value (right
 *                          mod q, not below q);
 *   broken-hangs           right for its first four forward calls, then never
 *                          returns (a hung kernel or a deadlock);
 * and right-out-of-place, whose out-of-place entries are right (copy, then
 * transform the copy), for contrast; right-small-primes, cpu-harvey declared
 * for primes of at most 36 bits (sets of larger primes are not its to run).
 * All delegate the arithmetic to the built-in cpu-harvey variant. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ntt/variant.h"

typedef struct {
    const nb_ntt_variant *base;
    void *plan;
    size_t limbs, n;
    const uint64_t *q; /* the tables' primes (they outlive the plan) */
} wrap_plan;

static nb_status plan_create(void **out, const nb_ntt_tables *t, void *stream)
{
    wrap_plan *p = calloc(1, sizeof *p);
    if (!p)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    p->base = nb_ntt_variant_find("cpu-harvey");
    p->limbs = t->limbs;
    p->n = t->n;
    p->q = t->q;
    nb_status s = p->base ? p->base->plan_create(&p->plan, t, stream) : NB_ERR_NOT_FOUND;
    if (s != NB_OK) {
        free(p);
        return s;
    }
    *out = p;
    return NB_OK;
}

/* broken-writes-tables: a plan, after flipping a bit of the tables' first
 * forward twiddle (the struct is const, its arrays are not). */
static nb_status plan_writes_tables(void **out, const nb_ntt_tables *t, void *stream)
{
    t->fwd[0] ^= 1;
    return plan_create(out, t, stream);
}

/* broken-no-plan: success without a plan. */
static nb_status plan_missing(void **out, const nb_ntt_tables *t, void *stream)
{
    (void)out, (void)t, (void)stream;
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

/* broken-wide-words (and the in-place entries of the out-of-place pair):
 * cpu-harvey's 64-bit transform, over whatever words the data holds. */
static nb_status fwd_wide(void *plan, void *words, size_t first, size_t count, void *stream)
{
    wrap_plan *p = plan;
    return p->base->forward(p->plan, words, first, count, stream);
}

static nb_status inv_wide(void *plan, void *words, size_t first, size_t count, void *stream)
{
    wrap_plan *p = plan;
    return p->base->inverse(p->plan, words, first, count, stream);
}

/* broken-out-of-place: the source transformed in place, dst left alone. */
static nb_status fwd_to_source(void *plan, void *dst, const void *src, size_t first,
                               size_t count, void *stream)
{
    wrap_plan *p = plan;
    (void)dst;
    return p->base->forward(p->plan, (void *)src, first, count, stream);
}

static nb_status inv_to_source(void *plan, void *dst, const void *src, size_t first,
                               size_t count, void *stream)
{
    wrap_plan *p = plan;
    (void)dst;
    return p->base->inverse(p->plan, (void *)src, first, count, stream);
}

/* right-out-of-place: src copied to dst, dst transformed. */
static nb_status fwd_to_right(void *plan, void *dst, const void *src, size_t first, size_t count,
                              void *stream)
{
    wrap_plan *p = plan;
    memcpy(dst, src, count * p->n * sizeof(uint64_t));
    return p->base->forward(p->plan, dst, first, count, stream);
}

static nb_status inv_to_right(void *plan, void *dst, const void *src, size_t first, size_t count,
                              void *stream)
{
    wrap_plan *p = plan;
    memcpy(dst, src, count * p->n * sizeof(uint64_t));
    return p->base->inverse(p->plan, dst, first, count, stream);
}

/* broken-silent-error: a failure without nb_set_error. */
static nb_status silent_error(void *plan, void *words, size_t first, size_t count, void *stream)
{
    (void)plan, (void)words, (void)first, (void)count, (void)stream;
    return NB_ERR_UNSUPPORTED;
}

/* broken-writes-before: right, then the word before the data changed. */
static nb_status fwd_before(void *plan, void *words, size_t first, size_t count, void *stream)
{
    wrap_plan *p = plan;
    NB_TRY(p->base->forward(p->plan, words, first, count, stream));
    ((uint64_t *)words)[-1] ^= 1;
    return NB_OK;
}

static nb_status inv_before(void *plan, void *words, size_t first, size_t count, void *stream)
{
    wrap_plan *p = plan;
    NB_TRY(p->base->inverse(p->plan, words, first, count, stream));
    ((uint64_t *)words)[-1] ^= 1;
    return NB_OK;
}

/* broken-unreduced: right mod q, the first value not below q. */
static nb_status fwd_unreduced(void *plan, void *words, size_t first, size_t count, void *stream)
{
    wrap_plan *p = plan;
    NB_TRY(p->base->forward(p->plan, words, first, count, stream));
    ((uint64_t *)words)[0] += p->q[first];
    return NB_OK;
}

static nb_status inv_unreduced(void *plan, void *words, size_t first, size_t count, void *stream)
{
    wrap_plan *p = plan;
    NB_TRY(p->base->inverse(p->plan, words, first, count, stream));
    ((uint64_t *)words)[0] += p->q[first];
    return NB_OK;
}

/* broken-hangs: the fifth forward call and every later one never return;
 * the first that hangs creates the file $NB_TEST_HANG_MARK, when set. */
static nb_status fwd_hangs(void *plan, void *words, size_t first, size_t count, void *stream)
{
    static int calls;
    wrap_plan *p = plan;
    if (++calls > 4) {
        const char *mark = getenv("NB_TEST_HANG_MARK");
        FILE *f = mark ? fopen(mark, "w") : NULL;
        if (f)
            fclose(f);
        for (;;)
            sleep(1);
    }
    return p->base->forward(p->plan, words, first, count, stream);
}

/* broken-refuses: NB_ERR_INVALID_ARG for calls within the contract. */
static nb_status refuses(void *plan, void *words, size_t first, size_t count, void *stream)
{
    (void)plan, (void)words, (void)first, (void)count, (void)stream;
    return nb_set_error(NB_ERR_INVALID_ARG, "broken-refuses: count must be even");
}

/* broken-aborts: the process ends in abort(). */
static nb_status aborts(void *plan, void *words, size_t first, size_t count, void *stream)
{
    (void)plan, (void)words, (void)first, (void)count, (void)stream;
    abort();
}

/* A CPU test variant over this file's plan: NAME, DESCRIPTION, word size,
 * largest prime, the in-place entries, then the out-of-place ones (or NULL). */
#define TEST_VARIANT(NAME, DESC, BITS, PRIME_BITS, FWD, INV, FWD_TO, INV_TO)                   \
    {                                                                                          \
        .name = NAME, .description = "test plug-in: " DESC, .backend = NB_BACKEND_CPU,         \
        .min_log_n = 1, .max_log_n = 17, .word_bits = BITS, .max_prime_bits = PRIME_BITS,      \
        .plan_create = plan_create, .plan_destroy = plan_destroy, .forward = FWD,              \
        .inverse = INV, .forward_to = FWD_TO, .inverse_to = INV_TO,                            \
    }

static const nb_ntt_variant variants[] = {
    TEST_VARIANT("broken-ignores-first", "uses limbs 0.. whatever `first` says", 64, 62,
                 fwd_ignores_first, inv_ignores_first, NULL, NULL),
    TEST_VARIANT("broken-writes-outside", "writes the limb after the range", 64, 62,
                 fwd_writes_outside, inv_writes_outside, NULL, NULL),
    TEST_VARIANT("broken-first-value", "the first value of the range is off in its lowest bit",
                 64, 62, fwd_first_value, inv_first_value, NULL, NULL),
    TEST_VARIANT("broken-wide-words", "declares 32-bit words, writes 64-bit ones", 32, 31,
                 fwd_wide, inv_wide, NULL, NULL),
    TEST_VARIANT("broken-out-of-place", "its out-of-place entries never write the destination",
                 64, 62, fwd_wide, inv_wide, fwd_to_source, inv_to_source),
    TEST_VARIANT("broken-silent-error", "fails every call without a message", 64, 62,
                 silent_error, silent_error, NULL, NULL),
    TEST_VARIANT("broken-writes-before", "changes the word just before its data", 64, 62,
                 fwd_before, inv_before, NULL, NULL),
    {.name = "broken-writes-tables", .description = "test plug-in: writes its tables",
     .backend = NB_BACKEND_CPU, .min_log_n = 1, .max_log_n = 17, .word_bits = 64,
     .max_prime_bits = 62, .plan_create = plan_writes_tables, .plan_destroy = plan_destroy,
     .forward = fwd_wide, .inverse = inv_wide},
    {.name = "broken-no-plan", .description = "test plug-in: no plan", .backend = NB_BACKEND_CPU,
     .min_log_n = 1, .max_log_n = 17, .word_bits = 64, .max_prime_bits = 62,
     .plan_create = plan_missing, .plan_destroy = plan_destroy, .forward = fwd_wide,
     .inverse = inv_wide},
    TEST_VARIANT("broken-unreduced", "its first value is not below q", 64, 62, fwd_unreduced,
                 inv_unreduced, NULL, NULL),
    TEST_VARIANT("broken-hangs", "its fifth forward call never returns", 64, 62, fwd_hangs,
                 inv_wide, NULL, NULL),
    TEST_VARIANT("broken-refuses", "refuses calls within its contract", 64, 62, refuses,
                 refuses, NULL, NULL),
    TEST_VARIANT("broken-aborts", "ends the process in abort()", 64, 62, aborts, aborts, NULL,
                 NULL),
    TEST_VARIANT("right-out-of-place", "cpu-harvey with out-of-place entries", 64, 62, fwd_wide,
                 inv_wide, fwd_to_right, inv_to_right),
    TEST_VARIANT("right-small-primes", "cpu-harvey for primes of at most 36 bits", 64, 36,
                 fwd_wide, inv_wide, NULL, NULL),
};

NB_PLUGIN_ABI_EXPORT;

__attribute__((visibility("default"))) nb_status nb_plugin_init(void)
{
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
        NB_TRY(nb_ntt_variant_register(&variants[i]));
    return NB_OK;
}

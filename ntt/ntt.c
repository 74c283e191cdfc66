/* nb_ntt: a variant plus its tables and plan; validates every call so that
 * variants (including plug-ins) only ever see well-formed requests. */
#include "ntt/ntt.h"

#include <stdio.h>
#include <stdlib.h>

#include "ntt/kernel_log.h"

struct nb_ntt {
    const nb_ntt_variant *variant;
    const nb_ntt_tables *tables;
    nb_ntt_tables *owned; /* == tables when this nb_ntt built them, else NULL */
    void *plan;
};

static unsigned bit_length(uint64_t x)
{
    unsigned b = 0;
    while (x) {
        b++;
        x >>= 1;
    }
    return b;
}

/* NB_ERR_INVALID_ARG for a variant whose fields are not whole and
 * consistent (nb_ntt_variant_check), else NB_ERR_UNSUPPORTED unless it
 * serves log_n and every prime's size; the primes are already known to be
 * valid. */
static nb_status check_variant(const nb_ntt_variant *variant, unsigned log_n,
                               const uint64_t *primes, size_t limbs)
{
    NB_TRY(nb_ntt_variant_check(variant));
    if (log_n < variant->min_log_n || log_n > variant->max_log_n)
        return nb_set_error(NB_ERR_UNSUPPORTED,
                            "log_n=%u outside the range [%u, %u] of variant '%s'", log_n,
                            variant->min_log_n, variant->max_log_n, variant->name);
    for (size_t l = 0; l < limbs; l++)
        if (bit_length(primes[l]) > variant->max_prime_bits)
            return nb_set_error(NB_ERR_UNSUPPORTED,
                                "prime %llu has %u bits; variant '%s' supports at most %u",
                                (unsigned long long)primes[l], bit_length(primes[l]),
                                variant->name, variant->max_prime_bits);
    return NB_OK;
}

/* s, the status of the variant's entry `entry`; a failure that left no
 * message (the message was cleared before the call) gets one naming the
 * variant, the entry and the status. */
static nb_status named(const nb_ntt_variant *v, const char *entry, nb_status s)
{
    if (s != NB_OK && !*nb_last_error())
        nb_set_error(s, "%s: %s returned %s with no message", v->name, entry, nb_status_str(s));
    return s;
}

/* A digest of n words, chained from h: four independent lanes (for speed)
 * folded in order. Each step, (x ^ w) times an odd constant, is a bijection
 * of the word given the state, so a change of any one word always changes
 * the digest; several changes could cancel only by coincidence. */
static uint64_t words_digest(const uint64_t *w, size_t n, uint64_t h)
{
    const uint64_t m = 0xFF51AFD7ED558CCDull;
    uint64_t lane[4] = {h, h ^ 0x9E3779B97F4A7C15ull, h + 1, ~h};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++)
            lane[k] = (lane[k] ^ w[i + k]) * m;
    for (; i < n; i++)
        lane[0] = (lane[0] ^ w[i]) * m;
    uint64_t d = lane[0];
    for (int k = 1; k < 4; k++)
        d = (d ^ lane[k]) * m;
    return d;
}

/* Every word of the tables: the plan's input, which no variant may write. */
static uint64_t tables_digest(const nb_ntt_tables *t)
{
    const size_t L = t->limbs, LN = t->limbs * t->n;
    const uint64_t *const per_limb[] = {t->q, t->psi, t->mu_lo, t->mu_hi, t->n_inv,
                                        t->n_inv_shoup};
    const uint64_t *const per_value[] = {t->fwd, t->fwd_shoup, t->inv, t->inv_shoup};
    uint64_t h = t->log_n;
    for (size_t k = 0; k < sizeof per_limb / sizeof per_limb[0]; k++)
        h = words_digest(per_limb[k], L, h);
    for (size_t k = 0; k < sizeof per_value / sizeof per_value[0]; k++)
        h = words_digest(per_value[k], LN, h);
    return h;
}

/* named() for a call the wrapper has checked against the contract: the
 * variant's NB_ERR_INVALID_ARG then says the variant broke it, not that the
 * caller passed bad arguments, and becomes NB_ERR_VERIFY (the variant is
 * wrong), its message kept. */
static nb_status called(const nb_ntt_variant *v, const char *entry, nb_status s)
{
    s = named(v, entry, s);
    if (s != NB_ERR_INVALID_ARG)
        return s;
    char why[400];
    snprintf(why, sizeof why, "%s", nb_last_error());
    return nb_set_error(NB_ERR_VERIFY, "%s (%s: %s refused a call within its contract)", why,
                        v->name, entry);
}

/* Builds the variant's plan over t (owned: t is freed with the nb_ntt). A
 * plan_create that returns NB_OK without a plan, or that wrote the tables it
 * was given (read-only: the oracle that checks the variant reads them too),
 * is refused with NB_ERR_VERIFY. */
static nb_status create_on(nb_ntt **out, const nb_ntt_variant *variant,
                           const nb_ntt_tables *t, nb_ntt_tables *owned, void *stream)
{
    nb_ntt *ntt = calloc(1, sizeof *ntt);
    if (!ntt) {
        nb_ntt_tables_destroy(owned);
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "nb_ntt_create: out of host memory");
    }
    ntt->variant = variant;
    ntt->tables = t;
    ntt->owned = owned;
    const uint64_t before = tables_digest(t);
    nb_clear_error();
    nb_status s = named(variant, "plan_create", variant->plan_create(&ntt->plan, t, stream));
    if (s == NB_OK && !ntt->plan)
        s = nb_set_error(NB_ERR_VERIFY, "%s: plan_create returned NB_OK without a plan",
                         variant->name);
    else if (s == NB_OK && tables_digest(t) != before)
        s = nb_set_error(NB_ERR_VERIFY, "%s: plan_create wrote the tables it was given, which "
                         "are read-only (copy them into the plan to change them)",
                         variant->name);
    if (s != NB_OK) {
        nb_ntt_destroy(ntt);
        return s;
    }
    *out = ntt;
    return NB_OK;
}

nb_status nb_ntt_create(nb_ntt **out, const nb_ntt_variant *variant, unsigned log_n,
                        const uint64_t *primes, const uint64_t *psis, size_t limbs,
                        void *stream)
{
    if (out)
        *out = NULL; /* on every failure */
    if (!out || !variant || !primes)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ntt_create: NULL argument");
    if (limbs == 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ntt_create: zero limbs");
    /* out of the library's contract (log_n range, q prime < 2^62, q = 1 mod
     * 2N): NB_ERR_INVALID_ARG; only valid requests a variant cannot serve
     * get NB_ERR_UNSUPPORTED below. The one validation of these primes. */
    for (size_t l = 0; l < limbs; l++)
        NB_TRY(nb_prime_validate(primes[l], log_n));
    NB_TRY(check_variant(variant, log_n, primes, limbs));
    nb_ntt_tables *t;
    NB_TRY(nb_ntt_tables_build(&t, log_n, primes, psis, limbs));
    return create_on(out, variant, t, t, stream);
}

nb_status nb_ntt_create_on_tables(nb_ntt **out, const nb_ntt_variant *variant,
                                  const nb_ntt_tables *tables, void *stream)
{
    if (out)
        *out = NULL;
    if (!out || !variant || !tables)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ntt_create_on_tables: NULL argument");
    NB_TRY(check_variant(variant, tables->log_n, tables->q, tables->limbs));
    return create_on(out, variant, tables, NULL, stream);
}

void nb_ntt_destroy(nb_ntt *ntt)
{
    if (!ntt)
        return;
    if (ntt->plan)
        ntt->variant->plan_destroy(ntt->plan);
    nb_ntt_tables_destroy(ntt->owned);
    free(ntt);
}

/* Limbs [first, first + count) are a non-empty range of the plan's. */
static nb_status check_range(const nb_ntt *ntt, size_t first, size_t count)
{
    if (count == 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "NTT call: zero limbs");
    if (first >= ntt->tables->limbs || count > ntt->tables->limbs - first)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "NTT call: limbs [%zu, %zu) outside the plan's %zu limbs", first,
                            first + count, ntt->tables->limbs);
    return NB_OK;
}

static nb_status check_call(const nb_ntt *ntt, const void *data, size_t first, size_t count)
{
    if (!ntt || !data)
        return nb_set_error(NB_ERR_INVALID_ARG, "NTT call: NULL argument");
    return check_range(ntt, first, count);
}

/* With a kernel log active (ntt/kernel_log.h): the kernels a GPU call over
 * limbs [first, first + count) launches, added to it; the log is marked
 * incomplete when the variant cannot describe them. Never fails the call. */
static void log_call(const nb_ntt *ntt, int inverse, size_t first, size_t count)
{
    if (!nb_kernel_log_active() || ntt->variant->backend != NB_BACKEND_GPU)
        return;
    nb_ntt_kernel k[8];
    size_t n = 0;
    if (nb_ntt_kernels(ntt, inverse, first, count, k, 8, &n) != NB_OK || n > 8) {
        char why[200];
        snprintf(why, sizeof why, "%s",
                 n > 8 ? "an NTT call listed more than 8 kernels" : nb_last_error());
        nb_kernel_log_fail(why);
        return;
    }
    for (size_t i = 0; i < n; i++)
        nb_kernel_log_add(&k[i]);
}

nb_status nb_ntt_forward(nb_ntt *ntt, void *data, size_t first, size_t count, void *stream)
{
    NB_TRY(check_call(ntt, data, first, count));
    log_call(ntt, 0, first, count);
    nb_clear_error();
    return called(ntt->variant, "forward",
                 ntt->variant->forward(ntt->plan, data, first, count, stream));
}

nb_status nb_ntt_inverse(nb_ntt *ntt, void *data, size_t first, size_t count, void *stream)
{
    NB_TRY(check_call(ntt, data, first, count));
    log_call(ntt, 1, first, count);
    nb_clear_error();
    return called(ntt->variant, "inverse",
                 ntt->variant->inverse(ntt->plan, data, first, count, stream));
}

/* Bytes of `count` limbs in the plan's word size. */
static size_t call_bytes(const nb_ntt *ntt, size_t count)
{
    return (count << ntt->tables->log_n) * (ntt->variant->word_bits / 8);
}

/* Whether byte ranges [a, a + na) and [b, b + nb) overlap. */
static int overlap(const void *a, size_t na, const void *b, size_t nb)
{
    const char *x = a, *y = b;
    return x < y + nb && y < x + na;
}

/* dst and src of an out-of-place call: both valid for the call, and equal
 * or apart. */
static nb_status check_to(const nb_ntt *ntt, const void *dst, const void *src, size_t first,
                          size_t count)
{
    NB_TRY(check_call(ntt, dst, first, count));
    NB_TRY(check_call(ntt, src, first, count));
    const size_t bytes = call_bytes(ntt, count);
    if (dst != src && overlap(dst, bytes, src, bytes))
        return nb_set_error(NB_ERR_INVALID_ARG, "NTT call: dst and src overlap");
    return NB_OK;
}

/* An out-of-place call: the variant's own entry, else a copy and the
 * in-place transform; dst == src is the in-place call. */
static nb_status call_to(nb_ntt *ntt, int inverse, void *dst, const void *src, size_t first,
                         size_t count, void *stream)
{
    NB_TRY(check_to(ntt, dst, src, first, count));
    log_call(ntt, inverse, first, count);
    const nb_ntt_variant *v = ntt->variant;
    if (dst != src) {
        nb_clear_error();
        if (inverse && v->inverse_to)
            return called(v, "inverse_to",
                          v->inverse_to(ntt->plan, dst, src, first, count, stream));
        if (!inverse && v->forward_to)
            return called(v, "forward_to",
                          v->forward_to(ntt->plan, dst, src, first, count, stream));
        NB_TRY(nb_mem_copy(v->backend, dst, src, call_bytes(ntt, count), stream));
    }
    nb_clear_error();
    return called(v, inverse ? "inverse" : "forward",
                 (inverse ? v->inverse : v->forward)(ntt->plan, dst, first, count, stream));
}

nb_status nb_ntt_forward_to(nb_ntt *ntt, void *dst, const void *src, size_t first,
                            size_t count, void *stream)
{
    return call_to(ntt, 0, dst, src, first, count, stream);
}

nb_status nb_ntt_inverse_to(nb_ntt *ntt, void *dst, const void *src, size_t first,
                            size_t count, void *stream)
{
    return call_to(ntt, 1, dst, src, first, count, stream);
}

/* The epilogue of a call over limbs [first, first + count) of `data`: its
 * pointers, and in two parts the same prime at limb k of each. */
static nb_status check_sub_scale(const nb_ntt *ntt, const void *data, const nb_ntt_sub_scale *e,
                                 size_t first, size_t count)
{
    if (!e || !e->w || !e->w_shoup)
        return nb_set_error(NB_ERR_INVALID_ARG, "NTT call: NULL epilogue argument");
    const size_t parts = e->split < count ? 2 : 1, whole = call_bytes(ntt, count);
    const uint64_t *q = ntt->tables->q + first;
    for (size_t k = 0; parts == 2 && k < count - e->split; k++)
        if (q[e->split + k] != q[k])
            return nb_set_error(NB_ERR_INVALID_ARG,
                                "NTT call: the epilogue's part 1 limb %zu has another prime than "
                                "part 0's (they share w)", k);
    for (size_t p = 0; p < parts; p++) {
        const size_t limbs = parts == 1 ? count : p == 0 ? e->split : count - e->split;
        const size_t bytes = call_bytes(ntt, limbs);
        if (!e->out[p] || !e->x[p])
            return nb_set_error(NB_ERR_INVALID_ARG, "NTT call: NULL epilogue argument");
        if (overlap(e->out[p], bytes, data, whole) || overlap(e->x[p], bytes, data, whole))
            return nb_set_error(NB_ERR_INVALID_ARG,
                                "NTT call: the epilogue's out or x overlaps the data");
        if (e->out[p] != e->x[p] && overlap(e->out[p], bytes, e->x[p], bytes))
            return nb_set_error(NB_ERR_INVALID_ARG,
                                "NTT call: the epilogue's out overlaps its x without equalling it");
    }
    return NB_OK;
}

nb_status nb_ntt_forward_sub_scale(nb_ntt *ntt, void *data, const nb_ntt_sub_scale *e,
                                   size_t first, size_t count, void *stream)
{
    NB_TRY(check_call(ntt, data, first, count));
    if (!ntt->variant->forward_sub_scale)
        return nb_set_error(NB_ERR_UNSUPPORTED, "variant '%s' does not fuse an epilogue",
                            ntt->variant->name);
    NB_TRY(check_sub_scale(ntt, data, e, first, count));
    log_call(ntt, NB_NTT_KERNELS_SUB_SCALE, first, count);
    nb_clear_error();
    return called(ntt->variant, "forward_sub_scale",
                  ntt->variant->forward_sub_scale(ntt->plan, data, e, first, count, stream));
}

int nb_ntt_has_sub_scale(const nb_ntt *ntt) { return ntt && ntt->variant->forward_sub_scale; }

nb_status nb_ntt_kernels(const nb_ntt *ntt, int inverse, size_t first, size_t count,
                         nb_ntt_kernel *out, size_t max, size_t *n)
{
    if (!ntt || !n || (max && !out))
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ntt_kernels: NULL argument");
    *n = 0;
    NB_TRY(check_range(ntt, first, count));
    if (!ntt->variant->kernels)
        return nb_set_error(NB_ERR_UNSUPPORTED, "variant '%s' does not report its kernels",
                            ntt->variant->name);
    if (inverse == NB_NTT_KERNELS_SUB_SCALE && !ntt->variant->forward_sub_scale)
        return nb_set_error(NB_ERR_UNSUPPORTED, "variant '%s' does not fuse an epilogue",
                            ntt->variant->name);
    return ntt->variant->kernels(ntt->plan,
                                 inverse == NB_NTT_KERNELS_SUB_SCALE ? inverse : inverse != 0,
                                 first, count, out, max, n);
}

int nb_ntt_out_of_place(const nb_ntt *ntt)
{
    return ntt && ntt->variant->forward_to && ntt->variant->inverse_to;
}

unsigned nb_ntt_word_bits(const nb_ntt *ntt) { return ntt ? ntt->variant->word_bits : 0; }

const nb_ntt_tables *nb_ntt_get_tables(const nb_ntt *ntt) { return ntt ? ntt->tables : NULL; }
const nb_ntt_variant *nb_ntt_get_variant(const nb_ntt *ntt) { return ntt ? ntt->variant : NULL; }

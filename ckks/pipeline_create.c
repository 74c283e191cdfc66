/* The nb_ckks object of ckks/pipeline.h: its creation (the NTT over Q and
 * P, the extra plans the key switch and modUp call, the constants in the
 * backend's memory, one scratch buffer cut into the pipelines' parts), its
 * destruction and accessors. */
#include <stdint.h>
#include <stdlib.h>

#include "ckks/pipeline.h"
#include "core/device.h"

/* *out = an NTT over the primes idx[0..count) of `ntt`, with the same roots
 * (so that data in NTT form under `ntt` transforms back identically). */
static nb_status create_over(nb_ntt **out, const nb_ntt *ntt, const size_t *idx, size_t count,
                             const nb_ntt_variant *variant, void *stream)
{
    const nb_ntt_tables *t = nb_ntt_get_tables(ntt);
    uint64_t *qp = malloc(2 * count * sizeof *qp);
    if (!qp)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "nb_ckks_create: out of host memory");
    uint64_t *psi = qp + count;
    for (size_t i = 0; i < count; i++) {
        qp[i] = t->q[idx[i]];
        psi[i] = t->psi[idx[i]];
    }
    nb_status s = nb_ntt_create(out, variant, t->log_n, qp, psi, count, stream);
    free(qp);
    return s;
}

/* Whether ntt's variant writes only its data: forward and inverse on limb 0
 * of a buffer followed by a guard of 8 bytes a word, which must come back
 * unchanged. A variant that writes wider words than its word_bits, or more
 * limbs than it is given (a plug-in's mistake), would otherwise write past
 * the pipeline's buffers;
 * NB_ERR_VERIFY names it. Costs two one-limb calls per pipeline. */
static nb_status check_extent(nb_ntt *ntt, const nb_ntt_variant *v, void *stream)
{
    const size_t n = (size_t)1 << nb_ntt_get_tables(ntt)->log_n, wb = v->word_bits / 8;
    const size_t bytes = n * wb, guard = n * 8;
    unsigned char *h = calloc(bytes, 1);
    nb_buffer *b = NULL;
    nb_status s = h ? nb_buffer_create(&b, v->backend, bytes + guard)
                    : nb_set_error(NB_ERR_OUT_OF_MEMORY, "nb_ckks_create: out of host memory");
    for (size_t i = 0; h && i < bytes; i += wb) /* words of value 1, a residue of any q */
        h[i] = 1;
    if (s == NB_OK)
        s = nb_buffer_upload(b, 0, h, bytes, stream);
    if (s == NB_OK)
        s = nb_buffer_guard_set(b, bytes, guard, stream);
    for (int inv = 0; inv < 2 && s == NB_OK; inv++) {
        size_t at = guard;
        s = inv ? nb_ntt_inverse(ntt, nb_buffer_ptr(b), 0, 1, stream)
                : nb_ntt_forward(ntt, nb_buffer_ptr(b), 0, 1, stream);
        if (s == NB_OK)
            s = nb_buffer_guard_check(b, bytes, guard, &at, stream);
        if (s == NB_OK && at < guard)
            s = nb_set_error(NB_ERR_VERIFY,
                             "%s: its %s wrote past the end of its data (byte %zu after one "
                             "limb of %u-bit words): %s",
                             v->name, inv ? "inverse" : "forward", at, v->word_bits,
                             nb_buffer_guard_hint(v->word_bits));
    }
    nb_buffer_destroy(b);
    free(h);
    return s;
}

/* The extra plans: P primes twice, Q primes twice, and the top level's
 * packed modUp targets (ntt_ext), the latter only while they are at most
 * NB_CKKS_EXT_PLAN_MAX_FACTOR times the main plan's primes. */
static nb_status create_extra_plans(nb_ckks *c, const nb_ntt_variant *variant, void *stream)
{
    const nb_ckks_params *p = c->p;
    const size_t Q = p->q_count, A = p->alpha, E = Q + A, digits = nb_ckks_digits(p, Q - 1);
    size_t *idx = malloc((digits + 2) * E * sizeof *idx), k = 0;
    if (!idx)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "nb_ckks_create: out of host memory");
    for (size_t i = 0; i < 2 * A; i++)
        idx[i] = Q + i % A;
    nb_status s = create_over(&c->ntt_pp, c->ntt, idx, 2 * A, variant, stream);
    for (size_t i = 0; i < 2 * Q; i++)
        idx[i] = i % Q;
    if (s == NB_OK)
        s = create_over(&c->ntt_qq, c->ntt, idx, 2 * Q, variant, stream);
    for (size_t j = 0; j < digits; j++) {
        size_t first, count;
        nb_ckks_digit_range(p, Q - 1, j, &first, &count);
        for (size_t i = 0; i < E; i++)
            if (i < first || i >= first + count)
                idx[k++] = i;
    }
    if (s == NB_OK && k <= NB_CKKS_EXT_PLAN_MAX_FACTOR * E)
        s = create_over(&c->ntt_ext, c->ntt, idx, k, variant, stream);
    free(idx);
    return s;
}

void nb_ckks_destroy(nb_ckks *c)
{
    if (!c)
        return;
    nb_ntt_destroy(c->ntt);
    nb_ntt_destroy(c->ntt_pp);
    nb_ntt_destroy(c->ntt_qq);
    nb_ntt_destroy(c->ntt_ext);
    nb_buffer_destroy(c->dconsts);
    nb_buffer_destroy(c->scratch);
    free(c);
}

/* Bits of the set's largest prime. */
static unsigned max_bits(const nb_ckks_params *p)
{
    uint64_t m = 0;
    for (size_t i = 0; i < p->q_count + p->alpha; i++)
        if (p->primes[i] > m)
            m = p->primes[i];
    unsigned b = 0;
    while (b < 64 && (m >> b))
        b++;
    return b;
}

nb_status nb_ckks_check_words(const nb_ckks_params *params, const nb_ntt_variant *variant)
{
    if (variant->word_bits == 32)
        for (size_t i = 0; i < params->q_count + params->alpha; i++)
            if (params->primes[i] >> NB_MAX_PRIME_BITS_32)
                return nb_set_error(NB_ERR_UNSUPPORTED,
                                    "variant '%s' works on 32-bit words and set '%s' has "
                                    "primes of up to %u bits; a 32-bit variant needs every "
                                    "prime below 2^31 (e.g. ckks16-l30-d3-w32)",
                                    variant->name, params->name, max_bits(params));
    return NB_OK;
}

nb_status nb_ckks_create(nb_ckks **out, const nb_ckks_params *params,
                         const nb_ntt_variant *variant, void *stream)
{
    if (out)
        *out = NULL;
    if (!out || !params || !variant)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ckks_create: NULL argument");
    NB_TRY(nb_ckks_check_words(params, variant));
    nb_ckks *c = calloc(1, sizeof *c);
    if (!c)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "nb_ckks_create: out of host memory");
    c->p = params;
    c->k = params->consts;
    c->backend = variant->backend;
    c->word_bits = variant->word_bits;
    c->limb_bytes = params->n * (variant->word_bits / 8);
    const size_t Q = params->q_count, A = params->alpha;
    nb_status s = nb_ntt_create(&c->ntt, variant, params->log_n, params->primes, NULL, Q + A,
                                stream);
    if (s == NB_OK)
        s = check_extent(c->ntt, variant, stream);
    if (s == NB_OK)
        s = create_extra_plans(c, variant, stream);
    if (s == NB_OK && c->backend == NB_BACKEND_GPU) {
        s = nb_buffer_create(&c->dconsts, NB_BACKEND_GPU, c->k->words * sizeof(uint64_t));
        if (s == NB_OK)
            s = nb_buffer_upload(c->dconsts, 0, c->k->blob, c->k->words * sizeof(uint64_t),
                                 stream);
        c->base = nb_buffer_ptr(c->dconsts);
#ifdef NB_HAVE_CUDA
        if (s == NB_OK) /* modUp sources: alpha primes; modDown: alpha primes */
            s = nb_gpu_conv_reserve(A);
#endif
    } else {
        c->base = c->k->blob;
    }
    const size_t pa = A > 2 ? A : 2; /* s_p: modDown's P limbs, rescale's dropped ones */
    const size_t limbs = Q + params->dnum * (Q + A) + 2 * (Q + A) + pa + 2 * Q;
    if (s == NB_OK)
        s = nb_buffer_create(&c->scratch, c->backend, limbs * c->limb_bytes);
    if (s != NB_OK) {
        nb_ckks_destroy(c);
        return s;
    }
    void *w = nb_buffer_ptr(c->scratch);
    c->s_coeff = w;
    w = nb_ckks_at(c, w, Q);
    c->s_ext = w;
    w = nb_ckks_at(c, w, params->dnum * (Q + A));
    c->s_acc0 = w;
    w = nb_ckks_at(c, w, Q + A);
    c->s_acc1 = w;
    w = nb_ckks_at(c, w, Q + A);
    c->s_p = w;
    w = nb_ckks_at(c, w, pa);
    c->s_t = w;
    *out = c;
    return NB_OK;
}

const nb_ckks_params *nb_ckks_get_params(const nb_ckks *c) { return c ? c->p : NULL; }
nb_backend nb_ckks_backend(const nb_ckks *c) { return c ? c->backend : NB_BACKEND_CPU; }
nb_ntt *nb_ckks_get_ntt(nb_ckks *c) { return c ? c->ntt : NULL; }
size_t nb_ckks_word_bytes(const nb_ckks *c) { return c ? c->word_bits / 8 : 0; }

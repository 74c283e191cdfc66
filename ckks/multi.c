/* The CKKS stage pipelines on several GPUs of one host (ckks/ckks.h, "Several
 * GPUs"): the limbs of Q and P partitioned across the devices, each step
 * enqueued on every device's own stream; modUp in ckks/multi_modup.c, what
 * the steps share in ckks/multi_step.c, the exchanges of coefficient-form
 * limbs in ckks/multi_exchange.c; modDown, the key switch's inner product,
 * rescale and the public calls here. Every kernel is the one-GPU pipeline's
 * (ckks/consts.h), run over the device's own limbs: conversions through views
 * of the same tables restricted to the owned targets, NTTs through a plan over
 * the owned primes with the same roots, the inner product with a geometry
 * whose limbs are the owned ones. Without NCCL in the build every entry point
 * returns NB_ERR_UNSUPPORTED. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ckks/multi.h"

#ifdef NB_MULTI_GPU
#include "core/cuda_check.h"

/* ---- small helpers ---- */

/* A public call starts: no exchange timed or counted yet. */
static void call_start(nb_ckks_multi *m)
{
    m->n_timed = 0;
    memset(m->sent, 0, sizeof m->sent);
}

/* Every device's stream waits for `stream` (NULL: the first device's own). */
static nb_status fork_from(nb_ckks_multi *m, void *stream)
{
    cudaStream_t s = stream ? (cudaStream_t)stream : m->d[0].stream;
    NB_TRY(nb_multi_use(&m->d[0]));
    NB_CUDA_TRY(cudaEventRecord(m->d[0].ev_fork, s));
    for (size_t i = 0; i < m->G; i++) {
        if (m->d[i].stream == s)
            continue;
        NB_TRY(nb_multi_use(&m->d[i]));
        NB_CUDA_TRY(cudaStreamWaitEvent(m->d[i].stream, m->d[0].ev_fork, 0));
    }
    return NB_OK;
}

/* Every compute stream waits for exchange k; marked "comm" (the wait is the
 * communication that nothing queued before it covered). */
static nb_status exchange_wait(nb_ckks_multi *m, size_t k, const nb_ckks_hook *h, void *stream)
{
    if (m->G == 1)
        return NB_OK;
    for (size_t i = 0; i < m->G; i++) {
        part *d = &m->d[i];
        NB_TRY(nb_multi_use(d));
        NB_CUDA_TRY(cudaStreamWaitEvent(d->stream, d->ev_got[k], 0));
    }
    return nb_multi_step(m, h, stream, "comm", 0, 0, 0);
}

static nb_status forward(part *d, void *data, size_t first, size_t count)
{
    return count ? nb_ntt_forward(d->ntt, data, first, count, d->stream) : NB_OK;
}

static nb_status conv(const nb_ckks_multi *m, const part *d, const nb_conv_desc *desc,
                      size_t t0, size_t count, const nb_polys *io)
{
    return nb_multi_conv_on(m, d, d->stream, desc, t0, count, io);
}

/* ---- the steps ---- */

/* The last steps of modDown and rescale on every part: the forward NTT of
 * t[k] (k < polys; the part's Q limbs below level + 1) and out[k] = (x[k] -
 * t[k]) w mod q, w and its Shoup companions the blob's arrays at w_off and
 * ws_off from the part's first Q limb; fused into the transform's last
 * kernel when the variant offers it (one step "ntt-scalar"), else the
 * transform then the subtract-and-scale pass (steps "ntt" and "scalar"), as
 * the one-GPU pipeline does. Two polynomials over all the part's Q limbs
 * take one call (t[1] = t[0] + nq, ntt_qq). */
static nb_status ntt_scale(nb_ckks_multi *m, size_t level, unsigned polys, void *const *out[2],
                           const void *const *x[2], size_t w_off, size_t ws_off,
                           const nb_ckks_hook *h, void *stream)
{
    const int fused = nb_ntt_has_sub_scale(m->d[0].ntt);
    for (size_t i = 0; i < m->G; i++) {
        part *d = &m->d[i];
        NB_TRY(nb_multi_use(d));
        const size_t nq = nb_multi_nq_at(d, level);
        const uint64_t *w = d->base + w_off + d->qa, *ws = d->base + ws_off + d->qa;
        const int one = polys == 2 && nq == d->nq;
        if (!nq)
            continue;
        if (fused && one) {
            const nb_ntt_sub_scale e = {{out[0][i], out[1][i]}, {x[0][i], x[1][i]}, nq, w, ws};
            NB_TRY(nb_ntt_forward_sub_scale(d->ntt_qq, d->t[0], &e, 0, 2 * nq, d->stream));
        } else if (one) {
            NB_TRY(nb_ntt_forward(d->ntt_qq, d->t[0], 0, 2 * nq, d->stream));
        }
        for (unsigned k = 0; k < polys && !one; k++) {
            const nb_ntt_sub_scale e = {{out[k][i], out[k][i]}, {x[k][i], x[k][i]}, nq, w, ws};
            NB_TRY(fused ? nb_ntt_forward_sub_scale(d->ntt, d->t[k], &e, 0, nq, d->stream)
                         : forward(d, d->t[k], 0, nq));
        }
    }
    if (fused)
        return nb_multi_step(m, h, stream, "ntt-scalar", 1, polys * (level + 1), 0);
    NB_TRY(nb_multi_step(m, h, stream, "ntt", 1, polys * (level + 1), 0));
    for (size_t i = 0; i < m->G; i++) {
        part *d = &m->d[i];
        NB_TRY(nb_multi_use(d));
        const size_t nq = nb_multi_nq_at(d, level);
        if (!nq)
            continue;
        const nb_limb_consts c = {d->base + m->k->prime_q + d->qa, d->base + w_off + d->qa,
                                  d->base + ws_off + d->qa};
        const nb_polys io = {{out[0][i], polys > 1 ? out[1][i] : NULL},
                             {x[0][i], polys > 1 ? x[1][i] : NULL},
                             {d->t[0], d->t[1]}, polys, m->word_bits};
        NB_TRY(nb_gpu_sub_mul(&c, &io, nq, m->p->n, d->stream));
    }
    return nb_multi_step(m, h, stream, "scalar", 0, 0, 0);
}

/* modDown of `polys` local polys over B_l a[k][i] into out[k][i] (local
 * polys over Q_l), in two halves so that the caller can queue work between
 * them (the key switch: the inner product's Q limbs): moddown_send takes each
 * polynomial's P limbs to coefficient form and starts its exchange, the next
 * polynomial's transform running under it; moddown_finish converts
 * polynomial k while polynomial k+1's exchange runs, then transforms and
 * scales. The exchanges read only the P limbs. */
static nb_status moddown_send(nb_ckks_multi *m, size_t level, unsigned polys,
                              const void *const *a[2], const nb_ckks_hook *h, void *stream)
{
    const size_t A = m->p->alpha;
    size_t off[NB_MULTI_MAX], cnt[NB_MULTI_MAX];
    void *buf[NB_MULTI_MAX];
    for (unsigned k = 0; k < polys; k++) {
        for (size_t i = 0; i < m->G; i++) {
            part *d = &m->d[i];
            NB_TRY(nb_multi_use(d));
            off[i] = k * A + d->pa;
            cnt[i] = d->np;
            buf[i] = d->gp;
            NB_TRY(nb_multi_inverse_into(m, d, nb_multi_at(m, d->gp, off[i]),
                                         nb_multi_at(m, a[k][i], nb_multi_nq_at(d, level)),
                                         d->nq, d->np));
        }
        NB_TRY(nb_multi_exchange_start(m, buf, off, cnt, k, 1, 1));
    }
    return nb_multi_step(m, h, stream, "intt", 1, polys * A, 1);
}

static nb_status moddown_finish(nb_ckks_multi *m, size_t level, unsigned polys,
                                void *const *out[2], const void *const *a[2],
                                const nb_ckks_hook *h, void *stream)
{
    const size_t A = m->p->alpha;
    for (unsigned k = 0; k < polys; k++) {
        NB_TRY(exchange_wait(m, k, h, stream));
        for (size_t i = 0; i < m->G; i++) {
            part *d = &m->d[i];
            NB_TRY(nb_multi_use(d));
            const nb_polys io = {{d->t[k], NULL},
                                 {nb_multi_at(m, d->gp, k * A), NULL},
                                 {NULL, NULL},
                                 1,
                                 m->word_bits};
            NB_TRY(conv(m, d, &m->k->moddown, d->qa, nb_multi_nq_at(d, level), &io));
        }
        NB_TRY(nb_multi_step(m, h, stream, "conv", 0, 0, 0));
    }
    return ntt_scale(m, level, polys, out, a, m->k->p_inv, m->k->p_inv_shoup, h, stream);
}

/* The key-switch inner product into acc[0], acc[1] of the output limbs `which`
 * selects: IP_P (the P limbs: modDown's first need), IP_Q (the Q limbs). */
enum { IP_P = 1, IP_Q = 2 };
static nb_status inner_product(nb_ckks_multi *m, size_t level, const void *const *key,
                               const void *const *in, int which, const nb_ckks_hook *h,
                               void *stream)
{
    for (size_t i = 0; i < m->G; i++) {
        part *d = &m->d[i];
        NB_TRY(nb_multi_use(d));
        const size_t nq = nb_multi_nq_at(d, level);
        const nb_ip_geom g = {
            .n = m->p->n,
            .level = nq - 1, /* nq = 0 wraps: no Q limb */
            .ext_limbs = nq + d->np,
            .q_count = d->nq,
            .alpha = d->np,
            .digits = nb_ckks_digits(m->p, level),
            .alpha_digit = m->p->alpha,
            .packed = in != NULL,
            .chunk = m->k->ip_chunk,
            .word_bits = m->word_bits,
            .prime_q = d->local_q,
            .prime_mu_lo = d->local_mu_lo,
            .prime_mu_hi = d->local_mu_hi,
            .first_limb = which == IP_P ? nq : 0,
            .limbs = which == IP_P ? d->np : nq,
            .q_first = d->qa,
            .part = 1,
        };
        if (!g.limbs)
            continue;
        NB_TRY(nb_gpu_inner_product(&g, d->acc[0], d->acc[1], nb_multi_at(m, d->acc[1], nq), d->ext,
                                    in ? in[i] : NULL, key[i], d->stream));
    }
    return nb_multi_step(m, h, stream, "inner-product", 0, 0, 0);
}

static nb_status rescale(nb_ckks_multi *m, size_t level, int round, void *const *out,
                         const void *const *in, const nb_ckks_hook *h, void *stream)
{
    const size_t g = m->p->rescale_primes, keep = level + 1 - g;
    size_t off[NB_MULTI_MAX], cnt[NB_MULTI_MAX];
    void *buf[NB_MULTI_MAX];
    for (size_t i = 0; i < m->G; i++) {
        part *d = &m->d[i];
        NB_TRY(nb_multi_use(d));
        const size_t qe = d->qa + nb_multi_nq_at(d, level), lo = d->qa > keep ? d->qa : keep;
        off[i] = lo - keep;
        cnt[i] = qe > lo ? qe - lo : 0;
        buf[i] = d->gr;
        NB_TRY(nb_multi_inverse_into(m, d, nb_multi_at(m, d->gr, off[i]),
                                     nb_multi_at(m, in[i], lo - d->qa), lo - d->qa, cnt[i]));
    }
    NB_TRY(nb_multi_step(m, h, stream, "intt", 1, g, 1));
    NB_TRY(nb_multi_exchange_start(m, buf, off, cnt, 0, 1, 0));
    NB_TRY(exchange_wait(m, 0, h, stream));
    for (size_t i = 0; i < m->G; i++) {
        part *d = &m->d[i];
        NB_TRY(nb_multi_use(d));
        const size_t nk = nb_multi_nq_at(d, keep - 1);
        if (!nk)
            continue;
        const nb_bring_args a =
            nb_bring_args_at(m->p, d->base, level, round, d->qa, nk, m->word_bits);
        NB_TRY(nb_gpu_rescale_bring(&a, d->t[0], d->gr, d->stream));
    }
    NB_TRY(nb_multi_step(m, h, stream, "conv", 0, 0, 0));
    const size_t Q = m->p->q_count;
    void *const *o[2] = {out, NULL};
    const void *const *x[2] = {in, NULL};
    return ntt_scale(m, keep - 1, 1, o, x, m->k->ql_inv + level * Q, m->k->ql_inv_shoup + level * Q,
                     h, stream);
}

/* ---- the public calls ---- */

static nb_status check(const nb_ckks_multi *m, size_t level, size_t min_level, const char *op,
                       const void *a, const void *b)
{
    if (!m)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: NULL nb_ckks_multi", op);
    if (level < min_level || level > m->p->max_level)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: level %zu outside [%zu, L=%zu]", op, level,
                            min_level, m->p->max_level);
    if (!a || !b)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: NULL part list", op);
    return NB_OK;
}

nb_status nb_ckks_multi_modup_all(nb_ckks_multi *m, size_t level, void *const *out,
                                  const void *const *in, const nb_ckks_hook *hook, void *stream)
{
    NB_TRY(check(m, level, 0, "modUp", out, in));
    const int caller = nb_multi_caller_device();
    call_start(m);
    nb_status s = fork_from(m, stream);
    if (s == NB_OK)
        s = nb_multi_modup(m, level, out, in, 0, hook, stream);
    if (s == NB_OK)
        s = nb_multi_join_into(m, stream);
    return nb_multi_restore(caller, s);
}

nb_status nb_ckks_multi_moddown(nb_ckks_multi *m, size_t level, void *const *out,
                                const void *const *in, const nb_ckks_hook *hook, void *stream)
{
    NB_TRY(check(m, level, 0, "modDown", out, in));
    void *const *o[2] = {out, NULL};
    const void *const *a[2] = {in, NULL};
    const int caller = nb_multi_caller_device();
    call_start(m);
    nb_status s = fork_from(m, stream);
    if (s == NB_OK)
        s = moddown_send(m, level, 1, a, hook, stream);
    if (s == NB_OK)
        s = moddown_finish(m, level, 1, o, a, hook, stream);
    if (s == NB_OK)
        s = nb_multi_join_into(m, stream);
    return nb_multi_restore(caller, s);
}

nb_status nb_ckks_multi_keyswitch(nb_ckks_multi *m, size_t level, void *const *out0,
                                  void *const *out1, const void *const *in,
                                  const void *const *key, const nb_ckks_hook *hook, void *stream)
{
    NB_TRY(check(m, level, 0, "key switch", out0, in));
    NB_TRY(check(m, level, 0, "key switch", out1, key));
    void *ext[NB_MULTI_MAX], *acc0[NB_MULTI_MAX], *acc1[NB_MULTI_MAX];
    for (size_t i = 0; i < m->G; i++) {
        ext[i] = m->d[i].ext;
        acc0[i] = m->d[i].acc[0];
        acc1[i] = m->d[i].acc[1];
    }
    void *const *o[2] = {out0, out1};
    const void *const *a[2] = {(const void *const *)acc0, (const void *const *)acc1};
    const int caller = nb_multi_caller_device();
    call_start(m);
    int packed = level + 1 == m->p->q_count; /* the targets only, ntt_ext's layout */
    for (size_t i = 0; i < m->G; i++)
        packed = packed && m->d[i].ntt_ext;
    const void *const *own = packed ? in : NULL; /* the digits' own limbs, read there */
    nb_status s = fork_from(m, stream);
    if (s == NB_OK)
        s = nb_multi_modup(m, level, ext, in, packed, hook, stream);
    if (s == NB_OK) /* the P limbs first: their exchanges run under the Q limbs' products */
        s = inner_product(m, level, key, own, IP_P, hook, stream);
    if (s == NB_OK)
        s = moddown_send(m, level, 2, a, hook, stream);
    if (s == NB_OK)
        s = inner_product(m, level, key, own, IP_Q, hook, stream);
    if (s == NB_OK)
        s = moddown_finish(m, level, 2, o, a, hook, stream);
    if (s == NB_OK)
        s = nb_multi_join_into(m, stream);
    return nb_multi_restore(caller, s);
}

nb_status nb_ckks_multi_rescale(nb_ckks_multi *m, size_t level, nb_ckks_rounding rounding,
                                void *const *out, const void *const *in,
                                const nb_ckks_hook *hook, void *stream)
{
    NB_TRY(check(m, level, m ? m->p->rescale_primes : 1, "rescale", out, in));
    if (rounding != NB_CKKS_RESCALE_FLOOR && rounding != NB_CKKS_RESCALE_ROUND)
        return nb_set_error(NB_ERR_INVALID_ARG, "rescale: unknown rounding mode %d", (int)rounding);
    const int caller = nb_multi_caller_device();
    call_start(m);
    nb_status s = fork_from(m, stream);
    if (s == NB_OK)
        s = rescale(m, level, rounding == NB_CKKS_RESCALE_ROUND, out, in, hook, stream);
    if (s == NB_OK)
        s = nb_multi_join_into(m, stream);
    return nb_multi_restore(caller, s);
}

#else /* no NCCL (or no CUDA) in the build */

nb_status nb_ckks_multi_modup_all(nb_ckks_multi *m, size_t level, void *const *out,
                                  const void *const *in, const nb_ckks_hook *hook, void *stream)
{
    (void)m, (void)level, (void)out, (void)in, (void)hook, (void)stream;
    return nb_multi_unsupported();
}
nb_status nb_ckks_multi_moddown(nb_ckks_multi *m, size_t level, void *const *out,
                                const void *const *in, const nb_ckks_hook *hook, void *stream)
{
    (void)m, (void)level, (void)out, (void)in, (void)hook, (void)stream;
    return nb_multi_unsupported();
}
nb_status nb_ckks_multi_keyswitch(nb_ckks_multi *m, size_t level, void *const *out0,
                                  void *const *out1, const void *const *in,
                                  const void *const *key, const nb_ckks_hook *hook, void *stream)
{
    (void)m, (void)level, (void)out0, (void)out1, (void)in, (void)key, (void)hook, (void)stream;
    return nb_multi_unsupported();
}
nb_status nb_ckks_multi_rescale(nb_ckks_multi *m, size_t level, nb_ckks_rounding rounding,
                                void *const *out, const void *const *in,
                                const nb_ckks_hook *hook, void *stream)
{
    (void)m, (void)level, (void)rounding, (void)out, (void)in, (void)hook, (void)stream;
    return nb_multi_unsupported();
}
#endif

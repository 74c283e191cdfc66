/* The CKKS stage pipelines on several GPUs of one host (ckks/ckks.h, "Several
 * GPUs"): the limbs of Q and P partitioned across the devices, each step
 * enqueued on every device's own stream, the exchanges of coefficient-form
 * limbs in ckks/multi_exchange.c. Every kernel is the one-GPU pipeline's
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

/* `stream` waits for every device's stream. */
static nb_status join_into(nb_ckks_multi *m, void *stream)
{
    cudaStream_t s = stream ? (cudaStream_t)stream : m->d[0].stream;
    for (size_t i = 0; i < m->G; i++) {
        if (m->d[i].stream == s)
            continue;
        NB_TRY(nb_multi_use(&m->d[i]));
        NB_CUDA_TRY(cudaEventRecord(m->d[i].ev_done, m->d[i].stream));
        NB_TRY(nb_multi_use(&m->d[0]));
        NB_CUDA_TRY(cudaStreamWaitEvent(s, m->d[i].ev_done, 0));
    }
    return nb_multi_use(&m->d[0]);
}

/* The end of a step on every device, marked on `stream` when a hook asks. */
static nb_status step(nb_ckks_multi *m, const nb_ckks_hook *h, void *stream, const char *name,
                      int is_ntt, size_t limbs, int inverse)
{
    if (!h || !h->fn)
        return NB_OK;
    NB_TRY(join_into(m, stream));
    return h->fn(h->user, name, is_ntt, limbs, inverse);
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
    return step(m, h, stream, "comm", 0, 0, 0);
}

/* dst = iNTT of owned limbs [first, first + count) (plan indices) of src. */
static nb_status inverse_into(nb_ckks_multi *m, part *d, void *dst, const void *src,
                              size_t first, size_t count)
{
    if (!count)
        return NB_OK;
    if (m->oop)
        return nb_ntt_inverse_to(d->ntt, dst, src, first, count, d->stream);
    NB_TRY(nb_gpu_copy(dst, src, count * m->limb_bytes, d->stream));
    return nb_ntt_inverse(d->ntt, dst, first, count, d->stream);
}

/* A compute stream of a part and the plan used on it (a plan serves one
 * stream at a time: ntt/variant.h). */
typedef struct lane {
    nb_ntt *ntt;
    cudaStream_t s;
} lane;

static lane main_lane(const part *d)
{
    return (lane){d->ntt, d->stream};
}

static nb_status forward_on(lane l, void *data, size_t first, size_t count)
{
    return count ? nb_ntt_forward(l.ntt, data, first, count, l.s) : NB_OK;
}

static nb_status forward(part *d, void *data, size_t first, size_t count)
{
    return forward_on(main_lane(d), data, first, count);
}

static nb_status conv_on(const nb_ckks_multi *m, const part *d, cudaStream_t s,
                         const nb_conv_desc *desc, size_t t0, size_t count, const nb_polys *io)
{
    if (!count)
        return NB_OK;
    const nb_conv_view v = nb_conv_view_at(desc, d->base, desc->n_to);
    const nb_conv_view sub =
        nb_conv_view_targets(v, (uint32_t)t0, (uint32_t)count, d->base + m->k->identity);
    return nb_gpu_conv(&sub, io, m->p->n, s);
}

static nb_status conv(const nb_ckks_multi *m, const part *d, const nb_conv_desc *desc,
                      size_t t0, size_t count, const nb_polys *io)
{
    return conv_on(m, d, d->stream, desc, t0, count, io);
}

/* ---- the steps ---- */

/* Digit j's limbs at level l: for each device the range of them it owns
 * (off: the first one's index, cnt: how many), for an exchange of gq. */
static void digit_parts(const nb_ckks_multi *m, size_t level, size_t j, size_t *off,
                        size_t *cnt, void **buf)
{
    for (size_t i = 0; i < m->G; i++) {
        const part *d = &m->d[i];
        cnt[i] = nb_multi_digit_owned(m->p, level, j, d->qa, nb_multi_nq_at(d, level), &off[i]);
        buf[i] = d->gq;
    }
}

/* Digit j of level l on part d into its local poly over B_l `out`: the
 * digit's owned limbs copied from `in`, the other owned limbs converted from
 * the gathered digit (coefficient form) and transformed. Conversion targets
 * are B_l minus the digit in order (Q below the digit, Q above it, P). */
static nb_status modup_digit_conv(nb_ckks_multi *m, part *d, lane l, size_t level, size_t j,
                                  void *out, const void *in)
{
    const nb_ckks_params *p = m->p;
    size_t first, count;
    nb_ckks_digit_range(p, level, j, &first, &count);
    const size_t nq = nb_multi_nq_at(d, level), qa = d->qa, qe = qa + nq, after = first + count;
    const nb_conv_desc *desc = &m->k->modup[level * p->dnum + j];
    const void *src = nb_multi_at(m, d->gq, first);
    /* owned limbs of the digit: the input itself */
    const size_t c0 = qa > first ? qa : first, c1 = qe < after ? qe : after;
    if (c1 > c0)
        NB_TRY(nb_gpu_copy(nb_multi_at(m, out, c0 - qa), nb_multi_at(m, in, c0 - qa),
                           (c1 - c0) * m->limb_bytes, l.s));
    /* owned Q limbs below the digit: targets t = i */
    const size_t b1 = qe < first ? qe : first;
    if (b1 > qa) {
        const nb_polys io = {
            {nb_multi_at(m, out, 0), NULL}, {src, NULL}, {NULL, NULL}, 1, m->word_bits};
        NB_TRY(conv_on(m, d, l.s, desc, qa, b1 - qa, &io));
    }
    /* owned Q limbs above the digit: targets t = i - count */
    const size_t a0 = qa > after ? qa : after;
    if (qe > a0) {
        const nb_polys io = {{nb_multi_at(m, out, a0 - qa), NULL}, {src, NULL}, {NULL, NULL}, 1,
                             m->word_bits};
        NB_TRY(conv_on(m, d, l.s, desc, a0 - count, qe - a0, &io));
    }
    /* owned P limbs: targets l+1-count+k */
    const nb_polys io = {
        {nb_multi_at(m, out, nq), NULL}, {src, NULL}, {NULL, NULL}, 1, m->word_bits};
    return conv_on(m, d, l.s, desc, level + 1 - count + d->pa, d->np, &io);
}

static nb_status modup_digit_ntt(nb_ckks_multi *m, part *d, lane l, size_t level, size_t j,
                                 void *out)
{
    size_t first, count;
    nb_ckks_digit_range(m->p, level, j, &first, &count);
    const size_t nq = nb_multi_nq_at(d, level), qa = d->qa, qe = qa + nq, after = first + count;
    const size_t b1 = qe < first ? qe : first, a0 = qa > after ? qa : after;
    if (b1 > qa)
        NB_TRY(forward_on(l, out, 0, b1 - qa));
    if (nq == d->nq && qe > a0) /* the limbs above the digit and P: consecutive plan primes */
        return forward_on(l, nb_multi_at(m, out, a0 - qa), a0 - qa, qe - a0 + d->np);
    if (qe > a0)
        NB_TRY(forward_on(l, nb_multi_at(m, out, a0 - qa), a0 - qa, qe - a0));
    return forward_on(l, nb_multi_at(m, out, nq), d->nq, d->np);
}

/* Stream `s` of part d waits for everything queued so far on `after`. */
static nb_status stream_after(part *d, cudaStream_t s, cudaStream_t after)
{
    NB_TRY(nb_multi_use(d));
    NB_CUDA_TRY(cudaEventRecord(d->ev_side, after));
    NB_CUDA_TRY(cudaStreamWaitEvent(s, d->ev_side, 0));
    return NB_OK;
}

/* The lane of the p-th digit a device converts: with `two`, the compute
 * stream and the side stream in turn, so that a digit's conversion and
 * transforms, each a fraction of a wave on one device's share of the limbs,
 * run beside the previous digit's; else the compute stream. */
static lane digit_lane(const part *d, int two, size_t p)
{
    return two && p % 2 ? (lane){d->ntt_side, d->side} : main_lane(d);
}

/* modUp of every digit of level l: digit j's local poly over B_l at
 * out[i] + j * (nq_l + np) limbs. The devices' limbs of each exchange's
 * digits go to coefficient form and leave while those of the next are
 * transformed; each device then converts and transforms first the digits
 * it holds whole, then the others as their exchanges complete, so that it
 * waits only for limbs it has not got. On several devices and without a
 * hook the digits take two lanes in turn (digit_lane); a hook's marks keep
 * every step on the compute stream. At the end every compute stream has
 * waited for the side stream and every exchange (the gathered limbs'
 * buffers are free). */
static nb_status modup_all(nb_ckks_multi *m, size_t level, void *const *out,
                           const void *const *in, const nb_ckks_hook *h, void *stream)
{
    const size_t digits = nb_ckks_digits(m->p, level);
    size_t off[NB_MULTI_MAX], cnt[NB_MULTI_MAX], group[NB_MULTI_TIMED];
    size_t qa[NB_MULTI_MAX], nq[NB_MULTI_MAX];
    unsigned char order[NB_MULTI_MAX * NB_MULTI_TIMED], recv[NB_MULTI_MAX * NB_MULTI_TIMED];
    void *buf[NB_MULTI_MAX];
    for (size_t i = 0; i < m->G; i++) {
        qa[i] = m->d[i].qa;
        nq[i] = nb_multi_nq_at(&m->d[i], level);
    }
    const size_t ng = nb_multi_modup_plan(m->p, level, m->G, qa, nq, group, order, recv);
    for (size_t g = 0; g < ng; g++) {
        size_t goff[NB_MULTI_MAX] = {0}, gcnt[NB_MULTI_MAX] = {0};
        for (size_t j = 0; j < digits; j++) {
            if (group[j] != g)
                continue;
            digit_parts(m, level, j, off, cnt, buf);
            for (size_t i = 0; i < m->G; i++) {
                part *d = &m->d[i];
                if (!cnt[i])
                    continue;
                goff[i] = off[i];
                gcnt[i] = cnt[i];
                NB_TRY(nb_multi_use(d));
                NB_TRY(inverse_into(m, d, nb_multi_at(m, d->gq, off[i]),
                                    nb_multi_at(m, in[i], off[i] - d->qa), off[i] - d->qa,
                                    cnt[i]));
            }
        }
        NB_TRY(nb_multi_exchange_start(m, buf, goff, gcnt, g, 1));
    }
    NB_TRY(step(m, h, stream, "intt", 1, level + 1, 1));
    const int two = m->G > 1 && !(h && h->fn);
    for (size_t i = 0; i < m->G && two; i++) /* the side lane starts after the iNTTs */
        NB_TRY(stream_after(&m->d[i], m->d[i].side, m->d[i].stream));
    for (size_t p = 0; p < digits; p++) {
        size_t limbs = 0;
        for (size_t i = 0; i < m->G && m->G > 1; i++) {
            part *d = &m->d[i];
            const size_t j = order[i * digits + p];
            if (!recv[i * digits + j])
                continue;
            NB_TRY(nb_multi_use(d));
            NB_CUDA_TRY(cudaStreamWaitEvent(digit_lane(d, two, p).s, d->ev_got[group[j]], 0));
        }
        if (m->G > 1)
            NB_TRY(step(m, h, stream, "comm", 0, 0, 0));
        for (size_t i = 0; i < m->G; i++) {
            part *d = &m->d[i];
            const size_t j = order[i * digits + p];
            NB_TRY(nb_multi_use(d));
            void *o = nb_multi_at(m, out[i], j * (nb_multi_nq_at(d, level) + d->np));
            NB_TRY(modup_digit_conv(m, d, digit_lane(d, two, p), level, j, o, in[i]));
        }
        NB_TRY(step(m, h, stream, "conv", 0, 0, 0));
        for (size_t i = 0; i < m->G; i++) {
            part *d = &m->d[i];
            const size_t j = order[i * digits + p];
            NB_TRY(nb_multi_use(d));
            void *o = nb_multi_at(m, out[i], j * (nb_multi_nq_at(d, level) + d->np));
            NB_TRY(modup_digit_ntt(m, d, digit_lane(d, two, p), level, j, o));
            digit_parts(m, level, j, off, cnt, buf);
            limbs += nb_multi_nq_at(d, level) - cnt[i] + d->np;
        }
        NB_TRY(step(m, h, stream, "ntt", 1, limbs, 0));
    }
    for (size_t i = 0; i < m->G && m->G > 1; i++) {
        part *d = &m->d[i];
        if (two)
            NB_TRY(stream_after(d, d->stream, d->side));
        NB_TRY(nb_multi_use(d));
        for (size_t g = 0; g < ng; g++)
            NB_CUDA_TRY(cudaStreamWaitEvent(d->stream, d->ev_got[g], 0));
    }
    return NB_OK;
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
            NB_TRY(inverse_into(m, d, nb_multi_at(m, d->gp, off[i]),
                                nb_multi_at(m, a[k][i], nb_multi_nq_at(d, level)), d->nq, d->np));
        }
        NB_TRY(nb_multi_exchange_start(m, buf, off, cnt, k, 1));
    }
    return step(m, h, stream, "intt", 1, polys * A, 1);
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
        NB_TRY(step(m, h, stream, "conv", 0, 0, 0));
    }
    for (size_t i = 0; i < m->G; i++) {
        part *d = &m->d[i];
        NB_TRY(nb_multi_use(d));
        const size_t nq = nb_multi_nq_at(d, level);
        if (polys == 2 && nq == d->nq && nq) { /* t[1] = t[0] + nq: one call */
            NB_TRY(nb_ntt_forward(d->ntt_qq, d->t[0], 0, 2 * nq, d->stream));
            continue;
        }
        for (unsigned k = 0; k < polys; k++)
            NB_TRY(forward(d, d->t[k], 0, nq));
    }
    NB_TRY(step(m, h, stream, "ntt", 1, polys * (level + 1), 0));
    for (size_t i = 0; i < m->G; i++) {
        part *d = &m->d[i];
        NB_TRY(nb_multi_use(d));
        const size_t nq = nb_multi_nq_at(d, level);
        if (!nq)
            continue;
        const nb_limb_consts c = {d->base + m->k->prime_q + d->qa, d->base + m->k->p_inv + d->qa,
                                  d->base + m->k->p_inv_shoup + d->qa};
        const nb_polys io = {{out[0][i], polys > 1 ? out[1][i] : NULL},
                             {a[0][i], polys > 1 ? a[1][i] : NULL},
                             {d->t[0], d->t[1]}, polys, m->word_bits};
        NB_TRY(nb_gpu_sub_mul(&c, &io, nq, m->p->n, d->stream));
    }
    return step(m, h, stream, "scalar", 0, 0, 0);
}

/* The key-switch inner product into acc[0], acc[1] of the output limbs `which`
 * selects: IP_P (the P limbs: modDown's first need), IP_Q (the Q limbs). */
enum { IP_P = 1, IP_Q = 2 };
static nb_status inner_product(nb_ckks_multi *m, size_t level, const void *const *key, int which,
                               const nb_ckks_hook *h, void *stream)
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
            .packed = 0,
            .chunk = m->k->ip_chunk,
            .word_bits = m->word_bits,
            .prime_q = d->local_q,
            .prime_mu_lo = d->local_mu_lo,
            .prime_mu_hi = d->local_mu_hi,
            .first_limb = which == IP_P ? nq : 0,
            .limbs = which == IP_P ? d->np : nq,
        };
        if (!g.limbs)
            continue;
        NB_TRY(nb_gpu_inner_product(&g, d->acc[0], d->acc[1], nb_multi_at(m, d->acc[1], nq), d->ext,
                                    NULL, key[i], d->stream));
    }
    return step(m, h, stream, "inner-product", 0, 0, 0);
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
        NB_TRY(inverse_into(m, d, nb_multi_at(m, d->gr, off[i]), nb_multi_at(m, in[i], lo - d->qa),
                            lo - d->qa, cnt[i]));
    }
    NB_TRY(step(m, h, stream, "intt", 1, g, 1));
    NB_TRY(nb_multi_exchange_start(m, buf, off, cnt, 0, 1));
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
    NB_TRY(step(m, h, stream, "conv", 0, 0, 0));
    for (size_t i = 0; i < m->G; i++) {
        NB_TRY(nb_multi_use(&m->d[i]));
        NB_TRY(forward(&m->d[i], m->d[i].t[0], 0, nb_multi_nq_at(&m->d[i], keep - 1)));
    }
    NB_TRY(step(m, h, stream, "ntt", 1, keep, 0));
    const size_t Q = m->p->q_count;
    for (size_t i = 0; i < m->G; i++) {
        part *d = &m->d[i];
        NB_TRY(nb_multi_use(d));
        const size_t nk = nb_multi_nq_at(d, keep - 1);
        if (!nk)
            continue;
        const nb_limb_consts c = {d->base + m->k->prime_q + d->qa,
                                  d->base + m->k->ql_inv + level * Q + d->qa,
                                  d->base + m->k->ql_inv_shoup + level * Q + d->qa};
        const nb_polys io = {{out[i], NULL}, {in[i], NULL}, {d->t[0], NULL}, 1, m->word_bits};
        NB_TRY(nb_gpu_sub_mul(&c, &io, nk, m->p->n, d->stream));
    }
    return step(m, h, stream, "scalar", 0, 0, 0);
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
    m->n_timed = 0;
    nb_status s = fork_from(m, stream);
    if (s == NB_OK)
        s = modup_all(m, level, out, in, hook, stream);
    if (s == NB_OK)
        s = join_into(m, stream);
    return nb_multi_restore(caller, s);
}

nb_status nb_ckks_multi_moddown(nb_ckks_multi *m, size_t level, void *const *out,
                                const void *const *in, const nb_ckks_hook *hook, void *stream)
{
    NB_TRY(check(m, level, 0, "modDown", out, in));
    void *const *o[2] = {out, NULL};
    const void *const *a[2] = {in, NULL};
    const int caller = nb_multi_caller_device();
    m->n_timed = 0;
    nb_status s = fork_from(m, stream);
    if (s == NB_OK)
        s = moddown_send(m, level, 1, a, hook, stream);
    if (s == NB_OK)
        s = moddown_finish(m, level, 1, o, a, hook, stream);
    if (s == NB_OK)
        s = join_into(m, stream);
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
    m->n_timed = 0;
    nb_status s = fork_from(m, stream);
    if (s == NB_OK)
        s = modup_all(m, level, ext, in, hook, stream);
    if (s == NB_OK) /* the P limbs first: their exchanges run under the Q limbs' products */
        s = inner_product(m, level, key, IP_P, hook, stream);
    if (s == NB_OK)
        s = moddown_send(m, level, 2, a, hook, stream);
    if (s == NB_OK)
        s = inner_product(m, level, key, IP_Q, hook, stream);
    if (s == NB_OK)
        s = moddown_finish(m, level, 2, o, a, hook, stream);
    if (s == NB_OK)
        s = join_into(m, stream);
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
    m->n_timed = 0;
    nb_status s = fork_from(m, stream);
    if (s == NB_OK)
        s = rescale(m, level, rounding == NB_CKKS_RESCALE_ROUND, out, in, hook, stream);
    if (s == NB_OK)
        s = join_into(m, stream);
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

/* modUp on several GPUs (ckks/multi.h, nb_multi_modup): each device's
 * limbs of every digit to coefficient form and out to the others in the
 * exchanges ckks/multi_plan.c schedules, then on each device the conversion
 * onto its own targets and their forward NTTs, digit by digit on two
 * streams in turn; in the key switch's packed layout the transforms grouped
 * into fewer calls (nb_multi_modup's contract). */
#include <stdint.h>

#include "ckks/multi.h"

#ifdef NB_MULTI_GPU
#include "core/cuda_check.h"

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

/* The packed layout's plan on the compute stream. */
static lane ext_lane(const part *d)
{
    return (lane){d->ntt_ext, d->stream};
}

static nb_status forward_on(lane l, void *data, size_t first, size_t count)
{
    return count ? nb_ntt_forward(l.ntt, data, first, count, l.s) : NB_OK;
}

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
 * the gathered digit (coefficient form). Conversion targets are B_l minus
 * the digit in order (Q below the digit, Q above it, P). `packed`: out holds
 * the targets only (nb_multi_ext_layout), converted in one call through the
 * part's table of them (nb_multi_ext_convs), nothing is copied. */
static nb_status modup_digit_conv(nb_ckks_multi *m, part *d, lane l, size_t level, size_t j,
                                  void *out, const void *in, int packed)
{
    const nb_ckks_params *p = m->p;
    size_t first, count;
    nb_ckks_digit_range(p, level, j, &first, &count);
    const void *src = nb_multi_at(m, d->gq, first);
    if (packed) {
        const nb_conv_view v = nb_conv_view_at(&d->ext_conv[j], d->base, d->ext_conv[j].n_to);
        const nb_polys io = {{out, NULL}, {src, NULL}, {NULL, NULL}, 1, m->word_bits};
        return nb_gpu_conv(&v, &io, p->n, l.s);
    }
    const size_t nq = nb_multi_nq_at(d, level), qa = d->qa, qe = qa + nq, after = first + count;
    const nb_conv_desc *desc = &m->k->modup[level * p->dnum + j];
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
        NB_TRY(nb_multi_conv_on(m, d, l.s, desc, qa, b1 - qa, &io));
    }
    /* owned Q limbs above the digit: targets t = i - count */
    const size_t a0 = qa > after ? qa : after;
    if (qe > a0) {
        const nb_polys io = {
            {nb_multi_at(m, out, a0 - qa), NULL}, {src, NULL}, {NULL, NULL}, 1, m->word_bits};
        NB_TRY(nb_multi_conv_on(m, d, l.s, desc, a0 - count, qe - a0, &io));
    }
    /* owned P limbs: targets l+1-count+k */
    const nb_polys io = {
        {nb_multi_at(m, out, nq), NULL}, {src, NULL}, {NULL, NULL}, 1, m->word_bits};
    return nb_multi_conv_on(m, d, l.s, desc, level + 1 - count + d->pa, d->np, &io);
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
 * out[i] + j * (nq_l + np) limbs, transformed in one or two calls per digit
 * (the owned limbs on either side of the digit's own), or with `packed` (the
 * key switch at the top level, every part with ntt_ext) its targets alone in
 * nb_multi_ext_layout's layout: on 32-bit words each digit in one call once
 * converted, on 64-bit words a digit held whole so and the received digits
 * in one call per run of them at the end, as the one-GPU pipeline groups its
 * calls (a digit's own calls fill a fraction of a wave on one device's share
 * of the limbs). The devices' limbs of each exchange's digits go to
 * coefficient form and leave while those of the next are transformed; each
 * device then converts and transforms first the digits it holds whole, then
 * the others as their exchanges complete, so that it waits only for limbs it
 * has not got. On several devices and without a hook the digits take two
 * lanes in turn (digit_lane; calls on the packed plan ordered across them);
 * a hook's marks keep every step on the compute stream. At the end every
 * compute stream has waited for the side stream and every exchange (the
 * gathered limbs' buffers are free). */
nb_status nb_multi_modup(nb_ckks_multi *m, size_t level, void *const *out, const void *const *in,
                         int packed, const nb_ckks_hook *h, void *stream)
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
    const int each = m->word_bits == 32; /* packed: every digit transformed once converted */
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
                NB_TRY(nb_multi_inverse_into(m, d, nb_multi_at(m, d->gq, off[i]),
                                             nb_multi_at(m, in[i], off[i] - d->qa),
                                             off[i] - d->qa, cnt[i]));
            }
        }
        NB_TRY(nb_multi_exchange_start(m, buf, goff, gcnt, g, 1, 0));
    }
    NB_TRY(nb_multi_step(m, h, stream, "intt", 1, level + 1, 1));
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
            NB_TRY(nb_multi_step(m, h, stream, "comm", 0, 0, 0));
        for (size_t i = 0; i < m->G; i++) {
            part *d = &m->d[i];
            const size_t j = order[i * digits + p], nq = nb_multi_nq_at(d, level);
            const lane l = packed && !recv[i * digits + j] ? main_lane(d) : digit_lane(d, two, p);
            NB_TRY(nb_multi_use(d));
            void *o = nb_multi_at(m, out[i], packed ? d->ext_off[j] : j * (nq + d->np));
            NB_TRY(modup_digit_conv(m, d, l, level, j, o, in[i], packed));
        }
        NB_TRY(nb_multi_step(m, h, stream, "conv", 0, 0, 0));
        for (size_t i = 0; i < m->G; i++) {
            part *d = &m->d[i];
            const size_t j = order[i * digits + p], nq = nb_multi_nq_at(d, level);
            NB_TRY(nb_multi_use(d));
            if (packed) { /* now: a digit held whole, or any on 32-bit words */
                if (recv[i * digits + j] && !each)
                    continue; /* with the digits next to it, at the end */
                lane l = recv[i * digits + j] ? digit_lane(d, two, p) : main_lane(d);
                if (two) /* after the other lane's calls on the packed plan */
                    NB_TRY(stream_after(d, l.s, l.s == d->stream ? d->side : d->stream));
                const size_t *at = d->ext_off;
                l.ntt = d->ntt_ext;
                NB_TRY(forward_on(l, nb_multi_at(m, out[i], at[j]), at[j], at[j + 1] - at[j]));
                limbs += at[j + 1] - at[j];
                continue;
            }
            void *o = nb_multi_at(m, out[i], j * (nq + d->np));
            NB_TRY(modup_digit_ntt(m, d, digit_lane(d, two, p), level, j, o));
            digit_parts(m, level, j, off, cnt, buf);
            limbs += nq - cnt[i] + d->np;
        }
        if (!packed || limbs)
            NB_TRY(nb_multi_step(m, h, stream, "ntt", 1, limbs, 0));
    }
    size_t limbs = 0;
    for (size_t i = 0; i < m->G; i++) {
        part *d = &m->d[i];
        if (two)
            NB_TRY(stream_after(d, d->stream, d->side));
        NB_TRY(nb_multi_use(d));
        for (size_t g = 0; g < ng && m->G > 1; g++)
            NB_CUDA_TRY(cudaStreamWaitEvent(d->stream, d->ev_got[g], 0));
        const size_t *at = d->ext_off;
        size_t a = 0;
        for (size_t j = 0; packed && !each && j < digits; j++) { /* each run received: one call */
            if (!recv[i * digits + j])
                a = j + 1;
            else if (j + 1 == digits || !recv[i * digits + j + 1]) {
                NB_TRY(forward_on(ext_lane(d), nb_multi_at(m, out[i], at[a]), at[a],
                                  at[j + 1] - at[a]));
                limbs += at[j + 1] - at[a];
            }
        }
    }
    return limbs ? nb_multi_step(m, h, stream, "ntt", 1, limbs, 0) : NB_OK;
}
#endif

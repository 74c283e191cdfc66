/* The CKKS stage pipelines (modUp, inner product, modDown, key switch,
 * rescale), written once for both backends: each step is either an NTT
 * through the variant interface or a kernel dispatched to cpu_kernels.c or
 * gpu_kernels.cu. The nb_ckks object (ckks/pipeline.h, built by
 * pipeline_create.c) owns the NTT, the constants (a device copy for GPU
 * variants) and every scratch buffer, so a pipeline call allocates nothing
 * and (GPU) never synchronizes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ckks/pipeline.h"
#include "core/device.h"
#include "ntt/arith.h"

static nb_status mark(const nb_ckks_hook *h, const char *step, int is_ntt, size_t limbs,
                      int inverse)
{
    if (h && h->fn)
        return h->fn(h->user, step, is_ntt, limbs, inverse);
    return NB_OK;
}

static nb_status copy_limbs(const nb_ckks *c, void *dst, const void *src, size_t limbs,
                           void *stream)
{
    if (c->backend == NB_BACKEND_CPU) {
        memcpy(dst, src, limbs * c->limb_bytes);
        return NB_OK;
    }
#ifdef NB_HAVE_CUDA
    return nb_gpu_copy(dst, src, limbs * c->limb_bytes, stream);
#else
    (void)stream;
    return nb_gpu_require();
#endif
}

/* One polynomial for the kernels below: out from a (and b). */
static nb_polys one(const nb_ckks *c, void *out, const void *a, const void *b)
{
    const nb_polys io = {{out, NULL}, {a, NULL}, {b, NULL}, 1, c->word_bits};
    return io;
}

/* Two polynomials: out0 from (a0, b0), out1 from (a1, b1). */
static nb_polys two(const nb_ckks *c, void *out0, void *out1, const void *a0, const void *a1,
                    const void *b0, const void *b1)
{
    const nb_polys io = {{out0, out1}, {a0, a1}, {b0, b1}, 2, c->word_bits};
    return io;
}

/* The conversion of each polynomial of io (GPU: one launch). */
static nb_status conv(const nb_ckks *c, const nb_conv_view *v, const nb_polys *io, void *stream)
{
    if (c->backend == NB_BACKEND_CPU) {
        for (unsigned p = 0; p < io->count; p++)
            NB_TRY(nb_cpu_conv(v, io->out[p], io->a[p], c->p->n, c->word_bits));
        return NB_OK;
    }
#ifdef NB_HAVE_CUDA
    return nb_gpu_conv(v, io, c->p->n, stream);
#else
    (void)stream;
    return nb_gpu_require();
#endif
}

/* out = (a - b) * w per limb, for each polynomial of io (GPU: one launch). */
static nb_status sub_mul(const nb_ckks *c, const nb_limb_consts *k, const nb_polys *io,
                         size_t count, void *stream)
{
    if (c->backend == NB_BACKEND_CPU) {
        for (unsigned p = 0; p < io->count; p++)
            NB_TRY(nb_cpu_sub_mul(k, io->out[p], io->a[p], io->b[p], count, c->p->n,
                                  c->word_bits));
        return NB_OK;
    }
#ifdef NB_HAVE_CUDA
    return nb_gpu_sub_mul(k, io, count, c->p->n, stream);
#else
    (void)stream;
    return nb_gpu_require();
#endif
}

/* t (l+1-g limbs) from r, rescale's g dropped limbs of level l in
 * coefficient form (nb_bring_args). */
static nb_status rescale_bring(const nb_ckks *c, size_t level, int round, void *t,
                               const void *r, void *stream)
{
    const nb_bring_args a = nb_bring_args_at(c->p, c->base, level, round, 0,
                                             level + 1 - c->p->rescale_primes, c->word_bits);
    if (c->backend == NB_BACKEND_CPU)
        return nb_cpu_rescale_bring(&a, t, r);
#ifdef NB_HAVE_CUDA
    return nb_gpu_rescale_bring(&a, t, r, stream);
#else
    (void)stream;
    return nb_gpu_require();
#endif
}

/* acc1's P limbs at acc1_p (acc1 + (level+1) N: the natural layout); ext in
 * the packed layout when `in` is given (the digits' own limbs read there). */
static nb_status inner_product(const nb_ckks *c, size_t level, void *acc0, void *acc1,
                               void *acc1_p, const void *ext, const void *in, const void *key,
                               void *stream)
{
    const nb_ckks_params *p = c->p;
    nb_ip_geom g = {
        .n = p->n,
        .level = level,
        .ext_limbs = level + 1 + p->alpha,
        .q_count = p->q_count,
        .alpha = p->alpha,
        .digits = nb_ckks_digits(p, level),
        .alpha_digit = p->alpha,
        .packed = in != NULL,
        .chunk = c->k->ip_chunk,
        .word_bits = c->word_bits,
        .prime_q = c->base + c->k->prime_q,
        .prime_mu_lo = c->base + c->k->prime_mu_lo,
        .prime_mu_hi = c->base + c->k->prime_mu_hi,
    };
    if (c->backend == NB_BACKEND_CPU)
        return nb_cpu_inner_product(&g, acc0, acc1, acc1_p, ext, in, key);
#ifdef NB_HAVE_CUDA
    return nb_gpu_inner_product(&g, acc0, acc1, acc1_p, ext, in, key, stream);
#else
    (void)stream;
    return nb_gpu_require();
#endif
}

/* ---- argument checks ---- */

static nb_status check_level(const nb_ckks *c, size_t level, size_t min_level, const char *op)
{
    if (!c)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: NULL nb_ckks", op);
    if (level < min_level || level > c->p->max_level)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: level %zu outside [%zu, L=%zu]", op, level,
                            min_level, c->p->max_level);
    return NB_OK;
}

static nb_status check_ptrs(const char *op, const void *a, const void *b, const void *cc,
                            const void *d)
{
    if (!a || !b || !cc || !d)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: NULL buffer", op);
    return NB_OK;
}

/* NB_ERR_INVALID_ARG when the `out_limbs` limbs an operation writes at out
 * share a byte with the `in_limbs` limbs at in (another input or output):
 * the header's "outputs never alias inputs", for any overlap, not only an
 * equal pointer. */
static nb_status disjoint(const nb_ckks *c, const char *op, const void *out, size_t out_limbs,
                          const void *in, size_t in_limbs)
{
    const size_t limb = c->p->n * (c->word_bits / 8);
    const char *x = out, *y = in;
    if (x < y + in_limbs * limb && y < x + out_limbs * limb)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: an output overlaps an input or another "
                            "output", op);
    return NB_OK;
}

/* ---- pipelines ---- */

/* Forward NTT of the modUp output `out` of the digit [first, first + count)
 * of level l: the Q limbs below and above the digit and the P limbs, as few
 * variant calls as the prime indices allow (at the top level the limbs above
 * the digit and the P limbs are one contiguous range). packed = 0: `out` is a
 * poly over B_l (the digit's own limbs in place, untouched); packed = 1: the
 * new limbs only, in prime order. */
static nb_status forward_outside_digit(nb_ckks *c, size_t level, void *out, size_t first,
                                       size_t count, int packed, void *stream)
{
    const nb_ckks_params *p = c->p;
    const size_t L1 = level + 1, Q = p->q_count, A = p->alpha;
    const size_t after = first + count, skip = packed ? count : 0;
    if (first > 0)
        NB_TRY(nb_ntt_forward(c->ntt, out, 0, first, stream));
    if (L1 == Q) /* q_after..q_L and p_0.. are consecutive primes of the plan */
        return nb_ntt_forward(c->ntt, nb_ckks_at(c, out, after - skip), after, Q + A - after,
                              stream);
    if (after < L1)
        NB_TRY(nb_ntt_forward(c->ntt, nb_ckks_at(c, out, after - skip), after, L1 - after, stream));
    return nb_ntt_forward(c->ntt, nb_ckks_at(c, out, L1 - skip), Q, A, stream);
}

/* dst = iNTT of limbs [first, first + count) of src (under the main plan):
 * out of place when the variant can, else a copy and the in-place transform.
 * A "copy" step is marked when this copies or the caller copied since its
 * last mark (copied != 0); then the "intt" step. */
static nb_status inverse_into(nb_ckks *c, void *dst, const void *src, size_t first,
                              size_t count, int copied, const nb_ckks_hook *hook, void *stream)
{
    const int oop = nb_ntt_out_of_place(c->ntt);
    if (!oop)
        NB_TRY(copy_limbs(c, dst, src, count, stream));
    if (!oop || copied)
        NB_TRY(mark(hook, "copy", 0, 0, 0));
    if (oop)
        NB_TRY(nb_ntt_inverse_to(c->ntt, dst, src, first, count, stream));
    else
        NB_TRY(nb_ntt_inverse(c->ntt, dst, first, count, stream));
    return mark(hook, "intt", 1, count, 1);
}

/* modUp of one digit into `out` (poly over B_l). */
static nb_status modup_digit(nb_ckks *c, size_t level, size_t digit, void *out, const void *in,
                             const nb_ckks_hook *hook, void *stream)
{
    const nb_ckks_params *p = c->p;
    const size_t L1 = level + 1, A = p->alpha;
    size_t first, count;
    nb_ckks_digit_range(p, level, digit, &first, &count);
    NB_TRY(copy_limbs(c, nb_ckks_at(c, out, first), nb_ckks_at(c, in, first), count, stream));
    NB_TRY(inverse_into(c, c->s_coeff, nb_ckks_at(c, in, first), first, count, 1, hook, stream));
    const nb_conv_desc *d = &c->k->modup[level * p->dnum + digit];
    nb_conv_view v = nb_conv_view_at(d, c->base, d->n_to);
    const nb_polys io = one(c, out, c->s_coeff, NULL);
    NB_TRY(conv(c, &v, &io, stream));
    NB_TRY(mark(hook, "conv", 0, 0, 0));
    NB_TRY(forward_outside_digit(c, level, out, first, count, 0, stream));
    NB_TRY(mark(hook, "ntt", 1, L1 + A - count, 0));
    return NB_OK;
}

/* modUp of every digit of level l. One iNTT of all l+1 limbs serves every
 * digit. packed = 0: digit j into out + j*(l+1+alpha)*N (a poly over B_l, the
 * digit's own limbs copied from `in`). packed = 1 (the key switch's layout):
 * digit j's targets only, in order, at out + j*(l+1)*N (digits of alpha limbs
 * each but the last: every digit but the last takes l+1 limbs), and at the
 * top level the targets' NTT under ntt_ext if it exists: on 32-bit words one call per
 * digit after its conversion (its output still in L2), on 64-bit words one call over every
 * digit (docs/tuning.md, "The key switch's modUp NTT, and the inner product's loads"). */
static nb_status modup_all(nb_ckks *c, size_t level, void *out, const void *in, int packed,
                           const nb_ckks_hook *hook, void *stream)
{
    const nb_ckks_params *p = c->p;
    const size_t L1 = level + 1, E = L1 + p->alpha, digits = nb_ckks_digits(p, level);
    const int ext = packed && L1 == p->q_count && c->ntt_ext, one_call = ext && c->word_bits == 64;
    if (!packed)
        for (size_t j = 0; j < digits; j++) {
            size_t first, count;
            nb_ckks_digit_range(p, level, j, &first, &count);
            NB_TRY(copy_limbs(c, nb_ckks_at(c, out, j * E + first), nb_ckks_at(c, in, first),
                              count, stream));
        }
    NB_TRY(inverse_into(c, c->s_coeff, in, 0, L1, !packed, hook, stream));
    for (size_t j = 0; j < digits; j++) {
        size_t first, count;
        nb_ckks_digit_range(p, level, j, &first, &count);
        void *o = nb_ckks_at(c, out, j * (packed ? L1 : E));
        const nb_conv_desc *d = &c->k->modup[level * p->dnum + j];
        nb_conv_view v = nb_conv_view_at(d, c->base, d->n_to);
        if (packed)
            v.out_limb = c->base + c->k->identity;
        const nb_polys io = one(c, o, nb_ckks_at(c, c->s_coeff, first), NULL);
        NB_TRY(conv(c, &v, &io, stream));
        NB_TRY(mark(hook, "conv", 0, 0, 0));
        if (one_call)
            continue;
        /* under ntt_ext, each digit before j has l+1 targets */
        NB_TRY(ext ? nb_ntt_forward(c->ntt_ext, o, j * L1, E - count, stream)
                   : forward_outside_digit(c, level, o, first, count, packed, stream));
        NB_TRY(mark(hook, "ntt", 1, E - count, 0));
    }
    if (one_call) {
        const size_t limbs = digits * E - L1;
        NB_TRY(nb_ntt_forward(c->ntt_ext, out, 0, limbs, stream));
        NB_TRY(mark(hook, "ntt", 1, limbs, 0));
    }
    return NB_OK;
}

nb_status nb_ckks_modup(nb_ckks *c, size_t level, size_t digit, void *out, const void *in,
                        const nb_ckks_hook *hook, void *stream)
{
    NB_TRY(check_level(c, level, 0, "modUp"));
    NB_TRY(check_ptrs("modUp", out, in, out, in));
    NB_TRY(disjoint(c, "modUp", out, level + 1 + c->p->alpha, in, level + 1));
    if (digit >= nb_ckks_digits(c->p, level))
        return nb_set_error(NB_ERR_INVALID_ARG, "modUp: digit %zu outside [0, %zu) at level %zu",
                            digit, nb_ckks_digits(c->p, level), level);
    return modup_digit(c, level, digit, out, in, hook, stream);
}

nb_status nb_ckks_modup_all(nb_ckks *c, size_t level, void *out, const void *in,
                            const nb_ckks_hook *hook, void *stream)
{
    NB_TRY(check_level(c, level, 0, "modUp"));
    NB_TRY(check_ptrs("modUp", out, in, out, in));
    NB_TRY(disjoint(c, "modUp", out, nb_ckks_digits(c->p, level) * (level + 1 + c->p->alpha), in,
                    level + 1));
    return modup_all(c, level, out, in, 0, hook, stream);
}

/* The last two steps of modDown and rescale on one polynomial: the forward
 * NTT of limbs [0, count) of t (scratch) over c->ntt and out = (in - t) w
 * (k: per limb), fused into the transform's last kernel when the variant
 * offers it (one step "ntt-scalar", counted as an NTT step), else the
 * transform then the subtract-and-scale pass (steps "ntt" and "scalar"). */
static nb_status forward_sub_mul(nb_ckks *c, void *t, const nb_limb_consts *k, void *out,
                                 const void *in, size_t count, const nb_ckks_hook *hook,
                                 void *stream)
{
    if (nb_ntt_has_sub_scale(c->ntt)) {
        const nb_ntt_sub_scale e = {{out, out}, {in, in}, count, k->w, k->w_shoup};
        NB_TRY(nb_ntt_forward_sub_scale(c->ntt, t, &e, 0, count, stream));
        return mark(hook, "ntt-scalar", 1, count, 0);
    }
    NB_TRY(nb_ntt_forward(c->ntt, t, 0, count, stream));
    NB_TRY(mark(hook, "ntt", 1, count, 0));
    const nb_polys si = one(c, out, in, t);
    NB_TRY(sub_mul(c, k, &si, count, stream));
    return mark(hook, "scalar", 0, 0, 0);
}

/* modDown of one polynomial; the input stays unchanged (its P limbs are
 * transformed into scratch). */
static nb_status moddown(nb_ckks *c, size_t level, void *out, const void *in,
                         const nb_ckks_hook *hook, void *stream)
{
    const size_t L1 = level + 1, Q = c->p->q_count, A = c->p->alpha;
    void *pl = c->s_p;
    NB_TRY(inverse_into(c, pl, nb_ckks_at(c, in, L1), Q, A, 0, hook, stream));
    nb_conv_view v = nb_conv_view_at(&c->k->moddown, c->base, (uint32_t)L1);
    const nb_polys ci = one(c, c->s_t, pl, NULL);
    NB_TRY(conv(c, &v, &ci, stream));
    NB_TRY(mark(hook, "conv", 0, 0, 0));
    nb_limb_consts k = {c->base + c->k->prime_q, c->base + c->k->p_inv,
                        c->base + c->k->p_inv_shoup};
    return forward_sub_mul(c, c->s_t, &k, out, in, L1, hook, stream);
}

/* modDown of the key switch's two accumulators in place: acc0 (l+1+alpha
 * limbs in order) and acc1 (its Q limbs at acc1_q, its P limbs right after
 * acc0's), each NTT step one call over both polynomials at the top level
 * (below it one per polynomial); the subtract and scale fused into the
 * forward NTT as forward_sub_mul says. */
static nb_status moddown_pair(nb_ckks *c, size_t level, void *out0, void *out1, void *acc0,
                              const void *acc1_q, const nb_ckks_hook *hook, void *stream)
{
    const size_t L1 = level + 1, Q = c->p->q_count, A = c->p->alpha;
    void *pl = nb_ckks_at(c, acc0, L1), *t0 = c->s_t, *t1 = nb_ckks_at(c, c->s_t, Q);
    NB_TRY(nb_ntt_inverse(c->ntt_pp, pl, 0, 2 * A, stream));
    NB_TRY(mark(hook, "intt", 1, 2 * A, 1));
    nb_conv_view v = nb_conv_view_at(&c->k->moddown, c->base, (uint32_t)L1);
    const nb_polys ci = two(c, t0, t1, pl, nb_ckks_at(c, pl, A), NULL, NULL);
    NB_TRY(conv(c, &v, &ci, stream));
    NB_TRY(mark(hook, "conv", 0, 0, 0));
    nb_limb_consts k = {c->base + c->k->prime_q, c->base + c->k->p_inv,
                        c->base + c->k->p_inv_shoup};
    if (nb_ntt_has_sub_scale(c->ntt_qq)) { /* at the top level one call in two parts */
        const nb_ntt_sub_scale e0 = {{out0, out1}, {acc0, acc1_q}, L1, k.w, k.w_shoup};
        const nb_ntt_sub_scale e1 = {{out1, out1}, {acc1_q, acc1_q}, L1, k.w, k.w_shoup};
        NB_TRY(nb_ntt_forward_sub_scale(c->ntt_qq, t0, &e0, 0, L1 == Q ? 2 * Q : L1, stream));
        if (L1 < Q)
            NB_TRY(nb_ntt_forward_sub_scale(c->ntt_qq, t1, &e1, Q, L1, stream));
        return mark(hook, "ntt-scalar", 1, 2 * L1, 0);
    }
    if (L1 == Q) { /* t0, t1 adjacent over q_0..q_L twice */
        NB_TRY(nb_ntt_forward(c->ntt_qq, t0, 0, 2 * Q, stream));
    } else {
        NB_TRY(nb_ntt_forward(c->ntt_qq, t0, 0, L1, stream));
        NB_TRY(nb_ntt_forward(c->ntt_qq, t1, Q, L1, stream));
    }
    NB_TRY(mark(hook, "ntt", 1, 2 * L1, 0));
    const nb_polys si = two(c, out0, out1, acc0, acc1_q, t0, t1);
    NB_TRY(sub_mul(c, &k, &si, L1, stream));
    return mark(hook, "scalar", 0, 0, 0);
}

nb_status nb_ckks_moddown(nb_ckks *c, size_t level, void *out, const void *in,
                          const nb_ckks_hook *hook, void *stream)
{
    NB_TRY(check_level(c, level, 0, "modDown"));
    NB_TRY(check_ptrs("modDown", out, in, out, in));
    NB_TRY(disjoint(c, "modDown", out, level + 1, in, level + 1 + c->p->alpha));
    return moddown(c, level, out, in, hook, stream);
}

nb_status nb_ckks_inner_product(nb_ckks *c, size_t level, void *acc0, void *acc1,
                                const void *ext, const void *key, const nb_ckks_hook *hook,
                                void *stream)
{
    NB_TRY(check_level(c, level, 0, "inner product"));
    NB_TRY(check_ptrs("inner product", acc0, acc1, ext, key));
    const size_t E = level + 1 + c->p->alpha, digits = nb_ckks_digits(c->p, level);
    const size_t keys = nb_ckks_key_limbs(c->p);
    NB_TRY(disjoint(c, "inner product", acc0, E, acc1, E));
    for (int a = 0; a < 2; a++) {
        NB_TRY(disjoint(c, "inner product", a ? acc1 : acc0, E, ext, digits * E));
        NB_TRY(disjoint(c, "inner product", a ? acc1 : acc0, E, key, keys));
    }
    NB_TRY(inner_product(c, level, acc0, acc1, nb_ckks_at(c, acc1, level + 1), ext, NULL, key,
                         stream));
    return mark(hook, "inner-product", 0, 0, 0);
}

nb_status nb_ckks_keyswitch(nb_ckks *c, size_t level, void *out0, void *out1, const void *in,
                            const void *key, const nb_ckks_hook *hook, void *stream)
{
    NB_TRY(check_level(c, level, 0, "key switch"));
    NB_TRY(check_ptrs("key switch", out0, out1, in, key));
    const size_t L1 = level + 1, keys = nb_ckks_key_limbs(c->p);
    NB_TRY(disjoint(c, "key switch", out0, L1, out1, L1));
    for (int o = 0; o < 2; o++) {
        NB_TRY(disjoint(c, "key switch", o ? out1 : out0, L1, in, L1));
        NB_TRY(disjoint(c, "key switch", o ? out1 : out0, L1, key, keys));
    }
    NB_TRY(modup_all(c, level, c->s_ext, in, 1, hook, stream));
    /* acc1's P limbs right after acc0's (both inside the two accumulators'
     * scratch), so that one NTT call serves both P parts */
    const size_t E = level + 1 + c->p->alpha;
    void *acc1_q = nb_ckks_at(c, c->s_acc1, c->p->alpha), *acc1_p = nb_ckks_at(c, c->s_acc0, E);
    NB_TRY(inner_product(c, level, c->s_acc0, acc1_q, acc1_p, c->s_ext, in, key, stream));
    NB_TRY(mark(hook, "inner-product", 0, 0, 0));
    return moddown_pair(c, level, out0, out1, c->s_acc0, acc1_q, hook, stream);
}

nb_status nb_ckks_rescale(nb_ckks *c, size_t level, nb_ckks_rounding rounding, void *out,
                          const void *in, const nb_ckks_hook *hook, void *stream)
{
    const size_t g = c ? c->p->rescale_primes : 1;
    NB_TRY(check_level(c, level, g, "rescale"));
    NB_TRY(check_ptrs("rescale", out, in, out, in));
    if (rounding != NB_CKKS_RESCALE_FLOOR && rounding != NB_CKKS_RESCALE_ROUND)
        return nb_set_error(NB_ERR_INVALID_ARG, "rescale: unknown rounding mode %d", (int)rounding);
    const size_t Q = c->p->q_count, keep = level + 1 - g;
    NB_TRY(disjoint(c, "rescale", out, keep, in, level + 1));
    NB_TRY(inverse_into(c, c->s_p, nb_ckks_at(c, in, keep), keep, g, 0, hook, stream));
    NB_TRY(rescale_bring(c, level, rounding == NB_CKKS_RESCALE_ROUND, c->s_t, c->s_p, stream));
    NB_TRY(mark(hook, "conv", 0, 0, 0));
    nb_limb_consts k = {c->base + c->k->prime_q, c->base + c->k->ql_inv + level * Q,
                        c->base + c->k->ql_inv_shoup + level * Q};
    return forward_sub_mul(c, c->s_t, &k, out, in, keep, hook, stream);
}

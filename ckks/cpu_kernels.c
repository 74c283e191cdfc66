/* CPU kernels of the CKKS pipelines: fast base conversion (128-bit
 * accumulation, one Barrett reduction per output in the usual case), the
 * key-switch inner product, and the elementwise steps of modDown and
 * rescale, on 64-bit or 32-bit words. Each kernel is written once over a
 * word-size constant (ld/st below) that the compiler folds in each of its
 * two instances; the arithmetic is ntt/arith.h's 64-bit one for both word
 * sizes (a 32-bit residue is a 64-bit one below 2^31), the same the GPU
 * kernels run on 64-bit words. OpenMP over coefficients or limbs. */
#include "ckks/consts.h"
#include "ntt/arith.h"

#define CONV_BLOCK 16 /* coefficients per conversion block */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

typedef unsigned __int128 u128;

static inline uint64_t reduce_u128(u128 x, uint64_t q, uint64_t mu_lo, uint64_t mu_hi)
{
    return nb_reduce_128((uint64_t)x, (uint64_t)(x >> 64), q, mu_lo, mu_hi);
}

/* Word i of p, on 32-bit (w32) or 64-bit words. */
ALWAYS_INLINE uint64_t ld(const void *p, size_t i, int w32)
{
    return w32 ? ((const uint32_t *)p)[i] : ((const uint64_t *)p)[i];
}

ALWAYS_INLINE void st(void *p, size_t i, uint64_t x, int w32)
{
    if (w32)
        ((uint32_t *)p)[i] = (uint32_t)x;
    else
        ((uint64_t *)p)[i] = x;
}

/* p advanced by i words. */
ALWAYS_INLINE const void *adv(const void *p, size_t i, int w32)
{
    return (const char *)p + i * (w32 ? 4 : 8);
}

ALWAYS_INLINE void conv_impl(const nb_conv_view *v, void *out, const void *in, size_t n,
                             const int w32)
{
    const size_t nf = v->n_from, nt = v->n_to;
    const size_t blocks = (n + CONV_BLOCK - 1) / CONV_BLOCK;
#pragma omp parallel for schedule(static)
    for (size_t blk = 0; blk < blocks; blk++) {
        uint64_t y[256 * CONV_BLOCK];
        const size_t c0 = blk * CONV_BLOCK;
        const size_t w = n - c0 < CONV_BLOCK ? n - c0 : CONV_BLOCK;
        /* phase 1: y_i = [x_i * qhat_i^-1]_{q_i} */
        for (size_t i = 0; i < nf; i++) {
            const uint64_t q = v->from_q[i], s = v->qhat_inv[i], ss = v->qhat_inv_shoup[i];
            for (size_t c = 0; c < w; c++)
                y[i * CONV_BLOCK + c] = nb_mul_shoup(ld(in, i * n + c0 + c, w32), s, ss, q);
        }
        /* phase 2: out_j = sum_i y_i * (qhat_i mod b_j) mod b_j */
        for (size_t j = 0; j < nt; j++) {
            const uint64_t b = v->to_q[j], ml = v->to_mu_lo[j], mh = v->to_mu_hi[j];
            const uint64_t *row = v->qhat_mod + j * nf;
            const size_t o = v->out_limb[j] * n + c0;
            for (size_t c = 0; c < w; c++) {
                u128 acc = 0;
                uint32_t k = 0;
                for (size_t i = 0; i < nf; i++) {
                    acc += (u128)y[i * CONV_BLOCK + c] * row[i];
                    if (++k == v->chunk && i + 1 < nf) {
                        acc = reduce_u128(acc, b, ml, mh);
                        k = 0;
                    }
                }
                st(out, o + c, reduce_u128(acc, b, ml, mh), w32);
            }
        }
    }
}

nb_status nb_cpu_conv(const nb_conv_view *v, void *out, const void *in, size_t n,
                      unsigned word_bits)
{
    const size_t nf = v->n_from;
    if (nf == 0 || nf > 256)
        return nb_set_error(NB_ERR_INVALID_ARG, "base conversion: %zu source primes (1..256)", nf);
    if (word_bits == 32)
        conv_impl(v, out, in, n, 1);
    else
        conv_impl(v, out, in, n, 0);
    return NB_OK;
}

ALWAYS_INLINE void sub_mul_impl(const nb_limb_consts *k, void *out, const void *a,
                                const void *b, size_t count, size_t n, const int w32)
{
#pragma omp parallel for schedule(static) if (count > 1)
    for (size_t i = 0; i < count; i++) {
        const uint64_t q = k->q[i], w = k->w[i], ws = k->w_shoup[i];
        for (size_t c = i * n; c < (i + 1) * n; c++)
            st(out, c, nb_mul_shoup(nb_sub_mod(ld(a, c, w32), ld(b, c, w32), q), w, ws, q), w32);
    }
}

nb_status nb_cpu_sub_mul(const nb_limb_consts *k, void *out, const void *a, const void *b,
                         size_t count, size_t n, unsigned word_bits)
{
    if (word_bits == 32)
        sub_mul_impl(k, out, a, b, count, n, 1);
    else
        sub_mul_impl(k, out, a, b, count, n, 0);
    return NB_OK;
}

ALWAYS_INLINE void bring_impl(const nb_bring_args *g, void *t, const void *r, const int w32)
{
    const size_t n = g->n;
    const void *r1 = adv(r, n, w32);
#pragma omp parallel for schedule(static) if (g->count > 1)
    for (size_t i = 0; i < g->count; i++) {
        const uint64_t qi = g->q[i], ml = g->mu_lo[i], mh = g->mu_hi[i];
        const uint64_t hi = g->h ? g->h[i] : 0;
        for (size_t c = 0; c < n; c++) {
            const uint64_t R = nb_bring_compose(g, ld(r, c, w32), g->drop == 2 ? ld(r1, c, w32) : 0);
            st(t, i * n + c, nb_sub_mod(nb_reduce_64(R, qi, ml, mh), hi, qi), w32);
        }
    }
}

nb_status nb_cpu_rescale_bring(const nb_bring_args *g, void *t, const void *r)
{
    if (g->drop != 1 && g->drop != 2)
        return nb_set_error(NB_ERR_INVALID_ARG, "rescale: %u dropped primes (1 or 2)", g->drop);
    if (g->word_bits == 32)
        bring_impl(g, t, r, 1);
    else
        bring_impl(g, t, r, 0);
    return NB_OK;
}

ALWAYS_INLINE void inner_product_impl(const nb_ip_geom *g, void *acc0, void *acc1, void *acc1_p,
                                      const void *ext, const void *in, const void *key,
                                      const int w32)
{
    const size_t n = g->n, L1 = g->level + 1, E = g->ext_limbs;
    const size_t key_poly = g->q_count + g->alpha; /* limbs of one key component */
    const size_t m0 = g->limbs ? g->first_limb : 0, m1 = g->limbs ? m0 + g->limbs : E;
#pragma omp parallel for schedule(static)
    for (size_t m = m0; m < m1; m++) {
        const size_t pm = m < L1 ? m : g->q_count + (m - L1);
        const uint64_t q = g->prime_q[pm], ml = g->prime_mu_lo[pm], mh = g->prime_mu_hi[pm];
        const void *src[64];
        const void *k0[64], *k1[64];
        for (size_t j = 0, off = 0; j < g->digits; j++) {
            size_t lo;
            const size_t own = nb_ip_digit_own(g, j, &lo);
            const int in_digit = in && m >= lo && m < lo + own;
            const size_t pos = !g->packed ? j * E + m : off + (m < lo ? m : m - own);
            off += E - own;
            src[j] = in_digit ? adv(in, m * n, w32) : adv(ext, pos * n, w32);
            k0[j] = adv(key, ((2 * j) * key_poly + pm) * n, w32);
            k1[j] = adv(key, ((2 * j + 1) * key_poly + pm) * n, w32);
        }
        void *d1 = (void *)(m < L1 ? adv(acc1, m * n, w32) : adv(acc1_p, (m - L1) * n, w32));
        for (size_t c = 0; c < n; c++) {
            u128 s0 = 0, s1 = 0;
            uint32_t cnt = 0;
            for (size_t j = 0; j < g->digits; j++) {
                const uint64_t x = ld(src[j], c, w32);
                s0 += (u128)x * ld(k0[j], c, w32);
                s1 += (u128)x * ld(k1[j], c, w32);
                if (++cnt == g->chunk && j + 1 < g->digits) {
                    s0 = reduce_u128(s0, q, ml, mh);
                    s1 = reduce_u128(s1, q, ml, mh);
                    cnt = 0;
                }
            }
            st(acc0, m * n + c, reduce_u128(s0, q, ml, mh), w32);
            st(d1, c, reduce_u128(s1, q, ml, mh), w32);
        }
    }
}

nb_status nb_cpu_inner_product(const nb_ip_geom *g, void *acc0, void *acc1, void *acc1_p,
                               const void *ext, const void *in, const void *key)
{
    if (g->word_bits == 32)
        inner_product_impl(g, acc0, acc1, acc1_p, ext, in, key, 1);
    else
        inner_product_impl(g, acc0, acc1, acc1_p, ext, in, key, 0);
    return NB_OK;
}

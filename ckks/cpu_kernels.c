/* CPU kernels of the CKKS pipelines: fast base conversion (128-bit
 * accumulation, one Barrett reduction per output in the usual case), the
 * key-switch inner product, and the elementwise steps of modDown and
 * rescale. OpenMP over coefficients or limbs; the arithmetic is ntt/arith.h,
 * the same the GPU kernels run. */
#include "ckks/consts.h"
#include "ntt/arith.h"

#define CONV_BLOCK 16 /* coefficients per conversion block */

typedef unsigned __int128 u128;

static inline uint64_t reduce_u128(u128 x, uint64_t q, uint64_t mu_lo, uint64_t mu_hi)
{
    return nb_reduce_128((uint64_t)x, (uint64_t)(x >> 64), q, mu_lo, mu_hi);
}

nb_status nb_cpu_conv(const nb_conv_view *v, uint64_t *out, const uint64_t *in, size_t n)
{
    const size_t nf = v->n_from, nt = v->n_to;
    if (nf == 0 || nf > 256)
        return nb_set_error(NB_ERR_INVALID_ARG, "base conversion: %zu source primes (1..256)", nf);
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
                y[i * CONV_BLOCK + c] = nb_mul_shoup(in[i * n + c0 + c], s, ss, q);
        }
        /* phase 2: out_j = sum_i y_i * (qhat_i mod b_j) mod b_j */
        for (size_t j = 0; j < nt; j++) {
            const uint64_t b = v->to_q[j], ml = v->to_mu_lo[j], mh = v->to_mu_hi[j];
            const uint64_t *row = v->qhat_mod + j * nf;
            uint64_t *o = out + v->out_limb[j] * n + c0;
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
                o[c] = reduce_u128(acc, b, ml, mh);
            }
        }
    }
    return NB_OK;
}

nb_status nb_cpu_sub_mul(const nb_limb_consts *k, uint64_t *out, const uint64_t *a,
                         const uint64_t *b, size_t count, size_t n)
{
#pragma omp parallel for schedule(static) if (count > 1)
    for (size_t i = 0; i < count; i++) {
        const uint64_t q = k->q[i], w = k->w[i], ws = k->w_shoup[i];
        const uint64_t *ai = a + i * n, *bi = b + i * n;
        uint64_t *oi = out + i * n;
        for (size_t c = 0; c < n; c++)
            oi[c] = nb_mul_shoup(nb_sub_mod(ai[c], bi[c], q), w, ws, q);
    }
    return NB_OK;
}

nb_status nb_cpu_rescale_bring(uint64_t *t, const uint64_t *r, uint64_t q_l, uint64_t h_l,
                               const uint64_t *q, const uint64_t *mu_lo, const uint64_t *mu_hi,
                               const uint64_t *h, size_t count, size_t n)
{
#pragma omp parallel for schedule(static) if (count > 1)
    for (size_t i = 0; i < count; i++) {
        const uint64_t qi = q[i], ml = mu_lo[i], mh = mu_hi[i];
        uint64_t *ti = t + i * n;
        if (h) {
            const uint64_t hi = h[i];
            for (size_t c = 0; c < n; c++) {
                uint64_t x = nb_add_mod(r[c], h_l, q_l);
                ti[c] = nb_sub_mod(nb_reduce_64(x, qi, ml, mh), hi, qi);
            }
        } else {
            for (size_t c = 0; c < n; c++)
                ti[c] = nb_reduce_64(r[c], qi, ml, mh);
        }
    }
    return NB_OK;
}

nb_status nb_cpu_inner_product(const nb_ip_geom *g, uint64_t *acc0, uint64_t *acc1,
                               uint64_t *acc1_p, const uint64_t *ext, const uint64_t *in,
                               const uint64_t *key)
{
    const size_t n = g->n, L1 = g->level + 1, E = g->ext_limbs;
    const size_t key_poly = g->q_count + g->alpha; /* limbs of one key component */
#pragma omp parallel for schedule(static)
    for (size_t m = 0; m < E; m++) {
        const size_t pm = m < L1 ? m : g->q_count + (m - L1);
        const uint64_t q = g->prime_q[pm], ml = g->prime_mu_lo[pm], mh = g->prime_mu_hi[pm];
        const uint64_t *src[64];
        const uint64_t *k0[64], *k1[64];
        for (size_t j = 0; j < g->digits; j++) {
            const size_t first = j * g->alpha_digit;
            const size_t end = first + g->alpha_digit < L1 ? first + g->alpha_digit : L1;
            const int in_digit = in && m >= first && m < end;
            const size_t pos = !g->packed ? j * E + m
                                          : j * L1 + (m < first ? m : m - (end - first));
            src[j] = in_digit ? in + m * n : ext + pos * n;
            k0[j] = key + ((2 * j) * key_poly + pm) * n;
            k1[j] = key + ((2 * j + 1) * key_poly + pm) * n;
        }
        uint64_t *d1 = m < L1 ? acc1 + m * n : acc1_p + (m - L1) * n;
        for (size_t c = 0; c < n; c++) {
            u128 s0 = 0, s1 = 0;
            uint32_t cnt = 0;
            for (size_t j = 0; j < g->digits; j++) {
                const uint64_t x = src[j][c];
                s0 += (u128)x * k0[j][c];
                s1 += (u128)x * k1[j][c];
                if (++cnt == g->chunk && j + 1 < g->digits) {
                    s0 = reduce_u128(s0, q, ml, mh);
                    s1 = reduce_u128(s1, q, ml, mh);
                    cnt = 0;
                }
            }
            acc0[m * n + c] = reduce_u128(s0, q, ml, mh);
            d1[c] = reduce_u128(s1, q, ml, mh);
        }
    }
    return NB_OK;
}

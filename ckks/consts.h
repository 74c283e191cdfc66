/* Internal to ckks/: the precomputed constants of a parameter set, and the
 * interface between the backend-independent pipelines (pipeline.c) and the
 * CPU (cpu_kernels.c) and GPU (gpu_kernels.cu) kernels.
 *
 * All constants live in one array of 64-bit words (the "blob") addressed by
 * word offsets, so the GPU copy is one upload and host and device share one
 * layout: a view (pointers) is the blob base plus the offsets. */
#ifndef NB_CKKS_CONSTS_H
#define NB_CKKS_CONSTS_H

#include <stddef.h>
#include <stdint.h>

#include "ckks/ckks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A fast base conversion C -> B as word offsets into the blob. */
typedef struct nb_conv_desc {
    uint32_t n_from, n_to;
    uint32_t chunk;          /* products accumulated in 128 bits between reductions */
    size_t from_q;           /* [n_from] c_i                                        */
    size_t qhat_inv;         /* [n_from] (C/c_i)^-1 mod c_i                          */
    size_t qhat_inv_shoup;   /* [n_from] its Shoup value                             */
    size_t to_q;             /* [n_to]   b_j                                         */
    size_t to_mu_lo, to_mu_hi; /* [n_to] Barrett floor(2^128 / b_j)                  */
    size_t out_limb;         /* [n_to]   output limb index of target j               */
    size_t qhat_mod;         /* [n_to * n_from] (C/c_i) mod b_j at j*n_from + i      */
    /* Montgomery form of the table (GPU kernel): one 128-bit sum per output
     * reduced by nb_redc_128 to r < 2^redc_steps b_j, then brought below b_j
     * by conditional subtractions of b_j 2^s, s = redc_steps - 1 .. 0;
     * redc_steps = 0 when n_from products could leave nb_redc_128's domain. */
    size_t qhat_mont;        /* [n_to * n_from] (C/c_i) 2^64 mod b_j                 */
    size_t to_neg_inv;       /* [n_to]   -b_j^-1 mod 2^64                            */
    uint32_t redc_steps;
} nb_conv_desc;

/* The same as pointers (host or device); passed to kernels by value. A view
 * may use only the first n_to targets of its table (P -> Q_l). */
typedef struct nb_conv_view {
    uint32_t n_from, n_to, chunk;
    const uint64_t *from_q, *qhat_inv, *qhat_inv_shoup;
    const uint64_t *to_q, *to_mu_lo, *to_mu_hi, *out_limb;
    const uint64_t *qhat_mod;
    const uint64_t *qhat_mont, *to_neg_inv;
    uint32_t redc_steps;
} nb_conv_view;

typedef struct nb_ckks_consts {
    uint64_t *blob;
    size_t words, cap;
    /* every prime of the full layout q_0..q_L, p_0..p_(alpha-1) */
    size_t prime_q, prime_mu_lo, prime_mu_hi; /* [L+1+alpha] */
    uint32_t ip_chunk;      /* inner product: products per 128-bit partial sum */
    size_t identity;        /* [L+1+alpha] 0, 1, 2, ...: out_limb of a packed modUp */
    nb_conv_desc *modup;    /* [(L+1) * dnum]: level l, digit j at l*dnum + j  */
    nb_conv_desc moddown;   /* P -> Q_L (level l uses targets 0..l)            */
    size_t p_inv, p_inv_shoup;   /* [L+1] P^-1 mod q_i                          */
    size_t ql_inv, ql_inv_shoup; /* [(L+1)^2] row l: q_l^-1 mod q_i, i < l      */
    size_t ql_half;              /* [(L+1)^2] row l: floor(q_l/2) mod q_i, i <= l */
} nb_ckks_consts;

static inline nb_conv_view nb_conv_view_at(const nb_conv_desc *d, const uint64_t *base,
                                           uint32_t n_to)
{
    nb_conv_view v;
    v.n_from = d->n_from;
    v.n_to = n_to;
    v.chunk = d->chunk;
    v.from_q = base + d->from_q;
    v.qhat_inv = base + d->qhat_inv;
    v.qhat_inv_shoup = base + d->qhat_inv_shoup;
    v.to_q = base + d->to_q;
    v.to_mu_lo = base + d->to_mu_lo;
    v.to_mu_hi = base + d->to_mu_hi;
    v.out_limb = base + d->out_limb;
    v.qhat_mod = base + d->qhat_mod;
    v.qhat_mont = base + d->qhat_mont;
    v.to_neg_inv = base + d->to_neg_inv;
    v.redc_steps = d->redc_steps;
    return v;
}

/* Builds a conversion table from c[0..n_from) to b[0..n_to) into `blob`
 * (growing it); out_limb may be NULL (identity). Host arithmetic. */
nb_status nb_conv_desc_build(nb_ckks_consts *k, nb_conv_desc *d, const uint64_t *c,
                             size_t n_from, const uint64_t *b, size_t n_to,
                             const uint32_t *out_limb);

/* Largest number of products x*y (x < max_a, y < max_b) that can be added to
 * a value below max_b in 128 bits without overflow (at least 1). */
uint32_t nb_conv_chunk(uint64_t max_a, uint64_t max_b);

/* The least S with nb_redc_128 of any sum of `count` products x*y (x < max_a,
 * y < b <= max_b) below 2^S b, if b 2^(S-1) <= 2^63; 0 when such a sum can
 * leave nb_redc_128's domain or no such S exists. */
uint32_t nb_conv_redc_steps(uint64_t max_a, uint64_t max_b, size_t count);

/* ---- kernels (backend-specific; the pipelines dispatch on the backend) ---- */

/* One or two polynomials of the same shape for one GPU launch (the key
 * switch's pair): out[p] from a[p] (and b[p] where the kernel takes two
 * inputs), p < count. */
#define NB_POLYS 2
typedef struct nb_polys {
    uint64_t *out[NB_POLYS];
    const uint64_t *a[NB_POLYS], *b[NB_POLYS];
    unsigned count; /* 1..NB_POLYS */
} nb_polys;

/* Per-limb scalar data for elementwise kernels. */
typedef struct nb_limb_consts {
    const uint64_t *q;              /* [count] modulus of each limb            */
    const uint64_t *w, *w_shoup;    /* [count] multiplier and its Shoup value  */
} nb_limb_consts;

/* Inner-product geometry at one level. */
typedef struct nb_ip_geom {
    size_t n, level, ext_limbs; /* ext_limbs = l+1+alpha */
    size_t q_count, alpha;      /* L+1, alpha */
    size_t digits, alpha_digit; /* digits at this level, alpha */
    int packed;                 /* ext in the key switch's packed layout (needs in) */
    uint32_t chunk;
    const uint64_t *prime_q, *prime_mu_lo, *prime_mu_hi; /* full layout [L+1+alpha] */
} nb_ip_geom;

/* out[limb t of v] = Conv of in (v.n_from limbs) for t < v.n_to; limb t is
 * written at out + v.out_limb[t] * n. */
nb_status nb_cpu_conv(const nb_conv_view *v, uint64_t *out, const uint64_t *in, size_t n);
/* out_i = (a_i - b_i) * w_i mod q_i for limbs i < count. */
nb_status nb_cpu_sub_mul(const nb_limb_consts *k, uint64_t *out, const uint64_t *a,
                         const uint64_t *b, size_t count, size_t n);
/* t_i = [r + h_l]_{q_l} - h_i mod q_i for i < count, r one limb mod q_l (coefficient
 * form); h = NULL: t_i = r mod q_i. mu_lo/mu_hi: Barrett constants of q_i. */
nb_status nb_cpu_rescale_bring(uint64_t *t, const uint64_t *r, uint64_t q_l, uint64_t h_l,
                               const uint64_t *q, const uint64_t *mu_lo, const uint64_t *mu_hi,
                               const uint64_t *h, size_t count, size_t n);
/* acc_k[m] = sum_j E_j[m] * key[j][k][pm] with E_j[m] = in[m] for m inside digit
 * j when in != NULL, else ext[j][m]. ext[j][m] is at ext + (j E + m) N, or in
 * the packed layout (g->packed) at ext + (j (l+1) + m') N, m' = m below the
 * digit and m - count_j above it (count_j: the digit's limbs). acc0 holds its
 * E limbs in order; acc1 its l+1 Q limbs at acc1 and its alpha P limbs at
 * acc1_p (acc1 + (l+1) N: in order). */
nb_status nb_cpu_inner_product(const nb_ip_geom *g, uint64_t *acc0, uint64_t *acc1,
                               uint64_t *acc1_p, const uint64_t *ext, const uint64_t *in,
                               const uint64_t *key);

#ifdef NB_HAVE_CUDA
/* Raises the conversion kernel's shared-memory limit for n_from source primes
 * on the current device (host call; done at plan creation so no timed or
 * captured call makes it; remembered per device, thread-safe). */
nb_status nb_gpu_conv_reserve(size_t n_from);
/* nb_cpu_conv of io->a[p] into io->out[p] for each polynomial p. */
nb_status nb_gpu_conv(const nb_conv_view *v, const nb_polys *io, size_t n, void *stream);
/* nb_cpu_sub_mul of (io->out[p], io->a[p], io->b[p]) for each polynomial p. */
nb_status nb_gpu_sub_mul(const nb_limb_consts *k, const nb_polys *io, size_t count, size_t n,
                         void *stream);
nb_status nb_gpu_rescale_bring(uint64_t *t, const uint64_t *r, uint64_t q_l, uint64_t h_l,
                               const uint64_t *q, const uint64_t *mu_lo, const uint64_t *mu_hi,
                               const uint64_t *h, size_t count, size_t n, void *stream);
nb_status nb_gpu_inner_product(const nb_ip_geom *g, uint64_t *acc0, uint64_t *acc1,
                               uint64_t *acc1_p, const uint64_t *ext, const uint64_t *in,
                               const uint64_t *key, void *stream);
nb_status nb_gpu_copy(uint64_t *dst, const uint64_t *src, size_t words, void *stream);
#endif

#ifdef __cplusplus
}
#endif
#endif

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
#include "ntt/arith.h"

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
    /* 32-bit words (targets below 2^31, else 0): 2^32 and 2^64 mod b_j, the
     * 32-bit Shoup value of 2^32 mod b_j and floor(2^32 / b_j) */
    size_t to_r32, to_r64, to_r32_shoup, to_one_shoup; /* [n_to] */
    /* every prime below 2^31 (tc = 1): the tensor-core table (nb_conv_tc_fill)
     * and a record per target, four words at an even offset: b_j + 2^32
     * floor(2^32/b_j), r + 2^32 floor(r 2^32/b_j) for r = 2^16 mod b_j, 2^32
     * mod b_j + 2^32 (2^64 mod b_j), the 32-bit Shoup value of 2^32 mod b_j */
    uint32_t tc;
    size_t tc_frag; /* [nb_conv_tc_words(n_from, n_to)] */
    size_t tc_epi;  /* [4 n_to] */
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
    const uint64_t *to_r32, *to_r64, *to_r32_shoup, *to_one_shoup;
    /* the tensor-core table (NULL: none) from the group of 8 targets holding
     * this view's first target, tc_first of whose targets precede it, and
     * the view's first target's record */
    const uint64_t *tc_frag, *tc_epi;
    uint32_t tc_first;
} nb_conv_view;

typedef struct nb_ckks_consts {
    uint64_t *blob;
    size_t words, cap;
    /* every prime of the full layout q_0..q_L, p_0..p_(alpha-1) */
    size_t prime_q, prime_mu_lo, prime_mu_hi; /* [L+1+alpha] */
    /* [L+1+alpha] for primes below 2^31 (0 above): 2^32 mod q, its 32-bit Shoup
     * value, and floor(2^32 / q) (the Shoup value of 1): 32-bit reductions */
    size_t prime_r32, prime_r32_shoup, prime_one_shoup;
    uint32_t ip_chunk;      /* inner product: products per 128-bit partial sum */
    size_t identity;        /* [L+1+alpha] 0, 1, 2, ...: out_limb of a packed modUp */
    nb_conv_desc *modup;    /* [(L+1) * dnum]: level l, digit j at l*dnum + j  */
    nb_conv_desc moddown;   /* P -> Q_L (level l uses targets 0..l)            */
    size_t p_inv, p_inv_shoup;   /* [L+1] P^-1 mod q_i                          */
    /* rescale from level l >= g drops D_l = q_(l-g+1)..q_l (g = rescale_primes) */
    size_t ql_inv, ql_inv_shoup; /* [(L+1)^2] row l: D_l^-1 mod q_i, i <= l-g     */
    size_t ql_half;              /* [(L+1)^2] row l: floor(D_l/2) mod q_i, i <= l-g */
    size_t garner, garner_shoup; /* [L+1] at l (g = 2): q_(l-1)^-1 mod q_l         */
} nb_ckks_consts;

/* 64-bit words of the tensor-core table of a conversion from n_from to n_to
 * primes: 128 per (8 targets, 8 source primes), the counts rounded up. */
static inline size_t nb_conv_tc_words(size_t n_from, size_t n_to)
{
    return (n_to + 7) / 8 * ((n_from + 7) / 8) * 4 * 32;
}

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
    v.to_r32 = base + d->to_r32;
    v.to_r64 = base + d->to_r64;
    v.to_r32_shoup = base + d->to_r32_shoup;
    v.to_one_shoup = base + d->to_one_shoup;
    v.tc_frag = d->tc ? base + d->tc_frag : NULL;
    v.tc_epi = d->tc ? base + d->tc_epi : NULL;
    v.tc_first = 0;
    return v;
}

/* The view of v's targets [t0, t0 + count), target t0 + t written as limb t
 * of the output (out_limb = identity: the blob's 0, 1, 2, ...). */
static inline nb_conv_view nb_conv_view_targets(nb_conv_view v, uint32_t t0, uint32_t count,
                                                const uint64_t *identity)
{
    v.n_to = count;
    v.to_q += t0;
    v.to_mu_lo += t0;
    v.to_mu_hi += t0;
    v.to_neg_inv += t0;
    v.to_r32 += t0;
    v.to_r64 += t0;
    v.to_r32_shoup += t0;
    v.to_one_shoup += t0;
    v.qhat_mod += (size_t)t0 * v.n_from;
    v.qhat_mont += (size_t)t0 * v.n_from;
    if (v.tc_frag) { /* v covers its table from target 0 (tc_first = 0) */
        v.tc_frag += nb_conv_tc_words(v.n_from, t0 / 8 * 8);
        v.tc_epi += 4 * (size_t)t0;
        v.tc_first = t0 % 8;
    }
    v.out_limb = identity;
    return v;
}

/* dst[nb_conv_tc_words(n_from, n_to)] = the B fragments of the tensor-core
 * conversion for the table qhat_mod[j * n_from + i] = (C/c_i) mod b_j, every
 * b_j below 2^31: at ((tile ks + step) 4 + byte) 32 + lane (ks = n_from / 8
 * rounded up) the two words lane holds for targets 8 tile.., source primes
 * 8 step.. and that byte of T'; zero past n_from or n_to. epi[4 n_to] = the
 * targets' records (nb_conv_desc.tc_epi). Host arithmetic. */
void nb_conv_tc_fill(uint64_t *dst, uint64_t *epi, const uint64_t *qhat_mod, const uint64_t *b,
                     size_t n_from, size_t n_to);

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

/* pipeline.c: NB_OK when every prime of the set fits the variant's words
 * (64-bit words: any; 32-bit words: every prime below 2^31), else
 * NB_ERR_UNSUPPORTED with a message naming the variant, the set and its
 * largest prime's bits. The one-GPU and several-GPU pipelines both check
 * this before building anything. */
nb_status nb_ckks_check_words(const nb_ckks_params *params, const nb_ntt_variant *variant);

/* ---- kernels (backend-specific; the pipelines dispatch on the backend) ----
 * Data are words of word_bits (64 or 32) bits, every value below its prime;
 * constants come from the blob (64-bit words). 32-bit kernels need every
 * prime below 2^31. */

/* One or two polynomials of the same shape for one GPU launch (the key
 * switch's pair): out[p] from a[p] (and b[p] where the kernel takes two
 * inputs), p < count. */
#define NB_POLYS 2
typedef struct nb_polys {
    void *out[NB_POLYS];
    const void *a[NB_POLYS], *b[NB_POLYS];
    unsigned count;     /* 1..NB_POLYS */
    unsigned word_bits; /* 64 or 32 */
} nb_polys;

/* Per-limb scalar data for elementwise kernels. */
typedef struct nb_limb_consts {
    const uint64_t *q;              /* [count] modulus of each limb            */
    const uint64_t *w, *w_shoup;    /* [count] multiplier and its Shoup value  */
} nb_limb_consts;

/* A plan over the key switch's packed modUp targets (every digit's, at the
 * top level) is built only while they are at most this many times the
 * primes of the plan they come from (about dnum <= 4): each plan holds its
 * own twiddle tables, and with many digits each digit's own calls are large
 * already. */
#define NB_CKKS_EXT_PLAN_MAX_FACTOR 4

/* Inner-product geometry at one level. */
typedef struct nb_ip_geom {
    size_t n, level, ext_limbs; /* ext_limbs = l+1+alpha */
    size_t q_count, alpha;      /* L+1, alpha */
    size_t digits, alpha_digit; /* digits at this level, alpha */
    int packed;                 /* ext in the key switch's packed layout (needs in) */
    size_t first_limb, limbs;   /* the output limbs computed: [first_limb, first_limb + limbs);
                                   limbs = 0: all ext_limbs (first_limb ignored) */
    uint32_t chunk;
    unsigned word_bits;
    const uint64_t *prime_q, *prime_mu_lo, *prime_mu_hi; /* full layout [L+1+alpha] */
    size_t q_first;             /* the whole basis' index of Q limb 0 here (one GPU: 0) */
    int part;                   /* 1: one device's part of the basis (q_first, digit by digit
                                   offsets: nb_ip_digit_own); 0: the whole basis, where the
                                   GPU kernel takes the shorter form of the same offsets */
} nb_ip_geom;

/* Digit j's own Q limbs among the geometry's Q limbs [0, level+1), which are
 * limbs [q_first, q_first + level + 1) of the whole basis (digit j: its limbs
 * [j alpha_digit, (j+1) alpha_digit)): [*lo, *lo + the count returned).
 * The packed layout holds digit j's targets (the Q limbs below *lo, those
 * above the digit, then the P limbs) after those of every digit before it:
 * ext_limbs minus that digit's own count each. */
NB_HD size_t nb_ip_digit_own(const nb_ip_geom *g, size_t j, size_t *lo)
{
    const size_t L1 = g->level + 1, a = j * g->alpha_digit, b = a + g->alpha_digit;
    const size_t f = a > g->q_first ? a - g->q_first : 0;
    const size_t e = b > g->q_first ? b - g->q_first : 0;
    *lo = f < L1 ? f : L1;
    return (e < L1 ? e : L1) - *lo;
}

/* Rescale's bring step from level l: the dropped primes' residues r (drop
 * limbs, coefficient form: r_0 mod d0 at r, r_1 mod d1 at r + N) compose
 * to R = x mod D exactly (drop 2: R = r_0 + d0 [(r_1 - r_0) d0^-1]_{d1});
 * then t_i = [R + H]_D - (H mod q_i) mod q_i (rounding, h given) or
 * R mod q_i (floor, h = NULL), for the count targets q_i. D < 2^63. */
typedef struct nb_bring_args {
    unsigned drop;                  /* 1 or 2                                   */
    uint64_t d0, d1, D, H;          /* dropped primes, product, floor(D/2)      */
    uint64_t d1_mu_lo, d1_mu_hi;    /* Barrett constants of d1 (drop 2)         */
    uint64_t inv, inv_shoup;        /* d0^-1 mod d1 and its Shoup value         */
    const uint64_t *q, *mu_lo, *mu_hi; /* [count] targets, Barrett constants    */
    const uint64_t *h;              /* [count] H mod q_i, or NULL (floor)       */
    const uint64_t *r32, *r32_shoup, *one_shoup; /* [count] (32-bit words)       */
    size_t count, n;
    unsigned word_bits;
} nb_bring_args;

/* Rescale's bring step from level l (g = rescale_primes dropped) onto the
 * targets q_first..q_(first+count-1) (first + count <= l+1-g): the scalars
 * from the host blob, the arrays from `base` (the blob in the backend's
 * memory); round: add floor(D/2) first. */
nb_bring_args nb_bring_args_at(const nb_ckks_params *p, const uint64_t *base, size_t level,
                               int round, size_t first, size_t count, unsigned word_bits);

/* x mod D of one coefficient from its dropped residues r0 (mod d0) and r1
 * (mod d1, drop 2), plus H mod D when g->h is given: the one formula the
 * CPU and GPU bring steps share. Result in [0, D). */
NB_HD uint64_t nb_bring_compose(const nb_bring_args *g, uint64_t r0, uint64_t r1)
{
    uint64_t R = r0;
    if (g->drop == 2) {
        const uint64_t r0b = nb_reduce_64(r0, g->d1, g->d1_mu_lo, g->d1_mu_hi);
        const uint64_t u = nb_mul_shoup(nb_sub_mod(r1, r0b, g->d1), g->inv, g->inv_shoup, g->d1);
        R = r0 + g->d0 * u; /* < d0 + d0 (d1 - 1) = D */
    }
    if (g->h) {
        R += g->H; /* both below D < 2^63 */
        if (R >= g->D)
            R -= g->D;
    }
    return R;
}

/* out[limb t of v] = Conv of in (v.n_from limbs) for t < v.n_to; limb t is
 * written at out + v.out_limb[t] * n. */
nb_status nb_cpu_conv(const nb_conv_view *v, void *out, const void *in, size_t n,
                      unsigned word_bits);
/* out_i = (a_i - b_i) * w_i mod q_i for limbs i < count. */
nb_status nb_cpu_sub_mul(const nb_limb_consts *k, void *out, const void *a, const void *b,
                         size_t count, size_t n, unsigned word_bits);
/* t (count limbs) from r, as nb_bring_args says. */
nb_status nb_cpu_rescale_bring(const nb_bring_args *g, void *t, const void *r);
/* acc_k[m] = sum_j E_j[m] * key[j][k][pm] with E_j[m] = in[m] for m inside digit
 * j when in != NULL, else ext[j][m]. ext[j][m] is at ext + (j E + m) N, or in
 * the packed layout (g->packed) at ext + (j (l+1) + m') N, m' = m below the
 * digit and m - count_j above it (count_j: the digit's limbs). acc0 holds its
 * E limbs in order; acc1 its l+1 Q limbs at acc1 and its alpha P limbs at
 * acc1_p (acc1 + (l+1) N: in order). */
nb_status nb_cpu_inner_product(const nb_ip_geom *g, void *acc0, void *acc1, void *acc1_p,
                               const void *ext, const void *in, const void *key);

#ifdef NB_HAVE_CUDA
/* Raises the conversion kernel's shared-memory limit for n_from source primes
 * on the current device (host call; done at plan creation so no timed or
 * captured call makes it; remembered per device, thread-safe). */
nb_status nb_gpu_conv_reserve(size_t n_from);
/* nb_cpu_conv of io->a[p] into io->out[p] for each polynomial p. */
nb_status nb_gpu_conv(const nb_conv_view *v, const nb_polys *io, size_t n, void *stream);
/* The same on 32-bit words (called by nb_gpu_conv; gpu_conv32.cu). */
nb_status nb_gpu_conv32(const nb_conv_view *v, const nb_polys *io, size_t n, void *stream);
/* nb_cpu_sub_mul of (io->out[p], io->a[p], io->b[p]) for each polynomial p. */
nb_status nb_gpu_sub_mul(const nb_limb_consts *k, const nb_polys *io, size_t count, size_t n,
                         void *stream);
nb_status nb_gpu_rescale_bring(const nb_bring_args *g, void *t, const void *r, void *stream);
nb_status nb_gpu_inner_product(const nb_ip_geom *g, void *acc0, void *acc1, void *acc1_p,
                               const void *ext, const void *in, const void *key, void *stream);
nb_status nb_gpu_copy(void *dst, const void *src, size_t bytes, void *stream);
#endif

#ifdef __cplusplus
}
#endif
#endif

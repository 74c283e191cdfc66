/* The AVX2 passes of cpu-harvey32 (contracts in ntt/cpu_harvey32.h): the
 * butterflies of ntt/arith.h's 32-bit section on eight words at a time, so
 * that every output equals the scalar passes' bit for bit. Compiled for any
 * x86 CPU (functions carry target("avx2") instead of a -mavx2 flag) and
 * called only after __builtin_cpu_supports("avx2"), so the library still
 * runs on CPUs without AVX2.
 *
 * The Shoup product a w - floor(a ws / 2^32) q (mod 2^32): the high words of
 * a ws from two _mm256_mul_epu32 (even lanes, then odd lanes shifted down),
 * the low products from _mm256_mullo_epi32. The conditional subtraction
 * x - m if x >= m is _mm256_min_epu32(x, x - m), nb_csub32's trick.
 *
 * Wide strides (eight words or more between the two halves of a butterfly)
 * load whole vectors. The narrow passes keep a few groups in four vectors
 * and move words between lanes instead: 128-bit halves swapped (pairs four
 * apart), a 4x4 transpose of 64-bit pairs (pairs two apart) or of words
 * inside each 128-bit half (adjacent words), with the twiddles permuted into
 * the same lane order; the single inverse stage on adjacent words splits
 * even from odd words. */
#include "ntt/cpu_harvey32.h"

#if NB_HARVEY32_HAVE_AVX2
#include <immintrin.h>

#include "ntt/arith.h"

#define AVX2 __attribute__((target("avx2")))
/* inlined everywhere, so that a constant family folds its branches away */
#define INLINE static inline __attribute__((always_inline, target("avx2")))

/* The moduli a pass uses, broadcast, and its butterfly family. */
typedef struct {
    __m256i q, q2;
    int q31;
} mod;

INLINE mod mod_of(uint32_t q)
{
    mod m = {_mm256_set1_epi32((int)q), _mm256_set1_epi32((int)(q << 1)),
             (q >> NB_LAZY4_PRIME_BITS_32) != 0};
    return m;
}

/* nb_csub32 lane by lane. */
INLINE __m256i csub(__m256i x, __m256i m)
{
    return _mm256_min_epu32(x, _mm256_sub_epi32(x, m));
}

/* nb_mul_shoup32_lazy lane by lane: in [0, 2q). */
INLINE __m256i mul_shoup_lazy(__m256i a, __m256i w, __m256i ws, __m256i q)
{
    const __m256i even = _mm256_srli_epi64(_mm256_mul_epu32(a, ws), 32);
    const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(ws, 32));
    const __m256i hi = _mm256_blend_epi32(even, odd, 0xAA);
    return _mm256_sub_epi32(_mm256_mullo_epi32(a, w), _mm256_mullo_epi32(hi, q));
}

/* nb_ct_butterfly32 (Harvey) or nb_ct_butterfly32_q31, lane by lane. */
INLINE void ct(__m256i *x, __m256i *y, __m256i w, __m256i ws, mod m)
{
    if (m.q31) {
        const __m256i u = csub(*x, m.q);
        const __m256i t = csub(mul_shoup_lazy(*y, w, ws, m.q), m.q);
        *x = _mm256_add_epi32(u, t);
        *y = _mm256_add_epi32(_mm256_sub_epi32(u, t), m.q);
    } else {
        const __m256i u = csub(*x, m.q2);
        const __m256i t = mul_shoup_lazy(*y, w, ws, m.q);
        *x = _mm256_add_epi32(u, t);
        *y = _mm256_add_epi32(_mm256_sub_epi32(u, t), m.q2);
    }
}

/* nb_gs_butterfly32 (Harvey) or nb_gs_butterfly32_q31, lane by lane. */
INLINE void gs(__m256i *x, __m256i *y, __m256i w, __m256i ws, mod m)
{
    if (m.q31) {
        const __m256i u = csub(*x, m.q), v = csub(*y, m.q);
        *x = _mm256_add_epi32(u, v);
        *y = mul_shoup_lazy(_mm256_add_epi32(_mm256_sub_epi32(u, v), m.q), w, ws, m.q);
    } else {
        const __m256i u = *x, v = *y;
        *x = csub(_mm256_add_epi32(u, v), m.q2);
        *y = mul_shoup_lazy(_mm256_add_epi32(_mm256_sub_epi32(u, v), m.q2), w, ws, m.q);
    }
}

/* A forward output in the family's lazy range -> [0, q). */
INLINE __m256i reduce(__m256i x, mod m)
{
    return m.q31 ? csub(x, m.q) : csub(csub(x, m.q2), m.q);
}

INLINE __m256i load(const uint32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
/* p[0..4) in the low four lanes (the high four undefined) */
INLINE __m256i load4words(const uint32_t *p)
{
    return _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)p));
}
INLINE void store(uint32_t *p, __m256i v) { _mm256_storeu_si256((__m256i *)p, v); }
INLINE __m256i bcast(uint32_t x) { return _mm256_set1_epi32((int)x); }
/* lo in the low four lanes, hi in the high four */
INLINE __m256i halves(uint32_t lo, uint32_t hi)
{
    const int l = (int)lo, h = (int)hi;
    return _mm256_setr_epi32(l, l, l, l, h, h, h, h);
}
/* [a.low | b.low] and [a.high | b.high] */
INLINE __m256i lows(__m256i a, __m256i b) { return _mm256_permute2x128_si256(a, b, 0x20); }
INLINE __m256i highs(__m256i a, __m256i b) { return _mm256_permute2x128_si256(a, b, 0x31); }

/* Lanes permuted by idx (eight word indices). */
INLINE __m256i perm(__m256i x, int i0, int i1, int i2, int i3, int i4, int i5, int i6, int i7)
{
    return _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(i0, i1, i2, i3, i4, i5, i6, i7));
}

/* Four-word groups: v[k] holds groups 2k and 2k+1 of eight, one per 128-bit
 * half. After the transpose, v[j] holds word j of every group, groups in the
 * lane order 0 2 4 6 1 3 5 7 ("group order"). Its own inverse. */
INLINE void transpose_groups4(__m256i v[4])
{
    const __m256i t0 = _mm256_unpacklo_epi32(v[0], v[1]), t1 = _mm256_unpackhi_epi32(v[0], v[1]);
    const __m256i t2 = _mm256_unpacklo_epi32(v[2], v[3]), t3 = _mm256_unpackhi_epi32(v[2], v[3]);
    v[0] = _mm256_unpacklo_epi64(t0, t2);
    v[1] = _mm256_unpackhi_epi64(t0, t2);
    v[2] = _mm256_unpacklo_epi64(t1, t3);
    v[3] = _mm256_unpackhi_epi64(t1, t3);
}

/* Eight-word groups of four word pairs: v[k] holds group k. After the
 * transpose, v[j] holds pair j of groups 0 1 2 3 in order. Its own inverse. */
INLINE void transpose_groups8(__m256i v[4])
{
    const __m256i t0 = _mm256_unpacklo_epi64(v[0], v[1]), t1 = _mm256_unpackhi_epi64(v[0], v[1]);
    const __m256i t2 = _mm256_unpacklo_epi64(v[2], v[3]), t3 = _mm256_unpackhi_epi64(v[2], v[3]);
    v[0] = lows(t0, t2);
    v[1] = lows(t1, t3);
    v[2] = highs(t0, t2);
    v[3] = highs(t1, t3);
}

/* p[0..8), one twiddle per group of eight, in group order. */
INLINE __m256i group_order(const uint32_t *p) { return perm(load(p), 0, 2, 4, 6, 1, 3, 5, 7); }

/* p[0..16), two twiddles per group of eight (p[2g], p[2g+1]), in group
 * order: the first ones in *even, the second ones in *odd. */
INLINE void group_order_pairs(const uint32_t *p, __m256i *even, __m256i *odd)
{
    const __m256i p0 = perm(load(p), 0, 4, 1, 5, 2, 6, 3, 7);
    const __m256i p1 = perm(load(p + 8), 0, 4, 1, 5, 2, 6, 3, 7);
    *even = _mm256_unpacklo_epi64(p0, p1);
    *odd = _mm256_unpackhi_epi64(p0, p1);
}

INLINE void load4(__m256i v[4], const uint32_t *p)
{
    for (int k = 0; k < 4; k++)
        v[k] = load(p + 8 * k);
}

INLINE void store4(uint32_t *p, const __m256i v[4])
{
    for (int k = 0; k < 4; k++)
        store(p + 8 * k, v[k]);
}

INLINE void forward_radix2_body(uint32_t *a, const uint32_t *w, const uint32_t *ws,
                                            mod md, size_t m, size_t t, int last)
{
    for (size_t i = 0; i < m; i++) {
        const __m256i W = bcast(w[m + i]), Ws = bcast(ws[m + i]);
        uint32_t *x = a + 2 * i * t, *y = x + t;
        for (size_t j = 0; j < t; j += 8) {
            __m256i u = load(x + j), v = load(y + j);
            ct(&u, &v, W, Ws, md);
            if (last) {
                u = reduce(u, md);
                v = reduce(v, md);
            }
            store(x + j, u);
            store(y + j, v);
        }
    }
}

AVX2 void nb_harvey32_avx2_forward_radix2(uint32_t *a, const uint32_t *w, const uint32_t *ws,
                                          uint32_t q, size_t m, size_t t, int last)
{
    const mod md = mod_of(q);
    if (md.q31)
        forward_radix2_body(a, w, ws, (mod){md.q, md.q2, 1}, m, t, last);
    else
        forward_radix2_body(a, w, ws, (mod){md.q, md.q2, 0}, m, t, last);
}

/* The radix-4 pass with t = 8: group i is the 16 words a[16i ..], x0 x1 in
 * one vector, x2 x3 in the next. */
INLINE void forward_radix4_t8(uint32_t *a, const uint32_t *w, const uint32_t *ws,
                                          mod md, size_t m, int last)
{
    for (size_t i = 0; i < m; i++) {
        const __m256i W1 = bcast(w[m + i]), W1s = bcast(ws[m + i]);
        const __m256i W23 = halves(w[2 * m + 2 * i], w[2 * m + 2 * i + 1]);
        const __m256i W23s = halves(ws[2 * m + 2 * i], ws[2 * m + 2 * i + 1]);
        uint32_t *x = a + 16 * i;
        __m256i v01 = load(x), v23 = load(x + 8);
        ct(&v01, &v23, W1, W1s, md);
        __m256i v02 = lows(v01, v23), v13 = highs(v01, v23);
        ct(&v02, &v13, W23, W23s, md);
        if (last) {
            v02 = reduce(v02, md);
            v13 = reduce(v13, md);
        }
        store(x, lows(v02, v13));
        store(x + 8, highs(v02, v13));
    }
}

/* The radix-4 pass with t = 2 (group i is the four words a[4i ..]), eight
 * groups at a time, transposed so that each vector holds one word of each. */
INLINE void forward_radix4_t2(uint32_t *a, const uint32_t *w, const uint32_t *ws, mod md,
                              size_t m, int last)
{
    for (size_t i = 0; i < m; i += 8) {
        const __m256i W1 = group_order(w + m + i), W1s = group_order(ws + m + i);
        __m256i W2, W3, W2s, W3s, v[4];
        group_order_pairs(w + 2 * m + 2 * i, &W2, &W3);
        group_order_pairs(ws + 2 * m + 2 * i, &W2s, &W3s);
        load4(v, a + 4 * i);
        transpose_groups4(v);
        ct(&v[0], &v[2], W1, W1s, md);
        ct(&v[1], &v[3], W1, W1s, md);
        ct(&v[0], &v[1], W2, W2s, md);
        ct(&v[2], &v[3], W3, W3s, md);
        if (last)
            for (int k = 0; k < 4; k++)
                v[k] = reduce(v[k], md);
        transpose_groups4(v);
        store4(a + 4 * i, v);
    }
}

INLINE void forward_radix4_body(uint32_t *a, const uint32_t *w, const uint32_t *ws,
                                            mod md, size_t m, size_t t, int last)
{
    const size_t h = t >> 1;
    if (h == 1) {
        forward_radix4_t2(a, w, ws, md, m, last);
        return;
    }
    if (h == 4) {
        forward_radix4_t8(a, w, ws, md, m, last);
        return;
    }
    for (size_t i = 0; i < m; i++) {
        const __m256i W1 = bcast(w[m + i]), W1s = bcast(ws[m + i]);
        const __m256i W2 = bcast(w[2 * m + 2 * i]), W2s = bcast(ws[2 * m + 2 * i]);
        const __m256i W3 = bcast(w[2 * m + 2 * i + 1]), W3s = bcast(ws[2 * m + 2 * i + 1]);
        uint32_t *x0 = a + 2 * i * t, *x1 = x0 + h, *x2 = x0 + t, *x3 = x2 + h;
        for (size_t j = 0; j < h; j += 8) {
            __m256i a0 = load(x0 + j), a1 = load(x1 + j), a2 = load(x2 + j), a3 = load(x3 + j);
            ct(&a0, &a2, W1, W1s, md);
            ct(&a1, &a3, W1, W1s, md);
            ct(&a0, &a1, W2, W2s, md);
            ct(&a2, &a3, W3, W3s, md);
            if (last) {
                a0 = reduce(a0, md);
                a1 = reduce(a1, md);
                a2 = reduce(a2, md);
                a3 = reduce(a3, md);
            }
            store(x0 + j, a0);
            store(x1 + j, a1);
            store(x2 + j, a2);
            store(x3 + j, a3);
        }
    }
}

AVX2 void nb_harvey32_avx2_forward_radix4(uint32_t *a, const uint32_t *w, const uint32_t *ws,
                                          uint32_t q, size_t m, size_t t, int last)
{
    const mod md = mod_of(q);
    if (md.q31)
        forward_radix4_body(a, w, ws, (mod){md.q, md.q2, 1}, m, t, last);
    else
        forward_radix4_body(a, w, ws, (mod){md.q, md.q2, 0}, m, t, last);
}

/* The radix-4 pass with t = 1 (group i is the four words a[4i ..]), eight
 * groups at a time, transposed as in forward_radix4_t2. */
INLINE void inverse_radix4_t1(uint32_t *a, const uint32_t *w, const uint32_t *ws, mod md,
                              size_t h)
{
    for (size_t i = 0; i < (h >> 1); i += 8) {
        const __m256i W3 = group_order(w + (h >> 1) + i), W3s = group_order(ws + (h >> 1) + i);
        __m256i W1, W2, W1s, W2s, v[4];
        group_order_pairs(w + h + 2 * i, &W1, &W2);
        group_order_pairs(ws + h + 2 * i, &W1s, &W2s);
        load4(v, a + 4 * i);
        transpose_groups4(v);
        gs(&v[0], &v[1], W1, W1s, md);
        gs(&v[2], &v[3], W2, W2s, md);
        gs(&v[0], &v[2], W3, W3s, md);
        gs(&v[1], &v[3], W3, W3s, md);
        transpose_groups4(v);
        store4(a + 4 * i, v);
    }
}

/* The radix-4 pass with t = 2 (group i is the eight words a[8i ..]), four
 * groups at a time, transposed so that each vector holds one pair of each;
 * every twiddle fills the two lanes of its group's pair. */
INLINE void inverse_radix4_t2(uint32_t *a, const uint32_t *w, const uint32_t *ws, mod md,
                              size_t h)
{
    for (size_t i = 0; i < (h >> 1); i += 4) {
        const __m256i p = load(w + h + 2 * i), ps = load(ws + h + 2 * i);
        const __m256i W1 = perm(p, 0, 0, 2, 2, 4, 4, 6, 6), W1s = perm(ps, 0, 0, 2, 2, 4, 4, 6, 6);
        const __m256i W2 = perm(p, 1, 1, 3, 3, 5, 5, 7, 7), W2s = perm(ps, 1, 1, 3, 3, 5, 5, 7, 7);
        const __m256i p3 = load4words(w + (h >> 1) + i), p3s = load4words(ws + (h >> 1) + i);
        const __m256i W3 = perm(p3, 0, 0, 1, 1, 2, 2, 3, 3);
        const __m256i W3s = perm(p3s, 0, 0, 1, 1, 2, 2, 3, 3);
        __m256i v[4];
        load4(v, a + 8 * i);
        transpose_groups8(v);
        gs(&v[0], &v[1], W1, W1s, md);
        gs(&v[2], &v[3], W2, W2s, md);
        gs(&v[0], &v[2], W3, W3s, md);
        gs(&v[1], &v[3], W3, W3s, md);
        transpose_groups8(v);
        store4(a + 8 * i, v);
    }
}

/* The radix-4 pass with t = 4: group i is the 16 words a[16i ..], x0 x1 in
 * one vector, x2 x3 in the next. */
INLINE void inverse_radix4_t4(uint32_t *a, const uint32_t *w, const uint32_t *ws,
                                          mod md, size_t h)
{
    for (size_t i = 0; i < (h >> 1); i++) {
        const __m256i W12 = halves(w[h + 2 * i], w[h + 2 * i + 1]);
        const __m256i W12s = halves(ws[h + 2 * i], ws[h + 2 * i + 1]);
        const __m256i W3 = bcast(w[(h >> 1) + i]), W3s = bcast(ws[(h >> 1) + i]);
        uint32_t *x = a + 16 * i;
        const __m256i v01 = load(x), v23 = load(x + 8);
        __m256i v02 = lows(v01, v23), v13 = highs(v01, v23);
        gs(&v02, &v13, W12, W12s, md);
        __m256i u01 = lows(v02, v13), u23 = highs(v02, v13);
        gs(&u01, &u23, W3, W3s, md);
        store(x, u01);
        store(x + 8, u23);
    }
}

INLINE void inverse_radix4_body(uint32_t *a, const uint32_t *w, const uint32_t *ws,
                                            mod md, size_t h, size_t t)
{
    if (t == 1) {
        inverse_radix4_t1(a, w, ws, md, h);
        return;
    }
    if (t == 2) {
        inverse_radix4_t2(a, w, ws, md, h);
        return;
    }
    if (t == 4) {
        inverse_radix4_t4(a, w, ws, md, h);
        return;
    }
    for (size_t i = 0; i < (h >> 1); i++) {
        const __m256i W1 = bcast(w[h + 2 * i]), W1s = bcast(ws[h + 2 * i]);
        const __m256i W2 = bcast(w[h + 2 * i + 1]), W2s = bcast(ws[h + 2 * i + 1]);
        const __m256i W3 = bcast(w[(h >> 1) + i]), W3s = bcast(ws[(h >> 1) + i]);
        uint32_t *x0 = a + 4 * i * t, *x1 = x0 + t, *x2 = x1 + t, *x3 = x2 + t;
        for (size_t j = 0; j < t; j += 8) {
            __m256i a0 = load(x0 + j), a1 = load(x1 + j), a2 = load(x2 + j), a3 = load(x3 + j);
            gs(&a0, &a1, W1, W1s, md);
            gs(&a2, &a3, W2, W2s, md);
            gs(&a0, &a2, W3, W3s, md);
            gs(&a1, &a3, W3, W3s, md);
            store(x0 + j, a0);
            store(x1 + j, a1);
            store(x2 + j, a2);
            store(x3 + j, a3);
        }
    }
}

AVX2 void nb_harvey32_avx2_inverse_radix4(uint32_t *a, const uint32_t *w, const uint32_t *ws,
                                          uint32_t q, size_t h, size_t t)
{
    const mod md = mod_of(q);
    if (md.q31)
        inverse_radix4_body(a, w, ws, (mod){md.q, md.q2, 1}, h, t);
    else
        inverse_radix4_body(a, w, ws, (mod){md.q, md.q2, 0}, h, t);
}

/* The first inverse stage when it is a single one (t = 1: pairs of adjacent
 * words, h of them): sixteen words split into their even and odd words. */
INLINE void inverse_radix2_body(uint32_t *a, const uint32_t *w, const uint32_t *ws, mod md,
                                size_t h)
{
    for (size_t i = 0; i < h; i += 8) {
        const __m256i p0 = perm(load(a + 2 * i), 0, 2, 4, 6, 1, 3, 5, 7);
        const __m256i p1 = perm(load(a + 2 * i + 8), 0, 2, 4, 6, 1, 3, 5, 7);
        __m256i x = lows(p0, p1), y = highs(p0, p1);
        gs(&x, &y, load(w + h + i), load(ws + h + i), md);
        store(a + 2 * i, perm(lows(x, y), 0, 4, 1, 5, 2, 6, 3, 7));
        store(a + 2 * i + 8, perm(highs(x, y), 0, 4, 1, 5, 2, 6, 3, 7));
    }
}

AVX2 void nb_harvey32_avx2_inverse_radix2(uint32_t *a, const uint32_t *w, const uint32_t *ws,
                                          uint32_t q, size_t h, size_t t)
{
    const mod md = mod_of(q);
    (void)t;
    if (md.q31)
        inverse_radix2_body(a, w, ws, (mod){md.q, md.q2, 1}, h);
    else
        inverse_radix2_body(a, w, ws, (mod){md.q, md.q2, 0}, h);
}

/* The same arithmetic as the scalar inverse_last: inputs reduced below q
 * first, products fully reduced. */
AVX2 void nb_harvey32_avx2_inverse_last(uint32_t *a, uint32_t q, size_t t, uint32_t ninv,
                                        uint32_t ninv_s, uint32_t ninv_w, uint32_t ninv_ws)
{
    const __m256i vq = bcast(q);
    const __m256i N = bcast(ninv), Ns = bcast(ninv_s), NW = bcast(ninv_w), NWs = bcast(ninv_ws);
    uint32_t *x = a, *y = a + t;
    for (size_t j = 0; j < t; j += 8) {
        const __m256i u = csub(load(x + j), vq), v = csub(load(y + j), vq);
        const __m256i s = _mm256_add_epi32(u, v);
        const __m256i d = _mm256_add_epi32(_mm256_sub_epi32(u, v), vq);
        store(x + j, csub(mul_shoup_lazy(s, N, Ns, vq), vq));
        store(y + j, csub(mul_shoup_lazy(d, NW, NWs, vq), vq));
    }
}
#endif

/* Modular arithmetic on 64-bit and 32-bit words, shared by the CPU backend,
 * the GPU kernels and the tests, so that CPU tests exercise exactly the
 * arithmetic the kernels run. The 32-bit word functions (suffix 32) are at
 * the end.
 *
 * 64-bit words: odd primes q with 2 < q < 2^62 (NB_MAX_PRIME_BITS = 62).
 * The bound is the one the lazy (Harvey) butterflies need: the forward
 * butterfly keeps values in [0, 4q), so 4q must fit a 64-bit word, i.e.
 * q < 2^62. Shoup products are in [0, 2q) for any 64-bit multiplicand.
 *
 * Under nvcc every function is __host__ __device__; under a C compiler each is
 * a static inline function. Functions marked "host only" use 128-bit division
 * and exist only on the host; their results are precomputed into tables. */
#ifndef NB_ARITH_H
#define NB_ARITH_H

#include <stdint.h>

#if defined(__CUDACC__)
#define NB_HD __host__ __device__ __forceinline__
#define NB_HOST static inline __host__
#else
#define NB_HD static inline
#define NB_HOST static inline
#endif

#define NB_MAX_PRIME_BITS 62u
#define NB_MIN_PRIME_BITS 2u
#define NB_LAZY8_PRIME_BITS 61u /* primes of at most this many bits: 8q < 2^64 */

/* High 64 bits of the 128-bit product a*b. */
NB_HD uint64_t nb_mulhi(uint64_t a, uint64_t b)
{
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#else
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

/* Full 128-bit product: returns the low word, stores the high word in *hi. */
NB_HD uint64_t nb_mul_wide(uint64_t a, uint64_t b, uint64_t *hi)
{
#if defined(__CUDA_ARCH__)
    *hi = __umul64hi(a, b);
    return a * b;
#else
    unsigned __int128 p = (unsigned __int128)a * b;
    *hi = (uint64_t)(p >> 64);
    return (uint64_t)p;
#endif
}

/* a + b mod q for a, b in [0, q); result in [0, q). */
NB_HD uint64_t nb_add_mod(uint64_t a, uint64_t b, uint64_t q)
{
    uint64_t s = a + b;
    return s >= q ? s - q : s;
}

/* a - b mod q for a, b in [0, q); result in [0, q). */
NB_HD uint64_t nb_sub_mod(uint64_t a, uint64_t b, uint64_t q)
{
    return a >= b ? a - b : a + q - b;
}

/* -a mod q for a in [0, q). */
NB_HD uint64_t nb_neg_mod(uint64_t a, uint64_t q) { return a ? q - a : 0; }

/* x - m if x >= m, else x; for x in [0, 2m) with m <= 2^63 (so that x - m,
 * read as a signed word, is negative exactly when x < m). Tests one sign bit
 * instead of comparing two 64-bit words: one instruction fewer on the GPU. */
NB_HD uint64_t nb_csub(uint64_t x, uint64_t m)
{
    const int64_t d = (int64_t)(x - m); /* two's complement: well defined in gcc, clang, nvcc */
    return d < 0 ? x : (uint64_t)d;
}

/* x in [0, 2q) -> x mod q. */
NB_HD uint64_t nb_reduce_2q(uint64_t x, uint64_t q) { return nb_csub(x, q); }

/* x in [0, 4q) -> x mod q. */
NB_HD uint64_t nb_reduce_4q(uint64_t x, uint64_t q) { return nb_csub(nb_csub(x, q << 1), q); }

/* Barrett reduction of a 128-bit value (hi:lo) by q, with
 * mu = floor(2^128 / q) given as (mu_hi:mu_lo). Any 128-bit input; result in
 * [0, q). The quotient estimate is the exact high half of x*mu, which is at
 * most one below floor(x/q), so one conditional subtraction suffices. */
NB_HD uint64_t nb_reduce_128(uint64_t lo, uint64_t hi, uint64_t q, uint64_t mu_lo,
                             uint64_t mu_hi)
{
    uint64_t a_hi, b_hi, carry;
    /* x*mu = lo*mu_lo + (lo*mu_hi + hi*mu_lo) 2^64 + hi*mu_hi 2^128 */
    uint64_t p0_hi = nb_mulhi(lo, mu_lo);
    uint64_t a_lo = nb_mul_wide(lo, mu_hi, &a_hi);
    uint64_t b_lo = nb_mul_wide(hi, mu_lo, &b_hi);
    uint64_t mid = p0_hi + a_lo;
    carry = mid < p0_hi;
    uint64_t mid2 = mid + b_lo;
    carry += mid2 < mid;
    /* only the low word of the quotient is needed: the remainder is < 2q */
    uint64_t quot = hi * mu_hi + a_hi + b_hi + carry;
    uint64_t r = lo - quot * q; /* true remainder + (0 or q) < 2^63 */
    return r >= q ? r - q : r;
}

/* Barrett reduction of a 64-bit value: x mod q for any x. */
NB_HD uint64_t nb_reduce_64(uint64_t x, uint64_t q, uint64_t mu_lo, uint64_t mu_hi)
{
    return nb_reduce_128(x, 0, q, mu_lo, mu_hi);
}

/* a * b mod q for any 64-bit a, b (typically in [0, q)); result in [0, q). */
NB_HD uint64_t nb_mul_mod(uint64_t a, uint64_t b, uint64_t q, uint64_t mu_lo,
                          uint64_t mu_hi)
{
    uint64_t hi, lo = nb_mul_wide(a, b, &hi);
    return nb_reduce_128(lo, hi, q, mu_lo, mu_hi);
}

/* -q^-1 mod 2^64 for odd q (Newton's iteration doubles the correct low bits:
 * q * q = 1 mod 8, then 6, 12, 24, 48, 96 bits). */
NB_HD uint64_t nb_neg_inv_2_64(uint64_t q)
{
    uint64_t x = q;
    for (int i = 0; i < 5; i++)
        x *= 2 - q * x;
    return 0 - x;
}

/* Montgomery reduction of a 128-bit S = hi 2^64 + lo by an odd q with
 * q_neg_inv = -q^-1 mod 2^64: returns r = (S + m q) / 2^64 with
 * m = lo q_neg_inv mod 2^64, so r = S 2^-64 (mod q) and r < S / 2^64 + q.
 * Domain: S + (2^64 - 1) q < 2^128 (e.g. hi < 2^64 - q). Not reduced below
 * q: the caller subtracts q as often as its bound on S needs. */
NB_HD uint64_t nb_redc_128(uint64_t lo, uint64_t hi, uint64_t q, uint64_t q_neg_inv)
{
    const uint64_t m = lo * q_neg_inv;
    /* lo + (m q mod 2^64) is 0 or 2^64: it carries exactly when lo != 0 */
    return hi + nb_mulhi(m, q) + (lo != 0);
}

/* a * w - quot * q mod 2^64 for any 64-bit words, built from 32-bit halves:
 * one 32 x 32 -> 64-bit product of the low halves, a second one accumulated
 * into it (quot times -q), and the four cross terms that reach the high
 * word. On sm_90 that is six multiply-adds, against ten for two 64-bit
 * products and a subtraction. The GPU's Shoup product uses it. */
NB_HD uint64_t nb_mul_sub_lo_w32(uint64_t a, uint64_t w, uint64_t quot, uint64_t q)
{
    const uint64_t nq = 0 - q;
#if defined(__CUDA_ARCH__) /* the same six steps, kept in this order by PTX */
    uint64_t r;
    asm("{\n\t.reg .u32 a0, a1, w0, w1, c0, c1, n0, n1, tl, th;\n\t.reg .u64 t;\n\t"
        "mov.b64 {a0, a1}, %1;\n\tmov.b64 {w0, w1}, %2;\n\t"
        "mov.b64 {c0, c1}, %3;\n\tmov.b64 {n0, n1}, %4;\n\t"
        "mul.wide.u32 t, a0, w0;\n\tmad.wide.u32 t, c0, n0, t;\n\t"
        "mov.b64 {tl, th}, t;\n\tmad.lo.u32 th, a0, w1, th;\n\t"
        "mad.lo.u32 th, a1, w0, th;\n\tmad.lo.u32 th, c0, n1, th;\n\t"
        "mad.lo.u32 th, c1, n0, th;\n\tmov.b64 %0, {tl, th};\n\t}"
        : "=l"(r)
        : "l"(a), "l"(w), "l"(quot), "l"(nq));
    return r;
#else
    const uint32_t a0 = (uint32_t)a, a1 = (uint32_t)(a >> 32);
    const uint32_t w0 = (uint32_t)w, w1 = (uint32_t)(w >> 32);
    const uint32_t c0 = (uint32_t)quot, c1 = (uint32_t)(quot >> 32);
    const uint32_t n0 = (uint32_t)nq, n1 = (uint32_t)(nq >> 32);
    const uint64_t lo = (uint64_t)c0 * n0 + (uint64_t)a0 * w0;
    const uint32_t hi = (uint32_t)(lo >> 32) + a0 * w1 + a1 * w0 + c0 * n1 + c1 * n0;
    return ((uint64_t)hi << 32) | (uint32_t)lo;
#endif
}

/* Shoup multiplication by a constant w in [0, q) with w' = floor(w 2^64 / q):
 * a * w mod q for any 64-bit a, result in [0, 2q) (lazy). */
NB_HD uint64_t nb_mul_shoup_lazy(uint64_t a, uint64_t w, uint64_t w_shoup, uint64_t q)
{
    uint64_t quot = nb_mulhi(a, w_shoup);
#if defined(__CUDA_ARCH__)
    return nb_mul_sub_lo_w32(a, w, quot, q);
#else
    return a * w - quot * q;
#endif
}

/* Shoup multiplication, fully reduced: result in [0, q). */
NB_HD uint64_t nb_mul_shoup(uint64_t a, uint64_t w, uint64_t w_shoup, uint64_t q)
{
    return nb_reduce_2q(nb_mul_shoup_lazy(a, w, w_shoup, q), q);
}

/* Recovers a twiddle w in [1, q) from its Shoup companion
 * ws = floor(w 2^64 / q): w = floor(ws q / 2^64) + 1. Proof: q is an odd
 * prime and 0 < w < q, so w 2^64 / q is not an integer and
 * w - q/2^64 < ws q / 2^64 < w with q/2^64 < 1. Lets a kernel store ws only
 * (8 bytes per twiddle instead of 16) at the cost of one high multiply.
 * Not valid for w = 0 (never a twiddle: twiddles are powers of psi). */
NB_HD uint64_t nb_shoup_recover(uint64_t ws, uint64_t q) { return nb_mulhi(ws, q) + 1; }

/* Harvey forward (Cooley-Tukey) butterfly, lazy.
 * In: x, y in [0, 4q). Out: x' = x + w y, y' = x - w y (mod q), both in [0, 4q). */
NB_HD void nb_ct_butterfly(uint64_t *x, uint64_t *y, uint64_t w, uint64_t w_shoup,
                           uint64_t q)
{
    uint64_t two_q = q << 1;
    uint64_t u = nb_csub(*x, two_q);
    uint64_t t = nb_mul_shoup_lazy(*y, w, w_shoup, q);
    *x = u + t;
    *y = u - t + two_q;
}

/* Forward butterflies with one reduction every second stage, for q < 2^61
 * (8q fits a 64-bit word): stages alternate between the first (no
 * reduction) and the second (x reduced by 4q), so that half the stages skip
 * the conditional subtraction of nb_ct_butterfly. Both compute
 * x' = x + w y, y' = x - w y (mod q).
 * No reduction: x, y in [0, 6q) -> x', y' in [0, 8q). */
NB_HD void nb_ct_butterfly_6q(uint64_t *x, uint64_t *y, uint64_t w, uint64_t w_shoup,
                              uint64_t q)
{
    uint64_t u = *x;
    uint64_t t = nb_mul_shoup_lazy(*y, w, w_shoup, q);
    *x = u + t;
    *y = u - t + (q << 1);
}

/* x reduced by 4q: x, y in [0, 8q) -> x', y' in [0, 6q). */
NB_HD void nb_ct_butterfly_8q(uint64_t *x, uint64_t *y, uint64_t w, uint64_t w_shoup,
                              uint64_t q)
{
    uint64_t u = nb_csub(*x, q << 2);
    uint64_t t = nb_mul_shoup_lazy(*y, w, w_shoup, q);
    *x = u + t;
    *y = u - t + (q << 1);
}

/* x in [0, 8q) -> x mod q, for q < 2^61. */
NB_HD uint64_t nb_reduce_8q(uint64_t x, uint64_t q) { return nb_reduce_4q(nb_csub(x, q << 2), q); }

/* Harvey inverse (Gentleman-Sande) butterfly, lazy.
 * In: x, y in [0, 2q). Out: x' = x + y, y' = (x - y) w (mod q), both in [0, 2q). */
NB_HD void nb_gs_butterfly(uint64_t *x, uint64_t *y, uint64_t w, uint64_t w_shoup,
                           uint64_t q)
{
    uint64_t two_q = q << 1;
    uint64_t u = *x, v = *y;
    *x = nb_csub(u + v, two_q);
    *y = nb_mul_shoup_lazy(u - v + two_q, w, w_shoup, q);
}

/* Inverse butterflies for q < 2^61 that reduce a sum only when it could
 * reach 4q. At stage b, a pair's inputs are both sums of stage b-1 (bound
 * 4q) or both products (bound 2q): the first butterfly takes products, the
 * second anything below 4q. Both compute x' = x + y, y' = (x - y) w (mod q).
 * x, y in [0, 2q) -> x' in [0, 4q) (not reduced), y' in [0, 2q). */
NB_HD void nb_gs_butterfly_2q(uint64_t *x, uint64_t *y, uint64_t w, uint64_t w_shoup,
                              uint64_t q)
{
    uint64_t u = *x, v = *y;
    *x = u + v;
    *y = nb_mul_shoup_lazy(u - v + (q << 1), w, w_shoup, q);
}

/* x, y in [0, 4q) -> x' in [0, 4q) (reduced by 4q), y' in [0, 2q). */
NB_HD void nb_gs_butterfly_4q(uint64_t *x, uint64_t *y, uint64_t w, uint64_t w_shoup,
                              uint64_t q)
{
    uint64_t u = *x, v = *y;
    *x = nb_csub(u + v, q << 2);
    *y = nb_mul_shoup_lazy(u - v + (q << 2), w, w_shoup, q);
}

/* ---- 32-bit words ----
 * Odd primes q < 2^31 (NB_MAX_PRIME_BITS_32 = 31), so that 2q fits a word.
 * Two butterfly families: the Harvey ones (nb_ct_butterfly32,
 * nb_gs_butterfly32) keep values in [0, 4q) and so need q < 2^30
 * (NB_LAZY4_PRIME_BITS_32); the _q31 ones keep values in [0, 2q) and serve
 * every q < 2^31 at the cost of one more conditional subtraction per
 * butterfly. A 32-bit Shoup companion is ws32 = floor(w 2^32 / q), which is
 * the high word of the 64-bit one in nb_ntt_tables (nb_shoup32_from64). */
#define NB_MAX_PRIME_BITS_32 31u
#define NB_LAZY4_PRIME_BITS_32 30u /* primes of at most this many bits: 4q < 2^32 */

/* High 32 bits of the 64-bit product a*b. */
NB_HD uint32_t nb_mulhi32(uint32_t a, uint32_t b)
{
#if defined(__CUDA_ARCH__)
    return __umulhi(a, b);
#else
    return (uint32_t)(((uint64_t)a * b) >> 32);
#endif
}

/* x - m if x >= m, else x; for x in [0, 2m) with m <= 2^31. x - m wraps
 * above x exactly when x < m, so the minimum is the answer: two instructions
 * (add, min) on the GPU. */
NB_HD uint32_t nb_csub32(uint32_t x, uint32_t m)
{
    const uint32_t d = x - m;
    return d < x ? d : x;
}

/* x in [0, 2q) -> x mod q. */
NB_HD uint32_t nb_reduce32_2q(uint32_t x, uint32_t q) { return nb_csub32(x, q); }

/* x in [0, 4q) -> x mod q, for q < 2^30. */
NB_HD uint32_t nb_reduce32_4q(uint32_t x, uint32_t q) { return nb_csub32(nb_csub32(x, q << 1), q); }

/* The 32-bit Shoup companion floor(w 2^32 / q) from the 64-bit one
 * floor(w 2^64 / q): its high word (floor(floor(x) / 2^32) = floor(x / 2^32)). */
NB_HD uint32_t nb_shoup32_from64(uint64_t ws64) { return (uint32_t)(ws64 >> 32); }

/* Shoup multiplication by a constant w in [0, q) with ws = floor(w 2^32 / q):
 * a * w mod q for any 32-bit a, result in [0, 2q) (lazy). The true product
 * minus the estimated quotient times q lies in [0, 2q), below 2^32, so the
 * wrapped 32-bit difference is exact. */
NB_HD uint32_t nb_mul_shoup32_lazy(uint32_t a, uint32_t w, uint32_t ws, uint32_t q)
{
    return a * w - nb_mulhi32(a, ws) * q;
}

/* Shoup multiplication, fully reduced: result in [0, q). */
NB_HD uint32_t nb_mul_shoup32(uint32_t a, uint32_t w, uint32_t ws, uint32_t q)
{
    return nb_csub32(nb_mul_shoup32_lazy(a, w, ws, q), q);
}

/* w in [1, q) from ws = floor(w 2^32 / q): floor(ws q / 2^32) + 1 (the proof
 * of nb_shoup_recover, with 2^32). Not valid for w = 0. */
NB_HD uint32_t nb_shoup32_recover(uint32_t ws, uint32_t q) { return nb_mulhi32(ws, q) + 1; }

/* floor(w * 2^32 / q) for w in [0, q), q < 2^32 (a 64-bit division: for
 * tables). */
NB_HD uint32_t nb_shoup32_precompute(uint32_t w, uint32_t q)
{
    return (uint32_t)(((uint64_t)w << 32) / q);
}

/* A twiddle formed as a product: w = a c mod q and ws = floor(w 2^32 / q),
 * both exact, for a in [0, q), q < 2^31, and c's record r = {c, cs, rc, rcs}
 * (nb_shoup32_record: cs = floor(c 2^32 / q), rc = c 2^32 mod q,
 * rcs = floor(rc 2^32 / q)). With c 2^32 = cs q + rc and a c = k q + w,
 * w 2^32 = q (a cs - k 2^32) + a rc, so ws = a cs + floor(a rc / q) mod 2^32;
 * floor(a rc / q) is the Shoup estimate (at most one short) plus one when
 * its remainder, in [0, 2q), reaches q. nb_shoup32_record builds r (64-bit
 * divisions: for tables). */
NB_HD void nb_shoup32_record(uint32_t c, uint32_t q, uint32_t r[4])
{
    const uint32_t rc = (uint32_t)(((uint64_t)c << 32) % q);
    r[0] = c;
    r[1] = nb_shoup32_precompute(c, q);
    r[2] = rc;
    r[3] = nb_shoup32_precompute(rc, q);
}

NB_HD void nb_shoup32_product(uint32_t a, const uint32_t r[4], uint32_t q, uint32_t *w,
                              uint32_t *ws)
{
    *w = nb_mul_shoup32(a, r[0], r[1], q);
    const uint32_t t = nb_mulhi32(a, r[3]);
    *ws = a * r[1] + t + (a * r[2] - t * q >= q ? 1u : 0u);
}

/* Harvey forward butterfly for q < 2^30.
 * In: x, y in [0, 4q). Out: x' = x + w y, y' = x - w y (mod q), both in [0, 4q). */
NB_HD void nb_ct_butterfly32(uint32_t *x, uint32_t *y, uint32_t w, uint32_t ws, uint32_t q)
{
    const uint32_t two_q = q << 1;
    const uint32_t u = nb_csub32(*x, two_q);
    const uint32_t t = nb_mul_shoup32_lazy(*y, w, ws, q);
    *x = u + t;
    *y = u - t + two_q;
}

/* Forward butterfly for q < 2^31.
 * In: x, y in [0, 2q). Out: x' = x + w y, y' = x - w y (mod q), both in [0, 2q). */
NB_HD void nb_ct_butterfly32_q31(uint32_t *x, uint32_t *y, uint32_t w, uint32_t ws, uint32_t q)
{
    const uint32_t u = nb_csub32(*x, q);
    const uint32_t t = nb_csub32(nb_mul_shoup32_lazy(*y, w, ws, q), q);
    *x = u + t;
    *y = u - t + q;
}

/* Harvey inverse butterfly for q < 2^30.
 * In: x, y in [0, 2q). Out: x' = x + y, y' = (x - y) w (mod q), both in [0, 2q). */
NB_HD void nb_gs_butterfly32(uint32_t *x, uint32_t *y, uint32_t w, uint32_t ws, uint32_t q)
{
    const uint32_t two_q = q << 1;
    const uint32_t u = *x, v = *y;
    *x = nb_csub32(u + v, two_q);
    *y = nb_mul_shoup32_lazy(u - v + two_q, w, ws, q);
}

/* Inverse butterfly for q < 2^31.
 * In: x, y in [0, 2q). Out: x' = x + y, y' = (x - y) w (mod q), both in [0, 2q). */
NB_HD void nb_gs_butterfly32_q31(uint32_t *x, uint32_t *y, uint32_t w, uint32_t ws, uint32_t q)
{
    const uint32_t u = nb_csub32(*x, q), v = nb_csub32(*y, q);
    *x = u + v;
    *y = nb_mul_shoup32_lazy(u - v + q, w, ws, q);
}

/* The four butterflies above with the twiddle w = a c mod q applied as two
 * Shoup products, by a and then by c (as = floor(a 2^32 / q), cs likewise):
 * for a twiddle that serves one or two butterflies, where forming w and
 * its companion (nb_shoup32_product) costs more than the second product.
 * The same domains and ranges as the butterfly with w, and the same
 * outputs mod q: the second product's input may be any 32-bit word. */
NB_HD void nb_ct_butterfly32_ac(uint32_t *x, uint32_t *y, uint32_t a, uint32_t as, uint32_t c,
                                uint32_t cs, uint32_t q)
{
    uint32_t ya = nb_mul_shoup32_lazy(*y, a, as, q);
    nb_ct_butterfly32(x, &ya, c, cs, q);
    *y = ya;
}

NB_HD void nb_ct_butterfly32_q31_ac(uint32_t *x, uint32_t *y, uint32_t a, uint32_t as,
                                    uint32_t c, uint32_t cs, uint32_t q)
{
    uint32_t ya = nb_mul_shoup32_lazy(*y, a, as, q);
    nb_ct_butterfly32_q31(x, &ya, c, cs, q);
    *y = ya;
}

NB_HD void nb_gs_butterfly32_ac(uint32_t *x, uint32_t *y, uint32_t a, uint32_t as, uint32_t c,
                                uint32_t cs, uint32_t q)
{
    nb_gs_butterfly32(x, y, a, as, q);
    *y = nb_mul_shoup32_lazy(*y, c, cs, q);
}

NB_HD void nb_gs_butterfly32_q31_ac(uint32_t *x, uint32_t *y, uint32_t a, uint32_t as,
                                    uint32_t c, uint32_t cs, uint32_t q)
{
    nb_gs_butterfly32_q31(x, y, a, as, q);
    *y = nb_mul_shoup32_lazy(*y, c, cs, q);
}

/* ---- host-only helpers (128-bit division) ---- */
#if !defined(__CUDA_ARCH__)
/* floor(w * 2^64 / q) for w in [0, q). Host only. */
NB_HOST uint64_t nb_shoup_precompute(uint64_t w, uint64_t q)
{
    return (uint64_t)(((unsigned __int128)w << 64) / q);
}

/* a * b mod m by 128-bit division, for any a, b and m >= 1; result in
 * [0, m). The slow, obviously right product the tables, primes and CKKS
 * constants are precomputed with. Host only. */
NB_HOST uint64_t nb_mul_mod_host(uint64_t a, uint64_t b, uint64_t m)
{
    return (uint64_t)(((unsigned __int128)a * b) % m);
}

/* mu = floor(2^128 / q) as (hi, lo); q > 1 and not a power of two. Host only. */
NB_HOST void nb_barrett_precompute(uint64_t q, uint64_t *mu_lo, uint64_t *mu_hi)
{
    unsigned __int128 m = ~(unsigned __int128)0 / q; /* == floor(2^128/q) for odd q */
    *mu_lo = (uint64_t)m;
    *mu_hi = (uint64_t)(m >> 64);
}

/* floor(w * 2^64 / q) for w in [0, q) without a division, from mu =
 * floor(2^128 / q) (nb_barrett_precompute): e = floor(w mu / 2^64) is at
 * most two below the quotient (w mu / 2^64 > w 2^64 / q - w / 2^64 - 1), so
 * at most two corrections by the remainder w 2^64 - e q. Equal to
 * nb_shoup_precompute; for building large tables. Host only. */
NB_HOST uint64_t nb_shoup_precompute_mu(uint64_t w, uint64_t q, uint64_t mu_lo, uint64_t mu_hi)
{
    uint64_t e = (uint64_t)(((unsigned __int128)w * mu_lo) >> 64) + w * mu_hi;
    unsigned __int128 r = ((unsigned __int128)w << 64) - (unsigned __int128)e * q;
    while (r >= q) {
        r -= q;
        e++;
    }
    return e;
}
#endif

#endif

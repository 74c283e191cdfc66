/* cpu-harvey32: the optimized CPU NTT on 32-bit words (primes below 2^31),
 * and cpu-harvey32-scalar, the same transform without SIMD. Cooley-Tukey
 * forward and Gentleman-Sande inverse, two stages per pass over memory
 * (radix-4 passes), Shoup multiplication by 32-bit twiddle companions
 * (ntt/arith.h's 32-bit section), the final reduction fused into the last
 * forward pass and the N^-1 scaling into the last inverse stage. A limb whose
 * prime is below 2^30 runs the Harvey butterflies (values in [0, 4q) forward,
 * [0, 2q) inverse), a larger one the _q31 butterflies ([0, 2q) both ways).
 *
 * cpu-harvey32 picks its passes when the plan is built: the AVX2 ones
 * (ntt/cpu_harvey32_avx2.c) where __builtin_cpu_supports("avx2"), else the
 * scalar ones below; the scalar variant always runs the scalar ones, so that
 * both paths can be checked and timed by name on one machine. The AVX2
 * passes serve N >= 32; smaller transforms run the scalar ones on both.
 * Limbs are independent and run in parallel under OpenMP. */
#include <stdlib.h>

#include "ntt/arith.h"
#include "ntt/builtin.h"
#include "ntt/cpu_harvey32.h"

/* A pass set and the smallest transform it serves. */
typedef struct {
    const char *name;
    nb_harvey32_fwd_pass *fwd2, *fwd4;
    nb_harvey32_inv_pass *inv2, *inv4;
    nb_harvey32_inv_last *inv_last;
    unsigned min_log_n;
} pass_set;

typedef struct {
    const nb_ntt_tables *t;
    const pass_set *passes;
    uint32_t *fwd, *fwd_s, *inv, *inv_s; /* [L*N] the tables' twiddles, 32-bit companions */
    uint32_t *ninv, *ninv_s;             /* [L] N^-1 */
    uint32_t *ninv_w, *ninv_w_s;         /* [L] psi^-(N/2) N^-1, the last inverse twiddle */
} harvey32_plan;

/* ---- scalar passes: ntt/arith.h's butterflies, one word at a time ---- */

static inline int is_q31(uint32_t q) { return (q >> NB_LAZY4_PRIME_BITS_32) != 0; }

/* Pass bodies are inlined into one copy per family (q31 a constant), so that
 * the family's branches leave the inner loops. */
#define BODY static inline __attribute__((always_inline)) void
#define BY_FAMILY(body, q, ...) (is_q31(q) ? body(__VA_ARGS__, 1) : body(__VA_ARGS__, 0))

static inline void ct(uint32_t *x, uint32_t *y, uint32_t w, uint32_t ws, uint32_t q, int q31)
{
    if (q31)
        nb_ct_butterfly32_q31(x, y, w, ws, q);
    else
        nb_ct_butterfly32(x, y, w, ws, q);
}

static inline void gs(uint32_t *x, uint32_t *y, uint32_t w, uint32_t ws, uint32_t q, int q31)
{
    if (q31)
        nb_gs_butterfly32_q31(x, y, w, ws, q);
    else
        nb_gs_butterfly32(x, y, w, ws, q);
}

/* A forward output in the family's lazy range -> [0, q). */
static inline uint32_t reduce(uint32_t x, uint32_t q, int q31)
{
    return q31 ? nb_reduce32_2q(x, q) : nb_reduce32_4q(x, q);
}

BODY forward_radix2_body(uint32_t *restrict a, const uint32_t *restrict w,
                         const uint32_t *restrict ws, uint32_t q, size_t m,
                         size_t t, int last, int q31)
{
    for (size_t i = 0; i < m; i++) {
        const uint32_t W = w[m + i], Ws = ws[m + i];
        uint32_t *restrict x = a + 2 * i * t;
        uint32_t *restrict y = x + t;
        for (size_t j = 0; j < t; j++) {
            ct(&x[j], &y[j], W, Ws, q, q31);
            if (last) {
                x[j] = reduce(x[j], q, q31);
                y[j] = reduce(y[j], q, q31);
            }
        }
    }
}

static void forward_radix2(uint32_t *restrict a, const uint32_t *restrict w,
                           const uint32_t *restrict ws, uint32_t q, size_t m, size_t t, int last)
{
    BY_FAMILY(forward_radix2_body, q, a, w, ws, q, m, t, last);
}

BODY forward_radix4_body(uint32_t *restrict a, const uint32_t *restrict w,
                         const uint32_t *restrict ws, uint32_t q, size_t m,
                         size_t t, int last, int q31)
{
    const size_t h = t >> 1;
    for (size_t i = 0; i < m; i++) {
        const uint32_t W1 = w[m + i], W1s = ws[m + i];
        const uint32_t W2 = w[2 * m + 2 * i], W2s = ws[2 * m + 2 * i];
        const uint32_t W3 = w[2 * m + 2 * i + 1], W3s = ws[2 * m + 2 * i + 1];
        uint32_t *restrict x0 = a + 2 * i * t;
        uint32_t *restrict x1 = x0 + h;
        uint32_t *restrict x2 = x0 + t;
        uint32_t *restrict x3 = x2 + h;
        for (size_t j = 0; j < h; j++) {
            uint32_t a0 = x0[j], a1 = x1[j], a2 = x2[j], a3 = x3[j];
            ct(&a0, &a2, W1, W1s, q, q31);
            ct(&a1, &a3, W1, W1s, q, q31);
            ct(&a0, &a1, W2, W2s, q, q31);
            ct(&a2, &a3, W3, W3s, q, q31);
            if (last) {
                a0 = reduce(a0, q, q31);
                a1 = reduce(a1, q, q31);
                a2 = reduce(a2, q, q31);
                a3 = reduce(a3, q, q31);
            }
            x0[j] = a0;
            x1[j] = a1;
            x2[j] = a2;
            x3[j] = a3;
        }
    }
}

static void forward_radix4(uint32_t *restrict a, const uint32_t *restrict w,
                           const uint32_t *restrict ws, uint32_t q, size_t m, size_t t, int last)
{
    BY_FAMILY(forward_radix4_body, q, a, w, ws, q, m, t, last);
}

/* One inverse stage of h groups, pairs t apart (the first stage, when the
 * number of stages before the last is odd). */
BODY inverse_radix2_body(uint32_t *restrict a, const uint32_t *restrict w,
                         const uint32_t *restrict ws, uint32_t q, size_t h,
                         size_t t, int q31)
{
    for (size_t i = 0; i < h; i++) {
        const uint32_t W = w[h + i], Ws = ws[h + i];
        uint32_t *restrict x = a + 2 * i * t;
        uint32_t *restrict y = x + t;
        for (size_t j = 0; j < t; j++)
            gs(&x[j], &y[j], W, Ws, q, q31);
    }
}

static void inverse_radix2(uint32_t *restrict a, const uint32_t *restrict w,
                           const uint32_t *restrict ws, uint32_t q, size_t h, size_t t)
{
    BY_FAMILY(inverse_radix2_body, q, a, w, ws, q, h, t);
}

BODY inverse_radix4_body(uint32_t *restrict a, const uint32_t *restrict w,
                         const uint32_t *restrict ws, uint32_t q, size_t h,
                         size_t t, int q31)
{
    for (size_t i = 0; i < (h >> 1); i++) {
        const uint32_t W1 = w[h + 2 * i], W1s = ws[h + 2 * i];
        const uint32_t W2 = w[h + 2 * i + 1], W2s = ws[h + 2 * i + 1];
        const uint32_t W3 = w[(h >> 1) + i], W3s = ws[(h >> 1) + i];
        uint32_t *restrict x0 = a + 4 * i * t;
        uint32_t *restrict x1 = x0 + t;
        uint32_t *restrict x2 = x1 + t;
        uint32_t *restrict x3 = x2 + t;
        for (size_t j = 0; j < t; j++) {
            uint32_t a0 = x0[j], a1 = x1[j], a2 = x2[j], a3 = x3[j];
            gs(&a0, &a1, W1, W1s, q, q31);
            gs(&a2, &a3, W2, W2s, q, q31);
            gs(&a0, &a2, W3, W3s, q, q31);
            gs(&a1, &a3, W3, W3s, q, q31);
            x0[j] = a0;
            x1[j] = a1;
            x2[j] = a2;
            x3[j] = a3;
        }
    }
}

static void inverse_radix4(uint32_t *restrict a, const uint32_t *restrict w,
                           const uint32_t *restrict ws, uint32_t q, size_t h, size_t t)
{
    BY_FAMILY(inverse_radix4_body, q, a, w, ws, q, h, t);
}

/* The sum and the difference are formed from values reduced below q, so
 * that both stay below 2q < 2^32 for any q < 2^31. */
static void inverse_last(uint32_t *restrict a, uint32_t q, size_t t, uint32_t ninv,
                         uint32_t ninv_s, uint32_t ninv_w, uint32_t ninv_ws)
{
    uint32_t *restrict x = a, *restrict y = a + t;
    for (size_t j = 0; j < t; j++) {
        const uint32_t u = nb_reduce32_2q(x[j], q), v = nb_reduce32_2q(y[j], q);
        x[j] = nb_mul_shoup32(u + v, ninv, ninv_s, q);
        y[j] = nb_mul_shoup32(u - v + q, ninv_w, ninv_ws, q);
    }
}

static const pass_set scalar_passes = {
    "scalar", forward_radix2, forward_radix4, inverse_radix2, inverse_radix4, inverse_last, 0,
};

#if NB_HARVEY32_HAVE_AVX2
static const pass_set avx2_passes = {
    "avx2",
    nb_harvey32_avx2_forward_radix2,
    nb_harvey32_avx2_forward_radix4,
    nb_harvey32_avx2_inverse_radix2,
    nb_harvey32_avx2_inverse_radix4,
    nb_harvey32_avx2_inverse_last,
    NB_HARVEY32_AVX2_MIN_LOG_N,
};
#endif

/* The passes this CPU runs best: AVX2 where it has it, else scalar. */
static const pass_set *best_passes(void)
{
#if NB_HARVEY32_HAVE_AVX2
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        return &avx2_passes;
#endif
    return &scalar_passes;
}

const char *nb_cpu_harvey32_plan_kernels(const void *plan)
{
    return ((const harvey32_plan *)plan)->passes->name;
}

/* Forward transform of one limb: natural in, bit-reversed out, [0, q). */
static void forward_limb(const pass_set *best, uint32_t *a, const uint32_t *w, const uint32_t *ws,
                         uint32_t q, size_t n, unsigned log_n)
{
    const pass_set *k = log_n >= best->min_log_n ? best : &scalar_passes;
    size_t m = 1, t = n >> 1;
    if (log_n & 1) { /* one radix-2 stage first; it is also the last if log_n = 1 */
        k->fwd2(a, w, ws, q, m, t, log_n == 1);
        m <<= 1;
        t >>= 1;
    }
    for (; m < n; m <<= 2, t >>= 2) /* the last pass (t = 2) reduces to [0, q) */
        k->fwd4(a, w, ws, q, m, t, t == 2);
}

/* Inverse transform of one limb: bit-reversed in, natural out, scaled by
 * N^-1, [0, q). */
static void inverse_limb(const pass_set *best, uint32_t *a, const uint32_t *w, const uint32_t *ws,
                         uint32_t q, size_t n, unsigned log_n, uint32_t ninv, uint32_t ninv_s,
                         uint32_t ninv_w, uint32_t ninv_ws)
{
    const pass_set *k = log_n >= best->min_log_n ? best : &scalar_passes;
    size_t t = 1, h = n >> 1;
    if ((log_n - 1) & 1) { /* odd number of stages before the last: one radix-2 */
        k->inv2(a, w, ws, q, h, t);
        h >>= 1;
        t <<= 1;
    }
    for (; h > 1; h >>= 2, t <<= 2)
        k->inv4(a, w, ws, q, h, t);
    k->inv_last(a, q, t, ninv, ninv_s, ninv_w, ninv_ws);
}

static void plan_destroy(void *plan)
{
    harvey32_plan *p = plan;
    if (!p)
        return;
    free(p->fwd);
    free(p->fwd_s);
    free(p->inv);
    free(p->inv_s);
    free(p->ninv);
    free(p->ninv_s);
    free(p->ninv_w);
    free(p->ninv_w_s);
    free(p);
}

static nb_status plan_create_with(void **out, const nb_ntt_tables *t, const pass_set *passes)
{
    harvey32_plan *p = calloc(1, sizeof *p);
    const size_t words = t->limbs * t->n;
    if (p) {
        p->t = t;
        p->passes = passes;
        p->fwd = malloc(words * sizeof(uint32_t));
        p->fwd_s = malloc(words * sizeof(uint32_t));
        p->inv = malloc(words * sizeof(uint32_t));
        p->inv_s = malloc(words * sizeof(uint32_t));
        p->ninv = malloc(t->limbs * sizeof(uint32_t));
        p->ninv_s = malloc(t->limbs * sizeof(uint32_t));
        p->ninv_w = malloc(t->limbs * sizeof(uint32_t));
        p->ninv_w_s = malloc(t->limbs * sizeof(uint32_t));
    }
    if (!p || !p->fwd || !p->fwd_s || !p->inv || !p->inv_s || !p->ninv || !p->ninv_s ||
        !p->ninv_w || !p->ninv_w_s) {
        plan_destroy(p);
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "cpu-harvey32: out of host memory");
    }
    for (size_t i = 0; i < words; i++) {
        p->fwd[i] = (uint32_t)t->fwd[i];
        p->fwd_s[i] = nb_shoup32_from64(t->fwd_shoup[i]);
        p->inv[i] = (uint32_t)t->inv[i];
        p->inv_s[i] = nb_shoup32_from64(t->inv_shoup[i]);
    }
    for (size_t l = 0; l < t->limbs; l++) {
        const uint32_t q = (uint32_t)t->q[l];
        const uint64_t w = nb_mul_mod_host(t->inv[l * t->n + 1], t->n_inv[l], q);
        p->ninv[l] = (uint32_t)t->n_inv[l];
        p->ninv_s[l] = nb_shoup32_from64(t->n_inv_shoup[l]);
        p->ninv_w[l] = (uint32_t)w;
        p->ninv_w_s[l] = nb_shoup32_precompute((uint32_t)w, q);
    }
    *out = p;
    return NB_OK;
}

static nb_status plan_create(void **out, const nb_ntt_tables *t, void *stream)
{
    (void)stream;
    return plan_create_with(out, t, best_passes());
}

static nb_status plan_create_scalar(void **out, const nb_ntt_tables *t, void *stream)
{
    (void)stream;
    return plan_create_with(out, t, &scalar_passes);
}

static nb_status forward(void *plan, void *data, size_t first, size_t count, void *stream)
{
    (void)stream;
    const harvey32_plan *p = plan;
    const nb_ntt_tables *t = p->t;
    const size_t n = t->n;
    uint32_t *a = data;
#pragma omp parallel for schedule(static) if (count > 1)
    for (size_t k = 0; k < count; k++) {
        const size_t l = first + k;
        forward_limb(p->passes, a + k * n, p->fwd + l * n, p->fwd_s + l * n, (uint32_t)t->q[l],
                     n, t->log_n);
    }
    return NB_OK;
}

static nb_status inverse(void *plan, void *data, size_t first, size_t count, void *stream)
{
    (void)stream;
    const harvey32_plan *p = plan;
    const nb_ntt_tables *t = p->t;
    const size_t n = t->n;
    uint32_t *a = data;
#pragma omp parallel for schedule(static) if (count > 1)
    for (size_t k = 0; k < count; k++) {
        const size_t l = first + k;
        inverse_limb(p->passes, a + k * n, p->inv + l * n, p->inv_s + l * n, (uint32_t)t->q[l],
                     n, t->log_n, p->ninv[l], p->ninv_s[l], p->ninv_w[l], p->ninv_w_s[l]);
    }
    return NB_OK;
}

/* The two variants differ only in how plan_create picks the passes. */
#define HARVEY32_VARIANT(vname, text, create)                                                  \
    {                                                                                          \
        .name = vname, .description = text, .backend = NB_BACKEND_CPU, .min_log_n = 1,         \
        .max_log_n = 17, .word_bits = 32, .max_prime_bits = NB_MAX_PRIME_BITS_32,              \
        .plan_create = create, .plan_destroy = plan_destroy, .forward = forward,               \
        .inverse = inverse,                                                                    \
    }

const nb_ntt_variant nb_variant_cpu_harvey32 =
    HARVEY32_VARIANT("cpu-harvey32",
                     "CPU CT/GS on 32-bit words (primes < 2^31), radix-4 passes, AVX2 where "
                     "available, Shoup twiddles, OpenMP over limbs",
                     plan_create);

const nb_ntt_variant nb_variant_cpu_harvey32_scalar =
    HARVEY32_VARIANT("cpu-harvey32-scalar",
                     "cpu-harvey32 without SIMD: its scalar passes on every CPU",
                     plan_create_scalar);

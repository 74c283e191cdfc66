/* cpu-harvey: the optimized CPU NTT. Cooley-Tukey forward and
 * Gentleman-Sande inverse, two stages per pass over memory (radix-4 passes),
 * with Harvey's lazy butterflies (values kept in
 * [0, 4q) / [0, 2q)), Shoup multiplication by precomputed twiddles (no
 * division in the inner loop), the final reduction fused into the last
 * forward stage and the N^-1 scaling fused into the last inverse stage.
 * Limbs are independent and run in parallel under OpenMP. */
#include <stdlib.h>

#include "ntt/arith.h"
#include "ntt/builtin.h"

typedef struct {
    const nb_ntt_tables *t;
    uint64_t *ninv_w, *ninv_w_shoup; /* per limb: psi^-(N/2) * N^-1 and Shoup value */
} harvey_plan;

static nb_status plan_create(void **out, const nb_ntt_tables *t, void *stream)
{
    (void)stream;
    harvey_plan *p = calloc(1, sizeof *p);
    if (!p)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "cpu-harvey: out of host memory");
    p->t = t;
    p->ninv_w = malloc(t->limbs * sizeof(uint64_t));
    p->ninv_w_shoup = malloc(t->limbs * sizeof(uint64_t));
    if (!p->ninv_w || !p->ninv_w_shoup) {
        free(p->ninv_w);
        free(p->ninv_w_shoup);
        free(p);
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "cpu-harvey: out of host memory");
    }
    for (size_t l = 0; l < t->limbs; l++) {
        const uint64_t q = t->q[l];
        const uint64_t w = t->inv[l * t->n + 1]; /* twiddle of the last GS stage */
        p->ninv_w[l] = nb_mul_mod(w, t->n_inv[l], q, t->mu_lo[l], t->mu_hi[l]);
        p->ninv_w_shoup[l] = nb_shoup_precompute(p->ninv_w[l], q);
    }
    *out = p;
    return NB_OK;
}

static void plan_destroy(void *plan)
{
    harvey_plan *p = plan;
    if (!p)
        return;
    free(p->ninv_w);
    free(p->ninv_w_shoup);
    free(p);
}

/* Two forward stages at once (radix-4 on 4 elements spaced t/2 apart): stage
 * m with twiddle w[m+i] on (a0,a2),(a1,a3), then stage 2m with w[2m+2i] on
 * (a0,a1) and w[2m+2i+1] on (a2,a3). Halves the passes over memory. */
static void forward_radix4(uint64_t *restrict a, const uint64_t *restrict w,
                           const uint64_t *restrict ws, uint64_t q, size_t m, size_t t,
                           int reduce)
{
    const size_t h = t >> 1;
    for (size_t i = 0; i < m; i++) {
        const uint64_t W1 = w[m + i], W1s = ws[m + i];
        const uint64_t W2 = w[2 * m + 2 * i], W2s = ws[2 * m + 2 * i];
        const uint64_t W3 = w[2 * m + 2 * i + 1], W3s = ws[2 * m + 2 * i + 1];
        uint64_t *restrict x0 = a + 2 * i * t;
        uint64_t *restrict x1 = x0 + h;
        uint64_t *restrict x2 = x0 + t;
        uint64_t *restrict x3 = x2 + h;
        for (size_t j = 0; j < h; j++) {
            uint64_t a0 = x0[j], a1 = x1[j], a2 = x2[j], a3 = x3[j];
            nb_ct_butterfly(&a0, &a2, W1, W1s, q);
            nb_ct_butterfly(&a1, &a3, W1, W1s, q);
            nb_ct_butterfly(&a0, &a1, W2, W2s, q);
            nb_ct_butterfly(&a2, &a3, W3, W3s, q);
            if (reduce) {
                a0 = nb_reduce_4q(a0, q);
                a1 = nb_reduce_4q(a1, q);
                a2 = nb_reduce_4q(a2, q);
                a3 = nb_reduce_4q(a3, q);
            }
            x0[j] = a0;
            x1[j] = a1;
            x2[j] = a2;
            x3[j] = a3;
        }
    }
}

static void forward_radix2(uint64_t *restrict a, const uint64_t *restrict w,
                           const uint64_t *restrict ws, uint64_t q, size_t m, size_t t,
                           int reduce)
{
    for (size_t i = 0; i < m; i++) {
        const uint64_t W = w[m + i], Ws = ws[m + i];
        uint64_t *restrict x = a + 2 * i * t;
        uint64_t *restrict y = x + t;
        for (size_t j = 0; j < t; j++) {
            uint64_t u = x[j], v = y[j];
            nb_ct_butterfly(&u, &v, W, Ws, q);
            x[j] = reduce ? nb_reduce_4q(u, q) : u;
            y[j] = reduce ? nb_reduce_4q(v, q) : v;
        }
    }
}

static void forward_limb(uint64_t *restrict a, const uint64_t *restrict w,
                         const uint64_t *restrict ws, uint64_t q, size_t n, unsigned log_n)
{
    size_t m = 1, t = n >> 1;
    if (log_n & 1) { /* one radix-2 stage first; it is also the last if log_n = 1 */
        forward_radix2(a, w, ws, q, m, t, log_n == 1);
        m <<= 1;
        t >>= 1;
    }
    for (; m < n; m <<= 2, t >>= 2) /* the last pair (t = 2) reduces to [0, q) */
        forward_radix4(a, w, ws, q, m, t, t == 2);
}

/* Two inverse stages at once: stage h (pairs t apart, twiddles w[h+2i'],
 * w[h+2i'+1]) then stage h/2 (pairs 2t apart, twiddle w[h/2+i']). */
static void inverse_radix4(uint64_t *restrict a, const uint64_t *restrict w,
                           const uint64_t *restrict ws, uint64_t q, size_t h, size_t t)
{
    for (size_t i = 0; i < (h >> 1); i++) {
        const uint64_t W1 = w[h + 2 * i], W1s = ws[h + 2 * i];
        const uint64_t W2 = w[h + 2 * i + 1], W2s = ws[h + 2 * i + 1];
        const uint64_t W3 = w[(h >> 1) + i], W3s = ws[(h >> 1) + i];
        uint64_t *restrict x0 = a + 4 * i * t;
        uint64_t *restrict x1 = x0 + t;
        uint64_t *restrict x2 = x1 + t;
        uint64_t *restrict x3 = x2 + t;
        for (size_t j = 0; j < t; j++) {
            uint64_t a0 = x0[j], a1 = x1[j], a2 = x2[j], a3 = x3[j];
            nb_gs_butterfly(&a0, &a1, W1, W1s, q);
            nb_gs_butterfly(&a2, &a3, W2, W2s, q);
            nb_gs_butterfly(&a0, &a2, W3, W3s, q);
            nb_gs_butterfly(&a1, &a3, W3, W3s, q);
            x0[j] = a0;
            x1[j] = a1;
            x2[j] = a2;
            x3[j] = a3;
        }
    }
}

static void inverse_limb(uint64_t *restrict a, const uint64_t *restrict w,
                         const uint64_t *restrict ws, uint64_t q, size_t n, unsigned log_n,
                         uint64_t ninv, uint64_t ninv_s, uint64_t ninv_w, uint64_t ninv_ws)
{
    size_t t = 1, h = n >> 1;
    if ((log_n - 1) & 1) { /* odd number of stages before the last: one radix-2 */
        for (size_t i = 0; i < h; i++) {
            const uint64_t W = w[h + i], Ws = ws[h + i];
            nb_gs_butterfly(&a[2 * i], &a[2 * i + 1], W, Ws, q);
        }
        h >>= 1;
        t <<= 1;
    }
    for (; h > 1; h >>= 2, t <<= 2)
        inverse_radix4(a, w, ws, q, h, t);
    /* last stage (h = 1, t = N/2) with the N^-1 scaling fused in */
    const uint64_t two_q = q << 1;
    uint64_t *restrict x = a, *restrict y = a + t;
    for (size_t j = 0; j < t; j++) {
        const uint64_t u = x[j], v = y[j];
        x[j] = nb_mul_shoup(u + v, ninv, ninv_s, q);
        y[j] = nb_mul_shoup(u - v + two_q, ninv_w, ninv_ws, q);
    }
}

static nb_status forward(void *plan, void *words, size_t first, size_t count, void *stream)
{
    uint64_t *data = (uint64_t *)words;
    (void)stream;
    const harvey_plan *p = plan;
    const nb_ntt_tables *t = p->t;
    const size_t n = t->n;
#pragma omp parallel for schedule(static) if (count > 1)
    for (size_t k = 0; k < count; k++) {
        const size_t l = first + k;
        forward_limb(data + k * n, t->fwd + l * n, t->fwd_shoup + l * n, t->q[l], n, t->log_n);
    }
    return NB_OK;
}

static nb_status inverse(void *plan, void *words, size_t first, size_t count, void *stream)
{
    uint64_t *data = (uint64_t *)words;
    (void)stream;
    const harvey_plan *p = plan;
    const nb_ntt_tables *t = p->t;
    const size_t n = t->n;
#pragma omp parallel for schedule(static) if (count > 1)
    for (size_t k = 0; k < count; k++) {
        const size_t l = first + k;
        inverse_limb(data + k * n, t->inv + l * n, t->inv_shoup + l * n, t->q[l], n, t->log_n,
                     t->n_inv[l], t->n_inv_shoup[l], p->ninv_w[l], p->ninv_w_shoup[l]);
    }
    return NB_OK;
}

const nb_ntt_variant nb_variant_cpu_harvey = {
    .name = "cpu-harvey",
    .description = "CPU CT/GS in radix-4 passes, Harvey lazy butterflies, Shoup twiddles, OpenMP over limbs",
    .backend = NB_BACKEND_CPU,
    .min_log_n = 1,
    .max_log_n = 17,
    .word_bits = 64,
    .max_prime_bits = NB_MAX_PRIME_BITS,
    .plan_create = plan_create,
    .plan_destroy = plan_destroy,
    .forward = forward,
    .inverse = inverse,
};

/* cpu-harvey32: the CPU NTT on 32-bit words (primes below 2^31).
 * Cooley-Tukey forward and Gentleman-Sande inverse in radix-2 passes over
 * memory, Shoup multiplication by 32-bit twiddle companions (ntt/arith.h's
 * 32-bit section), the final reduction fused into the last forward stage and
 * the N^-1 scaling into the last inverse stage. A limb whose prime is below
 * 2^30 runs the Harvey butterflies (values in [0, 4q) forward, [0, 2q)
 * inverse), a larger one the _q31 butterflies ([0, 2q) both ways). The inner
 * loops run over contiguous words with no branch, for the compiler to
 * vectorise. Limbs are independent and run in parallel under OpenMP. */
#include <stdlib.h>

#include "ntt/arith.h"
#include "ntt/builtin.h"

typedef struct {
    const nb_ntt_tables *t;
    uint32_t *fwd, *fwd_s, *inv, *inv_s; /* [L*N] the tables' twiddles, 32-bit companions */
    uint32_t *ninv, *ninv_s;             /* [L] N^-1 */
    uint32_t *ninv_w, *ninv_w_s;         /* [L] psi^-(N/2) N^-1, the last inverse twiddle */
} harvey32_plan;

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

static nb_status plan_create(void **out, const nb_ntt_tables *t, void *stream)
{
    (void)stream;
    harvey32_plan *p = calloc(1, sizeof *p);
    const size_t words = t->limbs * t->n;
    if (p) {
        p->t = t;
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

/* One forward stage of m groups, pairs t apart; LAST reduces to [0, q). */
static void forward_stage(uint32_t *restrict a, const uint32_t *restrict w,
                          const uint32_t *restrict ws, uint32_t q, size_t m, size_t t, int q31,
                          int last)
{
    for (size_t i = 0; i < m; i++) {
        const uint32_t W = w[m + i], Ws = ws[m + i];
        uint32_t *restrict x = a + 2 * i * t;
        uint32_t *restrict y = x + t;
        if (q31)
            for (size_t j = 0; j < t; j++)
                nb_ct_butterfly32_q31(&x[j], &y[j], W, Ws, q);
        else
            for (size_t j = 0; j < t; j++)
                nb_ct_butterfly32(&x[j], &y[j], W, Ws, q);
        if (last) /* [0, 2q) (q31) or [0, 4q) -> [0, q) */
            for (size_t j = 0; j < t; j++) {
                x[j] = q31 ? nb_reduce32_2q(x[j], q) : nb_reduce32_4q(x[j], q);
                y[j] = q31 ? nb_reduce32_2q(y[j], q) : nb_reduce32_4q(y[j], q);
            }
    }
}

/* Forward transform of one limb: natural in, bit-reversed out, [0, q). */
static void forward_limb(uint32_t *restrict a, const uint32_t *restrict w,
                         const uint32_t *restrict ws, uint32_t q, size_t n)
{
    const int q31 = (q >> NB_LAZY4_PRIME_BITS_32) != 0;
    for (size_t m = 1, t = n >> 1; m < n; m <<= 1, t >>= 1)
        forward_stage(a, w, ws, q, m, t, q31, t == 1);
}

/* Inverse transform of one limb: bit-reversed in, natural out, scaled by
 * N^-1, [0, q). */
static void inverse_limb(uint32_t *restrict a, const uint32_t *restrict w,
                         const uint32_t *restrict ws, uint32_t q, size_t n, uint32_t ninv,
                         uint32_t ninv_s, uint32_t ninv_w, uint32_t ninv_ws)
{
    const int q31 = (q >> NB_LAZY4_PRIME_BITS_32) != 0;
    size_t t = 1;
    for (size_t h = n >> 1; h > 1; h >>= 1, t <<= 1)
        for (size_t i = 0; i < h; i++) {
            const uint32_t W = w[h + i], Ws = ws[h + i];
            uint32_t *restrict x = a + 2 * i * t;
            uint32_t *restrict y = x + t;
            if (q31)
                for (size_t j = 0; j < t; j++)
                    nb_gs_butterfly32_q31(&x[j], &y[j], W, Ws, q);
            else
                for (size_t j = 0; j < t; j++)
                    nb_gs_butterfly32(&x[j], &y[j], W, Ws, q);
        }
    /* last stage (h = 1, t = N/2): inputs in [0, 2q); the sum and the
     * difference are formed from values reduced below q, so that both stay
     * below 2q < 2^32 for any q < 2^31 */
    uint32_t *restrict x = a, *restrict y = a + t;
    for (size_t j = 0; j < t; j++) {
        const uint32_t u = nb_reduce32_2q(x[j], q), v = nb_reduce32_2q(y[j], q);
        x[j] = nb_mul_shoup32(u + v, ninv, ninv_s, q);
        y[j] = nb_mul_shoup32(u - v + q, ninv_w, ninv_ws, q);
    }
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
        forward_limb(a + k * n, p->fwd + l * n, p->fwd_s + l * n, (uint32_t)t->q[l], n);
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
        inverse_limb(a + k * n, p->inv + l * n, p->inv_s + l * n, (uint32_t)t->q[l], n,
                     p->ninv[l], p->ninv_s[l], p->ninv_w[l], p->ninv_w_s[l]);
    }
    return NB_OK;
}

const nb_ntt_variant nb_variant_cpu_harvey32 = {
    .name = "cpu-harvey32",
    .description = "CPU CT/GS on 32-bit words (primes < 2^31), Shoup twiddles, OpenMP over limbs",
    .backend = NB_BACKEND_CPU,
    .min_log_n = 1,
    .max_log_n = 17,
    .word_bits = 32,
    .max_prime_bits = NB_MAX_PRIME_BITS_32,
    .plan_create = plan_create,
    .plan_destroy = plan_destroy,
    .forward = forward,
    .inverse = inverse,
};

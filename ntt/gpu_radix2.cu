/* gpu-radix2: the baseline GPU NTT that many papers compare against.
 *
 * One kernel launch per butterfly stage (log N launches per transform), one
 * radix-2 butterfly per thread, twiddles read from global memory; the limbs of
 * a call share each launch (the grid covers count * N/2 butterflies).
 *   forward: Cooley-Tukey, natural in -> bit-reversed out, Harvey lazy
 *            butterflies keep values in [0, 4q); the last stage reduces to [0, q).
 *   inverse: Gentleman-Sande, bit-reversed in -> natural out, values in
 *            [0, 2q); N^-1 is folded into the last stage, output in [0, q).
 * Every launch is asynchronous on the caller's stream and checked.
 *
 * This file is the worked example of docs/variants.md: a plan built from
 * nb_ntt_tables, two entry points, one nb_ntt_variant struct. */
#include "ntt/builtin.h"
#include "ntt/gpu_common.cuh"

#define RADIX2_THREADS 256

typedef struct {
    unsigned log_n;
    nb_gpu_tables tw; /* device copy: fwd, inv (+ Shoup) [L*N] and per-limb constants [L] */
} radix2_plan;

/* Forward stage with m = 2^log_m groups: butterfly j of a limb pairs
 * x = 2*i*t + k and y = x + t (t = N/(2m), i = j / t, k = j mod t) and uses
 * the twiddle w[m + i]. Thread g runs butterfly g mod N/2 of limb g / (N/2). */
__global__ void radix2_ct_stage(uint64_t *data, const uint64_t *w, const uint64_t *ws,
                                const nb_gpu_limb *limbs, size_t first, size_t count,
                                unsigned log_n, unsigned log_m)
{
    const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= (count << (log_n - 1)))
        return;
    const size_t limb = g >> (log_n - 1);           /* 0 .. count-1 within the call */
    const size_t j = g & (((size_t)1 << (log_n - 1)) - 1);
    const unsigned log_t = log_n - 1 - log_m;
    const size_t i = j >> log_t;
    const size_t x = (i << (log_t + 1)) + (j & (((size_t)1 << log_t) - 1));
    const size_t y = x + ((size_t)1 << log_t);
    const size_t l = first + limb;                  /* limb index in the plan */
    const size_t tw = (l << log_n) + ((size_t)1 << log_m) + i;
    const uint64_t q = limbs[l].q;
    uint64_t *a = data + (limb << log_n);

    uint64_t u = a[x], v = a[y];
    nb_ct_butterfly(&u, &v, w[tw], ws[tw], q);
    if (log_m == log_n - 1) { /* last stage: [0, 4q) -> [0, q) */
        u = nb_reduce_4q(u, q);
        v = nb_reduce_4q(v, q);
    }
    a[x] = u;
    a[y] = v;
}

/* Inverse stage with h = 2^log_h groups (h runs N/2, N/4, ..., 1): same
 * indexing as the forward stage, Gentleman-Sande butterfly with w[h + i].
 * The last stage (h = 1) multiplies x by N^-1 and y by inv[1] * N^-1. */
__global__ void radix2_gs_stage(uint64_t *data, const uint64_t *w, const uint64_t *ws,
                                const nb_gpu_limb *limbs, size_t first, size_t count,
                                unsigned log_n, unsigned log_h)
{
    const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= (count << (log_n - 1)))
        return;
    const size_t limb = g >> (log_n - 1);
    const size_t j = g & (((size_t)1 << (log_n - 1)) - 1);
    const unsigned log_t = log_n - 1 - log_h;
    const size_t i = j >> log_t;
    const size_t x = (i << (log_t + 1)) + (j & (((size_t)1 << log_t) - 1));
    const size_t y = x + ((size_t)1 << log_t);
    const size_t l = first + limb;
    const nb_gpu_limb c = limbs[l];
    uint64_t *a = data + (limb << log_n);

    uint64_t u = a[x], v = a[y];
    if (log_h == 0) {
        const uint64_t two_q = c.q << 1;
        const uint64_t s = u + v, d = u - v + two_q; /* both < 4q < 2^64 */
        u = nb_mul_shoup(s, c.n_inv, c.n_inv_shoup, c.q);
        v = nb_mul_shoup(d, c.last_w, c.last_w_shoup, c.q);
    } else {
        const size_t tw = (l << log_n) + ((size_t)1 << log_h) + i;
        nb_gs_butterfly(&u, &v, w[tw], ws[tw], c.q);
    }
    a[x] = u;
    a[y] = v;
}

static void plan_destroy(void *plan)
{
    radix2_plan *p = (radix2_plan *)plan;
    if (p)
        nb_gpu_tables_free(&p->tw);
    free(p);
}

static nb_status plan_create(void **out, const nb_ntt_tables *t, void *stream)
{
    radix2_plan *p;
    NB_TRY(nb_gpu_plan_alloc((void **)&p, sizeof *p, "gpu-radix2"));
    p->log_n = t->log_n;
    nb_status st = nb_gpu_tables_upload(&p->tw, t, (cudaStream_t)stream);
    if (st != NB_OK) {
        plan_destroy(p);
        return st;
    }
    *out = p;
    return NB_OK;
}

static unsigned grid_for(size_t count, unsigned log_n)
{
    const size_t butterflies = count << (log_n - 1);
    return (unsigned)((butterflies + RADIX2_THREADS - 1) / RADIX2_THREADS);
}

static nb_status forward(void *plan, void *words, size_t first, size_t count, void *stream)
{
    uint64_t *data = (uint64_t *)words;
    const radix2_plan *p = (const radix2_plan *)plan;
    cudaStream_t s = (cudaStream_t)stream;
    for (unsigned log_m = 0; log_m < p->log_n; log_m++) {
        radix2_ct_stage<<<grid_for(count, p->log_n), RADIX2_THREADS, 0, s>>>(
            data, p->tw.fwd, p->tw.fwd_shoup, p->tw.limbs, first, count, p->log_n, log_m);
        NB_CUDA_LAUNCH_CHECK();
    }
    return NB_OK;
}

static nb_status inverse(void *plan, void *words, size_t first, size_t count, void *stream)
{
    uint64_t *data = (uint64_t *)words;
    const radix2_plan *p = (const radix2_plan *)plan;
    cudaStream_t s = (cudaStream_t)stream;
    for (unsigned log_h = p->log_n; log_h-- > 0;) {
        radix2_gs_stage<<<grid_for(count, p->log_n), RADIX2_THREADS, 0, s>>>(
            data, p->tw.inv, p->tw.inv_shoup, p->tw.limbs, first, count, p->log_n, log_h);
        NB_CUDA_LAUNCH_CHECK();
    }
    return NB_OK;
}

extern "C" const nb_ntt_variant nb_variant_gpu_radix2 = {
    /* .name = */ "gpu-radix2",
    /* .description = */ "GPU baseline: one launch per stage, one radix-2 butterfly per thread, "
                         "global-memory twiddles",
    /* .backend = */ NB_BACKEND_GPU,
    /* .min_log_n = */ 1,
    /* .max_log_n = */ 17,
    /* .word_bits = */ 64,
    /* .max_prime_bits = */ NB_MAX_PRIME_BITS,
    /* .plan_create = */ plan_create,
    /* .plan_destroy = */ plan_destroy,
    /* .forward = */ forward,
    /* .inverse = */ inverse,
    /* .forward_to = */ NULL, /* out of place: a copy, then in place */
    /* .inverse_to = */ NULL,
};

/* gpu-radix2 and gpu-radix2-32: the baseline GPU NTT that many papers
 * compare against, on 64-bit words and on 32-bit words (primes below 2^31).
 *
 * One kernel launch per butterfly stage (log N launches per transform), one
 * radix-2 butterfly per thread, twiddles read from global memory; the limbs of
 * a call share each launch (the grid covers count * N/2 butterflies).
 *   forward: Cooley-Tukey, natural in -> bit-reversed out, lazy butterflies
 *            (64-bit: Harvey, values in [0, 4q); 32-bit: the _q31 family for
 *            every prime, values in [0, 2q)); the last stage reduces to [0, q).
 *   inverse: Gentleman-Sande, bit-reversed in -> natural out, values in
 *            [0, 2q); N^-1 is folded into the last stage, output in [0, q).
 * The kernels and the plan are templates on the word traits of
 * ntt/gpu_word.cuh; each word size is one nb_ntt_variant. Every launch is
 * asynchronous on the caller's stream and checked.
 *
 * This file is the worked example of docs/variants.md: a plan built from
 * nb_ntt_tables, two entry points, one nb_ntt_variant struct per word size. */
#include "ntt/builtin.h"
#include "ntt/gpu_common.cuh"
#include "ntt/gpu_word.cuh"
#include "ntt/kernel_info.h"

#define RADIX2_THREADS 256

template <class T> struct radix2_plan {
    unsigned log_n;
    /* device copy: fwd, inv (+ Shoup) [L*N] and per-limb constants [L] */
    nb_gpu_tables_of<typename T::W, typename T::Limb> tw;
};

/* Forward stage with m = 2^log_m groups: butterfly j of a limb pairs
 * x = 2*i*t + k and y = x + t (t = N/(2m), i = j / t, k = j mod t) and uses
 * the twiddle w[m + i]. Thread g runs butterfly g mod N/2 of limb g / (N/2). */
template <class T>
__global__ void radix2_ct_stage(typename T::W *data, const typename T::W *w,
                                const typename T::W *ws, const typename T::Limb *limbs, size_t first, size_t count,
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
    typedef typename T::W W;
    const W q = limbs[l].q;
    W *a = data + (limb << log_n);

    W u = a[x], v = a[y];
    T::template ct<false, false>(&u, &v, w[tw], ws[tw], q);
    if (log_m == log_n - 1) { /* last stage: -> [0, q) */
        u = T::template fwd_final<false>(u, q);
        v = T::template fwd_final<false>(v, q);
    }
    a[x] = u;
    a[y] = v;
}

/* Inverse stage with h = 2^log_h groups (h runs N/2, N/4, ..., 1): same
 * indexing as the forward stage, Gentleman-Sande butterfly with w[h + i].
 * The last stage (h = 1) multiplies x by N^-1 and y by inv[1] * N^-1. */
template <class T>
__global__ void radix2_gs_stage(typename T::W *data, const typename T::W *w,
                                const typename T::W *ws, const typename T::Limb *limbs, size_t first, size_t count,
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
    const typename T::Limb c = limbs[l];
    typename T::W *a = data + (limb << log_n);

    typename T::W u = a[x], v = a[y];
    if (log_h == 0) {
        T::template scale_top<false>(&u, &v, c.q, c.n_inv, c.n_inv_shoup, c.last_w,
                                     c.last_w_shoup);
    } else {
        const size_t tw = (l << log_n) + ((size_t)1 << log_h) + i;
        T::template gs<false, false>(&u, &v, w[tw], ws[tw], c.q);
    }
    a[x] = u;
    a[y] = v;
}

template <class T> static void plan_destroy(void *plan)
{
    radix2_plan<T> *p = (radix2_plan<T> *)plan;
    if (p)
        nb_gpu_tables_free(&p->tw);
    free(p);
}

template <class T> static nb_status plan_create(void **out, const nb_ntt_tables *t, void *stream)
{
    radix2_plan<T> *p;
    NB_TRY(nb_gpu_plan_alloc((void **)&p, sizeof *p, T::BITS == 64 ? "gpu-radix2" : "gpu-radix2-32"));
    p->log_n = t->log_n;
    nb_status st = nb_gpu_tables_upload(&p->tw, t, (cudaStream_t)stream);
    if (st != NB_OK) {
        plan_destroy<T>(p);
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

template <class T>
static nb_status forward(void *plan, void *words, size_t first, size_t count, void *stream)
{
    typename T::W *data = (typename T::W *)words;
    const radix2_plan<T> *p = (const radix2_plan<T> *)plan;
    cudaStream_t s = (cudaStream_t)stream;
    for (unsigned log_m = 0; log_m < p->log_n; log_m++) {
        radix2_ct_stage<T><<<grid_for(count, p->log_n), RADIX2_THREADS, 0, s>>>(
            data, p->tw.fwd, p->tw.fwd_shoup, p->tw.limbs, first, count, p->log_n, log_m);
        NB_CUDA_LAUNCH_CHECK();
    }
    return NB_OK;
}

template <class T>
static nb_status inverse(void *plan, void *words, size_t first, size_t count, void *stream)
{
    typename T::W *data = (typename T::W *)words;
    const radix2_plan<T> *p = (const radix2_plan<T> *)plan;
    cudaStream_t s = (cudaStream_t)stream;
    for (unsigned log_h = p->log_n; log_h-- > 0;) {
        radix2_gs_stage<T><<<grid_for(count, p->log_n), RADIX2_THREADS, 0, s>>>(
            data, p->tw.inv, p->tw.inv_shoup, p->tw.limbs, first, count, p->log_n, log_h);
        NB_CUDA_LAUNCH_CHECK();
    }
    return NB_OK;
}

/* The kernels of a call (ntt/variant.h): the stage kernel, log N launches. */
template <class T>
static nb_status kernels(void *plan, int inverse, size_t first, size_t count, nb_ntt_kernel *out,
                         size_t max, size_t *n)
{
    (void)first;
    const radix2_plan<T> *p = (const radix2_plan<T> *)plan;
    *n = 1;
    if (max == 0)
        return NB_OK;
    const void *f = inverse ? (const void *)radix2_gs_stage<T> : (const void *)radix2_ct_stage<T>;
    return nb_ntt_kernel_describe(out, inverse ? "gs stage" : "ct stage", f, RADIX2_THREADS, 0,
                                  (unsigned long long)grid_for(count, p->log_n) * p->log_n,
                                  p->log_n);
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
    /* .plan_create = */ plan_create<nb_word64>,
    /* .plan_destroy = */ plan_destroy<nb_word64>,
    /* .forward = */ forward<nb_word64>,
    /* .inverse = */ inverse<nb_word64>,
    /* .forward_to = */ NULL, /* out of place: a copy, then in place */
    /* .inverse_to = */ NULL,
    /* .kernels = */ kernels<nb_word64>,
    /* .forward_sub_scale = */ NULL,
};

extern "C" const nb_ntt_variant nb_variant_gpu_radix2_32 = {
    /* .name = */ "gpu-radix2-32",
    /* .description = */ "GPU baseline on 32-bit words (primes < 2^31, _q31 butterflies): one "
                         "launch per stage, one radix-2 butterfly per thread, global twiddles",
    /* .backend = */ NB_BACKEND_GPU,
    /* .min_log_n = */ 1,
    /* .max_log_n = */ 17,
    /* .word_bits = */ 32,
    /* .max_prime_bits = */ NB_MAX_PRIME_BITS_32,
    /* .plan_create = */ plan_create<nb_word32>,
    /* .plan_destroy = */ plan_destroy<nb_word32>,
    /* .forward = */ forward<nb_word32>,
    /* .inverse = */ inverse<nb_word32>,
    /* .forward_to = */ NULL,
    /* .inverse_to = */ NULL,
    /* .kernels = */ kernels<nb_word32>,
    /* .forward_sub_scale = */ NULL,
};

/* Helpers shared by the GPU NTT variants (gpu_radix2.cu, gpu_smem.cu,
 * gpu_regs.cu) and by out-of-tree GPU variants that want them: the per-limb
 * constants every kernel needs, the device check that makes plan_create fail
 * cleanly without a GPU, table upload, and the plan boilerplate (allocating
 * the host plan, the device copy of the twiddle tables most variants read),
 * for 64-bit words and for 32-bit ones (nb_gpu_limb32, nb_gpu_tables32).
 * The modular arithmetic itself is ntt/arith.h; nothing here re-implements
 * it. */
#ifndef NB_GPU_COMMON_CUH
#define NB_GPU_COMMON_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/cuda_check.h"
#include "core/device.h"
#include "ntt/arith.h"
#include "ntt/tables.h"
#include "ntt/variant.h"

/* Per-limb constants of a plan, one struct per prime, in device memory. */
typedef struct nb_gpu_limb {
    uint64_t q;
    uint64_t n_inv, n_inv_shoup; /* N^-1 mod q and its Shoup companion */
    /* The last inverse (Gentleman-Sande) stage has the single twiddle
     * inv[1] = psi^-(N/2); folding N^-1 into it gives last_w = inv[1] * N^-1,
     * so the scaling costs no extra multiplication. */
    uint64_t last_w, last_w_shoup;
} nb_gpu_limb;

/* The same for 32-bit words (primes below 2^31, 32-bit Shoup companions). */
typedef struct nb_gpu_limb32 {
    uint32_t q, n_inv, n_inv_shoup, last_w, last_w_shoup;
} nb_gpu_limb32;

/* A table entry of nb_ntt_tables as a word of type W: a value (below q) and
 * a Shoup companion floor(w 2^64 / q), whose 32-bit form is its high word
 * (nb_shoup32_from64). */
template <class W> static inline W nb_gpu_word_of(uint64_t x) { return (W)x; }
template <class W> static inline W nb_gpu_shoup_of(uint64_t ws64)
{
    return sizeof(W) == 8 ? (W)ws64 : (W)nb_shoup32_from64(ws64);
}

/* NB_OK if a CUDA device is usable (nb_gpu_require); otherwise
 * NB_ERR_NO_DEVICE with the reason, prefixed by the variant's name. */
static inline nb_status nb_gpu_check_device(const char *variant)
{
    if (nb_gpu_require() == NB_OK)
        return NB_OK;
    char why[256];
    snprintf(why, sizeof why, "%s", nb_last_error());
    return nb_set_error(NB_ERR_NO_DEVICE, "variant '%s': %s", variant, why);
}

/* Allocates `bytes` of device memory at *dev and copies `host` into it on
 * `stream`, or zeroes it there when `host` is NULL (complete when the stream
 * is synchronized; the host buffer may be freed on return). On failure *dev
 * is NULL. */
static inline nb_status nb_gpu_upload(void **dev, const void *host, size_t bytes,
                                      cudaStream_t stream)
{
    *dev = NULL;
    NB_CUDA_TRY(cudaMalloc(dev, bytes));
    cudaError_t e = host ? cudaMemcpyAsync(*dev, host, bytes, cudaMemcpyHostToDevice, stream)
                         : cudaMemsetAsync(*dev, 0, bytes, stream);
    if (e != cudaSuccess) {
        cudaFree(*dev);
        *dev = NULL;
        NB_CUDA_TRY(e);
    }
    return NB_OK;
}

/* Builds `count` entries build(i) in a host buffer, uploads them to a new
 * device array *dev on `stream` and synchronizes it. On failure *dev is
 * NULL. */
template <class T, class BUILD>
static inline nb_status nb_gpu_upload_built(T **dev, size_t count, cudaStream_t stream,
                                            BUILD &&build)
{
    *dev = NULL;
    T *h = (T *)malloc(count * sizeof *h);
    if (!h)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "GPU plan: out of host memory");
    for (size_t i = 0; i < count; i++)
        h[i] = build(i);
    nb_status s = nb_gpu_upload((void **)dev, h, count * sizeof *h, stream);
    if (s == NB_OK) {
        cudaError_t e = cudaStreamSynchronize(stream); /* h is freed below */
        if (e != cudaSuccess) {
            cudaFree(*dev);
            *dev = NULL;
            s = nb_set_error(nb_cuda_status(e), "%s:%d: cudaStreamSynchronize failed: %s",
                             __FILE__, __LINE__, cudaGetErrorString(e));
        }
    }
    free(h);
    return s;
}

/* The per-limb constants of limb l of `t`. */
static inline void nb_gpu_limb_of(nb_gpu_limb *c, const nb_ntt_tables *t, size_t l)
{
#if !defined(__CUDA_ARCH__) /* host code; nvcc's device pass also parses it */
    const uint64_t q = t->q[l];
    c->q = q;
    c->n_inv = t->n_inv[l];
    c->n_inv_shoup = t->n_inv_shoup[l];
    c->last_w = nb_mul_mod(t->inv[l * t->n + 1], t->n_inv[l], q, t->mu_lo[l], t->mu_hi[l]);
    c->last_w_shoup = nb_shoup_precompute(c->last_w, q);
#endif
}
static inline void nb_gpu_limb_of(nb_gpu_limb32 *c, const nb_ntt_tables *t, size_t l)
{
    nb_gpu_limb w;
    nb_gpu_limb_of(&w, t, l);
    c->q = (uint32_t)w.q;
    c->n_inv = (uint32_t)w.n_inv;
    c->n_inv_shoup = nb_shoup32_from64(w.n_inv_shoup);
    c->last_w = (uint32_t)w.last_w;
    c->last_w_shoup = nb_shoup32_from64(w.last_w_shoup);
}

/* Builds and uploads the per-limb constants of `t` (t->limbs entries). */
template <class LIMB>
static inline nb_status nb_gpu_upload_limbs(LIMB **dev, const nb_ntt_tables *t, cudaStream_t stream)
{
    return nb_gpu_upload_built(dev, t->limbs, stream, [t](size_t l) {
        LIMB c;
        nb_gpu_limb_of(&c, t, l);
        return c;
    });
}

/* Uploads twiddles as interleaved pairs {w, w_shoup} (one 16-byte load gives
 * both): out[i] = {w[i], ws[i]} for i < count; synchronizes the stream. */
static inline nb_status nb_gpu_upload_pairs(ulonglong2 **dev, const uint64_t *w,
                                            const uint64_t *ws, size_t count,
                                            cudaStream_t stream)
{
    return nb_gpu_upload_built(dev, count, stream,
                               [=](size_t i) { return make_ulonglong2(w[i], ws[i]); });
}

/* First step of a plan_create: NB_ERR_NO_DEVICE (naming the variant) without
 * a usable device, else *plan = a zeroed host struct of `bytes`. */
static inline nb_status nb_gpu_plan_alloc(void **plan, size_t bytes, const char *variant)
{
    *plan = NULL;
    NB_TRY(nb_gpu_check_device(variant));
    *plan = calloc(1, bytes);
    if (!*plan)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "%s: out of host memory", variant);
    return NB_OK;
}

/* The device copy of nb_ntt_tables that plain global-memory kernels read,
 * in words of type W (64-bit, or 32-bit with 32-bit Shoup companions): the
 * four [L*N] twiddle tables in the tables' layout and the per-limb
 * constants. */
template <class W, class LIMB> struct nb_gpu_tables_of {
    W *fwd, *fwd_shoup; /* [L*N] psi^brv(i) and Shoup values */
    W *inv, *inv_shoup; /* [L*N] psi^-brv(i) and Shoup values */
    LIMB *limbs;        /* [L] */
};
typedef nb_gpu_tables_of<uint64_t, nb_gpu_limb> nb_gpu_tables;
typedef nb_gpu_tables_of<uint32_t, nb_gpu_limb32> nb_gpu_tables32;

/* Frees what nb_gpu_tables_upload allocated (any subset; fields become NULL). */
template <class W, class LIMB> static inline void nb_gpu_tables_free(nb_gpu_tables_of<W, LIMB> *g)
{
    cudaFree(g->fwd);
    cudaFree(g->fwd_shoup);
    cudaFree(g->inv);
    cudaFree(g->inv_shoup);
    cudaFree(g->limbs);
    g->fwd = g->fwd_shoup = g->inv = g->inv_shoup = NULL;
    g->limbs = NULL;
}

/* Uploads every table of `t` on `stream` and synchronizes it; on failure
 * frees what it uploaded (g all NULL). */
template <class W, class LIMB>
static inline nb_status nb_gpu_tables_upload(nb_gpu_tables_of<W, LIMB> *g, const nb_ntt_tables *t,
                                             cudaStream_t stream)
{
    const size_t n = t->limbs * t->n;
    nb_status st = nb_gpu_upload_built(&g->fwd, n, stream,
                                       [t](size_t i) { return nb_gpu_word_of<W>(t->fwd[i]); });
    if (st == NB_OK)
        st = nb_gpu_upload_built(&g->fwd_shoup, n, stream,
                                 [t](size_t i) { return nb_gpu_shoup_of<W>(t->fwd_shoup[i]); });
    if (st == NB_OK)
        st = nb_gpu_upload_built(&g->inv, n, stream,
                                 [t](size_t i) { return nb_gpu_word_of<W>(t->inv[i]); });
    if (st == NB_OK)
        st = nb_gpu_upload_built(&g->inv_shoup, n, stream,
                                 [t](size_t i) { return nb_gpu_shoup_of<W>(t->inv_shoup[i]); });
    if (st == NB_OK)
        st = nb_gpu_upload_limbs(&g->limbs, t, stream);
    if (st != NB_OK)
        nb_gpu_tables_free(g);
    return st;
}

#if defined(__CUDACC__)
/* ---- device helpers for kernels that stage data asynchronously (gpu_reg_passes.cuh) ---- */

/* cp.async of 16 bytes (bypassing L1), global -> shared; complete, like
 * every cp.async below, after nb_gpu_cp_async_wait_all() (and a barrier for
 * other threads). */
static __device__ __forceinline__ void nb_gpu_cp_async16(void *smem_dst, const void *src)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem_dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
}
/* cp.async of BYTES (4 or 8) through L1, global -> shared; with EVICT_FIRST
 * the source's L2 lines are marked evict-first: for data the kernel reads
 * once and that no later kernel of the same call rereads (a row phase's
 * twiddles), so that the other kernel's working set stays in L2 when it
 * fills. */
template <int BYTES, bool EVICT_FIRST>
static __device__ __forceinline__ void nb_gpu_cp_async_ca(void *smem_dst, const void *src)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem_dst);
    if constexpr (EVICT_FIRST) {
        uint64_t pol;
        asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(pol));
        asm volatile("cp.async.ca.shared.global.L2::cache_hint [%0], [%1], %2, %3;\n" ::"r"(s),
                     "l"(src), "n"(BYTES), "l"(pol)
                     : "memory");
    } else {
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(src), "n"(BYTES)
                     : "memory");
    }
}
static __device__ __forceinline__ void nb_gpu_cp_async8(void *smem_dst, const void *src)
{
    nb_gpu_cp_async_ca<8, false>(smem_dst, src);
}
/* Coefficients the loading kernel overwrites in place are read evict-first
 * too (__ldcs, nb_gpu_ld). */
static __device__ __forceinline__ void nb_gpu_cp_async8_evict_first(void *smem_dst, const void *src)
{
    nb_gpu_cp_async_ca<8, true>(smem_dst, src);
}
template <bool EVICT_FIRST> static __device__ __forceinline__ uint64_t nb_gpu_ld(const uint64_t *p)
{
    if constexpr (EVICT_FIRST)
        return __ldcs(reinterpret_cast<const unsigned long long *>(p));
    else
        return *p;
}
template <bool EVICT_FIRST>
static __device__ __forceinline__ ulonglong2 nb_gpu_ld2(const uint64_t *p)
{
    if constexpr (EVICT_FIRST)
        return __ldcs(reinterpret_cast<const ulonglong2 *>(p));
    else
        return *reinterpret_cast<const ulonglong2 *>(p);
}

static __device__ __forceinline__ void nb_gpu_cp_async_wait_all()
{
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
}
/* Closes the thread's open group of cp.async; nb_gpu_cp_async_wait_group<N>
 * waits until at most N of its closed groups are still in flight (the
 * newest ones). */
static __device__ __forceinline__ void nb_gpu_cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N> static __device__ __forceinline__ void nb_gpu_cp_async_wait_group()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/* Programmatic dependent launch (sm_90): the first kernel lets the next one
 * be scheduled; the next waits for the first's completion and memory before
 * touching its results. Both are no-ops below sm_90 or without the launch
 * attribute. */
static __device__ __forceinline__ void nb_gpu_pdl_launch_dependents()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}
static __device__ __forceinline__ void nb_gpu_pdl_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}
#endif

#endif

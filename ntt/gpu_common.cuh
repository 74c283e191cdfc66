/* Helpers shared by the GPU NTT variants (gpu_radix2.cu, gpu_smem.cu,
 * gpu_regs.cu) and by out-of-tree GPU variants that want them: the per-limb
 * constants every kernel needs, the device check that makes plan_create fail
 * cleanly without a GPU, table upload, and the plan boilerplate (allocating
 * the host plan, the device copy of the twiddle tables most variants read).
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

/* Builds and uploads the nb_gpu_limb array of `t` (t->limbs entries). */
static inline nb_status nb_gpu_upload_limbs(nb_gpu_limb **dev, const nb_ntt_tables *t,
                                            cudaStream_t stream)
{
    *dev = NULL;
    nb_gpu_limb *h = (nb_gpu_limb *)malloc(t->limbs * sizeof *h);
    if (!h)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "GPU plan: out of host memory");
#if !defined(__CUDA_ARCH__) /* host code; nvcc's device pass also parses it */
    for (size_t l = 0; l < t->limbs; l++) {
        const uint64_t q = t->q[l];
        h[l].q = q;
        h[l].n_inv = t->n_inv[l];
        h[l].n_inv_shoup = t->n_inv_shoup[l];
        h[l].last_w = nb_mul_mod(t->inv[l * t->n + 1], t->n_inv[l], q, t->mu_lo[l], t->mu_hi[l]);
        h[l].last_w_shoup = nb_shoup_precompute(h[l].last_w, q);
    }
#endif
    nb_status s = nb_gpu_upload((void **)dev, h, t->limbs * sizeof *h, stream);
    if (s == NB_OK) {
        cudaError_t e = cudaStreamSynchronize(stream);
        if (e != cudaSuccess) {
            cudaFree(*dev);
            *dev = NULL;
            free(h);
            NB_CUDA_TRY(e);
        }
    }
    free(h);
    return s;
}

/* Uploads twiddles as interleaved pairs {w, w_shoup} (one 16-byte load gives
 * both): out[i] = {w[i], ws[i]} for i < count. */
static inline nb_status nb_gpu_upload_pairs(ulonglong2 **dev, const uint64_t *w,
                                            const uint64_t *ws, size_t count,
                                            cudaStream_t stream)
{
    *dev = NULL;
    ulonglong2 *h = (ulonglong2 *)malloc(count * sizeof *h);
    if (!h)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "GPU plan: out of host memory");
    for (size_t i = 0; i < count; i++) {
        h[i].x = w[i];
        h[i].y = ws[i];
    }
    nb_status s = nb_gpu_upload((void **)dev, h, count * sizeof *h, stream);
    if (s == NB_OK) {
        cudaError_t e = cudaStreamSynchronize(stream); /* h is freed below */
        if (e != cudaSuccess) {
            cudaFree(*dev);
            *dev = NULL;
            free(h);
            NB_CUDA_TRY(e);
        }
    }
    free(h);
    return s;
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

/* The device copy of nb_ntt_tables that plain global-memory kernels read:
 * the four [L*N] twiddle tables in the tables' layout and the per-limb
 * constants. */
typedef struct nb_gpu_tables {
    uint64_t *fwd, *fwd_shoup; /* [L*N] psi^brv(i) and Shoup values */
    uint64_t *inv, *inv_shoup; /* [L*N] psi^-brv(i) and Shoup values */
    nb_gpu_limb *limbs;        /* [L] */
} nb_gpu_tables;

/* Frees what nb_gpu_tables_upload allocated (any subset; fields become NULL). */
static inline void nb_gpu_tables_free(nb_gpu_tables *g)
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
static inline nb_status nb_gpu_tables_upload(nb_gpu_tables *g, const nb_ntt_tables *t,
                                             cudaStream_t stream)
{
    const size_t bytes = t->limbs * t->n * sizeof(uint64_t);
    nb_status st = nb_gpu_upload((void **)&g->fwd, t->fwd, bytes, stream);
    if (st == NB_OK)
        st = nb_gpu_upload((void **)&g->fwd_shoup, t->fwd_shoup, bytes, stream);
    if (st == NB_OK)
        st = nb_gpu_upload((void **)&g->inv, t->inv, bytes, stream);
    if (st == NB_OK)
        st = nb_gpu_upload((void **)&g->inv_shoup, t->inv_shoup, bytes, stream);
    if (st == NB_OK)
        st = nb_gpu_upload_limbs(&g->limbs, t, stream); /* synchronizes the stream */
    if (st != NB_OK)
        nb_gpu_tables_free(g);
    return st;
}

#if defined(__CUDACC__)
/* ---- device helpers for kernels that stage data asynchronously (gpu_reg_passes.cuh) ---- */

/* cp.async of 16 bytes (bypassing L1) and of 8 bytes, global -> shared;
 * complete after nb_gpu_cp_async_wait_all() (and a barrier for other threads). */
static __device__ __forceinline__ void nb_gpu_cp_async16(void *smem_dst, const void *src)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem_dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
}
static __device__ __forceinline__ void nb_gpu_cp_async8(void *smem_dst, const void *src)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem_dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(s), "l"(src) : "memory");
}
/* L2 evict-first variants, for data the kernel reads once and that no later
 * kernel of the same call rereads: a row phase's twiddles (8-byte copy), and
 * coefficients the loading kernel overwrites in place (__ldcs). Their lines
 * go first when L2 fills, so the other kernel's working set stays. */
static __device__ __forceinline__ void nb_gpu_cp_async8_evict_first(void *smem_dst, const void *src)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem_dst);
    uint64_t pol;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(pol));
    asm volatile("cp.async.ca.shared.global.L2::cache_hint [%0], [%1], 8, %2;\n" ::"r"(s), "l"(src),
                 "l"(pol)
                 : "memory");
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

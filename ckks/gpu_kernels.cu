/* GPU kernels of the CKKS pipelines (C interface in ckks/consts.h):
 *  - fused fast base conversion: one block stages [x_i * qhat_i^-1]_{q_i} of
 *    32 coefficients (and the conversion table when it fits) in shared
 *    memory (phase 1), then its threads accumulate sum_i y_i * (qhat_i mod
 *    b_j) for two targets at a time in 128 bits and reduce once per output
 *    (phase 2; a partial reduction every `chunk` products only when more
 *    source primes than that could overflow 128 bits);
 *  - the key-switch inner product over all digits, 128-bit accumulation and
 *    one reduction per output;
 *  - the elementwise steps of modDown and rescale.
 * Every launch is asynchronous on the caller's stream and checked; nothing
 * here allocates or synchronizes. The arithmetic is ntt/arith.h, the same
 * the CPU kernels use. */
#include <atomic>
#include <mutex>

#include <cuda_runtime_api.h>

#include "ckks/consts.h"
#include "ntt/arith.h"
#include "core/cuda_check.h"

#define CONV_TILE 32   /* coefficients per conversion block (one warp wide) */
#define CONV_GROUPS 8  /* target groups per block (largest blockDim.y)      */
#define CONV_TARGETS 2 /* targets per thread at a time                      */
#define EW_THREADS 256 /* elementwise kernels: threads per block             */

namespace { /* kernels have internal linkage: no clash with other modules */

/* acc (hi:lo) += a * b with the carry chain of the extended-precision
 * multiply-add instructions. The caller guarantees no overflow of hi. */
__device__ __forceinline__ void mac128(uint64_t &lo, uint64_t &hi, uint64_t a, uint64_t b)
{
    asm("mad.lo.cc.u64 %0, %2, %3, %0;\n\t"
        "madc.hi.u64 %1, %2, %3, %1;"
        : "+l"(lo), "+l"(hi)
        : "l"(a), "l"(b));
}

/* Fused Conv_{C->B}. Block: CONV_TILE coefficients x up to CONV_GROUPS
 * target groups. Phase 1 stages y_i = [x_i * qhat_i^-1]_{q_i} of the tile in
 * shared memory (coalesced along coefficients) and, when HS, the table
 * (C/c_i) mod b_j; phase 2: thread (x, g) accumulates CONV_TARGETS targets of
 * coefficient x at a time (targets g*T.., then every G*T further), each y_i
 * read once from shared memory serving all of them, in independent 128-bit
 * sums with one reduction per output (and one every `chunk` products when
 * more source primes than that could overflow 128 bits). Measured on the
 * H100 (ckks16-l30-d3 key switch, 5 conversions of 11 -> 31 primes): the
 * table in shared memory instead of broadcast global loads took the
 * conversions from 216 to 199 us; two targets per thread (48 registers,
 * 5 blocks per SM) instead of four (74, 3 blocks) from 206 to 197 us. The
 * kernel is not bound by the multiply-add chains: 2, 4 or 8 targets per
 * thread with the table in global memory all took 213-220 us. */
template <bool HS>
__global__ void __launch_bounds__(CONV_TILE *CONV_GROUPS)
    conv_kernel(nb_conv_view v, uint64_t *__restrict__ out, const uint64_t *__restrict__ in,
                size_t n)
{
    extern __shared__ uint64_t y[]; /* [n_from][CONV_TILE], then (HS) [n_to][n_from] */
    constexpr int T = CONV_TARGETS;
    const size_t c0 = (size_t)blockIdx.x * CONV_TILE;
    const unsigned nthr = CONV_TILE * blockDim.y;
    const unsigned tid = threadIdx.y * CONV_TILE + threadIdx.x;
    const unsigned nf = v.n_from, nt = v.n_to;
    uint64_t *hs = y + nf * CONV_TILE;
    if (HS)
        for (unsigned idx = tid; idx < nt * nf; idx += nthr)
            hs[idx] = v.qhat_mod[idx];
    for (unsigned idx = tid; idx < nf * CONV_TILE; idx += nthr) {
        const unsigned i = idx / CONV_TILE, c = idx % CONV_TILE;
        const size_t col = c0 + c;
        if (col < n)
            y[idx] = nb_mul_shoup(in[(size_t)i * n + col], v.qhat_inv[i], v.qhat_inv_shoup[i],
                                  v.from_q[i]);
    }
    __syncthreads();
    const size_t col = c0 + threadIdx.x;
    if (col >= n)
        return;
    const uint64_t *ys = y + threadIdx.x;
    const uint64_t *hq = HS ? hs : v.qhat_mod;
    for (unsigned jb = threadIdx.y * T; jb < nt; jb += blockDim.y * T) {
        uint64_t lo[T], hi[T];
        const uint64_t *row[T];
        unsigned j[T]; /* past the last target: repeats it, not stored */
#pragma unroll
        for (int t = 0; t < T; t++) {
            lo[t] = hi[t] = 0;
            j[t] = jb + t < nt ? jb + t : nt - 1;
            row[t] = hq + (size_t)j[t] * nf;
        }
        for (unsigned i0 = 0; i0 < nf; i0 += v.chunk) {
            const unsigned i1 = i0 + v.chunk < nf ? i0 + v.chunk : nf;
#pragma unroll 2
            for (unsigned i = i0; i < i1; i++) {
                const uint64_t yi = ys[i * CONV_TILE];
#pragma unroll
                for (int t = 0; t < T; t++)
                    mac128(lo[t], hi[t], yi, row[t][i]);
            }
            if (i1 < nf)
#pragma unroll
                for (int t = 0; t < T; t++) {
                    lo[t] = nb_reduce_128(lo[t], hi[t], v.to_q[j[t]], v.to_mu_lo[j[t]],
                                          v.to_mu_hi[j[t]]);
                    hi[t] = 0;
                }
        }
#pragma unroll
        for (int t = 0; t < T; t++)
            if (jb + t < nt)
                out[(size_t)v.out_limb[j[t]] * n + col] =
                    nb_reduce_128(lo[t], hi[t], v.to_q[j[t]], v.to_mu_lo[j[t]], v.to_mu_hi[j[t]]);
    }
}

} // namespace

/* Largest dynamic shared memory the conversion kernel has been allowed, per
 * device (a function attribute holds for the device current when it is set);
 * 0 means the 48 KiB default. Devices past CONV_MAX_DEVICES set the attribute
 * on every reservation. */
#define CONV_DEFAULT_SMEM (48 * 1024)
#define CONV_MAX_DEVICES 64
static std::atomic<size_t> conv_smem_allowed[CONV_MAX_DEVICES];
static std::mutex conv_smem_mutex;

extern "C" nb_status nb_gpu_conv_reserve(size_t n_from)
{
    const size_t smem = n_from * CONV_TILE * sizeof(uint64_t);
    if (smem <= CONV_DEFAULT_SMEM)
        return NB_OK;
    int dev = 0;
    NB_CUDA_TRY(cudaGetDevice(&dev));
    std::atomic<size_t> *allowed = dev < CONV_MAX_DEVICES ? &conv_smem_allowed[dev] : NULL;
    if (allowed && smem <= allowed->load(std::memory_order_acquire))
        return NB_OK;
    std::lock_guard<std::mutex> lock(conv_smem_mutex); /* raise and record together */
    if (allowed && smem <= allowed->load(std::memory_order_relaxed))
        return NB_OK;
    NB_CUDA_TRY(cudaFuncSetAttribute(conv_kernel<false>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    if (allowed)
        allowed->store(smem, std::memory_order_release);
    return NB_OK;
}

extern "C" nb_status nb_gpu_conv(const nb_conv_view *v, uint64_t *out, const uint64_t *in,
                                 size_t n, void *stream)
{
    if (v->n_from == 0 || v->n_from > 256)
        return nb_set_error(NB_ERR_INVALID_ARG, "base conversion: %u source primes (1..256)",
                            v->n_from);
    if (v->n_to == 0)
        return NB_OK;
    const size_t smem = (size_t)v->n_from * CONV_TILE * sizeof(uint64_t);
    const size_t table = (size_t)v->n_to * v->n_from * sizeof(uint64_t);
    const unsigned groups = (v->n_to + CONV_TARGETS - 1) / CONV_TARGETS;
    const dim3 block(CONV_TILE, groups < CONV_GROUPS ? groups : CONV_GROUPS);
    const dim3 grid((unsigned)((n + CONV_TILE - 1) / CONV_TILE));
    cudaStream_t s = (cudaStream_t)stream;
    if (smem + table <= CONV_DEFAULT_SMEM) { /* the table fits beside the tile */
        conv_kernel<true><<<grid, block, smem + table, s>>>(*v, out, in, n);
    } else {
        NB_TRY(nb_gpu_conv_reserve(v->n_from)); /* no-op once reserved at plan creation */
        conv_kernel<false><<<grid, block, smem, s>>>(*v, out, in, n);
    }
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

namespace {
__global__ void sub_mul_kernel(const uint64_t *__restrict__ q, const uint64_t *__restrict__ w,
                               const uint64_t *__restrict__ ws, uint64_t *__restrict__ out,
                               const uint64_t *__restrict__ a, const uint64_t *__restrict__ b,
                               size_t n)
{
    const size_t limb = blockIdx.y;
    const size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n)
        return;
    const uint64_t qi = q[limb];
    const size_t at = limb * n + c;
    out[at] = nb_mul_shoup(nb_sub_mod(a[at], b[at], qi), w[limb], ws[limb], qi);
}

} // namespace

extern "C" nb_status nb_gpu_sub_mul(const nb_limb_consts *k, uint64_t *out, const uint64_t *a,
                                    const uint64_t *b, size_t count, size_t n, void *stream)
{
    if (count == 0)
        return NB_OK;
    dim3 grid((unsigned)((n + EW_THREADS - 1) / EW_THREADS), (unsigned)count);
    sub_mul_kernel<<<grid, EW_THREADS, 0, (cudaStream_t)stream>>>(k->q, k->w, k->w_shoup, out,
                                                                   a, b, n);
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

namespace {
__global__ void rescale_bring_kernel(uint64_t *__restrict__ t, const uint64_t *__restrict__ r,
                                     uint64_t q_l, uint64_t h_l, const uint64_t *__restrict__ q,
                                     const uint64_t *__restrict__ mu_lo,
                                     const uint64_t *__restrict__ mu_hi,
                                     const uint64_t *__restrict__ h, size_t n)
{
    const size_t i = blockIdx.y;
    const size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n)
        return;
    const uint64_t qi = q[i];
    uint64_t x = r[c];
    if (h) {
        x = nb_add_mod(x, h_l, q_l);
        t[i * n + c] = nb_sub_mod(nb_reduce_64(x, qi, mu_lo[i], mu_hi[i]), h[i], qi);
    } else {
        t[i * n + c] = nb_reduce_64(x, qi, mu_lo[i], mu_hi[i]);
    }
}

} // namespace

extern "C" nb_status nb_gpu_rescale_bring(uint64_t *t, const uint64_t *r, uint64_t q_l,
                                          uint64_t h_l, const uint64_t *q, const uint64_t *mu_lo,
                                          const uint64_t *mu_hi, const uint64_t *h, size_t count,
                                          size_t n, void *stream)
{
    if (count == 0)
        return NB_OK;
    dim3 grid((unsigned)((n + EW_THREADS - 1) / EW_THREADS), (unsigned)count);
    rescale_bring_kernel<<<grid, EW_THREADS, 0, (cudaStream_t)stream>>>(t, r, q_l, h_l, q, mu_lo,
                                                                         mu_hi, h, n);
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

namespace {
__global__ void inner_product_kernel(nb_ip_geom g, uint64_t *__restrict__ acc0,
                                     uint64_t *__restrict__ acc1,
                                     const uint64_t *__restrict__ ext,
                                     const uint64_t *__restrict__ in,
                                     const uint64_t *__restrict__ key)
{
    const size_t m = blockIdx.y;
    const size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= g.n)
        return;
    const size_t n = g.n, L1 = g.level + 1, E = g.ext_limbs, per = g.q_count + g.alpha;
    const size_t pm = m < L1 ? m : g.q_count + (m - L1);
    const uint64_t q = g.prime_q[pm], ml = g.prime_mu_lo[pm], mh = g.prime_mu_hi[pm];
    uint64_t lo0 = 0, hi0 = 0, lo1 = 0, hi1 = 0;
    unsigned k = 0;
    for (size_t j = 0; j < g.digits; j++) {
        const size_t first = j * g.alpha_digit;
        const bool from_in = in && m < L1 && m >= first && m < first + g.alpha_digit;
        const uint64_t x = from_in ? in[m * n + c] : ext[(j * E + m) * n + c];
        mac128(lo0, hi0, x, key[((2 * j) * per + pm) * n + c]);
        mac128(lo1, hi1, x, key[((2 * j + 1) * per + pm) * n + c]);
        if (++k == g.chunk && j + 1 < g.digits) {
            lo0 = nb_reduce_128(lo0, hi0, q, ml, mh);
            lo1 = nb_reduce_128(lo1, hi1, q, ml, mh);
            hi0 = hi1 = 0;
            k = 0;
        }
    }
    acc0[m * n + c] = nb_reduce_128(lo0, hi0, q, ml, mh);
    acc1[m * n + c] = nb_reduce_128(lo1, hi1, q, ml, mh);
}

} // namespace

extern "C" nb_status nb_gpu_inner_product(const nb_ip_geom *g, uint64_t *acc0, uint64_t *acc1,
                                          const uint64_t *ext, const uint64_t *in,
                                          const uint64_t *key, void *stream)
{
    dim3 grid((unsigned)((g->n + EW_THREADS - 1) / EW_THREADS), (unsigned)g->ext_limbs);
    inner_product_kernel<<<grid, EW_THREADS, 0, (cudaStream_t)stream>>>(*g, acc0, acc1, ext, in,
                                                                         key);
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

extern "C" nb_status nb_gpu_copy(uint64_t *dst, const uint64_t *src, size_t words, void *stream)
{
    NB_CUDA_TRY(cudaMemcpyAsync(dst, src, words * sizeof(uint64_t), cudaMemcpyDeviceToDevice,
                                (cudaStream_t)stream));
    return NB_OK;
}

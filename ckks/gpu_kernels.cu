/* GPU kernels of the CKKS pipelines (C interface in ckks/consts.h); the
 * 32-bit conversion is in gpu_conv32.cu, the elementwise kernels and the
 * inner product take either word size:
 *  - fused fast base conversion: one block stages [x_i * qhat_i^-1]_{q_i} of
 *    32 coefficients (and the conversion table when it fits) in shared
 *    memory (phase 1), then its threads accumulate sum_i y_i * (qhat_i mod
 *    b_j) for two targets at a time in 128 bits and reduce once per output
 *    (phase 2; unrolled with a Montgomery table for up to 16 source primes);
 *  - the key-switch inner product over all digits, 128-bit accumulation and
 *    one reduction per output;
 *  - the elementwise steps of modDown and rescale.
 * Every launch is asynchronous on the caller's stream and checked; nothing
 * here allocates or synchronizes. On sm_90 and later every kernel here is
 * launched with programmatic dependent launch: it lets its successor be
 * scheduled once all its own blocks have started (griddepcontrol
 * launch_dependents at its start) and waits for its predecessor's results
 * (griddepcontrol wait) before reading them, so that a kernel's blocks take
 * the SMs its predecessor's last wave leaves idle instead of starting after
 * it drains. The arithmetic is ntt/arith.h, the same the CPU kernels use. */
#include <atomic>
#include <mutex>
#include <type_traits>
#include <utility>

#include <cuda_runtime_api.h>

#include "ckks/consts.h"
#include "ckks/gpu_launch.cuh"
#include "core/cuda_check.h"
#include "ntt/arith.h"
#include "ntt/gpu_common.cuh"
#include "ntt/gpu_word.cuh"

#define CONV_TILE 32   /* coefficients per conversion block (one warp wide) */
#define CONV_GROUPS 8  /* target groups per block (largest blockDim.y)      */
#define CONV_TARGETS 2 /* targets per thread at a time                      */
#define CONV_MAX_NF 16 /* source primes up to which the kernel is unrolled  */
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

/* A 128-bit sum of 64 x 64-bit products kept as (h:l) + (mc:m) * 2^32 in
 * 32-bit words: each product a*b adds a0*b0 + a1*b1 * 2^64 to (h:l) and the
 * cross terms a0*b1 + a1*b0 to (mc:m), so one product costs four 32 x 32 ->
 * 64-bit multiply-adds and two carry adds, with no 64-bit high product.
 * Every part is bounded by the whole sum, so no part overflows while the sum
 * stays below 2^128 (the caller's `chunk`). */
struct acc128 {
    uint32_t l0, l1, h0, h1, m0, m1, mc;
};

__device__ __forceinline__ void acc_zero(acc128 &s)
{
    s.l0 = s.l1 = s.h0 = s.h1 = s.m0 = s.m1 = s.mc = 0;
}

__device__ __forceinline__ void acc_mac(acc128 &s, uint64_t a, uint64_t b)
{
    const uint32_t a0 = (uint32_t)a, a1 = (uint32_t)(a >> 32);
    const uint32_t b0 = (uint32_t)b, b1 = (uint32_t)(b >> 32);
    asm("mad.lo.cc.u32 %0, %7, %9, %0;\n\t"
        "madc.hi.cc.u32 %1, %7, %9, %1;\n\t"
        "madc.lo.cc.u32 %2, %8, %10, %2;\n\t"
        "madc.hi.u32 %3, %8, %10, %3;\n\t"
        "mad.lo.cc.u32 %4, %7, %10, %4;\n\t"
        "madc.hi.cc.u32 %5, %7, %10, %5;\n\t"
        "addc.u32 %6, %6, 0;\n\t"
        "mad.lo.cc.u32 %4, %8, %9, %4;\n\t"
        "madc.hi.cc.u32 %5, %8, %9, %5;\n\t"
        "addc.u32 %6, %6, 0;"
        : "+r"(s.l0), "+r"(s.l1), "+r"(s.h0), "+r"(s.h1), "+r"(s.m0), "+r"(s.m1), "+r"(s.mc)
        : "r"(a0), "r"(a1), "r"(b0), "r"(b1));
}

/* The sum as (lo, hi). */
__device__ __forceinline__ void acc_get(const acc128 &s, uint64_t &lo, uint64_t &hi)
{
    uint32_t l1, h0, h1;
    asm("add.cc.u32 %0, %3, %6;\n\t"
        "addc.cc.u32 %1, %4, %7;\n\t"
        "addc.u32 %2, %5, %8;"
        : "=r"(l1), "=r"(h0), "=r"(h1)
        : "r"(s.l1), "r"(s.h0), "r"(s.h1), "r"(s.m0), "r"(s.m1), "r"(s.mc));
    lo = ((uint64_t)l1 << 32) | s.l0;
    hi = ((uint64_t)h1 << 32) | h0;
}

/* Fused Conv_{C->B}. Block: CONV_TILE coefficients x up to CONV_GROUPS
 * target groups. Phase 1 stages y_i = [x_i * qhat_i^-1]_{q_i} of the tile in
 * shared memory (coalesced along coefficients) and, when HS, the table;
 * phase 2: thread (x, g) accumulates CONV_TARGETS targets of coefficient x
 * at a time (targets g*T.., then every G*T further), each y_i read once from
 * shared memory serving all of them, in independent 128-bit sums (acc128).
 * NF > 0 (exactly NF source primes, v.redc_steps > 0): the loop over the
 * primes is unrolled and the table is (C/c_i) 2^64 mod b_j, so each output
 * is one nb_redc_128 and redc_steps conditional subtractions. NF = 0: any
 * count, table (C/c_i) mod b_j, one Barrett reduction per output and one
 * every `chunk` products when more source primes than that could overflow
 * 128 bits. Math-pipe throttle is the top stall under Nsight Compute;
 * docs/results.md has the profile and the measured steps. */
template <bool HS, int NF>
__global__ void __launch_bounds__(CONV_TILE *CONV_GROUPS)
    conv_kernel(nb_conv_view v, nb_polys io, size_t n)
{
    const bool second = blockIdx.y; /* a select, not an index: io stays in parameter space */
    uint64_t *__restrict__ out = (uint64_t *)(second ? io.out[1] : io.out[0]);
    const uint64_t *__restrict__ in = (const uint64_t *)(second ? io.a[1] : io.a[0]);
    extern __shared__ uint64_t y[]; /* [n_from][CONV_TILE], then (HS) [n_to][n_from] */
    constexpr int T = CONV_TARGETS;
    const size_t c0 = (size_t)blockIdx.x * CONV_TILE;
    const unsigned nthr = CONV_TILE * blockDim.y;
    const unsigned tid = threadIdx.y * CONV_TILE + threadIdx.x;
    const unsigned nf = NF ? NF : v.n_from, nt = v.n_to;
    uint64_t *hs = y + nf * CONV_TILE;
    const uint64_t *table = NF ? v.qhat_mont : v.qhat_mod;
    nb_gpu_pdl_launch_dependents();
    if (HS) /* constants: written before any pipeline call */
        for (unsigned idx = tid; idx < nt * nf; idx += nthr)
            hs[idx] = table[idx];
    nb_gpu_pdl_wait();
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
    const uint64_t *hq = HS ? hs : table;
    for (unsigned jb = threadIdx.y * T; jb < nt; jb += blockDim.y * T) {
        acc128 acc[T];
        const uint64_t *row[T];
        unsigned j[T]; /* past the last target: repeats it, not stored */
#pragma unroll
        for (int t = 0; t < T; t++) {
            acc_zero(acc[t]);
            j[t] = jb + t < nt ? jb + t : nt - 1;
            row[t] = hq + (size_t)j[t] * nf;
        }
        if constexpr (NF > 0) { /* one sum in nb_redc_128's domain, unrolled */
#pragma unroll
            for (int i = 0; i < NF; i++) {
                const uint64_t yi = ys[i * CONV_TILE];
#pragma unroll
                for (int t = 0; t < T; t++)
                    acc_mac(acc[t], yi, row[t][i]);
            }
        } else {
            for (unsigned i0 = 0; i0 < nf; i0 += v.chunk) {
                const unsigned i1 = i0 + v.chunk < nf ? i0 + v.chunk : nf;
#pragma unroll 2
                for (unsigned i = i0; i < i1; i++) {
                    const uint64_t yi = ys[i * CONV_TILE];
#pragma unroll
                    for (int t = 0; t < T; t++)
                        acc_mac(acc[t], yi, row[t][i]);
                }
                if (i1 < nf) {
#pragma unroll
                    for (int t = 0; t < T; t++) {
                        uint64_t lo, hi;
                        acc_get(acc[t], lo, hi);
                        lo = nb_reduce_128(lo, hi, v.to_q[j[t]], v.to_mu_lo[j[t]],
                                           v.to_mu_hi[j[t]]);
                        acc_zero(acc[t]);
                        acc[t].l0 = (uint32_t)lo;
                        acc[t].l1 = (uint32_t)(lo >> 32);
                    }
                }
            }
        }
#pragma unroll
        for (int t = 0; t < T; t++)
            if (jb + t < nt) {
                uint64_t lo, hi, r;
                acc_get(acc[t], lo, hi);
                const uint64_t q = v.to_q[j[t]];
                if constexpr (NF > 0) { /* Montgomery table: S 2^-64 = the sum */
                    r = nb_redc_128(lo, hi, q, v.to_neg_inv[j[t]]);
#pragma unroll 1
                    for (int k = (int)v.redc_steps - 1; k >= 0; k--)
                        r = nb_csub(r, q << k); /* r < 2^(k+1) q -> r < 2^k q */
                } else {
                    r = nb_reduce_128(lo, hi, q, v.to_mu_lo[j[t]], v.to_mu_hi[j[t]]);
                }
                out[(size_t)v.out_limb[j[t]] * n + col] = r;
            }
    }
}

typedef void (*conv_kernel_fn)(nb_conv_view, nb_polys, size_t);

template <int... I> conv_kernel_fn conv_unrolled_at(unsigned nf, std::integer_sequence<int, I...>)
{
    static const conv_kernel_fn k[] = {conv_kernel<true, I + 1>...};
    return k[nf - 1];
}

/* The conversion kernel unrolled for nf in [1, CONV_MAX_NF] source primes. */
conv_kernel_fn conv_unrolled(unsigned nf)
{
    return conv_unrolled_at(nf, std::make_integer_sequence<int, CONV_MAX_NF>{});
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
    NB_CUDA_TRY(cudaFuncSetAttribute(conv_kernel<false, 0>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    if (allowed)
        allowed->store(smem, std::memory_order_release);
    return NB_OK;
}

extern "C" nb_status nb_gpu_conv(const nb_conv_view *v, const nb_polys *io, size_t n,
                                 void *stream)
{
    if (v->n_from == 0 || v->n_from > 256)
        return nb_set_error(NB_ERR_INVALID_ARG, "base conversion: %u source primes (1..256)",
                            v->n_from);
    if (io->count < 1 || io->count > NB_POLYS)
        return nb_set_error(NB_ERR_INVALID_ARG, "base conversion: %u polynomials (1..%d)",
                            io->count, NB_POLYS);
    if (v->n_to == 0)
        return NB_OK;
    if (io->word_bits == 32)
        return nb_gpu_conv32(v, io, n, stream);
    const size_t smem = (size_t)v->n_from * CONV_TILE * sizeof(uint64_t);
    const size_t table = (size_t)v->n_to * v->n_from * sizeof(uint64_t);
    const unsigned groups = (v->n_to + CONV_TARGETS - 1) / CONV_TARGETS;
    const dim3 block(CONV_TILE, groups < CONV_GROUPS ? groups : CONV_GROUPS);
    const dim3 grid((unsigned)((n + CONV_TILE - 1) / CONV_TILE), io->count);
    cudaStream_t s = (cudaStream_t)stream;
    if (smem + table <= CONV_DEFAULT_SMEM) { /* the table fits beside the tile */
        const bool unrolled = v->n_from <= CONV_MAX_NF && v->redc_steps > 0;
        conv_kernel_fn k = unrolled ? conv_unrolled(v->n_from) : conv_kernel<true, 0>;
        NB_TRY(launch_pdl(k, grid, block, smem + table, s, *v, *io, n));
    } else {
        NB_TRY(nb_gpu_conv_reserve(v->n_from)); /* no-op once reserved at plan creation */
        NB_TRY(launch_pdl(conv_kernel<false, 0>, grid, block, smem, s, *v, *io, n));
    }
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

namespace {
/* out = (a - b) * w per limb (blockIdx.y) and polynomial (blockIdx.z), on
 * words T (uint64_t or uint32_t), V consecutive coefficients per thread
 * (V = 4 on 32-bit words: 16-byte accesses). a (the step's input) is read and
 * out written with streaming (evict-first) hints, so that b, the NTT output
 * the previous kernel just left in L2, stays there until it is read
 * (docs/tuning.md, "Streaming hints"). */
template <class T, int V>
__global__ void sub_mul_kernel(const uint64_t *__restrict__ q, const uint64_t *__restrict__ w,
                               const uint64_t *__restrict__ ws, nb_polys io, size_t n)
{
    const bool second = blockIdx.z; /* a select, not an index (see conv_kernel) */
    T *__restrict__ out = (T *)(second ? io.out[1] : io.out[0]);
    const T *__restrict__ a = (const T *)(second ? io.a[1] : io.a[0]);
    const T *__restrict__ b = (const T *)(second ? io.b[1] : io.b[0]);
    nb_gpu_pdl_launch_dependents();
    nb_gpu_pdl_wait();
    const size_t limb = blockIdx.y;
    const size_t c = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * V;
    if (c >= n)
        return;
    const size_t at = limb * n + c;
    if constexpr (V == 4) {
        const uint32_t qi = (uint32_t)q[limb], wi = (uint32_t)w[limb];
        const uint32_t wsi = nb_shoup32_from64(ws[limb]);
        const uint4 av = __ldcs((const uint4 *)&a[at]), bv = *(const uint4 *)&b[at];
        const uint32_t x[4] = {av.x, av.y, av.z, av.w}, y[4] = {bv.x, bv.y, bv.z, bv.w};
        uint32_t r[4];
#pragma unroll
        for (int k = 0; k < 4; k++)
            r[k] = nb_mul_shoup32(nb_csub32(x[k] + qi - y[k], qi), wi, wsi, qi);
        __stcs((uint4 *)&out[at], make_uint4(r[0], r[1], r[2], r[3]));
    } else if constexpr (sizeof(T) == 4) {
        const uint32_t qi = (uint32_t)q[limb];
        const uint32_t d = nb_csub32(a[at] + qi - b[at], qi);
        out[at] = nb_mul_shoup32(d, (uint32_t)w[limb], nb_shoup32_from64(ws[limb]), qi);
    } else {
        const uint64_t qi = q[limb];
        const uint64_t ai = __ldcs((const unsigned long long *)&a[at]);
        __stcs((unsigned long long *)&out[at],
               (unsigned long long)nb_mul_shoup(nb_sub_mod(ai, b[at], qi), w[limb], ws[limb], qi));
    }
}

/* Every pointer of io 16-byte aligned (and n a multiple of 4): the 32-bit
 * kernels may take 4 coefficients per thread. */
bool polys_vec4(const nb_polys *io, size_t n)
{
    bool ok = n % 4 == 0;
    for (unsigned p = 0; p < io->count; p++)
        ok = ok && (uintptr_t)io->out[p] % 16 == 0 && (uintptr_t)io->a[p] % 16 == 0 &&
             (!io->b[p] || (uintptr_t)io->b[p] % 16 == 0);
    return ok;
}

} // namespace

extern "C" nb_status nb_gpu_sub_mul(const nb_limb_consts *k, const nb_polys *io, size_t count,
                                    size_t n, void *stream)
{
    if (io->count < 1 || io->count > NB_POLYS)
        return nb_set_error(NB_ERR_INVALID_ARG, "sub_mul: %u polynomials (1..%d)", io->count,
                            NB_POLYS);
    if (count == 0)
        return NB_OK;
    const bool vec = io->word_bits == 32 && polys_vec4(io, n);
    const size_t per = EW_THREADS * (vec ? 4 : 1);
    dim3 grid((unsigned)((n + per - 1) / per), (unsigned)count, io->count);
    auto kern = io->word_bits != 32 ? sub_mul_kernel<uint64_t, 1>
                : vec               ? sub_mul_kernel<uint32_t, 4>
                                    : sub_mul_kernel<uint32_t, 1>;
    NB_TRY(launch_pdl(kern, grid, EW_THREADS, 0, (cudaStream_t)stream, k->q, k->w, k->w_shoup,
                      *io, n));
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

namespace {
/* Rescale's bring step (nb_bring_args) on 64-bit words: target limb
 * blockIdx.y. */
__global__ void rescale_bring_kernel(nb_bring_args g, uint64_t *__restrict__ t,
                                     const uint64_t *__restrict__ r)
{
    nb_gpu_pdl_launch_dependents();
    nb_gpu_pdl_wait();
    const size_t i = blockIdx.y, n = g.n;
    const size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n)
        return;
    const uint64_t qi = g.q[i];
    const uint64_t R = nb_bring_compose(&g, r[c], g.drop == 2 ? (uint64_t)r[n + c] : 0);
    const uint64_t h = g.h ? g.h[i] : 0;
    t[i * n + c] = nb_sub_mod(nb_reduce_64(R, qi, g.mu_lo[i], g.mu_hi[i]), h, qi);
}

/* The bring step on 32-bit words: each thread composes x mod D for V
 * consecutive coefficients once per GROUP targets (blockIdx.y: targets
 * [GROUP y, GROUP (y + 1))) and reduces them to each target with 32-bit
 * Shoup products, R = h 2^32 + l -> [h (2^32 mod q)]_q + [l]_q, then adds
 * q - (H mod q) (q for floor) and reduces. The targets' constants are staged
 * in shared memory as 32-bit words before the wait for the iNTT. n must be a
 * multiple of V and t, r aligned to V words (the caller checks). */
#define BRING32_GROUP 64
template <int GROUP, int V>
__global__ void rescale_bring32_kernel(nb_bring_args g, uint32_t *__restrict__ t,
                                       const uint32_t *__restrict__ r)
{
    static_assert(GROUP <= EW_THREADS, "one thread stages each target's constants");
    __shared__ uint32_t sq[GROUP], sr[GROUP], srs[GROUP], sos[GROUP], sqh[GROUP];
    const size_t i0 = (size_t)blockIdx.y * GROUP;
    const unsigned m = (unsigned)(g.count - i0 < GROUP ? g.count - i0 : GROUP);
    if (threadIdx.x < m) {
        const size_t i = i0 + threadIdx.x;
        const uint32_t q = (uint32_t)g.q[i];
        sq[threadIdx.x] = q;
        sr[threadIdx.x] = (uint32_t)g.r32[i];
        srs[threadIdx.x] = (uint32_t)g.r32_shoup[i];
        sos[threadIdx.x] = (uint32_t)g.one_shoup[i];
        sqh[threadIdx.x] = q - (g.h ? (uint32_t)g.h[i] : 0u);
    }
    nb_gpu_pdl_launch_dependents();
    nb_gpu_pdl_wait();
    __syncthreads();
    const size_t n = g.n, c = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * V;
    if (c >= n)
        return;
    uint32_t hi[V], lo[V];
#pragma unroll
    for (int v = 0; v < V; v++) {
        const uint64_t R =
            nb_bring_compose(&g, r[c + v], g.drop == 2 ? (uint64_t)r[n + c + v] : 0);
        hi[v] = (uint32_t)(R >> 32);
        lo[v] = (uint32_t)R;
    }
    uint32_t *dst = t + i0 * n + c;
#pragma unroll 4
    for (unsigned k = 0; k < m; k++, dst += n) {
        const uint32_t q = sq[k], w = sr[k], ws = srs[k], os = sos[k], qh = sqh[k];
        uint32_t x[V];
#pragma unroll
        for (int v = 0; v < V; v++) {
            const uint32_t a = nb_csub32(nb_mul_shoup32_lazy(hi[v], w, ws, q), q);
            const uint32_t b = nb_csub32(nb_mul_shoup32_lazy(lo[v], 1, os, q), q);
            x[v] = nb_csub32(nb_csub32(a + b, q) + qh, q);
        }
        if constexpr (V == 2)
            *reinterpret_cast<uint2 *>(dst) = make_uint2(x[0], x[1]);
        else
            *dst = x[0];
    }
}

} // namespace

extern "C" nb_status nb_gpu_rescale_bring(const nb_bring_args *g, void *t, const void *r,
                                          void *stream)
{
    if (g->drop != 1 && g->drop != 2)
        return nb_set_error(NB_ERR_INVALID_ARG, "rescale: %u dropped primes (1 or 2)", g->drop);
    if (g->count == 0)
        return NB_OK;
    dim3 grid((unsigned)((g->n + EW_THREADS - 1) / EW_THREADS), (unsigned)g->count);
    cudaStream_t s = (cudaStream_t)stream;
    if (g->word_bits == 32) {
        /* one composition per 64 targets, 2 coefficients a thread (docs/tuning.md) */
        const bool v2 = g->n % 2 == 0 && (uintptr_t)t % 8 == 0 && (uintptr_t)r % 8 == 0;
        const dim3 g32((unsigned)((g->n / (v2 ? 2 : 1) + EW_THREADS - 1) / EW_THREADS),
                       (unsigned)((g->count + BRING32_GROUP - 1) / BRING32_GROUP));
        if (v2)
            NB_TRY(launch_pdl(rescale_bring32_kernel<BRING32_GROUP, 2>, g32, EW_THREADS, 0, s,
                              *g, (uint32_t *)t, (const uint32_t *)r));
        else
            NB_TRY(launch_pdl(rescale_bring32_kernel<BRING32_GROUP, 1>, g32, EW_THREADS, 0, s,
                              *g, (uint32_t *)t, (const uint32_t *)r));
    } else
        NB_TRY(launch_pdl(rescale_bring_kernel, grid, EW_THREADS, 0, s, *g,
                          (uint64_t *)t, (const uint64_t *)r));
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

namespace {
/* The inner product (nb_cpu_inner_product) of output limb first_limb + blockIdx.y on
 * words T, V consecutive coefficients per thread: 64-bit words accumulate
 * in 128 bits (mac128), reduced every `chunk` products; 32-bit words in 64
 * bits (products below 2^62), reduced every 4, with V = 4 (16-byte
 * accesses) when every pointer allows it. The key and the modUp outputs are
 * each read once, with streaming (evict-first) hints, so that the
 * accumulators written here, which modDown reads next, keep the L2. PART:
 * the geometry is one device's part (nb_ip_geom.part); the whole basis'
 * kernel keeps the shorter offsets, which issue fewer instructions. */
template <class T, int V, bool PART>
__global__ void inner_product_kernel(nb_ip_geom g, T *__restrict__ acc0, T *__restrict__ acc1,
                                     T *__restrict__ acc1_p, const T *__restrict__ ext,
                                     const T *__restrict__ in, const T *__restrict__ key)
{
    nb_gpu_pdl_launch_dependents();
    nb_gpu_pdl_wait();
    const size_t m = (g.limbs ? g.first_limb : 0) + blockIdx.y;
    const size_t c = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * V;
    if (c >= g.n)
        return;
    const size_t n = g.n, L1 = g.level + 1, E = g.ext_limbs, per = g.q_count + g.alpha;
    const size_t pm = m < L1 ? m : g.q_count + (m - L1);
    const uint64_t q = g.prime_q[pm], ml = g.prime_mu_lo[pm], mh = g.prime_mu_hi[pm];
    constexpr bool w32 = sizeof(T) == 4;
    const unsigned chunk = w32 ? 4 : g.chunk;
    uint64_t lo0[V], hi0[V], lo1[V], hi1[V];
#pragma unroll
    for (int v = 0; v < V; v++)
        lo0[v] = hi0[v] = lo1[v] = hi1[v] = 0;
    unsigned k = 0;
    [[maybe_unused]] size_t off = 0; /* PART, packed: digit j's first target */
    for (size_t j = 0; j < g.digits; j++) {
        bool from_in;
        size_t pos;
        if constexpr (PART) {
            size_t lo;
            const size_t own = nb_ip_digit_own(&g, j, &lo);
            from_in = in && m >= lo && m < lo + own;
            pos = !g.packed ? j * E + m : off + (m < lo ? m : m - own);
            off += E - own;
        } else { /* the whole basis: every digit before j has l+1 targets */
            const size_t first = j * g.alpha_digit;
            const size_t end = first + g.alpha_digit < L1 ? first + g.alpha_digit : L1;
            from_in = in && m >= first && m < end;
            pos = !g.packed ? j * E + m : j * L1 + (m < first ? m : m - (end - first));
        }
        const T *xs = from_in ? in + m * n + c : ext + pos * n + c;
        const T *k0s = key + ((2 * j) * per + pm) * n + c, *k1s = key + ((2 * j + 1) * per + pm) * n + c;
        uint64_t x[V], k0[V], k1[V];
        if constexpr (V == 4) {
            const uint4 xv = __ldcs((const uint4 *)xs), av = __ldcs((const uint4 *)k0s),
                        bv = __ldcs((const uint4 *)k1s);
            x[0] = xv.x, x[1] = xv.y, x[2] = xv.z, x[3] = xv.w;
            k0[0] = av.x, k0[1] = av.y, k0[2] = av.z, k0[3] = av.w;
            k1[0] = bv.x, k1[1] = bv.y, k1[2] = bv.z, k1[3] = bv.w;
        } else {
            typedef typename std::conditional<w32, nb_word32, nb_word64>::type WT;
            x[0] = nb_gpu_ld_word<WT, true>(xs);
            k0[0] = nb_gpu_ld_word<WT, true>(k0s);
            k1[0] = nb_gpu_ld_word<WT, true>(k1s);
        }
#pragma unroll
        for (int v = 0; v < V; v++) {
            if constexpr (w32) {
                lo0[v] += x[v] * k0[v];
                lo1[v] += x[v] * k1[v];
            } else {
                mac128(lo0[v], hi0[v], x[v], k0[v]);
                mac128(lo1[v], hi1[v], x[v], k1[v]);
            }
        }
        if (++k == chunk && j + 1 < g.digits) {
#pragma unroll
            for (int v = 0; v < V; v++) {
                lo0[v] = nb_reduce_128(lo0[v], hi0[v], q, ml, mh);
                lo1[v] = nb_reduce_128(lo1[v], hi1[v], q, ml, mh);
                hi0[v] = hi1[v] = 0;
            }
            k = 0;
        }
    }
    T r0[V], r1[V];
#pragma unroll
    for (int v = 0; v < V; v++) {
        r0[v] = (T)nb_reduce_128(lo0[v], hi0[v], q, ml, mh);
        r1[v] = (T)nb_reduce_128(lo1[v], hi1[v], q, ml, mh);
    }
    T *o0 = acc0 + m * n + c, *o1 = (m < L1 ? acc1 + m * n : acc1_p + (m - L1) * n) + c;
    if constexpr (V == 4) {
        *(uint4 *)o0 = make_uint4(r0[0], r0[1], r0[2], r0[3]);
        *(uint4 *)o1 = make_uint4(r1[0], r1[1], r1[2], r1[3]);
    } else {
        *o0 = r0[0];
        *o1 = r1[0];
    }
}

template <class T, int V>
nb_status inner_product_as(const nb_ip_geom *g, void *acc0, void *acc1, void *acc1_p,
                           const void *ext, const void *in, const void *key, void *stream)
{
    const size_t per = (size_t)EW_THREADS * V;
    dim3 grid((unsigned)((g->n + per - 1) / per), (unsigned)(g->limbs ? g->limbs : g->ext_limbs));
    if (g->part)
        NB_TRY(launch_pdl(inner_product_kernel<T, V, true>, grid, EW_THREADS, 0,
                          (cudaStream_t)stream, *g, (T *)acc0, (T *)acc1, (T *)acc1_p,
                          (const T *)ext, (const T *)in, (const T *)key));
    else
        NB_TRY(launch_pdl(inner_product_kernel<T, V, false>, grid, EW_THREADS, 0,
                          (cudaStream_t)stream, *g, (T *)acc0, (T *)acc1, (T *)acc1_p,
                          (const T *)ext, (const T *)in, (const T *)key));
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

} // namespace

extern "C" nb_status nb_gpu_inner_product(const nb_ip_geom *g, void *acc0, void *acc1,
                                          void *acc1_p, const void *ext, const void *in,
                                          const void *key, void *stream)
{
    if (g->word_bits != 32)
        return inner_product_as<uint64_t, 1>(g, acc0, acc1, acc1_p, ext, in, key, stream);
    const void *ptrs[6] = {acc0, acc1, acc1_p, ext, in, key};
    bool vec = g->n % 4 == 0;
    for (int i = 0; i < 6; i++)
        vec = vec && (uintptr_t)ptrs[i] % 16 == 0; /* in may be NULL: 0 % 16 */
    return vec ? inner_product_as<uint32_t, 4>(g, acc0, acc1, acc1_p, ext, in, key, stream)
               : inner_product_as<uint32_t, 1>(g, acc0, acc1, acc1_p, ext, in, key, stream);
}

extern "C" nb_status nb_gpu_copy(void *dst, const void *src, size_t bytes, void *stream)
{
    NB_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream));
    return NB_OK;
}

/* The fast base conversion on 32-bit words (C interface in ckks/consts.h,
 * reached through nb_gpu_conv): Conv_{C->B} for primes below 2^31. Two
 * kernels: the register-tiled one (conv32_tiled_kernel, up to 64 source
 * primes: the pipelines' modUp and modDown) and the general one below.
 *
 * Block: CONV32_TILE coefficients x up to CONV32_GROUPS target groups.
 * Phase 1 stages y_i = [x_i * chat_i^-1]_{c_i} (32-bit Shoup) of the tile in
 * shared memory, coalesced along coefficients, and the table (C/c_i) mod b_j
 * narrowed to 32-bit words when it fits beside the tile. Phase 2: thread
 * (x, g) accumulates CONV32_TARGETS targets of coefficient x at a time, each
 * y_i read once serving all of them. Accumulation: each product y_i t_ji <
 * 2^62 is one 32 x 32 -> 64-bit multiply-add into a 64-bit sum; every 4
 * products the sum's high word moves into a 64-bit carry word (4 products
 * on a value below 2^32 stay below 2^64), so the sum of up to 256 products
 * is exact in (carry, sum) and is reduced once per output with 32-bit
 * Shoup products (reduce_sum). NB_CONV32_KERNEL, when set, routes the
 * shapes they take to the candidate kernels of gpu_conv32_cand.cu instead.
 * Nothing here allocates or synchronizes; every launch is checked. */
#include <stdint.h>
#include <stdlib.h>

#include <atomic>

#include <cuda_runtime_api.h>

#include "ckks/consts.h"
#include "ckks/gpu_conv32.cuh"
#include "ckks/gpu_launch.cuh"
#include "ntt/arith.h"
#include "ntt/gpu_common.cuh"

#define CONV32_TILE 32    /* coefficients per block (one warp wide)        */
#define CONV32_GROUPS 8   /* target groups per block (largest blockDim.y)  */
#define CONV32_TARGETS 4  /* targets per thread at a time                  */
#define CONV32_FOLD 4     /* products between moves of the high word        */
#define CONV32_SMEM (48 * 1024)
#define CONV32_WIDE 128     /* coefficients per block of the tiled kernel (4 per lane) */
#define CONV32_TILED_NF 64  /* source primes up to which the tiled kernel runs        */

namespace {

/* (carry 2^32 + sum) mod b_j for carry < 2^38, sum < 2^32 (nb_conv32_reduce). */
__device__ __forceinline__ uint32_t reduce_sum(uint64_t carry, uint64_t sum,
                                               const nb_conv_view &v, unsigned j)
{
    return nb_conv32_reduce(carry, sum, (uint32_t)v.to_q[j], (uint32_t)v.to_r32[j],
                            (uint32_t)v.to_r64[j], (uint32_t)v.to_r32_shoup[j],
                            (uint32_t)v.to_one_shoup[j]);
}

template <bool HS>
__global__ void __launch_bounds__(CONV32_TILE *CONV32_GROUPS)
    conv32_kernel(nb_conv_view v, nb_polys io, size_t n)
{
    const bool second = blockIdx.y; /* a select, not an index: io stays in parameter space */
    uint32_t *__restrict__ out = (uint32_t *)(second ? io.out[1] : io.out[0]);
    const uint32_t *__restrict__ in = (const uint32_t *)(second ? io.a[1] : io.a[0]);
    extern __shared__ uint32_t y32[]; /* [n_from][TILE], then (HS) [n_to][n_from] */
    constexpr int T = CONV32_TARGETS;
    const size_t c0 = (size_t)blockIdx.x * CONV32_TILE;
    const unsigned nthr = CONV32_TILE * blockDim.y;
    const unsigned tid = threadIdx.y * CONV32_TILE + threadIdx.x;
    const unsigned nf = v.n_from, nt = v.n_to;
    uint32_t *hs = y32 + nf * CONV32_TILE;
    nb_gpu_pdl_launch_dependents();
    if (HS) /* constants: written before any pipeline call */
        for (unsigned idx = tid; idx < nt * nf; idx += nthr)
            hs[idx] = (uint32_t)v.qhat_mod[idx];
    nb_gpu_pdl_wait();
    for (unsigned idx = tid; idx < nf * CONV32_TILE; idx += nthr) {
        const unsigned i = idx / CONV32_TILE, c = idx % CONV32_TILE;
        const size_t col = c0 + c;
        if (col < n)
            y32[idx] = nb_mul_shoup32(in[(size_t)i * n + col], (uint32_t)v.qhat_inv[i],
                                      nb_shoup32_from64(v.qhat_inv_shoup[i]),
                                      (uint32_t)v.from_q[i]);
    }
    __syncthreads();
    const size_t col = c0 + threadIdx.x;
    if (col >= n)
        return;
    const uint32_t *ys = y32 + threadIdx.x;
    for (unsigned jb = threadIdx.y * T; jb < nt; jb += blockDim.y * T) {
        uint64_t sum[T], carry[T];
        unsigned j[T]; /* past the last target: repeats it, not stored */
#pragma unroll
        for (int t = 0; t < T; t++) {
            sum[t] = carry[t] = 0;
            j[t] = jb + t < nt ? jb + t : nt - 1;
        }
        for (unsigned i0 = 0; i0 < nf; i0 += CONV32_FOLD) {
#pragma unroll
            for (int d = 0; d < CONV32_FOLD; d++) {
                const unsigned i = i0 + d;
                if (i < nf) {
                    const uint64_t yi = ys[i * CONV32_TILE];
#pragma unroll
                    for (int t = 0; t < T; t++) {
                        const uint32_t w = HS ? hs[j[t] * nf + i]
                                              : (uint32_t)v.qhat_mod[(size_t)j[t] * nf + i];
                        sum[t] += yi * w;
                    }
                }
            }
#pragma unroll
            for (int t = 0; t < T; t++) {
                carry[t] += sum[t] >> 32;
                sum[t] &= 0xffffffffull;
            }
        }
#pragma unroll
        for (int t = 0; t < T; t++)
            if (jb + t < nt) {
                out[(size_t)v.out_limb[j[t]] * n + col] = reduce_sum(carry[t], sum[t], v, j[t]);
            }
    }
}

/* The conversion with register tiles, for up to CONV32_TILED_NF source
 * primes whose table fits in shared memory: a block takes CONV32_WIDE
 * coefficients (4 per lane), thread (x, g) accumulates the 4 x 4 products
 * of coefficients 4x..4x+3 and targets 4g.. (then every 4 G further), each
 * step reading 4 staged y_i and 4 table entries with one 16-byte
 * shared-memory load each, so 16 multiply-adds share 2 loads. The table is
 * staged transposed, [i][j] with nt rounded up to a multiple of 4 (zeros
 * past the last target). Accumulation and reduction as in conv32_kernel. */
__global__ void __launch_bounds__(32 * CONV32_GROUPS)
    conv32_tiled_kernel(nb_conv_view v, nb_polys io, size_t n)
{
    const bool second = blockIdx.y;
    uint32_t *__restrict__ out = (uint32_t *)(second ? io.out[1] : io.out[0]);
    const uint32_t *__restrict__ in = (const uint32_t *)(second ? io.a[1] : io.a[0]);
    extern __shared__ __align__(16) uint32_t sm32[]; /* y [nf][WIDE], then table [nf][ntp] */
    const size_t c0 = (size_t)blockIdx.x * CONV32_WIDE;
    const unsigned nthr = 32 * blockDim.y, tid = threadIdx.y * 32 + threadIdx.x;
    const unsigned nf = v.n_from, nt = v.n_to, ntp = (nt + 3) & ~3u;
    uint32_t *y = sm32, *tt = sm32 + nf * CONV32_WIDE;
    nb_gpu_pdl_launch_dependents();
    for (unsigned idx = tid; idx < nf * ntp; idx += nthr) { /* constants */
        const unsigned i = idx / ntp, j = idx % ntp;
        tt[idx] = j < nt ? (uint32_t)v.qhat_mod[(size_t)j * nf + i] : 0;
    }
    nb_gpu_pdl_wait();
    for (unsigned idx = tid; idx < nf * CONV32_WIDE; idx += nthr) {
        const unsigned i = idx / CONV32_WIDE, c = idx % CONV32_WIDE;
        const size_t col = c0 + c;
        y[idx] = col < n ? nb_mul_shoup32(in[(size_t)i * n + col], (uint32_t)v.qhat_inv[i],
                                          nb_shoup32_from64(v.qhat_inv_shoup[i]),
                                          (uint32_t)v.from_q[i])
                         : 0;
    }
    __syncthreads();
    const size_t col = c0 + 4 * threadIdx.x; /* n is a multiple of 4 (N >= 16) */
    if (col >= n)
        return;
    for (unsigned jb = 4 * threadIdx.y; jb < nt; jb += 4 * blockDim.y) {
        uint64_t sum[4][4], carry[4][4]; /* [target][coefficient] */
#pragma unroll
        for (int t = 0; t < 4; t++)
#pragma unroll
            for (int k = 0; k < 4; k++)
                sum[t][k] = carry[t][k] = 0;
        for (unsigned i0 = 0; i0 < nf; i0 += CONV32_FOLD) {
#pragma unroll
            for (int d = 0; d < CONV32_FOLD; d++) {
                const unsigned i = i0 + d;
                if (i < nf) {
                    const uint4 yv = *(const uint4 *)&y[i * CONV32_WIDE + 4 * threadIdx.x];
                    const uint4 wv = *(const uint4 *)&tt[i * ntp + jb];
                    const uint32_t yk[4] = {yv.x, yv.y, yv.z, yv.w};
                    const uint32_t wt[4] = {wv.x, wv.y, wv.z, wv.w};
#pragma unroll
                    for (int t = 0; t < 4; t++)
#pragma unroll
                        for (int k = 0; k < 4; k++)
                            sum[t][k] += (uint64_t)yk[k] * wt[t];
                }
            }
#pragma unroll
            for (int t = 0; t < 4; t++)
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    carry[t][k] += sum[t][k] >> 32;
                    sum[t][k] &= 0xffffffffull;
                }
        }
#pragma unroll
        for (int t = 0; t < 4; t++) {
            const unsigned j = jb + t;
            if (j >= nt)
                break;
            uint32_t r[4];
#pragma unroll
            for (int k = 0; k < 4; k++)
                r[k] = reduce_sum(carry[t][k], sum[t][k], v, j);
            *(uint4 *)&out[(size_t)v.out_limb[j] * n + col] = make_uint4(r[0], r[1], r[2], r[3]);
        }
    }
}

/* The candidate kernel NB_CONV32_KERNEL names (an A/B switch while the
 * candidates are measured): 0 when unset or empty (this file's kernels),
 * 'a'..'d', or -1 for any other value; read once per process. */
int conv32_candidate()
{
    static std::atomic<int> chosen{-2};
    int c = chosen.load(std::memory_order_relaxed);
    if (c == -2) {
        const char *e = getenv("NB_CONV32_KERNEL");
        c = !e || !*e ? 0 : e[1] == 0 && e[0] >= 'a' && e[0] <= 'd' ? e[0] : -1;
        chosen.store(c, std::memory_order_relaxed);
    }
    return c;
}

} // namespace

extern "C" nb_status nb_gpu_conv32(const nb_conv_view *v, const nb_polys *io, size_t n,
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
    const int cand = conv32_candidate();
    if (cand < 0)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "NB_CONV32_KERNEL='%s': expected a, b, c, d, or empty for the default",
                            getenv("NB_CONV32_KERNEL"));
    if (cand > 0) {
        int launched = 0;
        NB_TRY(nb_gpu_conv32_candidate((char)cand, v, io, n, stream, &launched));
        if (launched)
            return NB_OK;
    }
    const size_t smem = (size_t)v->n_from * CONV32_TILE * sizeof(uint32_t);
    const size_t table = (size_t)v->n_to * v->n_from * sizeof(uint32_t);
    const unsigned groups = (v->n_to + CONV32_TARGETS - 1) / CONV32_TARGETS;
    const dim3 block(CONV32_TILE, groups < CONV32_GROUPS ? groups : CONV32_GROUPS);
    const dim3 grid((unsigned)((n + CONV32_TILE - 1) / CONV32_TILE), io->count);
    cudaStream_t s = (cudaStream_t)stream;
    const size_t tiled = (size_t)v->n_from * (CONV32_WIDE + ((v->n_to + 3) & ~3u)) * 4;
    int aligned = 1; /* 16-byte stores */
    for (unsigned p = 0; p < io->count; p++)
        aligned &= (uintptr_t)io->out[p] % 16 == 0;
    if (v->n_from <= CONV32_TILED_NF && tiled <= CONV32_SMEM && n % 4 == 0 && aligned) {
        const unsigned g4 = (v->n_to + 3) / 4;
        const dim3 tblock(32, g4 < CONV32_GROUPS ? g4 : CONV32_GROUPS);
        const dim3 tgrid((unsigned)((n + CONV32_WIDE - 1) / CONV32_WIDE), io->count);
        NB_TRY(launch_pdl(conv32_tiled_kernel, tgrid, tblock, tiled, s, *v, *io, n));
        NB_CUDA_LAUNCH_CHECK();
        return NB_OK;
    }
    if (smem + table <= CONV32_SMEM)
        NB_TRY(launch_pdl(conv32_kernel<true>, grid, block, smem + table, s, *v, *io, n));
    else /* 256 source primes stage 32 KiB: always below the default limit */
        NB_TRY(launch_pdl(conv32_kernel<false>, grid, block, smem, s, *v, *io, n));
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

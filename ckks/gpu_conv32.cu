/* The fast base conversion on 32-bit words (C interface in ckks/consts.h,
 * reached through nb_gpu_conv): Conv_{C->B} for primes below 2^31.
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
 * is exact in (carry, sum) and is reduced once per output by a 128-bit
 * Barrett reduction (nb_reduce_128). Nothing here allocates or
 * synchronizes; every launch is checked. */
#include <cuda_runtime_api.h>

#include "ckks/consts.h"
#include "ckks/gpu_launch.cuh"
#include "ntt/arith.h"
#include "ntt/gpu_common.cuh"

#define CONV32_TILE 32    /* coefficients per block (one warp wide)        */
#define CONV32_GROUPS 8   /* target groups per block (largest blockDim.y)  */
#define CONV32_TARGETS 4  /* targets per thread at a time                  */
#define CONV32_FOLD 4     /* products between moves of the high word        */
#define CONV32_SMEM (48 * 1024)

namespace {

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
                /* the value carry 2^32 + sum as (hi:lo) */
                const uint64_t lo = (carry[t] << 32) + sum[t];
                const uint64_t hi = (carry[t] >> 32) + (lo < sum[t]);
                const uint64_t r = nb_reduce_128(lo, hi, v.to_q[j[t]], v.to_mu_lo[j[t]],
                                                 v.to_mu_hi[j[t]]);
                out[(size_t)v.out_limb[j[t]] * n + col] = (uint32_t)r;
            }
    }
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
    const size_t smem = (size_t)v->n_from * CONV32_TILE * sizeof(uint32_t);
    const size_t table = (size_t)v->n_to * v->n_from * sizeof(uint32_t);
    const unsigned groups = (v->n_to + CONV32_TARGETS - 1) / CONV32_TARGETS;
    const dim3 block(CONV32_TILE, groups < CONV32_GROUPS ? groups : CONV32_GROUPS);
    const dim3 grid((unsigned)((n + CONV32_TILE - 1) / CONV32_TILE), io->count);
    cudaStream_t s = (cudaStream_t)stream;
    if (smem + table <= CONV32_SMEM)
        NB_TRY(launch_pdl(conv32_kernel<true>, grid, block, smem + table, s, *v, *io, n));
    else /* 256 source primes stage 32 KiB: always below the default limit */
        NB_TRY(launch_pdl(conv32_kernel<false>, grid, block, smem, s, *v, *io, n));
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

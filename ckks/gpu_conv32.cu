/* The fast base conversion on 32-bit words (C interface in ckks/consts.h,
 * reached through nb_gpu_conv): Conv_{C->B} for primes below 2^31, the
 * modular matrix product y T with y_i = [x_i * chat_i^-1]_{c_i} (32-bit
 * Shoup) and T_ji = (C/c_i) mod b_j narrowed to 32-bit words. The
 * tensor-core kernel (gpu_conv32_mma.cu) takes every shape it can: a
 * host-built table (nb_conv_tc_fill), up to 64 source primes, n a multiple
 * of its tile, constants within CONV32_SMEM_CAP, device code for sm_80 or
 * later (the pipelines' modUp and modDown). Otherwise three kernels on the
 * CUDA cores, the first whose shape conditions hold:
 *  - conv32_pipe_kernel (up to 64 source primes, n a multiple of 4, 16-byte
 *    aligned words, its constants and two tiles within 48 KiB): a
 *    persistent grid walks the 128-coefficient tiles of every polynomial,
 *    copying the next tile's raw words with cp.async while the current
 *    one's products run;
 *  - conv32_tiled_kernel (up to 64 source primes whose table and one tile
 *    fit, n a multiple of 4, 16-byte aligned outputs): one tile per block;
 *  - conv32_kernel: any shape, one coefficient x 4 targets per thread.
 * The first two share the products: thread (x, g) accumulates the 4 x 4
 * products of coefficients 4x..4x+3 and targets 4g.. (then every 4
 * blockDim.y further), each step reading 4 staged y_i and 4 table entries
 * with one 16-byte shared-memory load each.
 * Accumulation, exact for up to 256 source primes: each product y_i T_ji
 * <= (2^31 - 2)^2 < 2^62 is one 32 x 32 -> 64-bit multiply-add into a
 * 64-bit sum. Every CONV32_FOLD = 4 products the sum's high word moves into
 * a 64-bit carry word, so the sum is below 2^32 after each fold and below
 * 2^32 + 4 (2^62 - 2^33 + 4) < 2^64 before it; each fold adds less than
 * 2^32 to the carry, so carry < 64 * 2^32 = 2^38 after 256 products. Each
 * output (carry 2^32 + sum) is then reduced once by nb_conv32_reduce.
 * Every kernel returns the same words; nothing here allocates or
 * synchronizes, and every launch is checked. */
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "ckks/consts.h"
#include "ckks/gpu_conv32.cuh"
#include "ckks/gpu_launch.cuh"
#include "ntt/arith.h"
#include "ntt/gpu_common.cuh"

#define CONV32_TILE 32      /* coefficients per block of the general kernel  */
#define CONV32_GROUPS 8     /* target groups per block (largest blockDim.y)  */
#define CONV32_TARGETS 4    /* targets per thread at a time                  */
#define CONV32_FOLD 4       /* products between moves of the high word        */
#define CONV32_WIDE 128     /* coefficients per tile of the 4 x 4 kernels    */
#define CONV32_TILED_NF 64  /* source primes up to which they run            */
#define CONV32_EPI 8        /* words per target in the pipelined epilogue    */

namespace {

/* nb_conv32_reduce to target j with its constants read from v. */
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

/* sum[t][k] + 2^32 carry[t][k] = sum over rows i < rows of y[i][k] w[i][t],
 * with y row i at y + i CONV32_WIDE (4 coefficients) and w row i at
 * w + i ntp (4 targets), both 16-byte aligned; sum < 2^32 on return.
 * PADDED: rows is a multiple of CONV32_FOLD (no bounds test). */
template <bool PADDED>
__device__ __forceinline__ void sum_products(uint64_t (&sum)[4][4], uint64_t (&carry)[4][4],
                                             const uint32_t *y, const uint32_t *w, unsigned ntp,
                                             unsigned rows)
{
#pragma unroll
    for (int t = 0; t < 4; t++)
#pragma unroll
        for (int k = 0; k < 4; k++)
            sum[t][k] = carry[t][k] = 0;
    for (unsigned i0 = 0; i0 < rows; i0 += CONV32_FOLD) {
#pragma unroll
        for (int d = 0; d < CONV32_FOLD; d++) {
            const unsigned i = i0 + d;
            if (PADDED || i < rows) {
                const uint4 yv = *(const uint4 *)&y[i * CONV32_WIDE];
                const uint4 wv = *(const uint4 *)&w[i * ntp];
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
}

/* One tile per block, for up to CONV32_TILED_NF source primes whose table
 * fits beside the tile: y [nf][WIDE] staged scaled (zeros past n), then the
 * table transposed, [nf][ntp] with nt rounded up to ntp, a multiple of 4
 * (zeros past the last target). Outputs with 16-byte stores. */
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
    const size_t col = c0 + 4 * threadIdx.x; /* n is a multiple of 4 */
    if (col >= n)
        return;
    for (unsigned jb = 4 * threadIdx.y; jb < nt; jb += 4 * blockDim.y) {
        uint64_t sum[4][4], carry[4][4]; /* [target][coefficient] */
        sum_products<false>(sum, carry, y + 4 * threadIdx.x, tt + jb, ntp, nf);
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

/* Shared memory of a pipelined block, in 32-bit words, every part 16-byte
 * aligned: epi [ntp][8] (b_j, 2^32 and 2^64 mod b_j, the Shoup value of
 * the first, floor(2^32/b_j), the output limb, 0, 0), rows [nfp][4]
 * ([C/c_i]^-1 mod c_i, its 32-bit Shoup value, c_i, 0), the table
 * [nfp][ntp] ((C/c_i) mod b_j at i ntp + j, zero past nf or nt), then two
 * tiles [nfp][WIDE] (rows nf.. zero). nfp: nf rounded up to the fold, ntp:
 * nt rounded up to 4. */
struct pipe_layout {
    unsigned nf, nt, nfp, ntp;
    __host__ __device__ pipe_layout(unsigned n_from, unsigned n_to)
        : nf(n_from), nt(n_to), nfp((n_from + CONV32_FOLD - 1) / CONV32_FOLD * CONV32_FOLD),
          ntp((n_to + 3) & ~3u)
    {
    }
    __host__ __device__ unsigned rows() const { return CONV32_EPI * ntp; }
    __host__ __device__ unsigned table() const { return rows() + 4 * nfp; }
    __host__ __device__ unsigned tile(unsigned k) const
    {
        return table() + nfp * ntp + k * nfp * CONV32_WIDE;
    }
    __host__ __device__ size_t bytes() const { return (size_t)tile(2) * 4; }
};

/* For idx = tid, tid + nthr, ... below count: store(idx, load(idx)), U
 * loads issued before their stores so that they are in flight together. */
template <int U, class Load, class Store>
__device__ __forceinline__ void batched(unsigned count, unsigned tid, unsigned nthr, Load load,
                                        Store store)
{
    for (unsigned base = tid; base < count; base += U * nthr) {
        decltype(load(0u)) w[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            if (base + u * nthr < count)
                w[u] = load(base + u * nthr);
#pragma unroll
        for (int u = 0; u < U; u++)
            if (base + u * nthr < count)
                store(base + u * nthr, w[u]);
    }
}

/* The constants (written before any pipeline call, so read before the
 * programmatic wait) and the zero pad rows of both tiles. */
__device__ void stage_constants(uint32_t *sm, const pipe_layout &L, const nb_conv_view &v,
                                unsigned tid, unsigned nthr)
{
    batched<2>(
        L.ntp * CONV32_EPI, tid, nthr,
        [&](unsigned idx) {
            const unsigned j = idx / CONV32_EPI, f = idx % CONV32_EPI;
            const uint64_t *src = f == 0 ? v.to_q : f == 1 ? v.to_r32 : f == 2 ? v.to_r64
                                : f == 3 ? v.to_r32_shoup : f == 4 ? v.to_one_shoup : v.out_limb;
            return j < L.nt && f < 6 ? (uint32_t)src[j] : 0u;
        },
        [&](unsigned idx, uint32_t w) { sm[idx] = w; });
    for (unsigned i = tid; i < L.nfp; i += nthr) {
        const bool in = i < L.nf;
        *(uint4 *)&sm[L.rows() + 4 * i] =
            make_uint4(in ? (uint32_t)v.qhat_inv[i] : 0,
                       in ? nb_shoup32_from64(v.qhat_inv_shoup[i]) : 0,
                       in ? (uint32_t)v.from_q[i] : 1, 0);
    }
    batched<8>(
        L.nfp * L.ntp, tid, nthr,
        [&](unsigned idx) {
            const unsigned i = idx / L.ntp, j = idx % L.ntp;
            return i < L.nf && j < L.nt ? (uint32_t)v.qhat_mod[(size_t)j * L.nf + i] : 0u;
        },
        [&](unsigned idx, uint32_t w) { sm[L.table() + idx] = w; });
    for (unsigned k = 0; k < 2; k++)
        for (unsigned idx = L.nf * CONV32_WIDE + tid; idx < L.nfp * CONV32_WIDE; idx += nthr)
            sm[L.tile(k) + idx] = 0;
}

/* Starts copying the raw tile c0.. of `in` into y (16 bytes per copy, zero
 * filled past n; n a multiple of 4, `in` 16-byte aligned) as one committed
 * group of this thread's copies. */
__device__ void copy_tile_async(uint32_t *y, const uint32_t *__restrict__ in, size_t n,
                                size_t c0, const pipe_layout &L, unsigned tid, unsigned nthr)
{
    for (unsigned idx = tid; idx < L.nf * (CONV32_WIDE / 4); idx += nthr) {
        const unsigned i = idx / (CONV32_WIDE / 4), q = idx % (CONV32_WIDE / 4);
        const size_t col = c0 + 4 * q;
        const uint32_t *src = col < n ? &in[(size_t)i * n + col] : in;
        const unsigned dst = (unsigned)__cvta_generic_to_shared(&y[i * CONV32_WIDE + 4 * q]);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                     "r"(col < n ? 16 : 0)
                     : "memory");
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Scales the raw tile y (rows < nf) in place: y = [x (C/c_i)^-1]_{c_i}. */
__device__ void scale_tile(uint32_t *y, const uint32_t *sm, const pipe_layout &L, unsigned tid,
                           unsigned nthr)
{
    for (unsigned idx = tid; idx < L.nf * (CONV32_WIDE / 4); idx += nthr) {
        uint4 *p = (uint4 *)&y[4 * idx];
        const uint4 x = *p;
        const uint4 r = *(const uint4 *)&sm[L.rows() + 4 * (idx / (CONV32_WIDE / 4))];
        *p = make_uint4(nb_mul_shoup32(x.x, r.x, r.y, r.z), nb_mul_shoup32(x.y, r.x, r.y, r.z),
                        nb_mul_shoup32(x.z, r.x, r.y, r.z), nb_mul_shoup32(x.w, r.x, r.y, r.z));
    }
}

/* Products and outputs of the scaled tile y (coefficients c0..c0+WIDE),
 * the epilogue's constants read from shared memory; 16-byte stores. */
__device__ __forceinline__ void convert_tile(uint32_t *__restrict__ out, const uint32_t *y,
                                             const uint32_t *sm, const pipe_layout &L,
                                             size_t n, size_t c0)
{
    const size_t col = c0 + 4 * threadIdx.x;
    if (col >= n)
        return;
    for (unsigned jb = 4 * threadIdx.y; jb < L.nt; jb += 4 * blockDim.y) {
        uint64_t sum[4][4], carry[4][4]; /* [target][coefficient] */
        sum_products<true>(sum, carry, y + 4 * threadIdx.x, sm + L.table() + jb, L.ntp, L.nfp);
#pragma unroll
        for (int t = 0; t < 4; t++) {
            const unsigned j = jb + t;
            if (j >= L.nt)
                break;
            const uint4 e0 = *(const uint4 *)&sm[CONV32_EPI * j];
            const uint32_t limb = sm[CONV32_EPI * j + 5], ones = sm[CONV32_EPI * j + 4];
            uint32_t r[4];
#pragma unroll
            for (int k = 0; k < 4; k++)
                r[k] = nb_conv32_reduce(carry[t][k], sum[t][k], e0.x, e0.y, e0.z, e0.w, ones);
            *(uint4 *)&out[(size_t)limb * n + col] = make_uint4(r[0], r[1], r[2], r[3]);
        }
    }
}

/* Persistent grid: block b takes tiles b, b + gridDim.x, ... of the
 * io.count polynomials (tiles_per_poly each, every block at least one),
 * the next tile's raw words copied into the other buffer while the current
 * one's products run. */
__global__ void __launch_bounds__(32 * CONV32_GROUPS, 2)
    conv32_pipe_kernel(nb_conv_view v, nb_polys io, size_t n, unsigned tiles_per_poly)
{
    extern __shared__ __align__(16) uint32_t sm[];
    const pipe_layout L(v.n_from, v.n_to);
    const unsigned nthr = 32 * blockDim.y, tid = threadIdx.y * 32 + threadIdx.x;
    const unsigned total = tiles_per_poly * io.count;
    nb_gpu_pdl_launch_dependents();
    stage_constants(sm, L, v, tid, nthr);
    nb_gpu_pdl_wait();
    unsigned t = blockIdx.x;
    if (t < total) {
        const bool second = t >= tiles_per_poly;
        copy_tile_async(sm + L.tile(0), (const uint32_t *)(second ? io.a[1] : io.a[0]), n,
                        (size_t)(t % tiles_per_poly) * CONV32_WIDE, L, tid, nthr);
    }
    for (unsigned it = 0; t < total; t += gridDim.x, it++) {
        uint32_t *y = sm + L.tile(it & 1);
        const unsigned next = t + gridDim.x;
        if (next < total) {
            const bool second = next >= tiles_per_poly;
            copy_tile_async(sm + L.tile((it + 1) & 1),
                            (const uint32_t *)(second ? io.a[1] : io.a[0]), n,
                            (size_t)(next % tiles_per_poly) * CONV32_WIDE, L, tid, nthr);
        } else {
            asm volatile("cp.async.commit_group;\n" ::: "memory"); /* keeps wait_group 1 exact */
        }
        asm volatile("cp.async.wait_group 1;\n" ::: "memory"); /* all but the newest group */
        __syncthreads(); /* the tile and (first pass) the constants are visible */
        scale_tile(y, sm, L, tid, nthr);
        __syncthreads();
        const bool second = t >= tiles_per_poly;
        convert_tile((uint32_t *)(second ? io.out[1] : io.out[0]), y, sm, L, n,
                     (size_t)(t % tiles_per_poly) * CONV32_WIDE);
        __syncthreads(); /* y is free for the copy issued next pass */
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
    cudaStream_t s = (cudaStream_t)stream;
    bool launched = false;
    NB_TRY(nb_gpu_conv32_mma(v, io, n, s, &launched));
    if (launched)
        return NB_OK;
    int out_aligned = 1, in_aligned = 1; /* 16-byte accesses */
    for (unsigned p = 0; p < io->count; p++) {
        out_aligned &= (uintptr_t)io->out[p] % 16 == 0;
        in_aligned &= (uintptr_t)io->a[p] % 16 == 0;
    }
    /* fewer targets than words of shared memory: no layout size below wraps */
    const bool wide = v->n_from <= CONV32_TILED_NF && v->n_to < CONV32_DEFAULT_SMEM / 4 &&
                      n % 4 == 0 && out_aligned;
    const unsigned g4 = (v->n_to + 3) / 4;
    const dim3 wblock(32, g4 < CONV32_GROUPS ? g4 : CONV32_GROUPS);
    const unsigned tiles = (unsigned)((n + CONV32_WIDE - 1) / CONV32_WIDE);
    const pipe_layout L(v->n_from, v->n_to);
    if (wide && in_aligned && L.bytes() <= CONV32_DEFAULT_SMEM) {
        unsigned fit = 0;
        NB_TRY(nb_conv32_resident((const void *)conv32_pipe_kernel, wblock.x * wblock.y,
                                  L.bytes(), 0, &fit));
        fit = fit > 0 ? fit : 1;
        const unsigned total = tiles * io->count;
        NB_TRY(launch_pdl(conv32_pipe_kernel, dim3(total < fit ? total : fit), wblock, L.bytes(),
                          s, *v, *io, n, tiles));
        NB_CUDA_LAUNCH_CHECK();
        return NB_OK;
    }
    const size_t tiled = (size_t)v->n_from * (CONV32_WIDE + L.ntp) * 4;
    if (wide && tiled <= CONV32_DEFAULT_SMEM) {
        NB_TRY(launch_pdl(conv32_tiled_kernel, dim3(tiles, io->count), wblock, tiled, s, *v, *io,
                          n));
        NB_CUDA_LAUNCH_CHECK();
        return NB_OK;
    }
    const size_t smem = (size_t)v->n_from * CONV32_TILE * sizeof(uint32_t);
    const size_t table = (size_t)v->n_to * v->n_from * sizeof(uint32_t);
    const unsigned groups = (v->n_to + CONV32_TARGETS - 1) / CONV32_TARGETS;
    const dim3 block(CONV32_TILE, groups < CONV32_GROUPS ? groups : CONV32_GROUPS);
    const dim3 grid((unsigned)((n + CONV32_TILE - 1) / CONV32_TILE), io->count);
    if (smem + table <= CONV32_DEFAULT_SMEM)
        NB_TRY(launch_pdl(conv32_kernel<true>, grid, block, smem + table, s, *v, *io, n));
    else /* 256 source primes stage 32 KiB: always below the default limit */
        NB_TRY(launch_pdl(conv32_kernel<false>, grid, block, smem, s, *v, *io, n));
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

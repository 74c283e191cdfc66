/* Candidate 32-bit fast base conversion kernels, for an A/B against
 * gpu_conv32.cu's conv32_tiled_kernel on the device; nb_gpu_conv32 launches
 * one of them when NB_CONV32_KERNEL names it. Every candidate computes the
 * same words as the tiled kernel (the same exact sum, reduced by
 * nb_conv32_reduce) on the same 4 coefficients x 4 targets per thread:
 *   a  the per-target constants of the epilogue (b_j, 2^32 and 2^64 mod b_j,
 *      the two Shoup values, the output limb) and the per-source ones of the
 *      staging ([C/c_i]^-1 mod c_i, its Shoup value, c_i) staged in shared
 *      memory as 32-bit words beside the table, so the epilogue reads no
 *      global memory but stores; x staged with 16-byte loads; the source
 *      rows padded with zeros to a multiple of the fold, so the product loop
 *      has no bounds test.
 *   b  a, on a persistent grid (as many blocks as fit the device at once)
 *      walking the tiles of both polynomials; the raw x words of the next
 *      tile are copied into a second buffer with cp.async while the current
 *      tile's products run, then scaled in place when it becomes current.
 *   c  a with a three-word accumulator (a 64-bit sum below 2^62 between
 *      folds and a 32-bit count of 2^62) instead of two 64-bit words, 48
 *      accumulator registers instead of 64, for 3 blocks of 256 threads per
 *      SM (__launch_bounds__(256, 3)).
 *   d  b with c's accumulator.
 * Nothing here allocates or synchronizes; every launch is checked. */
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "ckks/consts.h"
#include "ckks/gpu_conv32.cuh"
#include "ckks/gpu_launch.cuh"
#include "ntt/arith.h"
#include "ntt/gpu_common.cuh"

#define CAND_WIDE 128    /* coefficients per tile (4 per lane)            */
#define CAND_GROUPS 8    /* warps per block: target groups of 4 at a time */
#define CAND_MAX_NF 64   /* source primes up to which the candidates run  */
#define CAND_SMEM (48 * 1024)
#define CAND_EPI 8       /* words per target in the epilogue table        */

namespace {

/* Shared memory of one block, in 32-bit words, every part 16-byte aligned:
 * epi [ntp][8] (b_j, r32, r64, r32 Shoup, floor(2^32/b_j), out limb, 0, 0),
 * rows [nfp][4] ([C/c_i]^-1 mod c_i, its 32-bit Shoup value, c_i, 0), the
 * table [nfp][ntp] ((C/c_i) mod b_j at i ntp + j, zero past nf or nt), then
 * `bufs` tiles [nfp][WIDE] (rows nf.. zero). nfp: nf rounded up to the
 * fold, ntp: nt rounded up to 4. */
struct cand_layout {
    unsigned nf, nt, nfp, ntp;
    __host__ __device__ cand_layout(unsigned n_from, unsigned n_to, unsigned fold)
        : nf(n_from), nt(n_to), nfp((n_from + fold - 1) / fold * fold), ntp((n_to + 3) & ~3u)
    {
    }
    __host__ __device__ unsigned rows() const { return CAND_EPI * ntp; }
    __host__ __device__ unsigned table() const { return rows() + 4 * nfp; }
    __host__ __device__ unsigned tile(unsigned k) const
    {
        return table() + nfp * ntp + k * nfp * CAND_WIDE;
    }
    __host__ __device__ size_t bytes(unsigned bufs) const { return (size_t)tile(bufs) * 4; }
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
 * programmatic wait) and the zero pad rows of `bufs` tiles. */
__device__ void stage_constants(uint32_t *sm, const cand_layout &L, const nb_conv_view &v,
                                unsigned bufs, unsigned tid, unsigned nthr)
{
    batched<2>(
        L.ntp * CAND_EPI, tid, nthr,
        [&](unsigned idx) {
            const unsigned j = idx / CAND_EPI, f = idx % CAND_EPI;
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
    for (unsigned k = 0; k < bufs; k++)
        for (unsigned idx = L.nf * CAND_WIDE + tid; idx < L.nfp * CAND_WIDE; idx += nthr)
            sm[L.tile(k) + idx] = 0;
}

/* y = [x * (C/c_i)^-1]_{c_i} of 4 words of row i (rows from sm). */
__device__ __forceinline__ uint4 scale4(uint4 x, const uint32_t *sm, const cand_layout &L,
                                        unsigned i)
{
    const uint4 r = *(const uint4 *)&sm[L.rows() + 4 * i];
    return make_uint4(nb_mul_shoup32(x.x, r.x, r.y, r.z), nb_mul_shoup32(x.y, r.x, r.y, r.z),
                      nb_mul_shoup32(x.z, r.x, r.y, r.z), nb_mul_shoup32(x.w, r.x, r.y, r.z));
}

/* Tile of coefficients c0.. of `in` into y, scaled, with 16-byte loads
 * (zeros past n; n a multiple of 4, `in` 16-byte aligned). */
__device__ void stage_tile(uint32_t *y, const uint32_t *__restrict__ in, size_t n, size_t c0,
                           const uint32_t *sm, const cand_layout &L, unsigned tid,
                           unsigned nthr)
{
    constexpr unsigned Q = CAND_WIDE / 4; /* 16-byte words per row */
    batched<4>(
        L.nf * Q, tid, nthr,
        [&](unsigned idx) {
            const size_t col = c0 + 4 * (idx % Q);
            return col < n ? *(const uint4 *)&in[(size_t)(idx / Q) * n + col]
                           : make_uint4(0, 0, 0, 0);
        },
        [&](unsigned idx, uint4 x) { *(uint4 *)&y[4 * idx] = scale4(x, sm, L, idx / Q); });
}

/* Starts copying the raw tile c0.. of `in` into y (16 bytes per copy, zero
 * filled past n); completes with cp_async_wait. */
__device__ void copy_tile_async(uint32_t *y, const uint32_t *__restrict__ in, size_t n,
                                size_t c0, const cand_layout &L, unsigned tid, unsigned nthr)
{
    for (unsigned idx = tid; idx < L.nf * (CAND_WIDE / 4); idx += nthr) {
        const unsigned i = idx / (CAND_WIDE / 4), q = idx % (CAND_WIDE / 4);
        const size_t col = c0 + 4 * q;
        const uint32_t *src = col < n ? &in[(size_t)i * n + col] : in;
        const unsigned dst = (unsigned)__cvta_generic_to_shared(&y[i * CAND_WIDE + 4 * q]);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                     "r"(col < n ? 16 : 0)
                     : "memory");
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Waits for all but the most recent committed group of this thread. */
__device__ __forceinline__ void cp_async_wait_prior()
{
    asm volatile("cp.async.wait_group 1;\n" ::: "memory");
}

/* Scales the raw tile y (rows < nf) in place. */
__device__ void scale_tile(uint32_t *y, const uint32_t *sm, const cand_layout &L, unsigned tid,
                           unsigned nthr)
{
    for (unsigned idx = tid; idx < L.nf * (CAND_WIDE / 4); idx += nthr) {
        const unsigned i = idx / (CAND_WIDE / 4);
        uint4 *p = (uint4 *)&y[4 * idx];
        *p = scale4(*p, sm, L, i);
    }
}

/* The exact sum of up to 64 products y t < 2^62 (y < c_i, t < b_j, both
 * below 2^31, so y t <= (2^31 - 2)^2 = 2^62 - 2^33 + 4).
 * WIDE (folds of 4): (carry, sum) with sum < 2^32 at each fold; 4 products
 * added give sum <= 2^32 - 1 + 4 (2^62 - 2^33 + 4) < 2^64, and its high word
 * moves into carry: carry < 16 * 2^32 = 2^36 after 64 products.
 * Three-word (folds of 3): sum < 2^62 at each fold; 3 products added give
 * sum <= 2^62 - 1 + 3 (2^62 - 2^33 + 4) < 2^64, and floor(sum / 2^62) <= 3
 * moves into the 32-bit top: the total is top 2^62 + sum < 64 2^62 = 2^68,
 * so top < 64. */
template <bool THREE> struct acc;
template <> struct acc<false> {
    static constexpr int fold = 4;
    uint64_t sum, carry;
    __device__ __forceinline__ void zero() { sum = carry = 0; }
    __device__ __forceinline__ void add(uint32_t y, uint32_t t) { sum += (uint64_t)y * t; }
    __device__ __forceinline__ void fold_now()
    {
        carry += sum >> 32;
        sum &= 0xffffffffull;
    }
    /* (carry, sum) with sum < 2^32 and total carry 2^32 + sum */
    __device__ __forceinline__ uint64_t hi() const { return carry; }
    __device__ __forceinline__ uint64_t lo() const { return sum; }
};
template <> struct acc<true> {
    static constexpr int fold = 3;
    uint64_t sum;
    uint32_t top;
    __device__ __forceinline__ void zero() { sum = 0, top = 0; }
    __device__ __forceinline__ void add(uint32_t y, uint32_t t) { sum += (uint64_t)y * t; }
    __device__ __forceinline__ void fold_now()
    {
        top += (uint32_t)(sum >> 62);
        sum &= (1ull << 62) - 1;
    }
    /* top 2^62 + sum = (top 2^30 + (sum >> 32)) 2^32 + [sum]_32, hi < 2^36 */
    __device__ __forceinline__ uint64_t hi() const { return ((uint64_t)top << 30) + (sum >> 32); }
    __device__ __forceinline__ uint64_t lo() const { return sum & 0xffffffffull; }
};

/* Products and outputs of the staged tile y (coefficients c0..c0+WIDE):
 * thread (x, g) writes coefficients c0+4x..c0+4x+3 of targets 4g.., then
 * every 4 blockDim.y further, with 16-byte stores (out 16-byte aligned). */
template <bool THREE>
__device__ __forceinline__ void convert_tile(uint32_t *__restrict__ out, const uint32_t *y,
                                             const uint32_t *sm, const cand_layout &L,
                                             size_t n, size_t c0)
{
    constexpr int F = acc<THREE>::fold;
    const size_t col = c0 + 4 * threadIdx.x;
    if (col >= n)
        return;
    const uint32_t *tt = sm + L.table();
    for (unsigned jb = 4 * threadIdx.y; jb < L.nt; jb += 4 * blockDim.y) {
        acc<THREE> a[4][4]; /* [target][coefficient] */
#pragma unroll
        for (int t = 0; t < 4; t++)
#pragma unroll
            for (int k = 0; k < 4; k++)
                a[t][k].zero();
        for (unsigned i0 = 0; i0 < L.nfp; i0 += F) {
#pragma unroll
            for (int d = 0; d < F; d++) {
                const uint4 yv = *(const uint4 *)&y[(i0 + d) * CAND_WIDE + 4 * threadIdx.x];
                const uint4 wv = *(const uint4 *)&tt[(i0 + d) * L.ntp + jb];
                const uint32_t yk[4] = {yv.x, yv.y, yv.z, yv.w};
                const uint32_t wt[4] = {wv.x, wv.y, wv.z, wv.w};
#pragma unroll
                for (int t = 0; t < 4; t++)
#pragma unroll
                    for (int k = 0; k < 4; k++)
                        a[t][k].add(yk[k], wt[t]);
            }
#pragma unroll
            for (int t = 0; t < 4; t++)
#pragma unroll
                for (int k = 0; k < 4; k++)
                    a[t][k].fold_now();
        }
#pragma unroll
        for (int t = 0; t < 4; t++) {
            const unsigned j = jb + t;
            if (j >= L.nt)
                break;
            const uint4 e0 = *(const uint4 *)&sm[CAND_EPI * j];
            const uint32_t limb = sm[CAND_EPI * j + 5], ones = sm[CAND_EPI * j + 4];
            uint32_t r[4];
#pragma unroll
            for (int k = 0; k < 4; k++)
                r[k] = nb_conv32_reduce(a[t][k].hi(), a[t][k].lo(), e0.x, e0.y, e0.z, e0.w, ones);
            *(uint4 *)&out[(size_t)limb * n + col] = make_uint4(r[0], r[1], r[2], r[3]);
        }
    }
}

/* Candidates a and c: one tile per block, blockIdx.y the polynomial. */
template <bool THREE>
__global__ void __launch_bounds__(32 * CAND_GROUPS, THREE ? 3 : 2)
    conv32_cand_kernel(nb_conv_view v, nb_polys io, size_t n)
{
    const bool second = blockIdx.y; /* a select, not an index: io stays in parameter space */
    uint32_t *__restrict__ out = (uint32_t *)(second ? io.out[1] : io.out[0]);
    const uint32_t *__restrict__ in = (const uint32_t *)(second ? io.a[1] : io.a[0]);
    extern __shared__ __align__(16) uint32_t sm[];
    const cand_layout L(v.n_from, v.n_to, acc<THREE>::fold);
    const unsigned nthr = 32 * blockDim.y, tid = threadIdx.y * 32 + threadIdx.x;
    const size_t c0 = (size_t)blockIdx.x * CAND_WIDE;
    nb_gpu_pdl_launch_dependents();
    stage_constants(sm, L, v, 1, tid, nthr);
    __syncthreads();
    nb_gpu_pdl_wait();
    stage_tile(sm + L.tile(0), in, n, c0, sm, L, tid, nthr);
    __syncthreads();
    convert_tile<THREE>(out, sm + L.tile(0), sm, L, n, c0);
}

/* Candidates b and d: block b takes tiles b, b + gridDim.x, ... of the
 * io.count polynomials (tiles_per_poly each), double-buffered. */
template <bool THREE>
__global__ void __launch_bounds__(32 * CAND_GROUPS, THREE ? 3 : 2)
    conv32_cand_pipe_kernel(nb_conv_view v, nb_polys io, size_t n, unsigned tiles_per_poly)
{
    extern __shared__ __align__(16) uint32_t sm[];
    const cand_layout L(v.n_from, v.n_to, acc<THREE>::fold);
    const unsigned nthr = 32 * blockDim.y, tid = threadIdx.y * 32 + threadIdx.x;
    const unsigned total = tiles_per_poly * io.count;
    nb_gpu_pdl_launch_dependents();
    stage_constants(sm, L, v, 2, tid, nthr);
    nb_gpu_pdl_wait();
    unsigned t = blockIdx.x;
    if (t < total) {
        const bool second = t >= tiles_per_poly;
        copy_tile_async(sm + L.tile(0), (const uint32_t *)(second ? io.a[1] : io.a[0]), n,
                        (size_t)(t % tiles_per_poly) * CAND_WIDE, L, tid, nthr);
    }
    for (unsigned it = 0; t < total; t += gridDim.x, it++) {
        uint32_t *y = sm + L.tile(it & 1);
        const unsigned next = t + gridDim.x;
        if (next < total) {
            const bool second = next >= tiles_per_poly;
            copy_tile_async(sm + L.tile((it + 1) & 1),
                            (const uint32_t *)(second ? io.a[1] : io.a[0]), n,
                            (size_t)(next % tiles_per_poly) * CAND_WIDE, L, tid, nthr);
        } else {
            asm volatile("cp.async.commit_group;\n" ::: "memory"); /* keeps wait_group 1 exact */
        }
        cp_async_wait_prior();
        __syncthreads(); /* the tile and (first pass) the constants are visible */
        scale_tile(y, sm, L, tid, nthr);
        __syncthreads();
        const bool second = t >= tiles_per_poly;
        convert_tile<THREE>((uint32_t *)(second ? io.out[1] : io.out[0]), y, sm, L, n,
                            (size_t)(t % tiles_per_poly) * CAND_WIDE);
        __syncthreads(); /* y is free for the copy issued next pass */
    }
}

template <class K>
nb_status blocks_in_flight(K kern, unsigned threads, size_t smem, unsigned *out)
{
    int dev = 0, sms = 0, per_sm = 0;
    NB_CUDA_TRY(cudaGetDevice(&dev));
    NB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    NB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, (int)threads, smem));
    *out = (unsigned)(sms * (per_sm > 0 ? per_sm : 1));
    return NB_OK;
}

} // namespace

/* Launches candidate `which` ('a'..'d') when the shape suits it (up to 64
 * source primes, n a multiple of 4, inputs and outputs 16-byte aligned, its
 * shared memory within 48 KiB): *launched = 1; else *launched = 0 and
 * nothing is done. v and io as nb_gpu_conv32 checked them. */
extern "C" nb_status nb_gpu_conv32_candidate(char which, const nb_conv_view *v,
                                             const nb_polys *io, size_t n, void *stream,
                                             int *launched)
{
    *launched = 0;
    const bool three = which == 'c' || which == 'd', pipe = which == 'b' || which == 'd';
    const cand_layout L(v->n_from, v->n_to, three ? 3 : 4);
    const size_t smem = L.bytes(pipe ? 2 : 1);
    int aligned = n % 4 == 0;
    for (unsigned p = 0; p < io->count; p++)
        aligned &= (uintptr_t)io->out[p] % 16 == 0 && (uintptr_t)io->a[p] % 16 == 0;
    if (v->n_from > CAND_MAX_NF || smem > CAND_SMEM || !aligned)
        return NB_OK;
    const unsigned g4 = (v->n_to + 3) / 4;
    const dim3 block(32, g4 < CAND_GROUPS ? g4 : CAND_GROUPS);
    const unsigned tiles = (unsigned)((n + CAND_WIDE - 1) / CAND_WIDE);
    cudaStream_t s = (cudaStream_t)stream;
    if (pipe) {
        auto kern = three ? conv32_cand_pipe_kernel<true> : conv32_cand_pipe_kernel<false>;
        unsigned fit = 0;
        NB_TRY(blocks_in_flight(kern, block.x * block.y, smem, &fit));
        const unsigned total = tiles * io->count;
        NB_TRY(launch_pdl(kern, dim3(total < fit ? total : fit), block, smem, s, *v, *io, n,
                          tiles));
    } else {
        auto kern = three ? conv32_cand_kernel<true> : conv32_cand_kernel<false>;
        NB_TRY(launch_pdl(kern, dim3(tiles, io->count), block, smem, s, *v, *io, n));
    }
    NB_CUDA_LAUNCH_CHECK();
    *launched = 1;
    return NB_OK;
}

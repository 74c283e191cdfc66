/* The fast base conversion on 32-bit words on the tensor cores (reached
 * through nb_gpu_conv32): Conv_{C->B} as the matrix product y T, y_i =
 * [x_i (C/c_i)^-1]_{c_i} and T_ji = (C/c_i) mod b_j, with every word split
 * into bytes so that the integer tensor cores (mma.sync m16n8k32, u8 x u8
 * into s32, sm_80 and later) do the multiply-adds exactly.
 *
 * The split. With y_i = sum_a y_ia 2^(8a) (bytes y_ia) and T'_(i,a),j =
 * 2^(8a) T_ji mod b_j = sum_b t_(i,a),j,b 2^(8b) (bytes t),
 *   sum_i y_i T_ji = sum_b 2^(8b) P_jb (mod b_j), P_jb = sum_(i,a) y_ia t_(i,a),j,b,
 * four sums of byte products over K = 4 x (source primes) rows. Each P_jb is at
 * most K 255^2 < 2^24 for up to 64 source primes, so the s32 accumulators
 * are exact, and P_j0 + 2^8 P_j1 + 2^16 P_j2 + 2^24 P_j3 is reduced once
 * (combine: in 32-bit halves up to 32 source primes, else in 64 bits).
 *
 * The fragments. In m16n8k32 a thread holds the bytes of A at row (lane/4)
 * (and +8), columns 4 (lane%4) .. +3 (and +16): with K ordered (i, a) those
 * are exactly the four bytes of one word y_i, so A is the scaled 32-bit
 * words themselves. The table's bytes sit in shared memory packed in the B
 * fragments' order, [group of 8 targets][8-prime step][byte b][lane] as
 * two words, one 8-byte load per lane per product: each block copies them
 * and the targets' constants from the host-built table (nb_conv_tc_fill,
 * nb_conv_desc.tc_epi). A view whose targets start inside a group (several
 * GPUs) covers the groups its targets touch and skips the others' outputs.
 *
 * Work: a persistent grid of 8-warp blocks; each warp takes 16 MMA_MT
 * coefficients of one polynomial at a time, loads and scales their words of
 * every source prime into registers, then walks the targets 8 at a time:
 * per 8-prime step, 4 bytes x MMA_MT row tiles of products, then the
 * reduction and 4-byte stores (8 consecutive coefficients of a target per
 * 32-byte sector).
 * Nothing here allocates or synchronizes the host; every launch is
 * checked. */
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "ckks/consts.h"
#include "ckks/gpu_conv32.cuh"
#include "ckks/gpu_launch.cuh"
#include "ntt/arith.h"
#include "ntt/gpu_common.cuh"

#define MMA_WARPS 8  /* warps per block                                  */
#define MMA_MT 1     /* 16-coefficient row tiles per warp at a time       */
#define MMA_COEFFS (16 * MMA_MT)
#define MMA_MAX_KS 8 /* 8-prime steps: up to 64 source primes             */
#define MMA_NARROW_KS 4 /* steps up to which each P_jb < 2^23 (32 primes)   */
#define MMA_EPI 8    /* words per target (below)                          */

namespace {

/* Shared memory of a block, in 32-bit words (every part 16-byte aligned):
 * epi [8 nt8][MMA_EPI] per target b of the view (zero past the last): b,
 * floor(2^32/b), 2^16 mod b and its Shoup value; 2^32 mod b, 2^64 mod b,
 * the Shoup value of the first, the output limb. Then rows [8 ks][4]
 * ((C/c_i)^-1 mod c_i, its Shoup value, c_i, 0; 0, 0, 1, 0 past the last
 * prime), then the B fragments [nt8][ks][4][32] x 2 words of the groups
 * from the one holding the view's first target (its first - 1 targets
 * before it, tc_first, are not the view's). */
struct mma_layout {
    unsigned nf, nt, first, ks, nt8;
    __host__ __device__ mma_layout(const nb_conv_view &v)
        : nf(v.n_from), nt(v.n_to), first(v.tc_first), ks((v.n_from + 7) / 8),
          nt8((v.tc_first + v.n_to + 7) / 8)
    {
    }
    __host__ __device__ unsigned rows() const { return MMA_EPI * 8 * nt8; }
    __host__ __device__ unsigned frags() const { return rows() + 4 * 8 * ks; }
    __host__ __device__ size_t bytes() const { return ((size_t)frags() + 256u * nt8 * ks) * 4; }
};

/* The constants of one block (written before any pipeline call, so read
 * before the programmatic wait), copied from v's host-built table; ends with
 * a barrier. */
__device__ void mma_stage(uint32_t *sm, const mma_layout &L, const nb_conv_view &v,
                          unsigned tid, unsigned nthr)
{
    for (unsigned j = tid; j < 8 * L.nt8; j += nthr) {
        uint4 *e = (uint4 *)&sm[MMA_EPI * j];
        const bool in = j < L.nt;
        const uint4 *rec = (const uint4 *)(v.tc_epi + 4 * (size_t)j);
        const uint4 k1 = in ? __ldg(rec + 1) : make_uint4(0, 0, 0, 0);
        e[0] = in ? __ldg(rec) : make_uint4(0, 0, 0, 0);
        e[1] = make_uint4(k1.x, k1.y, k1.z, in ? (uint32_t)v.out_limb[j] : 0);
    }
    for (unsigned i = tid; i < 8 * L.ks; i += nthr) {
        const bool in = i < L.nf;
        *(uint4 *)&sm[L.rows() + 4 * i] =
            make_uint4(in ? (uint32_t)v.qhat_inv[i] : 0,
                       in ? nb_shoup32_from64(v.qhat_inv_shoup[i]) : 0,
                       in ? (uint32_t)v.from_q[i] : 1, 0);
    }
    const uint4 *src = (const uint4 *)v.tc_frag; /* 128 x 8 bytes per (group, step) */
    uint4 *dst = (uint4 *)&sm[L.frags()];
#pragma unroll 4
    for (unsigned idx = tid; idx < 64 * L.ks * L.nt8; idx += nthr)
        dst[idx] = __ldg(src + idx);
    __syncthreads();
}

/* d += a b on the tensor cores: m16n8k32, u8 x u8 into s32. */
__device__ __forceinline__ void mma_u8(int (&d)[4], const uint32_t (&a)[4], uint2 b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b.x), "r"(b.y));
#else
    (void)d;
    (void)a;
    (void)b;
    __trap(); /* never launched: the host checks the device code's architecture */
#endif
}

/* [P0 + 2^8 P1 + 2^16 P2 + 2^24 P3]_b for a target's constants k0 (b,
 * floor(2^32/b), 2^16 mod b, its Shoup value) and k1 (2^32 mod b, 2^64 mod
 * b, the Shoup value of the first). NARROW: every P < 2^23 (at most 32
 * source primes), so x = lo + 2^16 hi with lo = P0 + 2^8 P1 and hi = P2 +
 * 2^8 P3 both below 2^32, reduced as [hi (2^16 mod b)]_b + [lo]_b with two
 * 32-bit Shoup products. Otherwise every P < 2^24 and the 64-bit x < 2^49
 * goes through nb_conv32_reduce. Result in [0, b). */
template <bool NARROW>
__device__ __forceinline__ uint32_t combine(int p0, int p1, int p2, int p3, uint4 k0, uint4 k1)
{
    if (NARROW) {
        const uint32_t lo = (uint32_t)p0 + ((uint32_t)p1 << 8);
        const uint32_t hi = (uint32_t)p2 + ((uint32_t)p3 << 8);
        const uint32_t a = nb_csub32(nb_mul_shoup32_lazy(hi, k0.z, k0.w, k0.x), k0.x);
        const uint32_t c = nb_csub32(nb_mul_shoup32_lazy(lo, 1, k0.y, k0.x), k0.x);
        return nb_csub32(a + c, k0.x);
    }
    const uint64_t x = (uint64_t)(uint32_t)p0 + ((uint64_t)(uint32_t)p1 << 8) +
                       ((uint64_t)(uint32_t)p2 << 16) + ((uint64_t)(uint32_t)p3 << 24);
    return nb_conv32_reduce(x >> 32, x & 0xffffffffull, k0.x, k1.x, k1.y, k1.z, k0.y);
}

/* KS = L.ks 8-prime steps (1..MMA_MAX_KS); n a multiple of MMA_COEFFS;
 * tiles_per_poly = n / MMA_COEFFS. */
template <int KS>
__global__ void __launch_bounds__(32 * MMA_WARPS)
    conv32_mma_kernel(nb_conv_view v, nb_polys io, size_t n, unsigned tiles_per_poly)
{
    extern __shared__ __align__(16) uint32_t sm[];
    const mma_layout L(v);
    const unsigned tid = threadIdx.x, lane = tid % 32, gid = lane / 4, tig = lane % 4;
    nb_gpu_pdl_launch_dependents();
    mma_stage(sm, L, v, tid, blockDim.x);
    nb_gpu_pdl_wait();
    const uint2 *frag = (const uint2 *)&sm[L.frags()];
    const unsigned total = tiles_per_poly * io.count;
    for (unsigned t = blockIdx.x * MMA_WARPS + tid / 32; t < total;
         t += gridDim.x * MMA_WARPS) {
        const bool second = t >= tiles_per_poly;
        const uint32_t *__restrict__ in = (const uint32_t *)(second ? io.a[1] : io.a[0]);
        uint32_t *__restrict__ out = (uint32_t *)(second ? io.out[1] : io.out[0]);
        const size_t c0 = (size_t)(t % tiles_per_poly) * MMA_COEFFS + gid;
        /* a[k][m][r]: prime 8k + tig (r < 2) or 8k + 4 + tig (r >= 2),
         * coefficient c0 + 16m (r even) or + 8 (r odd) */
        uint32_t a[KS][MMA_MT][4];
#pragma unroll
        for (int k = 0; k < KS; k++)
#pragma unroll
            for (int r = 0; r < 4; r++) {
                const unsigned i = 8 * k + 4 * (r / 2) + tig;
#pragma unroll
                for (int m = 0; m < MMA_MT; m++)
                    a[k][m][r] = i < L.nf ? in[(size_t)i * n + c0 + 16 * m + 8 * (r % 2)] : 0;
            }
#pragma unroll
        for (int k = 0; k < KS; k++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const uint4 c = *(const uint4 *)&sm[L.rows() + 4 * (8 * k + 4 * h + tig)];
#pragma unroll
                for (int m = 0; m < MMA_MT; m++)
#pragma unroll
                    for (int r = 2 * h; r < 2 * h + 2; r++)
                        a[k][m][r] = nb_mul_shoup32(a[k][m][r], c.x, c.y, c.z);
            }
#pragma unroll 2 /* one group's products overlap the last group's reductions */
        for (unsigned tile = 0; tile < L.nt8; tile++) {
            int acc[MMA_MT][4][4] = {}; /* [row tile][byte b][register] */
#pragma unroll
            for (int k = 0; k < KS; k++) {
                const uint2 *f = frag + (tile * KS + k) * 128 + lane;
                const uint2 b[4] = {f[0], f[32], f[64], f[96]};
#pragma unroll
                for (int m = 0; m < MMA_MT; m++)
#pragma unroll
                    for (int bb = 0; bb < 4; bb++)
                        mma_u8(acc[m][bb], a[k][m], b[bb]);
            }
#pragma unroll
            for (int e = 0; e < 2; e++) { /* registers e, e + 2: the view's target j */
                const unsigned j = 8 * tile + 2 * tig + e - L.first; /* wraps below 0 */
                if (j >= L.nt)
                    continue;
                const uint4 k0 = *(const uint4 *)&sm[MMA_EPI * j];
                const uint4 k1 = *(const uint4 *)&sm[MMA_EPI * j + 4];
                uint32_t *o = out + (size_t)k1.w * n + c0;
#pragma unroll
                for (int m = 0; m < MMA_MT; m++)
#pragma unroll
                    for (int h = 0; h < 2; h++) {
                        const int r = 2 * h + e;
                        o[16 * m + 8 * h] =
                            combine<(KS <= MMA_NARROW_KS)>(acc[m][0][r], acc[m][1][r],
                                                           acc[m][2][r], acc[m][3][r], k0, k1);
                    }
            }
        }
    }
}

typedef void (*mma_kernel_fn)(nb_conv_view, nb_polys, size_t, unsigned);

mma_kernel_fn mma_kernel(unsigned ks)
{
    switch (ks) {
    case 1: return conv32_mma_kernel<1>;
    case 2: return conv32_mma_kernel<2>;
    case 3: return conv32_mma_kernel<3>;
    case 4: return conv32_mma_kernel<4>;
    case 5: return conv32_mma_kernel<5>;
    case 6: return conv32_mma_kernel<6>;
    case 7: return conv32_mma_kernel<7>;
    default: return conv32_mma_kernel<8>;
    }
}

} // namespace

nb_status nb_gpu_conv32_mma(const nb_conv_view *v, const nb_polys *io, size_t n,
                            cudaStream_t stream, bool *launched)
{
    *launched = false;
    const mma_layout L(*v);
    if (!v->tc_frag || v->n_from > 8 * MMA_MAX_KS || n % MMA_COEFFS != 0 ||
        L.bytes() > CONV32_SMEM_CAP)
        return NB_OK;
    const mma_kernel_fn k = mma_kernel(L.ks);
    unsigned fit = 0;
    NB_TRY(nb_conv32_resident((const void *)k, 32 * MMA_WARPS, L.bytes(), 80, &fit));
    if (fit == 0)
        return NB_OK;
    const unsigned tiles = (unsigned)(n / MMA_COEFFS);
    const unsigned blocks = (tiles * io->count + MMA_WARPS - 1) / MMA_WARPS;
    NB_TRY(launch_pdl(k, dim3(blocks < fit ? blocks : fit), dim3(32 * MMA_WARPS), L.bytes(),
                      stream, *v, *io, n, tiles));
    NB_CUDA_LAUNCH_CHECK();
    *launched = true;
    return NB_OK;
}

/* Building blocks of the register-resident GPU NTT kernels (gpu_fast.cu):
 * each thread holds 2^R coefficients of a 2^K-point transform in registers
 * and runs the butterfly stages of one pass on them (Harvey/Shoup, the
 * arithmetic of ntt/arith.h); passes exchange through shared memory. What is
 * generic over the kernel's shape lives here: the pass geometry, the
 * butterfly stages, the twiddle lookup in shared memory and the coalesced
 * row load/store. A kernel supplies its shape as a class PH with K_, R, RV,
 * TILE, SROW and TT (see Phase in gpu_fast.cu). */
#ifndef NB_GPU_REG_PASSES_CUH
#define NB_GPU_REG_PASSES_CUH

#include <type_traits>

#include "ntt/gpu_common.cuh"

namespace nb_regpass {

/* Shared-memory slot of row twiddle i (w_shoup only, 16 per bank row): the
 * low three bits XOR-ed with the bits above one bank row, so that a warp
 * reading runs of 8/4/2/1 consecutive twiddles hits distinct banks. */
__device__ __forceinline__ uint32_t tw_slot(uint32_t i) { return i ^ ((i >> 4) & 7u); }

template <int I, int END, int STEP, class F> __device__ __forceinline__ void static_for(F &&f)
{
    if constexpr ((STEP > 0 && I < END) || (STEP < 0 && I > END)) {
        f(std::integral_constant<int, I>{});
        static_for<I + STEP, END, STEP>(f);
    }
}

/* Pass P of a 2^K-point transform: stages on index bits [LO, HI); the thread
 * owns the 2^R elements e(j) = base | (j << WL). */
template <bool INV, int K, int P, int R> struct Pass {
    static constexpr int LO = INV ? R * P : (K - R * (P + 1) > 0 ? K - R * (P + 1) : 0);
    static constexpr int HI = INV ? (R * (P + 1) < K ? R * (P + 1) : K) : K - R * P;
    static constexpr int WL = LO < K - R ? LO : K - R;
};

template <int WL, int R> __device__ __forceinline__ uint32_t elem_base(uint32_t t)
{
    return (t & ((1u << WL) - 1)) | ((t >> WL) << (WL + R));
}

/* Twiddle of the butterfly on in-transform bit B whose lower element is
 * eb | (j << WL): at base<B>(eb) + (j >> (B - WL + 1)). Columns: the limb's
 * entry 2^(K-1-B) + (e >> (B+1)); rows: row r's global entry
 * 2^(KOFF+s) + (row << s) + (e >> (B+1)) (s = K-1-B), kept at
 * ((TILE + r) << s) + (e >> (B+1)). */
template <class PH, bool ROWS> struct TwShared {
    const typename PH::TT *s;
    uint32_t r;
    template <int B> __device__ __forceinline__ uint32_t base(uint32_t eb) const
    {
        constexpr int K = PH::K_;
        if constexpr (ROWS)
            return ((PH::TILE + r) << (K - 1 - B)) + (eb >> (B + 1));
        else
            return (1u << (K - 1 - B)) + (eb >> (B + 1));
    }
    __device__ __forceinline__ void get(uint32_t i, uint64_t q, uint64_t &w, uint64_t &ws) const
    {
        if constexpr (ROWS) {
            ws = s[tw_slot(i)];
            w = nb_shoup_recover(ws, q);
        } else {
            const ulonglong2 p = s[i];
            w = p.x;
            ws = p.y;
        }
    }
};

/* The stages of one pass on the thread's 2^R registers; SCALE_TOP: the top
 * inverse stage multiplies by N^-1 and inv[1] N^-1. */
template <bool INV, int K, int LO, int HI, int WL, bool SCALE_TOP, int RV, class TWA>
__device__ __forceinline__ void run_pass(uint64_t (&v)[RV], uint32_t eb, const TWA &twa,
                                         uint64_t q, const nb_gpu_limb *c)
{
    auto stage = [&](auto bc) {
        constexpr int B = decltype(bc)::value;
        constexpr int JB = B - WL;
        constexpr int NH = RV >> (JB + 1);
        if constexpr (INV && SCALE_TOP && B == K - 1) {
            const uint64_t two_q = q << 1;
            const uint64_t ni = c->n_inv, nis = c->n_inv_shoup;
            const uint64_t lw = c->last_w, lws = c->last_w_shoup;
#pragma unroll
            for (int j0 = 0; j0 < RV; j0++) {
                if (j0 & (1 << JB))
                    continue;
                const int j1 = j0 | (1 << JB);
                const uint64_t u = v[j0], x = v[j1];
                v[j0] = nb_mul_shoup(u + x, ni, nis, q);
                v[j1] = nb_mul_shoup(u - x + two_q, lw, lws, q);
            }
        } else {
            const uint32_t base = twa.template base<B>(eb);
#pragma unroll
            for (int hj = 0; hj < NH; hj++) {
                uint64_t w, ws;
                twa.get(base + hj, q, w, ws);
#pragma unroll
                for (int jl = 0; jl < (1 << JB); jl++) {
                    const int j0 = (hj << (JB + 1)) | jl, j1 = j0 | (1 << JB);
                    if constexpr (INV)
                        nb_gs_butterfly(&v[j0], &v[j1], w, ws, q);
                    else
                        nb_ct_butterfly(&v[j0], &v[j1], w, ws, q);
                }
            }
        }
    };
    if constexpr (INV)
        static_for<LO, HI, 1>(stage);
    else
        static_for<HI - 1, LO - 1, -1>(stage);
}

template <class PH, bool ROWS> __device__ __forceinline__ uint32_t data_slot(uint32_t tb, uint32_t e)
{
    if constexpr (ROWS)
        return tb * PH::SROW + e + (e >> 4);
    else
        return e * PH::TILE + tb;
}

/* Row kernels: the warp's 32 * 2^R contiguous block elements move between
 * the 2^R-consecutive-per-thread layout and a coalesced one (each 16-byte
 * access of the warp covers 512 contiguous bytes) through the warp's own
 * shared-memory slots, so only __syncwarp is needed. */
template <class PH, int K, int R = PH::R, int RV = PH::RV>
__device__ __forceinline__ void rows_load_coalesced(uint64_t (&v)[RV], const uint64_t *blk,
                                                    uint64_t *sdata, uint32_t tid)
{
    const uint32_t lane = tid & 31, f0 = (tid & ~31u) << R;
#pragma unroll
    for (int i = 0; i < RV / 2; i++) {
        const uint32_t f = f0 + i * 64 + 2 * lane, tb = f >> K, e = f & ((1u << K) - 1);
        const ulonglong2 p = *reinterpret_cast<const ulonglong2 *>(blk + f);
        sdata[data_slot<PH, true>(tb, e)] = p.x;
        sdata[data_slot<PH, true>(tb, e + 1)] = p.y;
    }
    __syncwarp();
    const uint32_t f = tid << R, tb = f >> K, e = f & ((1u << K) - 1);
#pragma unroll
    for (int j = 0; j < RV; j++)
        v[j] = sdata[data_slot<PH, true>(tb, e + j)];
}

template <class PH, int K, int R = PH::R, int RV = PH::RV>
__device__ __forceinline__ void rows_store_coalesced(const uint64_t (&v)[RV], uint64_t *blk,
                                                     uint64_t *sdata, uint32_t tid)
{
    const uint32_t lane = tid & 31, f0 = (tid & ~31u) << R;
    {
        const uint32_t f = tid << R, tb = f >> K, e = f & ((1u << K) - 1);
#pragma unroll
        for (int j = 0; j < RV; j++)
            sdata[data_slot<PH, true>(tb, e + j)] = v[j];
    }
    __syncwarp();
#pragma unroll
    for (int i = 0; i < RV / 2; i++) {
        const uint32_t f = f0 + i * 64 + 2 * lane, tb = f >> K, e = f & ((1u << K) - 1);
        *reinterpret_cast<ulonglong2 *>(blk + f) = make_ulonglong2(
            sdata[data_slot<PH, true>(tb, e)], sdata[data_slot<PH, true>(tb, e + 1)]);
    }
}

} // namespace nb_regpass

#endif

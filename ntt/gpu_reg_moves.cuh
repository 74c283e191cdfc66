/* The data moves of the register-resident phase kernels
 * (ntt/gpu_reg_passes.cuh): where an element of a block's transforms sits in
 * shared memory, 16-byte vectors split into words and back, and the row
 * phases' coalesced global load and store through the warp's shared-memory
 * slots (the store with an optional rewrite of each vector, the fused
 * epilogue's hook). Templates on a phase PH (nb_regpass::Phase). */
#ifndef NB_GPU_REG_MOVES_CUH
#define NB_GPU_REG_MOVES_CUH

#include <type_traits>

#include "ntt/gpu_word.cuh"

namespace nb_regpass {

/* Shared-memory slot of element e of transform tb: rows padded by one word
 * per 16, which keeps the radix-16 passes' exchanges free of bank conflicts
 * for 8-byte and for 4-byte words alike (each access of a warp takes the
 * fewest wavefronts its bytes need; one word per 32, the bank row of
 * 4-byte words, would not); columns interleaved by transform. */
template <class PH, bool ROWS> __device__ __forceinline__ uint32_t data_slot(uint32_t tb, uint32_t e)
{
    if constexpr (ROWS)
        return tb * PH::SROW + e + (e >> 4);
    else
        return e * PH::TILE + tb;
}

/* data_slot(tb, eb | jw) - data_slot(tb, eb) for eb and jw of disjoint bits
 * (a pass's element base and one of its register offsets j << WL): the
 * padding of rows and the interleave of columns are additive over disjoint
 * bits, so a thread's 2^R slots are one base plus compile-time offsets (one
 * address for the exchange instead of one computed per register). */
template <class PH, bool ROWS> __device__ __forceinline__ constexpr uint32_t slot_offset(uint32_t jw)
{
    return ROWS ? jw + (jw >> 4) : jw * PH::TILE;
}

/* The words of a 16-byte vector, and back. */
__device__ __forceinline__ void vec_split(const ulonglong2 &p, uint64_t (&o)[2])
{
    o[0] = p.x;
    o[1] = p.y;
}
__device__ __forceinline__ void vec_split(const uint4 &p, uint32_t (&o)[4])
{
    o[0] = p.x;
    o[1] = p.y;
    o[2] = p.z;
    o[3] = p.w;
}
__device__ __forceinline__ ulonglong2 vec_join(const uint64_t (&o)[2])
{
    return make_ulonglong2(o[0], o[1]);
}
__device__ __forceinline__ uint4 vec_join(const uint32_t (&o)[4])
{
    return make_uint4(o[0], o[1], o[2], o[3]);
}

/* Row kernels: the warp's 32 * 2^R contiguous block elements move between
 * the 2^R-consecutive-per-thread layout and a coalesced one (each 16-byte
 * access of the warp covers 512 contiguous bytes) through the warp's own
 * shared-memory slots, so only __syncwarp is needed. */
template <class PH, int K, bool EVICT_FIRST, int R = PH::R, int RV = PH::RV>
__device__ __forceinline__ void rows_load_coalesced(typename PH::W (&v)[RV],
                                                    const typename PH::W *blk,
                                                    typename PH::W *sdata, uint32_t tid)
{
    constexpr int VW = PH::Word::VEC_WORDS;
    static_assert(RV >= VW, "a thread moves whole 16-byte vectors");
    const uint32_t lane = tid & 31, f0 = (tid & ~31u) << R;
#pragma unroll
    for (int i = 0; i < RV / VW; i++) {
        const uint32_t f = f0 + i * (32 * VW) + VW * lane, tb = f >> K, e = f & ((1u << K) - 1);
        typename PH::W o[VW];
        vec_split(nb_gpu_ld_vec<typename PH::Word, EVICT_FIRST>(blk + f), o);
#pragma unroll
        for (int k = 0; k < VW; k++)
            sdata[data_slot<PH, true>(tb, e + k)] = o[k];
    }
    __syncwarp();
    const uint32_t f = tid << R, tb = f >> K, e = f & ((1u << K) - 1);
#pragma unroll
    for (int j = 0; j < RV; j++)
        v[j] = sdata[data_slot<PH, true>(tb, e + j)];
}

/* fin(o, i) rewrites the VW words o about to be stored by the thread's
 * i-th vector store (the fused epilogue; NoFin: none); with a fin the stores
 * are streaming (evict-first). */
struct NoFin {
    template <class W, int VW> __device__ __forceinline__ void operator()(W (&)[VW], int) const {}
};
template <class PH, int K, int R = PH::R, int RV = PH::RV, class FIN = NoFin>
__device__ __forceinline__ void rows_store_coalesced(const typename PH::W (&v)[RV],
                                                     typename PH::W *blk, typename PH::W *sdata,
                                                     uint32_t tid, FIN fin = FIN())
{
    constexpr int VW = PH::Word::VEC_WORDS;
    const uint32_t lane = tid & 31, f0 = (tid & ~31u) << R;
    {
        const uint32_t f = tid << R, tb = f >> K, e = f & ((1u << K) - 1);
#pragma unroll
        for (int j = 0; j < RV; j++)
            sdata[data_slot<PH, true>(tb, e + j)] = v[j];
    }
    __syncwarp();
#pragma unroll
    for (int i = 0; i < RV / VW; i++) {
        const uint32_t f = f0 + i * (32 * VW) + VW * lane, tb = f >> K, e = f & ((1u << K) - 1);
        typename PH::W o[VW];
#pragma unroll
        for (int k = 0; k < VW; k++)
            o[k] = sdata[data_slot<PH, true>(tb, e + k)];
        fin(o, i);
        if constexpr (std::is_same<FIN, NoFin>::value)
            nb_gpu_st_vec<typename PH::Word>(blk + f, vec_join(o));
        else /* an epilogue's output: written once, not read by the call */
            __stcs(reinterpret_cast<typename PH::Word::Vec *>(blk + f), vec_join(o));
    }
}

} // namespace nb_regpass

#endif

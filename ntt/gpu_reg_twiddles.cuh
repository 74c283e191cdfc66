/* The twiddles of the register-resident phase kernels
 * (ntt/gpu_reg_passes.cuh): where they sit in shared memory (row words
 * swizzled against bank conflicts, OTF product records), the lookup a pass
 * makes for the butterflies of one stage (TwShared: column pairs, row
 * w_shoup words, the first pass's pairs, OTF products, or the factors of
 * an OTF product applied one after the other), and the row phases' pairs
 * staged at kernel start (PairStage). Templates on a phase PH
 * (nb_regpass::Phase). */
#ifndef NB_GPU_REG_TWIDDLES_CUH
#define NB_GPU_REG_TWIDDLES_CUH

#include "ntt/gpu_word.cuh"

namespace nb_regpass {

/* Shared-memory slot of row twiddle i (w_shoup only, 2^LOG_BANK_ROW per
 * bank row: 16 64-bit or 32 32-bit words): the low three (64-bit) or four
 * (32-bit) bits XOR-ed with the bits above one bank row, so that a warp
 * reading runs of 8/4/2/1 consecutive twiddles hits distinct banks. */
template <class WT> __device__ __forceinline__ uint32_t tw_slot(uint32_t i)
{
    constexpr uint32_t LB = WT::LOG_BANK_ROW, MASK = (1u << (LB - 1)) - 1;
    return i ^ ((i >> LB) & MASK);
}

/* Shared-memory slot of product record k of an OTF row phase: the low three
 * bits XOR-ed with the next three, so that the threads of a row, reading
 * records k0 + hj with k0 = t << m (m <= 3), hit distinct 16-byte bank
 * groups in each quarter warp. */
__device__ __forceinline__ uint32_t otf_slot(uint32_t k) { return k ^ ((k >> 3) & 7); }

/* Twiddle of the butterfly on in-transform bit B whose lower element is
 * eb | (j << WL): at base<B>(eb) + (j >> (B - WL + 1)). Columns: the limb's
 * entry 2^(K-1-B) + (e >> (B+1)); rows: row r's global entry
 * 2^(KOFF+s) + (row << s) + (e >> (B+1)) (s = K-1-B), kept at
 * ((TILE + r) << s) + (e >> (B+1)). OTF rows, stages s >= R: the entry's
 * three index fields are disjoint bits, and the table holds psi^(+-brv(i)),
 * so it is the product of a = entry 2^(KOFF+s) + (row << s) (the thread's
 * a[s - R]) and c = entry k = e >> (B+1) of the limb's first 2^(K-1), whose
 * record sits at otf_slot(k) (nb_shoup32_product). get_ac: the factors
 * a, c and their Shoup companions, for stages whose twiddles the
 * butterflies apply as two products (by_ac). */
template <class PH, bool ROWS> struct TwShared {
    typedef typename PH::W W;
    const typename PH::TT *s;
    const typename PH::Pair *sp; /* rows: entries [TILE, TILE + NPAIR) as pairs */
    uint32_t r;
    const uint4 *sc;                   /* OTF: the records */
    W a[PH::OTF ? PH::K_ - PH::R : 1];  /* OTF: the row's factors */
    W as[PH::OTF ? PH::K_ - PH::R : 1]; /* OTF: their companions floor(a 2^32 / q) */
    /* Whether the twiddles of OTF stage B, each serving 2^(B - WL) butterflies
     * of a thread, are applied as two Shoup products (WT::ct_ac, gs_ac:
     * three more multiply-adds a butterfly) instead of formed
     * (nb_shoup32_product: about a dozen instructions a twiddle): where one
     * serves at most two butterflies. */
    template <int B, int WL> static constexpr bool by_ac()
    {
        return ROWS && PH::OTF && PH::K_ - 1 - B >= PH::R && B - WL <= 1;
    }
    template <int B>
    __device__ __forceinline__ void get_ac(uint32_t i, W &fa, W &fas, W &c, W &cs) const
    {
        const uint2 rec = *reinterpret_cast<const uint2 *>(&sc[otf_slot(i)]);
        c = rec.x;
        cs = rec.y;
        fa = a[PH::K_ - 1 - B - PH::R];
        fas = as[PH::K_ - 1 - B - PH::R];
    }
    template <int B> __device__ __forceinline__ uint32_t base(uint32_t eb) const
    {
        constexpr int K = PH::K_;
        if constexpr (ROWS && PH::OTF && K - 1 - B >= PH::R)
            return eb >> (B + 1);
        else if constexpr (ROWS)
            return ((PH::TILE + r) << (K - 1 - B)) + (eb >> (B + 1));
        else
            return (1u << (K - 1 - B)) + (eb >> (B + 1));
    }
    template <int B>
    __device__ __forceinline__ void get(uint32_t i, W q, W &w, W &ws) const
    {
        if constexpr (ROWS && PH::NPAIR > 0 && PH::K_ - 1 - B < PH::R) {
            const typename PH::Pair p = sp[i - PH::TILE];
            w = p.x;
            ws = p.y;
        } else if constexpr (ROWS && PH::OTF) {
            const uint4 c = sc[otf_slot(i)];
            const uint32_t rec[4] = {c.x, c.y, c.z, c.w};
            nb_shoup32_product(a[PH::K_ - 1 - B - PH::R], rec, q, &w, &ws);
        } else if constexpr (ROWS) {
            ws = s[tw_slot<typename PH::Word>(i)];
            w = PH::Word::recover(ws, q);
        } else {
            const typename PH::Pair p = s[i];
            w = p.x;
            ws = p.y;
        }
    }
};

/* Row phases with PH::NPAIR > 0: the w_shoup of row twiddle entries
 * [TILE, TILE + NPAIR) (stages s < R of the block's rows) are loaded at the
 * kernel's start (load) and kept as {w, w_shoup} pairs once q is known
 * (store, before the barrier that publishes the staged twiddles). */
template <class PH, bool EVICT_FIRST> struct PairStage {
    static constexpr int IT = (PH::NPAIR + PH::THREADS - 1) / PH::THREADS;
    typename PH::W ws[IT > 0 ? IT : 1];
    __device__ __forceinline__ void load(const typename PH::W *twl, uint32_t row0, uint32_t tid)
    {
        if constexpr (IT > 0) {
#pragma unroll
            for (int k = 0; k < IT; k++) {
                const uint32_t i = tid + k * PH::THREADS, m = PH::TILE + i;
                const int s = (31 - __clz(m)) - (31 - __clz(PH::TILE)); /* m in stage s */
                if (i < (uint32_t)PH::NPAIR)
                    ws[k] = nb_gpu_ld_word<typename PH::Word, EVICT_FIRST>(
                        twl + (1u << (PH::KOFF + s)) + (row0 << s) + (m - ((uint32_t)PH::TILE << s)));
            }
        }
    }
    __device__ __forceinline__ void store(typename PH::Pair *sp, typename PH::W q,
                                         uint32_t tid) const
    {
        if constexpr (IT > 0) {
#pragma unroll
            for (int k = 0; k < IT; k++) {
                const uint32_t i = tid + k * PH::THREADS;
                if (i < (uint32_t)PH::NPAIR)
                    sp[i] = PH::Word::pair(PH::Word::recover(ws[k], q), ws[k]);
            }
        }
    }
};

} // namespace nb_regpass

#endif

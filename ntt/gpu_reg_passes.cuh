/* The register-resident GPU NTT machinery shared by gpu-regs (gpu_regs.cu)
 * and gpu-fast (gpu_fast.cuh): each thread holds 2^R coefficients of a
 * 2^K-point transform in registers and runs the butterfly stages of one pass
 * on them (Harvey/Shoup, the arithmetic of ntt/arith.h); passes exchange
 * through shared memory. Here: the compile-time shape of a phase (Phase), the
 * pass geometry, the butterfly stages and the body of the phase kernels
 * (the shared-memory data layout and the coalesced row load/store:
 * ntt/gpu_reg_moves.cuh; the twiddles' slots and lookup:
 * ntt/gpu_reg_twiddles.cuh). The host
 * side (the plan and the chunked launch) is ntt/gpu_reg_plan.cuh. The
 * variants choose the block shapes, the column/row split and when to use
 * programmatic dependent launch. */
#ifndef NB_GPU_REG_PASSES_CUH
#define NB_GPU_REG_PASSES_CUH

#include <type_traits>

#include "ntt/gpu_common.cuh"
#include "ntt/gpu_reg_moves.cuh"
#include "ntt/gpu_reg_twiddles.cuh"
#include "ntt/gpu_word.cuh"

/* the members of these templates not used by every instantiation */
#pragma nv_diag_suppress 177

namespace nb_regpass {

constexpr int SM_THREADS = 768; /* resident threads per SM the register budget aims at */

/* One phase: 2^K-point transforms on rows (ROWS) or columns of the limb's
 * 2^(LOGN-K) x 2^K (rows) or 2^K x 2^(LOGN-K) (columns) matrix, 2^R
 * coefficients per thread, TILE transforms per block of about BLOCK threads
 * (fewer when a limb has fewer transforms, more when one transform needs
 * more). K == LOGN: one row kernel for the whole limb. KS (columns, K <= KS):
 * log2 of the per-limb stride of the plan's column table, whose first 2^K
 * entries are this phase's twiddles. PAIRS (rows): the twiddles of stages
 * s < R (one pass, the same for every thread of a row) are kept as
 * {w, w_shoup} pairs, recovered once per block instead of once per thread,
 * when that leaves the blocks per SM unchanged. WT: the word traits
 * (ntt/gpu_word.cuh). OTF (rows, 32-bit words, with PAIRS): the twiddles of
 * stages s >= R are formed per thread as products (TwShared) instead of
 * staged from the limb's table. */
template <int LOGN, int K, bool ROWS, int R_, int BLOCK, int KS = K, bool PAIRS = false,
          class WT = nb_word64, bool OTF_ = false>
struct Phase {
    static_assert(ROWS || K <= KS, "a column phase reads a prefix of its limb's column table");
    static constexpr int LOGN_ = LOGN, K_ = K, KS_ = KS;
    static constexpr bool ROWS_ = ROWS;
    static constexpr int R = R_, RV = 1 << R;       /* coefficients per thread */
    static constexpr int TPT = 1 << (K - R);        /* threads per transform */
    static constexpr int NT = 1 << (LOGN - K);      /* transforms per limb */
    static constexpr int TILE_WANT = BLOCK / TPT > 0 ? BLOCK / TPT : 1;
    static constexpr int TILE = TILE_WANT < NT ? TILE_WANT : NT;
    static constexpr int THREADS = TPT * TILE;
    static constexpr int MIN_BLOCKS = THREADS >= SM_THREADS ? 1 : SM_THREADS / THREADS;
    static constexpr int N2 = ROWS ? 1 << K : 1 << (LOGN - K); /* row length of the matrix */
    static constexpr int KOFF = ROWS ? LOGN - K : 0;           /* stage of in-row bit K-1 */
    static constexpr int NP = (K + R - 1) / R;                 /* passes */
    typedef WT Word;
    typedef typename WT::W W;
    typedef typename WT::Pair Pair;
    /* padded row (ROWS): one word of padding per 16 (data_slot) */
    static constexpr int SROW = (1 << K) + (1 << (K - 4));
    /* twiddle storage: rows w_shoup only, columns {w, w_shoup} pairs; OTF
     * rows the 2^(K-1) product records (otf_slot) */
    typedef typename std::conditional<ROWS, W, Pair>::type TT;
    static constexpr bool OTF = OTF_;
    static_assert(!OTF || (ROWS && PAIRS && WT::BITS == 32), "OTF: 32-bit rows with pairs");
    static constexpr size_t TW_BYTES = OTF    ? ((size_t)1 << (K - 1)) * sizeof(uint4)
                                       : ROWS ? ((size_t)TILE << K) * sizeof(TT)
                                              : ((size_t)1 << K) * sizeof(TT);
    static constexpr size_t DATA_BYTES =
        (ROWS ? (size_t)TILE * SROW : (size_t)TILE << K) * sizeof(W);
    static constexpr int NPAIR_WANT = ROWS && PAIRS ? TILE * ((1 << R) - 1) : 0;
    static constexpr bool PAIRS_FIT = /* 228 KiB per SM, 1 KiB reserved per block */
        (TW_BYTES + NPAIR_WANT * sizeof(Pair) + DATA_BYTES + 1024) * MIN_BLOCKS <= 228 * 1024;
    static constexpr int NPAIR = PAIRS_FIT ? NPAIR_WANT : 0; /* entries [TILE, TILE << R) */
    static_assert(!OTF || NPAIR > 0, "OTF keeps the stages below R as pairs");
    static constexpr size_t TWP_BYTES = (size_t)NPAIR * sizeof(Pair);
    static constexpr size_t SMEM = TW_BYTES + TWP_BYTES + DATA_BYTES;
    /* The fused epilogue's x words (phase_body's EPI) staged in shared memory
     * after SMEM, 2^R a thread, where that keeps MIN_BLOCKS blocks per SM
     * (else they are held in registers). EPI_SMEM: a fused kernel's dynamic
     * shared memory. */
    static constexpr size_t EPI_X_BYTES = (size_t)THREADS * RV * sizeof(W);
    static constexpr bool EPI_STAGED =
        ROWS && SMEM % 16 == 0 && (SMEM + EPI_X_BYTES + 1024) * MIN_BLOCKS <= 228 * 1024;
    static constexpr size_t EPI_SMEM = SMEM + (EPI_STAGED ? EPI_X_BYTES : 0);
    /* the last phase of the inverse folds N^-1 into its top stage */
    static constexpr bool INV_FINAL = !ROWS || K == LOGN;
};

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

/* The forward butterfly of the stage on in-transform bit B of a phase whose
 * bit K-1 is stage KOFF of the transform: WT::ct (ntt/gpu_word.cuh), told
 * whether that stage is even (64-bit LAZY: nb_ct_butterfly_6q on even
 * stages, no reduction, nb_ct_butterfly_8q on odd ones, values in [0, 8q)). */
template <class WT, bool LAZY, int KOFF, int K, int B, class W>
__device__ __forceinline__ void ct_stage_butterfly(W *x, W *y, W w, W ws, W q)
{
    WT::template ct<LAZY, (KOFF + K - 1 - B) % 2 == 0>(x, y, w, ws, q);
}

/* The inverse butterfly on in-transform bit B of the pair whose lower
 * element is the thread's register J0 (only its bits below B - WL are read;
 * the thread's registers hold index bits from WL up): WT::gs, told whether
 * both inputs are products of stage B - 1, i.e. bit B - 1 of the lower
 * element is 1: register bit B - 1 - WL of J0. A bit B - 1 that is the
 * thread's, or another kernel's stage, counts as 0 (64-bit LAZY: values
 * below 4q, the sum reduced unless both inputs are products). */
template <class WT, bool LAZY, int B, int WL, int J0, class W>
__device__ __forceinline__ void gs_stage_butterfly(W *x, W *y, W w, W ws, W q)
{
    constexpr bool PRODUCTS = B - 1 >= WL && ((J0 >> (B - 1 >= WL ? B - 1 - WL : 0)) & 1);
    WT::template gs<LAZY, PRODUCTS>(x, y, w, ws, q);
}

/* The stages of one pass on the thread's 2^R registers; SCALE_TOP: the top
 * inverse stage multiplies by N^-1 and inv[1] N^-1; LAZY, KOFF: see
 * ct_stage_butterfly and gs_stage_butterfly. A stage whose twiddles the
 * lookup hands out as two factors (TWA::by_ac) runs WT::ct_ac / gs_ac, the
 * same outputs mod q in the same bounds. */
template <class WT, bool INV, int K, int LO, int HI, int WL, bool SCALE_TOP, bool LAZY, int KOFF,
          int RV, class TWA>
__device__ __forceinline__ void run_pass(typename WT::W (&v)[RV], uint32_t eb, const TWA &twa,
                                         typename WT::W q, const typename WT::Limb *c)
{
    auto stage = [&](auto bc) {
        constexpr int B = decltype(bc)::value;
        constexpr int JB = B - WL;
        constexpr int NH = RV >> (JB + 1);
        if constexpr (INV && SCALE_TOP && B == K - 1) {
            const typename WT::W ni = c->n_inv, nis = c->n_inv_shoup;
            const typename WT::W lw = c->last_w, lws = c->last_w_shoup;
#pragma unroll
            for (int j0 = 0; j0 < RV; j0++) {
                if (j0 & (1 << JB))
                    continue;
                const int j1 = j0 | (1 << JB);
                WT::template scale_top<LAZY>(&v[j0], &v[j1], q, ni, nis, lw, lws);
            }
        } else if constexpr (TWA::template by_ac<B, WL>()) {
            /* WT as a type that depends on the stage, so that its 32-bit-only
             * members are looked up only where this branch is taken */
            typedef typename std::conditional<B >= 0, WT, void>::type WB;
            const uint32_t base = twa.template base<B>(eb);
#pragma unroll
            for (int hj = 0; hj < NH; hj++) {
                typename WT::W a, as, cw, cs;
                twa.template get_ac<B>(base + hj, a, as, cw, cs);
                static_for<0, (1 << JB), 1>([&](auto jc) {
                    constexpr int jl = decltype(jc)::value;
                    const int j0 = (hj << (JB + 1)) | jl, j1 = j0 | (1 << JB);
                    if constexpr (INV)
                        WB::template gs_ac<LAZY>(&v[j0], &v[j1], a, as, cw, cs, q);
                    else
                        WB::template ct_ac<LAZY>(&v[j0], &v[j1], a, as, cw, cs, q);
                });
            }
        } else {
            const uint32_t base = twa.template base<B>(eb);
#pragma unroll
            for (int hj = 0; hj < NH; hj++) {
                typename WT::W w, ws;
                twa.template get<B>(base + hj, q, w, ws);
                static_for<0, (1 << JB), 1>([&](auto jc) {
                    constexpr int jl = decltype(jc)::value;
                    const int j0 = (hj << (JB + 1)) | jl, j1 = j0 | (1 << JB);
                    if constexpr (INV)
                        gs_stage_butterfly<WT, LAZY, B, WL, jl>(&v[j0], &v[j1], w, ws, q);
                    else
                        ct_stage_butterfly<WT, LAZY, KOFF, K, B>(&v[j0], &v[j1], w, ws, q);
                });
            }
        }
    };
    if constexpr (INV)
        static_for<LO, HI, 1>(stage);
    else
        static_for<HI - 1, LO - 1, -1>(stage);
}

/* Per-limb hand-off between the two kernels of a call (SIGNAL, WAIT in
 * phase_body), through the plan's two counters per limb f[0] (blocks of the
 * first kernel that stored their part of the limb) and f[1] (blocks of the
 * second kernel that saw them all). Both are 0 between calls: the last
 * second-kernel block of the limb to pass resets them. limb_signal: called
 * by every thread of a first-kernel block after its stores. */
__device__ __forceinline__ void limb_signal(unsigned *f, uint32_t tid)
{
    __syncthreads(); /* every thread's stores precede thread 0's release */
    if (tid == 0) {
        __threadfence();
        atomicAdd(f, 1u);
    }
}

/* Waits until NEED first-kernel blocks of the limb have signalled; the
 * limb's last second-kernel block to pass clears both counters. */
template <unsigned NEED> __device__ __forceinline__ void limb_wait(unsigned *f, uint32_t tid)
{
    if (tid == 0) {
        for (;;) { /* sm_70+, like the cp.async staging (sm_80) these kernels need */
            unsigned seen;
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(f) : "memory");
            if (seen >= NEED)
                break;
            __nanosleep(100);
        }
        if (atomicAdd(f + 1, 1u) == gridDim.x - 1) {
            atomicExch(f, 0u);
            atomicExch(f + 1, 0u);
        }
    }
    __syncthreads(); /* the other threads' loads follow thread 0's acquire */
}

/* The fused forward epilogue as the kernels take it: nb_ntt_sub_scale
 * (ntt/variant.h) in words W, with the call's first limb (limb l of the plan
 * is the epilogue's limb l - first). Every phase kernel takes one; only a
 * forward row phase with EPI reads it. */
template <class W> struct SubScaleArgs {
    W *out[2];
    const W *x[2];
    size_t first, split;
    const uint64_t *w, *w_shoup;
};

/* The body of a phase kernel (each variant names its own __global__ wrapper,
 * so that profilers tell them apart): block (blockIdx.x, limb first +
 * blockIdx.y) transforms PH::TILE rows or columns of its limb in place.
 * `tw`: rows [L*N] w_shoup (nb_ntt_tables indexing), columns [L << K]
 * {w, w_shoup} pairs (the first 2^K entries of each limb). Forward output of
 * a row phase in [0, q), other forward phases [0, 4q); inverse [0, 2q) except
 * the INV_FINAL phase, which scales by N^-1 into [0, q). PDL trigger (lets
 * the next kernel's blocks be scheduled once every block of this one has
 * reached it): at the start for an EARLY FIRST phase (the second kernel
 * stages its twiddles meanwhile) and for a SECOND phase without WAIT
 * (whatever follows the call, e.g. a CKKS kernel, takes the SMs of this
 * one's last wave), else after the butterflies. Every phase waits for the
 * previous kernel's results after staging its own twiddles (a no-op unless
 * launched with the PDL attribute: always for SECOND, FIRST when the variant
 * asks). EVICT_FIRST:
 * the phase's coefficient loads and row twiddles are marked L2 evict-first
 * (read once, and the coefficients are overwritten in place), so that the
 * other kernel's data stays in L2. LAZY (every prime of the call below
 * 2^61): fewer reductions (ct_stage_butterfly, gs_stage_butterfly), so a
 * phase other than the last leaves forward values in [0, 8q), inverse
 * values in [0, 4q). The phase loads its limbs from `src` and stores them
 * to `data` (src == data: in place; a FIRST kernel may read another buffer,
 * the out-of-place call). Per-limb hand-off (`sync`: the plan's counters,
 * limb_signal / limb_wait): a FIRST phase with SIGNAL counts its block as
 * done with its limb after its stores; a SECOND phase with WAIT > 0 waits
 * for WAIT such blocks of its own limb instead of the whole first grid, so
 * that its blocks transform the limbs the first kernel has finished while
 * that kernel's last wave runs (the first kernel must then let the second
 * be scheduled only once all its blocks run: any PDL trigger does). `otf`
 * (PH::OTF): the plan's [L << (K-1)] product records, nb_shoup32_record of
 * each limb's first 2^(K-1) entries of the direction's row table. EPI (a
 * forward row phase): the output is the epilogue `epi` (SubScaleArgs),
 * written to epi.out instead of `data`. REV_LIMBS: block (x, y) takes limb
 * gridDim.y - 1 - y of its launch, so that a grid, which the device starts in
 * block order, visits the limbs last first. */
template <class PH, bool INV, bool FIRST, bool SECOND, bool EARLY = false, bool EVICT_FIRST = false,
          bool LAZY = false, bool SIGNAL = false, unsigned WAIT = 0, bool EPI = false,
          bool REV_LIMBS = false>
__device__ __forceinline__ void phase_body(typename PH::W *__restrict__ data,
                                           const typename PH::W *src,
                                           const typename PH::TT *__restrict__ tw,
                                           const typename PH::Word::Limb *__restrict__ limbs,
                                           size_t first,
                                           unsigned *sync = nullptr,
                                           const uint4 *__restrict__ otf = nullptr,
                                           const SubScaleArgs<typename PH::W> *epi = nullptr)
{
    static_assert(!SIGNAL || FIRST, "only a first kernel signals");
    static_assert(WAIT == 0 || SECOND, "only a second kernel waits per limb");
    static_assert(!EPI || (!INV && PH::ROWS_), "the epilogue ends a forward row phase");
    typedef typename PH::TT TT;
    typedef typename PH::Word WT;
    typedef typename PH::W W;
    constexpr int LOGN = PH::LOGN_, K = PH::K_, R = PH::R, RV = PH::RV;
    constexpr bool ROWS = PH::ROWS_;
    static_assert(PH::NP >= 2, "the shared-memory slot reuse below needs two passes");
    static_assert(PH::THREADS % 32 == 0, "whole warps");
    extern __shared__ __align__(16) unsigned char smem[];
    TT *stw = reinterpret_cast<TT *>(smem);
    typename PH::Pair *spair = reinterpret_cast<typename PH::Pair *>(smem + PH::TW_BYTES);
    W *sdata = reinterpret_cast<W *>(smem + PH::TW_BYTES + PH::TWP_BYTES);

    const uint32_t tid = threadIdx.x;
    const size_t by = REV_LIMBS ? gridDim.y - 1 - blockIdx.y : blockIdx.y; /* limb in the launch */
    const size_t l = first + by;
    const uint32_t t = ROWS ? tid % PH::TPT : tid / PH::TILE;  /* thread in its transform */
    const uint32_t tb = ROWS ? tid / PH::TPT : tid % PH::TILE; /* transform in the block */
    const uint32_t tr = blockIdx.x * PH::TILE + tb;            /* transform in the limb */

    /* twiddles -> shared memory (independent of the previous kernel's output) */
    PairStage<PH, EVICT_FIRST> pairs;
    W otf_a[PH::OTF ? K - R : 1]; /* OTF: w_shoup of the row's factors, then the factors */
    if constexpr (PH::OTF) { /* the limb's first 2^(K-1) records; the row's factors */
        const TT *twl = tw + ((size_t)l << LOGN);
        pairs.load(twl, blockIdx.x * PH::TILE, tid);
        const uint4 *rec = otf + ((size_t)l << (K - 1));
        for (uint32_t i = tid; i < (1u << (K - 1)); i += PH::THREADS)
            nb_gpu_cp_async16(&smem[(size_t)otf_slot(i) * sizeof(uint4)], &rec[i]);
        const uint32_t row = blockIdx.x * PH::TILE + tb;
#pragma unroll
        for (int j = 0; j < K - R; j++)
            otf_a[j] = twl[(1u << (PH::KOFF + R + j)) + (row << (R + j))];
    } else if constexpr (ROWS) { /* stage s, rows [row0, row0 + TILE) -> [TILE << s, 2 TILE << s) */
        const TT *twl = tw + ((size_t)l << LOGN);
        const uint32_t row0 = blockIdx.x * PH::TILE;
        pairs.load(twl, row0, tid);
#pragma unroll 1
        for (int s = PH::NPAIR > 0 ? R : 0; s < K; s++) {
            const uint32_t n = (uint32_t)PH::TILE << s;
            const TT *src = twl + (1u << (PH::KOFF + s)) + (row0 << s);
            for (uint32_t i = tid; i < n; i += PH::THREADS)
                nb_gpu_cp_async_word<WT, EVICT_FIRST>(&stw[tw_slot<WT>(n + i)], &src[i]);
        }
    } else {
        const TT *twl = tw + ((size_t)l << PH::KS_);
        for (uint32_t i = tid; i < (1u << K); i += PH::THREADS)
            nb_gpu_cp_async_pair<WT>(&stw[i], &twl[i]);
    }
    if constexpr ((FIRST && EARLY) || (SECOND && WAIT == 0))
        nb_gpu_pdl_launch_dependents();
    if constexpr (WAIT > 0)
        limb_wait<WAIT>(sync + 2 * l, tid);
    else
        nb_gpu_pdl_wait(); /* the previous kernel's results (no-op without the attribute) */
    W *a = data + (by << LOGN);
    const W *ai = src + (by << LOGN);
    const typename WT::Limb *c = limbs + l;
    const W q = c->q;
    /* EPI: the limb's place in its part */
    const size_t epi_j = EPI ? l - epi->first : 0;
    const bool epi_part = EPI && epi_j >= epi->split;
    const size_t epi_k = epi_j - (epi_part ? epi->split : 0);
    /* selects, not indexes: the epilogue stays in parameter space (an
     * index would copy it to the stack) */
    const W *const epi_x_part = EPI ? (epi_part ? epi->x[1] : epi->x[0]) : nullptr;
    const size_t epi_row0 = (size_t)blockIdx.x * PH::TILE << K;

    W v[RV];
    { /* global load in pass 0's layout */
        typedef Pass<INV, K, 0, R> P0;
        const uint32_t eb = elem_base<P0::WL, R>(t);
        if constexpr (ROWS && P0::WL == 0) {
            rows_load_coalesced<PH, K, EVICT_FIRST>(v, ai + ((size_t)blockIdx.x * PH::TILE << K),
                                                    sdata, tid);
        } else if constexpr (ROWS) {
            const W *from = ai + ((size_t)tr << K) + eb;
#pragma unroll
            for (int j = 0; j < RV; j++)
                v[j] = nb_gpu_ld_word<WT, EVICT_FIRST>(&from[j << P0::WL]);
        } else {
            const W *from = ai + (size_t)eb * PH::N2 + tr;
#pragma unroll
            for (int j = 0; j < RV; j++)
                v[j] = nb_gpu_ld_word<WT, EVICT_FIRST>(&from[(size_t)(j << P0::WL) * PH::N2]);
        }
    }
    /* EPI, coalesced store: the thread's x words in its store layout
     * (rows_store_coalesced), requested now so that the butterflies hide
     * them: copied into the thread's own shared-memory slots (EPI_STAGED,
     * vector i of thread tid at 16-byte slot i * THREADS + tid) or loaded
     * into registers */
    constexpr bool EPI_EARLY = EPI && Pass<INV, K, PH::NP - 1, R>::WL == 0;
    constexpr bool EPI_STAGE = EPI_EARLY && PH::EPI_STAGED;
    constexpr int VW = WT::VEC_WORDS;
    W epi_x[EPI_EARLY && !EPI_STAGE ? RV : 1];
    if constexpr (EPI_EARLY) {
        const W *xb = epi_x_part + (epi_k << LOGN) + epi_row0;
        const uint32_t f0 = (tid & ~31u) << R, lane = tid & 31;
        if constexpr (EPI_STAGE)
            nb_gpu_cp_async_commit(); /* the twiddles' group, waited for below */
#pragma unroll
        for (int i = 0; i < RV / VW; i++) {
            if constexpr (EPI_STAGE) {
                nb_gpu_cp_async16(smem + PH::SMEM + (i * PH::THREADS + tid) * 16,
                                  xb + f0 + i * (32 * VW) + VW * lane);
            } else {
                W xv[VW];
                vec_split(nb_gpu_ld_vec<WT, true>(xb + f0 + i * (32 * VW) + VW * lane), xv);
#pragma unroll
                for (int k = 0; k < VW; k++)
                    epi_x[i * VW + k] = xv[k];
            }
        }
        if constexpr (EPI_STAGE)
            nb_gpu_cp_async_commit();
    }
    pairs.store(spair, q, tid);
    if constexpr (EPI_STAGE)
        nb_gpu_cp_async_wait_group<1>(); /* all but the x group */
    else
        nb_gpu_cp_async_wait_all();
    __syncthreads();

    constexpr bool SCALE = INV && PH::INV_FINAL;
    /* The exchanges address a thread's 2^R slots as one base plus
     * compile-time offsets (slot_offset) in the 16-per-thread shapes of
     * 32-bit words, where nvcc otherwise computes each address apart; the
     * other kernels keep the per-register form, measured as fast or faster
     * there (docs/tuning.md, "One base address for the exchanges"). */
    constexpr bool ONE_BASE = WT::BITS == 32 && R == 4;
    TwShared<PH, ROWS> twa{stw, spair, tb, reinterpret_cast<const uint4 *>(smem), {}};
    if constexpr (PH::OTF) {
#pragma unroll
        for (int j = 0; j < K - R; j++) {
            twa.a[j] = WT::recover(otf_a[j], q);
            twa.as[j] = otf_a[j];
        }
    }
    static_for<0, PH::NP, 1>([&](auto pc) {
        constexpr int P = decltype(pc)::value;
        typedef Pass<INV, K, P, R> PP;
        if constexpr (P > 0) { /* exchange through shared memory */
            typedef Pass<INV, K, P - 1, R> PQ;
            if constexpr (P > 1)
                __syncthreads();
            if constexpr (ONE_BASE) {
                W *const sq = sdata + data_slot<PH, ROWS>(tb, elem_base<PQ::WL, R>(t));
#pragma unroll
                for (int j = 0; j < RV; j++)
                    sq[slot_offset<PH, ROWS>(j << PQ::WL)] = v[j];
                __syncthreads();
                const W *const sp = sdata + data_slot<PH, ROWS>(tb, elem_base<PP::WL, R>(t));
#pragma unroll
                for (int j = 0; j < RV; j++)
                    v[j] = sp[slot_offset<PH, ROWS>(j << PP::WL)];
            } else {
                const uint32_t ebq = elem_base<PQ::WL, R>(t);
#pragma unroll
                for (int j = 0; j < RV; j++)
                    sdata[data_slot<PH, ROWS>(tb, ebq | (j << PQ::WL))] = v[j];
                __syncthreads();
                const uint32_t ebp = elem_base<PP::WL, R>(t);
#pragma unroll
                for (int j = 0; j < RV; j++)
                    v[j] = sdata[data_slot<PH, ROWS>(tb, ebp | (j << PP::WL))];
            }
        }
        run_pass<WT, INV, K, PP::LO, PP::HI, PP::WL, SCALE, LAZY, PH::KOFF>(
            v, elem_base<PP::WL, R>(t), twa, q, c);
    });
    if constexpr (!(FIRST && EARLY) && !(SECOND && WAIT == 0))
        nb_gpu_pdl_launch_dependents();

    if constexpr (!INV && ROWS) { /* forward output: the family's bound -> [0, q) */
#pragma unroll
        for (int j = 0; j < RV; j++)
            v[j] = WT::template fwd_final<LAZY>(v[j], q);
    }

    if constexpr (EPI) { /* (x - v) w -> epi.out */
        W *o = (epi_part ? epi->out[1] : epi->out[0]) + (epi_k << LOGN);
        const W *x = epi_x_part + (epi_k << LOGN);
        const W w = (W)epi->w[epi_k];
        const uint64_t ws = epi->w_shoup[epi_k];
        typedef Pass<INV, K, PH::NP - 1, R> PL;
        if constexpr (EPI_STAGE) {
            nb_gpu_cp_async_wait_group<0>(); /* the thread's own x slots */
            const typename WT::Vec *sx = reinterpret_cast<const typename WT::Vec *>(smem + PH::SMEM);
            rows_store_coalesced<PH, K>(v, o + epi_row0, sdata, tid, [&](W(&ov)[VW], int i) {
                W xv[VW];
                vec_split(sx[i * PH::THREADS + tid], xv);
#pragma unroll
                for (int k = 0; k < VW; k++)
                    ov[k] = WT::sub_scale(xv[k], ov[k], w, ws, q);
            });
        } else if constexpr (EPI_EARLY) {
            rows_store_coalesced<PH, K>(v, o + epi_row0, sdata, tid, [&](W(&ov)[VW], int i) {
#pragma unroll
                for (int k = 0; k < VW; k++)
                    ov[k] = WT::sub_scale(epi_x[i * VW + k], ov[k], w, ws, q);
            });
        } else {
            const size_t at = ((size_t)tr << K) + elem_base<PL::WL, R>(t);
#pragma unroll
            for (int i = 0; i < RV; i++)
                o[at + (i << PL::WL)] = WT::sub_scale(
                    nb_gpu_ld_word<WT, true>(&x[at + (i << PL::WL)]), v[i], w, ws, q);
        }
    } else { /* global store in the last pass's layout */
        typedef Pass<INV, K, PH::NP - 1, R> PL;
        const uint32_t eb = elem_base<PL::WL, R>(t);
        if constexpr (ROWS && PL::WL == 0) {
            /* the warp overwrites only the slots it read in the last exchange */
            rows_store_coalesced<PH, K>(v, a + ((size_t)blockIdx.x * PH::TILE << K), sdata, tid);
        } else if constexpr (ROWS) {
            W *dst = a + ((size_t)tr << K) + eb;
#pragma unroll
            for (int j = 0; j < RV; j++)
                dst[j << PL::WL] = v[j];
        } else {
            W *dst = a + (size_t)eb * PH::N2 + tr;
#pragma unroll
            for (int j = 0; j < RV; j++)
                dst[(size_t)(j << PL::WL) * PH::N2] = v[j];
        }
    }
    if constexpr (SIGNAL)
        limb_signal(sync + 2 * l, tid);
}

} // namespace nb_regpass

#endif

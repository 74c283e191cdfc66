/* The device side of gpu-regs (ntt/gpu_regs.cu, whose top comment explains
 * the design): twiddle storage and swizzle, cp.async and programmatic
 * dependent launch primitives, the compile-time shape of a phase (Phase,
 * Pass), the register passes and the phase kernel regs_phase. Included by
 * gpu_regs.cu only (internal linkage: an anonymous namespace). */
#ifndef NB_GPU_REGS_KERNELS_CUH
#define NB_GPU_REGS_KERNELS_CUH

#include <type_traits>

#include "ntt/gpu_common.cuh"

/* the members of these templates not used by every instantiation */
#pragma nv_diag_suppress 177

namespace {

constexpr int RLOG = 4; /* log2 of the coefficients per thread */
constexpr int RV = 1 << RLOG;
constexpr int ROW_TW = 1;          /* row twiddles: 0 {w, w_shoup} pairs; 1 w_shoup only */
constexpr bool USE_PDL = true;     /* programmatic dependent launch between the two kernels */
constexpr int SM_THREADS = 768;    /* resident threads per SM the register budget aims at */

/* ---- twiddle storage ---- */
template <int MODE> struct Tw;
template <> struct Tw<0> { /* {w, w_shoup} pairs */
    typedef ulonglong2 T;
    static constexpr int SWZ = 3; /* 8 entries = 128 bytes = one bank row */
    static __device__ __forceinline__ void unpack(T p, uint64_t, uint64_t &w, uint64_t &ws)
    {
        w = p.x;
        ws = p.y;
    }
};
template <> struct Tw<1> { /* w_shoup only */
    typedef uint64_t T;
    static constexpr int SWZ = 4; /* 16 entries = 128 bytes */
    static __device__ __forceinline__ void unpack(T p, uint64_t q, uint64_t &w, uint64_t &ws)
    {
        ws = p;
        w = nb_shoup_recover(p, q);
    }
};

/* Shared-memory slot of row twiddle i: XOR-swizzle of the low three bits by
 * the bits just above one bank row, so that the threads of a warp reading
 * runs of 8/4/2/1 consecutive twiddles (thread t at 8t, 4t, 2t, t) hit
 * distinct banks. A bijection on every aligned group of 8 entries. */
template <int MODE> __device__ __forceinline__ uint32_t tw_slot(uint32_t i)
{
    return i ^ ((i >> Tw<MODE>::SWZ) & 7u);
}

__device__ __forceinline__ void cp_async(ulonglong2 *dst, const ulonglong2 *src)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async(uint64_t *dst, const uint64_t *src)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(s), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_wait_all()
{
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
}

/* Programmatic dependent launch (sm_90): the first kernel lets the second be
 * scheduled early; the second waits for the first's completion (and memory)
 * before touching the coefficients. Both are no-ops without PDL. */
__device__ __forceinline__ void pdl_launch_dependents()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void pdl_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

template <int I, int END, int STEP, class F> __device__ __forceinline__ void static_for(F &&f)
{
    if constexpr ((STEP > 0 && I < END) || (STEP < 0 && I > END)) {
        f(std::integral_constant<int, I>{});
        static_for<I + STEP, END, STEP>(f);
    }
}

/* ---- one phase: 2^K-point transforms on rows (ROWS) or columns ---- */
template <int MODE, int LOGN, int K, bool ROWS> struct Phase {
    static constexpr int MODE_ = MODE, K_ = K;
    static constexpr int TPT = 1 << (K - RLOG);    /* threads per transform */
    static constexpr int NT = 1 << (LOGN - K);     /* transforms per limb */
    static constexpr int TILE_WANT = K >= 12 ? 1 : 1 << (12 - K);
    static constexpr int TILE = TILE_WANT < NT ? TILE_WANT : NT; /* transforms per block */
    static constexpr int THREADS = TPT * TILE;
    static constexpr int MIN_BLOCKS = /* 768 threads per SM: 80 registers */
        THREADS >= SM_THREADS ? 1 : SM_THREADS / THREADS;
    static constexpr int N2 = ROWS ? 1 << K : 1 << (LOGN - K); /* row length of the matrix */
    static constexpr int KOFF = ROWS ? LOGN - K : 0;           /* stage of in-row bit K-1 */
    static constexpr int NP = (K + RLOG - 1) / RLOG;           /* passes */
    static constexpr int SROW = (1 << K) + (1 << (K - 4));     /* padded row (ROWS) */
    /* twiddle storage: rows use MODE, columns always pairs */
    typedef typename Tw<ROWS ? MODE : 0>::T TT;
    static constexpr size_t TW_BYTES = ROWS ? ((size_t)TILE << K) * sizeof(TT)
                                            : ((size_t)1 << K) * sizeof(TT);
    static constexpr size_t DATA_BYTES =
        ROWS ? (size_t)TILE * SROW * 8 : ((size_t)TILE << K) * 8;
    static constexpr size_t SMEM = TW_BYTES + DATA_BYTES;
    /* the last phase of the inverse folds N^-1 into its top stage */
    static constexpr bool INV_FINAL = !ROWS || K == LOGN;
};

/* Pass P of a 2^K-point transform: stages on index bits [LO, HI) (forward:
 * high bits first, inverse: low bits first). The thread owns the 16 elements
 * whose bits [WL, WL + 4) vary: e(j) = base | (j << WL). */
template <bool INV, int K, int P> struct Pass {
    static constexpr int LO = INV ? RLOG * P : (K - RLOG * (P + 1) > 0 ? K - RLOG * (P + 1) : 0);
    static constexpr int HI = INV ? (RLOG * (P + 1) < K ? RLOG * (P + 1) : K) : K - RLOG * P;
    static constexpr int WL = LO < K - RLOG ? LO : K - RLOG;
};

/* Element index of j = 0 for thread t of its transform under window WL. */
template <int WL> __device__ __forceinline__ uint32_t elem_base(uint32_t t)
{
    return (t & ((1u << WL) - 1)) | ((t >> WL) << (WL + RLOG));
}

/* Twiddles in shared memory. base<B>(eb) is the index of the twiddle of the
 * butterfly on in-transform bit B whose lower element is eb | (j << WL) with
 * j's bits above B - WL zero; the twiddle of j is at base + (j >> (B-WL+1)).
 *  columns: the limb's entries [0, 2^K): entry 2^(K-1-B) + (e >> (B+1));
 *  rows: row r of the block, stage s = K-1-B: its global entry
 *        2^(KOFF+s) + (row << s) + (e >> (B+1)) is kept at
 *        (TILE + r) << s) + (e >> (B+1)) (see the copy in regs_phase). */
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
        if constexpr (ROWS)
            Tw<PH::MODE_>::unpack(s[tw_slot<PH::MODE_>(i)], q, w, ws);
        else
            Tw<0>::unpack(s[i], q, w, ws);
    }
};

/* Runs the stages of one pass on the thread's 16 registers. The top stage of
 * the inverse's last phase (SCALE_TOP) multiplies by N^-1 and inv[1] N^-1. */
template <bool INV, int K, int LO, int HI, int WL, bool SCALE_TOP, class TWA>
__device__ __forceinline__ void run_pass(uint64_t (&v)[RV], uint32_t eb, const TWA &twa,
                                         uint64_t q, const nb_gpu_limb *c)
{
    auto stage = [&](auto bc) {
        constexpr int B = decltype(bc)::value;
        constexpr int JB = B - WL;         /* bit of j paired by this stage */
        constexpr int NH = RV >> (JB + 1); /* distinct twiddles for this thread */
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

/* Shared-memory slot of element e of transform tb (row or column in block). */
template <class PH, bool ROWS> __device__ __forceinline__ uint32_t data_slot(uint32_t tb, uint32_t e)
{
    if constexpr (ROWS)
        return tb * PH::SROW + e + (e >> 4);
    else
        return e * PH::TILE + tb;
}

/* Row kernels: a warp's threads own, in a row pass with window [0, 4), the
 * 512 contiguous block elements [16 * tid0, 16 * tid0 + 512) (tid0 = the
 * warp's first thread; block element F = tb * 2^K + e). These move them
 * between that layout (16 consecutive elements per thread) and a coalesced
 * one (each 16-byte access of the warp covers 512 contiguous bytes) through
 * the warp's own shared-memory slots, so only __syncwarp is needed. */
template <class PH, int K>
__device__ __forceinline__ void rows_load_coalesced(uint64_t (&v)[RV], const uint64_t *blk,
                                                    uint64_t *sdata, uint32_t tid)
{
    const uint32_t lane = tid & 31, f0 = (tid & ~31u) << RLOG;
#pragma unroll
    for (int i = 0; i < RV / 2; i++) { /* coalesced global -> the warp's slots */
        const uint32_t f = f0 + i * 64 + 2 * lane, tb = f >> K, e = f & ((1u << K) - 1);
        const ulonglong2 p = *reinterpret_cast<const ulonglong2 *>(blk + f);
        sdata[data_slot<PH, true>(tb, e)] = p.x;
        sdata[data_slot<PH, true>(tb, e + 1)] = p.y;
    }
    __syncwarp();
    const uint32_t f = tid << RLOG, tb = f >> K, e = f & ((1u << K) - 1);
#pragma unroll
    for (int j = 0; j < RV; j++)
        v[j] = sdata[data_slot<PH, true>(tb, e + j)];
}

template <class PH, int K>
__device__ __forceinline__ void rows_store_coalesced(const uint64_t (&v)[RV], uint64_t *blk,
                                                     uint64_t *sdata, uint32_t tid)
{
    const uint32_t lane = tid & 31, f0 = (tid & ~31u) << RLOG;
    {
        const uint32_t f = tid << RLOG, tb = f >> K, e = f & ((1u << K) - 1);
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

/* One phase kernel: block (blockIdx.x, limb first + blockIdx.y) transforms
 * PH::TILE rows or columns of its limb in place. `tw` is the phase's twiddle
 * table (rows: [L*N] in MODE storage, indexed like nb_ntt_tables; columns:
 * [L * 2^K] pairs, the first 2^K entries of each limb). FIRST: followed by
 * a second kernel (lets it launch early); SECOND: waits on the first. */
template <int MODE, bool INV, int LOGN, int K, bool ROWS, bool FIRST, bool SECOND>
__global__ void __launch_bounds__(Phase<MODE, LOGN, K, ROWS>::THREADS,
                                  Phase<MODE, LOGN, K, ROWS>::MIN_BLOCKS)
regs_phase(uint64_t *__restrict__ data, const typename Phase<MODE, LOGN, K, ROWS>::TT *__restrict__ tw,
           const nb_gpu_limb *__restrict__ limbs, size_t first)
{
    typedef Phase<MODE, LOGN, K, ROWS> PH;
    typedef typename PH::TT TT;
    static_assert(PH::NP >= 2, "the shared-memory slot reuse below needs two passes");
    extern __shared__ __align__(16) unsigned char smem[];
    TT *stw = reinterpret_cast<TT *>(smem);
    uint64_t *sdata = reinterpret_cast<uint64_t *>(smem + PH::TW_BYTES);

    const uint32_t tid = threadIdx.x;
    const size_t l = first + blockIdx.y;
    const uint32_t t = ROWS ? tid % PH::TPT : tid / PH::TILE;  /* thread in its transform */
    const uint32_t tb = ROWS ? tid / PH::TPT : tid % PH::TILE; /* transform in the block */
    const uint32_t tr = blockIdx.x * PH::TILE + tb;            /* transform in the limb */

    /* twiddles -> shared memory (independent of the first kernel's output) */
    if constexpr (ROWS) {
        /* stage s (in-row bit K-1-s) of rows [row0, row0 + TILE): global
         * [2^(KOFF+s) + (row0 << s), + TILE << s) -> [TILE << s, 2 TILE << s) */
        const TT *twl = tw + ((size_t)l << LOGN);
        const uint32_t row0 = blockIdx.x * PH::TILE;
#pragma unroll 1
        for (int s = 0; s < K; s++) {
            const uint32_t n = (uint32_t)PH::TILE << s;
            const TT *src = twl + (1u << (PH::KOFF + s)) + (row0 << s);
            for (uint32_t i = tid; i < n; i += PH::THREADS)
                cp_async(&stw[tw_slot<MODE>(n + i)], &src[i]);
        }
    } else {
        const TT *twl = tw + ((size_t)l << K);
        for (uint32_t i = tid; i < (1u << K); i += PH::THREADS)
            cp_async(&stw[i], &twl[i]);
    }
    if constexpr (SECOND)
        pdl_wait();
    uint64_t *a = data + ((size_t)blockIdx.y << LOGN);
    const nb_gpu_limb *c = limbs + l;
    const uint64_t q = c->q;

    uint64_t v[RV];
    { /* global load in pass 0's layout */
        typedef Pass<INV, K, 0> P0;
        const uint32_t eb = elem_base<P0::WL>(t);
        if constexpr (ROWS && P0::WL == 0) {
            rows_load_coalesced<PH, K>(v, a + ((size_t)blockIdx.x * PH::TILE << K), sdata, tid);
        } else if constexpr (ROWS) {
            const uint64_t *src = a + ((size_t)tr << K) + eb;
#pragma unroll
            for (int j = 0; j < RV; j++)
                v[j] = src[j << P0::WL];
        } else {
            const uint64_t *src = a + (size_t)eb * PH::N2 + tr;
#pragma unroll
            for (int j = 0; j < RV; j++)
                v[j] = src[(size_t)(j << P0::WL) * PH::N2];
        }
    }
    cp_async_wait_all();
    __syncthreads();

    constexpr bool SCALE = INV && PH::INV_FINAL;
    const TwShared<PH, ROWS> twa{stw, tb};
    static_for<0, PH::NP, 1>([&](auto pc) {
        constexpr int P = decltype(pc)::value;
        typedef Pass<INV, K, P> PP;
        if constexpr (P > 0) { /* exchange through shared memory */
            typedef Pass<INV, K, P - 1> PQ;
            if constexpr (P > 1)
                __syncthreads();
            const uint32_t ebq = elem_base<PQ::WL>(t);
#pragma unroll
            for (int j = 0; j < RV; j++)
                sdata[data_slot<PH, ROWS>(tb, ebq | (j << PQ::WL))] = v[j];
            __syncthreads();
            const uint32_t ebp = elem_base<PP::WL>(t);
#pragma unroll
            for (int j = 0; j < RV; j++)
                v[j] = sdata[data_slot<PH, ROWS>(tb, ebp | (j << PP::WL))];
        }
        run_pass<INV, K, PP::LO, PP::HI, PP::WL, SCALE>(v, elem_base<PP::WL>(t), twa, q, c);
    });
    if constexpr (FIRST)
        pdl_launch_dependents();

    if constexpr (!INV && ROWS) { /* forward output: [0, 4q) -> [0, q) */
#pragma unroll
        for (int j = 0; j < RV; j++)
            v[j] = nb_reduce_4q(v[j], q);
    }

    { /* global store in the last pass's layout */
        typedef Pass<INV, K, PH::NP - 1> PL;
        const uint32_t eb = elem_base<PL::WL>(t);
        if constexpr (ROWS && PL::WL == 0) {
            /* the warp overwrites only the slots it read in the last exchange */
            rows_store_coalesced<PH, K>(v, a + ((size_t)blockIdx.x * PH::TILE << K), sdata, tid);
        } else if constexpr (ROWS) {
            uint64_t *dst = a + ((size_t)tr << K) + eb;
#pragma unroll
            for (int j = 0; j < RV; j++)
                dst[j << PL::WL] = v[j];
        } else {
            uint64_t *dst = a + (size_t)eb * PH::N2 + tr;
#pragma unroll
            for (int j = 0; j < RV; j++)
                dst[(size_t)(j << PL::WL) * PH::N2] = v[j];
        }
    }
}

} // namespace

#endif

/* gpu-fast: a two-kernel register-resident GPU NTT whose block shape is
 * chosen per call from the size of the call (log N in [10, 17];
 * docs/variants.md and docs/tuning.md have the measured reasons).
 *
 *  - Every size runs as an N1 x N2 matrix (N1 = 2^k1 rows, N2 = 2^k2
 *    columns, k1 = floor(log N / 2)): a column kernel runs the k1 stages on
 *    the high index bits, a row kernel the k2 stages on the low bits
 *    (forward: columns then rows; inverse: rows then columns). log N <= 13
 *    is split too: gpu-regs' one block per limb leaves the device idle below
 *    ~400 limbs (log N 13, L = 32, cold: 23.4 us against 12.7 split with
 *    8 coefficients per thread).
 *  - Each thread keeps 2^R coefficients in registers and runs radix-2^R
 *    passes (Harvey lazy butterflies, Shoup twiddles from ntt/arith.h),
 *    exchanging through padded shared memory between passes. Calls of up to
 *    2^18 coefficients (one limb up to N = 2^17, ..., 64 limbs at N = 2^12;
 *    up to 2^20 at log N <= 14) are latency-bound and use R = 2 in 128-thread
 *    blocks: the shortest dependent chain per thread and the most threads
 *    per limb (one limb at N = 2^16, cold: 10.2 us, against 11.7 with R = 3
 *    and 14.3 to 15.3 with R = 4). Larger calls use R = 4 in 128-thread
 *    blocks (fewer exchanges; ~5 % faster than gpu-regs' 256 threads).
 *  - Twiddles are staged in shared memory with cp.async at kernel start:
 *    columns as {w, w_shoup} pairs, rows as w_shoup only (w recovered with
 *    nb_shoup_recover), XOR-swizzled against bank conflicts.
 *  - The second kernel is launched with programmatic dependent launch
 *    (sm_90): scheduled early, it stages its twiddles and waits for the
 *    first kernel's results.
 *  - Values stay lazy ([0, 4q) forward, [0, 2q) inverse) until the last
 *    stage: the forward row kernel reduces to [0, q) before its store, the
 *    inverse column kernel folds N^-1 into its top stage. */
#include "ntt/builtin.h"
#include "ntt/gpu_common.cuh"
#include "ntt/gpu_reg_passes.cuh"

#define NB_GPU_FAST_NAME "gpu-fast"

#define FAST_MIN_LOG_N 10
#define FAST_MAX_LOG_N 17
#define FAST_SM_THREADS 768 /* resident threads per SM the register budget aims at */

#pragma nv_diag_suppress 177

namespace {

using namespace nb_regpass;

/* Block shapes: threads per block and log2 of the coefficients per thread.
 * S 0..2: 16 coefficients in 32, 128, 256 threads; S 3: 8 coefficients in 64
 * threads; S 4: 4 coefficients in 128 threads. */
constexpr int SHAPE_LARGE = 1, SHAPE_SMALL = 4; /* the two shapes choose_shape picks */
constexpr int shape_threads(int s) { return s == 0 ? 32 : s == 1 ? 128 : s == 2 ? 256 : s == 3 ? 64 : 128; }
constexpr int shape_rlog(int s) { return s == 3 ? 3 : s == 4 ? 2 : 4; }

/* One phase: 2^K-point transforms on rows (ROWS) or columns of the limb's
 * 2^(LOGN-K) x 2^K (rows) or 2^K x 2^(LOGN-K) (columns) matrix, TILE of them
 * per block of block shape S. */
template <int LOGN, int K, bool ROWS, int S> struct Phase {
    static constexpr int K_ = K;
    static constexpr int R = shape_rlog(S), RV = 1 << R; /* coefficients per thread */
    static constexpr int TPT = 1 << (K - R); /* threads per transform */
    static constexpr int NT = 1 << (LOGN - K);  /* transforms per limb */
    static constexpr int TILE_WANT = shape_threads(S) / TPT > 0 ? shape_threads(S) / TPT : 1;
    static constexpr int TILE = TILE_WANT < NT ? TILE_WANT : NT;
    static constexpr int THREADS = TPT * TILE;
    static constexpr int MIN_BLOCKS = THREADS >= FAST_SM_THREADS ? 1 : FAST_SM_THREADS / THREADS;
    static constexpr int N2 = ROWS ? 1 << K : 1 << (LOGN - K);
    static constexpr int KOFF = ROWS ? LOGN - K : 0; /* stage of in-row bit K-1 */
    static constexpr int NP = (K + R - 1) / R;
    static constexpr int SROW = (1 << K) + (1 << (K - 4)); /* padded row (ROWS) */
    typedef typename std::conditional<ROWS, uint64_t, ulonglong2>::type TT;
    static constexpr size_t TW_BYTES = ROWS ? ((size_t)TILE << K) * sizeof(TT)
                                            : ((size_t)1 << K) * sizeof(TT);
    static constexpr size_t DATA_BYTES = ROWS ? (size_t)TILE * SROW * 8 : ((size_t)TILE << K) * 8;
    static constexpr size_t SMEM = TW_BYTES + DATA_BYTES;
    static constexpr bool INV_FINAL = !ROWS; /* the inverse ends with the columns */
};

/* Block (blockIdx.x, limb first + blockIdx.y) transforms PH::TILE rows or
 * columns of its limb in place. `tw`: rows [L*N] w_shoup (nb_ntt_tables
 * indexing), columns [L << K] {w, w_shoup} pairs. FIRST: another kernel
 * follows (PDL trigger); SECOND: waits on the previous kernel's results. */
template <bool INV, int LOGN, int K, bool ROWS, int S, bool FIRST, bool SECOND>
__global__ void __launch_bounds__(Phase<LOGN, K, ROWS, S>::THREADS,
                                  Phase<LOGN, K, ROWS, S>::MIN_BLOCKS)
fast_phase(uint64_t *__restrict__ data, const typename Phase<LOGN, K, ROWS, S>::TT *__restrict__ tw,
           const nb_gpu_limb *__restrict__ limbs, size_t first)
{
    typedef Phase<LOGN, K, ROWS, S> PH;
    typedef typename PH::TT TT;
    constexpr int R = PH::R, RV = PH::RV;
    static_assert(PH::NP >= 2, "the shared-memory slot reuse below needs two passes");
    static_assert(PH::THREADS % 32 == 0, "whole warps");
    extern __shared__ __align__(16) unsigned char smem[];
    TT *stw = reinterpret_cast<TT *>(smem);
    uint64_t *sdata = reinterpret_cast<uint64_t *>(smem + PH::TW_BYTES);

    const uint32_t tid = threadIdx.x;
    const size_t l = first + blockIdx.y;
    const uint32_t t = ROWS ? tid % PH::TPT : tid / PH::TILE;
    const uint32_t tb = ROWS ? tid / PH::TPT : tid % PH::TILE;
    const uint32_t tr = blockIdx.x * PH::TILE + tb;

    if constexpr (ROWS) { /* stage s of rows [row0, row0 + TILE) -> [TILE << s, 2 TILE << s) */
        const TT *twl = tw + ((size_t)l << LOGN);
        const uint32_t row0 = blockIdx.x * PH::TILE;
#pragma unroll 1
        for (int s = 0; s < K; s++) {
            const uint32_t n = (uint32_t)PH::TILE << s;
            const TT *src = twl + (1u << (PH::KOFF + s)) + (row0 << s);
            for (uint32_t i = tid; i < n; i += PH::THREADS)
                nb_gpu_cp_async8(&stw[tw_slot(n + i)], &src[i]);
        }
    } else {
        const TT *twl = tw + ((size_t)l << K);
        for (uint32_t i = tid; i < (1u << K); i += PH::THREADS)
            nb_gpu_cp_async16(&stw[i], &twl[i]);
    }
    if constexpr (SECOND)
        nb_gpu_pdl_wait();
    uint64_t *a = data + ((size_t)blockIdx.y << LOGN);
    const nb_gpu_limb *c = limbs + l;
    const uint64_t q = c->q;

    uint64_t v[RV];
    {
        typedef Pass<INV, K, 0, R> P0;
        const uint32_t eb = elem_base<P0::WL, R>(t);
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
    nb_gpu_cp_async_wait_all();
    __syncthreads();

    constexpr bool SCALE = INV && PH::INV_FINAL;
    const TwShared<PH, ROWS> twa{stw, tb};
    static_for<0, PH::NP, 1>([&](auto pc) {
        constexpr int P = decltype(pc)::value;
        typedef Pass<INV, K, P, R> PP;
        if constexpr (P > 0) {
            typedef Pass<INV, K, P - 1, R> PQ;
            if constexpr (P > 1)
                __syncthreads();
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
        run_pass<INV, K, PP::LO, PP::HI, PP::WL, SCALE>(v, elem_base<PP::WL, R>(t), twa, q, c);
    });
    if constexpr (FIRST)
        nb_gpu_pdl_launch_dependents();

    if constexpr (!INV && ROWS) {
#pragma unroll
        for (int j = 0; j < RV; j++)
            v[j] = nb_reduce_4q(v[j], q);
    }

    {
        typedef Pass<INV, K, PH::NP - 1, R> PL;
        const uint32_t eb = elem_base<PL::WL, R>(t);
        if constexpr (ROWS && PL::WL == 0) {
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

typedef struct {
    size_t limbs;
    unsigned log_n, k1;             /* k1: log2 of the column transform size */
    uint64_t *fwd_rows, *inv_rows;  /* [L*N] w_shoup */
    ulonglong2 *fwd_cols, *inv_cols; /* [L << k1] pairs */
    nb_gpu_limb *limbs_dev;
    bool pdl; /* device >= sm_90 */
} fast_plan;

/* What one launch of a phase needs to know about the call. */
typedef struct {
    const fast_plan *p;
    uint64_t *data;
    size_t first, count;
    cudaStream_t s;
    bool configure;    /* only raise the kernels' shared-memory limit */
    int shape;         /* block shape of both kernels (choose_shape) */
} call_ctx;

/* The block shape of a call of `count` limbs of size 2^log_n, measured
 * (docs/tuning.md): calls of up to 2^18 coefficients (and up to 2^20 at
 * log N <= 14) are latency-bound and run 4 coefficients per thread in
 * 128-thread blocks (the shortest dependent chain per thread, the most
 * threads per limb); larger calls run 16 per thread in 128-thread blocks
 * (fewest exchanges; ~5 % faster than 256-thread blocks). */
int choose_shape(unsigned log_n, size_t count)
{
    const size_t coeffs = count << log_n;
    if (coeffs <= (size_t)1 << 18 || (log_n <= 14 && coeffs <= (size_t)1 << 20))
        return SHAPE_SMALL;
    return SHAPE_LARGE;
}

/* Launches phase (K, ROWS, S) over the call's limbs in chunks of at most
 * 65535 limbs (the grid's y limit); a SECOND kernel with programmatic
 * dependent launch (measured: never slower than without, up to 1.5 us
 * faster; the blocks of the second kernel only stage twiddles before they
 * wait). */
template <bool INV, int LOGN, int K, bool ROWS, int S, bool FIRST, bool SECOND>
nb_status launch_shape(const call_ctx &x)
{
    typedef Phase<LOGN, K, ROWS, S> PH;
    auto kern = fast_phase<INV, LOGN, K, ROWS, S, FIRST, SECOND>;
    if (x.configure) {
        NB_CUDA_TRY(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)PH::SMEM));
        return NB_OK;
    }
    const fast_plan *p = x.p;
    const typename PH::TT *tw;
    if constexpr (ROWS)
        tw = INV ? p->inv_rows : p->fwd_rows;
    else
        tw = INV ? p->inv_cols : p->fwd_cols;
    for (size_t done = 0; done < x.count; done += 65535) {
        const unsigned chunk = (unsigned)(x.count - done < 65535 ? x.count - done : 65535);
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(PH::NT / PH::TILE, chunk);
        cfg.blockDim = dim3(PH::THREADS);
        cfg.dynamicSmemBytes = PH::SMEM;
        cfg.stream = x.s;
        cudaLaunchAttribute attr[1];
        if (SECOND && p->pdl) {
            attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attr[0].val.programmaticStreamSerializationAllowed = 1;
            cfg.attrs = attr;
            cfg.numAttrs = 1;
        }
        NB_CUDA_TRY(cudaLaunchKernelEx(&cfg, kern, x.data + (done << LOGN), tw,
                                       (const nb_gpu_limb *)p->limbs_dev, x.first + done));
    }
    NB_CUDA_TRY(cudaGetLastError());
    return NB_OK;
}

/* One phase in the call's block shape (configure: both shapes the rule
 * uses; only those two are instantiated). */
template <bool INV, int LOGN, int K, bool ROWS, bool FIRST, bool SECOND>
nb_status launch_phase(const call_ctx &x)
{
    if (x.configure)
        NB_TRY((launch_shape<INV, LOGN, K, ROWS, SHAPE_SMALL, FIRST, SECOND>(x)));
    if (x.shape == SHAPE_SMALL && !x.configure)
        return launch_shape<INV, LOGN, K, ROWS, SHAPE_SMALL, FIRST, SECOND>(x);
    return launch_shape<INV, LOGN, K, ROWS, SHAPE_LARGE, FIRST, SECOND>(x);
}

/* log2 of the column transform size (N1) for each log N. */
constexpr unsigned cols_log(unsigned log_n) { return log_n / 2; }

template <int LOGN> struct Size {
    static constexpr int K1 = cols_log(LOGN), K2 = LOGN - K1;
    static nb_status forward(const call_ctx &x)
    {
        NB_TRY((launch_phase<false, LOGN, K1, false, true, false>(x)));
        return launch_phase<false, LOGN, K2, true, false, true>(x);
    }
    static nb_status inverse(const call_ctx &x)
    {
        NB_TRY((launch_phase<true, LOGN, K2, true, true, false>(x)));
        return launch_phase<true, LOGN, K1, false, false, true>(x);
    }
};

nb_status dispatch(const call_ctx &x, bool inverse)
{
#define NB_FAST_CASE(LOGN)                                                                     \
    case LOGN:                                                                                 \
        return inverse ? Size<LOGN>::inverse(x) : Size<LOGN>::forward(x);
    switch (x.p->log_n) {
        NB_FAST_CASE(10)
        NB_FAST_CASE(11)
        NB_FAST_CASE(12)
        NB_FAST_CASE(13)
        NB_FAST_CASE(14)
        NB_FAST_CASE(15)
        NB_FAST_CASE(16)
        NB_FAST_CASE(17)
    default:
        return nb_set_error(NB_ERR_UNSUPPORTED, "%s: log_n=%u outside [%d, %d]", NB_GPU_FAST_NAME,
                            x.p->log_n, FAST_MIN_LOG_N, FAST_MAX_LOG_N);
    }
#undef NB_FAST_CASE
}

void plan_destroy(void *plan)
{
    fast_plan *p = (fast_plan *)plan;
    if (!p)
        return;
    cudaFree(p->fwd_rows);
    cudaFree(p->inv_rows);
    cudaFree(p->fwd_cols);
    cudaFree(p->inv_cols);
    cudaFree(p->limbs_dev);
    free(p);
}

/* Column twiddle pairs: the first 2^k1 entries of every limb, packed. */
nb_status upload_cols(ulonglong2 **dev, const nb_ntt_tables *t, const uint64_t *w,
                      const uint64_t *ws, unsigned k1, cudaStream_t s)
{
    const size_t m = (size_t)1 << k1;
    uint64_t *hw = (uint64_t *)malloc(t->limbs * m * sizeof *hw);
    uint64_t *hs = (uint64_t *)malloc(t->limbs * m * sizeof *hs);
    nb_status st = NB_OK;
    if (!hw || !hs) {
        st = nb_set_error(NB_ERR_OUT_OF_MEMORY, "%s: out of host memory", NB_GPU_FAST_NAME);
    } else {
        for (size_t l = 0; l < t->limbs; l++)
            for (size_t i = 0; i < m; i++) {
                hw[l * m + i] = w[l * t->n + i];
                hs[l * m + i] = ws[l * t->n + i];
            }
        st = nb_gpu_upload_pairs(dev, hw, hs, t->limbs * m, s);
    }
    free(hw);
    free(hs);
    return st;
}

nb_status plan_create(void **out, const nb_ntt_tables *t, void *stream)
{
    NB_TRY(nb_gpu_check_device(NB_GPU_FAST_NAME));
    cudaStream_t s = (cudaStream_t)stream;
    fast_plan *p = (fast_plan *)calloc(1, sizeof *p);
    if (!p)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "%s: out of host memory", NB_GPU_FAST_NAME);
    p->limbs = t->limbs;
    p->log_n = t->log_n;
    p->k1 = cols_log(t->log_n);
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) {
        free(p);
        return nb_set_error(NB_ERR_CUDA, "%s: cannot query the device: %s", NB_GPU_FAST_NAME,
                            cudaGetErrorString(cudaGetLastError()));
    }
    p->pdl = major >= 9;
    const size_t count = t->limbs * t->n;
    nb_status st = nb_gpu_upload((void **)&p->fwd_rows, t->fwd_shoup, count * 8, s);
    if (st == NB_OK)
        st = nb_gpu_upload((void **)&p->inv_rows, t->inv_shoup, count * 8, s);
    if (st == NB_OK)
        st = upload_cols(&p->fwd_cols, t, t->fwd, t->fwd_shoup, p->k1, s);
    if (st == NB_OK)
        st = upload_cols(&p->inv_cols, t, t->inv, t->inv_shoup, p->k1, s);
    if (st == NB_OK)
        st = nb_gpu_upload_limbs(&p->limbs_dev, t, s); /* synchronizes the stream */
    call_ctx cfg = {p, NULL, 0, 0, s, true, 0};
    if (st == NB_OK)
        st = dispatch(cfg, false);
    if (st == NB_OK)
        st = dispatch(cfg, true);
    if (st != NB_OK) {
        plan_destroy(p);
        return st;
    }
    *out = p;
    return NB_OK;
}

nb_status run(void *plan, bool inverse, uint64_t *data, size_t first, size_t count, void *stream)
{
    if ((uintptr_t)data & 15)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "%s: data must be 16-byte aligned (it is moved with 16-byte loads)",
                            NB_GPU_FAST_NAME);
    const fast_plan *p = (const fast_plan *)plan;
    const call_ctx x = {p, data, first, count, (cudaStream_t)stream, false,
                        choose_shape(p->log_n, count)};
    return dispatch(x, inverse);
}

nb_status forward(void *plan, uint64_t *data, size_t first, size_t count, void *stream)
{
    return run(plan, false, data, first, count, stream);
}

nb_status inverse(void *plan, uint64_t *data, size_t first, size_t count, void *stream)
{
    return run(plan, true, data, first, count, stream);
}

} // namespace

extern "C" const nb_ntt_variant nb_variant_gpu_fast = {
    /* .name = */ NB_GPU_FAST_NAME,
    /* .description = */ "GPU register NTT, shape per call: column + row kernels with PDL; "
                         "N*L <= 2^18 (2^20 at log N <= 14): 4 coefficients/thread; larger: 16; "
                         "128-thread blocks",
    /* .backend = */ NB_BACKEND_GPU,
    /* .min_log_n = */ FAST_MIN_LOG_N,
    /* .max_log_n = */ FAST_MAX_LOG_N,
    /* .word_bits = */ 64,
    /* .max_prime_bits = */ NB_MAX_PRIME_BITS,
    /* .plan_create = */ plan_create,
    /* .plan_destroy = */ plan_destroy,
    /* .forward = */ forward,
    /* .inverse = */ inverse,
};

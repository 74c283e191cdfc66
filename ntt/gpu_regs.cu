/* gpu-regs: the register-resident, high-radix GPU NTT (log N in [10, 17]).
 *
 * Design (docs/variants.md has the figures):
 *  - Each thread keeps 16 coefficients in registers and runs up to 4
 *    butterfly stages on them (a radix-16 pass) with Harvey lazy butterflies
 *    and Shoup twiddles (ntt/arith.h); passes exchange coefficients through
 *    shared memory (padded so that neither side has bank conflicts).
 *  - log N <= 13: one kernel, one block per limb, the whole transform in one
 *    global read and one global write.
 *  - log N 14..17: the limb is an N1 x N2 matrix (N1 = 2^k1 rows,
 *    N2 = 2^k2 columns). A column kernel runs the k1 stages on the high index
 *    bits (each block: TILE whole columns), a row kernel the k2 stages on the
 *    low bits (each block: TILE whole rows). Forward: columns then rows;
 *    inverse: rows then columns. The intermediate (16 MiB for L = 32 at
 *    N = 2^16) stays in the 50 MiB L2 between the two kernels.
 *  - Twiddles: every kernel copies the twiddles it needs into shared memory
 *    with cp.async at kernel start (overlapping the coefficient loads), so the
 *    butterfly stages, which run in lockstep between barriers, never wait on
 *    L2. Column stages use the 2^k1 twiddles of their limb, stored as
 *    {w, w_shoup} pairs (one 16-byte load). Row stages use ~N distinct
 *    twiddles per limb, 255 per row of 256: a row block copies its rows'
 *    twiddles, stored as w_shoup only (half the bytes and shared memory) with
 *    w recovered as mulhi(w_shoup, q) + 1 (nb_shoup_recover); the copy is
 *    XOR-swizzled so the per-thread runs of 8/4/2/1 twiddles are read without
 *    bank conflicts. (ROW_TW = 0 below stores pairs for the rows too.)
 *  - 80 registers per thread: 3 blocks of 256 threads per SM.
 *  - With programmatic dependent launch (sm_90 and up) the second
 *    kernel of a transform may be scheduled once every block of the first
 *    has finished its butterflies; it copies its twiddles, then waits for
 *    the first kernel's results. Used when the second grid fills the device
 *    or both grids fit on distinct SMs (see phase_launch).
 *  - Values stay lazy ([0, 4q) forward, [0, 2q) inverse) until the last stage:
 *    the forward row kernel reduces to [0, q) before its store, the inverse
 *    column kernel folds N^-1 into its last stage. Row kernels move their
 *    contiguous coefficients through a warp-local shared-memory transpose so
 *    that every 16-byte load/store of a warp covers 512 contiguous bytes. */
#include "ntt/builtin.h"
#include "ntt/gpu_common.cuh"
#include "ntt/gpu_regs_kernels.cuh"

#define REGS_NAME "gpu-regs"
#define REGS_MIN_LOG_N 10
#define REGS_MAX_LOG_N 17

namespace {

typedef Tw<ROW_TW>::T RowTw;

typedef struct {
    size_t limbs;
    unsigned log_n, k1; /* k1 = log2 of the column transform size (0: one kernel) */
    RowTw *fwd_rows, *inv_rows;       /* [L*N] row twiddles (ROW_TW storage) */
    ulonglong2 *fwd_cols, *inv_cols;  /* [L << k1] column twiddle pairs */
    nb_gpu_limb *limbs_dev;
    bool pdl;        /* programmatic dependent launch (USE_PDL and a device >= sm_90) */
    unsigned sms; /* multiprocessors of the device */
} regs_plan;

/* Launches one phase over limbs [first, first + count) in chunks of at most
 * 65535 limbs (the grid's y limit); `configure` only raises the kernel's
 * shared-memory limit (done once, in plan_create). A SECOND kernel is
 * launched with the programmatic-stream-serialization attribute when the
 * plan enables PDL. */
template <bool INV, int LOGN, int K, bool ROWS, bool FIRST, bool SECOND>
nb_status phase_launch(const regs_plan *p, uint64_t *data, size_t first, size_t count,
                       cudaStream_t s, bool configure, unsigned prev_blocks_per_limb = 0)
{
    typedef Phase<ROW_TW, LOGN, K, ROWS> PH;
    auto kern = regs_phase<ROW_TW, INV, LOGN, K, ROWS, FIRST, SECOND>;
    if (configure) {
        NB_CUDA_TRY(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)PH::SMEM));
        return NB_OK;
    }
    const typename PH::TT *tw;
    if constexpr (ROWS)
        tw = INV ? p->inv_rows : p->fwd_rows;
    else
        tw = INV ? p->inv_cols : p->fwd_cols;
    for (size_t done = 0; done < count; done += 65535) {
        const unsigned chunk = (unsigned)(count - done < 65535 ? count - done : 65535);
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(PH::NT / PH::TILE, chunk);
        cfg.blockDim = dim3(PH::THREADS);
        cfg.dynamicSmemBytes = PH::SMEM;
        cfg.stream = s;
        cudaLaunchAttribute attr[1];
        /* PDL when the second grid fills the device anyway, or when both
         * grids fit side by side on distinct SMs; otherwise the second grid,
         * scheduled early, piles onto the SMs the first one still holds
         * (measured: N = 2^16, L = 8 forward 18.7 us without, 20.7 with) */
        const size_t blocks = (size_t)(PH::NT / PH::TILE) * chunk;
        const size_t prev = (size_t)prev_blocks_per_limb * chunk;
        if (SECOND && p->pdl &&
            (blocks >= (size_t)p->sms * PH::MIN_BLOCKS || blocks + prev <= p->sms)) {
            attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attr[0].val.programmaticStreamSerializationAllowed = 1;
            cfg.attrs = attr;
            cfg.numAttrs = 1;
        }
        NB_CUDA_TRY(cudaLaunchKernelEx(&cfg, kern, data + (done << LOGN), tw,
                                       (const nb_gpu_limb *)p->limbs_dev, first + done));
    }
    return NB_OK;
}

/* The kernels of one size: K1/K2 are the column/row phase sizes (K1 = 0:
 * a single row kernel over the whole limb). */
template <int LOGN, int K1> struct Size {
    static constexpr int K2 = LOGN - K1;
    static constexpr bool TWO = K1 > 0;
    typedef Phase<ROW_TW, LOGN, K2, true> RowPh;
    typedef Phase<ROW_TW, LOGN, TWO ? K1 : K2, false> ColPh; /* unused if !TWO */
    static nb_status forward(const regs_plan *p, uint64_t *d, size_t f, size_t n, cudaStream_t s,
                             bool cfg)
    {
        if constexpr (TWO)
            NB_TRY((phase_launch<false, LOGN, K1, false, true, false>(p, d, f, n, s, cfg)));
        return phase_launch<false, LOGN, K2, true, false, TWO>(p, d, f, n, s, cfg,
                                                               ColPh::NT / ColPh::TILE);
    }
    static nb_status inverse(const regs_plan *p, uint64_t *d, size_t f, size_t n, cudaStream_t s,
                             bool cfg)
    {
        NB_TRY((phase_launch<true, LOGN, K2, true, TWO, false>(p, d, f, n, s, cfg)));
        if constexpr (TWO)
            return phase_launch<true, LOGN, K1, false, false, true>(p, d, f, n, s, cfg,
                                                                    RowPh::NT / RowPh::TILE);
        return NB_OK;
    }
};

/* Column-phase size for each log N (0: a single row kernel). */
unsigned cols_log(unsigned log_n)
{
    return log_n <= 13 ? 0 : log_n <= 15 ? 7 : 8;
}

nb_status dispatch(const regs_plan *p, bool inverse, uint64_t *d, size_t f, size_t n,
                   cudaStream_t s, bool cfg)
{
#define NB_REGS_CASE(LOGN)                                                                     \
    case LOGN:                                                                                 \
        return inverse ? Size<LOGN, LOGN <= 13 ? 0 : LOGN <= 15 ? 7 : 8>::inverse(p, d, f, n, s, cfg) \
                       : Size<LOGN, LOGN <= 13 ? 0 : LOGN <= 15 ? 7 : 8>::forward(p, d, f, n, s, cfg);
    switch (p->log_n) {
        NB_REGS_CASE(10)
        NB_REGS_CASE(11)
        NB_REGS_CASE(12)
        NB_REGS_CASE(13)
        NB_REGS_CASE(14)
        NB_REGS_CASE(15)
        NB_REGS_CASE(16)
        NB_REGS_CASE(17)
    default:
        return nb_set_error(NB_ERR_UNSUPPORTED, "%s: log_n=%u outside [%d, %d]", REGS_NAME,
                            p->log_n, REGS_MIN_LOG_N, REGS_MAX_LOG_N);
    }
#undef NB_REGS_CASE
}

void plan_destroy(void *plan)
{
    regs_plan *p = (regs_plan *)plan;
    if (!p)
        return;
    cudaFree(p->fwd_rows);
    cudaFree(p->inv_rows);
    cudaFree(p->fwd_cols);
    cudaFree(p->inv_cols);
    cudaFree(p->limbs_dev);
    free(p);
}

/* Row twiddles in ROW_TW storage, all N entries of every limb. */
nb_status upload_rows(RowTw **dev, const uint64_t *w, const uint64_t *ws, size_t count,
                      cudaStream_t s)
{
    if constexpr (ROW_TW == 0)
        return nb_gpu_upload_pairs((ulonglong2 **)dev, w, ws, count, s);
    (void)w;
    return nb_gpu_upload((void **)dev, ws, count * sizeof(uint64_t), s);
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
        st = nb_set_error(NB_ERR_OUT_OF_MEMORY, "%s: out of host memory", REGS_NAME);
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
    cudaStream_t s = (cudaStream_t)stream;
    regs_plan *p;
    NB_TRY(nb_gpu_plan_alloc((void **)&p, sizeof *p, REGS_NAME));
    p->limbs = t->limbs;
    p->log_n = t->log_n;
    p->k1 = cols_log(t->log_n);
    int dev = 0, major = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
        free(p);
        return nb_set_error(NB_ERR_CUDA, "%s: cannot query the device: %s", REGS_NAME,
                            cudaGetErrorString(cudaGetLastError()));
    }
    p->pdl = USE_PDL && major >= 9;
    p->sms = (unsigned)sms;
    const size_t count = t->limbs * t->n;
    nb_status st = upload_rows(&p->fwd_rows, t->fwd, t->fwd_shoup, count, s);
    if (st == NB_OK)
        st = upload_rows(&p->inv_rows, t->inv, t->inv_shoup, count, s);
    if (st == NB_OK && p->k1)
        st = upload_cols(&p->fwd_cols, t, t->fwd, t->fwd_shoup, p->k1, s);
    if (st == NB_OK && p->k1)
        st = upload_cols(&p->inv_cols, t, t->inv, t->inv_shoup, p->k1, s);
    if (st == NB_OK)
        st = nb_gpu_upload_limbs(&p->limbs_dev, t, s); /* synchronizes the stream */
    if (st == NB_OK)
        st = dispatch(p, false, NULL, 0, 0, s, true);
    if (st == NB_OK)
        st = dispatch(p, true, NULL, 0, 0, s, true);
    if (st != NB_OK) {
        plan_destroy(p);
        return st;
    }
    *out = p;
    return NB_OK;
}

nb_status check_aligned(const uint64_t *data)
{
    if ((uintptr_t)data & 15)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "%s: data must be 16-byte aligned (it is moved with 16-byte loads)",
                            REGS_NAME);
    return NB_OK;
}

nb_status forward(void *plan, uint64_t *data, size_t first, size_t count, void *stream)
{
    NB_TRY(check_aligned(data));
    return dispatch((const regs_plan *)plan, false, data, first, count, (cudaStream_t)stream,
                    false);
}

nb_status inverse(void *plan, uint64_t *data, size_t first, size_t count, void *stream)
{
    NB_TRY(check_aligned(data));
    return dispatch((const regs_plan *)plan, true, data, first, count, (cudaStream_t)stream,
                    false);
}

} // namespace

extern "C" const nb_ntt_variant nb_variant_gpu_regs = {
    /* .name = */ REGS_NAME,
    /* .description = */ "GPU register NTT: 16 coefficients per thread (radix-16 passes), "
                         "Harvey/Shoup, smem exchange and twiddles, 1-2 global passes",
    /* .backend = */ NB_BACKEND_GPU,
    /* .min_log_n = */ REGS_MIN_LOG_N,
    /* .max_log_n = */ REGS_MAX_LOG_N,
    /* .word_bits = */ 64,
    /* .max_prime_bits = */ NB_MAX_PRIME_BITS,
    /* .plan_create = */ plan_create,
    /* .plan_destroy = */ plan_destroy,
    /* .forward = */ forward,
    /* .inverse = */ inverse,
};

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
 *    bank conflicts.
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
 *    that every 16-byte load/store of a warp covers 512 contiguous bytes.
 * The kernel machinery, shared with gpu-fast, is ntt/gpu_reg_passes.cuh
 * (kernels) and ntt/gpu_reg_plan.cuh (plan, launch). */
#include "ntt/builtin.h"
#include "ntt/gpu_common.cuh"
#include "ntt/gpu_reg_plan.cuh"

#define REGS_NAME "gpu-regs"
#define REGS_MIN_LOG_N 10
#define REGS_MAX_LOG_N 17

namespace {

using namespace nb_regpass;

constexpr int RLOG = 4;          /* log2 of the coefficients per thread */
constexpr int BLOCK_THREADS = 256; /* threads per block (more when one transform needs more) */

/* The phase (K, ROWS) of a 2^LOGN-point transform. */
template <int LOGN, int K, bool ROWS> using RegsPhase = Phase<LOGN, K, ROWS, RLOG, BLOCK_THREADS>;

/* The phase kernel (phase_body in gpu_reg_passes.cuh has the contract). */
template <bool INV, int LOGN, int K, bool ROWS, bool FIRST, bool SECOND>
__global__ void __launch_bounds__(RegsPhase<LOGN, K, ROWS>::THREADS,
                                  RegsPhase<LOGN, K, ROWS>::MIN_BLOCKS)
regs_phase(uint64_t *__restrict__ data, const uint64_t *src,
           const typename RegsPhase<LOGN, K, ROWS>::TT *__restrict__ tw,
           const nb_gpu_limb *__restrict__ limbs, size_t first, unsigned *, const uint4 *,
           SubScaleArgs<uint64_t>)
{
    phase_body<RegsPhase<LOGN, K, ROWS>, INV, FIRST, SECOND>(data, src, tw, limbs, first);
}

/* Launches one phase over limbs [first, first + count) (configure: only
 * raises the kernel's shared-memory limit; desc: only lists the kernel). A
 * SECOND kernel uses PDL when
 * its grid fills the device anyway, or when both grids fit side by side on
 * distinct SMs; otherwise the second grid, scheduled early, piles onto the
 * SMs the first one still holds (measured slower: docs/variants.md, PDL). */
template <bool INV, int LOGN, int K, bool ROWS, bool FIRST, bool SECOND>
nb_status phase_launch(const Plan *p, uint64_t *data, size_t first, size_t count,
                       cudaStream_t s, bool configure, KernelList *desc,
                       unsigned prev_blocks_per_limb = 0)
{
    typedef RegsPhase<LOGN, K, ROWS> PH;
    return launch<PH, INV, SECOND>(
        regs_phase<INV, LOGN, K, ROWS, FIRST, SECOND>, p, data, data, first, count, s, configure,
        [p, prev_blocks_per_limb](size_t blocks, size_t chunk) {
            const size_t prev = (size_t)prev_blocks_per_limb * chunk;
            return blocks >= (size_t)p->sms * PH::MIN_BLOCKS || blocks + prev <= p->sms;
        },
        desc);
}

/* The kernels of one size: K1/K2 are the column/row phase sizes (K1 = 0:
 * a single row kernel over the whole limb). */
template <int LOGN, int K1> struct Size {
    static constexpr int K2 = LOGN - K1;
    static constexpr bool TWO = K1 > 0;
    typedef RegsPhase<LOGN, K2, true> RowPh;
    typedef RegsPhase<LOGN, TWO ? K1 : K2, false> ColPh; /* unused if !TWO */
    static nb_status forward(const Plan *p, uint64_t *d, size_t f, size_t n, cudaStream_t s,
                             bool cfg, KernelList *desc)
    {
        if constexpr (TWO)
            NB_TRY((phase_launch<false, LOGN, K1, false, true, false>(p, d, f, n, s, cfg, desc)));
        return phase_launch<false, LOGN, K2, true, false, TWO>(p, d, f, n, s, cfg, desc,
                                                               ColPh::NT / ColPh::TILE);
    }
    static nb_status inverse(const Plan *p, uint64_t *d, size_t f, size_t n, cudaStream_t s,
                             bool cfg, KernelList *desc)
    {
        NB_TRY((phase_launch<true, LOGN, K2, true, TWO, false>(p, d, f, n, s, cfg, desc)));
        if constexpr (TWO)
            return phase_launch<true, LOGN, K1, false, false, true>(p, d, f, n, s, cfg, desc,
                                                                    RowPh::NT / RowPh::TILE);
        return NB_OK;
    }
};

/* Column-phase size for each log N (0: a single row kernel). */
constexpr unsigned cols_log(unsigned log_n)
{
    return log_n <= 13 ? 0 : log_n <= 15 ? 7 : 8;
}

/* One call (cfg: configure every kernel of the size; desc: list the call's
 * kernels instead of launching them). */
nb_status dispatch(const Plan *p, bool inverse, uint64_t *d, size_t f, size_t n,
                   cudaStream_t s, bool cfg, KernelList *desc = nullptr)
{
#define NB_REGS_CASE(LOGN)                                                                     \
    case LOGN:                                                                                 \
        return inverse ? Size<LOGN, (int)cols_log(LOGN)>::inverse(p, d, f, n, s, cfg, desc)     \
                       : Size<LOGN, (int)cols_log(LOGN)>::forward(p, d, f, n, s, cfg, desc);
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

nb_status plan_create(void **out, const nb_ntt_tables *t, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    return nb_regpass::plan_create(out, t, cols_log(t->log_n), false, 0, REGS_NAME, s, [s](const Plan *p) {
        NB_TRY(dispatch(p, false, NULL, 0, 0, s, true));
        return dispatch(p, true, NULL, 0, 0, s, true);
    });
}

nb_status forward(void *plan, void *words, size_t first, size_t count, void *stream)
{
    uint64_t *data = (uint64_t *)words;
    NB_TRY(check_aligned(data, REGS_NAME));
    return dispatch((const Plan *)plan, false, data, first, count, (cudaStream_t)stream,
                    false);
}

nb_status inverse(void *plan, void *words, size_t first, size_t count, void *stream)
{
    uint64_t *data = (uint64_t *)words;
    NB_TRY(check_aligned(data, REGS_NAME));
    return dispatch((const Plan *)plan, true, data, first, count, (cudaStream_t)stream,
                    false);
}

/* The kernels of a call (ntt/variant.h): the row kernel alone up to
 * log N 13, else columns then rows (forward) or rows then columns. */
nb_status kernels(void *plan, int inverse, size_t first, size_t count, nb_ntt_kernel *out,
                  size_t max, size_t *n)
{
    KernelList list = {out, max, 0, nullptr};
    nb_status st = dispatch((const Plan *)plan, inverse != 0, NULL, first, count, NULL, false,
                            &list);
    *n = list.n;
    return st;
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
    /* .plan_destroy = */ plan_free,
    /* .forward = */ forward,
    /* .inverse = */ inverse,
    /* .forward_to = */ NULL, /* out of place: a copy, then in place */
    /* .inverse_to = */ NULL,
    /* .kernels = */ kernels,
    /* .forward_sub_scale = */ NULL,
};

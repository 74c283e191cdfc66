/* gpu-fast and gpu-fast32: a two-kernel register-resident GPU NTT whose
 * block shape is chosen per call from the size of the call (log N in
 * [10, 17]), on 64-bit words (gpu-fast) and on 32-bit words (gpu-fast32,
 * primes below 2^31). Every function below is a template on the word traits
 * of ntt/gpu_word.cuh, instantiated by one source file per word size
 * (gpu_fast.cu: 64-bit, gpu_fast32.cu: 32-bit), so the two compile apart and
 * in parallel; each includes this header once. The design; the measurements
 * behind each choice are in docs/tuning.md (versions, floors, profiles) and
 * docs/variants.md:
 *
 *  - Every size runs as an N1 x N2 matrix (N1 = 2^k1 rows, N2 = 2^k2
 *    columns, k1 = floor(log N / 2), one less for small calls at
 *    log N >= 16): a column kernel runs the k1 stages on the high index
 *    bits, a row kernel the k2 stages on the low bits (forward: columns then
 *    rows; inverse: rows then columns).
 *  - Each thread keeps 2^R coefficients in registers and runs radix-2^R
 *    passes (Harvey lazy butterflies, Shoup twiddles from ntt/arith.h),
 *    exchanging through padded shared memory between passes. Small calls
 *    (choose_shape) use R = 2 in 128-thread blocks, the shortest dependent
 *    chain per thread; larger calls R = 4 in 128-thread blocks (256 for the
 *    column kernel on 32-bit words: phase_threads), with L2 evict-first
 *    coefficient loads up to 32 MiB of words so that the intermediate
 *    between the two kernels stays in L2 (32-bit inverse calls at log N 17:
 *    at every size, call_shape). Their second kernel takes the
 *    limbs last first unless it hands off per limb (below): it starts
 *    where the L2 holds most of the intermediate, and leaves the first
 *    limbs there for the next reader.
 *  - Twiddles are staged in shared memory with cp.async at kernel start:
 *    columns as {w, w_shoup} pairs, rows as w_shoup only (w recovered from
 *    it), XOR-swizzled against bank conflicts, except the first pass's few
 *    per row, which every thread of the row reads: those are recovered once
 *    per block and kept as pairs (shape_row_pairs).
 *  - Both kernels are launched with programmatic dependent launch (sm_90):
 *    scheduled early, each stages its twiddles, then waits for the previous
 *    kernel's results (for the first kernel: whatever preceded the call,
 *    e.g. a CKKS base conversion). When the first kernel lets the second in
 *    (at its start or after its butterflies) is early_trigger's rule; the
 *    second lets whatever follows in at its start.
 *  - Large-shape inverse calls above 8 MiB of words (on 32-bit words up to
 *    16 MiB) hand off per limb (use_handoff): each block of the first
 *    kernel counts itself done with its limb, and a block of the second
 *    waits only for its own limb's count, so that the column kernel runs
 *    on finished limbs under the row kernel's last wave. The counters are
 *    the plan's scratch (calls on one plan run one after another:
 *    ntt/variant.h).
 *  - Out of place (forward_to, inverse_to): the first kernel reads the
 *    source and writes the destination, where the second works in place, so
 *    the call costs what an in-place one does (no copy).
 *  - A forward call may end in the CKKS epilogue (forward_sub_scale,
 *    nb_ntt_sub_scale): the row kernel reads x beside each coefficient and
 *    stores (x - y) w to the epilogue's output instead of y to data, in the
 *    shape and launches of the plain call.
 *  - Values stay lazy ([0, 4q) forward, [0, 2q) inverse) until the last
 *    stage: the forward row kernel reduces to [0, q) before its store, the
 *    inverse column kernel folds N^-1 into its top stage. A call whose
 *    primes are all below the word's fast-butterfly bound (2^61 for 64-bit
 *    words: nb_ct_butterfly_6q / _8q, nb_gs_butterfly_2q / _4q; 2^30 for
 *    32-bit words: the Harvey butterflies, else the _q31 family) is the
 *    LAZY case of the templates.
 *  - 32-bit calls take the small shape only below 2^19 coefficients
 *    (2^18 from log N 14: call_shape); 64-bit calls follow choose_shape's thresholds.
 *  - The 16-per-thread row kernels of 32-bit words read no per-row twiddle
 *    table beyond the first pass's pairs: each thread forms the twiddles of
 *    the later stages as products (shape_otf, Phase's OTF), from a factor
 *    of its row and the plan's records of the limb's first 2^(k-1) entries
 *    (nb_shoup32_product). */
#ifndef NB_GPU_FAST_CUH
#define NB_GPU_FAST_CUH

#include <string.h>

#include "ntt/builtin.h"
#include "ntt/gpu_common.cuh"
#include "ntt/gpu_reg_plan.cuh"

#define NB_GPU_FAST_NAME "gpu-fast"
#define NB_GPU_FAST32_NAME "gpu-fast32"

#define FAST_MIN_LOG_N 10
#define FAST_MAX_LOG_N 17

namespace {

using namespace nb_regpass;

template <class WT> constexpr const char *fast_name()
{
    return WT::BITS == 64 ? NB_GPU_FAST_NAME : NB_GPU_FAST32_NAME;
}

/* Block shapes: threads per block and log2 of the coefficients per thread.
 * S 0..2: 16 coefficients in 32, 128, 256 threads; S 3: 8 coefficients in 64
 * threads; S 4: 4 coefficients in 128 threads; S 5: shape 1 without L2
 * evict-first hints. */
constexpr int SHAPE_LARGE = 1, SHAPE_SMALL = 4, SHAPE_HUGE = 5; /* what choose_shape picks */
constexpr int shape_threads(int s) { return s == 0 ? 32 : s == 2 ? 256 : s == 3 ? 64 : 128; }
constexpr int shape_rlog(int s) { return s == 3 ? 3 : s == 4 ? 2 : 4; }
/* Whether shape S marks its coefficient loads and row twiddles L2
 * evict-first (phase_body): the large shape, up to 32 MiB of words (for
 * 32-bit inverse calls at log N 17 above too: call_shape), where the
 * intermediate then stays in L2 (docs/tuning.md). */
constexpr bool shape_evict_first(int s) { return s == SHAPE_LARGE; }

/* log2 of the column transform size (N1) the plan's column table holds. */
constexpr unsigned cols_log(unsigned log_n) { return log_n / 2; }

/* log2 of the column transform size of block shape S: the small shape at
 * log N >= 16 uses 2^(k1-1)-point columns (a warp then reads 32-byte runs
 * per row instead of 16; the row kernel keeps 128 blocks per limb). */
constexpr int shape_cols_log(int log_n, int s)
{
    return (int)cols_log((unsigned)log_n) - (s == SHAPE_SMALL && log_n >= 16 ? 1 : 0);
}

/* Whether a row phase keeps its first pass's twiddles as pairs (Phase's
 * PAIRS): all but the small shape's forward, where it measured slower
 * (docs/tuning.md). */
constexpr bool shape_row_pairs(int s, bool inv) { return s != SHAPE_SMALL || inv; }

/* Threads per block of phase (ROWS) in shape S on WT::BITS-bit words: the
 * shape's, but for the column phases of 32-bit words in the 16-per-thread
 * shapes, whose 256-thread blocks take 16 columns (a warp reads 64-byte
 * runs per row, as the 64-bit shapes do with 8 columns). */
constexpr int phase_threads(int s, bool rows, int bits)
{
    return !rows && bits == 32 && shape_rlog(s) == 4 ? 256 : shape_threads(s);
}

/* Whether the row phases of shape S on WT::BITS-bit words form their
 * per-thread twiddles as products (Phase's OTF): 32-bit words in the
 * 16-per-thread shapes, whose row size is then log_n - cols_log(log_n)
 * (the plan's records). */
constexpr bool shape_otf(int s, bool rows, int bits)
{
    return rows && bits == 32 && shape_rlog(s) == 4;
}

/* The phase (K, ROWS) of a 2^LOGN-point transform in block shape S, words WT. */
template <int LOGN, int K, bool ROWS, int S, bool INV, class WT>
using FastPhase = Phase<LOGN, K, ROWS, shape_rlog(S), phase_threads(S, ROWS, WT::BITS),
                        (int)cols_log(LOGN), shape_row_pairs(S, INV), WT,
                        shape_otf(S, ROWS, WT::BITS)>;

/* Blocks per limb of the other phase of the call that phase (K, ROWS) of a
 * 2^LOGN-point transform in shape S belongs to. */
template <int LOGN, int K, bool ROWS, int S, bool INV, class WT>
constexpr unsigned other_blocks_per_limb()
{
    typedef FastPhase<LOGN, LOGN - K, !ROWS, S, INV, WT> O;
    return (unsigned)(O::NT / O::TILE);
}

/* The phase kernel (phase_body in gpu_reg_passes.cuh has the contract);
 * HANDOFF: the second kernel waits per limb (phase_body's SIGNAL, WAIT);
 * EPI: the forward row phase ends in the fused epilogue. The second kernel
 * of a 16-per-thread call without the hand-off visits the limbs last first
 * (phase_body's REV_LIMBS): those whose intermediate the first kernel wrote
 * last, which the L2 holds longest. */
template <bool INV, int LOGN, int K, bool ROWS, int S, bool FIRST, bool SECOND, bool EARLY,
          bool LAZY, bool HANDOFF, bool EPI, class WT>
__global__ void __launch_bounds__(FastPhase<LOGN, K, ROWS, S, INV, WT>::THREADS,
                                  FastPhase<LOGN, K, ROWS, S, INV, WT>::MIN_BLOCKS)
fast_phase(typename WT::W *__restrict__ data, const typename WT::W *src,
           const typename FastPhase<LOGN, K, ROWS, S, INV, WT>::TT *__restrict__ tw,
           const typename WT::Limb *__restrict__ limbs, size_t first, unsigned *sync,
           const uint4 *__restrict__ otf, SubScaleArgs<typename WT::W> epi)
{
    constexpr unsigned WAIT =
        HANDOFF && SECOND ? other_blocks_per_limb<LOGN, K, ROWS, S, INV, WT>() : 0u;
    phase_body<FastPhase<LOGN, K, ROWS, S, INV, WT>, INV, FIRST, SECOND, EARLY,
               shape_evict_first(S), LAZY, HANDOFF && FIRST, WAIT, EPI,
               SECOND && S != SHAPE_SMALL && !HANDOFF>(data, src, tw, limbs, first, sync, otf,
                                                       &epi);
}

/* What one launch of a phase needs to know about the call. */
template <class WT> struct call_ctx {
    const PlanT<WT> *p;
    typename WT::W *data;
    const typename WT::W *src; /* the first kernel's input (data: in place) */
    size_t first, count;
    cudaStream_t s;
    bool configure;    /* only raise the kernels' shared-memory limit */
    int shape;         /* block shape of both kernels (choose_shape) */
    bool lazy;         /* every prime below 2^WT::LAZY_PRIME_BITS: fewer reductions (Size) */
    bool handoff;      /* the second kernel waits per limb (use_handoff) */
    KernelList *describe; /* non-NULL: list the call's kernels, launch nothing */
    bool fused;        /* forward with the epilogue: the row kernel writes epi */
    const SubScaleArgs<typename WT::W> *epi;
};

/* The 16-per-thread shape of a call of `coeffs` words of word_bytes bytes:
 * with L2 evict-first hints up to 32 MiB, without above. */
inline int shape_16_per_thread(size_t coeffs, size_t word_bytes)
{
    return coeffs * word_bytes <= (size_t)1 << 25 ? SHAPE_LARGE : SHAPE_HUGE;
}

/* The block shape of a call of `count` limbs of size 2^log_n, words of
 * word_bytes bytes (thresholds measured with 64-bit words: docs/tuning.md):
 * calls of up to 2^18 coefficients (2^19 forward; up to 2^20 at
 * log N <= 14, and forward at log N 15) are latency-bound and run 4
 * coefficients per thread (the shortest dependent chain per thread, the
 * most threads per limb); larger calls run 16 per thread (fewest
 * exchanges), with L2 evict-first hints up to 32 MiB of words. */
inline int choose_shape(unsigned log_n, size_t count, bool inverse, size_t word_bytes)
{
    const size_t coeffs = count << log_n;
    const unsigned small_log = inverse ? 18 : 19;
    const unsigned mid_max_log_n = inverse ? 14 : 15; /* up to 2^20 coefficients */
    if (coeffs <= (size_t)1 << small_log || (log_n <= mid_max_log_n && coeffs <= (size_t)1 << 20))
        return SHAPE_SMALL;
    return shape_16_per_thread(coeffs, word_bytes);
}

/* The block shape of a call on words WT: choose_shape's on 64-bit words; on
 * 32-bit words the small shape only below 2^19 coefficients (2^18 from
 * log N 14), in both directions (32-bit calls of 2^19 and 2^20
 * coefficients, and of 2^18 from log N 14, measured faster in the
 * 16-per-thread shapes: docs/tuning.md, "32-bit words"), and inverse calls
 * at log N 17 keep the large shape's evict-first hints above 32 MiB too
 * (every other call above measured slower with them: docs/tuning.md,
 * "Evict-first above 32 MiB"). */
template <class WT> int call_shape(unsigned log_n, size_t count, bool inverse)
{
    const size_t word_bytes = sizeof(typename WT::W);
    if constexpr (WT::BITS == 64) {
        return choose_shape(log_n, count, inverse, word_bytes);
    } else {
        const size_t coeffs = count << log_n;
        const unsigned small_log = log_n >= 14 ? 18 : 19;
        if (coeffs < (size_t)1 << small_log)
            return SHAPE_SMALL;
        return inverse && log_n >= 17 ? SHAPE_LARGE : shape_16_per_thread(coeffs, word_bytes);
    }
}

/* Whether the first kernel of a call triggers the second at its start
 * (docs/tuning.md): always in the small shape (the two grids fit
 * the device side by side, and the second stages its twiddles meanwhile);
 * in the large shape only forward from 2^21 coefficients (the column
 * kernel's last wave then overlaps the row kernel's twiddle staging; below,
 * and for the inverse's row kernel, the early blocks crowd the first grid).
 * launch_first settles every case but the large forward one at compile time. */
template <class WT> bool early_trigger(const call_ctx<WT> &x, bool inverse)
{
    if (x.shape == SHAPE_SMALL)
        return true;
    return !inverse && (x.count << x.p->log_n) >= ((size_t)1 << 21);
}

/* Whether the second kernel of a call waits per limb (phase_body's SIGNAL
 * and WAIT) instead of for the whole first grid: large-shape inverse calls
 * above 8 MiB of words (2^20 64-bit or 2^21 32-bit coefficients), where the
 * column kernel's blocks start on the limbs whose rows are done while the
 * row kernel's last wave runs; on 32-bit words only up to 16 MiB, above
 * which the second kernel taking the limbs last first (fast_phase) is
 * faster. Every other case measured slower with it (docs/tuning.md). */
template <class WT> bool use_handoff(const call_ctx<WT> &x, bool inverse)
{
    const size_t bytes = (x.count << x.p->log_n) * sizeof(typename WT::W);
    return inverse && x.shape == SHAPE_LARGE && bytes > ((size_t)8 << 20) &&
           (WT::BITS == 64 || bytes <= ((size_t)16 << 20));
}

/* Launches phase (K, ROWS, S) over the call's limbs (a FIRST kernel reads
 * x.src, the second reads what the first wrote); a SECOND kernel always
 * with programmatic dependent launch (never slower than without: the blocks
 * of the second kernel only stage twiddles before they wait). */
template <bool INV, int LOGN, int K, bool ROWS, int S, bool FIRST, bool SECOND, bool EARLY,
          bool LAZY, bool HANDOFF, class WT, bool EPI = false>
nb_status launch_shape(const call_ctx<WT> &x)
{
    KernelList *d = x.describe;
    const char *plain = d ? d->suffix : nullptr;
    char named[32];
    if (EPI && d) { /* the kernel that ends in the epilogue says so */
        snprintf(named, sizeof named, "%s, sub-scale", plain ? plain : "");
        d->suffix = named;
    }
    const nb_status st = launch<FastPhase<LOGN, K, ROWS, S, INV, WT>, INV, SECOND, true, EPI>(
        fast_phase<INV, LOGN, K, ROWS, S, FIRST, SECOND, EARLY, LAZY, HANDOFF, EPI, WT>, x.p,
        x.data, FIRST ? x.src : x.data, x.first, x.count, x.s, x.configure,
        [](size_t, size_t) { return true; }, d, EPI ? x.epi : nullptr);
    if (d)
        d->suffix = plain;
    return st;
}

/* The first kernel of a call, with the trigger early_trigger chooses
 * (configure: every version the rule can choose); with HANDOFF always at
 * its start, where the second kernel's blocks may start on finished limbs. */
template <bool INV, int LOGN, int K, bool ROWS, int S, bool LAZY, bool HANDOFF, class WT>
nb_status launch_first(const call_ctx<WT> &x)
{
    /* above 2^22 coefficients a forward call always triggers early */
    constexpr bool ALWAYS = HANDOFF || S == SHAPE_SMALL || (S == SHAPE_HUGE && !INV);
    constexpr bool NEVER = !HANDOFF && S != SHAPE_SMALL && INV;
    if constexpr (ALWAYS || NEVER) {
        return launch_shape<INV, LOGN, K, ROWS, S, true, false, ALWAYS, LAZY, HANDOFF>(x);
    } else {
        if (x.configure || early_trigger(x, INV))
            NB_TRY((launch_shape<INV, LOGN, K, ROWS, S, true, false, true, LAZY, HANDOFF>(x)));
        if (!x.configure && early_trigger(x, INV))
            return NB_OK;
        return launch_shape<INV, LOGN, K, ROWS, S, true, false, false, LAZY, HANDOFF>(x);
    }
}

/* The second kernel of a call (EPI: with the fused epilogue); with HANDOFF,
 * if it cannot be launched after the first was, the counters of the call's
 * limbs are cleared again (the first kernel's arrivals would otherwise
 * satisfy a later call's wait). */
template <bool INV, int LOGN, int K, bool ROWS, int S, bool LAZY, bool HANDOFF, bool EPI = false,
          class WT>
nb_status launch_second(const call_ctx<WT> &x)
{
    nb_status st =
        launch_shape<INV, LOGN, K, ROWS, S, false, true, false, LAZY, HANDOFF, WT, EPI>(x);
    if (HANDOFF && st != NB_OK && !x.configure && !x.describe)
        (void)cudaMemsetAsync(x.p->sync_dev + 2 * x.first, 0, 2 * x.count * sizeof(unsigned),
                              x.s);
    return st;
}

/* One call in block shape S: forward columns then rows, inverse rows then
 * columns (LAZY: every prime below 2^61, fewer reductions; HANDOFF: the
 * second kernel waits per limb, inverse in the large shape only). */
template <int LOGN, int S> struct Size {
    static constexpr int K1 = shape_cols_log(LOGN, S), K2 = LOGN - K1;
    static constexpr bool CAN_HANDOFF = S == SHAPE_LARGE;
    template <bool LAZY, class WT> static nb_status forward(const call_ctx<WT> &x)
    {
        NB_TRY((launch_first<false, LOGN, K1, false, S, LAZY, false>(x)));
        if (x.configure)
            NB_TRY((launch_second<false, LOGN, K2, true, S, LAZY, false, true>(x)));
        if (!x.configure && x.fused)
            return launch_second<false, LOGN, K2, true, S, LAZY, false, true>(x);
        return launch_second<false, LOGN, K2, true, S, LAZY, false>(x);
    }
    template <bool LAZY, bool HANDOFF, class WT> static nb_status inverse(const call_ctx<WT> &x)
    {
        NB_TRY((launch_first<true, LOGN, K2, true, S, LAZY, HANDOFF>(x)));
        return launch_second<true, LOGN, K1, false, S, LAZY, HANDOFF>(x);
    }
    template <bool LAZY, class WT> static nb_status inverse_any(const call_ctx<WT> &x)
    {
        if constexpr (CAN_HANDOFF) {
            if (x.configure)
                NB_TRY((inverse<LAZY, true>(x)));
            if (!x.configure && x.handoff)
                return inverse<LAZY, true>(x);
        }
        return inverse<LAZY, false>(x);
    }
    template <bool LAZY, class WT> static nb_status run(const call_ctx<WT> &x, bool inv)
    {
        return inv ? inverse_any<LAZY>(x) : forward<LAZY>(x);
    }
};

/* A call of size 2^LOGN in shape S, if it is the call's (configure: always,
 * with and without LAZY). */
template <int LOGN, int S, class WT> nb_status run_shape(const call_ctx<WT> &x, bool inverse)
{
    typedef Size<LOGN, S> Z;
    if (!x.configure && x.shape != S)
        return NB_OK;
    if (x.configure)
        NB_TRY((Z::template run<true>(x, inverse)));
    return x.lazy ? Z::template run<true>(x, inverse) : Z::template run<false>(x, inverse);
}

/* A call of size 2^LOGN in the call's shape (configure: every shape). */
template <int LOGN, class WT> nb_status run_size(const call_ctx<WT> &x, bool inverse)
{
    NB_TRY((run_shape<LOGN, SHAPE_SMALL>(x, inverse)));
    NB_TRY((run_shape<LOGN, SHAPE_LARGE>(x, inverse)));
    return run_shape<LOGN, SHAPE_HUGE>(x, inverse);
}

template <class WT> nb_status dispatch(const call_ctx<WT> &x, bool inverse)
{
#define NB_FAST_CASE(LOGN)                                                                     \
    case LOGN:                                                                                 \
        return run_size<LOGN>(x, inverse);
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
        return nb_set_error(NB_ERR_UNSUPPORTED, "%s: log_n=%u outside [%d, %d]", fast_name<WT>(),
                            x.p->log_n, FAST_MIN_LOG_N, FAST_MAX_LOG_N);
    }
#undef NB_FAST_CASE
}

/* A plan (nb_regpass::plan_create). */
template <class WT> nb_status plan_create(void **out, const nb_ntt_tables *t, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    const unsigned otf_k = shape_otf(SHAPE_LARGE, true, WT::BITS) && t->log_n >= FAST_MIN_LOG_N
                               ? t->log_n - cols_log(t->log_n)
                               : 0;
    return nb_regpass::plan_create<WT>(out, t, cols_log(t->log_n), true, otf_k, fast_name<WT>(), s,
                                       [s](const PlanT<WT> *p) {
                                           call_ctx<WT> cfg = {};
                                           cfg.p = p;
                                           cfg.s = s;
                                           cfg.configure = true;
                                           NB_TRY(dispatch(cfg, false));
                                           return dispatch(cfg, true);
                                       });
}

/* The launch context of a call over limbs [first, first + count) of plan p
 * (data and src at limb `first`; describe non-NULL: list the kernels only). */
template <class WT>
call_ctx<WT> call_of(const PlanT<WT> *p, typename WT::W *data, const typename WT::W *src,
                     size_t first, size_t count, cudaStream_t s, bool inverse,
                     KernelList *describe)
{
    call_ctx<WT> x = {p, data, src, first, count, s, false,
                      call_shape<WT>(p->log_n, count, inverse),
                      plan_below_lazy(p, first, count), false, describe, false, nullptr};
    x.handoff = use_handoff(x, inverse);
    return x;
}

/* A call: src == data in place; otherwise the first kernel reads src (the
 * second then works in place on data), so out of place costs no copy. */
template <class WT>
nb_status run(void *plan, bool inverse, void *data, const void *src, size_t first, size_t count,
              void *stream)
{
    typedef typename WT::W W;
    NB_TRY(check_aligned(data, fast_name<WT>()));
    NB_TRY(check_aligned(src, fast_name<WT>()));
    return dispatch(call_of<WT>((const PlanT<WT> *)plan, (W *)data, (const W *)src, first, count,
                                (cudaStream_t)stream, inverse, nullptr),
                    inverse);
}

/* A forward call whose row kernel ends in the epilogue `e` (nb_ntt_sub_scale,
 * ntt/variant.h): the kernels and shape of the plain forward call. */
template <class WT>
nb_status forward_sub_scale(void *plan, void *data, const nb_ntt_sub_scale *e, size_t first,
                            size_t count, void *stream)
{
    typedef typename WT::W W;
    const char *name = fast_name<WT>();
    NB_TRY(check_aligned(data, name));
    for (int part = 0; part < (e->split < count ? 2 : 1); part++) {
        NB_TRY(check_aligned(e->out[part], name));
        NB_TRY(check_aligned(e->x[part], name));
    }
    const SubScaleArgs<W> a = {{(W *)e->out[0], (W *)e->out[1]},
                               {(const W *)e->x[0], (const W *)e->x[1]},
                               first,
                               e->split,
                               e->w,
                               e->w_shoup};
    call_ctx<WT> x = call_of<WT>((const PlanT<WT> *)plan, (W *)data, (const W *)data, first,
                                 count, (cudaStream_t)stream, false, nullptr);
    x.fused = true;
    x.epi = &a;
    return dispatch(x, false);
}

/* Lists into `list` the two kernels of the call over limbs [first,
 * first + count) as run() (fused: forward_sub_scale) launches it, the
 * per-limb hand-off, the fewer reductions of primes below the lazy bound,
 * the shape without L2 evict-first hints (most calls above 32 MiB) and the row kernel
 * that ends in the epilogue named. */
template <class WT>
nb_status describe_call(const PlanT<WT> *p, bool inverse, bool fused, size_t first, size_t count,
                        KernelList *list)
{
    static const char *const suffixes[8] = {"",
                                            ", lazy",
                                            ", hand-off",
                                            ", lazy, hand-off",
                                            ", no L2 hints",
                                            ", lazy, no L2 hints",
                                            ", hand-off, no L2 hints",
                                            ", lazy, hand-off, no L2 hints"};
    call_ctx<WT> x = call_of<WT>(p, nullptr, nullptr, first, count, nullptr, inverse, list);
    x.fused = fused;
    list->suffix =
        suffixes[(x.lazy ? 1 : 0) | (x.handoff ? 2 : 0) | (x.shape == SHAPE_HUGE ? 4 : 0)];
    return dispatch(x, inverse);
}

/* The kernels of a call (ntt/variant.h): the two kernels run() (inverse =
 * NB_NTT_KERNELS_SUB_SCALE: forward_sub_scale) would launch for this shape. */
template <class WT>
nb_status kernels(void *plan, int inverse, size_t first, size_t count, nb_ntt_kernel *out,
                  size_t max, size_t *n)
{
    KernelList list = {out, max, 0, nullptr};
    const bool fused = inverse == NB_NTT_KERNELS_SUB_SCALE;
    nb_status st = describe_call((const PlanT<WT> *)plan, inverse != 0 && !fused, fused, first,
                                 count, &list);
    *n = list.n;
    return st;
}

template <class WT>
nb_status forward(void *plan, void *data, size_t first, size_t count, void *stream)
{
    return run<WT>(plan, false, data, data, first, count, stream);
}

template <class WT>
nb_status inverse(void *plan, void *data, size_t first, size_t count, void *stream)
{
    return run<WT>(plan, true, data, data, first, count, stream);
}

template <class WT>
nb_status forward_to(void *plan, void *dst, const void *src, size_t first, size_t count,
                     void *stream)
{
    return run<WT>(plan, false, dst, src, first, count, stream);
}

template <class WT>
nb_status inverse_to(void *plan, void *dst, const void *src, size_t first, size_t count,
                     void *stream)
{
    return run<WT>(plan, true, dst, src, first, count, stream);
}

} // namespace

#endif

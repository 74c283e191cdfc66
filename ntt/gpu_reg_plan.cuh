/* The host side of the register-resident GPU NTT that gpu-regs (gpu_regs.cu)
 * and gpu-fast (gpu_fast.cuh) share: the plan (twiddle tables in the layouts
 * the phase kernels of ntt/gpu_reg_passes.cuh read, the per-limb constants,
 * which limbs have a prime below the word's lazy bound), its creation and
 * release, and the chunked launch of a phase kernel with or without
 * programmatic dependent launch; each a template on the word traits
 * (ntt/gpu_word.cuh), 64-bit by default. */
#ifndef NB_GPU_REG_PLAN_CUH
#define NB_GPU_REG_PLAN_CUH

#include "ntt/gpu_reg_passes.cuh"
#include "ntt/kernel_info.h"

namespace nb_regpass {

/* Where a describing call (a variant's `kernels` entry) lists the kernels
 * it would launch instead of launching them: up to max into out, n counts
 * them all; `suffix` is appended to every name (", lazy"). */
struct KernelList {
    nb_ntt_kernel *out;
    size_t max, n;
    const char *suffix;
};

/* A register variant's plan: k1 = log2 of the column transform size (0: a
 * single row kernel per limb, no column tables). */
template <class WT> struct PlanT {
    typedef typename WT::W W;
    size_t limbs;
    unsigned log_n, k1;
    W *fwd_rows, *inv_rows;                  /* [L*N] w_shoup */
    typename WT::Pair *fwd_cols, *inv_cols; /* [L << k1] {w, w_shoup} pairs */
    uint4 *fwd_otf, *inv_otf; /* [L << (otf_k-1)] product records (Phase's OTF), or NULL */
    typename WT::Limb *limbs_dev;
    bool pdl;     /* device >= sm_90: programmatic dependent launch */
    unsigned sms; /* multiprocessors of the device */
    size_t *wide_before; /* host, [L + 1]: limbs before l with a prime of at least
                            2^WT::LAZY_PRIME_BITS */
    unsigned *sync_dev;  /* [2 L], zero between calls: the per-limb hand-off (limb_wait);
                            NULL for a variant without it */
};
typedef PlanT<nb_word64> Plan;

/* Whether every prime of limbs [first, first + count) is below
 * 2^WT::LAZY_PRIME_BITS (the butterflies that reduce less often may run). */
template <class WT> inline bool plan_below_lazy(const PlanT<WT> *p, size_t first, size_t count)
{
    return p->wide_before[first + count] == p->wide_before[first];
}

/* Frees the plan's device tables and the plan; NULL does nothing. */
template <class WT = nb_word64> inline void plan_free(void *plan)
{
    PlanT<WT> *p = (PlanT<WT> *)plan;
    if (!p)
        return;
    cudaFree(p->fwd_rows);
    cudaFree(p->inv_rows);
    cudaFree(p->fwd_cols);
    cudaFree(p->inv_cols);
    cudaFree(p->fwd_otf);
    cudaFree(p->inv_otf);
    cudaFree(p->limbs_dev);
    cudaFree(p->sync_dev);
    free(p->wide_before);
    free(p);
}

/* Column twiddle pairs {w, w_shoup}: the first 2^k1 entries of every limb,
 * packed, in words of WT. */
template <class WT>
inline nb_status upload_cols(typename WT::Pair **dev, const nb_ntt_tables *t, const uint64_t *w,
                             const uint64_t *ws, unsigned k1, cudaStream_t s)
{
    typedef typename WT::W W;
    return nb_gpu_upload_built(dev, t->limbs << k1, s, [=](size_t i) {
        const size_t e = (i >> k1) * t->n + (i & (((size_t)1 << k1) - 1));
        typename WT::Pair p;
        p.x = nb_gpu_word_of<W>(w[e]);
        p.y = nb_gpu_shoup_of<W>(ws[e]);
        return p;
    });
}

/* The product records of OTF row phases of size 2^k (32-bit words): for
 * each limb, nb_shoup32_record of its first 2^(k-1) entries of `w`. */
inline nb_status upload_otf(uint4 **dev, const nb_ntt_tables *t, const uint64_t *w, unsigned k,
                            cudaStream_t s)
{
    return nb_gpu_upload_built(dev, t->limbs << (k - 1), s, [=](size_t i) {
        const size_t l = i >> (k - 1);
        uint32_t r[4];
        nb_shoup32_record((uint32_t)w[l * t->n + (i & (((size_t)1 << (k - 1)) - 1))],
                          (uint32_t)t->q[l], r);
        return make_uint4(r[0], r[1], r[2], r[3]);
    });
}

/* A variant's plan_create: *out = a plan for tables `t` with column phase
 * size k1 (0: none), its tables (with `handoff` the per-limb hand-off
 * counters, with otf_k > 0 the product records of OTF row phases of size
 * 2^otf_k, 32-bit words only) uploaded on `s` (synchronized), then
 * configure(plan) (raises the kernels' shared-memory limits). Fails with
 * NB_ERR_NO_DEVICE without a device; frees everything on failure. */
template <class WT = nb_word64, class CONFIGURE>
nb_status plan_create(void **out, const nb_ntt_tables *t, unsigned k1, bool handoff,
                      unsigned otf_k, const char *name, cudaStream_t s, CONFIGURE &&configure)
{
    typedef typename WT::W W;
    PlanT<WT> *p;
    NB_TRY(nb_gpu_plan_alloc((void **)&p, sizeof *p, name));
    p->limbs = t->limbs;
    p->log_n = t->log_n;
    p->k1 = k1;
    int dev = 0, major = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
        free(p);
        return nb_set_error(NB_ERR_CUDA, "%s: cannot query the device: %s", name,
                            cudaGetErrorString(cudaGetLastError()));
    }
    p->pdl = major >= 9;
    p->sms = (unsigned)sms;
    p->wide_before = (size_t *)malloc((t->limbs + 1) * sizeof *p->wide_before);
    if (!p->wide_before) {
        free(p);
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "%s: out of host memory", name);
    }
    p->wide_before[0] = 0;
    for (size_t l = 0; l < t->limbs; l++)
        p->wide_before[l + 1] = p->wide_before[l] + (t->q[l] >> WT::LAZY_PRIME_BITS != 0);
    const size_t count = t->limbs * t->n;
    nb_status st = nb_gpu_upload_built(&p->fwd_rows, count, s, [t](size_t i) {
        return nb_gpu_shoup_of<W>(t->fwd_shoup[i]);
    });
    if (st == NB_OK)
        st = nb_gpu_upload_built(&p->inv_rows, count, s, [t](size_t i) {
            return nb_gpu_shoup_of<W>(t->inv_shoup[i]);
        });
    if (st == NB_OK && k1)
        st = upload_cols<WT>(&p->fwd_cols, t, t->fwd, t->fwd_shoup, k1, s);
    if (st == NB_OK && k1)
        st = upload_cols<WT>(&p->inv_cols, t, t->inv, t->inv_shoup, k1, s);
    if (st == NB_OK && otf_k && WT::BITS == 32)
        st = upload_otf(&p->fwd_otf, t, t->fwd, otf_k, s);
    if (st == NB_OK && otf_k && WT::BITS == 32)
        st = upload_otf(&p->inv_otf, t, t->inv, otf_k, s);
    if (st == NB_OK && handoff)
        st = nb_gpu_upload((void **)&p->sync_dev, NULL, 2 * t->limbs * sizeof *p->sync_dev, s);
    if (st == NB_OK)
        st = nb_gpu_upload_limbs(&p->limbs_dev, t, s); /* synchronizes the stream */
    if (st == NB_OK)
        st = configure((const PlanT<WT> *)p);
    if (st != NB_OK) {
        plan_free<WT>(p);
        return st;
    }
    *out = p;
    return NB_OK;
}

/* NB_OK if `data` is 16-byte aligned (row phases move it with 16-byte loads). */
inline nb_status check_aligned(const void *data, const char *name)
{
    if ((uintptr_t)data & 15)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "%s: data must be 16-byte aligned (it is moved with 16-byte loads)",
                            name);
    return NB_OK;
}

/* Launches phase kernel `kern` of shape PH over limbs [first, first + count),
 * reading `src` and writing `data` (phase_body), in chunks of at most 65535
 * limbs (the grid's y limit); configure: only raise the kernel's
 * shared-memory limit; describe (non-NULL): only add the kernel to the list.
 * With PDL on the plan's device, a SECOND kernel gets the
 * programmatic-stream-serialization attribute when use_pdl(blocks of the
 * chunk's grid, chunk) says so, a first one when PDL_FIRST (it then waits in
 * phase_body for whatever kernel precedes the call). Every phase kernel takes
 * (data, src, tw, limbs, first, sync, otf, epi): the plan's hand-off counters
 * and the direction's product records, NULL where the plan has none, and the
 * fused epilogue (`epi`, its `first` the call's; zeros when NULL). EPI: the
 * kernel ends in that epilogue (its shared memory is PH::EPI_SMEM). */
template <class PH, bool INV, bool SECOND, bool PDL_FIRST = false, bool EPI = false, class KERN,
          class USE_PDL>
nb_status launch(KERN kern, const PlanT<typename PH::Word> *p, typename PH::W *data,
                 const typename PH::W *src, size_t first, size_t count, cudaStream_t s,
                 bool configure, USE_PDL &&use_pdl, KernelList *describe = nullptr,
                 const SubScaleArgs<typename PH::W> *epi = nullptr)
{
    constexpr size_t SMEM = EPI ? PH::EPI_SMEM : PH::SMEM;
    if (configure) {
        NB_CUDA_TRY(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)SMEM));
        return NB_OK;
    }
    if (describe) {
        const size_t i = describe->n++;
        if (i >= describe->max)
            return NB_OK;
        char name[64];
        snprintf(name, sizeof name, "%s 2^%d-point, %d/thread%s", PH::ROWS_ ? "rows" : "columns",
                 PH::K_, PH::RV, describe->suffix ? describe->suffix : "");
        return nb_ntt_kernel_describe(&describe->out[i], name, (const void *)kern, PH::THREADS,
                                      SMEM, (unsigned long long)(PH::NT / PH::TILE) * count,
                                      (unsigned)((count + 65534) / 65535));
    }
    const typename PH::TT *tw;
    if constexpr (PH::ROWS_)
        tw = INV ? p->inv_rows : p->fwd_rows;
    else
        tw = INV ? p->inv_cols : p->fwd_cols;
    const SubScaleArgs<typename PH::W> e = epi ? *epi : SubScaleArgs<typename PH::W>{};
    for (size_t done = 0; done < count; done += 65535) {
        const unsigned chunk = (unsigned)(count - done < 65535 ? count - done : 65535);
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(PH::NT / PH::TILE, chunk);
        cfg.blockDim = dim3(PH::THREADS);
        cfg.dynamicSmemBytes = SMEM;
        cfg.stream = s;
        cudaLaunchAttribute attr[1];
        const bool pdl = SECOND ? use_pdl((size_t)(PH::NT / PH::TILE) * chunk, (size_t)chunk)
                                : PDL_FIRST;
        if (p->pdl && pdl) {
            attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attr[0].val.programmaticStreamSerializationAllowed = 1;
            cfg.attrs = attr;
            cfg.numAttrs = 1;
        }
        NB_CUDA_TRY(cudaLaunchKernelEx(&cfg, kern, data + (done << PH::LOGN_),
                                       src + (done << PH::LOGN_), tw,
                                       (const typename PH::Word::Limb *)p->limbs_dev,
                                       first + done, p->sync_dev,
                                       (const uint4 *)(INV ? p->inv_otf : p->fwd_otf), e));
    }
    NB_CUDA_TRY(cudaGetLastError());
    return NB_OK;
}

} // namespace nb_regpass

#endif

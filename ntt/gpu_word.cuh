/* Word traits for the GPU NTT kernels: what a kernel templated on its word
 * size needs to know about 64-bit (nb_word64) or 32-bit (nb_word32) words,
 * in the manner of CUTLASS's element-typed templates. Each names the word,
 * the {w, w_shoup} twiddle pair, the 16-byte vector of words, the per-limb
 * constants, the shared-memory bank geometry, and maps the butterflies and
 * reductions of ntt/arith.h (nothing here re-implements them).
 *
 * Butterfly families, chosen per call by LAZY = "every prime of the call is
 * below 2^LAZY_PRIME_BITS":
 *   64-bit: LAZY (q < 2^61) the forward reduces every second stage (values in
 *           [0, 8q)) and the inverse only sums of sums ([0, 4q)); otherwise
 *           the Harvey butterflies ([0, 4q) forward, [0, 2q) inverse).
 *   32-bit: LAZY (q < 2^30) the Harvey butterflies ([0, 4q) forward, [0, 2q)
 *           inverse); otherwise the _q31 ones ([0, 2q) both ways), which
 *           serve every q < 2^31. */
#ifndef NB_GPU_WORD_CUH
#define NB_GPU_WORD_CUH

#include "ntt/gpu_common.cuh"

struct nb_word64 {
    typedef uint64_t W;
    typedef ulonglong2 Pair; /* {w, w_shoup} */
    typedef ulonglong2 Vec;  /* 16 bytes of words */
    typedef nb_gpu_limb Limb;
    static constexpr int BITS = 64;
    static constexpr int VEC_WORDS = 2;
    static constexpr int LOG_BANK_ROW = 4; /* log2 of the words in the 32 banks' 128 bytes */
    static constexpr unsigned LAZY_PRIME_BITS = NB_LAZY8_PRIME_BITS;

    static __device__ __forceinline__ W recover(W ws, W q) { return nb_shoup_recover(ws, q); }
    static __device__ __forceinline__ Pair pair(W w, W ws) { return make_ulonglong2(w, ws); }

    /* Forward butterfly; EVEN: the transform's stage is even (LAZY only). */
    template <bool LAZY, bool EVEN>
    static __device__ __forceinline__ void ct(W *x, W *y, W w, W ws, W q)
    {
        if constexpr (!LAZY)
            nb_ct_butterfly(x, y, w, ws, q);
        else if constexpr (EVEN)
            nb_ct_butterfly_6q(x, y, w, ws, q);
        else
            nb_ct_butterfly_8q(x, y, w, ws, q);
    }
    /* Inverse butterfly; PRODUCTS: both inputs are products of the previous
     * stage, below 2q (LAZY only). */
    template <bool LAZY, bool PRODUCTS>
    static __device__ __forceinline__ void gs(W *x, W *y, W w, W ws, W q)
    {
        if constexpr (!LAZY)
            nb_gs_butterfly(x, y, w, ws, q);
        else if constexpr (PRODUCTS)
            nb_gs_butterfly_2q(x, y, w, ws, q);
        else
            nb_gs_butterfly_4q(x, y, w, ws, q);
    }
    /* A forward output (the family's bound) -> [0, q). */
    template <bool LAZY> static __device__ __forceinline__ W fwd_final(W x, W q)
    {
        return LAZY ? nb_reduce_8q(x, q) : nb_reduce_4q(x, q);
    }
    /* The fused forward epilogue (nb_ntt_sub_scale): (x - t) w mod q in
     * [0, q) for x, t in [0, q), ws = floor(w 2^64 / q). */
    static __device__ __forceinline__ W sub_scale(W x, W t, W w, uint64_t ws, W q)
    {
        return nb_mul_shoup(nb_sub_mod(x, t, q), w, ws, q);
    }
    /* The last inverse stage with N^-1 folded in: u' = (u + x) ni,
     * x' = (u - x) lw (lw = inv[1] N^-1), inputs the family's inverse bound,
     * outputs in [0, q). */
    template <bool LAZY>
    static __device__ __forceinline__ void scale_top(W *u, W *x, W q, W ni, W nis, W lw, W lws)
    {
        const W two_q = q << (LAZY ? 2 : 1); /* at least the inputs' bound */
        const W a = *u, b = *x;
        *u = nb_mul_shoup(a + b, ni, nis, q);
        *x = nb_mul_shoup(a - b + two_q, lw, lws, q);
    }
};

struct nb_word32 {
    typedef uint32_t W;
    typedef uint2 Pair;
    typedef uint4 Vec;
    typedef nb_gpu_limb32 Limb;
    static constexpr int BITS = 32;
    static constexpr int VEC_WORDS = 4;
    static constexpr int LOG_BANK_ROW = 5;
    static constexpr unsigned LAZY_PRIME_BITS = NB_LAZY4_PRIME_BITS_32;

    static __device__ __forceinline__ W recover(W ws, W q) { return nb_shoup32_recover(ws, q); }
    static __device__ __forceinline__ Pair pair(W w, W ws) { return make_uint2(w, ws); }

    template <bool LAZY, bool EVEN>
    static __device__ __forceinline__ void ct(W *x, W *y, W w, W ws, W q)
    {
        if constexpr (LAZY)
            nb_ct_butterfly32(x, y, w, ws, q);
        else
            nb_ct_butterfly32_q31(x, y, w, ws, q);
    }
    template <bool LAZY, bool PRODUCTS>
    static __device__ __forceinline__ void gs(W *x, W *y, W w, W ws, W q)
    {
        if constexpr (LAZY)
            nb_gs_butterfly32(x, y, w, ws, q);
        else
            nb_gs_butterfly32_q31(x, y, w, ws, q);
    }
    /* ct and gs with the twiddle a c mod q applied as two Shoup products
     * (nb_ct_butterfly32_ac and kin; the OTF row stages whose twiddles
     * serve one or two butterflies of a thread). */
    template <bool LAZY>
    static __device__ __forceinline__ void ct_ac(W *x, W *y, W a, W as, W c, W cs, W q)
    {
        if constexpr (LAZY)
            nb_ct_butterfly32_ac(x, y, a, as, c, cs, q);
        else
            nb_ct_butterfly32_q31_ac(x, y, a, as, c, cs, q);
    }
    template <bool LAZY>
    static __device__ __forceinline__ void gs_ac(W *x, W *y, W a, W as, W c, W cs, W q)
    {
        if constexpr (LAZY)
            nb_gs_butterfly32_ac(x, y, a, as, c, cs, q);
        else
            nb_gs_butterfly32_q31_ac(x, y, a, as, c, cs, q);
    }
    template <bool LAZY> static __device__ __forceinline__ W fwd_final(W x, W q)
    {
        return LAZY ? nb_reduce32_4q(x, q) : nb_reduce32_2q(x, q);
    }
    static __device__ __forceinline__ W sub_scale(W x, W t, W w, uint64_t ws, W q)
    {
        return nb_mul_shoup32(nb_csub32(x + q - t, q), w, nb_shoup32_from64(ws), q);
    }
    /* Inputs in [0, 2q) (both families): with q < 2^30 the sum and the
     * difference plus 2q stay below 2^32; with q < 2^31 they are formed from
     * values reduced below q first. */
    template <bool LAZY>
    static __device__ __forceinline__ void scale_top(W *u, W *x, W q, W ni, W nis, W lw, W lws)
    {
        const W a = LAZY ? *u : nb_reduce32_2q(*u, q), b = LAZY ? *x : nb_reduce32_2q(*x, q);
        *u = nb_mul_shoup32(a + b, ni, nis, q);
        *x = nb_mul_shoup32(a - b + (LAZY ? q << 1 : q), lw, lws, q);
    }
};

/* Word-size dispatch of the global/shared moves the kernels make. */
template <class WT, bool EVICT_FIRST>
static __device__ __forceinline__ typename WT::W nb_gpu_ld_word(const typename WT::W *p)
{
    if constexpr (WT::BITS == 64)
        return nb_gpu_ld<EVICT_FIRST>(p);
    else if constexpr (EVICT_FIRST)
        return __ldcs(p);
    else
        return *p;
}
template <class WT, bool EVICT_FIRST>
static __device__ __forceinline__ typename WT::Vec nb_gpu_ld_vec(const typename WT::W *p)
{
    if constexpr (WT::BITS == 64)
        return nb_gpu_ld2<EVICT_FIRST>(p);
    else if constexpr (EVICT_FIRST)
        return __ldcs(reinterpret_cast<const uint4 *>(p));
    else
        return *reinterpret_cast<const uint4 *>(p);
}
/* Stores the 16-byte vector v at p (16-byte aligned). On 32-bit words as
 * one vector store: nvcc splits a uint4 store assembled from four words
 * into four word stores, four times the store instructions of an
 * issue-bound row kernel. 64-bit words keep nvcc's two 8-byte stores, which
 * measured as fast or faster (docs/tuning.md, "The fused epilogue's x in
 * shared memory, and the row kernels' vector stores"). */
template <class WT>
static __device__ __forceinline__ void nb_gpu_st_vec(typename WT::W *p, const typename WT::Vec &v)
{
    if constexpr (WT::BITS == 64)
        *reinterpret_cast<ulonglong2 *>(p) = v;
    else /* no memory clobber: the calling kernel reads no stored vector back */
        asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "r"(v.x), "r"(v.y),
                     "r"(v.z), "r"(v.w));
}
/* cp.async of one word (row twiddles) and of one pair (column twiddles). */
template <class WT, bool EVICT_FIRST>
static __device__ __forceinline__ void nb_gpu_cp_async_word(void *smem_dst, const void *src)
{
    nb_gpu_cp_async_ca<(int)sizeof(typename WT::W), EVICT_FIRST>(smem_dst, src);
}
template <class WT>
static __device__ __forceinline__ void nb_gpu_cp_async_pair(void *smem_dst, const void *src)
{
    if constexpr (WT::BITS == 64)
        nb_gpu_cp_async16(smem_dst, src);
    else
        nb_gpu_cp_async8(smem_dst, src);
}

#endif

/* Internal to ckks/: the one-GPU (or CPU) pipeline object, shared by
 * pipeline_create.c (creation, the extra NTT plans, the scratch layout) and
 * pipeline.c (the stage pipelines). */
#ifndef NB_CKKS_PIPELINE_H
#define NB_CKKS_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "ckks/consts.h"

struct nb_ckks {
    const nb_ckks_params *p;
    const nb_ckks_consts *k;
    nb_backend backend;
    nb_ntt *ntt;            /* over q_0..q_L, p_0..p_(alpha-1) */
    nb_ntt *ntt_pp, *ntt_qq; /* p_0..p_(alpha-1) twice, q_0..q_L twice: the key
                                switch's two modDowns as one call per NTT step */
    nb_ntt *ntt_ext;        /* top level, digit after digit: the primes each digit's
                               modUp extends to (the key switch's packed layout);
                               NULL with many digits (create_extra_plans) */
    nb_buffer *dconsts;     /* GPU: device copy of the constants blob */
    const uint64_t *base;   /* the blob in the backend's memory */
    unsigned word_bits;     /* the variant's: 64 or 32 */
    size_t limb_bytes;      /* N words */
    nb_buffer *scratch;
    void *s_coeff;          /* L+1 limbs: the digits in coefficient form (modUp) */
    void *s_ext;            /* dnum * (L+1+alpha) limbs: modUp outputs (key switch) */
    void *s_acc0, *s_acc1;  /* L+1+alpha limbs each: inner-product outputs */
    void *s_p;              /* max(alpha, 2) limbs: P part in coefficient form (modDown),
                               the dropped limbs (rescale) */
    void *s_t;              /* 2(L+1) limbs: converted limbs (modDown, rescale; key
                               switch: both polynomials) */
};

/* p advanced by `limbs` limbs of N words. */
static inline void *nb_ckks_at(const nb_ckks *c, const void *p, size_t limbs)
{
    return (char *)(uintptr_t)p + limbs * c->limb_bytes;
}

#endif

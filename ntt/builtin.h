/* Internal: the list of variants compiled into the library. Each variant's
 * source file defines its nb_ntt_variant; builtin.c lists them. */
#ifndef NB_BUILTIN_H
#define NB_BUILTIN_H

#include "ntt/variant.h"

#ifdef __cplusplus
extern "C" {
#endif

/* i-th built-in variant, or NULL past the end. */
const nb_ntt_variant *nb_builtin_variant(size_t i);

/* 1 when name is that of a GPU built-in, whether or not this build has CUDA
 * (a build without it registers none), else 0. */
int nb_builtin_is_gpu_name(const char *name);

extern const nb_ntt_variant nb_variant_cpu_harvey;
extern const nb_ntt_variant nb_variant_cpu_harvey32;
extern const nb_ntt_variant nb_variant_cpu_harvey32_scalar;
#ifdef NB_HAVE_CUDA
extern const nb_ntt_variant nb_variant_gpu_radix2;
extern const nb_ntt_variant nb_variant_gpu_radix2_32;
extern const nb_ntt_variant nb_variant_gpu_smem;
extern const nb_ntt_variant nb_variant_gpu_regs;
extern const nb_ntt_variant nb_variant_gpu_fast;
extern const nb_ntt_variant nb_variant_gpu_fast32;
#endif

#ifdef __cplusplus
}
#endif
#endif

/* The built-in variant list (one line per variant). */
#include "ntt/builtin.h"

static const nb_ntt_variant *const builtins[] = {
    &nb_variant_cpu_harvey,
    &nb_variant_cpu_harvey32,
    &nb_variant_cpu_harvey32_scalar,
#ifdef NB_HAVE_CUDA
    &nb_variant_gpu_radix2,
    &nb_variant_gpu_radix2_32,
    &nb_variant_gpu_smem,
    &nb_variant_gpu_regs,
    &nb_variant_gpu_fast,
    &nb_variant_gpu_fast32,
#endif
};

const nb_ntt_variant *nb_builtin_variant(size_t i)
{
    return i < sizeof builtins / sizeof builtins[0] ? builtins[i] : NULL;
}

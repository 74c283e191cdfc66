/* The built-in variant list (one line per variant). */
#include <string.h>

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

/* Listed whether or not this build has CUDA, so that a build without it can
 * tell a GPU variant it lacks from a misspelt name. */
static const char *const gpu_names[] = {"gpu-radix2", "gpu-radix2-32", "gpu-smem",
                                        "gpu-regs",   "gpu-fast",      "gpu-fast32"};

int nb_builtin_is_gpu_name(const char *name)
{
    for (size_t i = 0; name && i < sizeof gpu_names / sizeof gpu_names[0]; i++)
        if (!strcmp(name, gpu_names[i]))
            return 1;
    return 0;
}

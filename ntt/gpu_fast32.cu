/* gpu-fast32, the register-resident two-kernel GPU NTT on 32-bit words
 * (primes below 2^31): the variant record over ntt/gpu_fast.cuh's templates
 * instantiated on nb_word32 (the design and the shape rules are that
 * header's). */
#include "ntt/gpu_fast.cuh"

extern "C" const nb_ntt_variant nb_variant_gpu_fast32 = {
    /* .name = */ NB_GPU_FAST32_NAME,
    /* .description = */ "gpu-fast on 32-bit words (primes < 2^31): its kernels and launches, "
                         "but 4 coefficients/thread only for N*L < 2^19 (2^18 from log N 14) "
                         "and 16 columns in 256-thread blocks for the 16-per-thread column "
                         "kernels; every prime "
                         "below 2^30: Harvey butterflies, else the _q31 family; row twiddles "
                         "as 32-bit w_shoup, columns as {w, w_shoup}; the 16-per-thread row "
                         "kernels form each thread's twiddles as products of a per-row factor "
                         "and one of the limb's first 2^(k-1) entries; L2 evict-first loads "
                         "up to 2^23 (inverse calls at log N 17: at every size); large inverse "
                         "calls of 8 to 16 MiB: the second kernel starts each limb once the "
                         "first has finished it, other large calls: the second kernel takes "
                         "the limbs last first",
    /* .backend = */ NB_BACKEND_GPU,
    /* .min_log_n = */ FAST_MIN_LOG_N,
    /* .max_log_n = */ FAST_MAX_LOG_N,
    /* .word_bits = */ 32,
    /* .max_prime_bits = */ NB_MAX_PRIME_BITS_32,
    /* .plan_create = */ plan_create<nb_word32>,
    /* .plan_destroy = */ plan_free<nb_word32>,
    /* .forward = */ forward<nb_word32>,
    /* .inverse = */ inverse<nb_word32>,
    /* .forward_to = */ forward_to<nb_word32>,
    /* .inverse_to = */ inverse_to<nb_word32>,
    /* .kernels = */ kernels<nb_word32>,
    /* .forward_sub_scale = */ forward_sub_scale<nb_word32>,
};

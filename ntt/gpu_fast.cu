/* gpu-fast, the register-resident two-kernel GPU NTT on 64-bit words: the
 * variant record over ntt/gpu_fast.cuh's templates instantiated on
 * nb_word64 (the design and the shape rules are that header's). */
#include "ntt/gpu_fast.cuh"

extern "C" const nb_ntt_variant nb_variant_gpu_fast = {
    /* .name = */ NB_GPU_FAST_NAME,
    /* .description = */ "GPU register NTT, shape per call: column + row kernels with PDL; "
                         "N*L <= 2^18 (forward 2^19; 2^20 at log N <= 14, forward 15): "
                         "4 coefficients/thread, "
                         "2^(logN/2-1)-point columns at log N >= 16; larger: 16, with L2 "
                         "evict-first loads up to 2^22; 128-thread blocks; every prime below "
                         "2^61: fewer reductions (forward every second stage, inverse only sums "
                         "of sums); large inverse calls above 8 MiB: the second kernel "
                         "starts each limb once the first has finished it, other large calls: "
                         "the second kernel takes the limbs last first",
    /* .backend = */ NB_BACKEND_GPU,
    /* .min_log_n = */ FAST_MIN_LOG_N,
    /* .max_log_n = */ FAST_MAX_LOG_N,
    /* .word_bits = */ 64,
    /* .max_prime_bits = */ NB_MAX_PRIME_BITS,
    /* .plan_create = */ plan_create<nb_word64>,
    /* .plan_destroy = */ plan_free<nb_word64>,
    /* .forward = */ forward<nb_word64>,
    /* .inverse = */ inverse<nb_word64>,
    /* .forward_to = */ forward_to<nb_word64>,
    /* .inverse_to = */ inverse_to<nb_word64>,
    /* .kernels = */ kernels<nb_word64>,
    /* .forward_sub_scale = */ forward_sub_scale<nb_word64>,
};


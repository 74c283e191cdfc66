/* A renamed build of gpu-fast with 8 coefficients per thread in 64-thread blocks in every call, for the tuning plug-in
 * (scripts/tune/gpu_fast_tune.cu). */
#define NB_GPU_FAST_NAME "fast-r3"
#define NB_GPU_FAST_SYMBOL tune_variant_fast_r3
#define NB_GPU_FAST_FORCE_TILE 3
#include "ntt/gpu_fast.cu"

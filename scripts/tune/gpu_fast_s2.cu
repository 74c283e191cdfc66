/* A renamed build of gpu-fast with 16 coefficients per thread in 256-thread blocks in every call, for the tuning plug-in
 * (scripts/tune/gpu_fast_tune.cu). */
#define NB_GPU_FAST_NAME "fast-s2"
#define NB_GPU_FAST_SYMBOL tune_variant_fast_s2
#define NB_GPU_FAST_FORCE_TILE 2
#include "ntt/gpu_fast.cu"

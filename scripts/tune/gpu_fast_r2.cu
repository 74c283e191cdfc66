/* A renamed build of gpu-fast with 4 coefficients per thread in 128-thread blocks in every call, for the tuning plug-in
 * (scripts/tune/gpu_fast_tune.cu). */
#define NB_GPU_FAST_NAME "fast-r2"
#define NB_GPU_FAST_SYMBOL tune_variant_fast_r2
#define NB_GPU_FAST_FORCE_TILE 4
#include "ntt/gpu_fast.cu"

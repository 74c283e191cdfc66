/* A renamed build of gpu-fast with 16 coefficients per thread in 128-thread
 * blocks in every call and a register budget for 1024 threads per SM, for
 * the tuning plug-in (scripts/tune/gpu_fast_tune.cu). */
#define NB_GPU_FAST_NAME "fast-s1o"
#define NB_GPU_FAST_SYMBOL tune_variant_fast_s1o
#define NB_GPU_FAST_FORCE_TILE 1
#define FAST_SM_THREADS 1024
#include "ntt/gpu_fast.cu"

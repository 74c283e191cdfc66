/* A renamed build of gpu-fast with no programmatic dependent launch, for the tuning plug-in
 * (scripts/tune/gpu_fast_tune.cu). */
#define NB_GPU_FAST_NAME "fast-nopdl"
#define NB_GPU_FAST_SYMBOL tune_variant_fast_nopdl
#define NB_GPU_FAST_PDL 0
#include "ntt/gpu_fast.cu"

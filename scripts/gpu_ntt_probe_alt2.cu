/* gpu_ntt_probe_alt2: a renamed copy of gpu-regs without programmatic
 * dependent launch, so the tuning probe can measure what PDL buys. */
#define NB_GPU_REGS_PDL 0
#define NB_GPU_REGS_NAME "gpu-regs-nopdl"
#define NB_GPU_REGS_SYMBOL probe_variant_gpu_regs_nopdl
#include "ntt/gpu_regs.cu"

/* gpu_ntt_probe_alt3: a renamed copy of gpu-regs with a 64-register budget
 * (1024 resident threads per SM instead of 768), for the tuning probe. */
#define NB_GPU_REGS_SM_THREADS 1024
#define NB_GPU_REGS_NAME "gpu-regs-r64"
#define NB_GPU_REGS_SYMBOL probe_variant_gpu_regs_r64
#include "ntt/gpu_regs.cu"

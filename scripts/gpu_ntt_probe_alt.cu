/* gpu_ntt_probe_alt: a renamed copy of gpu-regs built with its alternative
 * row-twiddle storage ({w, w_shoup} pairs instead of w_shoup only), so the
 * tuning probe (gpu_ntt_probe.cu) can compare the two on the same run. */
#define NB_GPU_REGS_TWIDDLE 0
#define NB_GPU_REGS_NAME "gpu-regs-alt"
#define NB_GPU_REGS_SYMBOL probe_variant_gpu_regs_alt
#include "ntt/gpu_regs.cu"

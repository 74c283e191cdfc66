// Internal to ckks/: what the files of the 32-bit base conversion share
// (gpu_conv32.cu, the CUDA-core kernels and the entry point; gpu_conv32_mma.cu,
// the tensor-core kernel; gpu_conv32_resident.cu, the persistent kernels'
// resident-block counts). Included by those .cu files only.
#ifndef NB_CKKS_GPU_CONV32_CUH
#define NB_CKKS_GPU_CONV32_CUH

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "ckks/consts.h"
#include "ntt/arith.h"

#define CONV32_DEFAULT_SMEM (48 * 1024) /* dynamic shared memory without opting in */
#define CONV32_SMEM_CAP (96 * 1024)     /* the most a conversion kernel opts in to  */

/* (carry 2^32 + sum) mod b for carry < 2^38, sum < 2^32, b < 2^31 odd, with
 * r32 = 2^32 mod b, r64 = 2^64 mod b, r32s = floor(r32 2^32 / b) and ones =
 * floor(2^32 / b): X = [carry]_32 r32 + (carry >> 32) r64 + sum < 2^63 +
 * 2^37 + 2^32 is congruent to it, and X = xh 2^32 + xl reduces as
 * [xh r32]_b + [xl]_b with two 32-bit Shoup products. Result in [0, b). */
static __device__ __forceinline__ uint32_t nb_conv32_reduce(uint64_t carry, uint64_t sum,
                                                            uint32_t b, uint32_t r32,
                                                            uint32_t r64, uint32_t r32s,
                                                            uint32_t ones)
{
    const uint64_t x = (uint64_t)(uint32_t)carry * r32 + (carry >> 32) * r64 + sum;
    const uint32_t a = nb_csub32(nb_mul_shoup32_lazy((uint32_t)(x >> 32), r32, r32s, b), b);
    const uint32_t c = nb_csub32(nb_mul_shoup32_lazy((uint32_t)x, 1, ones, b), b);
    return nb_csub32(a + c, b);
}

/* *blocks = SMs x resident blocks per SM of the persistent kernel `func`
 * launched with `threads` threads and `smem` bytes of dynamic shared memory
 * (up to CONV32_SMEM_CAP, opted in when above the default) on the current
 * device; 0 when the device code built for it is older than min_arch (e.g.
 * 80 for sm_80). Queried once per (kernel, device, threads, smem); host
 * call, thread-safe. */
nb_status nb_conv32_resident(const void *func, unsigned threads, size_t smem, int min_arch,
                             unsigned *blocks);

/* The tensor-core conversion of v on io (32-bit words, n coefficients per
 * limb) when its conditions hold: *launched is set to whether it was
 * launched on `stream`. An error (a failed query or launch) is returned
 * with its message; nothing is launched then. */
nb_status nb_gpu_conv32_mma(const nb_conv_view *v, const nb_polys *io, size_t n,
                            cudaStream_t stream, bool *launched);

#endif

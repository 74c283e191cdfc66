// Internal to ckks/: the one reduction of an exact 32-bit conversion sum,
// shared by the 32-bit conversion kernels (gpu_conv32.cu and its candidates
// in gpu_conv32_cand.cu) so that every kernel returns the same words.
#ifndef NB_CKKS_GPU_CONV32_CUH
#define NB_CKKS_GPU_CONV32_CUH

#include <stdint.h>

#include "ntt/arith.h"

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

#endif

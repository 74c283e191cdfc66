/* Kernels whose resources are known by construction, for
 * test_gpu_resources.c, built as a shared module it loads: "known" has 4096
 * bytes of static shared memory and a 64-word local array indexed by a value
 * read at run time, which cannot live in registers (at least 512 bytes of
 * local memory per thread); "spills" is held to 32 registers per thread by
 * its launch bounds (1024 threads, 2 blocks per SM) while it keeps 48 64-bit
 * values live, so it spills. Both are described, and queried directly, in
 * this file: the module's CUDA runtime registered them, as a plug-in's
 * does. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "ntt/kernel_info.h"

#define KNOWN_SMEM_WORDS 512
#define KNOWN_LOCAL_WORDS 64
#define SPILL_LIVE 48

__global__ void __launch_bounds__(128) known(uint64_t *out, const uint32_t *idx)
{
    __shared__ uint64_t tile[KNOWN_SMEM_WORDS];
    uint64_t local[KNOWN_LOCAL_WORDS];
    for (int i = 0; i < KNOWN_LOCAL_WORDS; i++)
        local[i] = out[i] * (uint64_t)(i + threadIdx.x + 1);
    for (int i = threadIdx.x; i < KNOWN_SMEM_WORDS; i += blockDim.x)
        tile[i] = local[idx[i] % KNOWN_LOCAL_WORDS];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x * 7) % KNOWN_SMEM_WORDS];
}

__global__ void __launch_bounds__(1024, 2) spills(uint64_t *out, const uint64_t *in, int rounds)
{
    uint64_t v[SPILL_LIVE];
#pragma unroll
    for (int i = 0; i < SPILL_LIVE; i++)
        v[i] = in[(threadIdx.x + i) & 1023];
    for (int r = 0; r < rounds; r++) {
#pragma unroll
        for (int i = 0; i < SPILL_LIVE; i++)
            v[i] = v[i] * v[(i + 1) % SPILL_LIVE] + v[(i + 7) % SPILL_LIVE];
    }
    uint64_t s = 0;
#pragma unroll
    for (int i = 0; i < SPILL_LIVE; i++)
        s ^= v[i] << (i % 64);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

extern "C" const size_t nb_test_known_smem_bytes = KNOWN_SMEM_WORDS * sizeof(uint64_t);
extern "C" const size_t nb_test_known_local_bytes = KNOWN_LOCAL_WORDS * sizeof(uint64_t);

/* which: 0 known, 1 spills. */
static const void *kernel(int which)
{
    return which ? (const void *)spills : (const void *)known;
}

/* nb_ntt_kernel_describe of kernel `which` at `block` threads and
 * `dyn_smem` bytes of dynamic shared memory (raised for it first). */
extern "C" nb_status nb_test_describe(int which, unsigned block, size_t dyn_smem,
                                      nb_ntt_kernel *out)
{
    NB_CUDA_TRY(cudaFuncSetAttribute(kernel(which), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)dyn_smem));
    return nb_ntt_kernel_describe(out, which ? "spills" : "known", kernel(which), block, dyn_smem,
                                  1, 1);
}

/* The runtime's own answers, for comparison. */
extern "C" nb_status nb_test_query(int which, unsigned block, size_t dyn_smem, int *regs,
                                   size_t *local_bytes, size_t *smem_static, int *per_sm)
{
    struct cudaFuncAttributes a;
    NB_CUDA_TRY(cudaFuncGetAttributes(&a, kernel(which)));
    NB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, kernel(which), (int)block,
                                                              dyn_smem));
    *regs = a.numRegs;
    *local_bytes = a.localSizeBytes;
    *smem_static = a.sharedSizeBytes;
    return NB_OK;
}

/* nb_ntt_kernel_describe of a pointer that is no kernel (the runtime refuses
 * it), then the runtime's last error: *last_error is cudaSuccess when the
 * failed description cleared it. */
extern "C" nb_status nb_test_describe_no_kernel(nb_ntt_kernel *out, int *last_error)
{
    const nb_status s = nb_ntt_kernel_describe(out, "not a kernel",
                                               (const void *)&nb_test_known_local_bytes, 128, 0,
                                               1, 1);
    *last_error = (int)cudaGetLastError();
    return s;
}

/* The resident-block count of the 32-bit conversion's persistent kernels
 * (nb_conv32_resident, ckks/gpu_conv32.cuh), cached per kernel, device and
 * launch shape. */
#include <atomic>
#include <mutex>

#include <cuda_runtime_api.h>

#include "ckks/gpu_conv32.cuh"
#include "core/cuda_check.h"

#define CONV32_OCC_SLOTS 256 /* occupancies kept (kernel, device, block, shared memory) */

namespace {

/* Blocks of a persistent kernel resident at once on a device for a block
 * size and shared memory, queried once per (kernel, device ordinal, threads,
 * smem): slots below occ_used are complete and never change; they are
 * appended under occ_mutex. Past CONV32_OCC_SLOTS a shape is queried on
 * every call. */
struct occ_slot {
    const void *func;
    int dev;
    unsigned threads, blocks;
    size_t smem;
};
occ_slot occ_slots[CONV32_OCC_SLOTS];
std::atomic<unsigned> occ_used{0};
std::mutex occ_mutex;

bool occ_find(unsigned used, const void *func, int dev, unsigned threads, size_t smem,
              unsigned *blocks)
{
    for (unsigned k = 0; k < used; k++)
        if (occ_slots[k].func == func && occ_slots[k].dev == dev &&
            occ_slots[k].threads == threads && occ_slots[k].smem == smem) {
            *blocks = occ_slots[k].blocks;
            return true;
        }
    return false;
}

} // namespace

nb_status nb_conv32_resident(const void *func, unsigned threads, size_t smem, int min_arch,
                             unsigned *blocks)
{
    int dev = 0;
    NB_CUDA_TRY(cudaGetDevice(&dev));
    if (occ_find(occ_used.load(std::memory_order_acquire), func, dev, threads, smem, blocks))
        return NB_OK;
    std::lock_guard<std::mutex> lock(occ_mutex);
    const unsigned used = occ_used.load(std::memory_order_relaxed);
    if (occ_find(used, func, dev, threads, smem, blocks))
        return NB_OK;
    cudaFuncAttributes fa;
    NB_CUDA_TRY(cudaFuncGetAttributes(&fa, func));
    *blocks = 0;
    if (fa.binaryVersion >= min_arch) {
        if (smem > CONV32_DEFAULT_SMEM) /* one value for every shape: never lowered */
            NB_CUDA_TRY(cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             CONV32_SMEM_CAP));
        int sms = 0, per_sm = 0;
        NB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        NB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, (int)threads,
                                                                  smem));
        *blocks = (unsigned)(sms * per_sm);
    }
    if (used < CONV32_OCC_SLOTS) {
        occ_slots[used] = occ_slot{func, dev, threads, *blocks, smem};
        occ_used.store(used + 1, std::memory_order_release);
    }
    return NB_OK;
}

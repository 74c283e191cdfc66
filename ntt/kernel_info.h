/* What the device says of a GPU variant's kernel: registers, local memory
 * (where spills go), static shared memory, and the theoretical occupancy at
 * the block size and dynamic shared memory it is launched with. A variant's
 * `kernels` entry (ntt/variant.h) fills one nb_ntt_kernel per kernel with
 * nb_ntt_kernel_describe. It is inline on purpose: it must run in the CUDA
 * runtime that registered the kernel, and a plug-in linked with its own
 * static runtime is not the library's, which would not know its kernels.
 * Include it from the .cu file that holds the kernels. */
#ifndef NB_KERNEL_INFO_H
#define NB_KERNEL_INFO_H

#include <stdio.h>
#include <string.h>

#include "core/cuda_check.h"
#include "ntt/variant.h"

/* Fills *k for kernel `func` (its host function, e.g. `(const void *)my_kernel`)
 * launched `launches` times in a call, with `blocks` blocks over those
 * launches together, `block_threads` threads per block and `smem_dynamic`
 * bytes of dynamic shared memory: the name (cut to fit), the launch shape,
 * cudaFuncGetAttributes's registers, local and static shared memory, and
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor on the current device with
 * the occupancy it gives (resident warps over the SM's limit). A kernel
 * needing more than 48 KiB of dynamic shared memory must have had its limit
 * raised (cudaFuncSetAttribute) first, as for its launch. NB_ERR_CUDA
 * (message) when the runtime does not know `func` or the query fails; the
 * runtime's last error is then cleared, so that a later launch's check does
 * not report it. */
static inline nb_status nb_ntt_kernel_describe(nb_ntt_kernel *k, const char *name,
                                               const void *func, unsigned block_threads,
                                               size_t smem_dynamic, unsigned long long blocks,
                                               unsigned launches)
{
    struct cudaFuncAttributes a;
    int dev = 0, sm_threads = 0, per_sm = 0;
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", name ? name : "");
    k->block_threads = block_threads;
    k->launches = launches;
    k->blocks = blocks;
    k->smem_dynamic = smem_dynamic;
    cudaError_t e = cudaFuncGetAttributes(&a, func);
    if (e == cudaSuccess)
        e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sm_threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, (int)block_threads,
                                                          smem_dynamic);
    if (e != cudaSuccess) {
        (void)cudaGetLastError(); /* a query's error is not a later launch's */
        return nb_set_error(nb_cuda_status(e), "describing kernel '%s': %s", k->name,
                            cudaGetErrorString(e));
    }
    k->regs = a.numRegs;
    k->local_bytes = a.localSizeBytes;
    k->smem_static = a.sharedSizeBytes;
    k->blocks_per_sm = per_sm;
    const double warps = (double)((block_threads + 31) / 32), sm_warps = sm_threads / 32;
    k->occupancy = sm_warps > 0 ? per_sm * warps / sm_warps : 0.0;
    if (k->occupancy > 1.0)
        k->occupancy = 1.0;
    return NB_OK;
}

#endif

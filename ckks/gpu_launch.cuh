// Internal to ckks/: launching the pipelines' kernels with programmatic
// dependent launch where the device has it (sm_90 and later): a kernel lets
// its successor be scheduled once all its own blocks have started and waits
// for its predecessor's results before reading them. Included by the .cu
// files of ckks/ only.
#ifndef NB_CKKS_GPU_LAUNCH_CUH
#define NB_CKKS_GPU_LAUNCH_CUH

#include <atomic>
#include <cxxabi.h>
#include <stdlib.h>
#include <utility>

#include <cuda_runtime_api.h>

#include "core/cuda_check.h"
#include "ntt/kernel_info.h"
#include "ntt/kernel_log.h"

#define PDL_MAX_DEVICES 64 /* devices whose launch capability is remembered */

/* Whether the current device has programmatic dependent launch (sm_90 and
 * later), remembered per device (0 unknown, 1 no, 2 yes). */
static std::atomic<int> pdl_known[PDL_MAX_DEVICES];

static bool pdl_supported()
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= PDL_MAX_DEVICES) {
        (void)cudaGetLastError();
        return false;
    }
    int v = pdl_known[dev].load(std::memory_order_relaxed);
    if (v == 0) {
        int major = 0;
        if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
            (void)cudaGetLastError();
        v = major >= 9 ? 2 : 1;
        pdl_known[dev].store(v, std::memory_order_relaxed);
    }
    return v == 2;
}

/* With a kernel log active (ntt/kernel_log.h): kernel `func`, launched once
 * with `blocks` blocks of `threads` threads and `smem` bytes of dynamic shared
 * memory, added to it under its demangled, shortened name; the log is marked
 * incomplete when the runtime cannot describe it. */
static void log_launch(const void *func, unsigned threads, size_t smem, unsigned long long blocks)
{
    if (!nb_kernel_log_active())
        return;
    const char *mangled = NULL;
    char name[64] = "?";
    if (cudaFuncGetName(&mangled, func) == cudaSuccess && mangled) {
        int status = -1;
        char *d = abi::__cxa_demangle(mangled, NULL, NULL, &status);
        nb_kernel_short_name(status == 0 && d ? d : mangled, name, sizeof name);
        free(d);
    } else {
        (void)cudaGetLastError();
    }
    nb_ntt_kernel k;
    if (nb_ntt_kernel_describe(&k, name, func, threads, smem, blocks, 1) == NB_OK) {
        nb_kernel_log_add(&k);
    } else {
        nb_kernel_log_fail(nb_last_error());
    }
}

/* Launches `kern` on s, with programmatic dependent launch where the device
 * has it; the kernel calls nb_gpu_pdl_wait() before it reads its inputs. With
 * a kernel log active, the launch is added to it. */
template <class... P, class... A>
static nb_status launch_pdl(void (*kern)(P...), dim3 grid, dim3 block, size_t smem,
                            cudaStream_t s, A &&...args)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cudaLaunchAttribute attr[1];
    if (pdl_supported()) {
        attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr[0].val.programmaticStreamSerializationAllowed = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    NB_CUDA_TRY(cudaLaunchKernelEx(&cfg, kern, std::forward<A>(args)...));
    log_launch((const void *)kern, block.x * block.y * block.z, smem,
               (unsigned long long)grid.x * grid.y * grid.z);
    return NB_OK;
}

#endif

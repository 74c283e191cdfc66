/* Macros that turn CUDA runtime failures into nb_status errors with the call,
 * file and line. Usable from C and CUDA sources that include cuda_runtime_api.h. */
#ifndef NB_CUDA_CHECK_H
#define NB_CUDA_CHECK_H

#include <cuda_runtime_api.h>

#include "core/status.h"

static inline nb_status nb_cuda_status(cudaError_t e)
{
    if (e == cudaErrorMemoryAllocation)
        return NB_ERR_OUT_OF_MEMORY;
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
        return NB_ERR_NO_DEVICE;
    return NB_ERR_CUDA;
}

/* Return an nb_status from the enclosing function if `call` fails. */
#define NB_CUDA_TRY(call)                                                              \
    do {                                                                               \
        cudaError_t nb_e_ = (call);                                                    \
        if (nb_e_ != cudaSuccess)                                                      \
            return nb_set_error(nb_cuda_status(nb_e_), "%s:%d: %s failed: %s", __FILE__, \
                                __LINE__, #call, cudaGetErrorString(nb_e_));           \
    } while (0)

/* Check a kernel launch (configuration errors and earlier async faults). */
#define NB_CUDA_LAUNCH_CHECK() NB_CUDA_TRY(cudaGetLastError())

#endif

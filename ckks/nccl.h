/* Internal to ckks/: NCCL, loaded at run time. The build needs only nccl.h
 * (NB_HAVE_NCCL); libnccl.so.2 is opened with dlopen on first use, so a
 * machine without NCCL runs everything but the multi-GPU pipelines, and the
 * library carries no link-time dependency on NCCL's 200 MB. Where it is
 * looked for: $NB_NCCL_LIBRARY (a file), then the loader's own search
 * ("libnccl.so.2": LD_LIBRARY_PATH, ld.so.cache), then the directory the
 * build found it in (NB_NCCL_LIBDIR). docs/ckks.md, "Several GPUs". */
#ifndef NB_CKKS_NCCL_H
#define NB_CKKS_NCCL_H

#include "core/status.h"

#ifdef NB_HAVE_NCCL
#include <nccl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The NCCL entry points the pipelines use. */
typedef struct nb_nccl_api {
    ncclResult_t (*comm_init_all)(ncclComm_t *comms, int ndev, const int *devlist);
    ncclResult_t (*comm_destroy)(ncclComm_t comm);
    ncclResult_t (*group_start)(void);
    ncclResult_t (*group_end)(void);
    ncclResult_t (*broadcast)(const void *send, void *recv, size_t count, ncclDataType_t type,
                              int root, ncclComm_t comm, cudaStream_t stream);
    ncclResult_t (*get_version)(int *version);
    const char *(*error_string)(ncclResult_t r);
    char path[512]; /* the file that was opened */
} nb_nccl_api;

/* The loaded API (opened once, thread-safe), or NULL with NB_ERR_UNSUPPORTED
 * and where it looked in nb_last_error(). Before returning it the first time
 * it sets NCCL_NVLS_ENABLE=0 in the environment: NVLink multicast stays off
 * wherever nttbench starts NCCL (it can take shared GPUs out of service). */
const nb_nccl_api *nb_nccl_load(void);

/* NB_OK, or NB_ERR_CUDA naming the call and NCCL's reason. */
nb_status nb_nccl_check(const nb_nccl_api *api, ncclResult_t r, const char *what);

#ifdef __cplusplus
}
#endif
#endif /* NB_HAVE_NCCL */
#endif

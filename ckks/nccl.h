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

/* How the several-GPU exchanges run (docs/ckks.md, "Several GPUs"). */
typedef enum nb_nccl_exchange {
    NB_NCCL_BROADCAST = 0,   /* one group of G broadcasts, in place */
    NB_NCCL_COPY_ENGINE = 1, /* all-gathers on the copy engines, through a stage */
    NB_NCCL_SEND_RECV = 2,   /* one group of sends and receives between every pair */
    NB_NCCL_MIXED = 3        /* modDown's exchanges as sends and receives, the rest as
                              * broadcasts */
} nb_nccl_exchange;

/* NB_NCCL_TUNER: unset, "" or "ll128" (the tuner), or "off" (NCCL's own
 * choice); NB_ERR_INVALID_ARG with a one-line message for anything else.
 * Needs no NCCL (ckks/nccl_tuner.c). */
nb_status nb_nccl_tuner_check_env(void);

#ifdef NB_HAVE_NCCL
#include <nccl.h>

/* The headers declare what the copy-engine exchanges need (NCCL 2.28). */
#if defined(NCCL_CTA_POLICY_ZERO) && defined(NCCL_WIN_COLL_SYMMETRIC)
#define NB_NCCL_HAS_CE 1
#endif

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
    ncclResult_t (*all_gather)(const void *send, void *recv, size_t count, ncclDataType_t type,
                               ncclComm_t comm, cudaStream_t stream);
    /* Point-to-point (NCCL 2.7 and later; NULL if the library lacks them). */
    ncclResult_t (*send)(const void *send, size_t count, ncclDataType_t type, int peer,
                         ncclComm_t comm, cudaStream_t stream);
    ncclResult_t (*recv)(void *recv, size_t count, ncclDataType_t type, int peer,
                         ncclComm_t comm, cudaStream_t stream);
#ifdef NB_NCCL_HAS_CE
    /* The copy-engine exchanges (NCCL 2.28 and later; all NULL before):
     * communicators with a zero-CTA policy, all-gathers into symmetric
     * windows of memory from ncclMemAlloc. */
    ncclResult_t (*get_unique_id)(ncclUniqueId *id);
    ncclResult_t (*comm_init_rank_config)(ncclComm_t *comm, int nranks, ncclUniqueId id,
                                          int rank, ncclConfig_t *config);
    ncclResult_t (*mem_alloc)(void **ptr, size_t size);
    ncclResult_t (*mem_free)(void *ptr);
    ncclResult_t (*window_register)(ncclComm_t comm, void *buf, size_t size, ncclWindow_t *win,
                                    int flags);
    ncclResult_t (*window_deregister)(ncclComm_t comm, ncclWindow_t win);
#endif
    int copy_engine; /* every entry point of the copy-engine exchanges was found */
    char path[512];  /* the file that was opened */
} nb_nccl_api;

/* The loaded API (opened once, thread-safe), or NULL with NB_ERR_UNSUPPORTED
 * and where it looked in nb_last_error(). Before returning it the first time
 * it sets NCCL_NVLS_ENABLE=0 in the environment: NVLink multicast stays off
 * wherever nttbench starts NCCL (it can take shared GPUs out of service);
 * and it arms nttbench's tuner (nb_nccl_tuner_arm). */
const nb_nccl_api *nb_nccl_load(void);

/* NB_OK, or NB_ERR_CUDA naming the call and NCCL's reason. */
nb_status nb_nccl_check(const nb_nccl_api *api, ncclResult_t r, const char *what);

/* The kind named by NB_NCCL_EXCHANGE: "broadcast", "copy-engine",
 * "send-recv" or "mixed"; unset, empty or "auto": `dflt`, or broadcasts
 * where dflt needs sends and receives (send-recv, mixed) and api's library
 * lacks ncclSend or ncclRecv. Anything else NB_ERR_INVALID_ARG, copy-engine
 * without the copy-engine collectives (this build's nccl.h, or api's
 * library: NCCL 2.28 or later) and a named send-recv or mixed without
 * ncclSend and ncclRecv NB_ERR_UNSUPPORTED, each with a one-line message
 * (*kind is then NB_NCCL_BROADCAST). */
nb_status nb_nccl_exchange_kind(const nb_nccl_api *api, nb_nccl_exchange dflt,
                                nb_nccl_exchange *kind);

/* nttbench's NCCL tuner (ckks/nccl_tuner.c): NCCL's tuner-plugin
 * interface, version 4, as NCCL lays it out (its logger's and collective
 * type's own names are NCCL's internal ones). */
typedef void (*nb_nccl_logger)(int level, unsigned long flags, const char *file, int line,
                               const char *fmt, ...);
typedef struct nb_nccl_tuner_v4 {
    const char *name;
    ncclResult_t (*init)(size_t n_ranks, size_t n_nodes, nb_nccl_logger log, void **ctx);
    ncclResult_t (*get_coll_info)(void *ctx, int coll, size_t bytes, int pipe_ops, float **cost,
                                  int n_algo, int n_proto, int reg_buff, int *n_channels);
    ncclResult_t (*destroy)(void *ctx);
} nb_nccl_tuner_v4;

/* Broadcasts from this size on are offered to LL128 (where NCCL enables it). */
#define NB_NCCL_LL128_MIN_BYTES ((size_t)1 << 20)

/* The tuner NCCL finds in libnttbench under this, its interface's, name. */
extern const nb_nccl_tuner_v4 ncclTunerPlugin_v4;

/* How many communicators NCCL has started with this tuner so far. */
unsigned long nb_nccl_tuner_inits(void);

/* Before NCCL's first communicator: points NCCL_TUNER_PLUGIN at the
 * library holding this tuner, unless NCCL_TUNER_PLUGIN is already set (the
 * caller's tuner, or "none") or NB_NCCL_TUNER is "off", or the tuner is not
 * in a shared library NCCL can open (a static link). 1 if it set it. NCCL
 * reads the variable once, at its first communicator. */
int nb_nccl_tuner_arm(void);

/* The value nb_nccl_tuner_arm gave NCCL_TUNER_PLUGIN, or NULL if it set none. */
const char *nb_nccl_tuner_armed(void);

#ifdef __cplusplus
}
#endif
#endif /* NB_HAVE_NCCL */
#endif

/* The environment a report records (host, GPU, NVML, copy bandwidths, NCCL
 * settings), the cache size a cold case must defeat, and NVTX ranges. */
#ifndef NB_BENCH_ENV_H
#define NB_BENCH_ENV_H

#include "bench/timing/run.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Cache (bytes) a cold cache state must defeat: the device's L2 for GPU (from
 * cudaDevAttrL2CacheSize), the last-level cache a core sees for CPU
 * (NB_HOST_LLC_BYTES when set, then sysfs, then sysconf, else 32 MiB assumed
 * and said so). NB_ERR_INVALID_ARG when NB_HOST_LLC_BYTES is malformed. */
nb_status nb_cache_bytes(nb_backend backend, size_t *bytes);

/* NB_HOST_LLC_BYTES, the host LLC size that replaces the detected one: a byte
 * count with an optional K, M or G suffix (powers of 1024), 1 MiB to 1 TiB,
 * without a leading zero.
 * *bytes = 0 when it is unset or empty; NB_ERR_INVALID_ARG with a message
 * naming the value when it is anything else. */
nb_status nb_host_llc_env(size_t *bytes);


typedef struct nb_env {
    char version[32], git_commit[48], timestamp_utc[32];
    char host_cpu[128], host_os[128];
    int host_cores, omp_threads;
    size_t host_llc_bytes, host_mem_bytes;
    char host_llc_source[32];  /* "NB_HOST_LLC_BYTES", "sysfs", "sysconf" or "assumed" */
    char omp_wait_policy[16], omp_proc_bind[16]; /* as the OpenMP runtime read them; "" unset */
    double host_copy_Bps;      /* nb_host_copy_bandwidth (0 = not measured) */
    char nccl_settings[512];   /* NCCL_* and NB_NCCL_* variables but NCCL_NVLS_ENABLE, "A=x B=y"
                                  sorted ("" none): they choose the several-GPU exchanges */
    int has_gpu;               /* 0: the GPU fields are empty */
    char gpu_none_reason[200]; /* why has_gpu is 0 ("" when a GPU was not asked for) */
    char gpu_name[256];
    int cc_major, cc_minor, sm_count;
    size_t l2_bytes, persisting_l2_max_bytes, gpu_mem_bytes;
    double mem_clock_mhz;      /* cudaDevAttrMemoryClockRate */
    int bus_width_bits;
    double peak_Bps;           /* theoretical DRAM peak: 2 * mem clock * bus width / 8 */
    double default_sm_mhz;     /* cudaDevAttrClockRate */
    double gpu_copy_Bps;       /* device-to-device copy, read + written per second (0 = not
                                  measured) */
    int driver_version, runtime_version; /* 12040 = 12.4 */
    char nvml_driver[64];      /* "" when NVML is unavailable */
    int ecc_enabled;           /* 1 on, 0 off, -1 unavailable */
    nb_nvml_snapshot nvml;     /* at collection */
    int gpu_count;             /* CUDA devices */
    char gpu_topology[1024];   /* every GPU and the link of each pair (NVML) */
} nb_env;

/* Collects the environment: host always; the current GPU when `gpu` and a
 * device exists (else has_gpu = 0); copy bandwidths are measured when
 * `measure` (a few tens of milliseconds). Never fails for a missing GPU or
 * NVML. */
nb_status nb_env_collect(nb_env *e, int gpu, int measure);

/* The host copy bandwidth every report, `env` and `calibrate --backend cpu`
 * state: NB_HOST_COPY_METHOD, measured on the first call and cached for the
 * process (bytes read + written per second). */
#define NB_HOST_COPY_METHOD                                                              \
    "single-thread memcpy of max(4 x LLC, 64 MiB) <= 512 MiB, pages touched first, "    \
    "best of 9 after one warm-up copy"
nb_status nb_host_copy_bandwidth(double *Bps);

/* Memory copy bandwidth (bytes read + written per second) of a `bytes` copy,
 * best of a few repetitions: memcpy for CPU, a device copy kernel for GPU. */
nb_status nb_measure_copy_bandwidth(nb_backend backend, size_t bytes, double *Bps);

/* The device's current persisting-L2 set-aside (cudaLimitPersistingL2CacheSize):
 * 0 unless something pinned lines; --l2-persist restores it after its case. */
nb_status nb_gpu_l2_persisting_limit(size_t *bytes);

/* NVTX ranges (no-ops without CUDA or when no tool listens). */
void nb_nvtx_push(const char *name);
void nb_nvtx_pop(void);

#ifdef __cplusplus
}
#endif
#endif

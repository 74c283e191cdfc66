/* The environment block of every report: host (CPU model, cores, LLC,
 * memory, OS), GPU (name, compute capability, SMs, L2, memory, theoretical
 * DRAM peak, default clock, driver/runtime, NVML clocks and ECC), measured
 * copy bandwidth, the NCCL settings of the environment, nttbench version and
 * commit, UTC timestamp. Its report forms are in bench/report/env_write.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench/timing/internal.h"
#include "bench/timing/plan.h"
#include "core/version.h"
#ifdef NB_HAVE_NCCL
#include "ckks/nccl.h"
#endif

#ifdef NB_HAVE_CUDA
#include "core/cuda_check.h"
#endif


static void host_cpu_model(char *buf, size_t n)
{
    snprintf(buf, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *p = strchr(line, ':');
            if (p) {
                p++;
                while (*p == ' ' || *p == '\t')
                    p++;
                p[strcspn(p, "\n")] = '\0';
                snprintf(buf, n, "%s", p);
            }
            break;
        }
    }
    fclose(f);
}

extern char **environ;

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether "NAME=value" is NCCL_TUNER_PLUGIN as nttbench set it for its own
 * tuner (nb_nccl_tuner_arm), not as the caller did. */
static int own_tuner_setting(const char *var)
{
#ifdef NB_HAVE_NCCL
    const char *armed = nb_nccl_tuner_armed();
    return armed && !strncmp(var, "NCCL_TUNER_PLUGIN=", 18) && !strcmp(var + 18, armed);
#else
    (void)var;
    return 0;
#endif
}

/* The NCCL_* and NB_NCCL_* variables of the environment, "NAME=value" sorted
 * by name and joined by spaces ("" when none; "..." ends a list cut at n).
 * Left out: NCCL_NVLS_ENABLE (nttbench sets it to 0 wherever it starts
 * NCCL, whatever the caller's value) and the NCCL_TUNER_PLUGIN nttbench set
 * for its own tuner (a case's metric nccl_tuner says whether it served). */
static void nccl_settings(char *buf, size_t n)
{
    const char *v[64];
    size_t k = 0, u = 0;
    for (char **p = environ; p && *p && k < 64; p++)
        if ((!strncmp(*p, "NCCL_", 5) || !strncmp(*p, "NB_NCCL_", 8)) &&
            strncmp(*p, "NCCL_NVLS_ENABLE=", 17) && !own_tuner_setting(*p))
            v[k++] = *p;
    qsort(v, k, sizeof *v, by_name);
    buf[0] = '\0';
    for (size_t i = 0; i < k; i++) {
        const int w = snprintf(buf + u, n - u, "%s%s", i ? " " : "", v[i]);
        if (w < 0 || (size_t)w >= n - u) {
            snprintf(buf + (n > 4 ? n - 4 : 0), n > 4 ? 4 : n, "...");
            return;
        }
        u += (size_t)w;
    }
}

/* Best of `reps` memcpy of `bytes` after one warm-up copy, bytes read +
 * written per second. */
static nb_status cpu_copy_bandwidth(size_t bytes, int reps, double *Bps)
{
    unsigned char *a = aligned_alloc(64, bytes), *b = aligned_alloc(64, bytes);
    if (!a || !b) {
        free(a);
        free(b);
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "copy bandwidth: out of host memory");
    }
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    memcpy(b, a, bytes);
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = nb_now_s();
        memcpy(b, a, bytes);
        double t = nb_now_s() - t0;
        if (t < best)
            best = t;
        a[r] = b[bytes - 1 - r]; /* keep the copies observable */
    }
    free(a);
    free(b);
    *Bps = best > 0 ? 2.0 * (double)bytes / best : 0;
    return NB_OK;
}

#ifdef NB_HAVE_CUDA
/* Best of 5 timed device copies (the first is a warm-up). */
static nb_status gpu_copy_bandwidth(size_t bytes, double *Bps)
{
    void *a = NULL, *b = NULL;
    cudaStream_t s = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    nb_status st = NB_OK;
    cudaError_t e = cudaMalloc(&a, bytes);
    if (e == cudaSuccess)
        e = cudaMalloc(&b, bytes);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cudaEventCreate(&e0);
    if (e == cudaSuccess)
        e = cudaEventCreate(&e1);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(a, 1, bytes, s);
    double best = 1e30;
    for (int r = 0; r < 6 && e == cudaSuccess && st == NB_OK; r++) {
        e = cudaEventRecord(e0, s);
        if (e == cudaSuccess)
            st = nb_gpu_copy_launch(b, a, bytes, s);
        if (e == cudaSuccess && st == NB_OK)
            e = cudaEventRecord(e1, s);
        if (e == cudaSuccess && st == NB_OK)
            e = cudaEventSynchronize(e1);
        float ms = 0;
        if (e == cudaSuccess && st == NB_OK)
            e = cudaEventElapsedTime(&ms, e0, e1);
        if (r > 0 && ms > 0 && ms * 1e-3 < best)
            best = ms * 1e-3;
    }
    if (e != cudaSuccess && st == NB_OK)
        st = nb_set_error(nb_cuda_status(e), "copy bandwidth: %s", cudaGetErrorString(e));
    (void)cudaGetLastError();
    if (s)
        cudaStreamSynchronize(s);
    cudaFree(a);
    cudaFree(b);
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    if (s)
        cudaStreamDestroy(s);
    if (st == NB_OK)
        *Bps = best < 1e30 ? 2.0 * (double)bytes / best : 0;
    return st;
}
#endif

nb_status nb_measure_copy_bandwidth(nb_backend backend, size_t bytes, double *Bps)
{
    if (!Bps || bytes < 4096)
        return nb_set_error(NB_ERR_INVALID_ARG, "copy bandwidth: bad arguments");
    bytes &= ~(size_t)63;
    *Bps = 0;
    if (backend == NB_BACKEND_CPU)
        return cpu_copy_bandwidth(bytes, 5, Bps);
    NB_TRY(nb_gpu_require());
#ifdef NB_HAVE_CUDA
    return gpu_copy_bandwidth(bytes, Bps);
#else
    return nb_set_error(NB_ERR_NO_DEVICE, "built without CUDA");
#endif
}

nb_status nb_host_copy_bandwidth(double *Bps)
{
    static double cached;
    if (!Bps)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_host_copy_bandwidth: NULL");
    if (cached <= 0) {
        const char *src;
        size_t bytes = 4 * nb_host_llc_detected(&src);
        if (bytes < ((size_t)64 << 20))
            bytes = (size_t)64 << 20;
        if (bytes > ((size_t)512 << 20))
            bytes = (size_t)512 << 20;
        NB_TRY(cpu_copy_bandwidth(bytes & ~(size_t)63, 9, &cached));
    }
    *Bps = cached;
    return NB_OK;
}

#ifdef NB_HAVE_CUDA
static nb_status gpu_props(nb_env *e)
{
    int dev = 0, v = 0;
    struct cudaDeviceProp p;
    NB_CUDA_TRY(cudaGetDevice(&dev));
    NB_CUDA_TRY(cudaGetDeviceProperties(&p, dev));
    snprintf(e->gpu_name, sizeof e->gpu_name, "%s", p.name);
    e->cc_major = p.major;
    e->cc_minor = p.minor;
    e->sm_count = p.multiProcessorCount;
    e->l2_bytes = (size_t)p.l2CacheSize;
    e->persisting_l2_max_bytes = (size_t)p.persistingL2CacheMaxSize;
    e->gpu_mem_bytes = p.totalGlobalMem;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, dev) == cudaSuccess)
        e->mem_clock_mhz = v / 1000.0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, dev) == cudaSuccess)
        e->bus_width_bits = v;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, dev) == cudaSuccess)
        e->default_sm_mhz = v / 1000.0;
    (void)cudaGetLastError();
    /* double data rate: two transfers per memory clock */
    e->peak_Bps = 2.0 * e->mem_clock_mhz * 1e6 * e->bus_width_bits / 8.0;
    cudaDriverGetVersion(&e->driver_version);
    cudaRuntimeGetVersion(&e->runtime_version);
    return NB_OK;
}
#endif

nb_status nb_env_collect(nb_env *e, int gpu, int measure)
{
    if (!e)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_env_collect: NULL");
    memset(e, 0, sizeof *e);
    e->ecc_enabled = -1;
    snprintf(e->version, sizeof e->version, "%s", nb_version());
    snprintf(e->git_commit, sizeof e->git_commit, "%s", nb_git_commit());
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(e->timestamp_utc, sizeof e->timestamp_utc, "%Y-%m-%dT%H:%M:%SZ", &tm);
    host_cpu_model(e->host_cpu, sizeof e->host_cpu);
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(e->host_os, sizeof e->host_os, "%.40s %.60s %.20s", u.sysname, u.release, u.machine);
    e->host_cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
#ifdef _OPENMP
    e->omp_threads = omp_get_max_threads();
#else
    e->omp_threads = 1;
#endif
    const char *src = "assumed";
    e->host_llc_bytes = nb_host_llc_bytes(&src);
    snprintf(e->host_llc_source, sizeof e->host_llc_source, "%s", src);
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psz > 0)
        e->host_mem_bytes = (size_t)pages * (size_t)psz;
    const char *wait = getenv("OMP_WAIT_POLICY"), *bind = getenv("OMP_PROC_BIND");
    snprintf(e->omp_wait_policy, sizeof e->omp_wait_policy, "%s", wait ? wait : "");
    snprintf(e->omp_proc_bind, sizeof e->omp_proc_bind, "%s", bind ? bind : "");
    nccl_settings(e->nccl_settings, sizeof e->nccl_settings);
    if (measure)
        NB_TRY(nb_host_copy_bandwidth(&e->host_copy_Bps));
    if (!gpu)
        return NB_OK;
    if (nb_gpu_require() != NB_OK) {
        snprintf(e->gpu_none_reason, sizeof e->gpu_none_reason, "%s", nb_last_error());
        return NB_OK;
    }
#ifdef NB_HAVE_CUDA
    NB_TRY(gpu_props(e));
    e->has_gpu = 1;
    nb_nvml_env(e->nvml_driver, sizeof e->nvml_driver, &e->ecc_enabled);
    e->gpu_count = nb_gpu_count();
    nb_nvml_topology(e->gpu_topology, sizeof e->gpu_topology);
    nb_nvml_snapshot_take(&e->nvml);
    if (measure) {
        size_t bytes = 8 * e->l2_bytes;
        if (bytes < ((size_t)256 << 20))
            bytes = (size_t)256 << 20;
        NB_TRY(nb_measure_copy_bandwidth(NB_BACKEND_GPU, bytes, &e->gpu_copy_Bps));
    }
#endif
    return NB_OK;
}

nb_status nb_gpu_l2_persisting_limit(size_t *bytes)
{
    if (!bytes)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_gpu_l2_persisting_limit: NULL");
    *bytes = 0;
    NB_TRY(nb_gpu_require());
#ifdef NB_HAVE_CUDA
    NB_CUDA_TRY(cudaDeviceGetLimit(bytes, cudaLimitPersistingL2CacheSize));
    return NB_OK;
#else
    return nb_set_error(NB_ERR_NO_DEVICE, "built without CUDA");
#endif
}

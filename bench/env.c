/* The environment block of every report: host (CPU model, cores, LLC,
 * memory, OS), GPU (name, compute capability, SMs, L2, memory, theoretical
 * DRAM peak, default clock, driver/runtime, NVML clocks and ECC), measured
 * copy bandwidth, nttbench version and commit, UTC timestamp; and its
 * table / markdown / CSV / JSON forms. */
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

#include "bench/internal.h"
#include "bench/nb_commit.h"
#include "bench/nb_version.h"

#ifdef NB_HAVE_CUDA
#include "ntt/cuda_check.h"
#endif

json_t *nb_json_real(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

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

nb_status nb_measure_copy_bandwidth(nb_backend backend, size_t bytes, double *Bps)
{
    if (!Bps || bytes < 4096)
        return nb_set_error(NB_ERR_INVALID_ARG, "copy bandwidth: bad arguments");
    bytes &= ~(size_t)63;
    *Bps = 0;
    if (backend == NB_BACKEND_CPU) {
        unsigned char *a = aligned_alloc(64, bytes), *b = aligned_alloc(64, bytes);
        if (!a || !b) {
            free(a);
            free(b);
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "copy bandwidth: out of host memory");
        }
        memset(a, 1, bytes);
        memset(b, 2, bytes);
        double best = 1e30;
        for (int r = 0; r < 5; r++) {
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
    NB_TRY(nb_gpu_require());
#ifdef NB_HAVE_CUDA
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
#else
    return nb_set_error(NB_ERR_NO_DEVICE, "built without CUDA");
#endif
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
    snprintf(e->version, sizeof e->version, "%s", NB_VERSION_STRING);
    snprintf(e->git_commit, sizeof e->git_commit, "%s", NB_GIT_COMMIT);
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
    if (measure) {
        size_t bytes = 4 * e->host_llc_bytes;
        if (bytes < ((size_t)64 << 20))
            bytes = (size_t)64 << 20;
        if (bytes > ((size_t)512 << 20))
            bytes = (size_t)512 << 20;
        NB_TRY(nb_measure_copy_bandwidth(NB_BACKEND_CPU, bytes, &e->host_copy_Bps));
    }
    if (!gpu || nb_gpu_count() == 0)
        return NB_OK;
#ifdef NB_HAVE_CUDA
    NB_TRY(gpu_props(e));
    e->has_gpu = 1;
    nb_nvml_env(e->nvml_driver, sizeof e->nvml_driver, &e->ecc_enabled);
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

static json_t *opt_real(double v, int known)
{
    return known ? nb_json_real(v) : json_null();
}

json_t *nb_env_to_json(const nb_env *e)
{
    json_t *host = json_pack("{s:s, s:s, s:i, s:i, s:I, s:s, s:I}", "cpu", e->host_cpu, "os",
                             e->host_os, "cores", e->host_cores, "omp_threads", e->omp_threads,
                             "llc_bytes", (json_int_t)e->host_llc_bytes, "llc_source",
                             e->host_llc_source, "memory_bytes", (json_int_t)e->host_mem_bytes);
    json_object_set_new(host, "copy_bandwidth_Bps",
                        opt_real(e->host_copy_Bps, e->host_copy_Bps > 0));
    json_t *j = json_pack("{s:s, s:s, s:s}", "nttbench_version", e->version, "git_commit",
                          e->git_commit, "timestamp_utc", e->timestamp_utc);
    json_object_set_new(j, "host", host);
    if (!e->has_gpu) {
        json_object_set_new(j, "gpu", json_null());
        return j;
    }
    char cc[16], drv[32], rt[32];
    snprintf(cc, sizeof cc, "%d.%d", e->cc_major, e->cc_minor);
    snprintf(drv, sizeof drv, "%d.%d", e->driver_version / 1000, e->driver_version % 1000 / 10);
    snprintf(rt, sizeof rt, "%d.%d", e->runtime_version / 1000, e->runtime_version % 1000 / 10);
    json_t *g = json_pack("{s:s, s:s, s:i, s:I, s:I, s:I}", "name", e->gpu_name,
                          "compute_capability", cc, "sm_count", e->sm_count, "l2_bytes",
                          (json_int_t)e->l2_bytes, "persisting_l2_max_bytes",
                          (json_int_t)e->persisting_l2_max_bytes, "memory_bytes",
                          (json_int_t)e->gpu_mem_bytes);
    json_object_set_new(g, "memory_clock_mhz", nb_json_real(e->mem_clock_mhz));
    json_object_set_new(g, "bus_width_bits", json_integer(e->bus_width_bits));
    json_object_set_new(g, "theoretical_peak_Bps", opt_real(e->peak_Bps, e->peak_Bps > 0));
    json_object_set_new(g, "default_sm_clock_mhz", nb_json_real(e->default_sm_mhz));
    json_object_set_new(g, "copy_bandwidth_Bps", opt_real(e->gpu_copy_Bps, e->gpu_copy_Bps > 0));
    json_object_set_new(g, "cuda_driver", json_string(drv));
    json_object_set_new(g, "cuda_runtime", json_string(rt));
    json_object_set_new(g, "nvml_driver",
                        e->nvml_driver[0] ? json_string(e->nvml_driver)
                                          : json_string("unavailable"));
    json_object_set_new(g, "ecc",
                        e->ecc_enabled < 0 ? json_string("unavailable")
                                           : json_string(e->ecc_enabled ? "on" : "off"));
    json_object_set_new(g, "nvml", nb_nvml_to_json(&e->nvml));
    json_object_set_new(j, "gpu", g);
    return j;
}

json_t *nb_opts_to_json(const nb_bench_opts *o)
{
    json_t *j = json_pack(
        "{s:s, s:I, s:I, s:f, s:f, s:f, s:I, s:I, s:f, s:f, s:f, s:f, s:s, s:I, s:f}", "mode",
        nb_mode_name(o->mode), "batch", (json_int_t)o->batch, "min_samples",
        (json_int_t)o->min_samples, "min_time_s", o->min_time_s, "max_noise_pct",
        o->max_noise_pct, "timeout_s", o->timeout_s, "max_samples", (json_int_t)o->max_samples,
        "warmup_samples", (json_int_t)o->warmup_samples, "warmup_time_s", o->warmup_time_s,
        "throttle_threshold_pct", o->throttle_threshold_pct, "throttle_recovery_s",
        o->throttle_recovery_s, "blocking_timeout_s", o->blocking_timeout_s, "cold",
        nb_cold_name(o->cold), "sets", (json_int_t)o->rotate_sets, "rotate_factor",
        o->rotate_factor);
    json_object_set_new(j, "l2_persist", o->l2_persist >= 0 ? json_real(o->l2_persist)
                                                            : json_null());
    return j;
}

/* ---------------------------------------------------------------- writers */

typedef struct kv {
    char key[48];
    char val[320];
} kv;

static size_t env_rows(const nb_env *e, kv *rows, size_t max)
{
    size_t n = 0;
#define ROW(k, ...)                                                                  \
    do {                                                                             \
        if (n < max) {                                                               \
            snprintf(rows[n].key, sizeof rows[n].key, "%s", k);                      \
            snprintf(rows[n].val, sizeof rows[n].val, __VA_ARGS__);                  \
            n++;                                                                     \
        }                                                                            \
    } while (0)
    ROW("nttbench", "%s (%s)", e->version, e->git_commit);
    ROW("timestamp (UTC)", "%s", e->timestamp_utc);
    ROW("host CPU", "%s", e->host_cpu);
    ROW("host cores / OpenMP threads", "%d / %d", e->host_cores, e->omp_threads);
    ROW("host LLC", "%.1f MiB (%s)", e->host_llc_bytes / 1048576.0, e->host_llc_source);
    ROW("host memory", "%.1f GiB", e->host_mem_bytes / 1073741824.0);
    ROW("host OS", "%s", e->host_os);
    if (e->host_copy_Bps > 0)
        ROW("host copy bandwidth", "%.1f GB/s (read + write)", e->host_copy_Bps / 1e9);
    if (!e->has_gpu) {
        ROW("GPU", "none");
        return n;
    }
    ROW("GPU", "%s", e->gpu_name);
    ROW("compute capability", "%d.%d", e->cc_major, e->cc_minor);
    ROW("SMs", "%d", e->sm_count);
    ROW("L2", "%.1f MiB (persisting max %.1f MiB)", e->l2_bytes / 1048576.0,
        e->persisting_l2_max_bytes / 1048576.0);
    ROW("GPU memory", "%.1f GiB", e->gpu_mem_bytes / 1073741824.0);
    ROW("memory clock / bus", "%.0f MHz / %d bit", e->mem_clock_mhz, e->bus_width_bits);
    ROW("theoretical DRAM peak", "%.1f GB/s", e->peak_Bps / 1e9);
    if (e->gpu_copy_Bps > 0)
        ROW("measured copy bandwidth", "%.1f GB/s (read + write, %.0f%% of peak)",
            e->gpu_copy_Bps / 1e9, e->peak_Bps > 0 ? 100.0 * e->gpu_copy_Bps / e->peak_Bps : 0);
    ROW("default SM clock", "%.0f MHz", e->default_sm_mhz);
    ROW("CUDA driver / runtime", "%d.%d / %d.%d", e->driver_version / 1000,
        e->driver_version % 1000 / 10, e->runtime_version / 1000,
        e->runtime_version % 1000 / 10);
    ROW("NVML driver", "%s", e->nvml_driver[0] ? e->nvml_driver : "unavailable");
    ROW("ECC", "%s", e->ecc_enabled < 0 ? "unavailable" : e->ecc_enabled ? "on" : "off");
    if (e->nvml.available)
        ROW("clocks now (NVML)", "SM %u MHz, memory %u MHz, reasons: %s", e->nvml.sm_mhz,
            e->nvml.mem_mhz, e->nvml.reasons);
    else
        ROW("clocks now (NVML)", "%s", e->nvml.note);
#undef ROW
    return n;
}

nb_status nb_env_write(const nb_env *e, nb_format fmt, FILE *f)
{
    if (!e || !f)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_env_write: NULL argument");
    if (fmt == NB_FORMAT_JSON) {
        json_t *j = nb_env_to_json(e);
        int rc = json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        json_decref(j);
        fputc('\n', f);
        return rc == 0 ? NB_OK : nb_set_error(NB_ERR_IO, "cannot write JSON");
    }
    kv rows[48];
    size_t n = env_rows(e, rows, 48);
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (strlen(rows[i].key) > w)
            w = strlen(rows[i].key);
    if (fmt == NB_FORMAT_MD)
        fprintf(f, "| item | value |\n| --- | --- |\n");
    if (fmt == NB_FORMAT_CSV)
        fprintf(f, "item,value\n");
    for (size_t i = 0; i < n; i++) {
        if (fmt == NB_FORMAT_MD) {
            fprintf(f, "| %s | %s |\n", rows[i].key, rows[i].val);
        } else if (fmt == NB_FORMAT_CSV) {
            nb_csv_write_field(f, rows[i].key);
            fputc(',', f);
            nb_csv_write_field(f, rows[i].val);
            fputc('\n', f);
        } else {
            fprintf(f, "%-*s  %s\n", (int)w, rows[i].key, rows[i].val);
        }
    }
    return ferror(f) ? nb_set_error(NB_ERR_IO, "write error") : NB_OK;
}

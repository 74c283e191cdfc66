/* Internal to bench/timing: CUPTI, opened at run time for the kernel trace
 * (trace.c). The build needs only CUPTI's headers (NB_HAVE_CUPTI); libcupti
 * is opened with dlopen on first use, so libnttbench carries no link-time
 * dependency on it and starts on a machine without it. Where it is looked
 * for: $NB_CUPTI_LIBRARY (a file) alone when it is set; else the loader's own
 * search (LD_LIBRARY_PATH, ld.so.cache) for libcupti.so.<CUDA major> (13 with
 * CUDA 13's headers), then libcupti.so, then that soname in the directory the
 * build found it in (NB_CUPTI_LIBDIR). docs/methodology.md, "The kernel
 * trace". */
#ifndef NB_BENCH_CUPTI_LOAD_H
#define NB_BENCH_CUPTI_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

#if defined(NB_HAVE_CUPTI) && defined(NB_HAVE_CUDA)
#include <cupti.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The CUPTI entry points the kernel trace calls, each CUPTI's function of
 * the same name (cuptiGetResultString, ...). */
typedef struct nb_cupti_api {
    CUptiResult(CUPTIAPI *get_result_string)(CUptiResult r, const char **str);
    CUptiResult(CUPTIAPI *get_version)(uint32_t *version);
    CUptiResult(CUPTIAPI *get_timestamp)(uint64_t *timestamp);
    CUptiResult(CUPTIAPI *activity_enable)(CUpti_ActivityKind kind);
    CUptiResult(CUPTIAPI *activity_disable)(CUpti_ActivityKind kind);
    CUptiResult(CUPTIAPI *activity_register_callbacks)(
        CUpti_BuffersCallbackRequestFunc requested, CUpti_BuffersCallbackCompleteFunc completed);
    CUptiResult(CUPTIAPI *activity_get_next_record)(uint8_t *buffer, size_t valid_bytes,
                                                    CUpti_Activity **record);
    CUptiResult(CUPTIAPI *activity_flush_all)(uint32_t flag);
    CUptiResult(CUPTIAPI *activity_push_external_correlation_id)(
        CUpti_ExternalCorrelationKind kind, uint64_t id);
    CUptiResult(CUPTIAPI *activity_pop_external_correlation_id)(
        CUpti_ExternalCorrelationKind kind, uint64_t *last_id);
    CUptiResult(CUPTIAPI *finalize)(void);
    uint32_t version; /* the library's cuptiGetVersion */
    char path[512];   /* the candidate that was opened, as given */
} nb_cupti_api;

/* The loaded API (opened once, thread-safe; the library stays open), or NULL
 * with NB_ERR_UNSUPPORTED and one line in nb_last_error() saying where it
 * looked and that NB_CUPTI_LIBRARY names the file to use. */
const nb_cupti_api *nb_cupti_load(void);

/* Opens the first of paths[0..n) that dlopen accepts (a name without '/' is
 * looked for by the loader, a path is opened as it is) and fills *api from it.
 * That library must have every entry point of nb_cupti_api and a CUPTI API
 * version of the headers' CUDA major; otherwise, or when none opens,
 * NB_ERR_UNSUPPORTED naming the candidates tried (and why the last file that
 * exists failed) or the missing entry point; *api is then zeroed and nothing
 * stays open. On NB_OK the library stays open for the process. n >= 1. */
nb_status nb_cupti_open(const char *const *paths, size_t n, nb_cupti_api *api);

/* The soname the headers' CUDA major names ("libcupti.so.13"). */
const char *nb_cupti_soname(void);

#ifdef __cplusplus
}
#endif
#endif /* NB_HAVE_CUPTI && NB_HAVE_CUDA */
#endif

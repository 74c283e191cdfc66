/* Whether a case's buffers fit before anything is allocated: the memory a
 * new allocation can take on the host (/proc/meminfo MemAvailable) and on the
 * current GPU (cudaMemGetInfo), and the check that names both sizes. */
#ifndef NB_BENCH_MEMFIT_H
#define NB_BENCH_MEMFIT_H

#include <stddef.h>

#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MemAvailable of a /proc/meminfo text, in bytes; 0 when absent or
 * malformed (text may be NULL). */
size_t nb_parse_meminfo_available(const char *text);

/* Bytes a new host allocation can take: MemAvailable, else the free
 * physical pages (sysconf), else 0 (unknown); at most what the address-space
 * limit (RLIMIT_AS) leaves. */
size_t nb_host_mem_available(void);

/* NB_OK when host_bytes fit the host's available memory and device_bytes
 * (0 = none) the current GPU's free memory. Otherwise NB_ERR_INVALID_ARG with
 * "<what> needs N GiB of host|GPU memory, M GiB available". An unknown
 * availability (0) passes. */
nb_status nb_memory_fit(const char *what, double host_bytes, double device_bytes);

#ifdef __cplusplus
}
#endif
#endif

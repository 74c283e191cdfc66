/* Internal declarations of bench/: shared between the library's own source
 * files (never installed, never included by ckks/ or the CLI). GPU launchers
 * live in bench/gpu_kernels.cu behind a C interface. */
#ifndef NB_BENCH_INTERNAL_H
#define NB_BENCH_INTERNAL_H

#include <stdio.h>
#include <stddef.h>
#ifndef __CUDACC__
#include <jansson.h>
#endif

#include "bench/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Last-level cache seen by cpu0; *source = "sysfs" | "sysconf" | "assumed". */
size_t nb_host_llc_bytes(const char **source);

/* Evicts the host caches: every OpenMP thread reads and writes its share of
 * `buf` (bytes >= 2x LLC), so private L1/L2 and the shared LLC lose the
 * workload's lines. */
void nb_cpu_flush(unsigned char *buf, size_t bytes);

#ifndef __CUDACC__
/* JSON builders used by the report writers. */
json_t *nb_env_to_json(const nb_env *e);
json_t *nb_opts_to_json(const nb_bench_opts *o);
json_t *nb_nvml_to_json(const nb_nvml_snapshot *s);
/* NULL-safe string / non-finite-safe real (null when not finite). */
json_t *nb_json_real(double v);

/* Writes s as one CSV field (RFC 4180: quoted when it holds a comma, quote or
 * line break, quotes doubled). */
void nb_csv_write_field(FILE *f, const char *s);
#endif

/* NVML: device's max clocks etc. for the environment (all "unavailable" when
 * NVML is absent). */
void nb_nvml_env(char *driver, size_t driver_len, int *ecc_enabled);

#ifdef NB_HAVE_CUDA
/* ---- bench/gpu_kernels.cu ---- */

/* Holds `stream` until flags[0] != 0 (host-mapped memory), or sets flags[1]
 * = 1 and returns after timeout_ns of %globaltimer. One thread. */
nb_status nb_gpu_blocker_launch(volatile int *flags_dev, unsigned long long timeout_ns,
                                void *stream);
/* Clock probe: `blocks` blocks (one per SM: each asks for more than half of an
 * SM's shared memory), thread 0 of each writes out[2*smid] = clock64(),
 * out[2*smid+1] = %globaltimer. `out` is host-mapped, slots >= SM count. */
nb_status nb_gpu_probe_launch(unsigned long long *out_dev, int blocks, void *stream);
/* Reads and writes every 16-byte word of buf (L2 eviction). */
nb_status nb_gpu_flush_launch(void *buf, size_t bytes, void *stream);
/* dst = src, 16-byte vectors (bytes a multiple of 16, pointers 16-aligned). */
nb_status nb_gpu_copy_launch(void *dst, const void *src, size_t bytes, void *stream);
/* An empty kernel <<<1, 32>>>. */
nb_status nb_gpu_empty_launch(void *stream);
#endif

#ifdef __cplusplus
}
#endif
#endif

/* A profiler pass of one case (docs/methodology.md, "Profiler pass"):
 * Nsight Compute (ncu) found, its version read, run on a command line the
 * caller builds with a fixed metric set and a timeout, its raw CSV parsed
 * into per-kernel figures; and the target side, one call of a workload
 * between profiler start and stop. Like NVML, ncu is a tool outside the
 * library, looked up at run time; nothing here prints. */
#ifndef NB_BENCH_PROFILE_H
#define NB_BENCH_PROFILE_H

#include <signal.h>
#include <stddef.h>

#include "bench/timing/run.h"
#include "ntt/kernel_log.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NB_PROFILE_MAX_KERNELS 24
#define NB_PROFILE_PIPES 2
#define NB_PROFILE_STALLS 3

/* A pipe or a stall reason and its share, in per cent. */
typedef struct nb_profile_share {
    char name[32]; /* "fmaheavy", "long_scoreboard" ("" when fewer are known) */
    double pct;
} nb_profile_share;

/* One kernel of the profiled call; launches of the same kernel are summed
 * (time, bytes) or time-weighted (the percentages). NAN: the metric did not
 * come back (ncu leaves out a metric the device lacks). */
typedef struct nb_kernel_profile {
    char name[160];           /* ncu's name, "void " and the argument list dropped */
    unsigned launches;
    double time_ns;           /* gpu__time_duration.sum */
    double dram_pct;          /* dram__throughput.avg.pct_of_peak_sustained_elapsed */
    double dram_read_bytes;   /* dram__bytes_read.sum */
    double dram_write_bytes;  /* dram__bytes_write.sum */
    double l2_hit_pct;        /* lts__t_sector_hit_rate.pct */
    double issue_pct;         /* sm__inst_issued.avg.pct_of_peak_sustained_active */
    nb_profile_share pipes[NB_PROFILE_PIPES];   /* busiest, sm__inst_executed_pipe_* */
    nb_profile_share stalls[NB_PROFILE_STALLS]; /* largest, smsp__warp_issue_stalled_* */
} nb_kernel_profile;

/* The profiler's settings and what it measured of one call. */
typedef struct nb_profile {
    char version[32];   /* ncu's, "2025.3.1.0" ("" unknown) */
    int clocks_locked;  /* 1: --clock-control base, 0: none */
    int caches_flushed; /* 1: --cache-control all (cold), 0: none (warm) */
    size_t n_kernels;
    nb_kernel_profile k[NB_PROFILE_MAX_KERNELS];
} nb_profile;

/* The metrics asked for, comma-separated (ncu --metrics). */
extern const char nb_ncu_metrics[];

/* The ncu to run: $NB_NCU when set and not empty (only it), else the first
 * `ncu` on PATH, else /usr/local/cuda/bin/ncu; an executable regular file
 * whose path fits in path[n]. NB_ERR_NOT_FOUND when there is none,
 * NB_ERR_INVALID_ARG when $NB_NCU does not fit or path is NULL. */
nb_status nb_ncu_find(char *path, size_t n);

/* ncu's version ("2025.3.1.0") from `ncu --version` into version[n];
 * NB_ERR_IO when it does not run or says no version within timeout_s,
 * NB_ERR_INVALID_ARG for a NULL argument. */
nb_status nb_ncu_version(const char *ncu, double timeout_s, char *version, size_t n);

/* Summary over the kernels: time in ns, DRAM throughput and issue-slot use
 * as fractions of peak, time-weighted (NAN when no kernel has the metric, or
 * p is NULL). */
double nb_profile_time_ns(const nb_profile *p);
double nb_profile_dram_frac(const nb_profile *p);
double nb_profile_issue_frac(const nb_profile *p);

/* Parses ncu's `--csv --page raw` output (lines before the header "ID",...
 * skipped; the units row; quoted fields; thousands separators) into out's
 * kernels, in order of first appearance. NB_ERR_INVALID_ARG when there is
 * no header or no kernel row (the message quotes ncu's last ==ERROR== line
 * when there is one). out's settings are left as they were. */
nb_status nb_ncu_parse_csv(const char *text, nb_profile *out);

/* One profiler pass: runs argv (argv[0] the ncu path, NULL-terminated) with
 * stdin closed, its output captured, in a process group of its own that is
 * killed (SIGTERM, then SIGKILL) after timeout_s or once *interrupt is
 * nonzero (may be NULL); then parses the output into *out. NB_ERR_IO with
 * ncu's reason on one line (its last ==ERROR== line, the exit status, "timed
 * out after S s"), NB_ERR_INVALID_ARG from the parser. */
nb_status nb_ncu_run(char *const argv[], double timeout_s, const volatile sig_atomic_t *interrupt,
                     nb_profile *out);

/* The target side of a pass: opens w under o's cache state (o->mode ignored:
 * one plain launch), verifies set 0, for a warm state launches it once more
 * as warm-up, then runs one call on set 0 between cudaProfilerStart and
 * cudaProfilerStop (ncu --profile-from-start off profiles exactly its
 * kernels) and closes. NB_ERR_UNSUPPORTED for a CPU workload or a build
 * without CUDA. */
nb_status nb_bench_profile_call(const nb_workload *w, void *stream, const nb_bench_opts *o);

/* The kernels one call of w launches, with their resources: opens w as
 * nb_bench_profile_call does, verifies set 0, then runs one call on set 0
 * with `log` active (ntt/kernel_log.h; log->k and log->max set by the
 * caller) and closes. The log says what it could not describe
 * (log->incomplete, log->why). NB_ERR_UNSUPPORTED for a CPU workload or a
 * build without CUDA. */
nb_status nb_bench_kernel_log(const nb_workload *w, void *stream, const nb_bench_opts *o,
                              nb_kernel_log *log);

#ifdef __cplusplus
}
#endif
#endif

/* Options of one timed case: the cache state, the launch mode, the stopping
 * rule (NVBench's flag names and defaults), GPU clock handling, rotation, and
 * the log and clock hooks. nb_bench_opts_check() names the offending flag. */
#ifndef NB_BENCH_OPTIONS_H
#define NB_BENCH_OPTIONS_H

#include <signal.h>

#include "bench/timing/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest --batch-samples: samples queued behind one blocking kernel. */
#define NB_BATCH_SAMPLES_MAX 1024

typedef double (*nb_clock_fn)(void *ctx);
/* Receives one-line warnings and progress notes (the library never prints). */
typedef void (*nb_log_fn)(void *ctx, const char *msg);

typedef struct nb_bench_opts {
    nb_cache_state cache;          /* warm: one buffer set, no eviction; otherwise evicted
                                      and/or rotated (--cold, default both) */
    nb_mode mode;                  /* --mode, default per-launch */
    size_t batch;                  /* --batch K: launches per sample in batch/graph (10) */
    /* stopping rule (NVBench names and defaults) */
    size_t min_samples;            /* --min-samples 10 */
    double min_time_s;             /* --min-time 0.5: accumulated sample time */
    double max_noise_pct;          /* --max-noise 0.5: relative standard deviation, % */
    double timeout_s;              /* --timeout 15: wall time of the sampling phase */
    size_t max_samples;            /* --max-samples 100000 */
    size_t warmup_samples;         /* --warmup 3: at least this many warm-up samples */
    double warmup_time_s;          /* --warmup-time 0.05: and at least this much wall time */
    /* GPU clocks */
    double throttle_threshold_pct; /* --throttle-threshold 75: % of the default SM clock */
    double throttle_recovery_s;    /* --throttle-recovery 0.05: back-off after a throttled sample */
    double blocking_timeout_s;     /* --blocking-timeout 10: blocking kernel gives up after */
    size_t batch_samples;          /* --batch-samples 1: most GPU samples queued behind one
                                      blocking kernel (1: one sample, one synchronisation) */
    size_t queue_ahead;            /* --queue-ahead 1: with batches of one, the next GPU
                                      sample queued (held) while one runs; 0: queued after */
    /* cache control (cache states other than warm) */
    size_t rotate_sets;            /* --sets K, 0 = automatic */
    double rotate_factor;          /* rotated bytes >= factor x cache when automatic (3) */
    double l2_persist;             /* --l2-persist F in [0, 1]; < 0 = off (warm cache only) */
    int nvtx;                      /* NVTX ranges around cases (1) */
    nb_log_fn log;                 /* optional warnings sink */
    void *log_ctx;
    nb_clock_fn clock;             /* CPU workloads only: NULL = CLOCK_MONOTONIC */
    void *clock_ctx;
    /* Optional: nonzero asks the case to stop after the sample under way (warm-up or
     * timed; stop reason "interrupted") and the tiers to start no further case. Set
     * by a signal handler; only read here. NULL = never. */
    const volatile sig_atomic_t *interrupt;
} nb_bench_opts;

/* 1 when o->interrupt is set and raised. */
int nb_bench_interrupted(const nb_bench_opts *o);

/* Fills `o` with the defaults listed above. */
void nb_bench_opts_default(nb_bench_opts *o);
/* NB_OK if every field is in range, else NB_ERR_INVALID_ARG naming the flag. */
nb_status nb_bench_opts_check(const nb_bench_opts *o);

/* CLOCK_MONOTONIC in seconds. */
double nb_now_s(void);

#ifdef __cplusplus
}
#endif
#endif

/* bench/ module header: the timing core shared by the three tiers.
 *
 * The core owns the sample loop (warm-up, stopping rule, statistics, throttle
 * detection, cache control); a workload owns its buffers and knows how to
 * launch itself and check its output. The warm and cold NTT tiers and the
 * CKKS stage tier are workloads; nothing here knows a kernel's internals.
 *
 * Layout of this header:
 *   1. tiers, modes and the workload interface (the contract with ckks/)
 *   2. options of the sample loop (NVBench flag names and defaults)
 *   3. statistics and the stopping rule (pure functions, unit-tested)
 *   4. the cache planner (flush / rotate) and cache sizes
 *   5. the runner: nb_bench_run (timed loop) and nb_bench_breakdown (steps)
 *   6. environment (host, GPU, NVML), NVTX ranges
 *   7. NTT workloads, copy workloads and per-case figures
 *   8. reports: cases, JSON / CSV / markdown / table writers, atomic files
 *   9. calibration (copy bandwidth, L2 bandwidth, launch overhead, hot/cold)
 * docs/methodology.md explains every number; docs/cli.md the JSON schema. */
#ifndef NB_BENCH_H
#define NB_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ntt/ntt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * 1. Tiers, modes, workloads
 * ====================================================================== */

typedef enum nb_tier { NB_TIER_WARM = 0, NB_TIER_COLD = 1, NB_TIER_STAGE = 2 } nb_tier;

typedef enum nb_mode {
    NB_MODE_PER_LAUNCH = 0, /* events around each launch, stream synchronized between samples */
    NB_MODE_BATCH = 1,      /* events around K back-to-back launches, sample = total / K      */
    NB_MODE_GRAPH = 2       /* K launches captured in a CUDA graph, replayed; sample = total / K */
} nb_mode;

/* "warm" / "cold" / "stage" and "per-launch" / "batch" / "graph". */
const char *nb_tier_name(nb_tier t);
const char *nb_mode_name(nb_mode m);
/* Parse those names; NB_ERR_INVALID_ARG with a message otherwise. */
nb_status nb_tier_parse(const char *s, nb_tier *out);
nb_status nb_mode_parse(const char *s, nb_mode *out);

/* Marks between the steps of one launch (stage tier breakdown pass). */
typedef struct nb_step_marks nb_step_marks;

/* Records the end of a step named `step` (e.g. "intt", "conv", "ntt",
 * "inner-product", "scalar"); `is_ntt` = 1 if the step is an NTT/iNTT (counted
 * in the NTT's share). `ntt_limbs` = limb-transforms the step performed (0 for
 * non-NTT steps); `inverse` = 1 for iNTT. GPU: records an event on the
 * workload's stream; CPU: reads the clock. Never allocates.
 * `marks` may be NULL: then the call does nothing and returns NB_OK, so one
 * function can serve as both launch (marks NULL) and launch_marked.
 * Step names are copied (at most 31 characters kept). At most NB_MAX_MARKS
 * marks per launch (NB_ERR_INVALID_ARG beyond). */
nb_status nb_step_mark(nb_step_marks *marks, const char *step, int is_ntt, size_t ntt_limbs,
                       int inverse);

/* What a tier times. Every function gets the workload's ctx.
 *
 * Life cycle under the runner: nb_bench_run() and nb_bench_breakdown() each
 * call setup() once at their start and teardown() once at their end (also on
 * failure), so one ctx can be run several times. The ctx itself is created
 * and destroyed by the workload's owner. */
typedef struct nb_workload_ops {
    /* Allocates `sets` independent input/output buffer sets (sets >= 1, chosen
     * by the rotation planner) and fills each with a valid random input;
     * untimed, called once per case. */
    nb_status (*setup)(void *ctx, size_t sets, void *stream);
    /* Bytes one launch must move through device (or main) memory: each input
     * read once and each output written once. Used by the rotation planner
     * and for bandwidth figures. */
    size_t (*bytes_per_launch)(const void *ctx);
    /* Restores set `set` to its saved input (untimed; used before a verified
     * launch). May be NULL if a launch does not modify its input. */
    nb_status (*prepare)(void *ctx, size_t set, void *stream);
    /* Enqueues one launch on set `set`: GPU work asynchronous on `stream` and
     * graph-capturable (no allocation, no synchronization); CPU work runs to
     * completion. */
    nb_status (*launch)(void *ctx, size_t set, void *stream);
    /* Optional (stage tier): like launch, but calls nb_step_mark() after each
     * step. NULL for single-step workloads. */
    nb_status (*launch_marked)(void *ctx, size_t set, void *stream, nb_step_marks *marks);
    /* Compares set `set`'s output (after prepare + launch) with the expected
     * result; NB_ERR_VERIFY with a message (limb, index, values) on mismatch. */
    nb_status (*verify)(void *ctx, size_t set, void *stream);
    /* Frees everything setup allocated; accepts a ctx whose setup failed. */
    void (*teardown)(void *ctx);

    /* ---- optional members (NULL = absent); added after the contract above ---- */

    /* Distinct bytes of one set that a launch touches (the set's cache
     * footprint). An in-place transform touches N*L*8 bytes while moving
     * 2*N*L*8: the planner sizes rotation by footprint. NULL = use
     * bytes_per_launch. */
    size_t (*footprint_bytes)(const void *ctx);
    /* The main input of set `set` (device pointer for GPU workloads), for
     * --l2-persist's access-policy window. NULL = --l2-persist unsupported. */
    nb_status (*input_region)(const void *ctx, size_t set, void **ptr, size_t *bytes);
} nb_workload_ops;

typedef struct nb_workload {
    const char *label;    /* "cpu-harvey fwd logn=16 L=32" */
    nb_backend backend;   /* which clock: CUDA events or CLOCK_MONOTONIC */
    const nb_workload_ops *ops;
    void *ctx;
} nb_workload;

/* ======================================================================
 * 2. Options of the sample loop
 * ====================================================================== */

typedef enum nb_cold_method {
    NB_COLD_FLUSH = 1,  /* before each sample, untimed: overwrite a scratch buffer of
                           2x the cache (GPU: L2 + persisting lines cleared; CPU: LLC) */
    NB_COLD_ROTATE = 2, /* rotate the input through buffer sets totalling >= 3x the cache */
    NB_COLD_BOTH = 3    /* both (default) */
} nb_cold_method;

/* "flush" / "rotate" / "both". */
const char *nb_cold_name(nb_cold_method c);
nb_status nb_cold_parse(const char *s, nb_cold_method *out);

/* A monotonic clock in seconds (tests inject a fake one). */
typedef double (*nb_clock_fn)(void *ctx);
/* Receives one-line warnings and progress notes (the library never prints). */
typedef void (*nb_log_fn)(void *ctx, const char *msg);

typedef struct nb_bench_opts {
    nb_tier tier;                  /* warm: one buffer set, no eviction; cold and stage: cache
                                      control per `cold` */
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
    /* cache control (cold and stage tiers) */
    nb_cold_method cold;           /* --cold both */
    size_t rotate_sets;            /* --sets K, 0 = automatic */
    double rotate_factor;          /* rotated bytes >= factor x cache when automatic (3) */
    double l2_persist;             /* --l2-persist F in [0, 1]; < 0 = off (warm tier only) */
    int nvtx;                      /* NVTX ranges around cases (1) */
    nb_log_fn log;                 /* optional warnings sink */
    void *log_ctx;
    nb_clock_fn clock;             /* CPU workloads only: NULL = CLOCK_MONOTONIC */
    void *clock_ctx;
} nb_bench_opts;

/* Fills `o` with the defaults listed above. */
void nb_bench_opts_default(nb_bench_opts *o);
/* NB_OK if every field is in range, else NB_ERR_INVALID_ARG naming the flag. */
nb_status nb_bench_opts_check(const nb_bench_opts *o);

/* CLOCK_MONOTONIC in seconds. */
double nb_now_s(void);

/* ======================================================================
 * 3. Statistics and the stopping rule
 * ====================================================================== */

typedef struct nb_stats {
    size_t n;
    double median, mean, min, max;
    double stddev;      /* sample standard deviation (n - 1); 0 when n < 2 */
    double noise_pct;   /* 100 * stddev / mean */
    double p10, p90;    /* linear interpolation between order statistics (numpy's default) */
    double ci_lo, ci_hi;/* distribution-free 95% confidence interval of the median: order
                           statistics x_(j), x_(n+1-j) from the Binomial(n, 1/2) law; when
                           n < 6 no such interval exists and [min, max] is given */
    double ci_level;    /* actual coverage of [ci_lo, ci_hi] (>= 0.95 when n >= 6) */
} nb_stats;

/* Statistics of x[0..n); n >= 1, every x finite. The input is not modified. */
nb_status nb_stats_compute(const double *x, size_t n, nb_stats *out);

/* Why a sample loop stopped. */
typedef enum nb_stop_reason {
    NB_STOP_CONVERGED = 0, /* min-samples, min-time and max-noise all met */
    NB_STOP_NOISE_STABLE,  /* min-samples and min-time met; noise above max-noise but the
                              noise estimate no longer changes (more samples will not help) */
    NB_STOP_MAX_SAMPLES,   /* max-samples reached first: flagged, never dropped */
    NB_STOP_TIMEOUT        /* timeout reached first: flagged, never dropped */
} nb_stop_reason;

/* "converged" / "noise-stable" / "max-samples" / "timeout". */
const char *nb_stop_reason_name(nb_stop_reason r);

#define NB_NOISE_WINDOW 512

/* The stopping rule, kept online (Welford mean/variance). Pure: the caller
 * passes sample times and the wall clock, so it is tested with a fake clock. */
typedef struct nb_stop_rule {
    size_t min_samples, max_samples;
    double min_time_s, max_noise_pct, timeout_s;
    double start_s;          /* wall clock at the first sample */
    size_t n;                /* accepted samples */
    double mean, m2, total_s;
    double noise_hist[NB_NOISE_WINDOW]; /* recent noise estimates (ring) */
    size_t hist_len, hist_pos;
} nb_stop_rule;

void nb_stop_rule_init(nb_stop_rule *r, const nb_bench_opts *o, double start_s);
/* Adds one accepted sample: `sample_s` (time per launch) feeds the noise
 * estimate, `measured_s` (the sample's whole measured time: K launches in
 * batch/graph modes) counts towards min-time. */
void nb_stop_rule_add(nb_stop_rule *r, double sample_s, double measured_s);
/* Current relative standard deviation in percent (infinity when n < 2). */
double nb_stop_rule_noise_pct(const nb_stop_rule *r);
/* 1 (and *why) when sampling should stop at wall time `now_s`:
 *   n >= max_samples                                   -> max-samples
 *   now_s - start_s >= timeout_s                       -> timeout
 *   n >= min_samples and total >= min_time and
 *     noise <= max_noise                               -> converged
 *     or, checked every 64 samples once >= 64 noise estimates exist, the recent
 *     estimates' relative standard deviation < 5 %     -> noise-stable */
int nb_stop_rule_done(const nb_stop_rule *r, double now_s, nb_stop_reason *why);

/* ======================================================================
 * 4. Cache planner
 * ====================================================================== */

/* Cache (bytes) the cold tier must defeat: the device's L2 for GPU (from
 * cudaDevAttrL2CacheSize), the last-level cache a core sees for CPU (sysfs,
 * then sysconf, else 32 MiB assumed and said so). */
nb_status nb_cache_bytes(nb_backend backend, size_t *bytes);

/* How a case uses buffer sets and eviction. Launch k (0 <= k < K) of sample i
 * uses set nb_cache_plan_set(p, i, k). */
typedef struct nb_cache_plan {
    nb_tier tier;
    nb_mode mode;
    size_t launches;       /* K per sample (1 in per-launch mode) */
    size_t sets;           /* buffer sets to allocate */
    size_t graphs;         /* distinct graphs to capture in graph mode (1 otherwise) */
    int flush;             /* evict before each sample */
    size_t cache_bytes;    /* cache size planned against */
    size_t footprint;      /* distinct bytes one launch touches */
    double allocated_bytes;/* sets * footprint */
    double reuse_bytes;    /* fewest bytes the schedule touches between two uses of one set's
                              data (own set included); infinity if never reused */
    double first_reuse_bytes; /* same, for launch 0 of a sample (after a flush when flush) */
} nb_cache_plan;

/* Plans a case. Warm tier: one set, no flush. Cold/stage tiers: flush if
 * cold has FLUSH; with ROTATE, sets = requested or ceil(factor * cache /
 * footprint); graph mode rounds sets up to a multiple of K and captures
 * sets / K graphs replayed round-robin. Then nb_cache_plan_check() runs on
 * the actual schedule: NB_ERR_INVALID_ARG if some launch's data could still be
 * in the cache (reuse distance below the cache size, not covered by a flush). */
nb_status nb_cache_plan_make(nb_cache_plan *p, nb_tier tier, nb_cold_method cold, nb_mode mode,
                             size_t batch, size_t footprint, size_t cache_bytes,
                             size_t requested_sets, double factor);

/* Set used by launch k of sample i. */
size_t nb_cache_plan_set(const nb_cache_plan *p, size_t sample, size_t k);

/* Simulates the schedule of p (2 full cycles) and fills reuse_bytes and
 * first_reuse_bytes; for cold/stage tiers returns NB_ERR_INVALID_ARG with a
 * message if a launch not preceded by a flush can find its data in a cache of
 * cache_bytes (bytes touched since its last use < cache_bytes). A graph that
 * replays only a few of the rotated sets is caught here. */
nb_status nb_cache_plan_check(nb_cache_plan *p);

/* ======================================================================
 * 5. Environment snapshots (NVML), results, the runner
 * ====================================================================== */

/* GPU clocks from NVML (libnvidia-ml.so.1 loaded at run time). When NVML is
 * absent or fails, available = 0 and note says why: never an error. */
typedef struct nb_nvml_snapshot {
    int available;
    unsigned sm_mhz, mem_mhz;          /* current clocks */
    unsigned long long event_reasons;  /* clock-event (throttle) reason bitmask */
    char reasons[160];                 /* decoded: "idle,sw-power-cap" or "none" */
    int temperature_c;                 /* -1 when unavailable */
    double power_w;                    /* < 0 when unavailable */
    char note[96];
} nb_nvml_snapshot;

/* Snapshot of device 0 (the device nttbench uses). Never fails. */
void nb_nvml_snapshot_take(nb_nvml_snapshot *s);

/* One case's measurement. Arrays are owned: free with nb_bench_result_free. */
typedef struct nb_bench_result {
    nb_tier tier;
    nb_mode mode;
    nb_backend backend;
    size_t launches_per_sample; /* K (1 in per-launch mode) */
    size_t n_samples;           /* accepted samples */
    double *sample_s;           /* [n_samples] seconds per launch (total / K) */
    double *sample_clock_mhz;   /* [n_samples] SM clock over the sample; NAN when unknown */
    nb_stats stats;             /* of sample_s */
    nb_stop_reason stop;
    int noise_target_met;       /* noise <= max-noise at the end */
    size_t warmup_samples;
    size_t throttled_samples;   /* discarded: SM clock below the threshold */
    double measured_s;          /* sum of accepted sample totals */
    double wall_s;              /* wall time of the sampling phase */
    double default_clock_mhz;   /* device default SM clock (0 unknown) */
    int blocked;                /* 1 if samples were taken behind the blocking kernel */
    nb_cache_plan cache;
    double flush_bytes;         /* scratch written per flush (0 if none) */
    double persist_bytes;       /* --l2-persist window (0 if none) */
    double persist_hit_ratio;
    int verified_before;        /* 1 pass, -1 fail, 0 not run */
    int verified_after;
    char message[320];          /* verification failure or warning, "" if none */
    nb_nvml_snapshot nvml_before, nvml_after;
} nb_bench_result;

void nb_bench_result_free(nb_bench_result *r); /* frees the arrays; accepts NULL */

/* Times workload `w` with the sample loop:
 *   plan cache use -> setup(sets) -> [GPU: allocate flush scratch, clear persisting L2 lines
 *   (cold) or set the persistence window (--l2-persist)] -> verify set 0 (prepare, launch,
 *   verify) -> graph capture (graph mode) -> warm-up -> samples until the stopping rule
 *   fires -> verify again (the first and the last used set) -> teardown.
 * Per-launch GPU samples are taken behind a blocking kernel (events bracket device work
 * only); each sample's SM clock comes from a clock probe outside the events, and samples
 * below the throttle threshold are discarded (counted) after a back-off.
 * Nothing is allocated or synchronized between a sample's start and stop.
 * `stream` is the workload's stream (required for GPU workloads, ignored for CPU).
 * Returns NB_ERR_VERIFY (result filled, verified_* and message set) if a verification
 * failed: before the first sample nothing is timed. NB_ERR_NO_DEVICE for a GPU workload
 * without a device; NB_ERR_TIMEOUT if the blocking kernel timed out (the launch blocked
 * the host); NB_ERR_UNSUPPORTED for graph mode on a CPU workload. On any error the
 * result holds what was measured so far (free it either way). */
nb_status nb_bench_run(const nb_workload *w, void *stream, const nb_bench_opts *o,
                       nb_bench_result *out);

/* ---- breakdown pass (stage tier) ---- */

#define NB_MAX_MARKS 1024 /* marks per launch */
#define NB_MAX_STEPS 64   /* distinct step names per launch */

typedef struct nb_step_stat {
    char name[32];
    int is_ntt, inverse;
    size_t count;       /* marks with this name per launch */
    size_t ntt_limbs;   /* limb-transforms per launch */
    double median_s;    /* median over passes of the step's time per launch */
    double share;       /* median_s / sum of all steps' medians */
} nb_step_stat;

typedef struct nb_breakdown {
    size_t passes;
    size_t n_steps;             /* distinct names, in order of first appearance */
    nb_step_stat steps[NB_MAX_STEPS];
    double sum_s;               /* sum of the steps' medians */
    double launch_s;            /* median of a whole marked launch (first to last mark) */
    double ntt_s, ntt_share;    /* NTT steps' time and share of sum_s */
    size_t ntt_fwd_limbs, ntt_inv_limbs; /* limb-transforms per launch by direction */
    int blocked;                /* GPU: steps were queued behind the blocking kernel */
} nb_breakdown;

/* Runs `passes` (0 = max(min_samples, 20)) marked launches of `w` (which must
 * have launch_marked) with the same cache control as nb_bench_run under `o`
 * (flush / rotate per tier), one launch per pass, and returns each step's
 * median time and share, the NTT share and the limb-transform counts. The
 * marked path is verified before the first and after the last pass. Names are
 * merged: a step name marked several times per launch (one "ntt" per digit)
 * is one entry whose time is the sum. Every pass must mark the same sequence
 * (NB_ERR_INTERNAL otherwise). Separate from nb_bench_run so the timed pass is
 * not disturbed by events between steps. */
nb_status nb_bench_breakdown(const nb_workload *w, void *stream, const nb_bench_opts *o,
                             size_t passes, nb_breakdown *out);

/* ======================================================================
 * 6. Environment, NVTX
 * ====================================================================== */

typedef struct nb_env {
    char version[32], git_commit[48], timestamp_utc[32];
    char host_cpu[128], host_os[128];
    int host_cores, omp_threads;
    size_t host_llc_bytes, host_mem_bytes;
    char host_llc_source[32];  /* "sysfs", "sysconf" or "assumed" */
    double host_copy_Bps;      /* memcpy, bytes read + written per second (0 = not measured) */
    int has_gpu;               /* 0: the GPU fields are empty */
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
} nb_env;

/* Collects the environment: host always; GPU device 0 when `gpu` and a device
 * exists (else has_gpu = 0); copy bandwidths are measured when `measure` (a
 * few tens of milliseconds). Never fails for a missing GPU or NVML. */
nb_status nb_env_collect(nb_env *e, int gpu, int measure);

/* Memory copy bandwidth (bytes read + written per second) of a `bytes` copy,
 * best of a few repetitions: memcpy for CPU, a device copy kernel for GPU. */
nb_status nb_measure_copy_bandwidth(nb_backend backend, size_t bytes, double *Bps);

/* The device's current persisting-L2 set-aside (cudaLimitPersistingL2CacheSize):
 * 0 unless something pinned lines; --l2-persist restores it after its case. */
nb_status nb_gpu_l2_persisting_limit(size_t *bytes);

/* NVTX ranges (no-ops without CUDA or when no tool listens). */
void nb_nvtx_push(const char *name);
void nb_nvtx_pop(void);

/* ======================================================================
 * 7. Workloads the core ships and per-case figures
 * ====================================================================== */

/* An NTT workload: `limbs` primes of `prime_bits` bits (the largest NTT-
 * friendly ones, from nb_primes_generate), forward (inverse = 0) or inverse,
 * in place on each buffer set. Inputs are seeded random residues (never zero
 * limbs) regenerated per set from `seed`; verify() compares with cpu-harvey
 * (itself checked against the GMP reference in the tests). The plan is built on
 * `stream`. Reports footprint N*L*8, bytes_per_launch 2*N*L*8, and supports
 * --l2-persist. */
nb_status nb_ntt_workload_create(nb_workload **out, const nb_ntt_variant *variant,
                                 unsigned log_n, size_t limbs, unsigned prime_bits, int inverse,
                                 uint64_t seed, void *stream);
void nb_ntt_workload_destroy(nb_workload *w);
/* The workload's tables (primes, roots), NULL for a non-NTT workload. */
const nb_ntt_tables *nb_ntt_workload_tables(const nb_workload *w);

/* A copy of `bytes` (dst and src per set) on the given backend: a device copy
 * kernel or memcpy. Verified by comparison. Used by calibrate. */
nb_status nb_copy_workload_create(nb_workload **out, nb_backend backend, size_t bytes);
/* An empty kernel (GPU) / empty function (CPU): launch overhead. */
nb_status nb_empty_workload_create(nb_workload **out, nb_backend backend);
void nb_simple_workload_destroy(nb_workload *w); /* for copy and empty workloads */

/* Figures of one NTT case (docs/methodology.md, "Bandwidth model"). */
typedef struct nb_ntt_figures {
    double coefficient_bytes;   /* 2 * 8 * N * L: each coefficient read and written once */
    double twiddle_bytes;       /* 2 * 8 * N * L: the table and its Shoup companions, read once */
    double bandwidth_Bps;       /* coefficient_bytes / median */
    double bandwidth_with_twiddles_Bps; /* (coefficient + twiddle bytes) / median */
    double frac_copy;           /* bandwidth_Bps / measured copy bandwidth (NAN unknown) */
    double frac_peak;           /* bandwidth_Bps / theoretical peak (NAN unknown) */
    double butterflies_per_s;   /* N/2 * log N * L / median */
} nb_ntt_figures;

/* copy_Bps, peak_Bps <= 0 mean unknown. */
void nb_ntt_figures_compute(unsigned log_n, size_t limbs, double median_s, double copy_Bps,
                            double peak_Bps, nb_ntt_figures *f);

/* ======================================================================
 * 8. Reports
 * ====================================================================== */

typedef enum nb_format {
    NB_FORMAT_TABLE = 0, /* aligned text for a terminal */
    NB_FORMAT_MD = 1,    /* GitHub markdown table */
    NB_FORMAT_CSV = 2,   /* one row per case, RFC 4180 quoting */
    NB_FORMAT_JSON = 3   /* everything, every sample (docs/cli.md, schema) */
} nb_format;

const char *nb_format_name(nb_format f);
nb_status nb_format_parse(const char *s, nb_format *out);

#define NB_REPORT_SCHEMA "nttbench-report"
#define NB_REPORT_SCHEMA_VERSION 1

typedef enum nb_case_status {
    NB_CASE_OK = 0,
    NB_CASE_VERIFY_FAILED, /* wrong result: reported, never timed (or caught after timing) */
    NB_CASE_ERROR,         /* the case could not run (message says why) */
    NB_CASE_SKIPPED        /* not applicable (size outside the variant's range, ...) */
} nb_case_status;

const char *nb_case_status_name(nb_case_status s);

/* One row of a report: what was measured (tier, variant, parameters) and the
 * result. Parameters are ordered key/value pairs ("direction"="forward",
 * "log_n"=16, "limbs"=8 ...); metrics are extra named numbers ("per_ntt_ns"). */
typedef struct nb_case nb_case;

nb_status nb_case_create(nb_case **out, nb_tier tier, const char *variant, nb_backend backend,
                         const char *label);
void nb_case_destroy(nb_case *c);
nb_status nb_case_param_int(nb_case *c, const char *key, long long value);
nb_status nb_case_param_str(nb_case *c, const char *key, const char *value);
nb_status nb_case_param_u64_list(nb_case *c, const char *key, const uint64_t *v, size_t n);
nb_status nb_case_metric(nb_case *c, const char *key, double value);
/* Status and a one-line message (copied; NULL = none). */
void nb_case_set_status(nb_case *c, nb_case_status s, const char *message);
/* Copies r (samples included). */
nb_status nb_case_set_result(nb_case *c, const nb_bench_result *r);
void nb_case_set_figures(nb_case *c, const nb_ntt_figures *f);
void nb_case_set_breakdown(nb_case *c, const nb_breakdown *b);
nb_case_status nb_case_get_status(const nb_case *c);

typedef struct nb_report nb_report;

/* `kind`: "run", "verify", ... (the "command" field of the JSON). */
nb_status nb_report_create(nb_report **out, const char *kind);
void nb_report_destroy(nb_report *r);
nb_status nb_report_set_argv(nb_report *r, int argc, char *const *argv);
void nb_report_set_env(nb_report *r, const nb_env *e);
void nb_report_set_options(nb_report *r, const nb_bench_opts *o);
/* Takes ownership of c (also on failure). */
nb_status nb_report_add_case(nb_report *r, nb_case *c);
size_t nb_report_case_count(const nb_report *r);
const nb_case *nb_report_case_at(const nb_report *r, size_t i);

/* Writes the report to `f` in format `fmt`. */
nb_status nb_report_write(const nb_report *r, nb_format fmt, FILE *f);

/* Writes through `fn` into `path` + ".tmp.<pid>", flushes, fsyncs and renames
 * over `path`: a reader never sees a truncated file. "-" = stdout. */
typedef nb_status (*nb_writer_fn)(void *ctx, FILE *f);
nb_status nb_write_file_atomic(const char *path, nb_writer_fn fn, void *ctx);

/* nb_report_write into a file, atomically ("-" = stdout). */
nb_status nb_report_write_file(const nb_report *r, nb_format fmt, const char *path);

/* The environment alone (nttbench env): table, md, csv (key,value) or JSON. */
nb_status nb_env_write(const nb_env *e, nb_format fmt, FILE *f);

/* ======================================================================
 * 9. Calibration
 * ====================================================================== */

#define NB_CALIB_MAX_POINTS 16

typedef struct nb_calib_point {
    double working_set_bytes; /* copy footprint: source + destination */
    double hot_s, cold_s;     /* median per copy, warm (repeated) and after a flush */
    double hot_Bps, cold_Bps; /* bytes read + written per second */
    double gap;               /* cold_s / hot_s - 1 */
} nb_calib_point;

typedef struct nb_calibration {
    nb_backend backend;
    size_t cache_bytes;         /* L2 or LLC */
    double copy_Bps;            /* large copy (>= 8x cache), read + written per second */
    double cache_Bps;           /* best hot copy among the points with footprint <= cache/2 */
    double launch_batch_s;      /* empty launch, back-to-back (batch mode) per launch */
    double launch_device_s;     /* empty kernel, device time behind the blocking kernel */
    double launch_sync_s;       /* host round trip: launch + stream synchronize */
    size_t n_points;
    nb_calib_point points[NB_CALIB_MAX_POINTS];
    double gap_threshold;       /* a point "shows the gap" when gap > this (0.10) */
    double gap_appears_below_bytes; /* largest working set showing the gap (0 = none) */
} nb_calibration;

/* Measures everything above with the sample loop (options `o`: its stopping
 * rule applies to each measurement). The hot/cold experiment copies working
 * sets from cache/16 to 4x cache. */
nb_status nb_calibrate(nb_backend backend, void *stream, const nb_bench_opts *o,
                       nb_calibration *out);
nb_status nb_calibration_write(const nb_calibration *c, const nb_env *e, nb_format fmt,
                               FILE *f);

#ifdef __cplusplus
}
#endif
#endif

/* One timed case: nb_bench_run (the sample loop, run as named phases) and
 * nb_bench_breakdown (the marked pass), their results, and the types those
 * results hold (statistics, stop reason, cache plan, NVML snapshots). */
#ifndef NB_BENCH_RUN_H
#define NB_BENCH_RUN_H

#include "bench/timing/contention.h"
#include "bench/timing/options.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_stats {
    size_t n;
    double median, mean, min, max;
    double stddev;      /* sample standard deviation (n - 1); NaN (unknown) when n < 2 */
    double noise_pct;   /* 100 * stddev / mean; NaN when n < 2 */
    double p10, p90;    /* linear interpolation between order statistics (numpy's default) */
    double ci_lo, ci_hi;/* distribution-free 95% confidence interval of the median: order
                           statistics x_(j), x_(n+1-j) from the Binomial(n, 1/2) law; when
                           n < 6 no such interval exists and [min, max] is given */
    double ci_level;    /* actual coverage of [ci_lo, ci_hi] (>= 0.95 when n >= 6) */
} nb_stats;


/* Why a sample loop stopped. */
typedef enum nb_stop_reason {
    NB_STOP_CONVERGED = 0, /* min-samples, min-time and max-noise all met */
    NB_STOP_NOISE_STABLE,  /* min-samples and min-time met; noise above max-noise but the
                              noise estimate no longer changes (more samples will not help) */
    NB_STOP_MAX_SAMPLES,   /* max-samples reached first: flagged, never dropped */
    NB_STOP_TIMEOUT,       /* timeout reached first: flagged, never dropped */
    NB_STOP_INTERRUPTED    /* opts.interrupt was raised: the sample under way finished, the
                              case stopped there */
} nb_stop_reason;

/* "converged" / "noise-stable" / "max-samples" / "timeout" / "interrupted". */
const char *nb_stop_reason_name(nb_stop_reason r);

/* How a case uses buffer sets and eviction. Launch k (0 <= k < K) of sample i
 * uses set nb_cache_plan_set(p, i, k). */
typedef struct nb_cache_plan {
    nb_cache_state cache;  /* the state planned for */
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

/* Snapshot of the calling thread's current CUDA device (NVML matched by PCI
 * bus id). Never fails. */
void nb_nvml_snapshot_take(nb_nvml_snapshot *s);

/* One case's measurement. Arrays are owned: free with nb_bench_result_free. */
typedef struct nb_bench_result {
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
    size_t sampling_syncs;      /* batches of the sampling phase: host synchronisations on the
                                   GPU (one per sample with --batch-samples 1) */
    size_t batch_max;           /* most samples one batch held (1 when unbatched) */
    /* where the rest of the run's wall time went (seconds) */
    double setup_s;             /* open: buffer sets drawn and copied in, flush scratch */
    double verify_s;            /* the verifications before and after timing */
    double warmup_s;            /* the warm-up */
    double run_s;               /* the whole of nb_bench_run, open to close */
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
    nb_contention contention;   /* host interference over the sampling (CPU workloads) */
} nb_bench_result;

void nb_bench_result_free(nb_bench_result *r); /* frees the arrays; accepts NULL */

/* Times workload `w` with the sample loop:
 *   plan cache use -> setup(sets) -> [GPU: allocate flush scratch, clear persisting L2 lines
 *   (cold) or set the persistence window (--l2-persist)] -> verify set 0 (prepare, launch,
 *   verify) -> graph capture (graph mode) -> warm-up -> samples until the stopping rule
 *   fires -> verify again (the first and the last used set) -> teardown.
 * Per-launch and graph GPU samples are taken behind a blocking kernel (events bracket
 * device work only), up to o->batch_samples of them, each with its own events, behind one
 * blocking kernel and one synchronisation; a batch's SM clock comes from clock probes
 * outside the events, and a batch below the throttle threshold is discarded (its samples
 * counted) after a back-off.
 * Nothing is allocated or synchronized between a sample's start and stop.
 * `stream` is the workload's stream (required for GPU workloads, ignored for CPU).
 * Returns NB_ERR_VERIFY (result filled, verified_* and message set) if a verification
 * failed: before the first sample nothing is timed. NB_ERR_NO_DEVICE for a GPU workload
 * without a device; NB_ERR_TIMEOUT if the blocking kernel timed out (the launch blocked
 * the host); NB_ERR_UNSUPPORTED for graph mode on a CPU workload. On any error the
 * result holds what was measured so far (free it either way). */
nb_status nb_bench_run(const nb_workload *w, void *stream, const nb_bench_opts *o,
                       nb_bench_result *out);

/* ---- breakdown pass (workloads with a marked launch) ---- */

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
 * (flush / rotate per cache state), one launch per pass, and returns each step's
 * median time and share, the NTT share and the limb-transform counts. The
 * marked path is verified before the first and after the last pass. Names are
 * merged: a step name marked several times per launch (one "ntt" per digit)
 * is one entry whose time is the sum. Every pass must mark the same sequence
 * (NB_ERR_INTERNAL otherwise). Separate from nb_bench_run so the timed pass is
 * not disturbed by events between steps. */
nb_status nb_bench_breakdown(const nb_workload *w, void *stream, const nb_bench_opts *o,
                             size_t passes, nb_breakdown *out);

#ifdef __cplusplus
}
#endif
#endif

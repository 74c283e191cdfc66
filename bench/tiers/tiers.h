/* The tiers: what is timed, one file each, registered in one table
 * (bench/tiers/table.c). A tier builds its cases from a sweep (variants,
 * sizes, directions, modes) under one cache state and adds them to a report;
 * the cache state is the caller's choice among the states the tier allows.
 * Every tier is callable from C: fill an nb_tier_run and call nb_tier_run(). */
#ifndef NB_TIERS_H
#define NB_TIERS_H

#include "bench/report/report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The axes a run sweeps; a tier ignores the axes it has no use for (the stage
 * tier takes its sizes from its parameter sets). Variants are resolved once
 * by the caller. */
typedef struct nb_sweep {
    const nb_ntt_variant *const *variants;
    size_t n_variants;
    const unsigned *log_n;
    size_t n_log_n;
    const size_t *limbs;
    size_t n_limbs;
    const unsigned *prime_bits;
    size_t n_prime_bits;
    int directions;       /* bit 0 forward, bit 1 inverse */
    const nb_mode *modes;
    size_t n_modes;
    uint64_t seed;        /* inputs of every case derive from it */
    /* The prime sizes of the 32-bit variants (n_prime_bits_32 = 0: prime_bits
     * for every variant). */
    const unsigned *prime_bits_32;
    size_t n_prime_bits_32;
    /* Moduli in bits (n_log_q > 0): they replace the limbs axis, each case
     * taking the limb count nb_ntt_limbs_for_log_q picks for its log N and
     * prime size (bench/tiers/ntt.h). */
    const unsigned *log_q;
    size_t n_log_q;
} nb_sweep;

/* Called after each case, once the case is in the report: `what` names it
 * (nb_case_name), `result` summarises it. */
typedef void (*nb_progress_fn)(void *ctx, const char *what, const char *result);

/* A case as the sweep plans it, before anything of it is built: what
 * `nttbench run --list` prints and `--filter` matches, and what a time
 * estimate needs. */
typedef struct nb_case_plan {
    const char *name;               /* nb_case_name (bench/report/report.h) */
    const nb_ntt_variant *variant;
    nb_cache_state cache;           /* the state it runs in */
    double set_bytes;               /* one buffer set: its data (stage: approximate) */
    size_t timed_runs;              /* sampling loops: 1, plus the stage tier's NTT
                                       micro-benchmarks (4) on the first case of a level */
    int skipped;                    /* 1: a skipped row (nothing built or timed) */
    double host_bytes, device_bytes; /* what the case checks it can allocate before it
                                        builds anything (nb_memory_fit; 0: not checked) */
    const char *fails;              /* why the case will be an error row, when known before
                                       it is built (e.g. primes that do not exist); else NULL */
} nb_case_plan;

/* Asked once per case, in sweep order, before the case is built: nonzero
 * keeps it, zero drops it (neither run nor reported). */
typedef int (*nb_case_select_fn)(void *ctx, const nb_case_plan *c);

/* One call of one tier. */
typedef struct nb_tier_run {
    nb_report *report;      /* cases are added here (required) */
    const nb_env *env;      /* copy bandwidths and peak for figures; NULL = unknown */
    void *stream;           /* stream of the GPU variants (required when there are any) */
    nb_bench_opts timing;   /* timing options; timing.cache is the state of this call */
    nb_sweep sweep;
    const void *tier_opts;  /* the tier's own options (stage: nb_stage_tier_opts); NULL =
                               its defaults */
    nb_progress_fn progress;
    void *progress_ctx;
    /* Optional: which cases run (NULL: all). A stage tier's micro-benchmarks
     * run only for levels that keep a case. */
    nb_case_select_fn select;
    void *select_ctx;
    /* Nonzero: plan only. Each case is shown to `select` (required) and
     * nothing is built, timed or reported; the same sweep order and names
     * as a real run. */
    int plan_only;
    /* Optional: a profiler pass of each GPU case timed without error (NTT
     * cases, and one-GPU stage cases), run after its workload is freed:
     * `name` as nb_case_name makes it, `cache` its state. NB_OK fills *out,
     * which the case then carries; an error leaves the case as it was timed
     * (the callback tells the user why). NULL: no pass. */
    nb_status (*profile)(void *ctx, const char *name, nb_cache_state cache, nb_profile *out);
    void *profile_ctx;
    /* Nonzero: the process is a profiler pass's target: each GPU case
     * kept runs one call between profiler start and stop
     * (nb_bench_profile_call) instead of being timed, and is reported
     * without a time. */
    int profile_call;
} nb_tier_run;

typedef struct nb_tier {
    const char *name;          /* "ntt", "stage" */
    const char *description;   /* one line for `nttbench list` */
    unsigned cache_states;     /* allowed states: bit (1 << nb_cache_state) each */
    unsigned default_states;   /* states run when the caller names none */
    /* Builds and runs its cases into r->report. A case that fails (wrong
     * result, unsupported size, out of memory, CUDA error) is a report row
     * with its status and the sweep goes on; the return value is an error only
     * when the run cannot go on (bad options, the report itself failing). Once
     * r->timing.interrupt is raised no further case starts. */
    nb_status (*run)(const nb_tier_run *r);
} nb_tier;

/* The table, in order. */
size_t nb_tier_count(void);
const nb_tier *nb_tier_at(size_t i);
/* By name; NULL (and the message names the tiers) when unknown. */
const nb_tier *nb_tier_find(const char *name);

/* Checks that r->timing.cache is allowed for `tier` and the options are in
 * range, then runs it. NB_ERR_INVALID_ARG naming the tier and state otherwise. */
nb_status nb_tier_run_one(const nb_tier *tier, const nb_tier_run *r);

/* Shared by the tiers: the case status of a failed measurement (verify ->
 * verify-failed, unsupported -> skipped, else error), the progress call, and
 * the selection: 1 when the case is to be built and run (r->select keeps it
 * and the run is not plan-only), else 0. */
nb_case_status nb_tier_case_status(nb_status s);
void nb_tier_progress(const nb_tier_run *r, const char *what, const char *result);
int nb_tier_select(const nb_tier_run *r, const nb_case_plan *c);
/* After a case on `backend` is measured: when r->profile is set, the process
 * is not a profiler pass's target, the backend is the GPU and c's status is
 * ok, r->profile's pass of it (`what`, its name), the figures kept in c when
 * the pass succeeds; nothing otherwise. */
void nb_tier_profile(const nb_tier_run *r, nb_backend backend, nb_case *c, const char *what);

/* The rows of the table (one file each). */
nb_status nb_tier_ntt_run(const nb_tier_run *r);
nb_status nb_tier_stage_run(const nb_tier_run *r);

#ifdef __cplusplus
}
#endif
#endif

/* The stage tier: CKKS stages (modUp of every digit, modDown, the full key
 * switch, rescale) as workloads of the shared timing core, so a stage is
 * timed exactly like an NTT (warm-up, stopping rule, statistics, cache
 * control in any cache state: by default inputs rotated through buffer sets
 * larger than the cache and the cache evicted), plus
 * a breakdown pass with a mark between the steps and the comparison of the
 * in-stage time per NTT with the same variant's warm and cold
 * micro-benchmarks at the same size. docs/ckks.md, "Stage tier". */
#ifndef NB_STAGE_H
#define NB_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "bench/report/report.h"
#include "ckks/ckks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "modup" / "moddown" / "keyswitch" / "rescale". */
const char *nb_stage_name(nb_ckks_stage s);
nb_status nb_stage_parse(const char *s, nb_ckks_stage *out);
/* Comma-separated list ("modup,keyswitch") in its order, a repeated name
 * kept once; at most `max` entries. NB_ERR_INVALID_ARG for an empty list or
 * item or an unknown name. */
nb_status nb_stage_parse_list(const char *csv, nb_ckks_stage *out, size_t max, size_t *count);

/* One stage case. */
typedef struct nb_stage_config {
    nb_ckks_stage stage;
    size_t level;              /* level the stage runs at; SIZE_MAX = the set's top level L */
    nb_ckks_rounding rounding; /* rescale only (default floor) */
    uint64_t seed;             /* inputs and keys of set s derive from (seed, s) */
    size_t gpus;               /* 0 or 1: the one-GPU pipeline; G > 1: the limbs split
                                  across GPUs 0..G-1 (nb_ckks_multi) */
    int trace;                 /* 1: after the breakdown, the kernel trace of one marked
                                  launch (nb_bench_trace), every device's activities */
    int profile_call;          /* 1: a profiler pass's target: one call between profiler
                                  start and stop (nb_bench_profile_call), not timed */
} nb_stage_config;

/* " floor" or " round" for a rescale (its rounding mode, for labels), ""
 * for every other stage and a NULL cfg. */
const char *nb_stage_rounding_suffix(const nb_stage_config *cfg);

/* The label of a stage case's report row: "<stage>[ floor|round] <set> l=<level>"
 * (cfg->level SIZE_MAX: the set's top level), then " gpus=<G>" for G > 1;
 * "" when params or cfg is NULL, nothing written when buf is NULL or n 0. */
void nb_stage_case_label(char *buf, size_t n, const nb_ckks_params *params,
                         const nb_stage_config *cfg);

/* A stage workload over `params` with `variant` (params outlive it).
 * Per buffer set: the stage's input, its output and (keyswitch) its own
 * random key-switch key (uniform residues: benchmarking needs no real key,
 * the work is identical). Shared by the sets: the nb_ckks scratch (the
 * pipelines' working buffers, like a library's memory pool). Footprint and
 * bytes per launch count input + key + output, each once.
 * Inputs and keys are counter-based draws (nb_rng_fill_limbs_at) from keys
 * derived from cfg->seed: set s's values do not depend on the set count.
 * verify(): the set's output against the CPU pipeline with cpu-harvey (which
 * test_ckks_pipeline checks bit-exact against the GMP reference), computed on
 * the host once per set checked and kept until the workload is destroyed. */
/* Freed by nb_workload_destroy. */
nb_status nb_stage_workload_create(nb_workload **out, const nb_ckks_params *params,
                                   const nb_ntt_variant *variant, const nb_stage_config *cfg,
                                   void *stream);
/* The bytes of one buffer set of `stage` at level l of the set p, on the
 * words p is made for: input + key + output, each once (what the workload's
 * footprint and bytes per launch count; for a case list's estimate before any
 * workload exists). */
double nb_stage_set_bytes(const nb_ckks_params *p, nb_ckks_stage stage, size_t l);
/* Limb-transforms one launch performs, by direction. */
void nb_stage_workload_ntt_counts(const nb_workload *w, size_t *forward_limbs,
                                  size_t *inverse_limbs);

/* The NTT micro-benchmarks a stage is compared with: the variant's forward
 * and inverse transforms of `limbs` primes of the set's q_bits at its N,
 * with a warm cache and a cold one, as time per limb-transform (NAN when not measured). */
typedef struct nb_stage_micro {
    unsigned log_n;
    size_t limbs;
    double warm_fwd_s, cold_fwd_s, warm_inv_s, cold_inv_s; /* per limb-transform */
    char message[200]; /* why a measurement is missing, or the first that missed its noise
                          target ("" if none) */
} nb_stage_micro;

/* Measures the four micro-benchmarks with nb_bench_run under `o` (its cache
 * state is overridden: warm, then o's cold state or NB_CACHE_COLD when o is
 * warm). limbs = level + 1 (the Q_l batch). Failures are
 * recorded in message, never returned, except NB_ERR_INVALID_ARG. */
nb_status nb_stage_micro_measure(nb_stage_micro *m, const nb_ckks_params *params,
                                 const nb_ntt_variant *variant, size_t level,
                                 const nb_bench_opts *o, void *stream);

/* Times one stage case end to end and returns it as a report row:
 * nb_bench_run (o's mode and cache state; tier word "stage"), then the breakdown
 * pass (`passes`, 0 = the core's default), then the figures:
 * parameters  preset, stage, log_n, levels (L), level, dnum, alpha, q0/q/p bits,
 *             rounding (rescale), digits;
 * metrics     ntt_fwd_limbs, ntt_inv_limbs, stage_median_ns,
 *             in_stage_fwd_ns_per_limb, in_stage_inv_ns_per_limb (from the
 *             breakdown's "ntt" / "intt" steps), ntt_share, breakdown_sum_ns,
 *             breakdown_vs_stage (sum of step medians / stage median),
 *             and, when `micro` is given, warm_/cold_fwd/inv_ns_per_limb and
 *             in_stage_vs_warm_fwd / in_stage_vs_cold_fwd ratios;
 * kernels    of a GPU case, the kernels one verified call launches with their
 *             resources (nb_bench_kernel_log), or why they are not known;
 * with cfg->trace, the kernel trace of a GPU case (nb_bench_trace, its step
 * event times from the breakdown) or, when it cannot be recorded (no CUPTI,
 * a CPU variant, CUPTI held by a profiler), why; a trace never changes the
 * case's status. With cfg->profile_call the case is not timed: one call
 * runs between profiler start and stop and the case says "one call
 * profiled" (or why not).
 * The case carries the status (ok, verify-failed, error) and message; the
 * return value is NB_OK unless the case could not be built (out of memory). */
nb_status nb_stage_run_case(nb_case **out, const nb_ckks_params *params,
                            const nb_ntt_variant *variant, const nb_stage_config *cfg,
                            const nb_stage_micro *micro, const nb_bench_opts *o,
                            size_t passes, void *stream);

/* The stage tier's own options (nb_tier_run.tier_opts). */
typedef struct nb_stage_tier_opts {
    nb_ckks_stage stages[4];      /* stages to time, in order */
    size_t n_stages;
    const char *const *presets;   /* CKKS presets by name; none = the default of the backend
                                     (GPU ckks16-l30-d3, CPU test-medium) unless custom */
    size_t n_presets;
    const size_t *levels;         /* levels the stages run at; none = the set's top level */
    size_t n_levels;
    int custom;                   /* also a custom set per sweep log_n: */
    size_t custom_levels, dnum, q_bits, q0_bits, p_bits; /* q0_bits 0 = p_bits */
    nb_ckks_rounding rounding;    /* rescale */
    size_t passes;                /* breakdown passes (0 = the core's default) */
    int trace;                    /* GPU cases: the kernel trace after the breakdown (0) */
    int micro;                    /* measure the NTT micro-benchmarks (1) */
    const size_t *gpus;           /* GPU counts each GPU case runs on; none = 1 */
    size_t n_gpus;
} nb_stage_tier_opts;

/* All four stages, the default preset, top level, dnum 3, 51-bit q, 62-bit p,
 * floor rounding, micro-benchmarks on. */
void nb_stage_tier_opts_default(nb_stage_tier_opts *o);

#ifdef __cplusplus
}
#endif
#endif

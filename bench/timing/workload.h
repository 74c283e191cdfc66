/* The workload contract of the timing core: what a timed thing must provide
 * (set up buffer sets, launch on a set, verify a set, free itself), the
 * launch modes and cache states a run can ask for, and the step marks a
 * marked launch records for the breakdown pass. The core knows workloads, not
 * tiers: a tier (bench/tiers/) builds workloads and hands them to the core. */
#ifndef NB_BENCH_WORKLOAD_H
#define NB_BENCH_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "ntt/ntt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nb_mode {
    NB_MODE_PER_LAUNCH = 0, /* events around each launch, stream synchronized between samples */
    NB_MODE_BATCH = 1,      /* events around K back-to-back launches, sample = total / K      */
    NB_MODE_GRAPH = 2       /* K launches captured in a CUDA graph, replayed; sample = total / K */
} nb_mode;

/* The cache state a case is measured in, independent of what is timed.
 * Bits: EVICTED = overwrite a scratch buffer of 2x the cache before each
 * sample, untimed (GPU: L2 + persisting lines cleared; CPU: LLC); ROTATED =
 * rotate the input through buffer sets totalling >= 3x the cache. WARM = no
 * bit: one buffer set, reused launch after launch. */
typedef enum nb_cache_state {
    NB_CACHE_WARM = 0,
    NB_CACHE_EVICTED = 1,
    NB_CACHE_ROTATED = 2,
    NB_CACHE_COLD = 3 /* evicted and rotated (the default cold state) */
} nb_cache_state;

/* The cold methods of --cold are the non-warm cache states. */
typedef nb_cache_state nb_cold_method;
#define NB_COLD_FLUSH NB_CACHE_EVICTED
#define NB_COLD_ROTATE NB_CACHE_ROTATED
#define NB_COLD_BOTH NB_CACHE_COLD

/* "per-launch" / "batch" / "graph"; parse: NB_ERR_INVALID_ARG with a message. */
const char *nb_mode_name(nb_mode m);
nb_status nb_mode_parse(const char *s, nb_mode *out);
/* Cache states: "warm" / "flush" / "rotate" / "both" (the --cold words). */
const char *nb_cache_state_name(nb_cache_state c);
/* "flush" / "rotate" / "both" only (a cold method). */
const char *nb_cold_name(nb_cold_method c);
nb_status nb_cold_parse(const char *s, nb_cold_method *out);

#define NB_MAX_MARKS 1024 /* marks per launch */

/* Marks between the steps of one launch (read by the breakdown pass). */
typedef struct nb_step_marks nb_step_marks;

/* Records the end of a step named `step` (e.g. "intt", "conv", "ntt",
 * "inner-product", "scalar"); `is_ntt` = 1 if the step is an NTT/iNTT (counted
 * in the NTT's share). `ntt_limbs` = limb-transforms the step performed (0 for
 * non-NTT steps); `inverse` = 1 for iNTT. GPU: records an event on the
 * workload's stream (in the kernel trace's pass: moves CUPTI's correlation
 * id to the next step instead); CPU: reads the clock. Never allocates.
 * `marks` may be NULL: then the call does nothing and returns NB_OK, so one
 * function can serve as both launch (marks NULL) and launch_marked.
 * Step names are copied (at most 31 characters kept). At most NB_MAX_MARKS
 * marks per launch (NB_ERR_INVALID_ARG beyond). */
nb_status nb_step_mark(nb_step_marks *marks, const char *step, int is_ntt, size_t ntt_limbs,
                       int inverse);

/* What a case times. Every function gets the workload's ctx.

 *
 * Life cycle under the runner: nb_bench_run() and nb_bench_breakdown() each
 * call setup() once at their start and teardown() once at their end (also on
 * failure), so one ctx can be run several times. The ctx itself is created
 * and destroyed by its creator: nb_workload_destroy() calls ops->destroy. */
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
    /* Optional (multi-step workloads): like launch, but calls nb_step_mark() after each
     * step. NULL for single-step workloads. */
    nb_status (*launch_marked)(void *ctx, size_t set, void *stream, nb_step_marks *marks);
    /* Compares set `set`'s output (after prepare + launch) with the expected
     * result; NB_ERR_VERIFY with a message (limb, index, values) on mismatch. */
    nb_status (*verify)(void *ctx, size_t set, void *stream);
    /* Frees everything setup allocated; accepts a ctx whose setup failed. */
    void (*teardown)(void *ctx);

    /* ---- optional members (NULL = absent) ---- */

    /* Distinct bytes of one set that a launch touches (the set's cache
     * footprint). An in-place transform touches N*L*8 bytes while moving
     * 2*N*L*8: the planner sizes rotation by footprint. NULL = use
     * bytes_per_launch. */
    size_t (*footprint_bytes)(const void *ctx);
    /* The main input of set `set` (device pointer for GPU workloads), for
     * --l2-persist's access-policy window. NULL = --l2-persist unsupported. */
    nb_status (*input_region)(const void *ctx, size_t set, void **ptr, size_t *bytes);
    /* Frees the ctx and everything its creator allocated, the nb_workload
     * handle included; called once by nb_workload_destroy. NULL for a ctx
     * the caller owns (a static or stack workload never passed to
     * nb_workload_destroy). */
    void (*destroy)(void *ctx);
    /* Caches the core's own eviction does not reach (the L2 of the other GPUs
     * a launch runs on), evicted untimed after it in every sample of an
     * evicted cache state; the work must be complete or ordered before the
     * next work on `stream`. NULL = nothing beyond the core's eviction. */
    nb_status (*evict)(void *ctx, void *stream);
} nb_workload_ops;

typedef struct nb_workload {
    const char *label;    /* "cpu-harvey fwd logn=16 L=32" */
    nb_backend backend;   /* which clock: CUDA events or CLOCK_MONOTONIC */
    const nb_workload_ops *ops;
    void *ctx;
} nb_workload;

/* Frees a workload made by one of the nb_*_workload_create functions by
 * calling ops->destroy(ctx), which frees the ctx and the nb_workload handle
 * (a creator embeds the handle in its ctx). Accepts NULL. */
void nb_workload_destroy(nb_workload *w);

#ifdef __cplusplus
}
#endif
#endif

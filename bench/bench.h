/* bench/ module header: the timing core shared by the three tiers.
 *
 * The core owns the sample loop (warm-up, stopping rule, statistics, throttle
 * detection, cache control); a workload owns its buffers and knows how to
 * launch itself and check its output. The warm and cold NTT tiers and the
 * CKKS stage tier are workloads; nothing here knows a kernel's internals.
 *
 * STATUS: the workload interface below is the contract between bench/ and
 * ckks/ (stage tier); the rest of this header is being filled in. */
#ifndef NB_BENCH_H
#define NB_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "ntt/ntt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nb_tier { NB_TIER_WARM = 0, NB_TIER_COLD = 1, NB_TIER_STAGE = 2 } nb_tier;

typedef enum nb_mode {
    NB_MODE_PER_LAUNCH = 0, /* events around each launch, stream synchronized between samples */
    NB_MODE_BATCH = 1,      /* events around K back-to-back launches, sample = total / K      */
    NB_MODE_GRAPH = 2       /* K launches captured in a CUDA graph, replayed; sample = total / K */
} nb_mode;

/* Marks between the steps of one launch (stage tier breakdown pass). */
typedef struct nb_step_marks nb_step_marks;

/* Records the end of a step named `step` (e.g. "intt", "conv", "ntt",
 * "inner-product", "scalar"); `is_ntt` = 1 if the step is an NTT/iNTT (counted
 * in the NTT's share). `ntt_limbs` = limb-transforms the step performed (0 for
 * non-NTT steps); `inverse` = 1 for iNTT. GPU: records an event on the
 * workload's stream; CPU: reads the clock. Never allocates. */
nb_status nb_step_mark(nb_step_marks *marks, const char *step, int is_ntt, size_t ntt_limbs,
                       int inverse);

/* What a tier times. Every function gets the workload's ctx. */
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
} nb_workload_ops;

typedef struct nb_workload {
    const char *label;    /* "cpu-harvey fwd logn=16 L=32" */
    nb_backend backend;   /* which clock: CUDA events or CLOCK_MONOTONIC */
    const nb_workload_ops *ops;
    void *ctx;
} nb_workload;

#ifdef __cplusplus
}
#endif
#endif

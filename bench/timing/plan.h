/* Internal to the timing core (tests include it): the cache planner, which
 * turns a cache state, a mode and a footprint into buffer sets, flushes and a
 * launch schedule, and checks that schedule by simulation. */
#ifndef NB_BENCH_PLAN_H
#define NB_BENCH_PLAN_H

#include "bench/timing/run.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Plans a case. Warm: one set, no flush. Otherwise: flush if the state has
 * EVICTED; with ROTATED, sets = requested or ceil(factor * cache /
 * footprint); graph mode rounds sets up to a multiple of K and captures
 * sets / K graphs replayed round-robin. Then nb_cache_plan_check() runs on
 * the actual schedule: NB_ERR_INVALID_ARG if some launch's data could still be
 * in the cache (reuse distance below the cache size, not covered by a flush). */
nb_status nb_cache_plan_make(nb_cache_plan *p, nb_cache_state cache, nb_mode mode,
                             size_t batch, size_t footprint, size_t cache_bytes,
                             size_t requested_sets, double factor);

/* Set used by launch k of sample i. */
size_t nb_cache_plan_set(const nb_cache_plan *p, size_t sample, size_t k);

/* Simulates the schedule of p (2 full cycles) and fills reuse_bytes and
 * first_reuse_bytes; unless the state is warm returns NB_ERR_INVALID_ARG with a
 * message if a launch not preceded by a flush can find its data in a cache of
 * cache_bytes (bytes touched since its last use < cache_bytes). A graph that
 * replays only a few of the rotated sets is caught here. */
nb_status nb_cache_plan_check(nb_cache_plan *p);

#ifdef __cplusplus
}
#endif
#endif

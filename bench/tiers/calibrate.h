/* Calibration: copy bandwidth, cache bandwidth, launch overhead and the
 * hot/cold gap of copies of growing working sets, all measured by the same
 * timing core as every tier, with the copy and empty workloads they use. */
#ifndef NB_TIER_CALIBRATE_H
#define NB_TIER_CALIBRATE_H

#include "bench/report/report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A copy of `bytes` (dst and src per set) on the given backend: a device copy
 * kernel or memcpy. Verified by comparison. Used by calibrate. */
/* Both freed by nb_workload_destroy. */
nb_status nb_copy_workload_create(nb_workload **out, nb_backend backend, size_t bytes);
/* An empty kernel (GPU) / empty function (CPU): launch overhead. */
nb_status nb_empty_workload_create(nb_workload **out, nb_backend backend);
/* GPU only: two dependent empty kernels, the second launched with
 * programmatic dependent launch (one 128-thread block per SM each): what a
 * kernel boundary between two passes costs. *unsupported = 1 (and *out NULL)
 * below sm_90. */
nb_status nb_boundary_workload_create(nb_workload **out, int *unsupported);
/* GPU only: one cooperative kernel (one 128-thread block per SM) with one
 * grid-wide barrier: what a barrier between two passes of one kernel costs.
 * *unsupported = 1 (and *out NULL) when the device has no cooperative launch
 * or refuses one trial launch (e.g. an MPS partition of fewer SMs). */
nb_status nb_grid_barrier_workload_create(nb_workload **out, int *unsupported);
/* GPU only: the butterfly ceiling (calibrate_butterfly.c), the forward NTT
 * butterflies of ntt/arith.h run from registers with nothing in between, on
 * words of word_bits: 64 (lazy Shoup, a 60-bit prime) or 32 (the Harvey
 * nb_ct_butterfly32, a 30-bit prime); *per_launch = butterflies per launch.
 * NB_ERR_NO_DEVICE without a GPU. */
nb_status nb_butterfly_workload_create(nb_workload **out, unsigned word_bits, double *per_launch);

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
    double boundary_s;          /* two dependent empty kernels (PDL), device time; NAN: n/a */
    double grid_barrier_s;      /* one cooperative kernel with one grid barrier; NAN: n/a */
    double butterflies_per_s;   /* GPU: forward butterflies from registers; NAN: CPU */
    double butterflies32_per_s; /* the same on 32-bit words (30-bit prime); NAN: CPU */
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

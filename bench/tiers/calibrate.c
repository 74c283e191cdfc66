/* nttbench calibrate: the device's own ceilings measured with the sample loop
 * (copy bandwidth, cache-resident bandwidth, launch overhead, what a kernel
 * boundary or a grid-wide barrier between two passes costs) and the classic
 * hot-versus-cold copy experiment over working-set sizes, which shows where a
 * warm measurement starts to flatter a kernel on this device. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/timing/internal.h"
#include "bench/tiers/calibrate.h"

#ifdef NB_HAVE_CUDA
#include "core/cuda_check.h"
#endif

/* Median seconds per launch of `w` in cache state `cache` and mode `mode`. */
static nb_status measure(nb_workload *w, void *stream, const nb_bench_opts *base,
                         nb_cache_state cache, nb_mode mode, size_t batch, double *median_s)
{
    nb_bench_opts o = *base;
    o.cache = cache;
    o.mode = mode;
    o.batch = batch;
    o.l2_persist = -1.0;
    nb_bench_result r;
    nb_status s = nb_bench_run(w, stream, &o, &r);
    *median_s = s == NB_OK ? r.stats.median : NAN;
    nb_bench_result_free(&r);
    return s;
}

static nb_status copy_point(nb_backend b, void *stream, const nb_bench_opts *o, size_t bytes,
                            nb_cache_state cache, double *median_s)
{
    nb_workload *w = NULL;
    bytes &= ~(size_t)15;
    NB_TRY(nb_copy_workload_create(&w, b, bytes));
    nb_status s = measure(w, stream, o, cache, NB_MODE_PER_LAUNCH, 1, median_s);
    nb_workload_destroy(w);
    return s;
}

static nb_status hot_cold_points(nb_backend backend, void *stream, const nb_bench_opts *o,
                                 nb_calibration *out);

#ifdef NB_HAVE_CUDA
/* *median_s = the per-launch device time of the workload `create` makes, or
 * NAN when the device cannot run it. */
static nb_status sync_cost(nb_status (*create)(nb_workload **, int *), void *stream,
                           const nb_bench_opts *o, double *median_s)
{
    nb_workload *w = NULL;
    int unsupported = 1;
    *median_s = NAN;
    NB_TRY(create(&w, &unsupported));
    if (unsupported)
        return NB_OK;
    nb_status s = measure(w, stream, o, NB_CACHE_WARM, NB_MODE_PER_LAUNCH, 1, median_s);
    nb_workload_destroy(w);
    return s;
}

/* *per_s = forward butterflies per second from registers on words of
 * word_bits (the median launch of the butterfly-ceiling workload, verified
 * before and after). */
static nb_status butterfly_rate(void *stream, const nb_bench_opts *o, unsigned word_bits,
                                double *per_s)
{
    nb_workload *w = NULL;
    double per_launch = 0, t = NAN;
    NB_TRY(nb_butterfly_workload_create(&w, word_bits, &per_launch));
    nb_status s = measure(w, stream, o, NB_CACHE_WARM, NB_MODE_PER_LAUNCH, 1, &t);
    nb_workload_destroy(w);
    *per_s = per_launch / t;
    return s;
}
#endif

nb_status nb_calibrate(nb_backend backend, void *stream, const nb_bench_opts *o,
                       nb_calibration *out)
{
    if (!o || !out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_calibrate: NULL argument");
    memset(out, 0, sizeof *out);
    out->backend = backend;
    out->gap_threshold = 0.10;
    NB_TRY(nb_cache_bytes(backend, &out->cache_bytes));
    const size_t cache = out->cache_bytes;
    double t;

    /* copy bandwidth: on the host the one method every report states; on the
     * GPU source and destination each 4x the cache, timed by the core */
    out->launch_batch_s = out->launch_device_s = out->launch_sync_s = NAN;
    out->boundary_s = out->grid_barrier_s = out->butterflies_per_s = NAN;
    out->butterflies32_per_s = NAN;
    if (backend == NB_BACKEND_CPU) {
        NB_TRY(nb_host_copy_bandwidth(&out->copy_Bps));
        return hot_cold_points(backend, stream, o, out);
    }
    size_t big = 4 * cache;
    NB_TRY(copy_point(backend, stream, o, big, NB_CACHE_WARM, &t));
    out->copy_Bps = 2.0 * (double)(big & ~(size_t)15) / t;

    /* launch overhead (a GPU notion: the CPU "launch" is a function call) */
    nb_workload *w = NULL;
    NB_TRY(nb_empty_workload_create(&w, backend));
    nb_status s = measure(w, stream, o, NB_CACHE_WARM, NB_MODE_BATCH, 100,
                          &out->launch_batch_s);
    if (s == NB_OK)
        s = measure(w, stream, o, NB_CACHE_WARM, NB_MODE_PER_LAUNCH, 1,
                    &out->launch_device_s);
    nb_workload_destroy(w);
    NB_TRY(s);
#ifdef NB_HAVE_CUDA
    if (backend == NB_BACKEND_GPU) {
        const int reps = 200;
        for (int i = 0; i < 10; i++) {
            NB_TRY(nb_gpu_empty_launch(stream));
            NB_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)stream));
        }
        double t0 = nb_now_s();
        for (int i = 0; i < reps; i++) {
            NB_TRY(nb_gpu_empty_launch(stream));
            NB_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)stream));
        }
        out->launch_sync_s = (nb_now_s() - t0) / reps;
        NB_TRY(sync_cost(nb_boundary_workload_create, stream, o, &out->boundary_s));
        NB_TRY(sync_cost(nb_grid_barrier_workload_create, stream, o, &out->grid_barrier_s));
        NB_TRY(butterfly_rate(stream, o, 64, &out->butterflies_per_s));
        NB_TRY(butterfly_rate(stream, o, 32, &out->butterflies32_per_s));
    }
#endif
    return hot_cold_points(backend, stream, o, out);
}

/* The hot vs cold copy over working sets cache/16 .. 4x cache (footprint =
 * src + dst), and the cache-resident bandwidth it shows. */
static nb_status hot_cold_points(nb_backend backend, void *stream, const nb_bench_opts *o,
                                 nb_calibration *out)
{
    const size_t cache = out->cache_bytes;
    static const double fracs[] = {1.0 / 16, 1.0 / 8, 1.0 / 4, 1.0 / 2, 1.0, 2.0, 4.0};
    for (size_t i = 0; i < sizeof fracs / sizeof fracs[0]; i++) {
        nb_calib_point *p = &out->points[out->n_points];
        size_t bytes = (size_t)(fracs[i] * (double)cache / 2.0) & ~(size_t)15;
        if (bytes < 4096)
            continue;
        p->working_set_bytes = 2.0 * (double)bytes;
        NB_TRY(copy_point(backend, stream, o, bytes, NB_CACHE_WARM, &p->hot_s));
        NB_TRY(copy_point(backend, stream, o, bytes, NB_CACHE_EVICTED, &p->cold_s));
        p->hot_Bps = p->working_set_bytes / p->hot_s;
        p->cold_Bps = p->working_set_bytes / p->cold_s;
        p->gap = p->cold_s / p->hot_s - 1.0;
        if (p->gap > out->gap_threshold && p->working_set_bytes > out->gap_appears_below_bytes)
            out->gap_appears_below_bytes = p->working_set_bytes;
        /* cache-resident bandwidth: the best hot copy whose footprint fits half the cache */
        if (p->working_set_bytes <= 0.5 * (double)cache && p->hot_Bps > out->cache_Bps)
            out->cache_Bps = p->hot_Bps;
        out->n_points++;
    }
    return NB_OK;
}

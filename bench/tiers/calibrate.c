/* nttbench calibrate: the device's own ceilings measured with the sample loop
 * (copy bandwidth, cache-resident bandwidth, launch overhead) and the classic
 * hot-versus-cold copy experiment over working-set sizes, which shows where a
 * warm measurement starts to flatter a kernel on this device. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/core/internal.h"
#include "bench/report/internal.h"
#include "bench/tiers/calibrate.h"

#ifdef NB_HAVE_CUDA
#include "ntt/cuda_check.h"
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

    /* copy bandwidth: source and destination each 4x the cache */
    size_t big = 4 * cache;
    NB_TRY(copy_point(backend, stream, o, big, NB_CACHE_WARM, &t));
    out->copy_Bps = 2.0 * (double)(big & ~(size_t)15) / t;

    /* launch overhead */
    nb_workload *w = NULL;
    NB_TRY(nb_empty_workload_create(&w, backend));
    nb_status s = measure(w, stream, o, NB_CACHE_WARM, NB_MODE_BATCH, 100,
                          &out->launch_batch_s);
    if (s == NB_OK && backend == NB_BACKEND_GPU)
        s = measure(w, stream, o, NB_CACHE_WARM, NB_MODE_PER_LAUNCH, 1,
                    &out->launch_device_s);
    else
        out->launch_device_s = NAN;
    nb_workload_destroy(w);
    NB_TRY(s);
    out->launch_sync_s = NAN;
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
    }
#endif

    /* hot vs cold copy over working sets cache/16 .. 4x cache (footprint = src + dst) */
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

static void mb(char *buf, size_t n, double bytes)
{
    if (bytes >= 1048576.0)
        snprintf(buf, n, "%.2f MiB", bytes / 1048576.0);
    else
        snprintf(buf, n, "%.0f KiB", bytes / 1024.0);
}

nb_status nb_calibration_write(const nb_calibration *c, const nb_env *e, nb_format fmt, FILE *f)
{
    if (!c || !f)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_calibration_write: NULL argument");
    const char *cache_name = c->backend == NB_BACKEND_GPU ? "L2" : "LLC";
    if (fmt == NB_FORMAT_JSON) {
        json_t *j = json_object();
        json_object_set_new(j, "schema", json_string("nttbench-calibration"));
        json_object_set_new(j, "schema_version", json_integer(1));
        json_object_set_new(j, "environment", e ? nb_env_to_json(e) : json_null());
        json_object_set_new(j, "backend", json_string(nb_backend_name(c->backend)));
        json_object_set_new(j, "cache_bytes", json_integer((json_int_t)c->cache_bytes));
        json_object_set_new(j, "copy_bandwidth_Bps", nb_json_real(c->copy_Bps));
        json_object_set_new(j, "cache_resident_bandwidth_Bps", nb_json_real(c->cache_Bps));
        json_object_set_new(j, "launch_back_to_back_ns", nb_json_real(c->launch_batch_s * 1e9));
        json_object_set_new(j, "launch_device_ns", nb_json_real(c->launch_device_s * 1e9));
        json_object_set_new(j, "launch_sync_roundtrip_ns", nb_json_real(c->launch_sync_s * 1e9));
        json_t *pts = json_array();
        for (size_t i = 0; i < c->n_points; i++) {
            const nb_calib_point *p = &c->points[i];
            json_t *pj = json_object();
            json_object_set_new(pj, "working_set_bytes", nb_json_real(p->working_set_bytes));
            json_object_set_new(pj, "hot_ns", nb_json_real(p->hot_s * 1e9));
            json_object_set_new(pj, "cold_ns", nb_json_real(p->cold_s * 1e9));
            json_object_set_new(pj, "hot_Bps", nb_json_real(p->hot_Bps));
            json_object_set_new(pj, "cold_Bps", nb_json_real(p->cold_Bps));
            json_object_set_new(pj, "cold_over_hot_minus_1", nb_json_real(p->gap));
            json_array_append_new(pts, pj);
        }
        json_object_set_new(j, "hot_cold_copy", pts);
        json_object_set_new(j, "gap_threshold", json_real(c->gap_threshold));
        json_object_set_new(j, "gap_appears_below_bytes",
                            nb_json_real(c->gap_appears_below_bytes));
        int rc = json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        json_decref(j);
        fputc('\n', f);
        return rc == 0 ? NB_OK : nb_set_error(NB_ERR_IO, "cannot write JSON");
    }
    const int md = fmt == NB_FORMAT_MD, csv = fmt == NB_FORMAT_CSV;
    char buf[64];
    if (csv) {
        fprintf(f, "item,value\n");
        fprintf(f, "copy_bandwidth_GBps,%.3f\n", c->copy_Bps / 1e9);
        fprintf(f, "cache_resident_bandwidth_GBps,%.3f\n", c->cache_Bps / 1e9);
        fprintf(f, "launch_back_to_back_ns,%.1f\n", c->launch_batch_s * 1e9);
        fprintf(f, "launch_device_ns,%.1f\n", c->launch_device_s * 1e9);
        fprintf(f, "launch_sync_roundtrip_ns,%.1f\n", c->launch_sync_s * 1e9);
        fprintf(f, "\nworking_set_bytes,hot_ns,cold_ns,hot_GBps,cold_GBps,gap\n");
        for (size_t i = 0; i < c->n_points; i++) {
            const nb_calib_point *p = &c->points[i];
            fprintf(f, "%.0f,%.1f,%.1f,%.3f,%.3f,%.4f\n", p->working_set_bytes, p->hot_s * 1e9,
                    p->cold_s * 1e9, p->hot_Bps / 1e9, p->cold_Bps / 1e9, p->gap);
        }
        return NB_OK;
    }
    if (e)
        NB_TRY(nb_env_write(e, fmt, f));
    mb(buf, sizeof buf, (double)c->cache_bytes);
    fprintf(f, "\n%scalibration (%s, %s %s)%s\n", md ? "**" : "", nb_backend_name(c->backend),
            cache_name, buf, md ? "**\n" : "");
    fprintf(f, "%scopy bandwidth (8x %s footprint)   %10.1f GB/s (read + write)\n", md ? "- " : "  ",
            cache_name, c->copy_Bps / 1e9);
    fprintf(f, "%s%s-resident copy bandwidth         %10.1f GB/s (best hot copy <= %s/2)\n",
            md ? "- " : "  ", cache_name, c->cache_Bps / 1e9, cache_name);
    fprintf(f, "%slaunch, back-to-back (batch x100)  %10.2f us\n", md ? "- " : "  ",
            c->launch_batch_s * 1e6);
    if (isfinite(c->launch_device_s))
        fprintf(f, "%sempty kernel, device time          %10.2f us\n", md ? "- " : "  ",
                c->launch_device_s * 1e6);
    if (isfinite(c->launch_sync_s))
        fprintf(f, "%slaunch + synchronize round trip    %10.2f us\n", md ? "- " : "  ",
                c->launch_sync_s * 1e6);
    fprintf(f, "\nhot vs cold copy (cold = %s flushed before each sample)\n", cache_name);
    if (md)
        fprintf(f, "\n| working set | hot | cold | hot GB/s | cold GB/s | cold/hot - 1 |\n"
                   "| ---: | ---: | ---: | ---: | ---: | ---: |\n");
    else
        fprintf(f, "  %12s %12s %12s %10s %10s %8s\n", "working set", "hot", "cold", "hot GB/s",
                "cold GB/s", "gap");
    for (size_t i = 0; i < c->n_points; i++) {
        const nb_calib_point *p = &c->points[i];
        mb(buf, sizeof buf, p->working_set_bytes);
        if (md)
            fprintf(f, "| %s | %.2f us | %.2f us | %.1f | %.1f | %+.1f%% |\n", buf,
                    p->hot_s * 1e6, p->cold_s * 1e6, p->hot_Bps / 1e9, p->cold_Bps / 1e9,
                    100 * p->gap);
        else
            fprintf(f, "  %12s %9.2f us %9.2f us %10.1f %10.1f %+7.1f%%\n", buf, p->hot_s * 1e6,
                    p->cold_s * 1e6, p->hot_Bps / 1e9, p->cold_Bps / 1e9, 100 * p->gap);
    }
    if (c->gap_appears_below_bytes > 0) {
        mb(buf, sizeof buf, c->gap_appears_below_bytes);
        fprintf(f, "\n%shot/cold gap (> %.0f%%) appears for working sets up to %s (%.2fx the %s): "
                   "warm numbers below that size measure the cache, not memory.\n",
                md ? "" : "  ", 100 * c->gap_threshold, buf,
                c->gap_appears_below_bytes / (double)c->cache_bytes, cache_name);
    } else {
        fprintf(f, "\n%sno working set showed a hot/cold gap above %.0f%%.\n", md ? "" : "  ",
                100 * c->gap_threshold);
    }
    return ferror(f) ? nb_set_error(NB_ERR_IO, "write error") : NB_OK;
}

/* The report forms of a calibration: JSON (schema "nttbench-calibration"),
 * CSV (item,value then the hot/cold points), table and markdown. */
#include <math.h>
#include <stdio.h>

#include "bench/report/internal.h"
#include "bench/tiers/calibrate.h"

static void mb(char *buf, size_t n, double bytes)
{
    if (bytes >= 1048576.0)
        snprintf(buf, n, "%.2f MiB", bytes / 1048576.0);
    else
        snprintf(buf, n, "%.0f KiB", bytes / 1024.0);
}

static nb_status write_json(const nb_calibration *c, const nb_env *e, FILE *f)
{
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
    json_object_set_new(j, "kernel_boundary_pdl_ns", nb_json_real(c->boundary_s * 1e9));
    json_object_set_new(j, "grid_barrier_ns", nb_json_real(c->grid_barrier_s * 1e9));
    json_object_set_new(j, "butterflies_per_s", nb_json_real(c->butterflies_per_s));
    json_object_set_new(j, "butterflies32_per_s", nb_json_real(c->butterflies32_per_s));
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
    /* whether that size places the cache boundary: not beyond 2x the cache,
     * which no cache holds (the text says so too); null without a gap */
    const double gap = c->gap_appears_below_bytes;
    json_object_set_new(j, "gap_places_the_cache",
                        gap > 0 ? json_boolean(gap <= 2.0 * (double)c->cache_bytes) : json_null());
    int rc = json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(j);
    fputc('\n', f);
    return rc == 0 ? NB_OK : nb_set_error(NB_ERR_IO, "cannot write JSON");
}

static nb_status write_csv(const nb_calibration *c, FILE *f)
{
    fprintf(f, "item,value\n");
    fprintf(f, "copy_bandwidth_GBps,%.3f\n", c->copy_Bps / 1e9);
    fprintf(f, "cache_resident_bandwidth_GBps,%.3f\n", c->cache_Bps / 1e9);
    const struct {
        const char *name;
        double s;
    } launch[] = {{"launch_back_to_back_ns", c->launch_batch_s},
                  {"launch_device_ns", c->launch_device_s},
                  {"launch_sync_roundtrip_ns", c->launch_sync_s},
                  {"kernel_boundary_pdl_ns", c->boundary_s},
                  {"grid_barrier_ns", c->grid_barrier_s}};
    for (size_t i = 0; i < sizeof launch / sizeof launch[0]; i++)
        if (isfinite(launch[i].s)) /* GPU only (the last two: where the device runs them) */
            fprintf(f, "%s,%.1f\n", launch[i].name, launch[i].s * 1e9);
    if (isfinite(c->butterflies_per_s))
        fprintf(f, "butterflies_per_s,%.4g\n", c->butterflies_per_s);
    if (isfinite(c->butterflies32_per_s))
        fprintf(f, "butterflies32_per_s,%.4g\n", c->butterflies32_per_s);
    fprintf(f, "\nworking_set_bytes,hot_ns,cold_ns,hot_GBps,cold_GBps,gap\n");
    for (size_t i = 0; i < c->n_points; i++) {
        const nb_calib_point *p = &c->points[i];
        fprintf(f, "%.0f,%.1f,%.1f,%.3f,%.3f,%.4f\n", p->working_set_bytes, p->hot_s * 1e9,
                p->cold_s * 1e9, p->hot_Bps / 1e9, p->cold_Bps / 1e9, p->gap);
    }
    return NB_OK;
}

/* The hot/cold table (markdown when md). */
static void write_points(const nb_calibration *c, FILE *f, int md, const char *cache_name)
{
    char buf[64];
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
}

static nb_status write_text(const nb_calibration *c, const nb_env *e, nb_format fmt, FILE *f)
{
    const int md = fmt == NB_FORMAT_MD;
    const char *cache_name = c->backend == NB_BACKEND_GPU ? "L2" : "LLC";
    char buf[64];
    if (e)
        NB_TRY(nb_env_write(e, fmt, f));
    mb(buf, sizeof buf, (double)c->cache_bytes);
    fprintf(f, "\n%scalibration (%s, %s %s)%s\n", md ? "**" : "", nb_backend_name(c->backend),
            cache_name, buf, md ? "**\n" : "");
    if (c->backend == NB_BACKEND_CPU)
        fprintf(f, "%scopy bandwidth                     %10.1f GB/s (read + write; %s)\n",
                md ? "- " : "  ", c->copy_Bps / 1e9, NB_HOST_COPY_METHOD);
    else
        fprintf(f, "%scopy bandwidth (8x %s footprint)   %10.1f GB/s (read + write)\n",
                md ? "- " : "  ", cache_name, c->copy_Bps / 1e9);
    fprintf(f, "%s%s-resident copy bandwidth         %10.1f GB/s (best hot copy <= %s/2)\n",
            md ? "- " : "  ", cache_name, c->cache_Bps / 1e9, cache_name);
    const struct {
        const char *label; /* padded to 35 columns */
        double value;      /* in the unit below; NAN: not measured */
        int decimals;
        const char *rest;  /* unit and note after the value */
        const char *na;    /* GPU only: why a row can be missing (NULL: never shown) */
    } rows[] = {
        {"launch, back-to-back (batch x100)", c->launch_batch_s * 1e6, 2, " us", NULL},
        {"empty kernel, device time", c->launch_device_s * 1e6, 2, " us", NULL},
        {"launch + synchronize round trip", c->launch_sync_s * 1e6, 2, " us", NULL},
        {"two dependent kernels (PDL)", c->boundary_s * 1e6, 2,
         " us (device time; a kernel boundary)", "needs programmatic dependent launch, sm_90"},
        {"one grid-wide barrier (cooperative)", c->grid_barrier_s * 1e6, 2,
         " us (device time; one block per SM)",
         "the device, or its MPS partition, refused a cooperative launch of one block per SM"},
        {"forward butterflies from registers", c->butterflies_per_s / 1e9, 1,
         " G/s (lazy Shoup, 60-bit prime; no NTT kernel with this arithmetic runs its "
         "butterflies faster)",
         NULL},
        {"32-bit butterflies from registers", c->butterflies32_per_s / 1e9, 1,
         " G/s (Harvey, 30-bit prime, 32-bit words; the same bound for 32-bit kernels)",
         NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (isfinite(rows[i].value))
            fprintf(f, "%s%-35s%10.*f%s\n", md ? "- " : "  ", rows[i].label, rows[i].decimals,
                    rows[i].value, rows[i].rest);
        else if (rows[i].na && c->backend == NB_BACKEND_GPU)
            fprintf(f, "%s%-35s%10s (%s)\n", md ? "- " : "  ", rows[i].label, "n/a", rows[i].na);
    }
    write_points(c, f, md, cache_name);
    if (c->gap_appears_below_bytes > 2.0 * (double)c->cache_bytes) {
        mb(buf, sizeof buf, c->gap_appears_below_bytes); /* no cache holds a 4x working set */
        fprintf(f, "\n%shot/cold gap (> %.0f%%) appears up to %s (%.2fx the %s), where no cache "
                   "holds the data: it is not the cache's doing (a busy host, or a flush that "
                   "disturbs the copy); calibrate again on a quiet machine to find where warm "
                   "numbers measure the cache.\n",
                md ? "" : "  ", 100 * c->gap_threshold, buf,
                c->gap_appears_below_bytes / (double)c->cache_bytes, cache_name);
    } else if (c->gap_appears_below_bytes > 0) {
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

nb_status nb_calibration_write(const nb_calibration *c, const nb_env *e, nb_format fmt, FILE *f)
{
    if (!c || !f)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_calibration_write: NULL argument");
    if (fmt == NB_FORMAT_JSON)
        return write_json(c, e, f);
    if (fmt == NB_FORMAT_CSV)
        return write_csv(c, f);
    return write_text(c, e, fmt, f);
}

/* Helpers shared by the report tests (they link jansson): a report written
 * to a string, one case as its report writes it, a result built from given
 * samples, and the GPU NTT case (N = 2^16, L = 32,
 * 64-bit words, three samples of 40 us) whose bound the bound and profiler
 * tests work out by hand. Header-only. */
#ifndef NB_TEST_REPORTUTIL_H
#define NB_TEST_REPORTUTIL_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/timing/stats.h"
#include "testutil.h"

/* REP as format FMT writes it, NUL-terminated (free() it). */
static inline char *nb_test_report_text(const nb_report *rep, nb_format fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(nb_report_write(rep, fmt, f), NB_OK);
    fclose(f);
    /* a copy: GCC takes the stream's buffer for one that dangles once this
     * function returns (-Wdangling-pointer) */
    char *copy = strdup(buf);
    free(buf);
    assert_non_null(copy);
    return copy;
}

/* Case C as the JSON report of a run holding only it writes it (a new
 * reference); C is given to that report and destroyed with it. */
static inline json_t *nb_test_case_json(nb_case *c)
{
    nb_report *r = NULL;
    assert_int_equal(nb_report_create(&r, "run"), NB_OK);
    assert_int_equal(nb_report_add_case(r, c), NB_OK);
    char *buf = nb_test_report_text(r, NB_FORMAT_JSON);
    json_error_t err;
    json_t *j = json_loads(buf, 0, &err);
    if (!j)
        nb_test_fail("report JSON does not parse: %s (line %d)", err.text, err.line);
    free(buf);
    nb_report_destroy(r);
    json_t *cases = json_object_get(j, "cases");
    assert_true(json_is_array(cases));
    assert_int_equal(json_array_size(cases), 1);
    json_t *one = json_incref(json_array_get(cases, 0));
    json_decref(j);
    return one;
}

/* A result of N samples S (seconds per launch) at SM clocks CLK (MHz, NAN
 * where unknown), LAUNCHES launches per sample on BACKEND, with the samples'
 * statistics; everything else zero. The arrays are copies: free them with
 * nb_bench_result_free. */
static inline nb_bench_result nb_test_result(nb_backend backend, size_t launches,
                                             const double *s, const double *clk, size_t n)
{
    nb_bench_result r;
    memset(&r, 0, sizeof r);
    r.backend = backend;
    r.launches_per_sample = launches;
    r.n_samples = n;
    r.sample_s = malloc(n * sizeof *r.sample_s);
    r.sample_clock_mhz = malloc(n * sizeof *r.sample_clock_mhz);
    assert_non_null(r.sample_s);
    assert_non_null(r.sample_clock_mhz);
    memcpy(r.sample_s, s, n * sizeof *s);
    memcpy(r.sample_clock_mhz, clk, n * sizeof *clk);
    nb_stats_compute(r.sample_s, n, &r.stats);
    return r;
}

/* The GPU case "fwd logn=16 L=32 q60 w64" of VARIANT on TIER (cache state
 * CACHE): parameters log_n, limbs and word_bits, three samples of 40 us at
 * 1980 MHz, one launch each, and the NTT figures of that time. */
static inline nb_case *nb_test_gpu_ntt_case(const char *tier, nb_cache_state cache,
                                            const char *variant)
{
    nb_case *c = NULL;
    assert_int_equal(nb_case_create(&c, tier, cache, variant, NB_BACKEND_GPU,
                                    "fwd logn=16 L=32 q60 w64"),
                     NB_OK);
    assert_int_equal(nb_case_param_int(c, "log_n", 16), NB_OK);
    assert_int_equal(nb_case_param_int(c, "limbs", 32), NB_OK);
    assert_int_equal(nb_case_param_int(c, "word_bits", 64), NB_OK);
    const double s[3] = {40e-6, 40e-6, 40e-6}, clk[3] = {1980, 1980, 1980};
    nb_bench_result r = nb_test_result(NB_BACKEND_GPU, 1, s, clk, 3);
    assert_int_equal(nb_case_set_result(c, &r), NB_OK);
    nb_bench_result_free(&r);
    nb_ntt_figures f;
    nb_ntt_figures_compute(16, 32, 64, 40e-6, 0, 0, &f);
    nb_case_set_figures(c, &f);
    return c;
}

#endif

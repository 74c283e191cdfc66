/* Tests of the calibrate tier on the CPU: the copy and empty workloads timed
 * by the core (per-launch and batch modes), and how the text report shows a
 * GPU calibration: its butterfly ceilings (64- and 32-bit words, in every
 * format), and kernel-boundary or grid-barrier rows that could not run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "benchutil.h"
#include "testutil.h"

static void test_copy_and_empty_workloads_cpu(void **state)
{
    (void)state;
    nb_workload *w = NULL;
    assert_int_equal(nb_copy_workload_create(&w, NB_BACKEND_CPU, 100), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_copy_workload_create(&w, NB_BACKEND_CPU, 1 << 16), NB_OK);
    nb_bench_opts o = nb_test_quick_opts();
    nb_bench_result r;
    assert_int_equal(nb_bench_run(w, NULL, &o, &r), NB_OK);
    assert_true(r.stats.median > 0);
    nb_bench_result_free(&r);
    nb_workload_destroy(w);
    assert_int_equal(nb_empty_workload_create(&w, NB_BACKEND_CPU), NB_OK);
    o.mode = NB_MODE_BATCH;
    o.batch = 100;
    assert_int_equal(nb_bench_run(w, NULL, &o, &r), NB_OK);
    assert_int_equal(r.launches_per_sample, 100);
    nb_bench_result_free(&r);
    nb_workload_destroy(w);
}

/* The text report of calibration c (no environment block), malloc'd. */
static char *text_of(const nb_calibration *c, nb_format fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(nb_calibration_write(c, NULL, fmt, f), NB_OK);
    assert_int_equal(fclose(f), 0);
    return buf;
}

/* A GPU calibration: 50 MiB of L2, 3 us launches, the 10 % gap threshold;
 * every other field 0. */
static nb_calibration gpu_calibration(void)
{
    nb_calibration c;
    memset(&c, 0, sizeof c);
    c.backend = NB_BACKEND_GPU;
    c.cache_bytes = 50u << 20;
    c.launch_batch_s = c.launch_device_s = c.launch_sync_s = 3e-6;
    c.gap_threshold = 0.10;
    return c;
}

/* A row per GPU sync cost: its time when measured, "n/a" with the reason when
 * the device could not run it; the butterfly ceiling when measured; a CPU
 * report shows none of these rows. */
static void test_sync_rows_show_na(void **state)
{
    (void)state;
    nb_calibration c = gpu_calibration();
    c.copy_Bps = 2.7e12;
    c.cache_Bps = 7e12;
    c.boundary_s = 3.9e-6;
    c.grid_barrier_s = NAN;
    c.butterflies_per_s = 8.765e11;
    c.butterflies32_per_s = 1.2345e12;
    static const nb_format fmts[] = {NB_FORMAT_TABLE, NB_FORMAT_MD};
    for (size_t i = 0; i < 2; i++) {
        char *t = text_of(&c, fmts[i]);
        assert_non_null(strstr(t, "two dependent kernels (PDL)              3.90 us"));
        assert_non_null(strstr(t, "one grid-wide barrier (cooperative)       n/a (the device, "
                                  "or its MPS partition, refused"));
        assert_null(strstr(t, "(PDL)               n/a"));
        assert_non_null(strstr(t, "forward butterflies from registers      876.5 G/s"));
        assert_non_null(strstr(t, "32-bit butterflies from registers      1234.5 G/s (Harvey, "
                                  "30-bit prime"));
        free(t);
    }
    c.boundary_s = NAN;
    c.grid_barrier_s = 4.2e-6;
    char *t = text_of(&c, NB_FORMAT_TABLE);
    assert_non_null(strstr(t, "two dependent kernels (PDL)               n/a (needs programmatic"));
    assert_non_null(strstr(t, "one grid-wide barrier (cooperative)      4.20 us"));
    free(t);
    c.backend = NB_BACKEND_CPU;
    c.boundary_s = c.grid_barrier_s = c.butterflies_per_s = c.butterflies32_per_s = NAN;
    t = text_of(&c, NB_FORMAT_TABLE);
    assert_null(strstr(t, "n/a"));
    assert_null(strstr(t, "grid-wide barrier"));
    assert_null(strstr(t, "butterflies"));
    free(t);
}

/* The 32-bit butterfly ceiling beside the 64-bit one in JSON and CSV: a
 * number when measured, null (JSON) or no row (CSV) on the CPU. */
static void test_butterfly32_row_in_json_and_csv(void **state)
{
    (void)state;
    nb_calibration c = gpu_calibration();
    c.boundary_s = c.grid_barrier_s = NAN;
    c.butterflies_per_s = 8.765e11;
    c.butterflies32_per_s = 1.2345e12;
    char *t = text_of(&c, NB_FORMAT_JSON);
    assert_non_null(strstr(t, "\"butterflies_per_s\": 876500000000"));
    assert_non_null(strstr(t, "\"butterflies32_per_s\": 1234500000000"));
    free(t);
    t = text_of(&c, NB_FORMAT_CSV);
    assert_non_null(strstr(t, "\nbutterflies_per_s,8.765e+11\n"));
    assert_non_null(strstr(t, "\nbutterflies32_per_s,1.234e+12\n"));
    free(t);
    c.backend = NB_BACKEND_CPU;
    c.butterflies_per_s = c.butterflies32_per_s = NAN;
    t = text_of(&c, NB_FORMAT_JSON);
    assert_non_null(strstr(t, "\"butterflies32_per_s\": null"));
    free(t);
    t = text_of(&c, NB_FORMAT_CSV);
    assert_null(strstr(t, "butterflies"));
    free(t);
}

/* The headline of the hot/cold experiment: the largest working set with a
 * gap, read as where warm numbers measure the cache, while that set lies
 * within twice the cache; a gap at the largest set tried (4x the cache, which
 * no cache holds) is said to be no cache's doing. Guards: a contended CPU run
 * whose gap reached 4x the LLC was headlined as "warm numbers below that size
 * measure the cache". */
static void test_gap_beyond_the_cache_is_not_a_cache_boundary(void **state)
{
    (void)state;
    nb_calibration c = gpu_calibration();
    c.backend = NB_BACKEND_CPU;
    c.cache_bytes = 32u << 20;
    c.launch_batch_s = c.launch_device_s = c.launch_sync_s = NAN;
    c.boundary_s = c.grid_barrier_s = c.butterflies_per_s = c.butterflies32_per_s = NAN;
    c.gap_appears_below_bytes = 32u << 20;
    char *t = text_of(&c, NB_FORMAT_TABLE);
    assert_non_null(strstr(t, "appears for working sets up to 32.00 MiB (1.00x the LLC): warm "
                              "numbers below that size measure the cache"));
    free(t);
    c.gap_appears_below_bytes = 128u << 20;
    t = text_of(&c, NB_FORMAT_TABLE);
    assert_null(strstr(t, "measure the cache, not memory"));
    assert_non_null(strstr(t, "hot/cold gap (> 10%) appears up to 128.00 MiB (4.00x the LLC), "
                              "where no cache holds the data: it is not the cache's doing (a "
                              "busy host, or a flush that disturbs the copy); calibrate again on "
                              "a quiet machine to find where warm numbers measure the cache."));
    free(t);
    /* Guards: the JSON recorded that size without saying it places no cache */
    t = text_of(&c, NB_FORMAT_JSON);
    assert_non_null(strstr(t, "\"gap_places_the_cache\": false"));
    free(t);
    c.gap_appears_below_bytes = 32u << 20;
    t = text_of(&c, NB_FORMAT_JSON);
    assert_non_null(strstr(t, "\"gap_places_the_cache\": true"));
    free(t);
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_and_empty_workloads_cpu),
        cmocka_unit_test(test_sync_rows_show_na),
        cmocka_unit_test(test_butterfly32_row_in_json_and_csv),
        cmocka_unit_test(test_gap_beyond_the_cache_is_not_a_cache_boundary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

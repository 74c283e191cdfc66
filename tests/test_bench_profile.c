/* The profiler pass (bench/timing/ncu.c, ncu_parse.c) and what reports make
 * of it: recorded Nsight Compute CSV parsed into per-kernel figures, a fake
 * ncu (tests/data/fake-ncu) run, failing, hanging and found, the bound
 * refined by the profiler's figures, and the JSON, table and markdown of a
 * profiled case. argv: DATA-DIR (tests/data). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "bench/bench.h"
#include "bench/report/bound.h"
#include "bench/report/result_file.h"
#include "reportutil.h"

static const char *data_dir;

static char *data_path(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", data_dir, name);
    return path;
}

#define NEAR(a, b) near((a), (double)(b))

static void near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want))))
        fail_msg("%.12g where %.12g was expected", got, want);
}

/* The recorded profile: fixture parsed, settings of a cold pass. */
static nb_profile recorded(void)
{
    nb_profile p;
    memset(&p, 0, sizeof p);
    char *csv = nb_test_read_file(data_path("ncu-raw.csv"));
    assert_int_equal(nb_ncu_parse_csv(csv, &p), NB_OK);
    free(csv);
    snprintf(p.version, sizeof p.version, "2025.3.1.0");
    p.clocks_locked = 1;
    p.caches_flushed = 1;
    return p;
}

static void test_recorded_csv_gives_each_kernel_its_figures(void **state)
{
    (void)state;
    const nb_profile p = recorded();
    assert_int_equal(p.n_kernels, 2);
    const nb_kernel_profile *a = &p.k[0], *b = &p.k[1];
    assert_string_equal(a->name,
                        "fast_phase<false, 16, 16, false, 8, true, false, false, true, false, W64>");
    assert_int_equal(a->launches, 1);
    NEAR(a->time_ns, 35616);
    NEAR(a->dram_pct, 37.26);
    NEAR(a->dram_read_bytes, 33561088);
    NEAR(a->dram_write_bytes, 10880512);
    NEAR(a->l2_hit_pct, 51.31);
    NEAR(a->issue_pct, 58.05);
    assert_string_equal(a->pipes[0].name, "fmaheavy");
    NEAR(a->pipes[0].pct, 58.99);
    assert_string_equal(a->pipes[1].name, "alu");
    assert_string_equal(a->stalls[0].name, "math_pipe_throttle");
    assert_string_equal(a->stalls[1].name, "not_selected");
    assert_string_equal(a->stalls[2].name, "long_scoreboard");
    assert_string_equal(b->stalls[0].name, "long_scoreboard");
    (void)b;
}

static void test_launches_of_one_kernel_are_merged_time_weighted(void **state)
{
    (void)state;
    const nb_profile p = recorded();
    const nb_kernel_profile *b = &p.k[1];
    assert_int_equal(b->launches, 2);
    NEAR(b->time_ns, 21888 + 22112);
    NEAR(b->dram_read_bytes, 33559296.0 + 33559808.0);
    NEAR(b->dram_pct, (67.98 * 21888 + 67.04 * 22112) / 44000);
    NEAR(nb_profile_time_ns(&p), 35616 + 44000);
    NEAR(nb_profile_issue_frac(&p), (58.05 * 35616 + 14.53 * 21888 + 14.84 * 22112) / 79616 / 100);
}

/* Quoted commas and quotes, thousands separators, other units, n/a, a
 * metric that did not come back, and "selected" (issuing, not a stall). */
static void test_parser_reads_quoting_units_and_gaps(void **state)
{
    (void)state;
    const char *csv =
        "==PROF== Connected to process 1 (/x)\n"
        "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\","
        "\"lts__t_sector_hit_rate.pct\","
        "\"smsp__warp_issue_stalled_selected_per_warp_active.pct\","
        "\"smsp__warp_issue_stalled_wait_per_warp_active.pct\"\r\n"
        "\"\",\"\",\"usecond\",\"Mbyte\",\"%\",\"%\",\"%\"\r\n"
        "\"0\",\"void k<\"\"a,b\"\">(int, float)\",\"1,234.5\",\"2.5\",\"n/a\",\"90\",\"7\"\r\n";
    nb_profile p;
    memset(&p, 0, sizeof p);
    assert_int_equal(nb_ncu_parse_csv(csv, &p), NB_OK);
    assert_int_equal(p.n_kernels, 1);
    assert_string_equal(p.k[0].name, "k<\"a,b\">");
    NEAR(p.k[0].time_ns, 1234.5e3);
    NEAR(p.k[0].dram_read_bytes, 2.5e6);
    assert_true(isnan(p.k[0].l2_hit_pct));
    assert_true(isnan(p.k[0].dram_write_bytes));
    assert_true(isnan(p.k[0].issue_pct));
    assert_string_equal(p.k[0].stalls[0].name, "wait");
    assert_string_equal(p.k[0].stalls[1].name, "");
}

static void test_output_without_a_table_is_refused(void **state)
{
    (void)state;
    nb_profile p;
    memset(&p, 0, sizeof p);
    assert_int_equal(nb_ncu_parse_csv("==PROF== Connected\n==WARNING== No kernels.\n", &p),
                     NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ncu_parse_csv("\"ID\",\"Kernel Name\"\n\"\",\"\"\n", &p),
                     NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "no kernel"));
}

static nb_status run_fake(const char *mode, double timeout_s, nb_profile *p)
{
    if (mode)
        setenv("FAKE_NCU_MODE", mode, 1);
    else
        unsetenv("FAKE_NCU_MODE");
    char fake[4096];
    snprintf(fake, sizeof fake, "%s", data_path("fake-ncu"));
    char *argv[] = {fake, "--csv", "--page", "raw", NULL};
    memset(p, 0, sizeof *p);
    nb_status s = nb_ncu_run(argv, timeout_s, NULL, p);
    unsetenv("FAKE_NCU_MODE");
    return s;
}

static void test_a_pass_parses_what_ncu_prints(void **state)
{
    (void)state;
    nb_profile p;
    assert_int_equal(run_fake(NULL, 30, &p), NB_OK);
    assert_int_equal(p.n_kernels, 2);
    assert_int_equal(p.k[1].launches, 2);
}

static void test_a_failing_ncu_gives_its_reason(void **state)
{
    (void)state;
    nb_profile p;
    assert_int_equal(run_fake("perm", 30, &p), NB_ERR_IO);
    assert_non_null(strstr(nb_last_error(), "ERR_NVGPUCTRPERM"));
    assert_non_null(strstr(nb_last_error(), "exit status 1"));
    assert_int_equal(p.n_kernels, 0);
    assert_int_equal(run_fake("garbage", 30, &p), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "No kernels were profiled"));
}

static void test_a_hanging_ncu_is_killed_at_its_timeout(void **state)
{
    (void)state;
    nb_profile p;
    const double t0 = nb_now_s();
    assert_int_equal(run_fake("hang", 0.5, &p), NB_ERR_IO);
    assert_true(nb_now_s() - t0 < 10.0);
    assert_non_null(strstr(nb_last_error(), "timed out"));
}

static void test_ncu_is_found_through_nb_ncu_and_its_version_read(void **state)
{
    (void)state;
    char path[4096], version[32];
    setenv("NB_NCU", data_path("fake-ncu"), 1);
    assert_int_equal(nb_ncu_find(path, sizeof path), NB_OK);
    assert_string_equal(path, data_path("fake-ncu"));
    assert_int_equal(nb_ncu_version(path, 30, version, sizeof version), NB_OK);
    assert_string_equal(version, "2025.3.1.0");
    setenv("NB_NCU", data_path("no-such-ncu"), 1);
    assert_int_equal(nb_ncu_find(path, sizeof path), NB_ERR_NOT_FOUND);
    unsetenv("NB_NCU");
}

static void test_profiler_figures_refine_the_class(void **state)
{
    (void)state;
    nb_bound b;
    memset(&b, 0, sizeof b);
    const struct {
        nb_bound_class timing;
        double dram, issue;
        nb_bound_class want;
    } cases[] = {
        {NB_BOUND_COMPUTE, 0.70, 0.30, NB_BOUND_MEMORY},
        {NB_BOUND_MEMORY, 0.20, 0.65, NB_BOUND_COMPUTE},
        {NB_BOUND_COMPUTE, 0.59, 0.40, NB_BOUND_LATENCY},
        {NB_BOUND_LATENCY, 0.60, 0.10, NB_BOUND_MEMORY},
        {NB_BOUND_LAUNCH, 0.90, 0.10, NB_BOUND_LAUNCH},
        {NB_BOUND_COMPUTE, NAN, 0.90, NB_BOUND_COMPUTE},
        {NB_BOUND_UNKNOWN, 0.90, 0.10, NB_BOUND_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&b, 0, sizeof b);
        b.cls = cases[i].timing;
        nb_bound_refine(&b, cases[i].dram, cases[i].issue);
        assert_int_equal(b.cls, cases[i].want);
        if (b.refined)
            assert_int_equal(b.timing_cls, cases[i].timing);
    }
}

/* One GPU case of N = 2^16, L = 32 at 40 us, compute-bound by its timing
 * against these ceilings (0.84 of 0.5 T butterflies/s). */
static nb_report *gpu_report(const nb_profile *p)
{
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    nb_ceilings ceil;
    nb_ceilings_default(&ceil, 0, 0, 0);
    ceil.copy_Bps = 2e12;
    ceil.butterflies_per_s = 0.5e12;
    nb_report_set_ceilings(rep, &ceil);
    nb_case *c = nb_test_gpu_ntt_case("cold", NB_CACHE_COLD, "gpu-fast");
    if (p)
        nb_case_set_profile(c, p);
    assert_int_equal(nb_report_add_case(rep, c), NB_OK);
    return rep;
}

static void test_json_carries_the_profile_and_the_refined_bound(void **state)
{
    (void)state;
    const nb_profile p = recorded();
    nb_report *rep = gpu_report(&p);
    char *js = nb_test_report_text(rep, NB_FORMAT_JSON);
    json_error_t err;
    json_t *root = json_loads(js, 0, &err);
    assert_non_null(root);
    const json_t *cj = json_array_get(json_object_get(root, "cases"), 0);
    const json_t *pj = json_object_get(cj, "profile");
    assert_string_equal(json_string_value(json_object_get(pj, "version")), "2025.3.1.0");
    assert_string_equal(json_string_value(json_object_get(pj, "clock_control")), "base");
    assert_string_equal(json_string_value(json_object_get(pj, "cache_control")), "all");
    const json_t *k = json_array_get(json_object_get(pj, "kernels"), 1);
    assert_int_equal(json_integer_value(json_object_get(k, "launches")), 2);
    const json_t *pipe = json_array_get(json_object_get(k, "pipes"), 0);
    assert_string_equal(json_string_value(json_object_get(pipe, "name")), "adu");
    /* DRAM 54 %, issue slots 34 % of peak: neither reaches 60 % */
    const json_t *b = json_object_get(cj, "bound");
    assert_string_equal(json_string_value(json_object_get(b, "class")), "latency-bound");
    assert_string_equal(json_string_value(json_object_get(b, "class_from_timing")),
                        "compute-bound");
    /* read back (`report`), the file gives the same class */
    nb_ceilings back;
    nb_bound again;
    assert_int_equal(nb_ceilings_from_report_json(root, &back), 1);
    assert_int_equal(nb_bound_of_case_json(cj, &back, &again), 1);
    assert_int_equal(again.cls, NB_BOUND_LATENCY);
    assert_int_equal(again.timing_cls, NB_BOUND_COMPUTE);
    json_decref(root);
    /* a results file with a profile loads as any other (report, compare) */
    char path[] = "/tmp/nb-profile-XXXXXX";
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(js, f);
    fclose(f);
    nb_result_file *rf = NULL;
    assert_int_equal(nb_result_file_load(&rf, path), NB_OK);
    assert_int_equal(nb_result_file_case_count(rf), 1);
    nb_result_file_destroy(rf);
    unlink(path);
    free(js);
    nb_report_destroy(rep);
}

static void test_table_and_markdown_print_a_line_per_kernel(void **state)
{
    (void)state;
    const nb_profile p = recorded();
    nb_report *rep = gpu_report(&p);
    char *t = nb_test_report_text(rep, NB_FORMAT_TABLE);
    char *md = nb_test_report_text(rep, NB_FORMAT_MD);
    const char *want[] = {
        "profiler: Nsight Compute 2025.3.1.0, clocks locked to base, caches flushed before "
        "each kernel",
        "fast_phase<false, 16, 16, false, 8, true, false, false, true, false, W64>: 35.62 us, "
        "DRAM 37 % (44.4 MB), L2 hit 51 %, issue slots 58 %, pipes FMAHEAVY 59 % ALU 31 %, stalls "
        "math-pipe-throttle 27 % not-selected 24 % long-scoreboard 20 %",
        "(2 launches)",
        "profiler DRAM 54 %, issue slots 34 %: latency-bound",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (!strstr(t, want[i]))
            fail_msg("the table lacks \"%s\":\n%s", want[i], t);
        if (!strstr(md, want[i]))
            fail_msg("the markdown lacks \"%s\":\n%s", want[i], md);
    }
    assert_non_null(strstr(md, "#### Profiler pass"));
    free(t);
    free(md);
    nb_report_destroy(rep);
}

/* A case whose pass failed keeps its timing and has no profile. */
static void test_a_failed_pass_leaves_the_timing_alone(void **state)
{
    (void)state;
    nb_profile p;
    assert_int_equal(run_fake("perm", 30, &p), NB_ERR_IO);
    nb_report *rep = gpu_report(NULL);
    char *js = nb_test_report_text(rep, NB_FORMAT_JSON);
    json_t *root = json_loads(js, 0, NULL);
    assert_non_null(root);
    const json_t *cj = json_array_get(json_object_get(root, "cases"), 0);
    assert_null(json_object_get(cj, "profile"));
    NEAR(json_number_value(json_object_get(json_object_get(cj, "stats"), "median")), 40e3);
    const json_t *b = json_object_get(cj, "bound");
    assert_string_equal(json_string_value(json_object_get(b, "class")), "compute-bound");
    assert_null(json_object_get(b, "class_from_timing"));
    json_decref(root);
    free(js);
    nb_report_destroy(rep);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DATA-DIR\n", argv[0]);
        return 2;
    }
    data_dir = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded_csv_gives_each_kernel_its_figures),
        cmocka_unit_test(test_launches_of_one_kernel_are_merged_time_weighted),
        cmocka_unit_test(test_parser_reads_quoting_units_and_gaps),
        cmocka_unit_test(test_output_without_a_table_is_refused),
        cmocka_unit_test(test_a_pass_parses_what_ncu_prints),
        cmocka_unit_test(test_a_failing_ncu_gives_its_reason),
        cmocka_unit_test(test_a_hanging_ncu_is_killed_at_its_timeout),
        cmocka_unit_test(test_ncu_is_found_through_nb_ncu_and_its_version_read),
        cmocka_unit_test(test_profiler_figures_refine_the_class),
        cmocka_unit_test(test_json_carries_the_profile_and_the_refined_bound),
        cmocka_unit_test(test_table_and_markdown_print_a_line_per_kernel),
        cmocka_unit_test(test_a_failed_pass_leaves_the_timing_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

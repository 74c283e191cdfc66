/* Tests of the report writers: the JSON (parsed back with jansson: schema,
 * parameters, statistics, every sample and its clock, figures, breakdown,
 * metrics, the kernel trace over every device and per device or why not),
 * the CSV (header, quoting, values), the table and markdown forms,
 * where a run's time went (sums over the timed cases, each format), and the
 * atomic file writer (no temporary left, no truncated file). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "bench/bench.h"
#include "reportutil.h"

static nb_bench_result sample_result(void)
{
    const double t[5] = {3e-6, 1e-6, 4e-6, 1e-6, 5e-6};
    const double clk[5] = {1500, 1501, NAN, 1503, 1504};
    nb_bench_result r = nb_test_result(NB_BACKEND_CPU, 4, t, clk, 5);
    r.mode = NB_MODE_BATCH;
    r.stop = NB_STOP_TIMEOUT;
    r.noise_target_met = 0;
    r.throttled_samples = 2;
    r.verified_before = 1;
    r.verified_after = 1;
    r.cache.cache = NB_CACHE_COLD;
    r.cache.flush = 1;
    r.cache.sets = 12;
    r.cache.graphs = 1;
    r.cache.launches = 4;
    r.cache.cache_bytes = 1 << 20;
    r.cache.footprint = 1 << 18;
    r.cache.reuse_bytes = INFINITY;
    return r;
}

static nb_report *sample_report(void)
{
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    char *argv[] = {"nttbench", "run", "--tier", "cold"};
    assert_int_equal(nb_report_set_argv(rep, 4, argv), NB_OK);
    nb_env e;
    assert_int_equal(nb_env_collect(&e, 0, 0), NB_OK);
    nb_report_set_env(rep, &e);
    nb_bench_opts o;
    nb_bench_opts_default(&o);
    nb_report_set_options(rep, &o);

    nb_case *c = NULL;
    assert_int_equal(nb_case_create(&c, "cold", NB_CACHE_COLD, "cpu-harvey", NB_BACKEND_CPU,
                                    "fwd logn=10 L=2, \"quoted\""),
                     NB_OK);
    assert_int_equal(nb_case_param_str(c, "direction", "forward"), NB_OK);
    assert_int_equal(nb_case_param_int(c, "log_n", 10), NB_OK);
    const uint64_t primes[2] = {1152921504606830593ull, 1152921504606748673ull};
    assert_int_equal(nb_case_param_u64_list(c, "primes", primes, 2), NB_OK);
    assert_int_equal(nb_case_metric(c, "per_ntt_ns", 1234.5), NB_OK);
    nb_bench_result r = sample_result();
    assert_int_equal(nb_case_set_result(c, &r), NB_OK);
    nb_bench_result_free(&r); /* the case holds a copy */
    nb_ntt_figures f;
    nb_ntt_figures_compute(10, 2, 64, 3e-6, 1e10, 0, &f);
    nb_case_set_figures(c, &f);
    nb_breakdown b;
    memset(&b, 0, sizeof b);
    b.passes = 20;
    b.n_steps = 2;
    snprintf(b.steps[0].name, sizeof b.steps[0].name, "intt");
    b.steps[0].is_ntt = 1;
    b.steps[0].inverse = 1;
    b.steps[0].median_s = 1e-6;
    b.steps[0].share = 0.25;
    snprintf(b.steps[1].name, sizeof b.steps[1].name, "conv");
    b.steps[1].median_s = 3e-6;
    b.steps[1].share = 0.75;
    b.sum_s = 4e-6;
    b.launch_s = 6e-6; /* twice the median: the text says the shares are not its */
    b.ntt_share = 0.25;
    b.ntt_inv_limbs = 3;
    assert_int_equal(nb_case_set_breakdown(c, &b), NB_OK);
    assert_int_equal(nb_case_set_breakdown(NULL, &b), NB_ERR_INVALID_ARG);
    nb_case_set_status(c, NB_CASE_OK, NULL);
    assert_int_equal(nb_report_add_case(rep, c), NB_OK);

    nb_case *d = NULL;
    assert_int_equal(nb_case_create(&d, "warm", NB_CACHE_WARM, "gpu-x", NB_BACKEND_GPU, "fwd logn=20"),
                     NB_OK);
    assert_int_equal(nb_case_param_int(d, "log_n", 20), NB_OK);
    assert_int_equal(nb_case_param_int(d, "limbs", 3), NB_OK);
    nb_case_set_status(d, NB_CASE_SKIPPED, "log_n=20 outside the variant's range");
    assert_int_equal(nb_report_add_case(rep, d), NB_OK);
    assert_int_equal(nb_report_case_count(rep), 2);
    return rep;
}

/* A report of one GPU case with a kernel trace (two kernels of two steps,
 * the second starting 10 ns before the first ends, on device 0 and on
 * device `second_device`) and one CPU case whose trace was not recorded. */
static nb_report *traced_report(uint32_t second_device)
{
    nb_report *r = NULL;
    assert_int_equal(nb_report_create(&r, "run"), NB_OK);
    nb_case *c = NULL, *d = NULL;
    assert_int_equal(nb_case_create(&c, "stage", NB_CACHE_COLD, "gpu-x", NB_BACKEND_GPU,
                                    "keyswitch test l=1"), NB_OK);
    nb_trace t;
    memset(&t, 0, sizeof t);
    t.acts = calloc(2, sizeof *t.acts);
    assert_non_null(t.acts);
    t.n_acts = 2;
    const uint64_t times[2][2] = {{500, 600}, {590, 700}};
    nb_trace_mark m[2];
    memset(m, 0, sizeof m);
    for (size_t i = 0; i < 2; i++) {
        snprintf(t.acts[i].name, sizeof t.acts[i].name, "kernel%zu", i);
        t.acts[i].start_ns = times[i][0];
        t.acts[i].end_ns = times[i][1];
        t.acts[i].mark = i;
        t.acts[i].correlation_id = (uint32_t)(7 + i);
        t.acts[i].device = i ? second_device : 0;
        snprintf(m[i].name, sizeof m[i].name, "%s", i ? "conv" : "ntt");
    }
    m[0].is_ntt = 1;
    assert_int_equal(nb_trace_attribute(&t, m, 2), NB_OK);
    assert_int_equal(nb_case_set_trace(c, &t, NULL), NB_OK);
    nb_trace_free(&t);
    assert_int_equal(nb_report_add_case(r, c), NB_OK);
    assert_int_equal(nb_case_create(&d, "stage", NB_CACHE_COLD, "cpu-x", NB_BACKEND_CPU,
                                    "keyswitch test l=1"), NB_OK);
    assert_int_equal(nb_case_set_trace(d, NULL, "the reason it is absent"), NB_OK);
    assert_int_equal(nb_report_add_case(r, d), NB_OK);
    return r;
}

static void test_json_carries_the_trace_or_why_not(void **state)
{
    (void)state;
    nb_report *r = traced_report(0);
    char *text = nb_test_report_text(r, NB_FORMAT_JSON);
    json_error_t err;
    json_t *root = json_loads(text, 0, &err);
    assert_non_null(root);
    json_t *cases = json_object_get(root, "cases");
    json_t *tr = json_object_get(json_array_get(cases, 0), "trace");
    assert_true(json_is_object(tr));
    json_t *acts = json_object_get(tr, "activities");
    assert_int_equal(json_array_size(acts), 2);
    json_t *a1 = json_array_get(acts, 1);
    assert_string_equal(json_string_value(json_object_get(a1, "step")), "conv");
    assert_true(json_number_value(json_object_get(a1, "start_ns")) == 90.0); /* from origin */
    json_t *steps = json_object_get(tr, "steps");
    assert_true(json_number_value(json_object_get(json_array_get(steps, 1),
                                                  "boundary_overlap_ns")) == 10.0);
    json_t *c1 = json_array_get(cases, 1);
    assert_true(json_is_null(json_object_get(c1, "trace")));
    assert_string_equal(json_string_value(json_object_get(c1, "trace_note")),
                        "the reason it is absent");
    json_decref(root);
    free(text);
    nb_report_destroy(r);
}

static void test_table_and_markdown_have_a_kernel_trace_section(void **state)
{
    (void)state;
    nb_report *r = traced_report(0);
    for (int md = 0; md < 2; md++) {
        char *text = nb_test_report_text(r, md ? NB_FORMAT_MD : NB_FORMAT_TABLE);
        const char *sec = strstr(text, "Kernel trace: gpu-x keyswitch test l=1");
        assert_non_null(sec);
        assert_non_null(strstr(sec, "across boundary"));
        assert_non_null(strstr(text, "not recorded: the reason it is absent"));
        free(text);
    }
    nb_report_destroy(r);
}

static void test_a_trace_on_several_devices_is_also_written_per_device(void **state)
{
    (void)state;
    for (uint32_t second = 0; second < 2; second++) {
        nb_report *r = traced_report(second);
        char *text = nb_test_report_text(r, NB_FORMAT_JSON);
        json_error_t err;
        json_t *root = json_loads(text, 0, &err);
        assert_non_null(root);
        json_t *tr = json_object_get(json_array_get(json_object_get(root, "cases"), 0), "trace");
        json_t *devs = json_object_get(json_object_get(tr, "launch"), "devices");
        assert_int_equal(json_array_size(devs), second + 1);
        json_t *conv = json_array_get(json_object_get(tr, "steps"), 1);
        json_t *last = json_array_get(json_object_get(conv, "devices"), second);
        assert_int_equal(json_integer_value(json_object_get(last, "device")), second);
        assert_true(json_number_value(json_object_get(last, "busy_ns")) == 110.0);
        json_decref(root);
        free(text);
        for (int md = 0; md < 2; md++) {
            text = nb_test_report_text(r, md ? NB_FORMAT_MD : NB_FORMAT_TABLE);
            assert_true((strstr(text, "Per device (2 devices") != NULL) == (second == 1));
            free(text);
        }
        nb_report_destroy(r);
    }
}

static void test_json_has_schema_samples_and_figures(void **state)
{
    (void)state;
    nb_report *rep = sample_report();
    char *s = nb_test_report_text(rep, NB_FORMAT_JSON);
    json_error_t err;
    json_t *j = json_loads(s, 0, &err);
    if (!j)
        fail_msg("JSON does not parse: %s (line %d)", err.text, err.line);
    assert_string_equal(json_string_value(json_object_get(j, "schema")), NB_REPORT_SCHEMA);
    assert_int_equal(json_integer_value(json_object_get(j, "schema_version")),
                     NB_REPORT_SCHEMA_VERSION);
    assert_int_equal(NB_REPORT_SCHEMA_VERSION, 4);
    assert_int_equal(json_array_size(json_object_get(j, "command_line")), 4);
    json_t *env = json_object_get(j, "environment");
    assert_non_null(json_object_get(env, "host"));
    assert_non_null(json_object_get(env, "timestamp_utc"));
    assert_true(json_is_null(json_object_get(env, "gpu")));
    json_t *opts = json_object_get(j, "options");
    assert_true(json_real_value(json_object_get(opts, "min_time_s")) == 0.5);
    json_t *cases = json_object_get(j, "cases");
    assert_int_equal(json_array_size(cases), 2);
    json_t *c = json_array_get(cases, 0);
    assert_string_equal(json_string_value(json_object_get(c, "tier")), "cold");
    assert_string_equal(json_string_value(json_object_get(c, "cache_state")), "both");
    assert_string_equal(json_string_value(json_object_get(json_object_get(c, "cache"), "state")),
                        "both");
    assert_string_equal(json_string_value(json_object_get(json_array_get(cases, 1),
                                                          "cache_state")),
                        "warm");
    assert_string_equal(json_string_value(json_object_get(c, "mode")), "batch");
    assert_string_equal(json_string_value(json_object_get(c, "status")), "ok");
    json_t *params = json_object_get(c, "params");
    assert_int_equal(json_integer_value(json_object_get(params, "log_n")), 10);
    assert_int_equal((uint64_t)json_integer_value(json_array_get(json_object_get(params, "primes"), 1)),
                     1152921504606748673ull);
    json_t *st = json_object_get(c, "stats");
    assert_int_equal(json_integer_value(json_object_get(st, "samples")), 5);
    assert_true(fabs(json_real_value(json_object_get(st, "median")) - 3000.0) < 1e-6);
    assert_true(fabs(json_real_value(json_object_get(st, "min")) - 1000.0) < 1e-6);
    json_t *samples = json_object_get(c, "samples_ns");
    json_t *clocks = json_object_get(c, "sample_sm_clock_mhz");
    assert_int_equal(json_array_size(samples), 5);
    assert_int_equal(json_array_size(clocks), 5);
    assert_true(fabs(json_real_value(json_array_get(samples, 4)) - 5000.0) < 1e-6);
    assert_true(json_is_null(json_array_get(clocks, 2))); /* NAN -> null */
    assert_true(json_real_value(json_array_get(clocks, 1)) == 1501.0);
    json_t *stop = json_object_get(c, "stopping");
    assert_string_equal(json_string_value(json_object_get(stop, "reason")), "timeout");
    assert_true(json_is_false(json_object_get(stop, "noise_target_met")));
    assert_int_equal(json_integer_value(json_object_get(stop, "throttled_discarded")), 2);
    json_t *cache = json_object_get(c, "cache");
    assert_int_equal(json_integer_value(json_object_get(cache, "sets")), 12);
    assert_true(json_is_true(json_object_get(cache, "flush")));
    assert_true(json_is_null(json_object_get(cache, "min_reuse_bytes"))); /* infinity */
    json_t *fig = json_object_get(c, "figures");
    assert_true(json_real_value(json_object_get(fig, "coefficient_bytes")) == 2.0 * 8 * 1024 * 2);
    assert_true(json_is_null(json_object_get(fig, "fraction_of_peak_bandwidth")));
    json_t *bd = json_object_get(c, "breakdown");
    assert_int_equal(json_array_size(json_object_get(bd, "steps")), 2);
    assert_true(json_real_value(json_object_get(bd, "ntt_share")) == 0.25);
    assert_true(json_real_value(json_object_get(json_object_get(c, "metrics"), "per_ntt_ns")) ==
                1234.5);
    json_t *d = json_array_get(cases, 1);
    assert_string_equal(json_string_value(json_object_get(d, "status")), "skipped");
    assert_null(json_object_get(d, "stats"));
    json_t *sum = json_object_get(j, "summary");
    assert_int_equal(json_integer_value(json_object_get(sum, "skipped")), 1);
    json_decref(j);
    free(s);
    nb_report_destroy(rep);
}

static void test_csv_header_quoting_and_values(void **state)
{
    (void)state;
    nb_report *rep = sample_report();
    char *s = nb_test_report_text(rep, NB_FORMAT_CSV);
    char *line2 = strchr(s, '\n');
    assert_non_null(line2);
    *line2++ = '\0';
    /* header: fixed columns, the union of parameter keys, metrics, the cache
     * state, message */
    assert_true(strncmp(s, "tier,variant,backend,label,direction,log_n,primes,limbs,mode,", 61) ==
                0);
    assert_non_null(strstr(s, ",median_ns,"));
    assert_non_null(strstr(s, ",per_ntt_ns,cache_state,message"));
    size_t cols = 1;
    for (char *p = s; *p; p++)
        cols += *p == ',';
    /* first row: the label with a comma and quotes is quoted and escaped */
    assert_non_null(strstr(line2, "\"fwd logn=10 L=2, \"\"quoted\"\"\""));
    assert_non_null(strstr(line2, "1152921504606830593;1152921504606748673"));
    assert_non_null(strstr(line2, ",batch,4,ok,5,3000,"));
    assert_non_null(strstr(line2, ",timeout,false,2,12,true,"));
    char *line3 = strchr(line2, '\n');
    assert_non_null(line3);
    *line3++ = '\0';
    assert_non_null(strstr(line3, "skipped"));
    /* the cache state tells rows of one tier and label apart (a stage tier's
     * warm and cold cases): the cold case's row says both (evicted and
     * rotated), the warm one's warm */
    assert_non_null(strstr(line2, ",both,"));
    assert_non_null(strstr(line3, ",warm,"));
    /* every row has the header's column count (no commas inside its fields) */
    size_t c3 = 1;
    for (char *p = line3; *p && *p != '\n'; p++)
        c3 += *p == ',';
    assert_int_equal(c3, cols);
    free(s);
    nb_report_destroy(rep);
}

static void test_csv_keeps_every_parameter_key(void **state)
{
    (void)state;
    /* 100 distinct parameter keys over two cases: every one gets a column */
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    for (int k = 0; k < 2; k++) {
        nb_case *c = NULL;
        assert_int_equal(nb_case_create(&c, "stage", NB_CACHE_WARM, "v", NB_BACKEND_CPU, "x"),
                         NB_OK);
        for (int i = 0; i < 50; i++) {
            char key[16];
            snprintf(key, sizeof key, "key%d", 50 * k + i);
            assert_int_equal(nb_case_param_int(c, key, 1000 + 50 * k + i), NB_OK);
        }
        nb_case_set_status(c, NB_CASE_OK, NULL);
        assert_int_equal(nb_report_add_case(rep, c), NB_OK);
    }
    char *s = nb_test_report_text(rep, NB_FORMAT_CSV);
    assert_non_null(strstr(s, ",key0,"));
    assert_non_null(strstr(s, ",key99,"));
    assert_non_null(strstr(s, ",1099,")); /* the last key's value, in the second row */
    size_t header_cols = 1;
    for (char *p = s; *p != '\n'; p++)
        header_cols += *p == ',';
    assert_true(header_cols >= 4 + 100 + 25 + 1);
    free(s);
    nb_report_destroy(rep);
}

/* A report of two timed cases with hand-set phase times (case a: case wall
 * recorded; case b: not, so its run time stands for it), one skipped case,
 * and a run wall time of 10 s. */
static nb_report *timed_report(void)
{
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    const double phase[2][6] = {
        /* measured, sampling, sets, checks, warm-up, run */
        {0.5, 1.5, 0.25, 0.125, 0.0625, 2.0},
        {0.25, 1.0, 0.5, 0.25, 0.125, 2.0},
    };
    for (int k = 0; k < 2; k++) {
        nb_case *c = NULL;
        assert_int_equal(nb_case_create(&c, "warm", NB_CACHE_WARM, "gpu-x", NB_BACKEND_GPU,
                                        k ? "b" : "a"),
                         NB_OK);
        nb_bench_result r = sample_result();
        r.measured_s = phase[k][0];
        r.wall_s = phase[k][1];
        r.setup_s = phase[k][2];
        r.verify_s = phase[k][3];
        r.warmup_s = phase[k][4];
        r.run_s = phase[k][5];
        r.sampling_syncs = k ? 5 : 1;
        assert_int_equal(nb_case_set_result(c, &r), NB_OK);
        nb_bench_result_free(&r);
        if (k == 0)
            nb_case_set_wall_time(c, 3.0);
        nb_case_set_status(c, NB_CASE_OK, NULL);
        assert_int_equal(nb_report_add_case(rep, c), NB_OK);
    }
    nb_case *d = NULL;
    assert_int_equal(nb_case_create(&d, "warm", NB_CACHE_WARM, "gpu-x", NB_BACKEND_GPU, "c"),
                     NB_OK);
    nb_case_set_status(d, NB_CASE_SKIPPED, "not here");
    assert_int_equal(nb_report_add_case(rep, d), NB_OK);
    nb_report_set_wall_time(rep, 10.0);
    return rep;
}

static void test_overhead_sums_the_timed_cases(void **state)
{
    (void)state;
    nb_report *rep = timed_report();
    nb_overhead o;
    nb_report_overhead(rep, &o);
    assert_int_equal(o.cases, 2);
    assert_int_equal(o.samples, 10);
    assert_int_equal(o.syncs, 6);
    assert_true(o.wall_s == 10.0);
    assert_true(o.cases_s == 5.0);    /* 3 recorded + 2 of the run */
    assert_true(o.measured_s == 0.75);
    assert_true(o.sampling_s == 2.5);
    assert_true(o.outside_s == 2.5);
    assert_true(o.outside_per_case_s == 1.25);
    assert_true(o.setup_s == 0.75);
    assert_true(o.verify_s == 0.375);
    assert_true(o.warmup_s == 0.1875);
    assert_true(o.build_s == 1.0);    /* 5 - (2 + 2) */
    assert_true(o.between_s == 5.0);
    nb_report_destroy(rep);
}

static void test_overhead_absent_without_timed_cases(void **state)
{
    (void)state;
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    nb_overhead o;
    nb_report_overhead(rep, &o);
    assert_int_equal(o.cases, 0);
    assert_true(isnan(o.wall_s)); /* never recorded */
    char *t = nb_test_report_text(rep, NB_FORMAT_TABLE);
    assert_null(strstr(t, "Where the time went"));
    char *j = nb_test_report_text(rep, NB_FORMAT_JSON);
    assert_null(strstr(j, "\"overhead\""));
    free(t);
    free(j);
    nb_report_destroy(rep);
}

static void test_overhead_written_in_each_format(void **state)
{
    (void)state;
    nb_report *rep = timed_report();
    char *t = nb_test_report_text(rep, NB_FORMAT_TABLE);
    assert_non_null(strstr(t, "Where the time went (2 timed cases):"));
    assert_non_null(strstr(t, "3.33x measured; 10 samples, 6 synchronisations"));
    assert_non_null(strstr(t, "1.250 s per case"));
    char *m = nb_test_report_text(rep, NB_FORMAT_MD);
    assert_non_null(strstr(m, "### Where the time went (2 timed cases)"));
    assert_non_null(strstr(m, "sampling phases | 2.500 s | 3.33x measured"));
    char *js = nb_test_report_text(rep, NB_FORMAT_JSON);
    json_error_t err;
    json_t *j = json_loads(js, 0, &err);
    assert_non_null(j);
    json_t *o = json_object_get(j, "overhead");
    assert_non_null(o);
    assert_int_equal(json_integer_value(json_object_get(o, "timed_cases")), 2);
    assert_true(json_real_value(json_object_get(o, "wall_time_s")) == 10.0);
    assert_true(json_real_value(json_object_get(o, "outside_sampling_s")) == 2.5);
    assert_true(json_real_value(json_object_get(o, "build_s")) == 1.0);
    json_t *c0 = json_array_get(json_object_get(j, "cases"), 0);
    json_t *stop = json_object_get(c0, "stopping");
    assert_int_equal(json_integer_value(json_object_get(stop, "synchronisations")), 1);
    assert_true(json_real_value(json_object_get(stop, "case_s")) == 3.0);
    json_decref(j);
    free(t);
    free(m);
    free(js);
    nb_report_destroy(rep);
}

static void test_table_and_markdown(void **state)
{
    (void)state;
    nb_report *rep = sample_report();
    char *t = nb_test_report_text(rep, NB_FORMAT_TABLE);
    assert_non_null(strstr(t, "median"));
    assert_non_null(strstr(t, "3.00 us"));
    assert_non_null(strstr(t, "noise>target"));
    assert_non_null(strstr(t, "stop:timeout"));
    assert_non_null(strstr(t, "throttled:2"));
    /* Guards: 5 samples' [min, max] sat under "95% CI" with nothing saying
     * that it covers 94 % */
    assert_non_null(strstr(t, "ci:94%"));
    assert_non_null(strstr(t, "skipped: log_n=20"));
    assert_non_null(strstr(t, "breakdown:"));
    /* Guards: on the CPU a breakdown whose marked launch was far from the
     * timed median was printed without a word (its shares quoted as the
     * median's) */
    assert_non_null(strstr(t, "the marked launch takes 2.00x the timed median 3.00 us: the "
                              "marked launches ran unlike the timed ones"));
    char *m = nb_test_report_text(rep, NB_FORMAT_MD);
    assert_non_null(strstr(m, "| tier | variant |"));
    assert_non_null(strstr(m, "| --- |"));
    assert_non_null(strstr(m, "| intt (NTT) |"));
    free(t);
    free(m);
    nb_report_destroy(rep);
}

static nb_status failing_writer(void *ctx, FILE *f)
{
    (void)ctx;
    fputs("partial", f);
    return nb_set_error(NB_ERR_IO, "simulated failure");
}

/* Guards: a NULL case or key was "out of memory"; a NULL list segfaulted; a
 * breakdown of more steps than a case holds was copied and read past. */
static void test_case_setters_reject_bad_arguments(void **state)
{
    (void)state;
    assert_int_equal(nb_case_param_int(NULL, "k", 1), NB_ERR_INVALID_ARG);
    nb_case *c = NULL;
    assert_int_equal(nb_case_create(&c, "warm", NB_CACHE_WARM, "v", NB_BACKEND_CPU, "x"), NB_OK);
    assert_int_equal(nb_case_param_str(c, NULL, "v"), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_case_param_u64_list(c, "l", NULL, 3), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_case_param_real(c, "big", 1e308, 9), NB_OK); /* kept, not infinity */
    nb_breakdown bd;
    memset(&bd, 0, sizeof bd);
    bd.n_steps = NB_MAX_STEPS + 1;
    assert_int_equal(nb_case_set_breakdown(c, &bd), NB_ERR_INVALID_ARG);
    nb_case_destroy(c);
}

/* Guards: a label that is not UTF-8 was dropped from the JSON (the case had
 * no "label"), a key with commas shifted the CSV header's columns, and a '|'
 * or a newline in a label broke the markdown row. */
static void test_writers_keep_any_text(void **state)
{
    (void)state;
    nb_report *r = NULL;
    nb_case *c = NULL;
    assert_int_equal(nb_report_create(&r, "run"), NB_OK);
    assert_int_equal(nb_case_create(&c, "warm", NB_CACHE_WARM, "v", NB_BACKEND_CPU,
                                    "a\xff" "b|c\nd"),
                     NB_OK);
    assert_int_equal(nb_case_param_int(c, "k,e\"y", 1), NB_OK);
    assert_int_equal(nb_report_add_case(r, c), NB_OK);
    char *json = nb_test_report_text(r, NB_FORMAT_JSON);
    assert_non_null(strstr(json, "\"label\": \"a\\\\xffb|c\\\\x0ad\""));
    free(json);
    char *csv = nb_test_report_text(r, NB_FORMAT_CSV);
    assert_non_null(strstr(csv, ",\"k,e\"\"y\","));
    free(csv);
    char *md = nb_test_report_text(r, NB_FORMAT_MD);
    assert_non_null(strstr(md, "a\\xffb\\|c\\x0ad"));
    free(md);
    nb_report_destroy(r);
}

static void test_atomic_file_write(void **state)
{
    (void)state;
    char dir[] = "/tmp/nb_report_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], tmp[300];
    snprintf(path, sizeof path, "%s/out.json", dir);
    nb_report *rep = sample_report();
    assert_int_equal(nb_report_write_file(rep, NB_FORMAT_JSON, path), NB_OK);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    assert_non_null(j);
    json_decref(j);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    assert_int_not_equal(access(tmp, F_OK), 0); /* renamed away */
    /* a failing writer leaves the previous file intact and no temporary */
    assert_int_equal(nb_write_file_atomic(path, failing_writer, NULL), NB_ERR_IO);
    j = json_load_file(path, 0, &err);
    assert_non_null(j);
    json_decref(j);
    assert_int_not_equal(access(tmp, F_OK), 0);
    /* a folder that does not exist: bad input, named */
    assert_int_equal(nb_report_write_file(rep, NB_FORMAT_CSV, "/nonexistent-dir/x.csv"),
                     NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "/nonexistent-dir/x.csv"));
    unlink(path);
    rmdir(dir);
    nb_report_destroy(rep);
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_has_schema_samples_and_figures),
        cmocka_unit_test(test_json_carries_the_trace_or_why_not),
        cmocka_unit_test(test_table_and_markdown_have_a_kernel_trace_section),
        cmocka_unit_test(test_a_trace_on_several_devices_is_also_written_per_device),
        cmocka_unit_test(test_csv_header_quoting_and_values),
        cmocka_unit_test(test_csv_keeps_every_parameter_key),
        cmocka_unit_test(test_table_and_markdown),
        cmocka_unit_test(test_overhead_sums_the_timed_cases),
        cmocka_unit_test(test_overhead_absent_without_timed_cases),
        cmocka_unit_test(test_overhead_written_in_each_format),
        cmocka_unit_test(test_case_setters_reject_bad_arguments),
        cmocka_unit_test(test_writers_keep_any_text),
        cmocka_unit_test(test_atomic_file_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

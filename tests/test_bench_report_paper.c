/* Tests of what a paper reads from a run: the stored-sample cap (a seeded
 * reservoir of exactly NB_REPORT_MAX_STORED_SAMPLES, said so in the JSON,
 * read back by the result-file reader), the build block, and the human
 * outputs of a real CPU stage run (environment block, the warm / cold /
 * in-stage table with its ratios, balanced markdown bold, the rescale
 * rounding mode in the label, k/n progress lines), the environment opening
 * `verify` and `verify --stage`, and the CSV quoting of seeds beyond 2^53.
 * argv[1] = the nttbench executable. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bench/bench.h"
#include "bench/report/internal.h"
#include "bench/report/result_file.h"
#include "cliutil.h"

/* A report with one CPU case of n samples (sample i is i + 1 ns, so the
 * stored values name their acceptance index) and the given seed. */
static nb_report *report_with_samples(size_t n, long long seed)
{
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    nb_env e;
    assert_int_equal(nb_env_collect(&e, 0, 0), NB_OK);
    nb_report_set_env(rep, &e);
    nb_case *c = NULL;
    assert_int_equal(nb_case_create(&c, "warm", NB_CACHE_WARM, "cpu-harvey", NB_BACKEND_CPU,
                                    "fwd logn=4 L=1 q30"),
                     NB_OK);
    assert_int_equal(nb_case_param_int(c, "seed", seed), NB_OK);
    nb_bench_result r;
    memset(&r, 0, sizeof r);
    r.mode = NB_MODE_PER_LAUNCH;
    r.launches_per_sample = 1;
    r.n_samples = n;
    r.sample_s = malloc(n * sizeof(double));
    r.sample_clock_mhz = malloc(n * sizeof(double));
    assert_true(r.sample_s && r.sample_clock_mhz);
    for (size_t i = 0; i < n; i++) {
        r.sample_s[i] = (double)(i + 1) * 1e-9;
        r.sample_clock_mhz[i] = 1000.0 + (double)i;
    }
    r.stats.n = n;
    r.stats.median = (double)(n / 2) * 1e-9;
    assert_int_equal(nb_case_set_result(c, &r), NB_OK);
    free(r.sample_s);
    free(r.sample_clock_mhz);
    nb_case_set_status(c, NB_CASE_OK, NULL);
    assert_int_equal(nb_report_add_case(rep, c), NB_OK);
    return rep;
}

/* Writes rep as JSON to dir/NAME and parses it back. */
static json_t *json_of(const nb_report *rep, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(nb_report_write_file(rep, NB_FORMAT_JSON, path), NB_OK);
    return load_json(name);
}

static void test_samples_beyond_the_cap_keep_a_seeded_reservoir(void **state)
{
    (void)state;
    const size_t n = NB_REPORT_MAX_STORED_SAMPLES + 2345;
    nb_report *rep = report_with_samples(n, (long long)(1ull << 60) + 7);
    json_t *j = json_of(rep, "cap.json");
    const json_t *c = json_array_get(json_object_get(j, "cases"), 0);
    const json_t *s = json_object_get(c, "samples_ns"), *k = json_object_get(c, "sample_sm_clock_mhz");
    assert_int_equal(json_array_size(s), NB_REPORT_MAX_STORED_SAMPLES);
    assert_int_equal(json_array_size(k), NB_REPORT_MAX_STORED_SAMPLES);
    assert_int_equal(json_integer_value(json_object_get(c, "samples_stored")),
                     NB_REPORT_MAX_STORED_SAMPLES);
    assert_string_equal(json_string_value(json_object_get(c, "samples_selection")), "reservoir");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "stats"), "samples")),
                     n);
    /* acceptance order, each clock beside its own sample, and not the first 10 000 */
    double prev = 0;
    size_t beyond = 0;
    for (size_t i = 0; i < json_array_size(s); i++) {
        const double v = json_number_value(json_array_get(s, i));
        assert_true(v > prev);
        assert_true(fabs(json_number_value(json_array_get(k, i)) - (1000.0 + v - 1.0)) < 1e-6);
        beyond += v > (double)NB_REPORT_MAX_STORED_SAMPLES;
        prev = v;
    }
    assert_true(beyond > 0);
    /* the reader takes the stored count and the selection */
    char path[256];
    snprintf(path, sizeof path, "%s/cap.json", dir);
    nb_result_file *rf = NULL;
    assert_int_equal(nb_result_file_load(&rf, path), NB_OK);
    const nb_rf_case *rc = nb_result_file_case(rf, 0);
    assert_int_equal(rc->n_samples, NB_REPORT_MAX_STORED_SAMPLES);
    assert_int_equal(rc->n_recorded_samples, n);
    assert_true(rc->samples_reservoir);
    nb_result_file_destroy(rf);
    /* report says so and names the build; compare tests on the stored samples */
    char args[600];
    snprintf(args, sizeof args, "report %s", path);
    assert_int_equal(run(args), 0);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "seeded reservoir sample of the samples of 1 case"));
    assert_non_null(strstr(out, "[x] compiler and build options"));
    free(out);
    snprintf(args, sizeof args, "--format csv compare --min-samples 5 %s %s", path, path);
    assert_int_equal(run(args), 0);
    out = slurp("out.txt");
    assert_non_null(strstr(out, "10000 / 10000 stored of 12345 / 12345 samples (reservoir)"));
    free(out);
    json_decref(j);
    nb_report_destroy(rep);
}

static void test_samples_within_the_cap_are_all_stored(void **state)
{
    (void)state;
    nb_report *rep = report_with_samples(NB_REPORT_MAX_STORED_SAMPLES, 5);
    json_t *j = json_of(rep, "all.json");
    const json_t *c = json_array_get(json_object_get(j, "cases"), 0);
    assert_int_equal(json_array_size(json_object_get(c, "samples_ns")),
                     NB_REPORT_MAX_STORED_SAMPLES);
    assert_string_equal(json_string_value(json_object_get(c, "samples_selection")), "all");
    json_decref(j);
    nb_report_destroy(rep);
}

/* Every index is kept with probability k/n (Algorithm R), the same seed
 * gives the same choice and another seed another one. */
static void test_reservoir_is_uniform_and_seeded(void **state)
{
    (void)state;
    enum { N = 20, K = 5, TRIALS = 4000 };
    size_t hits[N] = {0};
    for (uint64_t seed = 0; seed < TRIALS; seed++) {
        size_t *idx = nb_report_reservoir(N, K, seed * 0x9E3779B97F4A7C15ull);
        assert_non_null(idx);
        for (size_t i = 0; i < K; i++) {
            assert_true(idx[i] < N);
            if (i)
                assert_true(idx[i] > idx[i - 1]);
            hits[idx[i]]++;
        }
        free(idx);
    }
    /* expected 1000 per index, sd ~27: 6 sd either side */
    for (size_t i = 0; i < N; i++)
        if (hits[i] < 840 || hits[i] > 1160)
            fail_msg("index %zu kept %zu times of %d (expected ~%d)", i, hits[i], TRIALS,
                     TRIALS * K / N);
    size_t *a = nb_report_reservoir(100000, 100, 42), *b = nb_report_reservoir(100000, 100, 42);
    size_t *c = nb_report_reservoir(100000, 100, 43);
    assert_memory_equal(a, b, 100 * sizeof *a);
    assert_true(memcmp(a, c, 100 * sizeof *a) != 0);
    free(a);
    free(b);
    free(c);
}

static void test_reader_refuses_a_stored_count_that_does_not_match(void **state)
{
    (void)state;
    nb_report *rep = report_with_samples(50, 5);
    json_t *j = json_of(rep, "bad.json");
    json_t *c = json_array_get(json_object_get(j, "cases"), 0);
    json_object_set_new(c, "samples_stored", json_integer(49));
    char path[256];
    snprintf(path, sizeof path, "%s/bad.json", dir);
    assert_int_equal(json_dump_file(j, path, 0), 0);
    nb_result_file *rf = NULL;
    assert_int_equal(nb_result_file_load(&rf, path), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "samples_stored"));
    json_object_set_new(c, "samples_stored", json_integer(50));
    json_object_set_new(c, "samples_selection", json_string("every-10th"));
    assert_int_equal(json_dump_file(j, path, 0), 0);
    assert_int_equal(nb_result_file_load(&rf, path), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "samples_selection"));
    /* Guards: a summary claiming more samples than an "all" selection
     * stores, or a reservoir below the cap, was read (and the median check
     * that needs every sample skipped) */
    json_t *stats = json_object_get(c, "stats");
    const char *sel[] = {"all", "reservoir"};
    for (int k = 0; k < 2; k++) {
        json_object_set_new(c, "samples_selection", json_string(sel[k]));
        json_object_set_new(stats, "samples", json_integer(k ? 50 : 100000));
        assert_int_equal(json_dump_file(j, path, 0), 0);
        assert_int_equal(nb_result_file_load(&rf, path), NB_ERR_INVALID_ARG);
        assert_non_null(strstr(nb_last_error(), "a run stores all of up to 10000 samples"));
    }
    /* Guards: a negative, zero or absurd per-sample clock failed later as "new
     * time 0 is not positive", or printed a 300-digit cycle ratio */
    json_object_set_new(c, "samples_selection", json_string("all"));
    json_object_set_new(stats, "samples", json_integer(50));
    const double bad_mhz[] = {-1800.0, 0.0, 1e300};
    for (int k = 0; k < 3; k++) {
        json_array_set_new(json_object_get(c, "sample_sm_clock_mhz"), 3, json_real(bad_mhz[k]));
        assert_int_equal(json_dump_file(j, path, 0), 0);
        assert_int_equal(nb_result_file_load(&rf, path), NB_ERR_INVALID_ARG);
        assert_non_null(strstr(nb_last_error(), "sample 3's SM clock ('sample_sm_clock_mhz'), "));
    }
    json_decref(j);
    nb_report_destroy(rep);
}

static void test_environment_has_the_build_block(void **state)
{
    (void)state;
    nb_report *rep = report_with_samples(10, 5);
    json_t *j = json_of(rep, "build.json");
    const json_t *b = json_object_get(json_object_get(j, "environment"), "build");
    assert_true(json_is_object(b));
    assert_true(strlen(json_string_value(json_object_get(b, "compiler"))) > 0);
    assert_non_null(strstr(json_string_value(json_object_get(b, "flags")), "buildtype="));
    assert_true(json_is_array(json_object_get(b, "cuda_architectures")));
    assert_true(json_is_boolean(json_object_get(b, "openmp")));
    json_decref(j);
    nb_report_destroy(rep);
}

/* Every line holding "**" holds an even number of them. */
static void assert_bold_balanced(const char *s)
{
    for (const char *line = s; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line), n = 0;
        for (size_t i = 0; i + 1 < len; i++)
            if (line[i] == '*' && line[i + 1] == '*') {
                n++;
                i++;
            }
        if (n % 2)
            fail_msg("unbalanced ** in: %.*s", (int)len, line);
        line = end ? end + 1 : line + len;
    }
}

/* The environment block's rows in a table or markdown output. */
static void assert_environment(const char *s)
{
    assert_non_null(strstr(s, "Environment"));
    assert_non_null(strstr(s, "host CPU"));
    assert_non_null(strstr(s, "GPU"));
    assert_non_null(strstr(s, "timestamp (UTC)"));
    assert_non_null(strstr(s, "build"));
    assert_non_null(strstr(s, "command line"));
    assert_true(strstr(s, "Environment") < strstr(s, "median"));
}

static const char *const stage_args =
    "run --backend cpu --tier stage --preset test-tiny --stage modup,rescale --rounding round "
    "--min-samples 5 --min-time 0.005 --timeout 0.05 --max-noise 50 --progress";

static void test_stage_run_outputs_carry_environment_and_ntt_table(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args, "--format md --output %s/stage.md %s", dir, stage_args);
    assert_int_equal(run(args), 0);
    char *t = slurp("out.txt"), *m = slurp("stage.md"), *e = slurp("err.txt");
    /* the table (stdout) and the markdown (file) */
    assert_environment(t);
    assert_environment(m);
    assert_non_null(strstr(t, "warm ns/limb"));
    assert_non_null(strstr(t, "cold ns/limb"));
    assert_non_null(strstr(t, "in-stage ns/limb"));
    assert_non_null(strstr(t, "in-stage/warm"));
    assert_non_null(strstr(t, "in-stage/cold"));
    assert_non_null(strstr(m, "| variant | case | direction | warm ns/limb | cold ns/limb | "
                              "in-stage ns/limb | in-stage/warm | in-stage/cold |"));
    /* one row per direction of each stage, with numbers and ratios */
    assert_non_null(strstr(m, "| cpu-harvey | modup test-tiny l=3 | forward | "));
    assert_non_null(strstr(m, "| cpu-harvey | modup test-tiny l=3 | inverse | "));
    const char *row = strstr(m, "| cpu-harvey | rescale round test-tiny l=3 | forward | ");
    assert_non_null(row);
    double w, c, in, rw, rc;
    assert_int_equal(sscanf(row, "| cpu-harvey | rescale round test-tiny l=3 | forward | %lf | "
                                 "%lf | %lf | %lfx | %lfx |", &w, &c, &in, &rw, &rc), 5);
    assert_true(w > 0 && c > 0 && in > 0);
    assert_true(fabs(rw - in / w) <= 0.01 * rw + 0.006);
    assert_true(fabs(rc - in / c) <= 0.01 * rc + 0.006);
    /* the rounding mode in the label, the breakdown's bold closed */
    assert_non_null(strstr(t, "rescale round test-tiny"));
    assert_non_null(strstr(m, "**breakdown: cpu-harvey rescale round test-tiny l=3**"));
    assert_bold_balanced(m);
    /* progress: k/n with the time left */
    assert_non_null(strstr(e, "[1/2] "));
    assert_non_null(strstr(e, "[2/2] "));
    assert_non_null(strstr(e, " left)"));
    free(t);
    free(m);
    free(e);
}

static void test_csv_quotes_seeds_beyond_2_pow_53(void **state)
{
    (void)state;
    assert_int_equal(run("--format csv run --tier warm --logn 4 --limbs 1 --bits 30 "
                         "--direction forward --seed 18014398509481985 --min-samples 5 "
                         "--min-time 0.001 --timeout 0.05 --quiet"),
                     0);
    char *s = slurp("out.txt");
    /* 2^54 + 1: a double would print it as ...984 */
    assert_non_null(strstr(s, ",\"18014398509481985\","));
    /* the prime and root lists are text too */
    const char *row = strchr(s, '\n');
    assert_non_null(row);
    assert_non_null(strstr(row, "\",\""));
    free(s);
}

static void test_verify_outputs_open_with_the_environment(void **state)
{
    (void)state;
    assert_int_equal(run("verify --logn 4 --limbs 1 --bits 30 --direction forward"), 0);
    char *t = slurp("out.txt");
    assert_non_null(strstr(t, "Environment"));
    assert_non_null(strstr(t, "host CPU"));
    assert_true(strstr(t, "host CPU") < strstr(t, "variant"));
    free(t);
    assert_int_equal(run("--format md verify --logn 4 --limbs 1 --bits 30 --direction forward"),
                     0);
    char *m = slurp("out.txt");
    assert_non_null(strstr(m, "| host CPU |"));
    assert_bold_balanced(m);
    free(m);
    assert_int_equal(run("verify --stage rescale --preset test-tiny --level 1"), 0);
    t = slurp("out.txt");
    assert_true(strstr(t, "host CPU") && strstr(t, "host CPU") < strstr(t, "variant"));
    free(t);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s NTTBENCH\n", argv[0]);
        return 2;
    }
    exe = argv[1];
    if (cli_scratch_create("nb_paper_") != 0)
        return 1;
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples_beyond_the_cap_keep_a_seeded_reservoir),
        cmocka_unit_test(test_samples_within_the_cap_are_all_stored),
        cmocka_unit_test(test_reservoir_is_uniform_and_seeded),
        cmocka_unit_test(test_reader_refuses_a_stored_count_that_does_not_match),
        cmocka_unit_test(test_environment_has_the_build_block),
        cmocka_unit_test(test_stage_run_outputs_carry_environment_and_ntt_table),
        cmocka_unit_test(test_csv_quotes_seeds_beyond_2_pow_53),
        cmocka_unit_test(test_verify_outputs_open_with_the_environment),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cli_scratch_remove();
    return rc;
}

/* Tests of run comparison (bench/report/result_file, compare) and of
 * `nttbench compare`, on synthetic result files whose truth is known:
 * identical distributions are "same" in at least 95 % of seeded trials, a 2 %
 * shift with thousands of samples is detected by the within-run test (and is
 * no change at the default run-to-run noise of one GPU run), a 5 % SM clock change with
 * unchanged cycles is a clock change (per-sample and recorded clocks), files
 * without samples give "insufficient data"; the CLI exits 0 on a file
 * compared with itself, 1 on a copy 1.25x slower under --threshold 5, 2 with
 * one line on malformed, wrong-schema, compressed and unmatched input; --ignore
 * pairs cases that differ in a named parameter or the variant.
 * argv[1] = the nttbench executable. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/timing/rank_stats.h"
#include "bench/report/compare.h"
#include "testutil.h"
#include "cliutil.h"

/* One synthetic case: n samples of median * (1 + rel_sd * N(0,1)) * shift, the
 * SM clock per sample (clock_mhz * (1 + 0.003 N(0,1))) when per_sample_clock,
 * otherwise only the NVML before/after readings (clock_mhz) when clock_mhz > 0;
 * cycles_fixed: times are cycles / clock, so a clock change moves the time only. */
typedef struct spec {
    size_t n;
    double median_ns, rel_sd, shift, clock_mhz;
    int per_sample_clock, noise_met, cycles_fixed, no_samples;
} spec;

static double gauss(void)
{
    double u1 = ((double)(nb_test_rand() >> 11) + 0.5) / 9007199254740992.0;
    double u2 = ((double)(nb_test_rand() >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static json_t *case_json(const spec *s, int idx)
{
    json_t *samples = json_array(), *clocks = json_array();
    double *v = malloc(s->n * sizeof *v);
    for (size_t i = 0; i < s->n; i++) {
        double clk = s->clock_mhz > 0 ? s->clock_mhz * (1 + 0.003 * gauss()) : 0;
        double t = s->median_ns * (1 + s->rel_sd * gauss()) * s->shift;
        if (s->cycles_fixed) /* the same cycle distribution at 1980 MHz */
            t = t * 1980.0 / clk;
        v[i] = t;
        json_array_append_new(samples, json_real(t));
        json_array_append_new(clocks, s->per_sample_clock ? json_real(clk) : json_null());
    }
    double med = nb_rank_median(v, s->n);
    free(v);
    json_t *nvml = s->clock_mhz > 0 ? json_pack("{s:s, s:f}", "status", "ok", "sm_clock_mhz",
                                                 s->clock_mhz)
                                     : json_pack("{s:s}", "status", "unavailable");
    json_t *c = json_pack(
        "{s:s, s:s, s:s, s:s, s:{s:s, s:i, s:i, s:I}, s:s, s:s, s:s, s:i, s:b, s:{s:s, s:b, s:i},"
        " s:{s:s, s:b}, s:{s:s, s:I, s:f, s:f}, s:{s:f, s:o, s:O}}",
        "tier", "warm", "variant", "synthetic", "backend", s->clock_mhz > 0 ? "gpu" : "cpu",
        "label", "case", "params", "direction", "forward", "log_n", 10 + idx, "limbs", 1, "seed",
        (json_int_t)(nb_test_rand() >> 2), "status", "ok", "message", "", "mode", "per-launch",
        "launches_per_sample", 1, "blocking_kernel", 1, "cache", "tier", "warm", "flush", 0,
        "sets", 1, "stopping", "reason", s->noise_met ? "converged" : "noise-stable",
        "noise_target_met", s->noise_met, "stats", "unit", "ns", "samples", (json_int_t)s->n,
        "median", med, "noise_pct", 100 * s->rel_sd, "clocks", "default_sm_mhz", 1980.0,
        "nvml_before", nvml, "nvml_after", nvml);
    if (s->no_samples) {
        json_decref(samples);
        json_decref(clocks);
    } else {
        json_object_set_new(c, "samples_ns", samples);
        json_object_set_new(c, "sample_sm_clock_mhz", clocks);
    }
    return c;
}

/* Writes dir/NAME with one case per spec. */
static void write_file(const char *name, const spec *specs, int n_cases, double default_clock)
{
    json_t *cases = json_array();
    for (int i = 0; i < n_cases; i++)
        json_array_append_new(cases, case_json(&specs[i], i));
    json_t *doc = json_pack(
        "{s:s, s:i, s:s, s:[s, s], s:{s:s, s:s, s:{s:s, s:f, s:s}}, s:{s:f}, s:o}", "schema",
        "nttbench-report", "schema_version", 1, "command", "run", "command_line", "nttbench",
        "run", "environment", "nttbench_version", "0.1.0", "git_commit", "abc",
        "gpu", "name", "Synthetic GPU", "default_sm_clock_mhz", default_clock, "ecc", "on",
        "options", "min_time_s", 0.5, "cases", cases);
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(json_dump_file(doc, path, JSON_COMPACT), 0);
    json_decref(doc);
}

static nb_comparison *compare_files(const char *a, const char *b, nb_result_file **fa,
                                    nb_result_file **fb, const nb_compare_opts *o)
{
    char pa[256], pb[256];
    snprintf(pa, sizeof pa, "%s/%s", dir, a);
    snprintf(pb, sizeof pb, "%s/%s", dir, b);
    assert_int_equal(nb_result_file_load(fa, pa), NB_OK);
    assert_int_equal(nb_result_file_load(fb, pb), NB_OK);
    nb_comparison *c = NULL;
    if (nb_compare(*fa, *fb, o, &c) != NB_OK)
        fail_msg("compare: %s", nb_last_error());
    return c;
}

/* The verdict of one case a against b; within_only: judged on the samples
 * alone (run noise 0), else at the defaults. */
static nb_verdict verdict_opts(const spec *a, const spec *b, nb_compare_test *time_out,
                               int within_only)
{
    write_file("a.json", a, 1, 1980);
    write_file("b.json", b, 1, 1980);
    nb_result_file *fa, *fb;
    nb_compare_opts o;
    nb_compare_opts_default(&o);
    o.run_noise_pct = within_only ? 0 : -1;
    nb_comparison *c = compare_files("a.json", "b.json", &fa, &fb, &o);
    assert_int_equal(c->n_rows, 1);
    nb_verdict v = c->rows[0].verdict;
    if (time_out)
        *time_out = c->rows[0].time;
    nb_comparison_destroy(c);
    nb_result_file_destroy(fa);
    nb_result_file_destroy(fb);
    return v;
}

static nb_verdict verdict_of(const spec *a, const spec *b, nb_compare_test *time_out)
{
    return verdict_opts(a, b, time_out, 1);
}

static void test_identical_distributions_are_same(void **state)
{
    (void)state;
    int same = 0, trials = 200, small_p = 0;
    for (int t = 0; t < trials; t++) {
        spec s = {t % 2 ? 300 : 40, 20000.0, 0.01, 1.0, 1980, 1, t % 3 != 0, 0, 0};
        nb_compare_test tt;
        same += verdict_of(&s, &s, &tt) == NB_VERDICT_SAME;
        small_p += tt.p < 0.05;
    }
    if (same < 95 * trials / 100)
        fail_msg("only %d of %d identical pairs judged 'same'", same, trials);
    /* the U test itself holds its level: about 5 % of p-values below 0.05 */
    assert_true(small_p <= 2 * trials / 10);
}

static void test_two_percent_shift_is_detected(void **state)
{
    (void)state;
    spec a = {3000, 50000.0, 0.01, 1.0, 1980, 1, 1, 0, 0}, b = a;
    b.shift = 1.02;
    nb_compare_test t;
    assert_int_equal(verdict_of(&a, &b, &t), NB_VERDICT_SLOWER);
    /* a 95 % interval misses the true ratio in 1 run of 20: assert only that it
     * lies within 0.5 % of it (about 15 standard errors here) and excludes 1.01 */
    assert_true(t.lo < 1.025 && t.hi > 1.015 && t.lo > 1.01);
    assert_true(t.p < 1e-6);
    b.shift = 1 / 1.02;
    assert_int_equal(verdict_of(&a, &b, &t), NB_VERDICT_FASTER);
    /* one GPU run a side: 2 % is within what two runs of the same code differ
     * by, so not significant; with its estimate beyond the threshold it is
     * inconclusive, never 'same', though both runs met their noise target */
    b.shift = 1.02;
    assert_int_equal(verdict_opts(&a, &b, &t, 0), NB_VERDICT_NOISY);
    assert_true(t.lo < 1.0 && t.hi > 1.04);
    b.shift = 1.005;
    assert_int_equal(verdict_opts(&a, &b, &t, 0), NB_VERDICT_SAME);
}

static void test_clock_change_is_not_a_code_change(void **state)
{
    (void)state;
    /* per-sample clocks, then the recorded clock: a 5 % slower clock (and
     * default clock), the same cycles; then runs that missed their noise
     * target, whose cycles' interval is wider than the threshold (noisy)
     * though their estimate is 1: a 10 % clock drop stays 'slower', and the
     * note says the cycles cannot tell clock from code */
    const struct {
        int per_sample, noise_met;
        double drop;
        nb_verdict cycles;
    } runs[] = {{1, 1, 1.05, NB_VERDICT_SAME},
                {0, 1, 1.05, NB_VERDICT_SAME},
                {1, 0, 1.10, NB_VERDICT_NOISY}};
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        const int per_sample = runs[k].per_sample, moved = runs[k].noise_met;
        spec a = {2000, 30000.0, 0.01, 1.0, 1980, per_sample, runs[k].noise_met, 1, 0}, b = a;
        b.clock_mhz = 1980 / runs[k].drop;
        write_file("a.json", &a, 1, 1980);
        write_file("b.json", &b, 1, moved ? 1980 / runs[k].drop : 1980);
        nb_result_file *fa, *fb;
        nb_comparison *c = compare_files("a.json", "b.json", &fa, &fb, NULL);
        const nb_compare_row *r = &c->rows[0];
        assert_int_equal(r->time.verdict, NB_VERDICT_SLOWER);
        assert_int_equal(r->cycles.verdict, runs[k].cycles);
        const int noisy = runs[k].cycles == NB_VERDICT_NOISY;
        assert_int_equal(r->verdict, noisy ? NB_VERDICT_SLOWER : NB_VERDICT_CLOCK);
        assert_int_equal(r->cycle_source, per_sample ? NB_CLOCK_PER_SAMPLE : NB_CLOCK_RECORDED);
        assert_int_equal(nb_comparison_regressed(c), noisy);
        assert_true(!moved || c->n_env_diffs >= 1); /* the default clock differs */
        if (noisy)
            assert_non_null(strstr(r->note, "the SM clock moved as much: the cycles (noisy, "
                                            "ratio "));
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        assert_int_equal(nb_comparison_write(c, "table", m), NB_OK);
        fclose(m);
        assert_non_null(strstr(buf, noisy ? "slower" : "clock-change"));
        assert_non_null(strstr(buf, per_sample ? "per-sample clocks" : "recorded SM clock"));
        assert_true(!moved || strstr(buf, "default_sm_clock_mhz"));
        free(buf);
        nb_comparison_destroy(c);
        nb_result_file_destroy(fa);
        nb_result_file_destroy(fb);
    }
}

static void test_missing_samples_give_insufficient_data(void **state)
{
    (void)state;
    spec a = {100, 1000.0, 0.01, 1.0, 0, 0, 1, 0, 1}, b = a;
    b.shift = 2.0;
    nb_compare_test t;
    assert_int_equal(verdict_of(&a, &b, &t), NB_VERDICT_INSUFFICIENT);
    assert_false(t.done);
    /* CPU cases: samples but no clocks: the time test only */
    spec c = {200, 1000.0, 0.01, 1.0, 0, 0, 1, 0, 0}, d = c;
    d.shift = 1.1;
    assert_int_equal(verdict_of(&c, &d, &t), NB_VERDICT_SLOWER);
}

static void test_cli_exit_codes(void **state)
{
    (void)state;
    spec s[3] = {{500, 20000.0, 0.01, 1.0, 1980, 1, 1, 0, 0},
                 {500, 90000.0, 0.01, 1.0, 1980, 1, 0, 0, 0},
                 {500, 4000.0, 0.02, 1.0, 1980, 1, 1, 0, 0}};
    write_file("base.json", s, 3, 1980);
    char args[1024];
    snprintf(args, sizeof args, "compare %s/base.json %s/base.json", dir, dir);
    assert_int_equal(run(args), 0);
    for (int i = 0; i < 3; i++)
        s[i].shift = 1.25;
    write_file("slow.json", s, 3, 1980);
    snprintf(args, sizeof args, "compare %s/base.json %s/slow.json --threshold 5", dir, dir);
    assert_int_equal(run(args), 1);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "3 slower"));
    free(out);
    snprintf(args, sizeof args, "compare %s/base.json %s/slow.json --threshold 30", dir, dir);
    assert_int_equal(run(args), 0);
    snprintf(args, sizeof args, "--format json compare %s/base.json %s/slow.json", dir, dir);
    assert_int_equal(run(args), 1);
    json_t *j = load_json("out.txt");
    assert_string_equal(json_string_value(json_object_get(j, "schema")), "nttbench-compare");
    assert_int_equal(json_array_size(json_object_get(j, "cases")), 3);
    json_decref(j);
    snprintf(args, sizeof args, "--format csv compare %s/base.json %s/slow.json", dir, dir);
    assert_int_equal(run(args), 1);
    out = slurp("out.txt");
    assert_non_null(strstr(out, "tier,variant,label,base_median_ns"));
    free(out);
}

static void test_cli_bad_input_exits_2_with_one_line(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "{\"schema\": \"nttbench-report\", \"schema_version\": 1, \"cases\": [",   /* malformed */
        "{\"schema\": \"nttbench-calibration\", \"schema_version\": 1}",          /* schema */
        "{\"schema\": \"nttbench-report\", \"schema_version\": 9, \"cases\": []}", /* version */
        "{\"schema\": \"nttbench-report\", \"schema_version\": 1, \"cases\": [{\"tier\": 3}]}",
        "{\"schema\": \"nttbench-report\", \"schema_version\": 1, \"cases\": [{\"tier\": \"warm\","
        " \"variant\": \"v\", \"label\": \"l\", \"status\": \"ok\", \"samples_ns\": [1, \"x\"]}]}",
        "[1, 2, 3]",
        /* a recorded sample count that is not a count (read as a huge one before) */
        "{\"schema\": \"nttbench-report\", \"schema_version\": 1, \"cases\": [{\"tier\": \"warm\","
        " \"variant\": \"v\", \"label\": \"l\", \"status\": \"ok\", \"stats\": {\"median\": 2e4,"
        " \"samples\": -1}, \"samples_ns\": [2e4]}]}",
    };
    spec s = {50, 20000.0, 0.01, 1.0, 1980, 1, 1, 0, 0};
    write_file("good.json", &s, 1, 1980);
    char args[1024], path[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(path, sizeof path, "%s/bad.json", dir);
        FILE *f = fopen(path, "w");
        fputs(bad[i], f);
        fclose(f);
        snprintf(args, sizeof args, "compare %s/good.json %s/bad.json", dir, dir);
        if (run(args) != 2)
            fail_msg("bad file %zu not refused with exit 2", i);
        assert_one_error_line();
        char *e = slurp("err.txt");
        assert_non_null(strstr(e, "bad.json"));
        free(e);
    }
    snprintf(args, sizeof args, "compare %s/good.json %s/missing.json", dir, dir);
    assert_int_equal(run(args), 2);
    assert_one_error_line();
    snprintf(args, sizeof args, "gzip -k %s/good.json", dir);
    assert_int_equal(system(args), 0);
    snprintf(args, sizeof args, "compare %s/good.json %s/good.json.gz", dir, dir);
    assert_int_equal(run(args), 2);
    assert_one_error_line();
    s.n = 20; /* a different case (log N): nothing matches */
    write_file("other.json", &s, 1, 1980);
    snprintf(path, sizeof path, "sed -i 's/\"log_n\":10/\"log_n\":12/' %s/other.json", dir);
    assert_int_equal(system(path), 0);
    snprintf(args, sizeof args, "compare %s/good.json %s/other.json", dir, dir);
    assert_int_equal(run(args), 2);
    assert_one_error_line();
    snprintf(args, sizeof args, "compare %s/good.json", dir);
    assert_int_equal(run(args), 2);
    assert_one_error_line();
}

/* Sets environment.nccl_settings of dir/NAME (NULL: removes it). */
static void set_nccl_settings(const char *name, const char *v)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_t *doc = json_load_file(path, 0, NULL);
    assert_non_null(doc);
    json_t *env = json_object_get(doc, "environment");
    if (v)
        json_object_set_new(env, "nccl_settings", json_string(v));
    else
        json_object_del(env, "nccl_settings");
    assert_int_equal(json_dump_file(doc, path, JSON_COMPACT), 0);
    json_decref(doc);
}

/* The number of environment differences between a.json and b.json, and
 * whether one of them is environment.nccl_settings. */
static size_t env_diffs(int *nccl)
{
    nb_result_file *fa, *fb;
    nb_compare_opts o;
    nb_compare_opts_default(&o);
    nb_comparison *c = compare_files("a.json", "b.json", &fa, &fb, &o);
    const size_t n = c->n_env_diffs;
    *nccl = 0;
    for (size_t i = 0; i < n; i++)
        *nccl |= !strcmp(c->env_diffs[i].field, "environment.nccl_settings");
    nb_comparison_destroy(c);
    nb_result_file_destroy(fa);
    nb_result_file_destroy(fb);
    return n;
}

/* Runs under other NCCL settings are flagged; a report from before the field
 * (absent) and one without settings ("") are not. */
static void test_nccl_settings_are_an_environment_difference(void **state)
{
    (void)state;
    spec s = {50, 20000.0, 0.01, 1.0, 1980, 1, 1, 0, 0};
    write_file("a.json", &s, 1, 1980);
    write_file("b.json", &s, 1, 1980);
    int nccl = 0;
    const size_t base = env_diffs(&nccl);
    assert_false(nccl);
    set_nccl_settings("b.json", "");
    assert_int_equal(env_diffs(&nccl), base);
    assert_false(nccl);
    set_nccl_settings("b.json", "NCCL_PROTO=LL128");
    assert_int_equal(env_diffs(&nccl), base + 1);
    assert_true(nccl);
    set_nccl_settings("a.json", "NCCL_PROTO=LL128");
    assert_int_equal(env_diffs(&nccl), base);
    assert_false(nccl);
    set_nccl_settings("a.json", NULL);
    assert_int_equal(env_diffs(&nccl), base + 1);
    assert_true(nccl);
}

/* Sets, in case `idx` of dir/FILE (every case when idx < 0), params.NAME to
 * the JSON value `value` (e.g. "7", "\"send-recv\""), or the field NAME
 * itself when name starts with '.' (".variant", ".tier"). */
static void edit_cases(const char *file, int idx, const char *name, const char *value)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    json_t *doc = json_load_file(path, 0, NULL), *v = json_loads(value, JSON_DECODE_ANY, NULL);
    assert_non_null(doc);
    assert_non_null(v);
    json_t *c;
    size_t i;
    json_array_foreach(json_object_get(doc, "cases"), i, c) {
        if (idx >= 0 && (size_t)idx != i)
            continue;
        if (name[0] == '.')
            json_object_set(c, name + 1, v);
        else
            json_object_set(json_object_get(c, "params"), name, v);
    }
    json_decref(v);
    assert_int_equal(json_dump_file(doc, path, JSON_COMPACT), 0);
    json_decref(doc);
}

/* --ignore pairs cases that differ only in the named parameters or in the
 * variant, says so in the output, and refuses a name no case has; without
 * it the refusal of "nothing matches" names the differing parameter. */
static void test_ignore_pairs_cases_differing_in_a_parameter(void **state)
{
    (void)state;
    spec s = {200, 20000.0, 0.01, 1.0, 1980, 1, 1, 0, 0};
    write_file("ig-base.json", &s, 1, 1980);
    write_file("ig-new.json", &s, 1, 1980);
    edit_cases("ig-new.json", -1, "exchange", "\"send-recv\"");
    char args[1024];
    snprintf(args, sizeof args, "compare %s/ig-base.json %s/ig-new.json", dir, dir);
    assert_int_equal(run(args), 2);
    assert_one_error_line();
    char *e = slurp("err.txt");
    assert_non_null(strstr(e, "params.exchange - -> send-recv"));
    assert_non_null(strstr(e, "; try --ignore exchange)"));
    free(e);
    spec two[2] = {s, s}; /* one case the same, one apart: listed with its nearest */
    write_file("ig-two-base.json", two, 2, 1980);
    write_file("ig-two-new.json", two, 2, 1980);
    edit_cases("ig-two-new.json", 1, "exchange", "\"send-recv\"");
    edit_cases("ig-two-new.json", 1, ".label", "\"case exchange=send-recv\"");
    snprintf(args, sizeof args, "compare %s/ig-two-base.json %s/ig-two-new.json", dir, dir);
    assert_int_equal(run(args), 0);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "1 matched"));
    if (!strstr(out, "(the nearest case of base, case, differs: params.exchange - -> "
                     "send-recv; try --ignore exchange)"))
        fail_msg("no hint for the case apart in:\n%s",
                 strstr(out, "only in") ? strstr(out, "only in") : out);
    free(out);
    snprintf(args, sizeof args, "compare %s/ig-base.json %s/ig-new.json --ignore exchange", dir,
             dir);
    assert_int_equal(run(args), 0);
    out = slurp("out.txt");
    assert_non_null(strstr(out, "Matched without: exchange"));
    assert_non_null(strstr(out, "1 matched"));
    free(out);
    snprintf(args, sizeof args, "--format json compare %s/ig-base.json %s/ig-new.json "
             "--ignore exchange,exchange", dir, dir);
    assert_int_equal(run(args), 0);
    json_t *j = load_json("out.txt");
    json_t *ign = json_object_get(json_object_get(j, "method"), "ignored");
    assert_int_equal(json_array_size(ign), 1);
    assert_string_equal(json_string_value(json_array_get(ign, 0)), "exchange");
    assert_int_equal(json_array_size(json_object_get(j, "cases")), 1);
    json_decref(j);
    snprintf(args, sizeof args, "compare %s/ig-base.json %s/ig-new.json --ignore exchang", dir,
             dir);
    assert_int_equal(run(args), 2);
    assert_one_error_line();
    e = slurp("err.txt");
    assert_non_null(strstr(e, "'exchang'"));
    free(e);
    snprintf(args, sizeof args, "compare %s/ig-base.json %s/ig-new.json --ignore ,", dir, dir);
    assert_int_equal(run(args), 2);
    assert_one_error_line();
    edit_cases("ig-new.json", -1, ".variant", "\"other\"");
    snprintf(args, sizeof args, "compare %s/ig-base.json %s/ig-new.json --ignore exchange", dir,
             dir);
    assert_int_equal(run(args), 2);
    snprintf(args, sizeof args, "compare %s/ig-base.json %s/ig-new.json --ignore "
             "exchange --ignore variant", dir, dir);
    assert_int_equal(run(args), 0);
    out = slurp("out.txt");
    assert_non_null(strstr(out, "other / synthetic"));
    assert_non_null(strstr(out, "Matched without: exchange, variant"));
    free(out);
}

/* --ignore refuses what would pair by position or change nothing: a file
 * whose cases come to match alike, a field no key holds; --ignore variant
 * leaves a stage case's level in its key; a "nothing matches" error names a
 * variant that differs, with the hint. */
static void test_ignore_refuses_ambiguous_or_idle_fields(void **state)
{
    (void)state;
    spec s[2] = {{200, 20000.0, 0.01, 1.0, 1980, 1, 1, 0, 0},
                 {200, 20000.0, 0.01, 1.0, 1980, 1, 1, 0, 0}};
    write_file("amb.json", s, 2, 1980); /* two cases: log N 10 and 11 */
    char args[1024];
    snprintf(args, sizeof args, "compare %s/amb.json %s/amb.json --ignore log_n", dir, dir);
    assert_int_equal(run(args), 2);
    assert_error_line_has("pair by their order in the file");
    snprintf(args, sizeof args, "compare %s/amb.json %s/amb.json --ignore log_n --filter "
             "'logn=10'", dir, dir); /* the filter keeps one of the two: nothing ambiguous */
    edit_cases("amb.json", 0, ".label", "\"case logn=10\"");
    assert_int_equal(run(args), 0);
    snprintf(args, sizeof args, "compare %s/amb.json %s/amb.json --ignore seed", dir, dir);
    assert_int_equal(run(args), 2);
    assert_one_error_line();
    write_file("lv-base.json", s, 1, 1980);
    edit_cases("lv-base.json", -1, ".tier", "\"stage\"");
    edit_cases("lv-base.json", -1, "level", "7");
    write_file("lv-new.json", s, 1, 1980);
    edit_cases("lv-new.json", -1, ".tier", "\"stage\"");
    edit_cases("lv-new.json", -1, "level", "3");
    edit_cases("lv-new.json", -1, ".variant", "\"other\"");
    snprintf(args, sizeof args, "compare %s/lv-base.json %s/lv-new.json --ignore variant", dir,
             dir);
    assert_int_equal(run(args), 2); /* level 7 against level 3: not the same case */
    edit_cases("lv-new.json", -1, "level", "7");
    assert_int_equal(run(args), 0);
    snprintf(args, sizeof args, "compare %s/lv-base.json %s/lv-new.json", dir, dir);
    assert_int_equal(run(args), 2);
    assert_error_line_has("variant synthetic -> other; try --ignore variant)");
}

/* A case that passed its check in base and fails it (or errs) in new is a
 * regression (exit 1) whatever its time, and says so; the other way round,
 * or skipped in new, is not. */
static void test_case_broken_in_new_is_a_regression(void **state)
{
    (void)state;
    spec s = {200, 20000.0, 0.01, 1.0, 1980, 1, 1, 0, 0};
    write_file("ok.json", &s, 1, 1980);
    s.no_samples = 1;
    write_file("bad.json", &s, 1, 1980);
    edit_cases("bad.json", -1, ".status", "\"verify-failed\"");
    edit_cases("bad.json", -1, ".stats", "null");
    char args[1024];
    snprintf(args, sizeof args, "compare %s/ok.json %s/bad.json", dir, dir);
    assert_int_equal(run(args), 1);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "status ok / verify-failed"));
    assert_non_null(strstr(out, "1 case that ran in base failed its check or erred in new"));
    free(out);
    snprintf(args, sizeof args, "--format json compare %s/ok.json %s/bad.json", dir, dir);
    assert_int_equal(run(args), 1);
    json_t *j = load_json("out.txt"), *sum = json_object_get(j, "summary");
    assert_true(json_is_true(json_object_get(sum, "regression")));
    assert_int_equal(json_integer_value(json_object_get(sum, "broken_in_new")), 1);
    json_decref(j);
    snprintf(args, sizeof args, "compare %s/bad.json %s/ok.json", dir, dir);
    assert_int_equal(run(args), 0); /* fixed in new */
    edit_cases("bad.json", -1, ".status", "\"skipped\"");
    snprintf(args, sizeof args, "compare %s/ok.json %s/bad.json", dir, dir);
    assert_int_equal(run(args), 0); /* not run in new: no evidence of a regression */
    edit_cases("bad.json", -1, ".status", "\"error\"");
    assert_int_equal(run(args), 1);
    /* an error before timing: no mode, launches per sample or cache state in the case */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "python3 -c \"import json,sys; d=json.load(open(sys.argv[1])); "
             "[c.pop(k, None) for c in d['cases'] for k in ('mode', 'launches_per_sample', "
             "'cache', 'blocking_kernel')]; json.dump(d, open(sys.argv[1], 'w'))\" %s/bad.json",
             dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(run(args), 1);
    out = slurp("out.txt");
    assert_non_null(strstr(out, "status ok / error"));
    free(out);
    /* repeated runs: broken in the second run of new only */
    s.no_samples = 0;
    write_file("ok2.json", &s, 1, 1980);
    write_file("ok3.json", &s, 1, 1980);
    snprintf(cmd, sizeof cmd, "sed -i 's/\"git_commit\": *\"abc\"/\"git_commit\":\"abd\"/' "
             "%s/ok2.json %s/bad.json", dir, dir); /* other runs than ok.json and ok3.json */
    assert_int_equal(system(cmd), 0);
    snprintf(args, sizeof args, "compare %s/ok.json %s/ok2.json -- %s/ok3.json %s/bad.json", dir,
             dir, dir, dir);
    assert_int_equal(run(args), 1);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s NTTBENCH\n", argv[0]);
        return 2;
    }
    exe = argv[1];
    nb_test_seed_init();
    if (cli_scratch_create("nbcmp") != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical_distributions_are_same),
        cmocka_unit_test(test_two_percent_shift_is_detected),
        cmocka_unit_test(test_clock_change_is_not_a_code_change),
        cmocka_unit_test(test_missing_samples_give_insufficient_data),
        cmocka_unit_test(test_cli_exit_codes),
        cmocka_unit_test(test_nccl_settings_are_an_environment_difference),
        cmocka_unit_test(test_cli_bad_input_exits_2_with_one_line),
        cmocka_unit_test(test_ignore_pairs_cases_differing_in_a_parameter),
        cmocka_unit_test(test_ignore_refuses_ambiguous_or_idle_fields),
        cmocka_unit_test(test_case_broken_in_new_is_a_regression),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cli_scratch_remove();
    return rc;
}

/* bench/cli case selection (run_list.c, filter.c): `run --list` / `--dry-run`
 * prints exactly the cases the same command line runs, in order, with their
 * count and an estimate (to --output when given), and runs nothing; `--filter REGEX` (repeatable: any)
 * keeps the cases whose name matches in run (NTT and stage tiers), verify,
 * verify --stage and compare, and the report's cases_planned counts only
 * those. argv: NTTBENCH DATA-DIR. */
#include <regex.h>
#include <sys/stat.h>

#include "bench/bench.h"
#include "cliutil.h"

static const char *data_dir;

/* Quick timing for the runs of these tests; QUICK runs on the CPU whether or
 * not a GPU is present (the default variants follow the machine). */
#define TIMING "--min-samples 3 --min-time 0.001 --timeout 0.2 --warmup 1 --warmup-time 0 " \
               "--seed 7"
#define QUICK "--backend cpu --logn 10 " TIMING

/* The lines of dir/out.txt before its summary line (the last); *n of them. */
static char **listed(size_t *n, char **summary)
{
    char *o = slurp("out.txt");
    char **lines = calloc(256, sizeof *lines);
    *n = 0;
    for (char *save = NULL, *l = strtok_r(o, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        if (*n < 256)
            lines[(*n)++] = strdup(l);
    free(o);
    assert_true(*n >= 1);
    *summary = lines[--*n];
    return lines;
}

static void free_lines(char **lines, size_t n, char *summary)
{
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    free(summary);
    free(lines);
}

/* The names of the cases of a run report, in order (as nb_case_name makes them). */
static size_t report_names(json_t *j, char names[][256], size_t cap)
{
    json_t *cases = json_object_get(j, "cases");
    size_t n = json_array_size(cases);
    assert_true(n <= cap);
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_array_get(cases, i);
        const char *state = json_string_value(json_object_get(c, "cache_state"));
        nb_case_name(names[i], 256, !strcmp(state, "warm"),
                     json_string_value(json_object_get(c, "variant")),
                     json_string_value(json_object_get(c, "label")),
                     json_string_value(json_object_get(c, "mode")));
    }
    return n;
}

static void test_list_names_exactly_the_cases_the_run_runs(void **state)
{
    (void)state;
    const char *opts = "--limbs 1,2 --direction forward,inverse " QUICK;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "run --list %s", opts);
    const double t0 = nb_now_s();
    assert_int_equal(run(cmd), 0);
    assert_true(nb_now_s() - t0 < 5.0); /* nothing timed */
    size_t n;
    char *summary, **lines = listed(&n, &summary);
    assert_int_equal(n, 8);
    assert_true(strncmp(summary, "8 cases, estimated ", 19) == 0);
    assert_non_null(strstr(summary, "outside the samples"));
    snprintf(cmd, sizeof cmd, "--format json --output %s/r.json run %s", dir, opts);
    assert_int_equal(run(cmd), 0);
    json_t *j = load_json("r.json");
    char names[16][256];
    assert_int_equal(report_names(j, names, 16), 8);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(lines[i], names[i]);
    assert_int_equal(json_integer_value(json_object_get(j, "cases_planned")), 8);
    json_decref(j);
    free_lines(lines, n, summary);
}

static void test_dry_run_is_list(void **state)
{
    (void)state;
    assert_int_equal(run("run --list --tier ntt,stage --preset test-tiny " QUICK), 0);
    char *a = slurp("out.txt");
    assert_int_equal(run("run --dry-run --tier ntt,stage --preset test-tiny " QUICK), 0);
    char *b = slurp("out.txt");
    assert_string_equal(a, b);
    assert_non_null(strstr(a, "cold cpu-harvey keyswitch test-tiny l=3 per-launch\n"));
    /* a real command line with --list added previews it: its --output (here an
     * earlier result) is the run's, left as it was, and the list goes to stdout */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s/list.json", dir);
    FILE *f = fopen(cmd, "w");
    assert_non_null(f);
    fputs("{\"an earlier\": \"result\"}\n", f);
    assert_int_equal(fclose(f), 0);
    snprintf(cmd, sizeof cmd, "--format json --output %s/list.json run --list --tier ntt,stage "
             "--preset test-tiny " QUICK, dir);
    assert_int_equal(run(cmd), 0);
    char *c = slurp("out.txt"), *kept = slurp("list.json"), *e = slurp("err.txt");
    assert_string_equal(a, c);
    assert_string_equal(kept, "{\"an earlier\": \"result\"}\n");
    assert_non_null(strstr(e, "is left for the run itself"));
    free(a);
    free(b);
    free(c);
    free(kept);
    free(e);
}

/* Guards: --logq targets that give the same limb count were three identical
 * cases, timed three times and paired by order in compare. */
static void test_logq_targets_of_one_limb_count_are_one_case(void **state)
{
    (void)state;
    assert_int_equal(run("run --list --tier warm --variant cpu-harvey --logq 1,3,61,120 "
                         QUICK),
                     0);
    size_t n;
    char *summary, **lines = listed(&n, &summary);
    assert_int_equal(n, 2);
    assert_non_null(strstr(lines[0], " L=1 "));
    assert_non_null(strstr(lines[1], " L=2 "));
    free_lines(lines, n, summary);
}

/* The estimate grows with the rotated data outside the samples. */
static double outside_s(const char *args)
{
    assert_int_equal(run(args), 0);
    size_t n;
    char *summary, **lines = listed(&n, &summary);
    const char *p = strstr(summary, "and about ");
    assert_non_null(p);
    double s = atof(p + 10);
    free_lines(lines, n, summary);
    return s;
}

/* Seconds of a duration as --list prints it ("4.1s", "1m05s", "2h03m"). */
static double duration_s(const char *d)
{
    double a = 0, b = 0;
    if (sscanf(d, "%lfh%lfm", &a, &b) == 2 && strchr(d, 'h'))
        return 3600 * a + 60 * b;
    if (sscanf(d, "%lfm%lfs", &a, &b) == 2)
        return 60 * a + b;
    return atof(d);
}

/* Guards: a stage case's cold NTT micro-benchmarks flush a CPU's caches but
 * were left out of a warm case's estimate (1.1 to 2.1 s for a 6 s run), and a
 * CPU --min-time above --timeout put the lower end above the upper one. */
static void test_list_estimate_counts_work_outside_the_samples(void **state)
{
    (void)state;
    /* a 1 MiB host cache: the small case's rotated sets come to 3 MiB, the
     * large one's one set to 64 MiB, a difference the estimate's tenths of a
     * second show on any host */
    const char *was = getenv("NB_HOST_LLC_BYTES");
    char *keep = was ? strdup(was) : NULL;
    setenv("NB_HOST_LLC_BYTES", "1M", 1);
    const double small = outside_s("run --list --tier cold --logn 10 --limbs 1");
    const double large = outside_s("run --list --tier cold --logn 17 --limbs 64");
    /* Guards: a case whose cache plan the run refuses (too many sets for a
     * 1 TiB cache) was listed as if it would run, estimated at hours */
    setenv("NB_HOST_LLC_BYTES", "1024G", 1);
    assert_int_equal(run("run --list --tier cold --logn 10 --limbs 1 --variant cpu-harvey"), 0);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "  [will fail: cache plan: "));
    assert_non_null(strstr(out, "1 case (1 will fail), estimated 0.0s"));
    free(out);
    if (keep)
        setenv("NB_HOST_LLC_BYTES", keep, 1);
    else
        unsetenv("NB_HOST_LLC_BYTES");
    free(keep);
    assert_true(small > 0);
    assert_true(large > small);
    const char *stage = "run --list --tier stage --preset test-tiny --stage rescale "
                        "--variant cpu-harvey --cache ";
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%swarm", stage);
    const double warm = outside_s(cmd);
    snprintf(cmd, sizeof cmd, "%swarm --no-micro", stage);
    assert_true(warm > outside_s(cmd));
    assert_int_equal(run("run --list --tier warm --logn 10 --limbs 1 --variant cpu-harvey "
                         "--min-time 1E3 --timeout 15"), 0);
    size_t n;
    char *summary, **lines = listed(&n, &summary), lo[32], hi[32];
    assert_int_equal(sscanf(summary, "1 case, estimated %31s to %31[^:]", lo, hi), 2);
    assert_true(duration_s(lo) <= duration_s(hi));
    assert_true(duration_s(hi) < 60);
    free_lines(lines, n, summary);
}

/* --filter keeps the names any pattern matches: the listed names are those
 * of the unfiltered list that match, and the run reports those only. */
/* Guards: --list of a GPU variant on a machine without a usable GPU exited 3
 * and listed nothing (a sweep could not be previewed on a login node). With
 * a GPU here the cases are listed plainly, which the other tests check; a
 * build without CUDA has no GPU variant to list. */
static void test_list_previews_gpu_cases_without_a_gpu(void **state)
{
    (void)state;
    if (nb_gpu_require() == NB_OK || !nb_ntt_variant_find("gpu-fast"))
        return;
    char why[400];
    snprintf(why, sizeof why, "%s", nb_last_error());
    assert_int_equal(run("run --variant gpu-fast,cpu-harvey --tier warm --logn 10 --limbs 1 "
                         "--list"),
                     0);
    char *out = slurp("out.txt"), want[600];
    snprintf(want, sizeof want, "warm gpu-fast fwd logn=10 L=1 q60 w64 logQ=60.0 per-launch  "
                                "[will fail: %s]\n", why);
    assert_non_null(strstr(out, want));
    assert_non_null(strstr(out, "warm cpu-harvey fwd logn=10 L=1 q60 w64 logQ=60.0 "
                                "per-launch\n"));
    assert_non_null(strstr(out, "2 cases (1 will fail), estimated "));
    free(out);
    /* the run itself still needs the GPU */
    assert_int_equal(run("run --variant gpu-fast --tier warm --logn 10 --limbs 1"), 3);
}

static void test_filter_keeps_the_matching_cases(void **state)
{
    (void)state;
    const char *opts = "--limbs 1,2 --direction forward,inverse " QUICK;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "run --list %s", opts);
    assert_int_equal(run(cmd), 0);
    size_t all_n;
    char *all_summary, **all = listed(&all_n, &all_summary);
    regex_t a, b;
    assert_int_equal(regcomp(&a, "^cold .* inv ", REG_EXTENDED | REG_NOSUB), 0);
    assert_int_equal(regcomp(&b, "L=2 ", REG_EXTENDED | REG_NOSUB), 0);
    snprintf(cmd, sizeof cmd, "run --list --filter '^cold .* inv ' --filter 'L=2 ' %s", opts);
    assert_int_equal(run(cmd), 0);
    size_t n;
    char *summary, **lines = listed(&n, &summary);
    size_t k = 0;
    for (size_t i = 0; i < all_n; i++)
        if (!regexec(&a, all[i], 0, NULL, 0) || !regexec(&b, all[i], 0, NULL, 0)) {
            assert_true(k < n);
            assert_string_equal(lines[k++], all[i]);
        }
    assert_int_equal(k, n);
    assert_int_equal(n, 5); /* the four L=2 cases and cold inv L=1 */
    snprintf(cmd, sizeof cmd,
             "--format json --output %s/f.json run --filter '^cold .* inv ' --filter 'L=2 ' %s",
             dir, opts);
    assert_int_equal(run(cmd), 0);
    json_t *j = load_json("f.json");
    char names[16][256];
    assert_int_equal(report_names(j, names, 16), n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(names[i], lines[i]);
    assert_int_equal(json_integer_value(json_object_get(j, "cases_planned")), (json_int_t)n);
    json_decref(j);
    regfree(&a);
    regfree(&b);
    free_lines(lines, n, summary);
    free_lines(all, all_n, all_summary);
}

/* A stage case dropped by the filter is not timed, nor its level's
 * micro-benchmarks when no case of the level is kept. */
static void test_filter_selects_stage_cases(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "--format json --output %s/s.json run --tier stage --preset "
             "test-tiny --stage modup,rescale --filter 'rescale' " TIMING, dir);
    assert_int_equal(run(cmd), 0);
    json_t *j = load_json("s.json");
    json_t *cases = json_object_get(j, "cases");
    assert_int_equal(json_array_size(cases), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(cases, 0), "label")),
                        "rescale floor test-tiny l=3");
    json_decref(j);
}

static void test_verify_filter_keeps_the_matching_checks(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "--format json --output %s/v.json verify --variant cpu-harvey "
             "--logn 10 --filter 'inverse logn=10 L=3 q62' --filter 'forward .* L=1 q36'", dir);
    assert_int_equal(run(cmd), 0);
    json_t *j = load_json("v.json");
    json_t *checks = json_object_get(j, "checks");
    assert_int_equal(json_array_size(checks), 2);
    json_t *c0 = json_array_get(checks, 0), *c1 = json_array_get(checks, 1);
    assert_string_equal(json_string_value(json_object_get(c0, "direction")), "forward");
    assert_int_equal(json_integer_value(json_object_get(c0, "limbs")), 1);
    assert_string_equal(json_string_value(json_object_get(c1, "direction")), "inverse");
    assert_int_equal(json_integer_value(json_object_get(c1, "prime_bits")), 62);
    json_decref(j);
    snprintf(cmd, sizeof cmd, "verify --stage modup,rescale --preset test-tiny --variant "
             "cpu-harvey --filter 'rescale l=1$'");
    assert_int_equal(run(cmd), 0);
    char *o = slurp("out.txt");
    assert_non_null(strstr(o, "1 passed, 0 failed, 0 skipped, 0 errors"));
    free(o);
}

static void test_compare_filter_leaves_the_other_cases_out(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "--format json --output %s/c.json compare %s/ntt-cpu-logn.json "
             "%s/ntt-cpu-logn.json --filter '^warm .*logn=11 '", dir, data_dir, data_dir);
    assert_int_equal(run(cmd), 0);
    json_t *j = load_json("c.json");
    json_t *rows = json_object_get(j, "cases");
    assert_true(json_array_size(rows) >= 1);
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        assert_non_null(strstr(json_string_value(json_object_get(r, "label")), "logn=11 "));
        assert_string_equal(json_string_value(json_object_get(r, "tier")), "warm");
    }
    json_t *un = json_object_get(j, "unmatched_base");
    assert_true(!un || json_array_size(un) == 0);
    json_decref(j);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s NTTBENCH DATA-DIR\n", argv[0]);
        return 2;
    }
    exe = argv[1];
    data_dir = argv[2];
    if (cli_scratch_create("nb-select-") != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_names_exactly_the_cases_the_run_runs),
        cmocka_unit_test(test_dry_run_is_list),
        cmocka_unit_test(test_logq_targets_of_one_limb_count_are_one_case),
        cmocka_unit_test(test_list_estimate_counts_work_outside_the_samples),
        cmocka_unit_test(test_list_previews_gpu_cases_without_a_gpu),
        cmocka_unit_test(test_filter_keeps_the_matching_cases),
        cmocka_unit_test(test_filter_selects_stage_cases),
        cmocka_unit_test(test_verify_filter_keeps_the_matching_checks),
        cmocka_unit_test(test_compare_filter_leaves_the_other_cases_out),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    cli_scratch_remove();
    return failed ? 1 : 0;
}

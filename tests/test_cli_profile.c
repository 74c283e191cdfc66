/* `nttbench run --profile` where no GPU case runs (the machines CI has): one
 * line when ncu is not found, one line that profiling applies to GPU cases
 * only, the timing and exit code unchanged either way; the option's help
 * and its timeout's range. The pass itself needs a GPU (docs/methodology.md,
 * "Profiler pass"). argv: NTTBENCH DATA-DIR. */
#include "cliutil.h"

static const char *data_dir;

#define QUICK "run --variant cpu-harvey --tier warm --logn 10 --limbs 1 --min-time 0.01 " \
              "--timeout 1 --format json --output "

/* The number of lines of s that hold `what`. */
static int lines_with(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

/* run --profile of the quick CPU case with NB_NCU set to `ncu`: the exit
 * code, stderr in *err (free it), and the report's one case timed. */
static int profiled_cpu_run(const char *ncu, char **err)
{
    setenv("NB_NCU", ncu, 1);
    char args[1024];
    snprintf(args, sizeof args, QUICK "%s/r.json --profile", dir);
    const int rc = run(args);
    unsetenv("NB_NCU");
    *err = slurp("err.txt");
    json_t *root = load_json("r.json");
    const json_t *c = json_array_get(json_object_get(root, "cases"), 0);
    assert_string_equal(json_string_value(json_object_get(c, "status")), "ok");
    assert_true(json_number_value(json_object_get(json_object_get(c, "stats"), "median")) > 0);
    assert_null(json_object_get(c, "profile"));
    json_decref(root);
    return rc;
}

static void test_missing_ncu_is_one_line_and_the_run_goes_on(void **state)
{
    (void)state;
    char ncu[4096], *err;
    snprintf(ncu, sizeof ncu, "%s/no-such-ncu", data_dir);
    assert_int_equal(profiled_cpu_run(ncu, &err), 0);
    assert_int_equal(lines_with(err, "/no-such-ncu is not an executable file; timing without "
                                     "a profiler pass"),
                     1);
    assert_int_equal(lines_with(err, "--profile"), 1);
    free(err);
}

static void test_cpu_cases_are_said_to_have_no_pass(void **state)
{
    (void)state;
    char ncu[4096], *err;
    snprintf(ncu, sizeof ncu, "%s/fake-ncu", data_dir);
    assert_int_equal(profiled_cpu_run(ncu, &err), 0);
    assert_int_equal(lines_with(err, "profiling applies to GPU cases only"), 1);
    assert_int_equal(lines_with(err, "--profile"), 1);
    free(err);
}

static void test_quiet_says_nothing(void **state)
{
    (void)state;
    char args[1024];
    setenv("NB_NCU", "/nonexistent/ncu", 1);
    snprintf(args, sizeof args, "--quiet " QUICK "%s/r.json --profile", dir);
    assert_int_equal(run(args), 0);
    unsetenv("NB_NCU");
    char *err = slurp("err.txt");
    assert_string_equal(err, "");
    free(err);
}

static void test_profile_timeout_is_range_checked(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args, QUICK "%s/r.json --profile --profile-timeout 0", dir);
    assert_int_equal(run(args), 2);
    char *err = slurp("err.txt");
    assert_non_null(strstr(err, "profile-timeout"));
    assert_int_equal(lines_with(err, "\n"), 1);
    free(err);
}

static void test_help_names_the_option_not_the_target_mode(void **state)
{
    (void)state;
    assert_int_equal(run("run --help"), 0);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "--profile "));
    assert_non_null(strstr(out, "--profile-timeout"));
    assert_null(strstr(out, "profile-case"));
    free(out);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s NTTBENCH DATA-DIR\n", argv[0]);
        return 2;
    }
    exe = argv[1];
    data_dir = argv[2];
    if (cli_scratch_create("nb-profile-") != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_ncu_is_one_line_and_the_run_goes_on),
        cmocka_unit_test(test_cpu_cases_are_said_to_have_no_pass),
        cmocka_unit_test(test_quiet_says_nothing),
        cmocka_unit_test(test_profile_timeout_is_range_checked),
        cmocka_unit_test(test_help_names_the_option_not_the_target_mode),
    };
    const int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cli_scratch_remove();
    return rc;
}

/* `nttbench run --profile` on a GPU with the real Nsight Compute: the
 * profiler pass of a cold gpu-fast NTT case profiles exactly the kernels the
 * case's call launches (as many kernels, one launch each, with their times)
 * under the stated settings (clocks locked to base, caches flushed), and the
 * case's bound (not launch-bound at log N 16, 8 limbs) is refined by it; the
 * pass of a one-GPU stage case (a key switch of test-small) profiles as many
 * launches as the case's kernel log recorded, and the stage case is
 * classified. Exits 77 without a device or
 * without ncu (NB_NCU or PATH). argv: NTTBENCH. */
#include "bench/timing/profile.h"
#include "cliutil.h"

#define COMMON "--min-time 0.01 --timeout 2 --profile --profile-timeout 300 --format json --output "

/* The one case of dir/NAME's report (the report is kept in *root). */
static const json_t *only_case(const char *name, json_t **root)
{
    *root = load_json(name);
    const json_t *cases = json_object_get(*root, "cases");
    assert_int_equal(json_array_size(cases), 1);
    const json_t *c = json_array_get(cases, 0);
    const json_t *st = json_object_get(c, "status");
    if (!json_is_string(st) || strcmp(json_string_value(st), "ok")) {
        char *err = slurp("err.txt");
        fail_msg("case status %s: %s", json_is_string(st) ? json_string_value(st) : "?", err);
    }
    return c;
}

/* Runs `nttbench run ARGS` with the profiler into dir/NAME and returns the
 * report's one case, which must be ok (the report is kept in *root). */
static const json_t *profiled_case(const char *args, const char *name, json_t **root)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "run %s " COMMON "%s/%s", args, dir, name);
    assert_int_equal(run(cmd), 0);
    return only_case(name, root);
}

/* The sum of "launches" over the array `key` of object o. */
static long long launches_of(const json_t *o, const char *key)
{
    const json_t *a = json_object_get(o, key);
    assert_true(json_is_array(a) && json_array_size(a) > 0);
    long long n = 0;
    size_t i;
    const json_t *k;
    json_array_foreach(a, i, k) n += json_integer_value(json_object_get(k, "launches"));
    return n;
}

/* A profile's settings and that each of its kernels has a time. */
static void check_profile(const json_t *prof, const char *cache_control)
{
    assert_true(json_is_object(prof));
    assert_string_equal(json_string_value(json_object_get(prof, "tool")), "Nsight Compute");
    assert_string_equal(json_string_value(json_object_get(prof, "clock_control")), "base");
    assert_string_equal(json_string_value(json_object_get(prof, "cache_control")), cache_control);
    size_t i;
    const json_t *k;
    json_array_foreach(json_object_get(prof, "kernels"), i, k)
    {
        const double t = json_number_value(json_object_get(k, "time_ns"));
        if (!(t > 0))
            fail_msg("profiled kernel '%s' has no time",
                     json_string_value(json_object_get(k, "name")));
    }
}

static void test_ntt_case_profiles_the_calls_kernels(void **state)
{
    (void)state;
    json_t *root;
    const json_t *c = profiled_case(
        "--variant gpu-fast --tier cold --logn 16 --limbs 8 --direction forward", "n.json", &root);
    const json_t *prof = json_object_get(c, "profile");
    check_profile(prof, "all");
    assert_int_equal(json_array_size(json_object_get(prof, "kernels")),
                     json_array_size(json_object_get(c, "kernels")));
    assert_int_equal(launches_of(prof, "kernels"), launches_of(c, "kernels"));
    const json_t *b = json_object_get(c, "bound");
    assert_true(json_is_object(b));
    assert_true(json_number_value(json_object_get(b, "profile_issue_fraction")) > 0);
    json_decref(root);
}

static void test_stage_case_profiles_every_launch_of_its_kernel_log(void **state)
{
    (void)state;
    json_t *root;
    const json_t *c = profiled_case("--variant gpu-fast --tier stage --preset test-small "
                                    "--stage keyswitch --no-micro --cache warm",
                                    "s.json", &root);
    const json_t *prof = json_object_get(c, "profile");
    check_profile(prof, "none");
    assert_int_equal(launches_of(prof, "kernels"), launches_of(c, "kernels"));
    assert_true(json_is_object(json_object_get(c, "bound")));
    json_decref(root);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s NTTBENCH\n", argv[0]);
        return 2;
    }
    nb_test_require_gpu_or_skip();
    char ncu[4096];
    if (nb_ncu_find(ncu, sizeof ncu) != NB_OK) {
        printf("SKIP: %s\n", nb_last_error());
        return 77;
    }
    exe = argv[1];
    if (cli_scratch_create("nb-gpu-profile-") != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ntt_case_profiles_the_calls_kernels),
        cmocka_unit_test(test_stage_case_profiles_every_launch_of_its_kernel_log),
    };
    const int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cli_scratch_remove();
    return rc;
}

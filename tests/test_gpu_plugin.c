/* A GPU variant built outside the library (tests/plugin_gpu_example.cu, a
 * shared module with its own kernels, compiled the way docs/variants.md
 * tells researchers to) is loaded by `nttbench --plugin`, listed, verified
 * against the GMP reference and benchmarked on the warm and cold tiers,
 * its kernel's resources recorded.
 * Exits 77 (skip) without a GPU.
 * argv[1] = the nttbench executable, argv[2] = the GPU plug-in. */
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "cliutil.h"

static const char *plugin;

static void test_gpu_plugin_is_listed_as_a_gpu_variant(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args, "--plugin %s list", plugin);
    assert_int_equal(run(args), 0);
    char *out = slurp("out.txt");
    char *line = strstr(out, "example-gpu-dft");
    assert_non_null(line);
    char *eol = strchr(line, '\n');
    if (eol)
        *eol = '\0';
    assert_non_null(strstr(line, "gpu"));
    free(out);
}

static void test_gpu_plugin_matches_the_gmp_reference(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args,
             "--plugin %s verify --variant example-gpu-dft --logn 1,4,10,12 --limbs 1,3 "
             "--bits 30,62 --direction forward,inverse --seed %llu",
             plugin, (unsigned long long)nb_test_rand());
    const int rc = run(args);
    if (rc != 0) {
        char *out = slurp("out.txt"), *err = slurp("err.txt");
        nb_test_fail("verify exited %d\n%s%s", rc, out, err);
    }
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "32 passed, 0 failed"));
    free(out);
}

static void test_gpu_plugin_is_benchmarked_warm_and_cold(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args,
             "--plugin %s run --variant example-gpu-dft --tier warm,cold --logn 10 --limbs 2 "
             "--direction forward,inverse --min-time 0.01 --timeout 2 --no-progress "
             "--format json --output %s/r.json",
             plugin, dir);
    assert_int_equal(run(args), 0);
    json_t *r = load_json("r.json");
    json_t *cases = json_object_get(r, "cases");
    assert_int_equal(json_array_size(cases), 4);
    size_t i;
    json_t *c;
    json_array_foreach(cases, i, c) {
        assert_string_equal(json_string_value(json_object_get(c, "variant")), "example-gpu-dft");
        assert_string_equal(json_string_value(json_object_get(c, "backend")), "gpu");
        assert_string_equal(json_string_value(json_object_get(c, "status")), "ok");
        json_t *v = json_object_get(c, "verification");
        assert_string_equal(json_string_value(json_object_get(v, "before")), "pass");
        assert_string_equal(json_string_value(json_object_get(v, "after")), "pass");
        json_t *st = json_object_get(c, "stats");
        assert_true(json_integer_value(json_object_get(st, "samples")) >= 10);
        assert_true(json_number_value(json_object_get(st, "median")) > 0.0);
        /* its kernel, described in the plug-in's own CUDA runtime */
        json_t *k = json_array_get(json_object_get(c, "kernels"), 0);
        assert_non_null(k);
        assert_non_null(strstr(json_string_value(json_object_get(k, "name")), "dft_"));
        assert_true(json_integer_value(json_object_get(k, "regs")) > 0);
        assert_int_equal(json_integer_value(json_object_get(k, "block_threads")), 256);
        assert_true(json_integer_value(json_object_get(k, "blocks_per_sm")) >= 1);
        assert_non_null(json_object_get(json_object_get(c, "bound"), "class"));
    }
    json_decref(r);
}

int main(int argc, char **argv)
{
    nb_test_seed_init();
    if (argc < 3) {
        fprintf(stderr, "usage: %s NTTBENCH GPU_PLUGIN\n", argv[0]);
        return 2;
    }
    nb_test_require_gpu_or_skip();
    exe = argv[1];
    plugin = argv[2];
    if (cli_scratch_create("nb_gpu_plugin_") != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_plugin_is_listed_as_a_gpu_variant),
        cmocka_unit_test(test_gpu_plugin_matches_the_gmp_reference),
        cmocka_unit_test(test_gpu_plugin_is_benchmarked_warm_and_cold),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cli_scratch_remove();
    return rc;
}

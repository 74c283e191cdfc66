/* Tests of a 32-bit NTT plugged in from outside the library, driven through
 * the nttbench executable as a researcher would: the example module's
 * example-naive32 (uint32_t data, primes below 2^31) is listed with its word
 * size, checked bit-exact against the GMP reference at several sizes with
 * 30- and 31-bit primes in both directions, timed beside a 64-bit variant at
 * equal log Q (and paired with it by `compare --match word`); its broken twin
 * is reported and never timed; primes or word sizes it cannot take are
 * refused with one line. argv[1] = the nttbench executable, argv[2] = the
 * example plug-in (tests/plugin_example.c). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "testutil.h"
#include "cliutil.h"

static const char *plugin;

/* The object of variant `name` in a `list --format json` document, or NULL. */
static json_t *listed(json_t *list, const char *name)
{
    json_t *vars = json_object_get(list, "variants");
    for (size_t i = 0; i < json_array_size(vars); i++)
        if (!strcmp(json_string_value(json_object_get(json_array_get(vars, i), "name")), name))
            return json_array_get(vars, i);
    return NULL;
}

static void test_plugged_32bit_variant_is_listed_with_its_word_size(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args, "--plugin %s list --format json --output %s/list.json", plugin,
             dir);
    assert_int_equal(run(args), 0);
    json_t *j = load_json("list.json");
    json_t *v = listed(j, "example-naive32");
    assert_non_null(v);
    assert_int_equal(json_integer_value(json_object_get(v, "word_bits")), 32);
    assert_int_equal(json_integer_value(json_object_get(v, "max_prime_bits")), 31);
    assert_int_equal(json_integer_value(json_object_get(listed(j, "example-naive"), "word_bits")),
                     64);
    json_decref(j);
}

static void test_plugged_32bit_variant_is_exact_against_gmp(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args,
             "--plugin %s verify --variant example-naive32 --logn 4,9,12 --limbs 1,3 "
             "--bits 30,31 --format json --output %s/verify32.json",
             plugin, dir);
    assert_int_equal(run(args), 0);
    json_t *j = load_json("verify32.json");
    json_t *sum = json_object_get(j, "summary");
    assert_int_equal(json_integer_value(json_object_get(sum, "pass")), 24); /* 3x2x2x2 */
    assert_int_equal(json_integer_value(json_object_get(sum, "fail")), 0);
    json_decref(j);
}

static void test_plugged_32bit_bug_is_reported_never_timed(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args,
             "--plugin %s verify --variant example-broken32 --logn 6 --limbs 2 --bits 31 "
             "--direction forward",
             plugin);
    assert_int_equal(run(args), 1);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "FAIL"));
    free(out);
    snprintf(args, sizeof args,
             "--plugin %s run --variant example-broken32 --tier warm --logn 6 --limbs 2 "
             "--bits 31 --min-time 0.005 --format json --output %s/broken32.json",
             plugin, dir);
    assert_int_equal(run(args), 1);
    json_t *j = load_json("broken32.json");
    json_t *c = json_array_get(json_object_get(j, "cases"), 0);
    assert_string_equal(json_string_value(json_object_get(c, "status")), "verify-failed");
    assert_int_equal(json_array_size(json_object_get(c, "samples_ns")), 0);
    assert_true(json_is_null(json_object_get(c, "stats")));
    json_decref(j);
}

static void test_plugged_32bit_variant_is_timed_at_equal_log_q(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args,
             "--plugin %s run --variant example-naive32,example-naive --word 32,64 --logq 120 "
             "--tier warm --logn 8 --min-time 0.005 --no-progress --format json "
             "--output %s/words.json",
             plugin, dir);
    assert_int_equal(run(args), 0);
    json_t *j = load_json("words.json");
    json_t *cases = json_object_get(j, "cases");
    assert_int_equal(json_array_size(cases), 2);
    for (size_t i = 0; i < 2; i++) {
        json_t *c = json_array_get(cases, i), *p = json_object_get(c, "params");
        const int w32 = !strcmp(json_string_value(json_object_get(c, "variant")),
                                "example-naive32");
        assert_string_equal(json_string_value(json_object_get(c, "status")), "ok");
        assert_int_equal(json_integer_value(json_object_get(p, "word_bits")), w32 ? 32 : 64);
        assert_int_equal(json_integer_value(json_object_get(p, "limbs")), w32 ? 4 : 2);
        /* 4 x 31-bit primes (just below 2^31 each), 2 x 60-bit ones */
        const double log_q = json_real_value(json_object_get(p, "log_q"));
        assert_true(w32 ? log_q > 123.9 && log_q <= 124.0 : log_q > 119.9 && log_q <= 120.0);
    }
    json_decref(j);
    snprintf(args, sizeof args, "--format json compare %s/words.json %s/words.json --match word",
             dir, dir);
    assert_int_equal(run(args), 0);
    j = load_json("out.txt");
    json_t *row = json_array_get(json_object_get(j, "cases"), 0);
    assert_int_equal(json_array_size(json_object_get(j, "cases")), 1);
    assert_string_equal(json_string_value(json_object_get(row, "new_variant")),
                        "example-naive32");
    assert_string_equal(json_string_value(json_object_get(row, "variant")), "example-naive");
    json_decref(j);
}

static void test_plugged_32bit_variant_refuses_what_it_cannot_take(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args,
             "--plugin %s verify --variant example-naive32 --logn 6 --limbs 2 --bits 40", plugin);
    assert_int_equal(run(args), 2);
    assert_one_error_line();
    char *e = slurp("err.txt");
    assert_non_null(strstr(e, "at most 31 bits"));
    free(e);
    snprintf(args, sizeof args,
             "--plugin %s run --variant example-naive32 --tier warm --logn 6 --limbs 2 "
             "--bits 62 --min-time 0.005",
             plugin);
    assert_int_equal(run(args), 2);
    snprintf(args, sizeof args,
             "--plugin %s run --variant example-naive32 --word 64 --logn 8 --limbs 1", plugin);
    assert_int_equal(run(args), 2);
    assert_one_error_line();
}

int main(int argc, char **argv)
{
    nb_test_seed_init();
    if (argc < 3) {
        fprintf(stderr, "usage: %s NTTBENCH PLUGIN\n", argv[0]);
        return 2;
    }
    exe = argv[1];
    plugin = argv[2];
    if (cli_scratch_create("nb_plugin32_") != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plugged_32bit_variant_is_listed_with_its_word_size),
        cmocka_unit_test(test_plugged_32bit_variant_is_exact_against_gmp),
        cmocka_unit_test(test_plugged_32bit_bug_is_reported_never_timed),
        cmocka_unit_test(test_plugged_32bit_variant_is_timed_at_equal_log_q),
        cmocka_unit_test(test_plugged_32bit_variant_refuses_what_it_cannot_take),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cli_scratch_remove();
    return rc;
}

/* `nttbench verify --stage` on the GPU: every stage of every GPU variant, on
 * fresh inputs, against the GMP reference, from the command line (exit 0,
 * a pass row per variant and stage, skipped rows only where the reference
 * does not apply). Exits 77 (skip) without a usable device.
 * argv[1] = the nttbench executable. */
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wunused-function" /* cliutil.h helpers this file does not use */
#include "testutil.h"
#include "cliutil.h"

/* Guards: the GPU pipelines of every GPU variant equal the GMP reference
 * stage by stage (and the command says so with exit 0). */
static void test_gpu_stages_match_reference(void **state)
{
    (void)state;
    assert_int_equal(run("--format json verify --stage modup,moddown,keyswitch,rescale "
                         "--preset test-tiny,test-small --backend gpu"),
                     0);
    json_t *j = load_json("out.txt");
    json_t *checks = json_object_get(j, "checks"), *c;
    size_t i, pass = 0, ring_skips = 0;
    assert_true(json_array_size(checks) > 0);
    json_array_foreach(checks, i, c) {
        const char *r = json_string_value(json_object_get(c, "result"));
        const char *stage = json_string_value(json_object_get(c, "stage"));
        const char *msg = json_string_value(json_object_get(c, "message"));
        assert_string_equal(json_string_value(json_object_get(c, "backend")), "gpu");
        if (strcmp(r, "pass") != 0 && strcmp(r, "skipped") != 0)
            fail_msg("check %zu: %s (%s)", i, r, msg);
        /* the only skips: rings outside a variant's log N range (test-tiny's
         * N = 16 below the shared-memory variants' 2^10) and the reference's
         * schoolbook key switch above log N 8 */
        if (!strcmp(r, "skipped") && !strstr(msg, "outside") && strcmp(stage, "keyswitch") != 0)
            fail_msg("check %zu: %s skipped: %s", i, stage, msg);
        ring_skips += !strcmp(r, "skipped") && strstr(msg, "outside") != NULL;
        pass += !strcmp(r, "pass");
    }
    assert_true(pass * 3 >= json_array_size(checks)); /* a third or more really ran */
    assert_true(ring_skips > 0);
    json_decref(j);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s NTTBENCH\n", argv[0]);
        return 2;
    }
    nb_test_require_gpu_or_skip();
    exe = argv[1];
    if (cli_scratch_create("nb-gpu-stage-") != 0)
        return 2;
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_stages_match_reference),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    cli_scratch_remove();
    return failed ? 1 : 0;
}

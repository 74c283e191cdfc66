/* core/version: nb_version() is meson.build's project version (passed by
 * tests/meson.build as NB_EXPECTED_VERSION), `nttbench --version` and `-V`
 * print that version, the commit and the plug-in ABI the library loads, and
 * the ABI is the one of the headers. argv: NTTBENCH. */
#include "core/version.h"
#include "cliutil.h"

static void test_version_is_the_project_version(void **state)
{
    (void)state;
    assert_string_equal(nb_version(), NB_EXPECTED_VERSION);
    assert_true(nb_git_commit()[0] != '\0');
}

static void test_plugin_abi_is_the_headers(void **state)
{
    (void)state;
    assert_int_equal(nb_plugin_abi(), NB_PLUGIN_ABI_VERSION);
}

/* One line: "nttbench VERSION (commit C, plug-in ABI N)". */
static void expect_version_line(const char *args)
{
    assert_int_equal(run(args), 0);
    char want[128];
    snprintf(want, sizeof want, "nttbench %s (commit %s, plug-in ABI %u)\n", NB_EXPECTED_VERSION,
             nb_git_commit(), NB_PLUGIN_ABI_VERSION);
    char *o = slurp("out.txt");
    assert_string_equal(o, want);
    free(o);
}

static void test_cli_version_agrees(void **state)
{
    (void)state;
    expect_version_line("--version");
    expect_version_line("-V");
    expect_version_line("run -V"); /* a global option, anywhere on the line */
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s NTTBENCH\n", argv[0]);
        return 2;
    }
    exe = argv[1];
    (void)load_json; /* cliutil.h's JSON reader: no report here */
    if (cli_scratch_create("nb-version-") != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_is_the_project_version),
        cmocka_unit_test(test_plugin_abi_is_the_headers),
        cmocka_unit_test(test_cli_version_agrees),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    cli_scratch_remove();
    return failed ? 1 : 0;
}

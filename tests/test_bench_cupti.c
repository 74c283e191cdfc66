/* CUPTI opened at run time (bench/timing/cupti_load.h), without a GPU:
 * NB_CUPTI_LIBRARY naming a missing file is used alone and refused with that
 * path; candidates that do not open, a file that is no library and a library
 * without CUPTI's entry points are refused naming them; the first candidate
 * that opens is the one used. Exit 77 in a build without CUPTI's headers. */
#include <unistd.h>

#include "bench/bench.h"
#include "testutil.h"

#if defined(NB_HAVE_CUPTI) && defined(NB_HAVE_CUDA)
#include "bench/timing/cupti_load.h"

#define MISSING "/nonexistent-nttbench-test/libcupti.so.13"

static void expect_in_message(const char *part)
{
    if (!strstr(nb_last_error(), part))
        nb_test_fail("message '%s' does not name '%s'", nb_last_error(), part);
}

/* The first nb_cupti_load of the process: main sets NB_CUPTI_LIBRARY before
 * anything can open CUPTI. */
static void test_cupti_library_variable_naming_a_missing_file_is_refused_naming_it(void **state)
{
    (void)state;
    nb_clear_error();
    assert_null(nb_cupti_load());
    expect_in_message(MISSING);
    expect_in_message("NB_CUPTI_LIBRARY");
    assert_null(strchr(nb_last_error(), '\n'));
    nb_clear_error();
    assert_null(nb_cupti_load()); /* opened once: the same answer again */
    expect_in_message(MISSING);
    assert_int_equal(nb_trace_available(), 0);
}

static void test_cupti_open_of_missing_paths_names_each_and_leaves_nothing(void **state)
{
    (void)state;
    const char *paths[] = {"/nonexistent-nttbench-test/a.so", "libnttbench-no-such-cupti.so"};
    nb_cupti_api api;
    memset(&api, 0xA5, sizeof api);
    EXPECT_STATUS(nb_cupti_open(paths, 2, &api), NB_ERR_UNSUPPORTED);
    expect_in_message(paths[0]);
    expect_in_message(paths[1]);
    expect_in_message("the loader's path"); /* a bare name is the loader's search */
    assert_string_equal(api.path, "");
    assert_null(api.get_result_string);
    assert_null(api.finalize);
}

/* A file that exists but is no shared object: dlopen's reason is given. */
static void test_cupti_open_of_a_file_that_is_no_library_gives_the_reason(void **state)
{
    (void)state;
    char path[] = "/tmp/nb-cupti-XXXXXX";
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "not ELF\n", 8), 8);
    close(fd);
    const char *paths[] = {path};
    nb_cupti_api api;
    const nb_status s = nb_cupti_open(paths, 1, &api);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", nb_last_error());
    unlink(path);
    assert_int_equal(s, NB_ERR_UNSUPPORTED);
    if (!strstr(msg, path) || !strstr(msg, "("))
        nb_test_fail("message '%s' names neither '%s' nor a reason", msg, path);
}

static void test_cupti_open_of_a_library_without_cupti_names_the_missing_entry(void **state)
{
    (void)state;
    const char *paths[] = {"libm.so.6"};
    nb_cupti_api api;
    EXPECT_STATUS(nb_cupti_open(paths, 1, &api), NB_ERR_UNSUPPORTED);
    expect_in_message("libm.so.6");
    expect_in_message("lacks cupti");
    assert_string_equal(api.path, "");
    assert_null(api.get_version);
}

/* Needs the libcupti the build found (NB_CUPTI_LIBDIR); skipped without. */
static void test_cupti_open_uses_the_first_candidate_that_opens(void **state)
{
    (void)state;
    char found[600];
    snprintf(found, sizeof found, "%s/%s", NB_CUPTI_LIBDIR, nb_cupti_soname());
    if (!*NB_CUPTI_LIBDIR || access(found, R_OK) != 0) {
        printf("SKIP: the build found no %s\n", nb_cupti_soname());
        skip();
    }
    const char *paths[] = {"/nonexistent-nttbench-test/libcupti.so", found, "libm.so.6"};
    nb_cupti_api api;
    EXPECT_STATUS(nb_cupti_open(paths, 3, &api), NB_OK);
    assert_string_equal(api.path, found);
    const void *const fns[] = {
        (const void *)api.get_result_string, (const void *)api.get_version,
        (const void *)api.get_timestamp, (const void *)api.activity_enable,
        (const void *)api.activity_disable, (const void *)api.activity_register_callbacks,
        (const void *)api.activity_get_next_record, (const void *)api.activity_flush_all,
        (const void *)api.activity_push_external_correlation_id,
        (const void *)api.activity_pop_external_correlation_id, (const void *)api.finalize};
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        assert_non_null(fns[i]);
    const char *str = NULL;
    assert_int_equal(api.get_result_string(CUPTI_ERROR_INVALID_PARAMETER, &str), CUPTI_SUCCESS);
    assert_non_null(str);
    if (CUPTI_API_VERSION >= 130000)
        assert_int_equal(api.version / 10000, CUPTI_API_VERSION / 10000);
}

int main(void)
{
    if (setenv("NB_CUPTI_LIBRARY", MISSING, 1) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cupti_library_variable_naming_a_missing_file_is_refused_naming_it),
        cmocka_unit_test(test_cupti_open_of_missing_paths_names_each_and_leaves_nothing),
        cmocka_unit_test(test_cupti_open_of_a_file_that_is_no_library_gives_the_reason),
        cmocka_unit_test(test_cupti_open_of_a_library_without_cupti_names_the_missing_entry),
        cmocka_unit_test(test_cupti_open_uses_the_first_candidate_that_opens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
    printf("SKIP: built without CUPTI's headers (the kernel trace is absent)\n");
    return 77;
}

#endif

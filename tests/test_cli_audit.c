/* Rows of the third command-line audit that still reproduced: `check` of two
 * empty files said OK. Each guard fails on the code before its fix;
 * rejected inputs are rows of the bad-input table (clirows.h).
 * argv: NTTBENCH TABLE-FILE. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/cli/cli.h"
#pragma GCC diagnostic ignored "-Wunused-function" /* shared helpers this file does not use */
#include "testutil.h"
#include "cliutil.h"
#include "clirows.h"

/* Guards: two empty files compared nothing and printed "OK: 0 of 0 values
 * differ" with exit 0, as if they had been checked equal. */
static void test_check_of_two_empty_files_is_an_error(void **state)
{
    (void)state;
    puts_file("empty1.txt", "");
    puts_file("empty2.txt", "# no values\n\n");
    expect_error("check of two files without values",
                 (const char *[]){"check", "--expected", at("empty1.txt"), "--actual",
                                  at("empty2.txt"), NULL},
                 2, "DIR/empty1.txt and DIR/empty2.txt hold no values: nothing to compare");
    assert_int_equal(run_v((const char *[]){"--format", "json", "check", "--expected",
                                            at("empty1.txt"), "--actual", at("empty2.txt"),
                                            NULL}),
                     2);
    char *out = slurp("out.txt");
    assert_string_equal(out, "");
    free(out);
    puts_file("one.txt", "1\n");
    assert_int_equal(run_v((const char *[]){"check", "--expected", at("empty1.txt"), "--actual",
                                            at("one.txt"), NULL}),
                     1);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_of_two_empty_files_is_an_error),
    };
    return cli_rows_main(argc, argv, "nb-aud-", "cli_audit", tests,
                         sizeof tests / sizeof tests[0], make_quick_base);
}

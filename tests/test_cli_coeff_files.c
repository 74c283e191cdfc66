/* Coefficient files of `transform` and `check` that cannot be read as the
 * command needs: an endless stream (/dev/zero, raw or text) ends at the value
 * after the most the command reads, with one line; one stream given as both
 * files of `check`, or as transform's input and output, and a loaded plug-in
 * as transform's output are refused before anything is read or written;
 * `check` whose verdict cannot be written to standard output fails. Rows of
 * the bad-input table (clirows.h). argv: NTTBENCH [TABLE-FILE]. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#pragma GCC diagnostic ignored "-Wunused-function" /* clirows.h helpers this file does not use */
#include "testutil.h"
#include "cliutil.h"
#include "clirows.h"

#define MODULI "--logn", "4", "--primes", "1048193,1048129"
#define FORWARD "transform", "--variant", "cpu-harvey", "--direction", "forward", MODULI

/* Runs the shell command that fmt makes; its exit code. */
__attribute__((format(printf, 1, 2))) static int shell(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    const int st = system(cmd);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* dir/x.txt: the 32 values of a log N 4, two-limb transform (below both
 * primes), one per line. */
static void write_input(void)
{
    char text[32 * 8 + 1] = "";
    for (int i = 0; i < 32; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%d\n", 1000 + 37 * i);
    puts_file("x.txt", text);
}

/* Guards: transform and check read /dev/zero to its (absent) end, growing
 * by hundreds of MB a second; a NUL byte was seen only once the whole
 * "line" was held. */
static void test_endless_input_stops_at_the_most_it_reads(void **state)
{
    (void)state;
    expect_error("an endless raw input", (const char *[]){FORWARD, "--in", "/dev/zero", "--out",
                                                          at("o.bin"), NULL},
                 2, "'/dev/zero' holds more than 32 values; N * L = 16 * 2 = 32 expected");
    expect_error("an endless text input",
                 (const char *[]){FORWARD, "--in", "/dev/zero", "--in-format", "text", "--out",
                                  at("o.bin"), NULL},
                 2, "/dev/zero:1: NUL byte in a text file");
    write_input();
    expect_error("check of an endless raw file",
                 (const char *[]){"check", "--expected", "/dev/zero", "--actual", at("x.txt"),
                                  NULL},
                 2, "'/dev/zero' holds more than 33554432 values (check reads at most");
}

/* Guards: `check --expected F --actual F` on a FIFO hung, and `-` with
 * /dev/stdin compared a pipe with its own empty rest ("sizes differ"). */
static void test_one_stream_twice_is_refused(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/ff", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    expect_error("check of one FIFO as both files",
                 (const char *[]){"check", "--expected", path, "--actual", path, NULL}, 2,
                 "are one stream: it can be read only once (give two files)");
    write_input();
    expect_error("transform writing its own input",
                 (const char *[]){FORWARD, "--in", at("x.txt"), "--out", at("x.txt"), NULL}, 2,
                 "is the input 'DIR/x.txt': writing it would replace the input");
    char *kept = slurp("x.txt");
    assert_non_null(strstr(kept, "1000\n1037\n"));
    free(kept);
    assert_int_equal(shell("cat %s/x.txt | %s check --expected - --actual /dev/stdin "
                           ">%s/out.txt 2>%s/err.txt", dir, exe, dir, dir),
                     2);
    char *e = slurp("err.txt");
    assert_non_null(strstr(e, "are one stream"));
    free(e);
}

/* Guards: transform --out naming a loaded plug-in replaced it (the next
 * load: "invalid ELF header"). */
static void test_transform_out_that_is_a_plugin_is_refused(void **state)
{
    (void)state;
    write_input();
    puts_file("p.so", "a shared object\n"); /* never loaded: the check comes first */
    char plug[600];
    snprintf(plug, sizeof plug, "--plugin=%s", at("p.so"));
    expect_error("transform --out naming the plug-in",
                 (const char *[]){plug, FORWARD, "--in", at("x.txt"), "--out", at("p.so"), NULL},
                 2, "--out 'DIR/p.so' is the plug-in 'DIR/p.so'");
    char *kept = slurp("p.so");
    assert_string_equal(kept, "a shared object\n");
    free(kept);
}

/* Guards: check > /dev/full exited 0 with nothing on stderr: the verdict
 * was lost with a success status. */
static void test_check_verdict_that_cannot_be_written_fails(void **state)
{
    (void)state;
    write_input();
    assert_int_equal(shell("%s check --expected %s/x.txt --actual %s/x.txt >/dev/full "
                           "2>%s/err.txt", exe, dir, dir, dir),
                     3);
    char *e = slurp("err.txt");
    assert_non_null(strstr(e, "cannot write to stdout: No space left on device"));
    hide_dir(e);
    e[strcspn(e, "\n")] = '\0';
    if (table)
        fprintf(table, "check whose verdict cannot be written\tcheck --expected "
                       "DIR/x.txt --actual DIR/x.txt >/dev/full\t3\t%s\n", e + 17);
    free(e);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_endless_input_stops_at_the_most_it_reads),
        cmocka_unit_test(test_one_stream_twice_is_refused),
        cmocka_unit_test(test_transform_out_that_is_a_plugin_is_refused),
        cmocka_unit_test(test_check_verdict_that_cannot_be_written_fails),
    };
    return cli_rows_main(argc, argv, "nb-coeff-", "coeff_files", tests,
                         sizeof tests / sizeof tests[0], NULL);
}

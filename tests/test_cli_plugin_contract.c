/* The parts of the variant interface that `nttbench verify` and `run` check
 * besides the transforms' values: a plug-in that writes wider words than its
 * word_bits, or before its data, fails its check (never corrupts the heap:
 * verify's and transform's buffers are guarded, a run's data has guards set
 * before and after it, a CKKS pipeline checks its NTT on a guarded limb
 * first); a plan_create that writes its tables or sets no plan fails; an
 * unreduced result is named and never written by transform; a plug-in whose
 * out-of-place entries are wrong fails verify even when it is right in
 * place; a variant's failure without a message is named with its status.
 * argv: NTTBENCH SUBRANGE-BROKEN-PLUGIN. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Wunused-function" /* cliutil.h helpers this file does not use */
#include "testutil.h"
#include "cliutil.h"
#include "clirows.h"

static const char *broken_plugin;
static char plug[300];

/* Guards: a plug-in declaring 32-bit words and writing 64-bit ones ended
 * verify and run in a heap-corruption abort (exit 134, no message). */
static void test_wide_words_fail_their_check(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){plug, "verify", "--variant", "broken-wide-words",
                                            "--logn", "10", "--limbs", "1,3", "--bits", "30",
                                            "--direction", "forward", NULL}),
                     1);
    char *o = slurp("out.txt");
    if (!strstr(o, "0 passed, 2 failed") || !strstr(o, "wrote past the end of its data"))
        fail_msg("verify output: %s", o);
    free(o);
    assert_int_equal(run_v((const char *[]){plug, "run", "--variant", "broken-wide-words",
                                            "--tier", "warm", "--logn", "10", "--limbs", "1",
                                            "--bits", "30", "--min-time", "0.01", "--timeout",
                                            "0.1", "--no-progress", NULL}),
                     1);
    char *e = slurp("out.txt");
    if (!strstr(e, "verification before timing (set 0) failed") ||
        !strstr(e, "wrote past the end of its data"))
        fail_msg("run output: %s", e);
    free(e);
    /* a CKKS pipeline over it is refused before it writes past its buffers */
    assert_int_equal(run_v((const char *[]){plug, "verify", "--stage", "modup,rescale",
                                            "--preset", "test-tiny-w32", "--variant",
                                            "broken-wide-words", NULL}),
                     1);
    e = slurp("out.txt");
    if (!strstr(e, "broken-wide-words: its forward wrote past the end of its data") ||
        !strstr(e, "wider words than its word_bits, 32?"))
        fail_msg("verify --stage output: %s", e);
    free(e);
    /* Guards: transform ran it unguarded and wrote its wrong output, exit 0 */
    char text[64 * 6 + 1] = "";
    for (int i = 0; i < 64; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%d\n", 3 + i);
    FILE *f = fopen(at("in.txt"), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(run_v((const char *[]){plug, "transform", "--variant", "broken-wide-words",
                                            "--direction", "forward", "--logn", "5", "--primes",
                                            "1048193,1048129", "--in", at("in.txt"), "--out",
                                            at("out.bin"), NULL}),
                     1);
    e = slurp("err.txt");
    if (!strstr(e, "broken-wide-words wrote past the end of its data"))
        fail_msg("transform stderr: %s", e);
    free(e);
    assert_true(access(at("out.bin"), F_OK) != 0); /* nothing written */
}

/* Guards: a plug-in changing the word just before its data passed run's
 * checks and was timed (the heap behind the data corrupted), and ended
 * verify and transform in a glibc abort (exit 134). */
static void test_writes_before_the_data_fail_their_check(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){plug, "verify", "--variant", "broken-writes-before",
                                            "--logn", "10", "--limbs", "1,3", "--direction",
                                            "forward", NULL}),
                     1);
    char *o = slurp("out.txt");
    if (!strstr(o, "0 passed, 4 failed") || !strstr(o, "wrote before the start of its data"))
        fail_msg("verify output: %s", o);
    free(o);
    assert_int_equal(run_v((const char *[]){plug, "run", "--variant", "broken-writes-before",
                                            "--tier", "warm", "--logn", "10", "--limbs", "1",
                                            "--min-time", "0.01", "--timeout", "0.1",
                                            "--no-progress", NULL}),
                     1);
    o = slurp("out.txt");
    if (!strstr(o, "verification before timing (set 0) failed") ||
        !strstr(o, "wrote before the start of its data"))
        fail_msg("run output: %s", o);
    free(o);
    FILE *f = fopen(at("in1.txt"), "w");
    assert_non_null(f);
    for (int i = 0; i < 32; i++)
        fprintf(f, "%d\n", 5 + i);
    fclose(f);
    assert_int_equal(run_v((const char *[]){plug, "transform", "--variant",
                                            "broken-writes-before", "--direction", "forward",
                                            "--logn", "5", "--primes", "1048193", "--in",
                                            at("in1.txt"), "--out", at("out1.txt"), NULL}),
                     1);
    o = slurp("err.txt");
    if (!strstr(o, "broken-writes-before wrote before the start of its data"))
        fail_msg("transform stderr: %s", o);
    free(o);
    assert_true(access(at("out1.txt"), F_OK) != 0);
}

/* Guards: a plug-in whose plan_create wrote its tables passed verify and was
 * blamed by run for the oracle's wrong values (the oracle reads the same
 * tables); one returning NB_OK without a plan crashed verify (exit 139). */
static void test_plan_create_contract_is_checked(void **state)
{
    (void)state;
    const char *names[2] = {"broken-writes-tables", "broken-no-plan"};
    const char *why[2] = {"plan_create wrote the tables it was given, which are read-only",
                          "plan_create returned NB_OK without a plan"};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(run_v((const char *[]){plug, "verify", "--variant", names[k], "--logn",
                                                "10", "--limbs", "2", "--bits", "62", NULL}),
                         1);
        char *o = slurp("out.txt");
        if (!strstr(o, "0 passed, 2 failed") || !strstr(o, why[k]))
            fail_msg("verify %s: %s", names[k], o);
        free(o);
        assert_int_equal(run_v((const char *[]){plug, "run", "--variant", names[k], "--tier",
                                                "warm", "--logn", "10", "--limbs", "1",
                                                "--min-time", "0.01", "--no-progress", NULL}),
                         1);
        o = slurp("out.txt");
        if (!strstr(o, why[k]))
            fail_msg("run %s: %s", names[k], o);
        free(o);
    }
}

/* Guards: transform wrote a plug-in's unreduced values (right mod q, not
 * below q) to its coefficient file with exit 0; verify's row now says why
 * the value differs. */
static void test_unreduced_results_are_named(void **state)
{
    (void)state;
    FILE *f = fopen(at("in2.txt"), "w");
    assert_non_null(f);
    for (int i = 0; i < 32; i++)
        fprintf(f, "%d\n", 7 + i);
    fclose(f);
    assert_int_equal(run_v((const char *[]){plug, "transform", "--variant", "broken-unreduced",
                                            "--direction", "forward", "--logn", "5", "--primes",
                                            "1048193", "--in", at("in2.txt"), "--out",
                                            at("out2.txt"), NULL}),
                     1);
    char *o = slurp("err.txt");
    if (!strstr(o, "not below q = 1048193 (an unreduced result is not written)"))
        fail_msg("transform stderr: %s", o);
    free(o);
    assert_true(access(at("out2.txt"), F_OK) != 0);
    assert_int_equal(run_v((const char *[]){plug, "verify", "--variant", "broken-unreduced",
                                            "--logn", "10", "--limbs", "1", "--bits", "62",
                                            "--direction", "forward", NULL}),
                     1);
    o = slurp("out.txt");
    if (!strstr(o, "not below q (unreduced?)"))
        fail_msg("verify output: %s", o);
    free(o);
}

/* Starts nttbench with argv (argv[0] the executable), stdout to /dev/null,
 * stderr to dir/ERR, NB_TEST_HANG_MARK set to mark when given; its pid. */
static pid_t spawn(const char *const *argv, const char *err, const char *mark)
{
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen(at(err), "w", stderr))
            _exit(127);
        if (mark)
            setenv("NB_TEST_HANG_MARK", mark, 1);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Guards: a plug-in's abort() (glibc's end for a corrupted heap) ended run
 * with no nttbench line and left the output's lock behind. */
static void test_crash_is_named(void **state)
{
    (void)state;
    const char *argv[] = {exe, plug, "--format", "json", "--output", at("crash.json"), "run",
                          "--variant", "broken-aborts", "--tier", "warm", "--logn", "10",
                          "--limbs", "1", "--no-progress", NULL};
    int st = 0;
    assert_true(waitpid(spawn(argv, "crash.err", NULL), &st, 0) > 0);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
    char *e = slurp("crash.err");
    if (!strstr(e, "nttbench: error: crashed with SIGABRT (a fault in a variant's code"))
        fail_msg("stderr: %s", e);
    free(e);
    assert_true(access(at("crash.json.lock"), F_OK) != 0);
}

/* Guards: SIGTERM (twice, as `timeout` sends it) to a run whose variant never
 * returns left the process running until killed; it now ends within the
 * grace period with one line, its output's lock removed. */
static void test_interrupted_hang_ends(void **state)
{
    (void)state;
    const char *argv[] = {exe, plug, "--format", "json", "--output", at("hang.json"), "run",
                          "--variant", "broken-hangs", "--tier", "warm", "--logn", "10",
                          "--limbs", "1", "--min-time", "5", "--no-progress", NULL};
    char mark[300];
    snprintf(mark, sizeof mark, "%s", at("hung"));
    const pid_t pid = spawn(argv, "hang.err", mark);
    for (int i = 0; i < 600 && access(mark, F_OK) != 0; i++) /* in the hung call */
        usleep(50000);
    kill(pid, SIGTERM);
    kill(pid, SIGTERM);
    int st = 0, waited = 0;
    while (waitpid(pid, &st, WNOHANG) == 0 && waited++ < 300)
        usleep(100000);
    if (waited > 300) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        fail_msg("still running 30 s after SIGTERM");
    }
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
    char *e = slurp("hang.err");
    if (!strstr(e, "interrupted, and the call under way did not return within 10 s"))
        fail_msg("stderr: %s", e);
    free(e);
    assert_true(access(at("hang.json.lock"), F_OK) != 0);
}

/* Guards: one variant's failure ended verify --stage with exit 2 and no
 * table, the other variants' passes discarded; a 64-bit variant writing
 * past its limbs was asked whether it writes wider words. */
static void test_stage_checks_keep_every_variant_row(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){"-q", plug, "--format", "csv", "verify", "--stage",
                                            "modup", "--preset", "test-tiny", "--variant",
                                            "cpu-harvey,broken-silent-error", NULL}),
                     3);
    char *o = slurp("out.txt");
    if (!strstr(o, "cpu-harvey,cpu,modup,test-tiny,3,pass") ||
        !strstr(o, "broken-silent-error,cpu,modup,test-tiny,3,error,\"broken-silent-error: "
                   "forward returned NB_ERR_UNSUPPORTED with no message\""))
        fail_msg("verify --stage output: %s", o);
    free(o);
    assert_int_equal(run_v((const char *[]){"-q", plug, "--format", "csv", "verify", "--stage",
                                            "modup", "--preset", "test-tiny", "--variant",
                                            "cpu-harvey,broken-writes-outside", NULL}),
                     1);
    o = slurp("out.txt");
    if (!strstr(o, "cpu-harvey,cpu,modup,test-tiny,1,pass") ||
        !strstr(o, "does it transform more limbs than the count it is given?"))
        fail_msg("verify --stage output: %s", o);
    free(o);
    /* a set whose primes are above a variant's bound is skipped, not an error */
    assert_int_equal(run_v((const char *[]){"-q", plug, "--format", "csv", "verify", "--stage",
                                            "modup", "--preset", "test-tiny", "--variant",
                                            "cpu-harvey,right-small-primes", NULL}),
                     0);
    o = slurp("out.txt");
    if (!strstr(o, "right-small-primes,cpu,modup,test-tiny,3,skipped,\"the set's primes have "
                   "up to 40 bits, the variant takes at most 36\""))
        fail_msg("verify --stage output: %s", o);
    free(o);
}

/* Guards: verify called only the in-place entries, so out-of-place entries
 * that never wrote their destination passed. */
static void test_out_of_place_entries_are_verified(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){plug, "verify", "--variant", "broken-out-of-place",
                                            "--logn", "10", "--limbs", "3", "--bits", "36",
                                            NULL}),
                     1);
    char *o = slurp("out.txt");
    if (!strstr(o, "0 passed, 2 failed") || !strstr(o, "forward_to:") ||
        !strstr(o, "inverse_to:"))
        fail_msg("verify output: %s", o);
    free(o);
    /* entries that are right pass */
    assert_int_equal(run_v((const char *[]){plug, "verify", "--variant", "right-out-of-place",
                                            "--logn", "10", "--limbs", "3", "--bits", "36",
                                            NULL}),
                     0);
}

/* Guards: a variant's failure without a message showed an empty detail
 * (or whatever message an earlier call had left). */
static void test_failure_without_message_is_named(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){plug, "verify", "--variant", "broken-silent-error",
                                            "--logn", "10", "--limbs", "1", "--direction",
                                            "forward", NULL}),
                     3);
    char *o = slurp("out.txt");
    if (!strstr(o, "broken-silent-error: forward returned NB_ERR_UNSUPPORTED with no message"))
        fail_msg("verify output: %s", o);
    free(o);
    /* Guards: a variant's NB_ERR_INVALID_ARG for a call the wrapper had checked
     * ended run with the usage code (2), "cannot run with these parameters" */
    assert_int_equal(run_v((const char *[]){plug, "run", "--variant", "broken-refuses", "--tier",
                                            "warm", "--logn", "10", "--limbs", "1", "--min-time",
                                            "0.01", "--no-progress", NULL}),
                     1);
    o = slurp("out.txt");
    if (!strstr(o, "count must be even (broken-refuses: forward refused a call within its "
                   "contract)"))
        fail_msg("run output: %s", o);
    free(o);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s NTTBENCH SUBRANGE-PLUGIN\n", argv[0]);
        return 2;
    }
    exe = argv[1];
    broken_plugin = argv[2];
    snprintf(plug, sizeof plug, "--plugin=%s", broken_plugin);
    if (cli_scratch_create("nb-contract-") != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wide_words_fail_their_check),
        cmocka_unit_test(test_writes_before_the_data_fail_their_check),
        cmocka_unit_test(test_plan_create_contract_is_checked),
        cmocka_unit_test(test_unreduced_results_are_named),
        cmocka_unit_test(test_interrupted_hang_ends),
        cmocka_unit_test(test_crash_is_named),
        cmocka_unit_test(test_out_of_place_entries_are_verified),
        cmocka_unit_test(test_failure_without_message_is_named),
        cmocka_unit_test(test_stage_checks_keep_every_variant_row),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    cli_scratch_remove();
    return failed ? 1 : 0;
}

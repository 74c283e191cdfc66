/* Result files that can be trusted: a run's JSON records its planned case
 * count and, as its last key, whether the sweep finished ("complete"); a file
 * left by a killed run reads as incomplete; `compare` and `report` warn (one
 * line) on incomplete or interrupted files and `report` refuses a file with
 * no cases. Rejected inputs and warnings are rows of the bad-input table
 * (clirows.h). argv: NTTBENCH TABLE-FILE. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/cli/cli.h"
#pragma GCC diagnostic ignored "-Wunused-function" /* shared helpers this file does not use */
#include "testutil.h"
#include "cliutil.h"
#include "clirows.h"

#define QUICK "--variant", "cpu-harvey", "--tier", "warm", "--logn", "10", "--limbs", "1", \
              "--min-time", "0.01", "--timeout", "1"

/* Asserts exit `code` and exactly one "nttbench: warning: " line containing
 * `needle` on stderr, and records the row (message "warning: ..."). */
static void expect_warning(const char *what, const char *const *args, int code,
                           const char *needle)
{
    int rc = run_v(args);
    char *e = slurp("err.txt");
    hide_dir(e);
    if (rc != code || strncmp(e, "nttbench: warning: ", 19) != 0 || count_lines(e) != 1 ||
        !strstr(e, needle))
        fail_msg("%s: exit %d (want %d), stderr:\n%s(want one warning line containing '%s')",
                 what, rc, code, e, needle);
    char cmd[1024];
    show_args(cmd, sizeof cmd, args);
    e[strlen(e) - 1] = '\0';
    if (table)
        fprintf(table, "%s\t%s\t%d\t%s\n", what, cmd, rc, e + 10);
    free(e);
}

/* stderr holds no line at all. */
static void expect_quiet_stderr(void)
{
    char *e = slurp("err.txt");
    if (e[0])
        fail_msg("unexpected stderr: %s", e);
    free(e);
}

/* dir/NAME: a copy of base.json changed by `edit` (a JSON object to merge;
 * keys whose value is the string "DELETE" are removed). */
static void derive(const char *name, const char *edit)
{
    json_t *j = load_json("base.json");
    json_error_t err;
    json_t *e = json_loads(edit, 0, &err);
    assert_non_null(e);
    const char *k;
    json_t *v;
    json_object_foreach(e, k, v)
    {
        if (json_is_string(v) && !strcmp(json_string_value(v), "DELETE"))
            json_object_del(j, k);
        else
            json_object_set(j, k, v);
    }
    assert_int_equal(json_dump_file(j, at(name), JSON_INDENT(1) | JSON_PRESERVE_ORDER), 0);
    json_decref(e);
    json_decref(j);
}

static int make_base(void **state)
{
    (void)state;
    return run_v((const char *[]){"-q", "--format", "json", "--output", at("base.json"), "run",
                                  QUICK, NULL});
}

/* ------------------------------------------------------------- completeness */

/* Guards: a finished run's file did not say it was complete nor how many
 * cases were planned. */
static void test_finished_run_is_marked_complete(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){"-q", "--format", "json", "--output", at("two.json"),
                                            "run", "--variant", "cpu-harvey", "--tier", "warm",
                                            "--logn", "10:11", "--limbs", "1", "--min-time",
                                            "0.01", "--timeout", "1", NULL}),
                     0);
    json_t *j = load_json("two.json");
    assert_int_equal(json_integer_value(json_object_get(j, "cases_planned")), 2);
    assert_true(json_is_true(json_object_get(j, "complete")));
    json_decref(j);
    char *s = slurp("two.json"); /* the mark is the document's last key */
    char *last = strrchr(s, '"');
    assert_non_null(last);
    while (last > s && last[-1] != '"')
        last--;
    assert_int_equal(strncmp(last, "complete\"", 9), 0);
    free(s);
}

/* Guards: a run killed by SIGKILL left a file that said "interrupted": false
 * and nothing else, so it passed as complete. */
static void test_killed_run_reads_incomplete(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("OMP_NUM_THREADS", "1", 1);
        execl(exe, exe, "-q", "--format", "json", "--output", at("killed.json"), "run",
              "--variant", "cpu-harvey", "--tier", "warm", "--logn", "10:16", "--limbs", "1",
              "--min-time", "0.3", "--timeout", "2", (char *)NULL);
        _exit(127);
    }
    struct stat st;
    for (int i = 0; i < 600 && stat(at("killed.json"), &st) != 0; i++)
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    assert_int_equal(kill(pid, SIGKILL), 0);
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    json_t *j = load_json("killed.json");
    assert_true(json_is_false(json_object_get(j, "complete")));
    assert_int_equal(json_integer_value(json_object_get(j, "cases_planned")), 7);
    assert_true(json_array_size(json_object_get(j, "cases")) < 7);
    json_decref(j);
    FILE *keep = table; /* no row: the case count depends on the machine's speed */
    table = NULL;
    expect_warning("a report whose run was killed", (const char *[]){"report", at("killed.json"),
                   NULL}, 0, "incomplete: its run had not finished when it was written");
    table = keep;
}

/* Guards: compare accepted a file written mid-run as if it were complete. */
static void test_compare_warns_on_incomplete(void **state)
{
    (void)state;
    derive("partial.json", "{\"complete\": false, \"cases_planned\": 7}");
    expect_warning("compare with a file written mid-run",
                   (const char *[]){"compare", at("base.json"), at("partial.json"), NULL}, 0,
                   "DIR/partial.json: incomplete: its run had not finished when it was written "
                   "(1 of 7 planned cases; still running, or killed)");
}

/* Guards: compare and report never mentioned that a run was interrupted. */
static void test_interrupted_file_is_named(void **state)
{
    (void)state;
    derive("int.json", "{\"interrupted\": true, \"complete\": false}");
    expect_warning("compare with an interrupted file",
                   (const char *[]){"compare", at("int.json"), at("base.json"), NULL}, 0,
                   "DIR/int.json: the run was interrupted; the file holds 1 of 1 planned cases");
    derive("int-old.json", "{\"interrupted\": true, \"complete\": \"DELETE\", "
                           "\"cases_planned\": \"DELETE\"}");
    expect_warning("report on an interrupted file without a completion mark",
                   (const char *[]){"report", at("int-old.json"), NULL}, 0,
                   "DIR/int-old.json: the run was interrupted; the file holds 1 case");
}

/* A file from before the completion mark, not interrupted: read silently. */
static void test_old_file_is_read_silently(void **state)
{
    (void)state;
    derive("old.json", "{\"complete\": \"DELETE\", \"cases_planned\": \"DELETE\"}");
    assert_int_equal(run_v((const char *[]){"compare", at("old.json"), at("base.json"), NULL}), 0);
    expect_quiet_stderr();
    assert_int_equal(run_v((const char *[]){"report", at("old.json"), NULL}), 0);
    expect_quiet_stderr();
    assert_int_equal(run_v((const char *[]){"-q", "compare", at("base.json"), at("int.json"),
                                            NULL}), 0);
    expect_quiet_stderr(); /* --quiet silences the warning */
}

/* Guards: report on a file without cases exited 0 with an empty paragraph. */
static void test_report_without_cases_fails(void **state)
{
    (void)state;
    derive("nocases.json", "{\"cases\": []}");
    expect_error("report on a file with no cases", (const char *[]){"report", at("nocases.json"),
                 NULL}, 2, "DIR/nocases.json: no cases: nothing to report");
}

static void test_malformed_completion_mark_is_refused(void **state)
{
    (void)state;
    derive("badmark.json", "{\"complete\": \"yes\"}");
    expect_error("completion mark not a boolean", (const char *[]){"report", at("badmark.json"),
                 NULL}, 2, "DIR/badmark.json: 'complete' is not true or false");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finished_run_is_marked_complete),
        cmocka_unit_test(test_killed_run_reads_incomplete),
        cmocka_unit_test(test_compare_warns_on_incomplete),
        cmocka_unit_test(test_interrupted_file_is_named),
        cmocka_unit_test(test_old_file_is_read_silently),
        cmocka_unit_test(test_report_without_cases_fails),
        cmocka_unit_test(test_malformed_completion_mark_is_refused),
    };
    return cli_rows_main(argc, argv, "nb-res-", "cli_results", tests,
                         sizeof tests / sizeof tests[0], make_base);
}

/* Result files that can be trusted: a run's JSON records its planned case
 * count and, as its last key, whether the sweep finished ("complete"); a file
 * left by a killed run reads as incomplete; `compare` and `report` warn (one
 * line) on incomplete or interrupted files and `report` refuses a file with
 * no cases. Rejected inputs and warnings are rows of the bad-input table
 * (clirows.h). argv: NTTBENCH TABLE-FILE. */
#include <errno.h>
#include <fcntl.h>
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
    merge_edit(j, e);
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

/* Starts `nttbench -q --format FMT --output DIR/OUTPUT run` of cpu-harvey,
 * warm, L 1, --logn LOGN, 0.3 s per case, in the background, and waits until
 * dir/WAIT_FOR exists (at most 12 s); the child's pid. */
static pid_t start_run_as(const char *fmt, const char *output, const char *logn,
                          const char *wait_for)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("OMP_NUM_THREADS", "1", 1);
        execl(exe, exe, "-q", "--format", fmt, "--output", at(output), "run", "--variant",
              "cpu-harvey", "--tier", "warm", "--logn", logn, "--limbs", "1", "--min-time",
              "0.3", "--timeout", "2", (char *)NULL);
        _exit(127);
    }
    struct stat st;
    for (int i = 0; i < 600 && stat(at(wait_for), &st) != 0; i++)
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    return pid;
}

static pid_t start_run(const char *output, const char *logn, const char *wait_for)
{
    return start_run_as("json", output, logn, wait_for);
}

/* Guards: a markdown or table report left by a killed run looked complete. */
static void test_killed_run_table_says_incomplete(void **state)
{
    (void)state;
    pid_t pid = start_run_as("md", "killed.md", "10:16", "killed.md");
    assert_int_equal(kill(pid, SIGKILL), 0);
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    char *s = slurp("killed.md");
    assert_non_null(strstr(s, "**Incomplete**: "));
    assert_non_null(strstr(s, " of 7 planned cases so far (the run had not finished"));
    free(s);
    assert_int_equal(run_v((const char *[]){"-q", "--format", "md", "--output", at("whole.md"),
                                            "run", QUICK, NULL}),
                     0);
    s = slurp("whole.md");
    assert_null(strstr(s, "Incomplete"));
    free(s);
}

/* Guards: a run killed by SIGKILL left a file that said "interrupted": false
 * and nothing else, so it passed as complete. */
static void test_killed_run_reads_incomplete(void **state)
{
    (void)state;
    pid_t pid = start_run("killed.json", "10:16", "killed.json");
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
    char *o = slurp("out.txt"); /* and the methods paragraph says so */
    assert_non_null(strstr(o, "The sweep was interrupted by a signal: the file holds 1 case.\n"));
    free(o);
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

/* ------------------------------------------------------------- damaged files */

/* dir/NAME: base.json whose case 0 has stats.median `median` and the three
 * samples {s0, 200, 300} (stats.samples and samples_stored 3). */
static void derive_times(const char *name, double median, double s0)
{
    json_t *j = load_json("base.json");
    json_t *c = json_array_get(json_object_get(j, "cases"), 0);
    json_t *st = json_object_get(c, "stats");
    json_object_set_new(st, "median", json_real(median));
    json_object_set_new(st, "samples", json_integer(3));
    json_object_set_new(c, "samples_ns", json_pack("[f, f, f]", s0, 200.0, 300.0));
    json_object_set_new(c, "samples_stored", json_integer(3));
    json_object_del(c, "sample_sm_clock_mhz");
    assert_int_equal(json_dump_file(j, at(name), JSON_INDENT(1)), 0);
    json_decref(j);
}

/* Guards: a median of 1e300 ns or -1 ns was shown as a time, exit 0. */
static void test_impossible_median_is_refused(void **state)
{
    (void)state;
    derive_times("huge.json", 1e300, 100);
    expect_error("median of 1e300 ns in a result file",
                 (const char *[]){"compare", at("base.json"), at("huge.json"), NULL}, 2,
                 "DIR/huge.json: case 0: 'stats.median' 1e+300 is not a time in (0, 1e15] ns");
    derive_times("negative.json", -1, 100);
    expect_error("negative median in a result file",
                 (const char *[]){"report", at("negative.json"), NULL}, 2,
                 "DIR/negative.json: case 0: 'stats.median' -1 is not a time in (0, 1e15] ns");
    derive_times("bigsample.json", 200, 1e308);
    expect_error("sample of 1e308 ns in a result file",
                 (const char *[]){"compare", at("base.json"), at("bigsample.json"), NULL}, 2,
                 "DIR/bigsample.json: case 0: sample 0 is not a time in (0, 1e15] ns");
}

/* Guards: stats.median and samples_ns disagreeing gave a table showing equal
 * medians beside the verdict "slower 1.41x". */
static void test_median_disagreeing_with_samples_is_refused(void **state)
{
    (void)state;
    derive_times("edited.json", 141, 100);
    expect_error("stats.median that is not the median of samples_ns",
                 (const char *[]){"compare", at("base.json"), at("edited.json"), NULL}, 2,
                 "DIR/edited.json: case 0: 'stats.median' 141 ns disagrees with the median of "
                 "its 3 samples_ns, 200 ns");
    derive_times("consistent.json", 200, 100);
    assert_int_equal(run_v((const char *[]){"report", at("consistent.json"), NULL}), 0);
}

/* ------------------------------------------------------------- lost results */

/* Runs `sh -c CMD` (stdout and stderr to dir/out.txt, dir/err.txt); exit code. */
static int run_sh(const char *cmd)
{
    char full[2048];
    snprintf(full, sizeof full, "(%s) >%s/out.txt 2>%s/err.txt", cmd, dir, dir);
    int st = system(full);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* Asserts one "nttbench: error:" line containing needle in dir/err.txt. */
static void expect_error_line(const char *needle)
{
    char *e = slurp("err.txt");
    if (strncmp(e, "nttbench: error: ", 17) != 0 || count_lines(e) != 1 || !strstr(e, needle))
        fail_msg("stderr:\n%s(want one error line containing '%s')", e, needle);
    free(e);
}

/* Guards: an unwritable --output folder was found only after the whole sweep
 * had run, and every result was lost. */
static void test_unwritable_folder_is_found_before_timing(void **state)
{
    (void)state;
    const char *sys = "/sys/kernel/nttbench-test.json"; /* no one may create files there */
    int fd = open(sys, O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) {
        close(fd);
        unlink(sys);
        skip();
    }
    const double t0 = nb_now_s();
    table_mask_after = "cannot create files in '/sys/kernel': ";
    expect_error("--output in a folder that cannot be written",
                 (const char *[]){"--output", sys, "run", "--variant", "cpu-harvey", "--tier",
                                  "warm", "--logn", "10:12", "--limbs", "1", "--min-time", "5",
                                  NULL},
                 3, "cannot write the output '/sys/kernel/nttbench-test.json': cannot create "
                    "files in '/sys/kernel': ");
    table_mask_after = NULL;
    assert_true(nb_now_s() - t0 < 5.0); /* refused before the first case */
    if (getuid() != 0) { /* a read-only folder stops anyone but root */
        assert_int_equal(mkdir(at("ro"), 0555), 0);
        assert_int_equal(run_v((const char *[]){"--output", at("ro/x.json"), "run", QUICK, NULL}),
                         3);
        expect_error_line("cannot create files in");
    }
}

/* Guards: two runs writing the same --output both exited 0 and the second
 * silently replaced the first one's cases. */
static void test_second_writer_is_refused(void **state)
{
    (void)state;
    pid_t pid = start_run("shared.json", "10:12", "shared.json.lock");
    struct stat st;
    table_mask_after = "held by process ";
    expect_error("a second run writing the same --output",
                 (const char *[]){"--output", at("shared.json"), "run", QUICK, NULL}, 3,
                 "output 'DIR/shared.json' is being written by another nttbench: wait for it or "
                 "choose another --output (lock file 'DIR/shared.json.lock' held by process ");
    table_mask_after = NULL;
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    json_t *j = load_json("shared.json"); /* the first run's file, whole */
    assert_int_equal(json_array_size(json_object_get(j, "cases")), 3);
    assert_true(json_is_true(json_object_get(j, "complete")));
    json_decref(j);
    assert_int_not_equal(stat(at("shared.json.lock"), &st), 0); /* removed at the end */
    assert_int_equal(run_v((const char *[]){"-q", "--output", at("shared.json"), "run", QUICK,
                                            NULL}),
                     0); /* and the path is free again */
}

/* Guards: beyond the file-size limit the process was killed by SIGXFSZ
 * (exit 153, no message) and left FILE.tmp.PID behind. */
static void test_file_size_limit_is_one_line(void **state)
{
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ulimit -f 4; OMP_NUM_THREADS=1 exec %s -q --format json --output "
             "%s/big.json run --variant cpu-harvey --tier warm --logn 10:12 --limbs 1 "
             "--min-time 0.01 --timeout 1", exe, dir);
    assert_int_equal(run_sh(cmd), 3);
    expect_error_line("cannot write '");
    char *e = slurp("err.txt");
    hide_dir(e);
    assert_non_null(strstr(e, "cannot write 'DIR/big.json': File too large"));
    e[strlen(e) - 1] = '\0';
    if (table)
        fprintf(table, "%s\t%s\t%d\t%s\n", "run report larger than the file size limit",
                "(ulimit -f 4) -q --format json --output DIR/big.json run ...", 3, e + 17);
    free(e);
    char probe[1024];
    snprintf(probe, sizeof probe, "ls %s | grep -c '\\.tmp\\.' >/dev/null", dir);
    assert_int_not_equal(system(probe), 0); /* no temporary left */
    /* Guards: JSON to a redirected standard output said only "cannot write JSON" */
    snprintf(cmd, sizeof cmd, "ulimit -f 1; exec %s list --format json >%s/list.json", exe, dir);
    assert_int_equal(run_sh(cmd), 3);
    expect_error_line("cannot write to stdout: File too large");
}

/* ------------------------------------------------------------- inputs read once */

/* Guards: compare opened each file twice (a sniff, then a reopen), so a FIFO
 * whose writer writes once hung forever. */
static void test_compare_reads_a_fifo(void **state)
{
    (void)state;
    assert_int_equal(mkfifo(at("fifo"), 0644), 0);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cat %s/base.json >%s/fifo & timeout 20 %s compare %s/base.json "
             "%s/fifo", dir, dir, exe, dir, dir);
    assert_int_equal(run_sh(cmd), 0);
    char *o = slurp("out.txt");
    assert_non_null(strstr(o, "1 matched"));
    free(o);
}

/* Guards: `compare a <(zcat b.gz)` read the pipe's rest after a 4 KiB sniff
 * ("not valid JSON"); `-` was "cannot open". */
static void test_pipes_and_stdin_are_read(void **state)
{
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "bash -c 'timeout 20 %s compare %s/base.json <(cat %s/base.json)'",
             exe, dir, dir);
    assert_int_equal(run_sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "gzip -c %s/base.json | gzip -dc | timeout 20 %s compare - "
             "%s/base.json", dir, exe, dir);
    assert_int_equal(run_sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "timeout 20 %s report - <%s/base.json", exe, dir);
    assert_int_equal(run_sh(cmd), 0);
    char *o = slurp("out.txt");
    assert_non_null(strstr(o, "We timed the warm tier of cpu-harvey"));
    free(o);
    expect_error("standard input given twice",
                 (const char *[]){"compare", "-", "-", NULL}, 2,
                 "compare reads at most one file from standard input ('-')");
    /* --calibration - : read once, by run (parsed, then used) and by report */
    puts_file("calib.json", "{\"schema\": \"nttbench-calibration\", \"backend\": \"gpu\", "
                            "\"copy_bandwidth_Bps\": 2.5e12}\n");
    snprintf(cmd, sizeof cmd, "timeout 20 %s run --list --variant cpu-harvey --logn 10 --limbs 1 "
             "--calibration - <%s/calib.json", exe, dir);
    assert_int_equal(run_sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "timeout 20 %s report %s/base.json --calibration - <%s/calib.json",
             exe, dir, dir);
    assert_int_equal(run_sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "echo '{}' | timeout 20 %s report %s/base.json --calibration -",
             exe, dir);
    assert_int_equal(run_sh(cmd), 2);
    expect_error_line("-: not an nttbench calibration");
    snprintf(cmd, sizeof cmd, "timeout 20 %s report - --calibration - <%s/calib.json", exe, dir);
    assert_int_equal(run_sh(cmd), 2);
    expect_error_line("report reads one file from standard input ('-')");
}

/* Guards: standard input escaped both identity checks. `report - --output F
 * < F` replaced F; `compare B - -- N N2 < B`, with N2 a copy of N, counted
 * one run twice a side and narrowed the interval into a verdict. */
static void test_stdin_and_copies_keep_their_identity(void **state)
{
    (void)state;
    char *base = slurp("base.json");
    put("mine.json", base, strlen(base));
    put("copy.json", base, strlen(base));
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "timeout 20 %s report - --output %s/mine.json <%s/mine.json", exe,
             dir, dir);
    assert_int_equal(run_sh(cmd), 2);
    expect_error_line("is also an input of report ('-')");
    char *after = slurp("mine.json");
    assert_string_equal(after, base);
    free(after);
    snprintf(cmd, sizeof cmd, "timeout 20 %s compare %s/mine.json - -- %s/base.json <%s/mine.json",
             exe, dir, dir, dir);
    assert_int_equal(run_sh(cmd), 2);
    expect_error_line("are the same file on one side");
    expect_error("a copy of a run beside it on one side",
                 (const char *[]){"compare", at("mine.json"), "--", at("base.json"),
                                  at("copy.json"), NULL},
                 2, "hold the same run on one side (the same environment block and command line)");
    free(base);
}

/* Guards: check and transform answered "cannot open '-'". */
static void test_coefficients_from_stdin(void **state)
{
    (void)state;
    puts_file("v.txt", "1\n2\n");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "printf '1\\n2\\n' | %s check --expected %s/v.txt --actual - "
             "--actual-format text", exe, dir);
    assert_int_equal(run_sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s transform --variant reference --direction forward --logn 1 "
             "--primes 5 --in - --in-format text --out %s/t.txt <%s/v.txt", exe, dir, dir);
    assert_int_equal(run_sh(cmd), 0);
    char *t = slurp("t.txt");
    assert_string_equal(t, "0\n2\n"); /* 1 + 2x at the roots 2, 3 of x^2 + 1 mod 5, bit-reversed */
    free(t);
    expect_error("standard input given twice to check",
                 (const char *[]){"check", "--expected", "-", "--actual", "-", NULL}, 2,
                 "check reads at most one file from standard input ('-')");
}

/* Guards: a directory read as "not valid JSON", a missing file without its cause. */
static void test_unreadable_inputs_name_the_cause(void **state)
{
    (void)state;
    expect_error("a directory given to compare",
                 (const char *[]){"compare", at("base.json"), dir, NULL}, 2,
                 "DIR: cannot read: Is a directory");
    expect_error("a missing file given to report", (const char *[]){"report", at("nope.json"),
                 NULL}, 2, "DIR/nope.json: cannot open: No such file or directory");
}

/* ------------------------------------------------------------- verdicts */

/* Guards: verify --stage skipped a level above the set's top and exited 0,
 * where run exits 2. */
static void test_verify_stage_level_above_top_exits_2(void **state)
{
    (void)state;
    expect_error("verify --stage at a level above the set's top",
                 (const char *[]){"verify", "--stage", "keyswitch", "--preset", "test-tiny",
                                  "--level", "99", NULL},
                 2, "--level 99 is above the top level 3 of the set test-tiny");
}

/* Guards: verify with primes that do not exist exited 3 ("could not run"),
 * as if the machine had failed. */
static void test_verify_impossible_primes_exits_2(void **state)
{
    (void)state;
    expect_error("verify with fewer primes than limbs",
                 (const char *[]){"verify", "--variant", "cpu-harvey", "--bits", "20", "--logn",
                                  "17", "--limbs", "2", "--direction", "forward", NULL},
                 2, "1 check cannot run with these parameters: only 1 prime q < 2^20");
}

/* Guards: run --mode graph on the CPU skipped its only case and exited 0. */
static void test_run_with_every_case_skipped_exits_2(void **state)
{
    (void)state;
    expect_error("run whose every case is skipped",
                 (const char *[]){"-q", "run", QUICK, "--mode", "graph", NULL}, 2,
                 "every case was skipped (graph mode needs a GPU variant)");
    assert_int_equal(run_v((const char *[]){"-q", "run", QUICK, "--mode", "graph,per-launch",
                                            NULL}),
                     0); /* one case timed: the skipped one is a row */
}

/* Guards: --tier warm --cache cold silently ran warm. */
static void test_contradicting_tier_and_cache_exit_2(void **state)
{
    (void)state;
    expect_error("--cache that contradicts --tier warm",
                 (const char *[]){"run", "--tier", "warm", "--cache", "cold", NULL}, 2,
                 "--cache cold contradicts --tier warm, which names the NTT tier's cache state "
                 "already (write --tier ntt --cache cold)");
    expect_error("--cache that contradicts --tier cold",
                 (const char *[]){"run", "--tier", "cold", "--cache", "warm", NULL}, 2,
                 "--cache warm contradicts --tier cold");
    assert_int_equal(run_v((const char *[]){"-q", "run", QUICK, "--cache", "warm", NULL}), 0);
}

/* Guards: --preset with a custom set's options ran something else than the
 * preset the user named; --dnum without --levels was ignored. */
static void test_custom_set_options_with_preset_exit_2(void **state)
{
    (void)state;
    expect_error("a custom set's option beside --preset",
                 (const char *[]){"run", "--tier", "stage", "--preset", "test-tiny", "--levels",
                                  "5", NULL},
                 2, "--levels builds a custom parameter set and --preset names fixed ones: give "
                    "one or the other");
    expect_error("a custom set's option without --levels",
                 (const char *[]){"run", "--tier", "stage", "--dnum", "5", NULL}, 2,
                 "--dnum belongs to a custom parameter set: give --levels L too");
}

/* Guards: check --format csv printed the text form. */
static void test_check_refuses_csv(void **state)
{
    (void)state;
    puts_file("v.txt", "1\n2\n");
    expect_error("check in a format it does not write",
                 (const char *[]){"--format", "csv", "check", "--expected", at("v.txt"),
                                  "--actual", at("v.txt"), NULL},
                 2, "check writes text or JSON (--format json), not csv or md");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finished_run_is_marked_complete),
        cmocka_unit_test(test_killed_run_reads_incomplete),
        cmocka_unit_test(test_killed_run_table_says_incomplete),
        cmocka_unit_test(test_compare_warns_on_incomplete),
        cmocka_unit_test(test_interrupted_file_is_named),
        cmocka_unit_test(test_old_file_is_read_silently),
        cmocka_unit_test(test_report_without_cases_fails),
        cmocka_unit_test(test_malformed_completion_mark_is_refused),
        cmocka_unit_test(test_impossible_median_is_refused),
        cmocka_unit_test(test_median_disagreeing_with_samples_is_refused),
        cmocka_unit_test(test_unwritable_folder_is_found_before_timing),
        cmocka_unit_test(test_second_writer_is_refused),
        cmocka_unit_test(test_file_size_limit_is_one_line),
        cmocka_unit_test(test_compare_reads_a_fifo),
        cmocka_unit_test(test_pipes_and_stdin_are_read),
        cmocka_unit_test(test_stdin_and_copies_keep_their_identity),
        cmocka_unit_test(test_coefficients_from_stdin),
        cmocka_unit_test(test_unreadable_inputs_name_the_cause),
        cmocka_unit_test(test_verify_stage_level_above_top_exits_2),
        cmocka_unit_test(test_verify_impossible_primes_exits_2),
        cmocka_unit_test(test_run_with_every_case_skipped_exits_2),
        cmocka_unit_test(test_contradicting_tier_and_cache_exit_2),
        cmocka_unit_test(test_custom_set_options_with_preset_exit_2),
        cmocka_unit_test(test_check_refuses_csv),
    };
    return cli_rows_main(argc, argv, "nb-res-", "cli_results", tests,
                         sizeof tests / sizeof tests[0], make_base);
}

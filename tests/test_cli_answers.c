/* Answers that claimed more than was done, or misled: `check` of two
 * empty files said OK, `report` wrote a methods paragraph of "nan" for a file
 * none of whose cases was timed and slipped in its wording, numeric options
 * worded one fault two ways, `primes` had a third wording for too few primes
 * and was silent for seconds, `compare` read a file holding more samples
 * than a run stores, `transform --out -` wrote raw binary to a terminal,
 * `calibrate --output` printed nothing, and `list` showed the 62-bit bound as
 * "<62"; `verify` that checked nothing passed, a stage-only run ignored the
 * NTT tiers' options, `compare` counted one file as several runs and judged
 * other machines' runs silently, and several messages named the wrong fault.
 * Each guard fails on the code before its fix;
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

/* Guards: a file whose cases were all skipped got a methods paragraph of
 * "timing mode -, 0 launch(es)", "noise 0.00..0.00 % (mean nan %)" and
 * "(0 of 0 passed)", with exit 0. */
static void test_report_of_no_timed_case_is_refused(void **state)
{
    (void)state;
    derive_cases("skipped.json", "{\"status\": \"skipped\", \"stats\": null, \"samples_ns\": "
                                 "\"DELETE\", \"samples_stored\": \"DELETE\"}");
    expect_error("report on a file whose cases were none timed",
                 (const char *[]){"report", at("skipped.json"), NULL}, 2,
                 "DIR/skipped.json: none of its 1 case was timed (skipped): nothing to report");
}

/* Guards: "on AMD EPYC (...), host AMD EPYC" named the CPU twice, "the warm,
 * cold tiers of a, b", "1 OpenMP threads" and "1 launch(es) per sample". */
static void test_report_wording(void **state)
{
    (void)state;
    json_t *j = load_json("base.json"), *cases = json_object_get(j, "cases");
    json_t *c = json_deep_copy(json_array_get(cases, 0));
    json_object_set_new(c, "tier", json_string("cold"));
    json_object_set_new(c, "variant", json_string("cpu-other"));
    json_array_append_new(cases, c);
    json_object_set_new(json_object_get(json_object_get(j, "environment"), "host"), "omp_threads",
                        json_integer(1));
    assert_int_equal(json_dump_file(j, at("two.json"), JSON_INDENT(1)), 0);
    json_decref(j);
    assert_int_equal(run_v((const char *[]){"report", at("two.json"), NULL}), 0);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "We timed the warm and cold tiers of cpu-harvey and cpu-other "
                                "with nttbench"));
    assert_null(strstr(out, ", host "));
    assert_non_null(strstr(out, "1 OpenMP thread,"));
    assert_non_null(strstr(out, "1 launch per sample"));
    assert_null(strstr(out, "(es)"));
    free(out);
}

/* Guards: an empty list value said "--logn needs a value" where a number
 * said "--batch '' is empty", and a list item out of range read "--logn: 0
 * outside" where a number read "--batch 0 outside". */
static void test_numeric_options_word_a_fault_one_way(void **state)
{
    (void)state;
    expect_error("empty list of numbers", (const char *[]){"run", "--logn", "", NULL}, 2,
                 "--logn '' is empty (a decimal number is expected)");
    expect_error("empty real number", (const char *[]){"run", "--min-time=", NULL}, 2,
                 "--min-time '' is empty (a decimal number is expected)");
    expect_error("list item out of range", (const char *[]){"run", "--limbs", "1,0", NULL}, 2,
                 "--limbs 0 outside [1, 4096]");
    expect_error("number out of range", (const char *[]){"run", "--batch", "0", NULL}, 2,
                 "--batch 0 outside [1, 100000]");
}

/* Guards: a --filter of stacked repetitions ('e+++...+', found by the
 * argument fuzzer) made regcomp take gigabytes; patterns are bounded before
 * they are compiled, and an ordinary one still works. */
static void test_filter_patterns_are_bounded(void **state)
{
    (void)state;
    expect_error("filter with stacked repetitions",
                 (const char *[]){"run", "--list", "--filter", "stage++++++++", NULL}, 2,
                 "--filter 'stage++++++++': a repetition of a repetition (such as 'a++' or "
                 "'a*{2}')");
    expect_error("filter with a large repetition count",
                 (const char *[]){"run", "--list", "--filter", "(ab){100}", NULL}, 2,
                 "--filter '(ab){100}': a repetition count above 64");
    expect_error("filter with nested repetitions",
                 (const char *[]){"run", "--list", "--filter", "(((a{64}){64}){64}){64}", NULL},
                 2, "--filter '(((a{64}){64}){64}){64}': repetitions nested too deep");
    assert_int_equal(run_v((const char *[]){"run", "--list", "--variant", "cpu-harvey", "--logn",
                                            "10", "--limbs", "1", "--filter", "^warm .*L=1 ",
                                            NULL}),
                     0);
    /* escaped parentheses and bracket expressions are single characters */
    assert_int_equal(run_v((const char *[]){"run", "--list", "--variant", "cpu-harvey", "--logn",
                                            "10", "--limbs", "1", "--filter",
                                            "warm|\\(x{64}\\){64}|[(]{64}", NULL}),
                     0);
}

/* Guards: too few primes of exactly B bits read "fewer than 3 primes q = 1
 * mod 2^4 have 8 bits", a third wording beside "only K primes ... are
 * available", which itself counted primes of fewer bits (5 below 2^8, of
 * which 2 have 8 bits); thousands of minimal roots took seconds without a
 * word. */
static void test_primes_say_how_many_have_the_bits(void **state)
{
    (void)state;
    expect_error("too few primes of exactly B bits",
                 (const char *[]){"primes", "--logn", "3", "--bits", "8", "--count", "3", NULL}, 2,
                 "only 2 primes q < 2^8 with q = 1 mod 2^4 and exactly 8 bits are available "
                 "(asked for 3)");
    expect_error("more primes than below 2^B",
                 (const char *[]){"primes", "--logn", "3", "--bits", "8", "--count", "30", NULL},
                 2, "only 2 primes q < 2^8 with q = 1 mod 2^4 and exactly 8 bits are available "
                    "(asked for 30)");
    assert_int_equal(run_v((const char *[]){"primes", "--logn", "17", "--bits", "62", "--count",
                                            "1024", NULL}),
                     0);
    char *e = slurp("err.txt");
    assert_string_equal(e, "nttbench: primes: the minimal roots of 1024 primes at N = 2^17 take "
                           "a few seconds...\n");
    free(e);
    assert_int_equal(run_v((const char *[]){"-q", "primes", "--logn", "17", "--count", "1024",
                                            NULL}),
                     0);
    e = slurp("err.txt");
    assert_string_equal(e, "");
    free(e);
}

/* Guards: a file whose samples_ns held more samples than nttbench stores
 * (12 million: 20 s and 940 MB to compare) was read as if a run had written
 * it. */
static void test_more_samples_than_stored_are_refused(void **state)
{
    (void)state;
    json_t *j = load_json("base.json"), *c = json_array_get(json_object_get(j, "cases"), 0);
    const double median = json_number_value(json_object_get(json_object_get(c, "stats"),
                                                             "median"));
    json_t *samples = json_array();
    for (int i = 0; i <= NB_REPORT_MAX_STORED_SAMPLES; i++)
        json_array_append_new(samples, json_real(median));
    json_object_set_new(c, "samples_ns", samples);
    json_object_set_new(c, "samples_stored", json_integer(NB_REPORT_MAX_STORED_SAMPLES + 1));
    json_object_set_new(c, "samples_selection", json_string("all"));
    json_object_set_new(json_object_get(c, "stats"), "samples",
                        json_integer(NB_REPORT_MAX_STORED_SAMPLES + 1));
    assert_int_equal(json_dump_file(j, at("cap.json"), 0), 0);
    json_decref(j);
    expect_error("result file with more samples than nttbench stores",
                 (const char *[]){"compare", at("base.json"), at("cap.json"), NULL}, 2,
                 "DIR/cap.json: case 0: 'samples_ns' holds 10001 samples; a run stores at most "
                 "10000 (a reservoir beyond that)");
}

/* Runs nttbench with args, its stdout a pseudo-terminal and its stderr
 * dir/err.txt; the exit code, or -1 when no pseudo-terminal opens here. The
 * child must write little: nothing reads the terminal. */
static int run_on_tty(const char *const *args)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
        if (master >= 0)
            close(master);
        return -1;
    }
    char slave[128], err[128];
    snprintf(slave, sizeof slave, "%s", ptsname(master));
    snprintf(err, sizeof err, "%s/err.txt", dir);
    const char *argv[64] = {exe};
    for (size_t n = 1; n < 63 && args[n - 1]; n++)
        argv[n] = args[n - 1];
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fs = open(slave, O_RDWR | O_NOCTTY);
        int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fs < 0 || fe < 0 || dup2(fs, 1) < 0 || dup2(fe, 2) < 0)
            _exit(127);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    close(master);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* Guards: `transform --out -` on a terminal wrote raw little-endian words to
 * it ('auto' picks raw for '-', which has no extension). */
static void test_transform_writes_no_raw_binary_to_a_terminal(void **state)
{
    (void)state;
    puts_file("in.txt", "1\n2\n");
    const char *args[] = {"transform", "--variant", "reference", "--direction", "forward",
                          "--logn", "1", "--primes", "5", "--in", at("in.txt"), "--out", "-",
                          NULL};
    const int rc = run_on_tty(args);
    if (rc < 0)
        skip(); /* no pseudo-terminal in this sandbox */
    char *e = slurp("err.txt");
    const char *want = "nttbench: error: --out - is a terminal: raw output is binary (give "
                       "--out-format text, or redirect standard output to a file)\n";
    if (rc != 2 || strcmp(e, want) != 0)
        fail_msg("transform --out - on a terminal: exit %d (want 2), stderr:\n%s", rc, e);
    free(e);
    if (table)
        fprintf(table, "raw output, standard output a terminal\t%s\t2\t%s",
                "transform --variant reference --direction forward --logn 1 --primes 5 --in "
                "DIR/in.txt --out -",
                want + strlen("nttbench: error: ")); /* `want` ends the row */
    const char *text[] = {"transform", "--variant", "reference", "--direction", "forward",
                          "--logn", "1", "--primes", "5", "--in", at("in.txt"), "--out", "-",
                          "--out-format", "text", NULL};
    assert_int_equal(run_on_tty(text), 0);
}

/* Guards: `calibrate --format json --output FILE` printed nothing on stdout
 * for a minute's work, where `run` also prints its short table. */
static void test_calibrate_to_a_file_prints_the_table(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){"--format", "json", "--output", at("cal.json"),
                                            "calibrate", "--backend", "cpu", "--min-time",
                                            "0.001", "--timeout", "0.05", "--min-samples", "3",
                                            "--warmup", "1", NULL}),
                     0);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "calibration (cpu"));
    assert_non_null(strstr(out, "hot vs cold copy"));
    free(out);
    json_t *j = load_json("cal.json");
    assert_string_equal(json_string_value(json_object_get(j, "schema")), "nttbench-calibration");
    json_decref(j);
}

/* Guards: `list` showed the bound of 64-bit variants as "<62" under "q bits",
 * which reads "fewer than 62 bits", while 62-bit primes (q < 2^62) pass. */
static void test_list_shows_the_prime_bound_as_the_bits_allowed(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){"list", NULL}), 0);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "64-bit  <=62    CPU CT/GS"));
    assert_null(strstr(out, "<62 "));
    free(out);
    assert_int_equal(run_v((const char *[]){"--format", "md", "list", NULL}), 0);
    out = slurp("out.txt");
    assert_non_null(strstr(out, "| 64-bit | <= 62 |"));
    free(out);
}

/* Guards: `verify` that checked nothing (every row skipped) exited 0, as a
 * pass; a CI gate built on it passed without a check. */
static void test_verify_that_checks_nothing_is_an_error(void **state)
{
    (void)state;
    expect_error("verify whose every check is skipped",
                 (const char *[]){"verify", "--stage", "rescale", "--preset", "test-tiny",
                                  "--variant", "cpu-harvey", "--level", "0", NULL},
                 2, "every stage check was skipped, nothing was checked (rescale needs level");
}

/* Guards: a stage-only run took --logn, --limbs, --direction, --bits and
 * --logq and ignored them, so it was taken for what it did not measure. */
static void test_stage_only_run_refuses_ntt_options(void **state)
{
    (void)state;
    static const char *const opts[][2] = {
        {"--limbs", "3"}, {"--direction", "inverse"}, {"--bits", "40"}, {"--logq", "100"},
        {"--logn", "12"}};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        char what[80];
        snprintf(what, sizeof what, "%s in a run of the stage tier only", opts[i][0]);
        expect_error(what,
                     (const char *[]){"run", "--tier", "stage", "--preset", "test-tiny", "--list",
                                      opts[i][0], opts[i][1], NULL},
                     2, "is an option of the NTT tiers, which this run does not time");
    }
    /* --logn sizes a custom set, and with an NTT tier both take their options */
    assert_int_equal(run_v((const char *[]){"run", "--tier", "stage", "--levels", "3", "--logn",
                                            "10", "--list", NULL}),
                     0);
    assert_int_equal(run_v((const char *[]){"run", "--tier", "ntt,stage", "--preset",
                                            "test-tiny", "--limbs", "3", "--list", NULL}),
                     0);
}

/* Guards: one file given twice on a side counted as two runs and narrowed the
 * interval into false verdicts; runs of other machines were judged with no
 * word. */
static void test_compare_counts_each_run_once_and_names_other_machines(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){"-q", "--format", "json", "--output", at("r1.json"),
                                            "run", "--variant", "cpu-harvey", "--tier", "warm",
                                            "--logn", "10", "--limbs", "1", "--min-time", "0.01",
                                            "--timeout", "0.2", NULL}),
                     0);
    char *r1 = slurp("r1.json");
    put("r2.json", r1, strlen(r1));
    free(r1);
    expect_error("the same run twice on one side of compare",
                 (const char *[]){"compare", at("r1.json"), at("r1.json"), "--", at("r2.json"),
                                  at("r2.json"), NULL},
                 2, "are the same file on one side: each run counts once");
    assert_int_equal(run_v((const char *[]){"compare", at("r1.json"), at("r1.json"), NULL}), 0);
    json_t *j = load_json("r2.json");
    json_t *host = json_object_get(json_object_get(j, "environment"), "host");
    assert_int_equal(json_object_set_new(host, "cpu", json_string("Another CPU")), 0);
    assert_int_equal(json_dump_file(j, at("other.json"), JSON_INDENT(1)), 0);
    json_decref(j);
    run_v((const char *[]){"compare", at("r1.json"), at("other.json"), NULL});
    char *e = slurp("err.txt");
    assert_non_null(strstr(e, "nttbench: warning: the runs come from different machines (host "
                              "CPU '"));
    assert_non_null(strstr(e, "' -> 'Another CPU'): a verdict compares the machines as well"));
    free(e);
}

/* Guards: messages that misled: `report FILE --bogus` said "report needs one
 * result file"; a directory as --calibration was a JSON parse error and a
 * missing one "(line -1)"; `check` of files of two sizes ended "FAIL: 0 of 2
 * values differ"; --word 16 said "outside [32, 64]" (48 is not allowed
 * either); --progress and --no-progress were both taken, the last winning;
 * transform --out '' named --output; a misspelt NB_NCCL_EXCHANGE passed
 * unseen where no GPU runs. */
static void test_messages_name_the_real_fault(void **state)
{
    (void)state;
    puts_file("r.json", "{}\n");
    expect_error("an unknown option of report",
                 (const char *[]){"report", at("r.json"), "--bogus", NULL}, 2,
                 "unknown option '--bogus'");
    expect_error("a directory as --calibration",
                 (const char *[]){"run", "--list", "--calibration", dir, NULL}, 2,
                 ": is a directory, not a calibration file");
    expect_error("a missing --calibration",
                 (const char *[]){"run", "--list", "--calibration", at("none.json"), NULL}, 2,
                 "none.json: cannot read a calibration: No such file or directory");
    puts_file("three.txt", "1\n2\n3\n");
    puts_file("two.txt", "1\n2\n");
    assert_int_equal(run_v((const char *[]){"check", "--expected", at("three.txt"), "--actual",
                                            at("two.txt"), NULL}),
                     1);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "FAIL: sizes differ (3 expected, 2 actual); 0 of the first 2"));
    free(out);
    expect_error("--word 16", (const char *[]){"run", "--list", "--word", "16", NULL}, 2,
                 "--word 16: 32 or 64 (bits per word)");
    expect_error("--progress with --no-progress",
                 (const char *[]){"run", "--list", "--progress", "--no-progress", NULL}, 2,
                 "--progress and --no-progress contradict each other: give one");
    expect_error("an empty --out of transform",
                 (const char *[]){"transform", "--variant", "reference", "--direction",
                                  "forward", "--logn", "10", "--primes", "12289", "--in",
                                  at("three.txt"), "--out", "", NULL},
                 2, "--out needs a file name");
    expect_error("the global --output given to transform",
                 (const char *[]){"--output", at("t.out"), "transform", "--variant", "reference",
                                  "--direction", "forward", "--logn", "10", "--primes", "12289",
                                  "--in", at("three.txt"), "--out", at("t.txt"), NULL},
                 2, "transform writes its coefficients to --out FILE");
    expect_error("the global --format given to transform",
                 (const char *[]){"--format", "json", "transform", "--variant", "reference",
                                  "--direction", "forward", "--logn", "10", "--primes", "12289",
                                  "--in", at("three.txt"), "--out", at("t.txt"), NULL},
                 2, "the global --format has no use there");
    setenv("NB_NCCL_EXCHANGE", "sendrecv", 1);
    table_env = "NB_NCCL_EXCHANGE=sendrecv";
    expect_error("a misspelt NB_NCCL_EXCHANGE",
                 (const char *[]){"run", "--tier", "stage", "--preset", "test-tiny", "--list",
                                  NULL},
                 2, "NB_NCCL_EXCHANGE='sendrecv': expected 'auto', 'broadcast', 'send-recv'");
    table_env = NULL;
    unsetenv("NB_NCCL_EXCHANGE");
}

/* Guards: options that shape what no case of the run does were silently
 * ignored (--tier warm --cold flush, --sets on a warm run, --batch in the
 * per-launch mode), and --filter '' (an empty shell variable) kept every case. */
static void test_options_that_shape_nothing_are_refused(void **state)
{
    (void)state;
    expect_error("--cold on a warm run", (const char *[]){"run", "--tier", "warm", "--cold",
                                                          "flush", NULL},
                 2, "which this run does not time (add --tier cold, or leave --cold out)");
    expect_error("--sets on a warm run", (const char *[]){"run", "--tier", "ntt", "--cache",
                                                          "warm", "--sets", "40", NULL},
                 2, "--sets 40 shapes the cold cache state, which this run does not time (add "
                    "cold to --cache, or leave --sets out)");
    expect_error("--batch in the per-launch mode", (const char *[]){"run", "--batch", "5", NULL},
                 2, "--batch 5 counts the launches of a sample in the batch and graph modes");
    expect_error("an empty --filter", (const char *[]){"run", "--list", "--filter", "", NULL}, 2,
                 "--filter '': an empty pattern keeps every case");
}

/* Guards: --stage kept a repeated name (run listed modup three times, verify
 * checked it twice), run skipped an empty item that verify refused, and an
 * unknown name did not say which option it came from. */
static void test_stage_lists_count_each_name_once(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){"run", "--list", "--tier", "stage", "--preset",
                                            "test-tiny", "--variant", "cpu-harvey", "--stage",
                                            "modup,modup,rescale,modup", NULL}),
                     0);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "cold cpu-harvey modup test-tiny l=3 per-launch\n"
                                "cold cpu-harvey rescale floor test-tiny l=3 per-launch\n"
                                "2 cases, estimated "));
    free(out);
    expect_error("an empty item in --stage",
                 (const char *[]){"run", "--tier", "stage", "--stage", "modup,,rescale", NULL}, 2,
                 "--stage 'modup,,rescale': empty list item");
    expect_error("an unknown stage",
                 (const char *[]){"run", "--tier", "stage", "--stage", "modupp", NULL}, 2,
                 "--stage 'modupp': modup, moddown, keyswitch or rescale");
    expect_error("an unknown stage to verify",
                 (const char *[]){"verify", "--stage", "modup,modupp", NULL}, 2,
                 "--stage 'modupp': modup, moddown, keyswitch or rescale");
}

/* Guards: --list estimated the time of a case whose buffer sets cannot fit
 * the host's memory, which the run itself then refused. */
static void test_list_marks_a_case_that_cannot_fit(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){"run", "--list", "--variant", "cpu-harvey", "--tier",
                                            "cold", "--logn", "14", "--limbs", "64", "--sets",
                                            "100000", NULL}),
                     0);
    char *out = slurp("out.txt");
    /* the bytes include the flush scratch, 2x this host's last-level cache */
    assert_non_null(strstr(out, "logQ=3840.0 per-launch  [will not fit: it needs 78"));
    assert_non_null(strstr(out, " GiB available]"));
    assert_non_null(strstr(out, "1 case (1 will not fit the memory), estimated 0.0s"));
    free(out);
    /* the tables and staging the run checks first: 36 GiB here */
    long long avail_kib = 0;
    FILE *m = fopen("/proc/meminfo", "r");
    char line[256];
    while (m && fgets(line, sizeof line, m))
        if (sscanf(line, "MemAvailable: %lld kB", &avail_kib) == 1)
            break;
    if (m)
        fclose(m);
    assert_int_equal(run_v((const char *[]){"run", "--list", "--variant", "cpu-harvey", "--tier",
                                            "warm", "--logn", "17", "--limbs", "4096,1", NULL}),
                     0);
    out = slurp("out.txt");
    if (avail_kib > 0 && avail_kib < 36LL << 20) {
        assert_non_null(strstr(out, "L=4096 q60 w64 logQ=245760.0 per-launch  [will not fit: it "
                                    "needs 40.0 GiB (42949672960 bytes) of host memory, "));
        assert_non_null(strstr(out, "2 cases (1 will not fit the memory), estimated "));
    }
    assert_null(strstr(out, "L=1 q60 w64 logQ=60.0 per-launch  ["));
    free(out);
}

/* Guards: --list showed a case whose primes do not exist as if it would run;
 * the run then ended it as an error row under a garbled message. */
static void test_list_marks_a_case_that_will_fail(void **state)
{
    (void)state;
    const char *const args[] = {"run", "--variant", "cpu-harvey", "--tier", "warm", "--logn",
                                "17", "--logq", "100", "--bits", "20", "--no-progress",
                                "--timeout", "0.2", "--list", NULL};
    const size_t n_args = sizeof args / sizeof args[0];
    assert_int_equal(run_v(args), 0);
    char *out = slurp("out.txt");
    const char *why = "log Q 100 with 20-bit primes at log N 17: only 1 prime q < 2^20 with "
                      "q = 1 mod 2^18 and exactly 20 bits is available, 19.6 bits in all";
    char want[300];
    snprintf(want, sizeof want, "fwd logn=17 logQ~100 q20 w64 per-launch  [will fail: %s]\n",
             why);
    assert_non_null(strstr(out, want));
    assert_non_null(strstr(out, "1 case (1 will fail), estimated 0.0s"));
    free(out);
    const char *run[sizeof args / sizeof args[0]];
    memcpy(run, args, sizeof run);
    run[n_args - 2] = NULL; /* the same line without --list */
    expect_error("a case whose primes do not exist", run, 2, why);
    /* the same with the limbs given rather than a log Q */
    assert_int_equal(run_v((const char *[]){"run", "--variant", "cpu-harvey", "--tier", "warm",
                                            "--logn", "16", "--limbs", "10", "--bits", "20",
                                            "--list", NULL}),
                     0);
    out = slurp("out.txt");
    assert_non_null(strstr(out, "fwd logn=16 L=10 q20 w64 per-launch  [will fail: only 1 prime "
                                "q < 2^20 with q = 1 mod 2^17 and exactly 20 bits is available "
                                "(asked for 10)]\n"));
    free(out);
}

/* dir/NAME: dir/r1.json (test_compare_counts_each_run_once_...) with its
 * first case's key `key` set to the JSON value `value` (NULL: removed). */
static void edit_first_case(const char *name, const char *key, json_t *value)
{
    json_t *j = load_json("r1.json");
    json_t *c = json_array_get(json_object_get(j, "cases"), 0);
    assert_non_null(c);
    if (value)
        assert_int_equal(json_object_set_new(c, key, value), 0);
    else
        json_object_set_new(c, key, json_null());
    assert_int_equal(json_dump_file(j, at(name), JSON_INDENT(1)), 0);
    json_decref(j);
}

/* Guards: a damaged report was still read: an unknown status or tier, a
 * timed case without statistics (judged on its samples), and two runs whose
 * cases differ in one parameter were refused without naming it. */
static void test_damaged_reports_and_unmatched_runs_say_why(void **state)
{
    (void)state;
    edit_first_case("weird.json", "status", json_string("weird"));
    expect_error("a case whose status is unknown",
                 (const char *[]){"report", at("weird.json"), NULL}, 2,
                 "case 0: status 'weird' is none of ok, verify-failed, error, skipped");
    edit_first_case("hot.json", "tier", json_string("hot"));
    expect_error("a case whose tier is unknown",
                 (const char *[]){"compare", at("r1.json"), at("hot.json"), NULL}, 2,
                 "case 0: tier 'hot' is none of warm, cold, stage");
    edit_first_case("nostats.json", "stats", NULL);
    expect_error("a timed case without statistics",
                 (const char *[]){"compare", at("r1.json"), at("nostats.json"), NULL}, 2,
                 "case 0: timed (status ok, samples) but without statistics");
    json_t *j = load_json("r1.json");
    json_t *params = json_object_get(json_array_get(json_object_get(j, "cases"), 0), "params");
    assert_int_equal(json_object_set_new(params, "log_q_target", json_integer(60)), 0);
    assert_int_equal(json_dump_file(j, at("target.json"), JSON_INDENT(1)), 0);
    json_decref(j);
    expect_error("runs whose cases differ in one parameter",
                 (const char *[]){"compare", at("r1.json"), at("target.json"), NULL}, 2,
                 "differs: params.log_q_target - -> 60; try --ignore log_q_target)");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_of_two_empty_files_is_an_error),
        cmocka_unit_test(test_report_of_no_timed_case_is_refused),
        cmocka_unit_test(test_report_wording),
        cmocka_unit_test(test_numeric_options_word_a_fault_one_way),
        cmocka_unit_test(test_primes_say_how_many_have_the_bits),
        cmocka_unit_test(test_more_samples_than_stored_are_refused),
        cmocka_unit_test(test_transform_writes_no_raw_binary_to_a_terminal),
        cmocka_unit_test(test_calibrate_to_a_file_prints_the_table),
        cmocka_unit_test(test_list_shows_the_prime_bound_as_the_bits_allowed),
        cmocka_unit_test(test_filter_patterns_are_bounded),
        cmocka_unit_test(test_verify_that_checks_nothing_is_an_error),
        cmocka_unit_test(test_stage_only_run_refuses_ntt_options),
        cmocka_unit_test(test_compare_counts_each_run_once_and_names_other_machines),
        cmocka_unit_test(test_damaged_reports_and_unmatched_runs_say_why),
        cmocka_unit_test(test_stage_lists_count_each_name_once),
        cmocka_unit_test(test_options_that_shape_nothing_are_refused),
        cmocka_unit_test(test_list_marks_a_case_that_cannot_fit),
        cmocka_unit_test(test_list_marks_a_case_that_will_fail),
        cmocka_unit_test(test_messages_name_the_real_fault),
    };
    return cli_rows_main(argc, argv, "nb-ans-", "cli_answers", tests,
                         sizeof tests / sizeof tests[0], make_quick_base);
}

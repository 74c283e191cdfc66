/* Where nttbench writes and what survives: --output through symlinks,
 * FIFOs, /dev/stdout and devices (never replaced), a directory refused, `check`
 * honouring --output; an --output that is also an input refused, an earlier
 * result kept by a run that timed nothing; a sweep interrupted by SIGINT or
 * SIGTERM (also sent twice, as `timeout` does) keeping its finished cases
 * (exit 130 / 143, no temporary left); a failing case recorded
 * while the sweep goes on; seeds recorded exactly (all 64 bits) and a run
 * repeated from the recorded seed; a CPU + GPU list in `run` naming the GPU
 * variant. Rejected inputs are rows of the bad-input table (clirows.h).
 * argv: NTTBENCH TABLE-FILE. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
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

static const char *const max_seed = "18446744073709551615"; /* 2^64 - 1 */

/* 1 if dir/NAME contains `needle`. */
static int file_has(const char *name, const char *needle)
{
    char *s = slurp(name);
    int ok = strstr(s, needle) != NULL;
    free(s);
    return ok;
}

/* Number of entries of `dir` whose name contains ".tmp.". */
static int temporaries_left(void)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strstr(e->d_name, ".tmp.") != NULL;
    closedir(d);
    return n;
}

/* ------------------------------------------------------------- output paths */

/* Guards: a symlink at --output was replaced by a regular file. */
static void test_output_follows_symlink(void **state)
{
    (void)state;
    puts_file("target.csv", "old\n");
    assert_int_equal(symlink("target.csv", at("link.csv")), 0);
    assert_int_equal(run_v((const char *[]){"--format", "csv", "--output", at("link.csv"), "run",
                                            QUICK, NULL}),
                     0);
    struct stat st;
    assert_int_equal(lstat(at("link.csv"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_true(file_has("target.csv", "cpu-harvey"));
    assert_int_equal(temporaries_left(), 0);
}

/* Guards: --output /dev/stdout printed nothing (a rename was attempted, and
 * as root it replaced the system's /dev/stdout). As root the end-to-end check
 * uses /proc/self/fd/1, where a faulty rename cannot land; /dev/stdout itself
 * is then checked through its classification only. */
static void test_output_dev_stdout_prints(void **state)
{
    (void)state;
    const char *path = geteuid() == 0 ? "/proc/self/fd/1" : "/dev/stdout";
    assert_int_equal(
        run_v((const char *[]){"--format", "csv", "--output", path, "run", QUICK, NULL}), 0);
    assert_true(file_has("out.txt", "tier,variant,backend"));
    char resolved[PATH_MAX];
    nb_output_kind k;
    assert_int_equal(nb_output_classify("/dev/stdout", &k, resolved), NB_OK);
    assert_int_equal(k, NB_OUTPUT_STDOUT);
}

/* Guards: a FIFO at --output was replaced by a regular file. */
static void test_output_fifo_is_written_through(void **state)
{
    (void)state;
    assert_int_equal(mkfifo(at("pipe"), 0600), 0);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "timeout 60 cat %s/pipe >%s/got.txt &", dir, dir);
    assert_int_equal(system(cmd), 0);
    int rc = run_v((const char *[]){"--format", "csv", "--output", at("pipe"), "run", QUICK, NULL});
    struct stat st;
    assert_int_equal(lstat(at("pipe"), &st), 0);
    if (!S_ISFIFO(st.st_mode)) {
        unlink(at("pipe"));
        fail_msg("the FIFO was replaced (exit %d)", rc);
    }
    assert_int_equal(rc, 0);
    for (int i = 0; i < 200 && !file_has("got.txt", "cpu-harvey"); i++)
        usleep(50000); /* the reader flushes when the writer closes */
    assert_true(file_has("got.txt", "cpu-harvey"));
}

/* Where each kind of path leads: devices (also behind a symlink) are written
 * through, never replaced, and never created under /dev or /proc; regular
 * files and new paths are replaced. */
static void test_output_classification(void **state)
{
    (void)state;
    char resolved[PATH_MAX];
    nb_output_kind k;
    assert_int_equal(nb_output_classify("/dev/null", &k, resolved), NB_OK);
    assert_int_equal(k, NB_OUTPUT_STREAM);
    assert_int_equal(symlink("/dev/null", at("null-link")), 0);
    assert_int_equal(nb_output_classify(at("null-link"), &k, resolved), NB_OK);
    assert_int_equal(k, NB_OUTPUT_STREAM);
    assert_string_equal(resolved, "/dev/null");
    assert_int_equal(nb_output_classify("-", &k, resolved), NB_OK);
    assert_int_equal(k, NB_OUTPUT_STDOUT);
    puts_file("plain.json", "{}\n");
    assert_int_equal(nb_output_classify(at("plain.json"), &k, resolved), NB_OK);
    assert_int_equal(k, NB_OUTPUT_REGULAR);
    assert_int_equal(nb_output_classify(at("new.json"), &k, resolved), NB_OK);
    assert_int_equal(k, NB_OUTPUT_NEW);
    assert_int_equal(symlink("dangling-target.json", at("dangling")), 0);
    assert_int_equal(nb_output_classify(at("dangling"), &k, resolved), NB_OK);
    assert_int_equal(k, NB_OUTPUT_NEW);
    assert_string_equal(resolved, at("dangling-target.json"));
    assert_int_equal(nb_output_classify(dir, &k, resolved), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_output_classify(at("no-such-folder/r.json"), &k, resolved),
                     NB_ERR_INVALID_ARG);
    /* under /dev or /proc a path is written through: one that is not there is refused */
    assert_int_equal(nb_output_classify("/proc/nb-no-such-file.json", &k, resolved),
                     NB_ERR_INVALID_ARG);
    assert_int_equal(nb_output_classify("/dev/nb-no-such-device", &k, resolved),
                     NB_ERR_INVALID_ARG);
    assert_int_equal(access("/dev/nb-no-such-device", F_OK), -1);
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
}

/* Guards: a directory at --output was found only after the whole sweep. */
static void test_output_directory_is_refused(void **state)
{
    (void)state;
    mkdir(at("folder"), 0700);
    expect_error("a directory as --output",
                 (const char *[]){"--output", at("folder"), "run", QUICK, NULL}, 2,
                 "output 'DIR/folder' is a directory");
    expect_error("--output in a folder that does not exist",
                 (const char *[]){"--output", at("none/r.json"), "verify", NULL}, 2,
                 "does not exist");
}

/* Guards: `check` ignored the global --output. */
static void test_check_honours_output(void **state)
{
    (void)state;
    puts_file("a.txt", "1\n2\n");
    assert_int_equal(run_v((const char *[]){"--format", "json", "--output", at("c.json"), "check",
                                            "--expected", at("a.txt"), "--actual", at("a.txt"),
                                            NULL}),
                     0);
    json_t *j = load_json("c.json");
    assert_true(json_is_true(json_object_get(j, "equal")));
    json_decref(j);
}

/* Guards: `compare A B --output A` replaced the run report A with the
 * comparison (and `report`, `check` likewise their inputs, and any command
 * the plug-in it loads); `--plugin ''` was a load failure (exit 3). */
static void test_output_that_is_an_input_is_refused(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){"-q", "--format", "json", "--output", at("a.json"),
                                            "run", QUICK, NULL}),
                     0);
    char *before = slurp("a.json");
    put("b.json", before, strlen(before));
    puts_file("c.txt", "1\n2\n");
    puts_file("d.txt", "1\n2\n");
    char actual[300];
    snprintf(actual, sizeof actual, "--actual=%s", at("c.txt"));
    expect_error("--output naming an input of compare",
                 (const char *[]){"compare", at("a.json"), at("b.json"), "--output", at("a.json"),
                                  NULL},
                 2, "is also an input of compare");
    expect_error("--output naming an input of report, written another way",
                 (const char *[]){"--output", at("./a.json"), "report", at("a.json"), NULL}, 2,
                 "is also an input of report");
    expect_error("--output naming an option's file",
                 (const char *[]){"check", "--expected", at("d.txt"), actual, "--output",
                                  at("c.txt"), NULL},
                 2, "is also an input of check");
    char *after = slurp("a.json");
    assert_string_equal(before, after);
    free(before);
    free(after);
    /* a plug-in is an input too: checked before it is loaded */
    puts_file("p.so", "a shared object\n");
    expect_error("--output naming the plug-in",
                 (const char *[]){"--plugin", at("p.so"), "--output", at("p.so"), "list", NULL},
                 2, "is the plug-in");
    after = slurp("p.so");
    assert_string_equal(after, "a shared object\n");
    free(after);
    expect_error("an empty --plugin", (const char *[]){"--plugin", "", "list", NULL}, 2,
                 "--plugin needs a file name");
}

/* Guards: a run that timed nothing (every case skipped, exit 2) replaced an
 * earlier result at --output. */
static void test_failed_run_keeps_an_earlier_result(void **state)
{
    (void)state;
    puts_file("earlier.json", "{\"an earlier\": \"result\"}\n");
    expect_error("a run that timed nothing, over an earlier result",
                 (const char *[]){"--format", "json", "--output", at("earlier.json"), "run",
                                  QUICK, "--mode", "graph", "--no-progress", NULL},
                 2, "was left as it was");
    char *kept = slurp("earlier.json");
    assert_string_equal(kept, "{\"an earlier\": \"result\"}\n");
    free(kept);
    assert_int_equal(temporaries_left(), 0);
}

/* ------------------------------------------------------------- interrupted sweeps */

/* Starts `nttbench --format json --output dir/NAME run --variant cpu-harvey
 * --tier warm ARGS...` (NULL-terminated, at most 12) in the background on one
 * thread, stderr to dir/err.txt; returns its pid. */
static pid_t start_run(const char *name, const char *const *args)
{
    const char *argv[24] = {exe, "--format", "json", "--output", at(name), "run",
                            "--variant", "cpu-harvey", "--tier", "warm"};
    size_t n = 10;
    for (size_t i = 0; args[i] && n < 23; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen(at("err.txt"), "w", stderr))
            _exit(127);
        setenv("OMP_NUM_THREADS", "1", 1);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Starts a long sweep writing dir/NAME, waits until the first case is in the
 * file, sends `sig` (`times` times back to back, as `timeout` signals the
 * process and then its process group) and returns the exit code. */
static int interrupt_sweep_n(const char *name, int sig, int times)
{
    const pid_t pid = start_run(name, (const char *[]){"--logn", "10:16", "--limbs", "1,2,4,8",
                                                       "--min-time", "0.3", NULL});
    struct stat st;
    for (int i = 0; i < 1200 && stat(at(name), &st) != 0; i++)
        usleep(50000);
    for (int i = 0; i < times; i++)
        kill(pid, sig);
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    if (!WIFEXITED(ws))
        fail_msg("killed by signal %d instead of exiting", WTERMSIG(ws));
    return WEXITSTATUS(ws);
}

static int interrupt_sweep(const char *name, int sig) { return interrupt_sweep_n(name, sig, 1); }

/* Checks the interrupted report and records its row. */
static void check_interrupted(const char *name, int rc, int want, const char *sig)
{
    char *e = slurp("err.txt");
    hide_dir(e);
    if (rc != want || !strstr(e, "nttbench: error: interrupted by "))
        fail_msg("exit %d (want %d), stderr: %s", rc, want, e);
    json_t *j = load_json(name);
    assert_true(json_is_true(json_object_get(j, "interrupted")));
    json_t *cases = json_object_get(j, "cases");
    size_t i, ok = 0;
    json_t *c;
    json_array_foreach(cases, i, c) ok += !strcmp(json_string_value(json_object_get(c, "status")),
                                                  "ok");
    assert_true(ok >= 1);
    assert_true(json_array_size(cases) < 28); /* cut short */
    json_decref(j);
    assert_int_equal(temporaries_left(), 0);
    char *line = strstr(e, "nttbench: error: ");
    line[strcspn(line, "\n")] = '\0';
    char *count = strstr(line, "holds the "); /* how many finished depends on timing */
    assert_non_null(count);
    count += 10;
    size_t digits = strspn(count, "0123456789");
    assert_true(digits > 0);
    *count = 'N';
    memmove(count + 1, count + digits, strlen(count + digits) + 1);
    if (table)
        fprintf(table, "%s during a sweep\t--format json --output DIR/%s run --logn 10:16 ...\t"
                       "%d\t%s\n",
                sig, name, rc, line + 17);
    free(e);
}

/* Guards: SIGINT lost every finished case (the report was written at the end). */
static void test_sigint_keeps_finished_cases(void **state)
{
    (void)state;
    check_interrupted("int.json", interrupt_sweep("int.json", SIGINT), 130, "SIGINT");
}

static void test_sigterm_keeps_finished_cases(void **state)
{
    (void)state;
    check_interrupted("term.json", interrupt_sweep("term.json", SIGTERM), 143, "SIGTERM");
}

/* Guards: the same signal twice in a row (`timeout` without --foreground)
 * killed the sweep before it wrote its report. */
static void test_signal_sent_twice_is_one_interruption(void **state)
{
    (void)state;
    check_interrupted("twice.json", interrupt_sweep_n("twice.json", SIGTERM, 2), 143,
                      "SIGTERM twice");
}

/* Guards: an interrupt within the first case, after some of its samples,
 * replaced a complete earlier result at --output with that one unfinished
 * case. */
static void test_interrupt_in_the_first_case_keeps_an_earlier_result(void **state)
{
    (void)state;
    puts_file("before.json", "{\"an earlier\": \"result\"}\n");
    const pid_t pid =
        start_run("before.json", (const char *[]){"--logn", "16", "--limbs", "2", "--min-time",
                                                  "60", "--timeout", "60", "--no-progress", NULL});
    sleep(3); /* the case is sampling by then */
    kill(pid, SIGTERM);
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 143);
    char *e = slurp("err.txt"), *kept = slurp("before.json");
    if (!strstr(e, "was left as it was"))
        fail_msg("stderr: %s", e);
    assert_string_equal(kept, "{\"an earlier\": \"result\"}\n");
    hide_dir(e);
    char *line = strstr(e, "nttbench: error: ");
    assert_non_null(line);
    line[strcspn(line, "\n")] = '\0';
    if (table)
        fprintf(table, "SIGTERM within the first case, over an earlier result\t--format json "
                       "--output DIR/before.json run --logn 16 --limbs 2 --min-time 60 ...\t"
                       "143\t%s\n",
                line + 17);
    free(e);
    free(kept);
    assert_int_equal(temporaries_left(), 0);
}

/* Guards: an out-of-memory case stopped the sweep and dropped the report.
 * The case that cannot fit the address-space limit is now refused before it
 * allocates (a size that cannot fit is bad input: exit 2); the sweep still
 * records it and goes on to the next case. */
static void test_failing_case_keeps_sweep_going(void **state)
{
    (void)state;
#ifdef __SANITIZE_ADDRESS__
    skip(); /* AddressSanitizer reserves more address space than the ulimit below allows */
#endif
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "ulimit -v 1500000; OMP_NUM_THREADS=1 %s --format json --output %s/oom.json run "
             "--variant cpu-harvey --tier warm --logn 16 --limbs 4096,1 --min-time 0.01 "
             "--timeout 1 >/dev/null 2>%s/err.txt",
             exe, dir, dir);
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 2);
    json_t *j = load_json("oom.json");
    json_t *cases = json_object_get(j, "cases");
    assert_int_equal(json_array_size(cases), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(cases, 0), "status")),
                        "error");
    assert_non_null(strstr(json_string_value(json_object_get(json_array_get(cases, 0), "message")),
                           "of host memory"));
    assert_string_equal(json_string_value(json_object_get(json_array_get(cases, 1), "status")),
                        "ok");
    json_decref(j);
    assert_int_equal(temporaries_left(), 0);
}

/* ------------------------------------------------------------- seeds */

/* The "seed" of a JSON object as a string (the test fails when it is not one). */
static const char *seed_of(json_t *o)
{
    json_t *s = json_object_get(o, "seed");
    if (!json_is_string(s))
        fail_msg("seed is not a decimal string");
    return json_string_value(s);
}

/* Guards: the JSON cleared the seed's top bit (2^64 - 1 became 2^63 - 1). */
static void test_seed_recorded_exactly(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){"--format", "json", "--output", at("v.json"),
                                            "verify", "--variant", "cpu-harvey", "--logn", "10",
                                            "--limbs", "1", "--bits", "36", "--seed", max_seed,
                                            NULL}),
                     0);
    json_t *j = load_json("v.json");
    assert_string_equal(seed_of(j), max_seed);
    json_decref(j);
    assert_int_equal(run_v((const char *[]){"--format", "json", "--output", at("r.json"), "run",
                                            QUICK, "--seed", max_seed, NULL}),
                     0);
    j = load_json("r.json");
    json_t *params = json_object_get(json_array_get(json_object_get(j, "cases"), 0), "params");
    assert_string_equal(seed_of(params), max_seed);
    json_decref(j);
}

/* Guards: the stage tier's seed went negative (it recorded seed + k * 0x9E37);
 * it records the run's --seed now, which draws the same inputs again. */
static void test_stage_seed_stays_unsigned(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){"--format", "json", "--output", at("s.json"), "run",
                                            "--tier", "stage", "--variant", "cpu-harvey",
                                            "--preset", "test-tiny", "--stage", "rescale",
                                            "--min-time", "0.01", "--timeout", "1", "--seed",
                                            max_seed, NULL}),
                     0);
    json_t *j = load_json("s.json");
    json_t *params = json_object_get(json_array_get(json_object_get(j, "cases"), 0), "params");
    assert_string_equal(seed_of(params), max_seed); /* a decimal without a sign */
    json_decref(j);
}

/* A time-based seed read back from the report reproduces the run: the same
 * recorded seed, and the same verification outcome of the same inputs. */
static void test_recorded_seed_reproduces_run(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){"--format", "json", "--output", at("t1.json"),
                                            "verify", "--variant", "cpu-harvey", "--logn", "10",
                                            "--limbs", "2", NULL}),
                     0);
    json_t *a = load_json("t1.json");
    char seed[32];
    snprintf(seed, sizeof seed, "%s", seed_of(a));
    assert_int_equal(run_v((const char *[]){"--format", "json", "--output", at("t2.json"),
                                            "verify", "--variant", "cpu-harvey", "--logn", "10",
                                            "--limbs", "2", "--seed", seed, NULL}),
                     0);
    json_t *b = load_json("t2.json");
    assert_string_equal(seed_of(b), seed);
    assert_true(json_equal(json_object_get(a, "checks"), json_object_get(b, "checks")));
    json_decref(a);
    json_decref(b);
}

/* ------------------------------------------------------------- messages */

/* Guards: `run` with a CPU + GPU list and no GPU said "gpu", not the variant. */
static void test_run_mixed_list_names_gpu_variant(void **state)
{
    (void)state;
    expect_gpu_variant_named("GPU variant in the list of run, no GPU", "run", "--logn");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_follows_symlink),
        cmocka_unit_test(test_output_dev_stdout_prints),
        cmocka_unit_test(test_output_fifo_is_written_through),
        cmocka_unit_test(test_output_classification),
        cmocka_unit_test(test_output_directory_is_refused),
        cmocka_unit_test(test_check_honours_output),
        cmocka_unit_test(test_output_that_is_an_input_is_refused),
        cmocka_unit_test(test_failed_run_keeps_an_earlier_result),
        cmocka_unit_test(test_sigint_keeps_finished_cases),
        cmocka_unit_test(test_sigterm_keeps_finished_cases),
        cmocka_unit_test(test_signal_sent_twice_is_one_interruption),
        cmocka_unit_test(test_interrupt_in_the_first_case_keeps_an_earlier_result),
        cmocka_unit_test(test_failing_case_keeps_sweep_going),
        cmocka_unit_test(test_seed_recorded_exactly),
        cmocka_unit_test(test_stage_seed_stays_unsigned),
        cmocka_unit_test(test_recorded_seed_reproduces_run),
        cmocka_unit_test(test_run_mixed_list_names_gpu_variant),
    };
    return cli_rows_main(argc, argv, "nb-io-", "cli_io", tests, sizeof tests / sizeof tests[0],
                         NULL);
}

/* Usage the command line used to misread silently or answer misleadingly: an
 * option given twice (the last one won), a name repeated in a list (the case
 * ran twice), stage options in a run without the stage tier (ignored),
 * `--direction both` (refused by a message that offered it), a zero-padded
 * coefficient, the count of primes ("1 primes"), a plug-in error naming an
 * internal code, a report silent about contended cases, and result files
 * whose cases lack params or samples, or do not match, and malformed
 * NB_HOST_LLC_BYTES and NCCL settings. Each guard fails on
 * the code before its fix; rejected inputs are rows of the bad-input table
 * (clirows.h). argv: NTTBENCH TABLE-FILE. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/cli/cli.h"
#include "ntt/builtin.h"
#pragma GCC diagnostic ignored "-Wunused-function" /* shared helpers this file does not use */
#include "testutil.h"
#include "cliutil.h"
#include "clirows.h"

#define QUICK "--tier", "warm", "--logn", "10", "--limbs", "1", "--min-time", "0.01", \
              "--timeout", "1"

/* Guards: a second --variant (or --threshold, --logn) replaced the first
 * without a word; a second --output wrote one report and dropped the other. */
static void test_option_given_twice_is_refused(void **state)
{
    (void)state;
    expect_error("--variant given twice",
                 (const char *[]){"run", "--variant", "cpu-harvey", "--variant",
                                  "cpu-harvey32", NULL},
                 2, "--variant given twice: give it once (a list takes commas: --variant A,B)");
    expect_error("--threshold given twice",
                 (const char *[]){"compare", at("base.json"), at("base.json"), "--threshold",
                                  "1", "--threshold=2", NULL},
                 2, "--threshold given twice: give it once");
    expect_error("--output given twice",
                 (const char *[]){"--output", at("a.json"), "list", "--output", at("b.json"),
                                  NULL},
                 2, "--output given twice ('DIR/a.json', then 'DIR/b.json'): give it once");
    expect_error("--format given twice",
                 (const char *[]){"--format", "csv", "list", "--format", "json", NULL}, 2,
                 "--format given twice ('csv', then 'json'): give it once");
    expect_error("--plugin given twice with the same file",
                 (const char *[]){"--plugin", at("p.so"), "--plugin", at("p.so"), "list", NULL},
                 2, "--plugin given twice");
    FILE *f = fopen(at("p2.so"), "w"); /* one file, two spellings: the same plug-in */
    assert_non_null(f);
    fclose(f);
    char other[300];
    snprintf(other, sizeof other, "%s/./p2.so", dir);
    expect_error("--plugin given twice, spelled two ways",
                 (const char *[]){"--plugin", at("p2.so"), "--plugin", other, "list", NULL}, 2,
                 "--plugin given twice ('DIR/p2.so', then 'DIR/./p2.so')");
}

/* Guards: `--variant cpu-harvey,cpu-harvey` timed the case twice (a repeated
 * --logn value ran once). */
static void test_name_repeated_in_a_list_runs_once(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){"-q", "--format", "json", "--output", at("rep.json"),
                                            "run", "--variant", "cpu-harvey,cpu-harvey", QUICK,
                                            NULL}),
                     0);
    json_t *j = load_json("rep.json");
    assert_int_equal(json_array_size(json_object_get(j, "cases")), 1);
    json_decref(j);
}

/* Guards: --preset, --stage, ... in a run without the stage tier were
 * ignored; `--direction both` was refused by a message that offered "both". */
static void test_stage_options_and_direction_both(void **state)
{
    (void)state;
    expect_error("stage option without the stage tier",
                 (const char *[]){"run", "--tier", "warm", "--preset", "test-tiny", NULL}, 2,
                 "--preset is an option of the stage tier, which this run does not time (add "
                 "--tier stage, or leave --preset out)");
    expect_error("unknown direction",
                 (const char *[]){"run", "--direction", "sideways", NULL}, 2,
                 "--direction 'sideways': forward, inverse, forward,inverse or both");
    assert_int_equal(run_v((const char *[]){"--format", "json", "verify", "--variant",
                                            "cpu-harvey", "--direction", "both", "--logn", "10",
                                            "--limbs", "1", "--bits", "36", NULL}),
                     0);
    json_t *j = load_json("out.txt");
    assert_int_equal(json_array_size(json_object_get(j, "checks")), 2);
    json_decref(j);
}

/* Guards: "0007" in a coefficient file got the generic syntax message, not
 * the leading-zero one options get; "only 1 primes ... are"; "no prime ...
 * mod 2N for log_n=16", a third wording of the same condition; a plug-in
 * failure ended in "(NB_ERR_INVALID_ARG)". */
static void test_messages_say_what_is_wrong(void **state)
{
    (void)state;
    puts_file("z.txt", "0007\n");
    expect_error("zero-padded coefficient",
                 (const char *[]){"check", "--expected", at("z.txt"), "--actual", at("z.txt"),
                                  NULL},
                 2, "DIR/z.txt:1: '0007' has a leading zero (decimal only: write it without)");
    expect_error("one prime where three are asked for",
                 (const char *[]){"primes", "--logn", "17", "--bits", "20", "--count", "3", NULL},
                 2, "only 1 prime q < 2^20 with q = 1 mod 2^18 and exactly 20 bits is available "
                    "(asked for 3)");
    expect_error("no prime of the size",
                 (const char *[]){"primes", "--logn", "16", "--bits", "16", "--count", "1", NULL},
                 2, "only 0 primes q < 2^16 with q = 1 mod 2^17 and exactly 16 bits are available "
                    "(asked for 1)");
    char bin[512], rel[600], plugin[PATH_MAX], copy[300];
    snprintf(bin, sizeof bin, "%s", exe);
    snprintf(rel, sizeof rel, "%s/../../tests/libnb_plugin_example.so", dirname(bin));
    snprintf(copy, sizeof copy, "%s", at("copied-plugin.so"));
    char *bytes = realpath(rel, plugin) ? nb_test_read_file(plugin) : NULL;
    if (!bytes)
        skip(); /* the example plug-in is built beside the tests */
    FILE *f = fopen(copy, "wb"); /* another file with the same variants */
    assert_non_null(f);
    struct stat st;
    assert_int_equal(stat(plugin, &st), 0);
    assert_int_equal(fwrite(bytes, 1, (size_t)st.st_size, f), (size_t)st.st_size);
    fclose(f);
    free(bytes);
    assert_int_equal(run_v((const char *[]){"--plugin", plugin, "--plugin", copy, "list", NULL}),
                     3);
    char *e = slurp("err.txt");
    assert_non_null(strstr(e, "failed to initialise: variant 'example-naive' is already "
                              "registered"));
    assert_null(strstr(e, "NB_ERR"));
    free(e);
}

/* Guards: report's methods paragraph never said that the host was contended
 * while every case was timed. */
static void test_report_names_contended_cases(void **state)
{
    (void)state;
    derive_cases("busy.json", "{\"contended\": true}");
    derive_cases("quiet.json", "{\"contended\": false}");
    assert_int_equal(run_v((const char *[]){"report", at("busy.json"), NULL}), 0);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "The host was contended during 1 of the 1 timed cases"));
    free(out);
    assert_int_equal(run_v((const char *[]){"report", at("quiet.json"), NULL}), 0);
    out = slurp("out.txt");
    assert_null(strstr(out, "contended"));
    free(out);
}

/* Guards: a case without params was read as a case matching nothing; one
 * without samples_ns (documented as optional) was refused because its
 * samples_stored did not match; cases whose params differ were listed twice
 * under the same label with no word on why. */
static void test_result_file_cases_that_do_not_match(void **state)
{
    (void)state;
    derive_cases("noparams.json", "{\"params\": \"DELETE\"}");
    expect_error("result file case without params",
                 (const char *[]){"compare", at("base.json"), at("noparams.json"), NULL}, 2,
                 "DIR/noparams.json: case 0 has no 'params' object");
    derive_cases("nosamples.json", "{\"samples_ns\": \"DELETE\"}");
    assert_int_equal(run_v((const char *[]){"compare", at("base.json"), at("nosamples.json"),
                                            NULL}),
                     0);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "1 insufficient-data"));
    free(out);
    derive_cases("both.json", "{}");
    json_t *j = load_json("both.json"), *c = json_array_get(json_object_get(j, "cases"), 0);
    json_t *d = json_deep_copy(c);
    json_object_set_new(json_object_get(d, "params"), "extra", json_integer(1));
    json_array_append_new(json_object_get(j, "cases"), d);
    assert_int_equal(json_dump_file(j, at("both.json"), JSON_INDENT(1)), 0);
    json_decref(j);
    assert_int_equal(run_v((const char *[]){"compare", at("base.json"), at("both.json"), NULL}),
                     0);
    out = slurp("out.txt");
    assert_non_null(strstr(out, "(the case of base with this label differs: params.extra - -> "
                                "1)"));
    free(out);
}

/* compare's repeated runs: a '--' with no file on one side, or twice. */
static void test_compare_run_lists_are_checked(void **state)
{
    (void)state;
    expect_error("compare with no base run before '--'",
                 (const char *[]){"compare", "--", at("base.json"), NULL}, 2,
                 "compare needs at least one result file on each side of '--'");
    expect_error("compare with '--' twice",
                 (const char *[]){"compare", at("base.json"), "--", at("base.json"), "--",
                                  at("base.json"), NULL},
                 2, "compare takes one '--' (between the base runs and the new ones)");
}

/* Guards: a command option's value spelled like a global option was taken as
 * that option (`--filter -V` printed the version and exited 0). */
static void test_option_value_spelled_like_a_global_option(void **state)
{
    (void)state;
    expect_error("--filter value spelled like -V",
                 (const char *[]){"run", "--variant", "cpu-harvey", "--logn", "10", "--limbs",
                                  "1", "--list", "--filter", "-V", NULL},
                 2, "--filter keeps none of the cases (nttbench run --list without --filter "
                    "shows their names)");
    expect_error("--preset value spelled like -h",
                 (const char *[]){"verify", "--stage", "modup", "--preset", "-h", NULL}, 2,
                 "--preset: no CKKS preset named '-h' (see 'nttbench list')");
    /* a flag that takes no value leaves the next word global */
    assert_int_equal(run_v((const char *[]){"run", "--variant", "cpu-harvey", "--list", "-V",
                                            NULL}),
                     0);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "plug-in ABI"));
    free(out);
}

/* NB_HOST_LLC_BYTES replaces the detected host LLC: the environment block names
 * it as the source and a cold CPU case plans its flush and rotation past it; a
 * malformed or out-of-range value is refused before anything runs. */
static void test_host_llc_from_the_environment(void **state)
{
    (void)state;
    const char *was = getenv("NB_HOST_LLC_BYTES");
    char *keep = was ? strdup(was) : NULL;
    unsetenv("NB_HOST_LLC_BYTES"); /* the host's own, as detected */
    assert_int_equal(run_v((const char *[]){"env", NULL}), 0);
    char *out = slurp("out.txt");
    assert_true(strstr(out, " MiB (sysfs)") || strstr(out, " MiB (sysconf)") ||
                strstr(out, "32.0 MiB (assumed)"));
    free(out);
    setenv("NB_HOST_LLC_BYTES", "3M", 1);
    assert_int_equal(run_v((const char *[]){"env", NULL}), 0);
    out = slurp("out.txt");
    assert_non_null(strstr(out, "3.0 MiB (NB_HOST_LLC_BYTES)"));
    free(out);
    assert_int_equal(run_v((const char *[]){"run", "--tier", "cold", "--variant", "cpu-harvey",
                                            "--logn", "10", "--limbs", "1", "--min-time",
                                            "0.002", "--timeout", "1", "--no-progress",
                                            "--format", "json", "--output", at("llc.json"),
                                            NULL}),
                     0);
    json_t *r = json_load_file(at("llc.json"), 0, NULL);
    assert_non_null(r);
    json_t *c = json_array_get(json_object_get(r, "cases"), 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "cache"),
                                                        "cache_bytes")),
                     3 << 20);
    json_t *host = json_object_get(json_object_get(r, "environment"), "host");
    assert_string_equal(json_string_value(json_object_get(host, "llc_source")),
                        "NB_HOST_LLC_BYTES");
    json_decref(r);
    const char *bad[][2] = {{"8Q", "an NB_HOST_LLC_BYTES with an unknown suffix"},
                            {"100", "an NB_HOST_LLC_BYTES below 1 MiB"},
                            {"2048G", "an NB_HOST_LLC_BYTES above 1 TiB"},
                            {"-4M", "a negative NB_HOST_LLC_BYTES"},
                            {"016M", "an NB_HOST_LLC_BYTES with a leading zero"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char msg[160];
        snprintf(msg, sizeof msg, "NB_HOST_LLC_BYTES='%s': expected the host's last-level cache",
                 bad[i][0]);
        char assign[64];
        snprintf(assign, sizeof assign, "NB_HOST_LLC_BYTES=%s", bad[i][0]);
        setenv("NB_HOST_LLC_BYTES", bad[i][0], 1);
        table_env = assign;
        expect_error(bad[i][1], (const char *[]){"run", "--list", NULL}, 2, msg);
        table_env = NULL;
    }
    if (keep)
        setenv("NB_HOST_LLC_BYTES", keep, 1);
    else
        unsetenv("NB_HOST_LLC_BYTES");
    free(keep);
}

/* Guards: a misspelt NB_NCCL_TUNER or NB_NCCL_EXCHANGE was refused by stage
 * runs only, while an NTT run's report recorded it as a setting; an absurd
 * OMP_NUM_THREADS ended the process with the OpenMP runtime's out-of-memory
 * message and exit 1, the code of a failed check. */
static void test_environment_settings_are_checked_by_every_command(void **state)
{
    (void)state;
    static const struct {
        const char *var, *value, *assign, *what, *want;
    } rows[] = {
        {"NB_NCCL_TUNER", "bogus", "NB_NCCL_TUNER=bogus", "a misspelt NB_NCCL_TUNER in an NTT "
         "run", "NB_NCCL_TUNER='bogus': expected"},
        {"NB_NCCL_EXCHANGE", "bogus", "NB_NCCL_EXCHANGE=bogus", "a misspelt NB_NCCL_EXCHANGE "
         "in env", "NB_NCCL_EXCHANGE='bogus': expected"},
        {"OMP_NUM_THREADS", "99999999999", "OMP_NUM_THREADS=99999999999", "an absurd "
         "OMP_NUM_THREADS", "OMP_NUM_THREADS='99999999999': at most 4096 threads a level"}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *was = getenv(rows[i].var);
        char *keep = was ? strdup(was) : NULL;
        setenv(rows[i].var, rows[i].value, 1);
        if (!strcmp(rows[i].var, "OMP_NUM_THREADS"))
            child_omp_threads = rows[i].value;
        table_env = rows[i].assign;
        expect_error(rows[i].what,
                     i == 1 ? (const char *[]){"env", NULL}
                            : (const char *[]){"run", "--list", "--logn", "10", "--limbs", "1",
                                               NULL},
                     2, rows[i].want);
        table_env = NULL;
        child_omp_threads = "1";
        if (keep)
            setenv(rows[i].var, keep, 1);
        else
            unsetenv(rows[i].var);
        free(keep);
    }
}

/* Guards: options that shape nothing the run times were taken in silence:
 * --rounding without rescale, --profile-timeout without --profile, --gpus 2
 * for CPU variants (the cases recorded one GPU), --batch-samples for CPU
 * variants (compare then listed it as an option that may change timings). */
static void test_more_options_that_shape_nothing_are_refused(void **state)
{
    (void)state;
    expect_error("--rounding without rescale",
                 (const char *[]){"run", "--tier", "stage", "--preset", "test-tiny", "--stage",
                                  "modup", "--rounding", "round", "--list", NULL},
                 2, "--rounding shapes rescale, which this run does not time");
    expect_error("--profile-timeout without --profile",
                 (const char *[]){"run", "--logn", "10", "--limbs", "1", "--profile-timeout",
                                  "5", "--list", NULL},
                 2, "--profile-timeout bounds the profiler pass of --profile");
    expect_error("--gpus 2 for CPU variants",
                 (const char *[]){"run", "--tier", "stage", "--preset", "test-tiny", "--backend",
                                  "cpu", "--gpus", "2", "--list", NULL},
                 2, "--gpus 2 splits a GPU case's limbs across GPUs, and this run's variants "
                    "run on the CPU");
    expect_error("--batch-samples for CPU variants",
                 (const char *[]){"run", "--backend", "cpu", "--logn", "10", "--limbs", "1",
                                  "--batch-samples", "7", "--list", NULL},
                 2, "--batch-samples shapes how GPU samples are taken");
    expect_error("an NTT check's option with verify --stage",
                 (const char *[]){"verify", "--stage", "modup", "--preset", "test-tiny", "--logn",
                                  "12", NULL},
                 2, "--logn is an option of verify without --stage (the NTT checks)");
    expect_error("a stage check's option without --stage",
                 (const char *[]){"verify", "--preset", "test-tiny", NULL}, 2,
                 "--preset is an option of verify --stage (the CKKS stages), which this command "
                 "line does not give");
    expect_error("--queue-ahead for a CPU calibration",
                 (const char *[]){"calibrate", "--backend", "cpu", "--queue-ahead", "0", NULL}, 2,
                 "--queue-ahead shapes how GPU samples are taken, and --backend cpu calibrates "
                 "the host");
    /* taken: GPU variants beside CPU ones, and the CPU variants --backend auto
     * runs for want of a usable GPU (the machine, not the command line) */
    if (nb_ntt_variant_find("gpu-fast"))
        assert_int_equal(run_v((const char *[]){"run", "--variant", "cpu-harvey,gpu-fast",
                                                "--queue-ahead", "0", "--logn", "10", "--limbs",
                                                "1", "--list", NULL}),
                         0);
    if (nb_gpu_count() == 0) {
        assert_int_equal(run_v((const char *[]){"run", "--batch-samples", "4", "--logn", "10",
                                                "--limbs", "1", "--list", NULL}),
                         0);
        /* --gpus 2 then says that it shapes nothing (it was dropped in silence) */
        assert_int_equal(run_v((const char *[]){"run", "--tier", "stage", "--preset",
                                                "test-tiny", "--gpus", "1,2", "--list", NULL}),
                         0);
        char *e = slurp("err.txt");
        if (!strstr(e, "nttbench: warning: --gpus 2 splits a GPU case's limbs across GPUs, and "
                       "no GPU is usable here: the CPU variants run their cases once"))
            fail_msg("stderr: %s", e);
        free(e);
    }
}

/* Guards: a build without CUDA answered `--variant gpu-fast` with "no NTT
 * variant named 'gpu-fast'" and exit 2, while the docs name the variant and
 * exit 3 for a GPU variant without a usable GPU. With CUDA: every GPU
 * built-in is on the list such a build knows the names by. */
static void test_gpu_variant_in_a_build_without_cuda(void **state)
{
    (void)state;
    for (size_t i = 0; i < nb_ntt_variant_count(); i++)
        if (nb_ntt_variant_at(i)->backend == NB_BACKEND_GPU)
            assert_true(nb_builtin_is_gpu_name(nb_ntt_variant_at(i)->name));
    if (nb_ntt_variant_find("gpu-fast"))
        return;
    const char *const cmds[][8] = {{"run", "--variant", "gpu-fast", "--logn", "10", NULL},
                                   {"verify", "--variant", "gpu-fast32", NULL},
                                   {"run", "--backend", "gpu", "--list", NULL}};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(run_v(cmds[i]), 3);
        char *e = slurp("err.txt");
        assert_non_null(strstr(e, i < 2 ? "is a GPU variant, and this build of nttbench has no "
                                          "CUDA"
                                        : "built without CUDA"));
        free(e);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_option_given_twice_is_refused),
        cmocka_unit_test(test_name_repeated_in_a_list_runs_once),
        cmocka_unit_test(test_stage_options_and_direction_both),
        cmocka_unit_test(test_messages_say_what_is_wrong),
        cmocka_unit_test(test_report_names_contended_cases),
        cmocka_unit_test(test_result_file_cases_that_do_not_match),
        cmocka_unit_test(test_compare_run_lists_are_checked),
        cmocka_unit_test(test_option_value_spelled_like_a_global_option),
        cmocka_unit_test(test_host_llc_from_the_environment),
        cmocka_unit_test(test_environment_settings_are_checked_by_every_command),
        cmocka_unit_test(test_gpu_variant_in_a_build_without_cuda),
        cmocka_unit_test(test_more_options_that_shape_nothing_are_refused),
    };
    return cli_rows_main(argc, argv, "nb-use-", "cli_usage", tests,
                         sizeof tests / sizeof tests[0], make_quick_base);
}

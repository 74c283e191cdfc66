/* End to end: `nttbench run --tier stage` on the CPU backend writes a JSON
 * report whose stage cases are verified, carry the breakdown with the NTT
 * counts of nb_ckks_ntt_counts and the in-stage vs micro-benchmark metrics;
 * bad stage options (--gpus among them) exit with the usage code; `--tier stage --cache warm`
 * times the stages with a warm cache and `--tier warm,stage` keeps its old
 * meaning; `nttbench list` shows the presets; a 64-bit set and its 32-bit
 * twin are paired by word size, and `verify --stage` checks 32-bit sets at
 * their default levels and refuses a --variant of another --backend. argv[1]
 * is the nttbench executable (tests/meson.build). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ckks/ckks.h"
#include "testutil.h"

static const char *nttbench;
static char tmpdir[] = "/tmp/nb-stage-cli-XXXXXX";

/* Runs nttbench with args (NULL-terminated), stdout to out_path and stderr
 * to err_path (each if given); returns the exit status. */
static int run_cli2(const char *const *args, const char *out_path, const char *err_path)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (out_path && !freopen(out_path, "w", stdout))
            _exit(126);
        if (err_path && !freopen(err_path, "w", stderr))
            _exit(126);
        const char *argv[64];
        size_t n = 0;
        argv[n++] = nttbench;
        for (; args[n - 1] && n < 63; n++)
            argv[n] = args[n - 1];
        argv[n] = NULL;
        execv(nttbench, (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* run_cli2 with stderr inherited. */
static int run_cli(const char *const *args, const char *out_path)
{
    return run_cli2(args, out_path, NULL);
}

static void test_stage_run_writes_verified_json(void **state)
{
    (void)state;
    char out[256];
    snprintf(out, sizeof out, "%s/stage.json", tmpdir);
    const char *args[] = {"run", "--tier", "stage", "--backend", "cpu", "--variant",
                          "cpu-harvey", "--stage", "modup,moddown,keyswitch,rescale",
                          "--preset", "test-small", "--rounding", "round", "--min-samples",
                          "3", "--min-time", "0.005", "--max-noise", "100", "--timeout", "3",
                          "--warmup", "1", "--cold", "rotate", "--breakdown-passes", "4",
                          "--seed", "12345", "--no-progress", "--format", "json", "--output",
                          out, NULL};
    int rc = run_cli(args, NULL);
    if (rc != 0)
        nb_test_fail("nttbench run --tier stage exited with %d", rc);
    json_error_t err;
    json_t *r = json_load_file(out, 0, &err);
    if (!r)
        nb_test_fail("%s does not parse: %s (line %d)", out, err.text, err.line);
    assert_string_equal(json_string_value(json_object_get(r, "schema")), "nttbench-report");
    assert_string_equal(json_string_value(json_object_get(r, "command")), "run");
    json_t *cases = json_object_get(r, "cases");
    assert_int_equal(json_array_size(cases), 4);

    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "test-small"), NB_OK);
    const char *names[4] = {"modup", "moddown", "keyswitch", "rescale"};
    for (size_t i = 0; i < 4; i++) {
        json_t *c = json_array_get(cases, i);
        json_t *params = json_object_get(c, "params");
        assert_string_equal(json_string_value(json_object_get(c, "tier")), "stage");
        assert_string_equal(json_string_value(json_object_get(c, "variant")), "cpu-harvey");
        if (strcmp(json_string_value(json_object_get(c, "status")), "ok") != 0)
            nb_test_fail("case %zu: %s: %s", i, json_string_value(json_object_get(c, "status")),
                         json_string_value(json_object_get(c, "message")));
        assert_string_equal(json_string_value(json_object_get(params, "stage")), names[i]);
        assert_string_equal(json_string_value(json_object_get(params, "preset")), "test-small");
        /* the value --seed takes, so that giving it again draws the same inputs */
        assert_string_equal(json_string_value(json_object_get(params, "seed")), "12345");
        assert_int_equal(json_integer_value(json_object_get(params, "log_n")), 10);
        assert_int_equal(json_integer_value(json_object_get(params, "dnum")), 3);
        assert_int_equal(json_integer_value(json_object_get(params, "alpha")), 3);
        if (i == 3)
            assert_string_equal(json_string_value(json_object_get(params, "rounding")), "round");
        json_t *ver = json_object_get(c, "verification");
        assert_string_equal(json_string_value(json_object_get(ver, "before")), "pass");
        assert_string_equal(json_string_value(json_object_get(ver, "after")), "pass");
        json_t *stats = json_object_get(c, "stats");
        assert_true(json_integer_value(json_object_get(stats, "samples")) >= 3);
        assert_true(json_number_value(json_object_get(stats, "median")) > 0);
        assert_true(json_array_size(json_object_get(c, "samples_ns")) >= 3);

        size_t fwd, inv;
        nb_ckks_ntt_counts(p, (nb_ckks_stage)i, p->max_level, &fwd, &inv);
        json_t *bd = json_object_get(c, "breakdown");
        assert_int_equal(json_integer_value(json_object_get(bd, "passes")), 4);
        assert_int_equal(json_integer_value(json_object_get(bd, "ntt_forward_limbs")), fwd);
        assert_int_equal(json_integer_value(json_object_get(bd, "ntt_inverse_limbs")), inv);
        assert_true(json_array_size(json_object_get(bd, "steps")) >= 4);
        json_t *m = json_object_get(c, "metrics");
        const char *keys[] = {"stage_median_ns", "ntt_share", "in_stage_fwd_ns_per_limb",
                              "in_stage_inv_ns_per_limb", "warm_fwd_ns_per_limb",
                              "cold_fwd_ns_per_limb", "in_stage_vs_warm_fwd",
                              "in_stage_vs_cold_fwd", "breakdown_vs_stage"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            json_t *v = json_object_get(m, keys[k]);
            if (!json_is_number(v) || json_number_value(v) <= 0)
                nb_test_fail("case %s: metric %s missing or not positive", names[i], keys[k]);
        }
        assert_int_equal((size_t)json_number_value(json_object_get(m, "ntt_fwd_limbs")), fwd);
    }
    nb_ckks_params_destroy(p);
    json_decref(r);
    unlink(out);
}

/* Runs nttbench with args and returns the parsed JSON report (out). */
static json_t *run_json(const char *const *args, const char *out)
{
    int rc = run_cli(args, NULL);
    if (rc != 0)
        nb_test_fail("nttbench exited with %d", rc);
    json_error_t err;
    json_t *r = json_load_file(out, 0, &err);
    if (!r)
        nb_test_fail("%s does not parse: %s (line %d)", out, err.text, err.line);
    unlink(out);
    return r;
}

static void test_warm_stage_run_and_old_spellings(void **state)
{
    (void)state;
    char out[256];
    snprintf(out, sizeof out, "%s/warm.json", tmpdir);
    const char *warm[] = {"run", "--tier", "stage", "--cache", "warm", "--backend", "cpu",
                          "--stage", "rescale", "--preset", "test-tiny", "--no-micro",
                          "--min-samples", "3", "--min-time", "0.002", "--max-noise", "100",
                          "--breakdown-passes", "3", "--no-progress", "--format", "json",
                          "--output", out, NULL};
    json_t *r = run_json(warm, out);
    json_t *cases = json_object_get(r, "cases");
    assert_int_equal(json_array_size(cases), 1);
    json_t *c = json_array_get(cases, 0);
    assert_string_equal(json_string_value(json_object_get(c, "status")), "ok");
    assert_string_equal(json_string_value(json_object_get(c, "tier")), "stage");
    assert_string_equal(json_string_value(json_object_get(c, "cache_state")), "warm");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "cache"), "sets")), 1);
    assert_non_null(json_object_get(c, "breakdown"));
    json_decref(r);

    const char *mixed[] = {"run", "--tier", "warm,stage", "--backend", "cpu", "--variant",
                           "cpu-harvey", "--logn", "10", "--limbs", "1", "--stage", "rescale",
                           "--preset", "test-tiny", "--no-micro", "--min-samples", "3",
                           "--min-time", "0.002", "--max-noise", "100", "--breakdown-passes",
                           "3", "--no-progress", "--format", "json", "--output", out, NULL};
    r = run_json(mixed, out);
    cases = json_object_get(r, "cases");
    assert_int_equal(json_array_size(cases), 2);
    const char *tiers[2] = {"warm", "stage"}, *states[2] = {"warm", "both"};
    for (size_t i = 0; i < 2; i++) {
        c = json_array_get(cases, i);
        assert_string_equal(json_string_value(json_object_get(c, "status")), "ok");
        assert_string_equal(json_string_value(json_object_get(c, "tier")), tiers[i]);
        assert_string_equal(json_string_value(json_object_get(c, "cache_state")), states[i]);
    }
    json_decref(r);
}

static void test_stage_trace_of_a_cpu_case_is_a_note_not_an_error(void **state)
{
    (void)state;
    char out[256];
    snprintf(out, sizeof out, "%s/trace.json", tmpdir);
    const char *args[] = {"run", "--tier", "stage", "--backend", "cpu", "--stage", "rescale",
                          "--preset", "test-tiny", "--no-micro", "--trace", "--min-samples", "3",
                          "--min-time", "0.002", "--max-noise", "100", "--breakdown-passes",
                          "3", "--no-progress", "--format", "json", "--output", out, NULL};
    json_t *r = run_json(args, out);
    json_t *c = json_array_get(json_object_get(r, "cases"), 0);
    assert_string_equal(json_string_value(json_object_get(c, "status")), "ok");
    assert_non_null(json_object_get(c, "breakdown"));
    assert_true(json_is_null(json_object_get(c, "trace")));
    const char *note = json_string_value(json_object_get(c, "trace_note"));
    assert_non_null(note);
    /* the reason is the case's backend, in every build (not a missing CUPTI) */
    if (!strstr(note, "runs on the CPU; the trace records GPU activities"))
        nb_test_fail("trace_note of a CPU case: %s", note);
    json_decref(r);
}

/* Guards: the in-stage ratios divided by micro-benchmarks that missed their
 * noise target (stopped by --timeout at 268 %) and nothing said so: the
 * case's message now names the first such micro-benchmark. */
static void test_noisy_micro_benchmarks_are_named(void **state)
{
    (void)state;
    char out[256];
    snprintf(out, sizeof out, "%s/micro.json", tmpdir);
    const char *args[] = {"run", "--tier", "stage", "--backend", "cpu", "--stage", "rescale",
                          "--preset", "test-tiny", "--max-noise", "0.0001", "--min-time", "0.005",
                          "--timeout", "0.02", "--breakdown-passes", "2", "--no-progress", "-q",
                          "--format", "json", "--output", out, NULL};
    json_t *r = run_json(args, out);
    json_t *c = json_array_get(json_object_get(r, "cases"), 0);
    const char *msg = json_string_value(json_object_get(c, "message"));
    if (!msg || !strstr(msg, "the NTT micro-benchmarks the in-stage ratios divide by missed "
                             "their noise target"))
        nb_test_fail("the case's message: %s", msg ? msg : "(none)");
    json_decref(r);
}

static void test_bad_stage_options_are_usage_errors(void **state)
{
    (void)state;
    char out[256];
    snprintf(out, sizeof out, "%s/bad.json", tmpdir);
    const char *bad_stage[] = {"run", "--tier", "stage", "--backend", "cpu", "--stage",
                               "modup,bogus", "--output", out, NULL};
    assert_int_equal(run_cli(bad_stage, NULL), 2);
    const char *bad_preset[] = {"run", "--tier", "stage", "--backend", "cpu", "--preset",
                                "no-such-set", "--output", out, NULL};
    assert_int_equal(run_cli(bad_preset, NULL), 2);
    const char *bad_rounding[] = {"run", "--tier", "stage", "--backend", "cpu", "--rounding",
                                  "up", "--output", out, NULL};
    assert_int_equal(run_cli(bad_rounding, NULL), 2);
    const char *no_gpus[] = {"run", "--tier", "stage", "--backend", "cpu", "--gpus", "0",
                             "--output", out, NULL};
    assert_int_equal(run_cli(no_gpus, NULL), 2);
    const char *gpus_junk[] = {"run", "--tier", "stage", "--backend", "cpu", "--gpus", "2,x",
                               "--output", out, NULL};
    assert_int_equal(run_cli(gpus_junk, NULL), 2);
    const char *gpus_alone[] = {"run", "--tier", "warm", "--backend", "cpu", "--gpus", "2",
                                "--output", out, NULL};
    assert_int_equal(run_cli(gpus_alone, NULL), 2);
    assert_int_not_equal(access(out, F_OK), 0); /* nothing written on bad usage */
}

/* The text of a file (NUL-terminated, caller frees). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strdup(buf);
}

/* A 64-bit set beside its 32-bit twin: each runs with variants of its own
 * word size (chosen without --variant; the other pairs are skipped cases
 * naming the word sizes), the cases carry word_bits and conv_share, and the
 * table pairs the two rescales (log Q 1592) with their ratio. Rescale
 * only: the cheapest stage of the log N 16 sets on a CPU. */
static void test_stage_run_pairs_word_sizes(void **state)
{
    (void)state;
    char out[256], txt[256];
    snprintf(out, sizeof out, "%s/words.json", tmpdir);
    snprintf(txt, sizeof txt, "%s/words.txt", tmpdir);
    const char *args[] = {"run", "--tier", "stage", "--backend", "cpu", "--stage", "rescale",
                          "--preset", "ckks16-l30-d3,ckks16-l30-d3-w32", "--variant",
                          "cpu-harvey,cpu-harvey32", "--min-samples", "2", "--max-samples", "2",
                          "--min-time", "0.001", "--max-noise", "100", "--warmup", "1",
                          "--cold", "rotate", "--breakdown-passes", "2", "--no-micro",
                          "--no-progress", "--format", "json", "--output", out, NULL};
    int rc = run_cli(args, txt); /* the table on stdout, the report in JSON */
    if (rc != 0)
        nb_test_fail("the two-word stage run exited with %d", rc);
    char *t = slurp(txt);
    if (!strstr(t, "Word sizes at the nearest log Q") || !strstr(t, "rescale floor    1592 / 159"))
        nb_test_fail("no word-size row for the rescale pair in:\n%s", t);
    if (!strstr(t, "is made for 32-bit words and variant 'cpu-harvey' works on 64-bit ones"))
        nb_test_fail("the cross-word pair is not reported as skipped");
    free(t);
    json_error_t err;
    json_t *r = json_load_file(out, 0, &err);
    if (!r)
        nb_test_fail("%s does not parse: %s", out, err.text);
    json_t *cases = json_object_get(r, "cases"), *c;
    size_t i, ok = 0;
    json_array_foreach(cases, i, c)
    {
        if (strcmp(json_string_value(json_object_get(c, "status")), "ok") != 0)
            continue;
        ok++;
        json_t *p = json_object_get(c, "params"), *m = json_object_get(c, "metrics");
        const char *preset = json_string_value(json_object_get(p, "preset"));
        const long long word = json_integer_value(json_object_get(p, "word_bits"));
        assert_int_equal(word, strstr(preset, "-w32") ? 32 : 64);
        assert_true(json_real_value(json_object_get(m, "conv_share")) > 0);
        assert_true(json_real_value(json_object_get(m, "bytes_per_launch")) > 0);
        assert_int_equal(json_real_value(json_object_get(m, "ntt_inv_limbs")),
                         word == 32 ? 2 : 1);
    }
    assert_int_equal(ok, 2);
    json_decref(r);
}

/* `verify --stage` on a 32-bit set picks the 32-bit CPU variants and checks
 * them against GMP; a 64-bit variant named on it is skipped with the reason. */
static void test_verify_stage_on_32bit_set(void **state)
{
    (void)state;
    char out[256];
    snprintf(out, sizeof out, "%s/vs.txt", tmpdir);
    const char *args[] = {"verify", "--stage", "modup,moddown,keyswitch,rescale", "--preset",
                          "test-tiny-w32", "--backend", "cpu", NULL};
    assert_int_equal(run_cli(args, out), 0);
    char *t = slurp(out);
    if (!strstr(t, "16 passed, 0 failed, 0 skipped") || !strstr(t, "cpu-harvey32-scalar"))
        nb_test_fail("verify --stage on test-tiny-w32:\n%s", t);
    free(t);
    const char *cross[] = {"verify", "--stage", "rescale", "--preset", "test-tiny-w32",
                           "--variant", "cpu-harvey", NULL};
    run_cli(cross, out);
    t = slurp(out);
    if (!strstr(t, "the set is made for 32-bit words, the variant works on 64-bit ones"))
        nb_test_fail("a 64-bit variant on a 32-bit set:\n%s", t);
    free(t);
}

/* The levels `verify --stage` checks by default are the set's top one and the
 * lowest a rescale takes (2 on a 32-bit set that drops a pair), and --filter
 * selects among those same rows: one that keeps none is bad usage, never an
 * empty pass. */
static void test_verify_stage_default_levels_and_filter(void **state)
{
    (void)state;
    char out[256], err[256];
    snprintf(out, sizeof out, "%s/vl.txt", tmpdir);
    snprintf(err, sizeof err, "%s/vl.err", tmpdir);
    const char *low[] = {"verify", "--stage", "rescale", "--preset", "test-tiny-w32", "--variant",
                         "cpu-harvey32-scalar", "--filter", "l=2$", NULL};
    assert_int_equal(run_cli2(low, out, err), 0);
    char *t = slurp(out);
    if (!strstr(t, "1 passed, 0 failed, 0 skipped"))
        nb_test_fail("verify --stage rescale on test-tiny-w32, filtered to l=2:\n%s", t);
    free(t);
    const char *none[] = {"verify", "--stage", "rescale", "--preset", "test-tiny-w32",
                          "--variant", "cpu-harvey32-scalar", "--filter", "l=1$", NULL};
    assert_int_equal(run_cli2(none, out, err), 2);
    t = slurp(err);
    if (!strstr(t, "--filter keeps none"))
        nb_test_fail("a filter keeping no check of the default levels:\n%s", t);
    free(t);
}

/* `verify --stage --backend B --variant V` refuses a V of the other backend
 * (exit 2 with a GPU present, 3 without one: --backend gpu is unusable). */
static void test_verify_stage_backend_and_variant_agree(void **state)
{
    (void)state;
    char out[256], err[256];
    snprintf(out, sizeof out, "%s/vb.txt", tmpdir);
    snprintf(err, sizeof err, "%s/vb.err", tmpdir);
    const char *args[] = {"verify", "--stage", "modup", "--preset", "test-tiny", "--variant",
                          "cpu-harvey", "--backend", "gpu", NULL};
    const int rc = run_cli2(args, out, err);
    char *t = slurp(err);
    if ((rc != 2 && rc != 3) || !strstr(t, "--backend gpu"))
        nb_test_fail("verify --stage --variant cpu-harvey --backend gpu: exit %d\n%s", rc, t);
    free(t);
}

/* A stage run as CSV: every header name once (the stage's timing mode is
 * the fixed "mode" column, not a second one), and that column says it. */
static void test_stage_csv_names_each_column_once(void **state)
{
    (void)state;
    char out[256];
    snprintf(out, sizeof out, "%s/stage.csv", tmpdir);
    const char *args[] = {"run", "--tier", "stage", "--backend", "cpu", "--variant", "cpu-harvey",
                          "--stage", "rescale", "--preset", "test-tiny", "--min-time", "0.001",
                          "--max-noise", "100", "--timeout", "1", "--no-micro", "--no-progress",
                          "-q", "--format", "csv", "--output", out, NULL};
    assert_int_equal(run_cli(args, NULL), 0);
    char *t = slurp(out);
    char *eol = strchr(t, '\n');
    assert_non_null(eol);
    *eol = '\0';
    const char *names[128];
    size_t n = 0, mode_col = 128;
    for (char *save = NULL, *k = strtok_r(t, ",", &save); k && n < 128;
         k = strtok_r(NULL, ",", &save)) {
        for (size_t j = 0; j < n; j++)
            if (!strcmp(names[j], k))
                nb_test_fail("the CSV header names '%s' twice", k);
        if (!strcmp(k, "mode"))
            mode_col = n;
        names[n++] = k;
    }
    assert_true(mode_col < n);
    char *f = eol + 1; /* the row's fields up to the mode column hold no quoted comma */
    for (size_t j = 0; j < mode_col && f; j++)
        f = strchr(f, ',') ? strchr(f, ',') + 1 : NULL;
    if (!f || strncmp(f, "per-launch,", 11))
        nb_test_fail("the row's mode column: %s", f ? f : "(missing)");
    free(t);
}

static void test_list_shows_presets(void **state)
{
    (void)state;
    char out[256];
    snprintf(out, sizeof out, "%s/list.json", tmpdir);
    const char *args[] = {"list", "--format", "json", NULL};
    assert_int_equal(run_cli(args, out), 0);
    json_error_t err;
    json_t *r = json_load_file(out, 0, &err);
    if (!r)
        nb_test_fail("list JSON does not parse: %s", err.text);
    char *text = json_dumps(r, 0);
    for (size_t i = 0; i < nb_ckks_preset_count(); i++)
        if (!strstr(text, nb_ckks_preset_at(i)->name))
            nb_test_fail("'nttbench list' does not mention preset %s",
                         nb_ckks_preset_at(i)->name);
    free(text);
    /* a 32-bit set says so, with its base of two primes and its levels of pairs */
    json_t *ps = json_object_get(r, "presets"), *p;
    size_t i, seen = 0;
    json_array_foreach(ps, i, p)
    {
        if (strcmp(json_string_value(json_object_get(p, "name")), "ckks16-l30-d3-w32"))
            continue;
        seen++;
        assert_int_equal(json_integer_value(json_object_get(p, "word_bits")), 32);
        assert_int_equal(json_integer_value(json_object_get(p, "q0_count")), 2);
        assert_int_equal(json_integer_value(json_object_get(p, "rescale_primes")), 2);
    }
    assert_int_equal(seen, 1);
    json_decref(r);
    const char *plain[] = {"list", NULL};
    assert_int_equal(run_cli(plain, out), 0);
    char *t = slurp(out);
    if (!strstr(t, "2x31/pairs of 51/31"))
        nb_test_fail("'nttbench list' does not describe the 32-bit twin's primes:\n%s", t);
    free(t);
    unlink(out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH-TO-NTTBENCH\n", argv[0]);
        return 2;
    }
    nttbench = argv[1];
    nb_test_seed_init();
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stage_run_writes_verified_json),
        cmocka_unit_test(test_warm_stage_run_and_old_spellings),
        cmocka_unit_test(test_stage_trace_of_a_cpu_case_is_a_note_not_an_error),
        cmocka_unit_test(test_bad_stage_options_are_usage_errors),
        cmocka_unit_test(test_noisy_micro_benchmarks_are_named),
        cmocka_unit_test(test_list_shows_presets),
        cmocka_unit_test(test_stage_csv_names_each_column_once),
        cmocka_unit_test(test_stage_run_pairs_word_sizes),
        cmocka_unit_test(test_verify_stage_on_32bit_set),
        cmocka_unit_test(test_verify_stage_default_levels_and_filter),
        cmocka_unit_test(test_verify_stage_backend_and_variant_agree),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(tmpdir);
    return rc;
}

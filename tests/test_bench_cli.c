/* Tests of the nttbench command line: option parsing (lists, ranges, numbers,
 * `run` defaults and errors), and the executable end to end: the CPU warm +
 * cold sweep in JSON checked field by field, a variant registered from a
 * plug-in (listed, verified against GMP, benchmarked; a broken one is
 * reported and never timed), transform/check round trips in both file
 * formats against the GMP reference, env/calibrate/list, and exit codes
 * (0 ok, 1 verify, 2 usage, 3 environment) with one-line messages.
 * argv[1] = the nttbench executable, argv[2] = the example plug-in. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "bench/cli/cli.h"
#include "reference/reference.h"
#include "testutil.h"
#include "cliutil.h"

static const char *plugin;

/* ------------------------------------------------------------- parsing */

static void test_parse_lists_and_ranges(void **state)
{
    (void)state;
    unsigned long long v[64];
    size_t n;
    assert_int_equal(nb_cli_parse_ulist("12:17", "logn", 1, 17, v, 64, &n), NB_OK);
    assert_int_equal(n, 6);
    assert_true(v[0] == 12 && v[5] == 17);
    assert_int_equal(nb_cli_parse_ulist("10:16:2", "logn", 1, 17, v, 64, &n), NB_OK);
    assert_int_equal(n, 4);
    assert_true(v[0] == 10 && v[1] == 12 && v[3] == 16);
    assert_int_equal(nb_cli_parse_ulist("1,8,32", "limbs", 1, 4096, v, 64, &n), NB_OK);
    assert_true(n == 3 && v[2] == 32);
    assert_int_equal(nb_cli_parse_ulist("10:12,16,11", "logn", 1, 17, v, 64, &n), NB_OK);
    assert_true(n == 4 && v[3] == 16); /* 11 is a duplicate */
    assert_int_equal(nb_cli_parse_ulist("5:3", "logn", 1, 17, v, 64, &n), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "--logn"));
    assert_int_equal(nb_cli_parse_ulist("a", "logn", 1, 17, v, 64, &n), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_cli_parse_ulist("", "logn", 1, 17, v, 64, &n), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_cli_parse_ulist("1,,2", "limbs", 1, 9, v, 64, &n), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_cli_parse_ulist("1,", "limbs", 1, 9, v, 64, &n), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_cli_parse_ulist("18", "logn", 1, 17, v, 64, &n), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_cli_parse_ulist("-3", "logn", 1, 17, v, 64, &n), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_cli_parse_ulist("1:100", "limbs", 1, 4096, v, 64, &n),
                     NB_ERR_INVALID_ARG); /* more than 64 values */
    assert_int_equal(nb_cli_parse_ulist("4:4:0", "logn", 1, 17, v, 64, &n), NB_ERR_INVALID_ARG);
    double d;
    assert_int_equal(nb_cli_parse_double("0.25", "min-time", 0, 10, &d), NB_OK);
    assert_true(d == 0.25);
    assert_int_equal(nb_cli_parse_double("1e3", "min-time", 0, 10, &d), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_cli_parse_double("x", "min-time", 0, 10, &d), NB_ERR_INVALID_ARG);
    char *storage, *w[8];
    assert_int_equal(nb_cli_parse_words("a,bb,c", "variant", &storage, w, 8, &n), NB_OK);
    assert_true(n == 3 && !strcmp(w[1], "bb"));
    free(storage);
    assert_int_equal(nb_cli_parse_words("a,,c", "variant", &storage, w, 8, &n),
                     NB_ERR_INVALID_ARG);
}

static int parse_run(nb_cli_run *r, const char *line)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", line);
    char *argv[64];
    int argc = 0;
    for (char *t = strtok(buf, " "); t && argc < 64; t = strtok(NULL, " "))
        argv[argc++] = t;
    int rc = nb_cli_run_parse(argc, argv, r);
    /* the parser keeps pointers into the variant storage only */
    return rc;
}

static void test_run_options_defaults_and_values(void **state)
{
    (void)state;
    nb_cli_run r;
    assert_int_equal(parse_run(&r, ""), 0);
    assert_int_equal(r.n_tiers, 1);
    assert_string_equal(r.tiers[0].tier->name, "ntt");
    assert_int_equal(nb_cli_tier_states(&r, &r.tiers[0]),
                     (1u << NB_CACHE_WARM) | (1u << NB_CACHE_COLD));
    assert_int_equal(r.timing.cache, NB_CACHE_COLD); /* --cold both by default */
    assert_int_equal(r.backend, NB_CLI_AUTO);
    assert_int_equal(r.n_modes, 1);
    assert_int_equal(r.modes[0], NB_MODE_PER_LAUNCH);
    assert_int_equal(r.directions, 1);
    assert_true(r.n_bits == 1 && r.bits[0] == 60);
    assert_false(r.given_logn);
    assert_int_equal(r.timing.min_samples, 10);
    assert_true(r.timing.min_time_s == 0.5 && r.timing.max_noise_pct == 0.5 &&
                r.timing.timeout_s == 15.0);
    nb_cli_run_free(&r);

    assert_int_equal(parse_run(&r, "--tier cold --backend cpu --logn 10:12 --limbs=1,4 "
                                   "--mode batch,graph --batch 5 --direction forward,inverse "
                                   "--min-time 0.2 --max-noise=1 --timeout 3 --cold rotate "
                                   "--sets 40 --seed 9 --variant cpu-harvey"),
                     0);
    assert_int_equal(r.n_tiers, 1);
    assert_int_equal(nb_cli_tier_states(&r, &r.tiers[0]), 1u << NB_CACHE_COLD);
    assert_int_equal(r.backend, NB_CLI_CPU);
    assert_true(r.n_logn == 3 && r.logn[2] == 12 && r.given_logn);
    assert_true(r.n_limbs == 2 && r.limbs[1] == 4);
    assert_true(r.n_modes == 2 && r.modes[1] == NB_MODE_GRAPH);
    assert_int_equal(r.timing.batch, 5);
    assert_int_equal(r.directions, 3);
    assert_true(r.timing.min_time_s == 0.2 && r.timing.max_noise_pct == 1.0);
    assert_true(r.timing.timeout_s == 3.0);
    assert_int_equal(r.timing.cache, NB_COLD_ROTATE);
    assert_int_equal(r.timing.rotate_sets, 40);
    assert_true(r.seed == 9 && r.seed_given);
    assert_true(r.n_variants == 1 && !strcmp(r.variants[0], "cpu-harvey"));
    nb_cli_run_free(&r);
}

/* What is timed (--tier) and the cache state (--cache) are separate; the
 * spellings warm and cold still name the NTT tier in that state. */
static void test_run_tiers_and_cache_states(void **state)
{
    (void)state;
    const unsigned warm = 1u << NB_CACHE_WARM, cold = 1u << NB_CACHE_COLD;
    nb_cli_run r;
    assert_int_equal(parse_run(&r, "--tier stage"), 0);
    assert_int_equal(r.n_tiers, 1);
    assert_string_equal(r.tiers[0].tier->name, "stage");
    assert_int_equal(nb_cli_tier_states(&r, &r.tiers[0]), cold);
    nb_cli_run_free(&r);
    assert_int_equal(parse_run(&r, "--tier stage --cache warm"), 0);
    assert_int_equal(nb_cli_tier_states(&r, &r.tiers[0]), warm);
    nb_cli_run_free(&r);
    assert_int_equal(parse_run(&r, "--tier warm,stage"), 0);
    assert_int_equal(r.n_tiers, 2);
    assert_string_equal(r.tiers[0].tier->name, "ntt");
    assert_int_equal(nb_cli_tier_states(&r, &r.tiers[0]), warm);
    assert_string_equal(r.tiers[1].tier->name, "stage");
    assert_int_equal(nb_cli_tier_states(&r, &r.tiers[1]), cold);
    nb_cli_run_free(&r);
    assert_int_equal(parse_run(&r, "--tier ntt,stage --cache warm,cold --cold flush"), 0);
    assert_int_equal(nb_cli_tier_states(&r, &r.tiers[0]), warm | cold);
    assert_int_equal(nb_cli_tier_states(&r, &r.tiers[1]), warm | cold);
    assert_int_equal(r.timing.cache, NB_COLD_FLUSH);
    nb_cli_run_free(&r);
    assert_int_equal(parse_run(&r, "--tier ntt --cache warm --l2-persist 0.5"), 0);
    assert_true(r.timing.l2_persist == 0.5);
    nb_cli_run_free(&r);
    assert_int_equal(parse_run(&r, "--tier stage --cache warm --l2-persist 0.25"), 0);
    nb_cli_run_free(&r);
    static const char *const bad[] = {"--cache hot", "--cache", "--tier ntt,,stage",
                                      "--tier stage --l2-persist 0.5",
                                      "--tier ntt --cache warm,cold --l2-persist 0.5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = parse_run(&r, bad[i]);
        if (rc != NB_EXIT_USAGE)
            fail_msg("'%s' was accepted", bad[i]);
        nb_cli_run_free(&r);
    }
}

static void test_run_options_errors(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "--tier lukewarm",   "--logn 5:3",           "--logn",         "--limbs 0",
        "--bits 70",         "--mode fast",          "--min-samples x", "--frobnicate",
        "positional",        "--cold freezer",       "--backend tpu",   "--direction sideways",
        "--l2-persist 0.5",  /* default tiers include cold */
        "--max-samples 3",   /* below --min-samples */
        "--progress=1",      /* a flag takes no value */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        nb_cli_run r;
        int rc = parse_run(&r, bad[i]);
        if (rc != NB_EXIT_USAGE)
            fail_msg("'%s' was accepted", bad[i]);
        assert_true(strlen(nb_last_error()) > 0);
        nb_cli_run_free(&r);
    }
    nb_cli_run r;
    assert_int_equal(parse_run(&r, "--tier warm --l2-persist 0.5"), 0);
    assert_true(r.timing.l2_persist == 0.5);
    nb_cli_run_free(&r);
}

static void test_exit_code_mapping(void **state)
{
    (void)state;
    assert_int_equal(nb_cli_exit_code(NB_OK), 0);
    assert_int_equal(nb_cli_exit_code(NB_ERR_VERIFY), 1);
    assert_int_equal(nb_cli_exit_code(NB_ERR_INVALID_ARG), 2);
    assert_int_equal(nb_cli_exit_code(NB_ERR_NOT_FOUND), 2);
    assert_int_equal(nb_cli_exit_code(NB_ERR_NO_DEVICE), 3);
    assert_int_equal(nb_cli_exit_code(NB_ERR_CUDA), 3);
    assert_int_equal(nb_cli_exit_code(NB_ERR_IO), 3);
}

/* ------------------------------------------------------- end to end */

static const char *quick = "--min-time 0.005 --max-samples 200 --timeout 2 --warmup 1 "
                           "--warmup-time 0 --seed 7";

static void test_e2e_cpu_warm_cold_json(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args,
             "run --backend cpu --tier warm,cold --logn 10:12 --limbs 1,4 --format json "
             "--output %s/run.json %s",
             dir, quick);
    assert_int_equal(run(args), 0);
    json_t *j = load_json("run.json");
    assert_string_equal(json_string_value(json_object_get(j, "schema")), NB_REPORT_SCHEMA);
    assert_int_equal(json_integer_value(json_object_get(j, "schema_version")),
                     NB_REPORT_SCHEMA_VERSION);
    json_t *env = json_object_get(j, "environment");
    assert_true(json_real_value(json_object_get(json_object_get(env, "host"),
                                                "copy_bandwidth_Bps")) > 0);
    json_t *cmdline = json_object_get(j, "command_line");
    assert_string_equal(json_string_value(json_array_get(cmdline, 1)), "run");
    json_t *cases = json_object_get(j, "cases");
    int seen[2][3][2] = {{{0}}};
    size_t cpu_cases = 0;
    for (size_t i = 0; i < json_array_size(cases); i++) {
        json_t *c = json_array_get(cases, i);
        const char *var = json_string_value(json_object_get(c, "variant"));
        if (strcmp(var, "cpu-harvey") != 0) /* other CPU variants may be registered */
            continue;
        cpu_cases++;
        const char *tier = json_string_value(json_object_get(c, "tier"));
        int cold = !strcmp(tier, "cold");
        assert_true(cold || !strcmp(tier, "warm"));
        assert_string_equal(json_string_value(json_object_get(c, "status")), "ok");
        assert_string_equal(json_string_value(json_object_get(c, "mode")), "per-launch");
        json_t *p = json_object_get(c, "params");
        long long logn = json_integer_value(json_object_get(p, "log_n"));
        long long limbs = json_integer_value(json_object_get(p, "limbs"));
        assert_true(logn >= 10 && logn <= 12);
        assert_true(limbs == 1 || limbs == 4);
        assert_int_equal(json_array_size(json_object_get(p, "primes")), (size_t)limbs);
        seen[cold][logn - 10][limbs == 4]++;
        json_t *v = json_object_get(c, "verification");
        assert_string_equal(json_string_value(json_object_get(v, "before")), "pass");
        assert_string_equal(json_string_value(json_object_get(v, "after")), "pass");
        json_t *st = json_object_get(c, "stats");
        size_t n = (size_t)json_integer_value(json_object_get(st, "samples"));
        /* min-samples (10) holds unless the timeout stopped the case first (a
         * loaded host), which the report must then say */
        const char *why = json_string_value(json_object_get(json_object_get(c, "stopping"), "reason"));
        assert_true(n >= 10 || (n >= 1 && why && !strcmp(why, "timeout")));
        assert_int_equal(json_array_size(json_object_get(c, "samples_ns")), n);
        assert_int_equal(json_array_size(json_object_get(c, "sample_sm_clock_mhz")), n);
        double med = json_real_value(json_object_get(st, "median"));
        assert_true(med > 0);
        assert_true(json_real_value(json_object_get(st, "min")) <= med);
        assert_true(json_real_value(json_object_get(st, "max")) >= med);
        assert_true(json_real_value(json_object_get(st, "median_ci95_lo")) <= med);
        assert_true(json_real_value(json_object_get(st, "median_ci95_hi")) >= med);
        json_t *fig = json_object_get(c, "figures");
        assert_true(json_real_value(json_object_get(fig, "coefficient_bytes")) ==
                    16.0 * (double)(1ll << logn) * (double)limbs);
        assert_true(json_real_value(json_object_get(fig, "butterflies_per_s")) > 0);
        json_t *cache = json_object_get(c, "cache");
        double cache_bytes = (double)json_integer_value(json_object_get(cache, "cache_bytes"));
        if (cold) {
            assert_true(json_is_true(json_object_get(cache, "flush")));
            assert_true(json_real_value(json_object_get(cache, "allocated_bytes")) >=
                        3.0 * cache_bytes);
            assert_true(json_real_value(json_object_get(cache, "flush_bytes")) >=
                        2.0 * cache_bytes);
        } else {
            assert_int_equal(json_integer_value(json_object_get(cache, "sets")), 1);
            assert_true(json_is_false(json_object_get(cache, "flush")));
        }
        json_t *stop = json_object_get(c, "stopping");
        assert_non_null(json_string_value(json_object_get(stop, "reason")));
    }
    assert_int_equal(cpu_cases, 12);
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 3; b++)
            for (int c = 0; c < 2; c++)
                assert_int_equal(seen[a][b][c], 1);
    json_decref(j);
}

static void test_e2e_other_formats(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args, "run --backend cpu --tier warm --logn 8 --limbs 2 --format csv %s",
             quick);
    assert_int_equal(run(args), 0);
    char *csv = slurp("out.txt");
    assert_true(strncmp(csv, "tier,variant,backend,label,", 27) == 0);
    assert_non_null(strstr(csv, "\nwarm,cpu-harvey,cpu,"));
    free(csv);
    snprintf(args, sizeof args, "run --backend cpu --tier warm --logn 8 --limbs 2 --format md %s",
             quick);
    assert_int_equal(run(args), 0);
    char *md = slurp("out.txt");
    assert_true(strncmp(md, "### Environment\n", 16) == 0);
    assert_non_null(strstr(md, "\n| tier |"));
    free(md);
    snprintf(args, sizeof args, "run --backend cpu --tier warm --logn 8 --limbs 2 %s", quick);
    assert_int_equal(run(args), 0);
    char *t = slurp("out.txt");
    assert_non_null(strstr(t, "median"));
    assert_non_null(strstr(t, "cpu-harvey"));
    free(t);
}

static void test_plugin_variant_listed_verified_benchmarked(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args, "--plugin %s list --format json --output %s/list.json", plugin,
             dir);
    assert_int_equal(run(args), 0);
    json_t *j = load_json("list.json");
    json_t *vars = json_object_get(j, "variants");
    int found = 0;
    for (size_t i = 0; i < json_array_size(vars); i++) {
        json_t *v = json_array_get(vars, i);
        if (!strcmp(json_string_value(json_object_get(v, "name")), "example-naive")) {
            found = 1;
            assert_string_equal(json_string_value(json_object_get(v, "backend")), "cpu");
        }
    }
    assert_true(found);
    json_decref(j);

    snprintf(args, sizeof args,
             "--plugin %s verify --variant example-naive --logn 4,9 --limbs 1,2 --bits 30,62 "
             "--format json --output %s/verify.json",
             plugin, dir);
    assert_int_equal(run(args), 0);
    j = load_json("verify.json");
    json_t *sum = json_object_get(j, "summary");
    assert_int_equal(json_integer_value(json_object_get(sum, "pass")), 16);
    assert_int_equal(json_integer_value(json_object_get(sum, "fail")), 0);
    json_decref(j);

    snprintf(args, sizeof args,
             "run --plugin %s --variant example-naive --tier warm,cold --logn 9 --limbs 2 "
             "--format json --output %s/plugin_run.json %s",
             plugin, dir, quick);
    assert_int_equal(run(args), 0);
    j = load_json("plugin_run.json");
    json_t *cases = json_object_get(j, "cases");
    assert_int_equal(json_array_size(cases), 2);
    for (size_t i = 0; i < 2; i++) {
        json_t *c = json_array_get(cases, i);
        assert_string_equal(json_string_value(json_object_get(c, "variant")), "example-naive");
        assert_string_equal(json_string_value(json_object_get(c, "status")), "ok");
        assert_true(json_integer_value(json_object_get(json_object_get(c, "stats"), "samples")) >=
                    10);
    }
    json_decref(j);

    /* without the plug-in the name is unknown: bad usage */
    assert_int_equal(run("run --variant example-naive --logn 8"), 2);
    assert_one_error_line();
}

static void test_broken_variant_is_reported_never_timed(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args,
             "--plugin %s verify --variant example-broken --logn 6 --limbs 2 --bits 40 "
             "--direction forward",
             plugin);
    assert_int_equal(run(args), 1);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "FAIL"));
    assert_non_null(strstr(out, "limb 0 index"));
    free(out);
    snprintf(args, sizeof args,
             "--plugin %s run --variant example-broken --tier warm --logn 6 --limbs 2 "
             "--format json --output %s/broken.json %s",
             plugin, dir, quick);
    assert_int_equal(run(args), 1);
    json_t *j = load_json("broken.json");
    json_t *c = json_array_get(json_object_get(j, "cases"), 0);
    assert_string_equal(json_string_value(json_object_get(c, "status")), "verify-failed");
    assert_int_equal(json_array_size(json_object_get(c, "samples_ns")), 0);
    assert_true(json_is_null(json_object_get(c, "stats")));
    assert_string_equal(json_string_value(json_object_get(json_object_get(c, "verification"),
                                                          "before")),
                        "fail");
    json_decref(j);
}

static void test_exit_codes_and_messages(void **state)
{
    (void)state;
    assert_int_equal(run("frobnicate"), 2);
    assert_one_error_line();
    assert_int_equal(run("run --logn 5:3"), 2);
    assert_one_error_line();
    assert_int_equal(run("run --min-samples"), 2);
    assert_one_error_line();
    assert_int_equal(run("run --tier cold --l2-persist 0.5"), 2);
    assert_one_error_line();
    assert_int_equal(run("run --format yaml"), 2);
    assert_one_error_line();
    assert_int_equal(run("--plugin /nonexistent/libnope.so list"), 3);
    assert_one_error_line();
    if (nb_gpu_count() == 0) {
        assert_int_equal(run("run --backend gpu --logn 10"), 3);
        assert_one_error_line();
        assert_int_equal(run("calibrate --backend gpu"), 3);
        assert_one_error_line();
    }
    assert_int_equal(run("--help"), 0);
    assert_int_equal(run("run --help"), 0);
    char *h = slurp("out.txt");
    assert_non_null(strstr(h, "--min-samples"));
    free(h);
}

static void write_text(const char *name, const uint64_t *v, size_t n)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "# limb-major test input\n");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%llu\n", (unsigned long long)v[i]);
    fclose(f);
}

static void test_transform_and_check_round_trip(void **state)
{
    (void)state;
    const unsigned log_n = 6;
    const size_t N = 64, L = 2;
    uint64_t q[2], in[128], ref[128];
    assert_int_equal(nb_primes_generate(log_n, 40, L, NULL, 0, q), NB_OK);
    nb_test_fill_residues(in, N, q, L);
    write_text("in.txt", in, N * L);
    /* what the GMP reference says, in process */
    memcpy(ref, in, sizeof in);
    for (size_t l = 0; l < L; l++) {
        uint64_t psi;
        assert_int_equal(nb_root_minimal(q[l], log_n, &psi), NB_OK);
        assert_int_equal(nb_ref_ntt_forward(ref + l * N, log_n, q[l], psi), NB_OK);
    }
    char args[1024], primes[64];
    snprintf(primes, sizeof primes, "%llu,%llu", (unsigned long long)q[0],
             (unsigned long long)q[1]);
    snprintf(args, sizeof args,
             "transform --variant reference --direction forward --logn 6 --primes %s --in "
             "%s/in.txt --out %s/ref.bin",
             primes, dir, dir);
    assert_int_equal(run(args), 0);
    uint64_t *got;
    size_t n;
    char path[256];
    snprintf(path, sizeof path, "%s/ref.bin", dir);
    assert_int_equal(nb_cli_read_coeffs(path, "raw", N * L, "", &got, &n), NB_OK);
    assert_int_equal(n, N * L);
    assert_memory_equal(got, ref, sizeof ref); /* raw little-endian, limb-major */
    free(got);
    snprintf(args, sizeof args,
             "transform --variant cpu-harvey --direction forward --logn 6 --primes %s --in "
             "%s/in.txt --out %s/harvey.bin",
             primes, dir, dir);
    assert_int_equal(run(args), 0);
    snprintf(args, sizeof args, "check --expected %s/ref.bin --actual %s/harvey.bin --logn 6", dir,
             dir);
    assert_int_equal(run(args), 0);
    /* inverse back to the input, written as text */
    snprintf(args, sizeof args,
             "transform --variant cpu-harvey --direction inverse --logn 6 --primes %s --in "
             "%s/harvey.bin --out %s/back.txt",
             primes, dir, dir);
    assert_int_equal(run(args), 0);
    snprintf(args, sizeof args, "check --expected %s/in.txt --actual %s/back.txt", dir, dir);
    assert_int_equal(run(args), 0);
    /* one wrong value: limb 1, index 5 */
    ref[N + 5] = (ref[N + 5] + 1) % q[1];
    write_text("wrong.txt", ref, N * L);
    snprintf(args, sizeof args,
             "check --expected %s/ref.bin --actual %s/wrong.txt --logn 6 --format json", dir, dir);
    assert_int_equal(run(args), 1);
    json_t *j = load_json("out.txt");
    assert_int_equal(json_integer_value(json_object_get(j, "mismatches")), 1);
    json_t *m = json_array_get(json_object_get(j, "first_mismatches"), 0);
    assert_int_equal(json_integer_value(json_object_get(m, "limb")), 1);
    assert_int_equal(json_integer_value(json_object_get(m, "index")), 5);
    json_decref(j);
    /* inputs out of range or of the wrong length are usage errors */
    in[3] = q[0];
    write_text("bad.txt", in, N * L);
    snprintf(args, sizeof args,
             "transform --variant cpu-harvey --direction forward --logn 6 --primes %s --in "
             "%s/bad.txt --out %s/x.bin",
             primes, dir, dir);
    assert_int_equal(run(args), 2);
    assert_one_error_line();
    write_text("short.txt", in, N);
    snprintf(args, sizeof args,
             "transform --variant reference --direction forward --logn 6 --primes %s --in "
             "%s/short.txt --out %s/x.bin",
             primes, dir, dir);
    assert_int_equal(run(args), 2);
    assert_one_error_line();
    snprintf(args, sizeof args,
             "transform --variant reference --direction forward --logn 6 --primes 97,%llu --in "
             "%s/in.txt --out %s/x.bin",
             (unsigned long long)q[1], dir, dir);
    assert_int_equal(run(args), 2); /* 97 is not 1 mod 128 */
}

static void test_env_list_calibrate(void **state)
{
    (void)state;
    assert_int_equal(run("env --format json"), 0);
    json_t *j = load_json("out.txt");
    assert_non_null(json_object_get(json_object_get(j, "host"), "cpu"));
    assert_non_null(json_object_get(j, "git_commit"));
    json_decref(j);
    assert_int_equal(run("list"), 0);
    char *t = slurp("out.txt");
    assert_non_null(strstr(t, "cpu-harvey"));
    free(t);
    char args[512];
    snprintf(args, sizeof args,
             "calibrate --backend cpu --format json --output %s/cal.json --min-time 0.001 "
             "--min-samples 3 --max-samples 10 --timeout 0.5 --warmup 1 --warmup-time 0",
             dir);
    assert_int_equal(run(args), 0);
    j = load_json("cal.json");
    assert_true(json_real_value(json_object_get(j, "copy_bandwidth_Bps")) > 0);
    assert_true(json_real_value(json_object_get(j, "cache_resident_bandwidth_Bps")) > 0);
    assert_int_equal(json_array_size(json_object_get(j, "hot_cold_copy")), 7);
    /* the GPU-only rows are present and null on the CPU */
    static const char *const gpu_only[] = {"launch_device_ns", "kernel_boundary_pdl_ns",
                                           "grid_barrier_ns", "butterflies_per_s",
                                           "butterflies32_per_s"};
    for (size_t i = 0; i < sizeof gpu_only / sizeof gpu_only[0]; i++)
        if (!json_is_null(json_object_get(j, gpu_only[i])))
            fail_msg("calibrate --backend cpu: %s is not null", gpu_only[i]);
    json_decref(j);
}

int main(int argc, char **argv)
{
    nb_test_seed_init();
    if (argc < 3) {
        fprintf(stderr, "usage: %s NTTBENCH PLUGIN\n", argv[0]);
        return 2;
    }
    exe = argv[1];
    plugin = argv[2];
    if (cli_scratch_create("nb_cli_") != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_lists_and_ranges),
        cmocka_unit_test(test_run_options_defaults_and_values),
        cmocka_unit_test(test_run_tiers_and_cache_states),
        cmocka_unit_test(test_run_options_errors),
        cmocka_unit_test(test_exit_code_mapping),
        cmocka_unit_test(test_e2e_cpu_warm_cold_json),
        cmocka_unit_test(test_e2e_other_formats),
        cmocka_unit_test(test_plugin_variant_listed_verified_benchmarked),
        cmocka_unit_test(test_broken_variant_is_reported_never_timed),
        cmocka_unit_test(test_exit_codes_and_messages),
        cmocka_unit_test(test_transform_and_check_round_trip),
        cmocka_unit_test(test_env_list_calibrate),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cli_scratch_remove();
    return rc;
}

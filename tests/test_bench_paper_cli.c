/* Tests of `nttbench primes` (every printed prime checked with GMP: prime,
 * = 1 mod 2N, exactly the bits asked, root of order exactly 2N, the largest
 * such primes in decreasing order) and `nttbench report` (the methods
 * paragraph and checklist carry the values of the result file they were made
 * from). argv[1] = the nttbench executable, argv[2] = tests/data. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <gmp.h>

#include "testutil.h"
#include "cliutil.h"

static const char *data_dir;

/* psi has multiplicative order exactly 2N mod q (2N a power of two: psi^N = -1). */
static int order_is_2n(uint64_t psi, uint64_t q, unsigned log_n)
{
    mpz_t p, m, r;
    mpz_inits(p, m, r, NULL);
    mpz_set_ui(p, psi);
    mpz_set_ui(m, q);
    mpz_powm_ui(r, p, 1ul << log_n, m);
    mpz_add_ui(r, r, 1);
    int ok = mpz_cmp(r, m) == 0; /* psi^N = q - 1 */
    mpz_powm_ui(r, p, 2ul << log_n, m);
    ok = ok && mpz_cmp_ui(r, 1) == 0;
    mpz_clears(p, m, r, NULL);
    return ok;
}

static void check_primes(unsigned log_n, unsigned bits, unsigned count)
{
    char args[256];
    snprintf(args, sizeof args, "--format json primes --logn %u --bits %u --count %u", log_n,
             bits, count);
    assert_int_equal(run(args), 0);
    json_t *j = load_json("out.txt");
    const json_t *a = json_object_get(j, "primes");
    assert_int_equal(json_array_size(a), count);
    uint64_t prev = UINT64_MAX;
    mpz_t z;
    mpz_init(z);
    for (size_t i = 0; i < count; i++) {
        const json_t *e = json_array_get(a, i);
        uint64_t q = strtoull(json_string_value(json_object_get(e, "q")), NULL, 10);
        uint64_t psi = strtoull(json_string_value(json_object_get(e, "psi")), NULL, 10);
        mpz_set_ui(z, q);
        if (!mpz_probab_prime_p(z, 40) || q % (2ull << log_n) != 1 ||
            mpz_sizeinbase(z, 2) != bits || !order_is_2n(psi, q, log_n) || q >= prev)
            fail_msg("logn %u bits %u: q=%" PRIu64 " psi=%" PRIu64 " fails", log_n, bits, q, psi);
        /* no prime = 1 mod 2N was skipped between this one and the previous */
        for (uint64_t c = q + (2ull << log_n); i > 0 && c < prev; c += 2ull << log_n) {
            mpz_set_ui(z, c);
            assert_false(mpz_probab_prime_p(z, 40));
        }
        prev = q;
    }
    mpz_clear(z);
    json_decref(j);
}

static void test_primes_are_ntt_friendly_with_roots_of_order_2n(void **state)
{
    (void)state;
    check_primes(16, 60, 6);
    check_primes(12, 36, 5);
    check_primes(17, 62, 3);
    check_primes(3, 10, 4);
    check_primes(1 + (unsigned)nb_test_rand_below(16), 30 + (unsigned)nb_test_rand_below(30), 3);
}

static void test_primes_text_and_errors(void **state)
{
    (void)state;
    assert_int_equal(run("--format csv primes --logn 10 --bits 40 --count 2"), 0);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "index,q,psi\n0,\"")); /* 64-bit values quoted */
    free(out);
    assert_int_equal(run("primes --logn 16 --bits 20 --count 3"), 2);
    assert_int_equal(run("primes --logn 30"), 2);
    assert_int_equal(run("primes --bits 63"), 2);
    assert_int_equal(run("primes --count 0"), 2);
}

static void test_report_is_filled_in_from_the_file(void **state)
{
    (void)state;
    char args[512], path[512];
    snprintf(args, sizeof args, "--format md report %s/ntt-h100-small.json", data_dir);
    assert_int_equal(run(args), 0);
    char *out = slurp("out.txt");
    snprintf(path, sizeof path, "%s/ntt-h100-small.json", data_dir);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    assert_non_null(j);
    const json_t *env = json_object_get(j, "environment");
    const json_t *gpu = json_object_get(env, "gpu");
    static const char *const gpu_fields[] = {"name", "nvml_driver", "cuda_runtime", "ecc"};
    for (int i = 0; i < 4; i++)
        assert_non_null(strstr(out, json_string_value(json_object_get(gpu, gpu_fields[i]))));
    assert_non_null(strstr(out, json_string_value(json_object_get(env, "timestamp_utc"))));
    const json_t *opt = json_object_get(j, "options");
    char want[128];
    snprintf(want, sizeof want, "at least %lld samples",
             (long long)json_integer_value(json_object_get(opt, "min_samples")));
    assert_non_null(strstr(out, want));
    /* flush bytes and rotation sets of the cold cases, samples range */
    const json_t *cases = json_object_get(j, "cases");
    double flush = 0, sets_max = 0, smin = 1e300, smax = 0;
    for (size_t i = 0; i < json_array_size(cases); i++) {
        const json_t *c = json_array_get(cases, i), *cache = json_object_get(c, "cache");
        double fb = json_number_value(json_object_get(cache, "flush_bytes"));
        double sets = (double)json_integer_value(json_object_get(cache, "sets"));
        double n = (double)json_integer_value(json_object_get(json_object_get(c, "stats"),
                                                              "samples"));
        flush = fb > flush ? fb : flush;
        sets_max = sets > sets_max ? sets : sets_max;
        smin = n < smin ? n : smin;
        smax = n > smax ? n : smax;
    }
    snprintf(want, sizeof want, "flush: %.0f MiB", flush / 1048576.0);
    assert_non_null(strstr(out, want));
    snprintf(want, sizeof want, "..%.0f buffer sets", sets_max);
    assert_non_null(strstr(out, want));
    snprintf(want, sizeof want, "Samples per case: %.0f..%.0f", smin, smax);
    assert_non_null(strstr(out, want));
    static const char *const words[] = {"## Methods", "CUDA events", "blocking kernel",
                                        "SM clock", "noise target met", "## Reporting checklist",
                                        "- [x] **verification against the CPU oracle "
                                        "(GMP-checked)**",
                                        "checked bit-exact before and after timing against "
                                        "nttbench's CPU oracle", "nttbench run"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strstr(out, words[i]))
            fail_msg("report lacks '%s'", words[i]);
    json_decref(j);
    free(out);
    snprintf(args, sizeof args, "report %s/stage-h100-small.json", data_dir);
    assert_int_equal(run(args), 0);
    out = slurp("out.txt");
    static const char *const stage_words[] = {"stage tier", "preset ckks16-l30-d3",
                                              "stage modup, moddown, keyswitch, rescale",
                                              "level 30", "dnum 3", "12 of 12 passed"};
    for (size_t i = 0; i < sizeof stage_words / sizeof stage_words[0]; i++)
        if (!strstr(out, stage_words[i]))
            fail_msg("stage report lacks '%s'", stage_words[i]);
    free(out);
    snprintf(args, sizeof args, "report %s/calibrate-h100.json", data_dir);
    assert_int_equal(run(args), 2);
    snprintf(args, sizeof args, "--format csv report %s/ntt-h100-small.json", data_dir);
    assert_int_equal(run(args), 2);
}

/* Guards: a methods text without what bounds each GPU case, or one that
 * ignores --calibration (the classes of tests/test_bench_bound.c). */
static void test_report_says_what_bounds_each_gpu_case(void **state)
{
    (void)state;
    char args[512];
    snprintf(args, sizeof args, "--format md report %s/ntt-h100-bounds.json --calibration "
             "%s/calibrate-h100-words.json", data_dir, data_dir);
    assert_int_equal(run(args), 0);
    char *out = slurp("out.txt");
    static const char *const words[] = {
        "### Bounds", "(calibration)", "Of 5 cases, 2 are compute-bound, 0 memory-bound, 1 "
        "launch-bound and 2 latency-bound.",
        "- `warm gpu-fast inv logn=17 L=32 q60`: 59 % bfly, 36 % copy, 5 % launch: compute-bound",
        "- [x] **bound of each GPU case against measured ceilings**"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strstr(out, words[i]))
            fail_msg("report lacks '%s'", words[i]);
    free(out);
    snprintf(args, sizeof args, "report %s/ntt-h100-bounds.json", data_dir);
    assert_int_equal(run(args), 0);
    out = slurp("out.txt");
    assert_non_null(strstr(out, "(default)"));
    assert_non_null(strstr(out, "[ ] bound of each GPU case"));
    free(out);
    snprintf(args, sizeof args, "report %s/ntt-cpu-logn.json", data_dir); /* no GPU case */
    assert_int_equal(run(args), 0);
    out = slurp("out.txt");
    assert_null(strstr(out, "Bounds"));
    free(out);
    snprintf(args, sizeof args, "report %s/ntt-h100-bounds.json --calibration "
             "%s/ntt-h100-bounds.json", data_dir, data_dir);
    assert_int_equal(run(args), 2);
    /* run refuses a file that is not a GPU calibration before it measures anything */
    snprintf(args, sizeof args, "run --backend cpu --logn 10 --limbs 1 --calibration "
             "%s/ntt-cpu-logn.json", data_dir);
    assert_int_equal(run(args), 2);
}

/* Guards: a case that failed its check before timing was left out of the
 * count, so the report read "1 of 1 passed" with a ticked verification box
 * for a run that exited 1; and a host LLC set by NB_HOST_LLC_BYTES read as
 * the host's own. */
static void test_report_names_failed_checks_and_a_set_llc(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/ntt-cpu-logn.json", data_dir);
    json_t *r = json_load_file(path, 0, NULL);
    assert_non_null(r);
    json_t *cases = json_object_get(r, "cases"), *bad = json_deep_copy(json_array_get(cases, 0));
    json_object_set_new(bad, "status", json_string("verify-failed"));
    json_object_set_new(bad, "stats", json_null());
    json_object_set_new(bad, "samples_ns", json_array());
    json_object_set_new(bad, "sample_sm_clock_mhz", json_array());
    json_object_set_new(json_object_get(bad, "verification"), "before", json_string("fail"));
    json_object_set_new(json_object_get(bad, "verification"), "after", json_string("not-run"));
    json_array_append_new(cases, bad);
    json_t *host = json_object_get(json_object_get(r, "environment"), "host");
    json_object_set_new(host, "llc_source", json_string("NB_HOST_LLC_BYTES"));
    snprintf(path, sizeof path, "%s/failed.json", dir);
    assert_int_equal(json_dump_file(r, path, 0), 0);
    json_decref(r);
    char args[512];
    snprintf(args, sizeof args, "report %s", path);
    assert_int_equal(run(args), 0);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "Not timed: 1 case failed its check against the oracle before "
                                "timing, so its result is wrong"));
    assert_non_null(strstr(out, "[ ] verification against the CPU oracle (GMP-checked): 16 of "
                                "16 timed cases passed before and after timing; 1 case failed "
                                "its check before timing and was not timed"));
    assert_non_null(strstr(out, "32 MiB last-level cache as NB_HOST_LLC_BYTES set it, not the "
                                "one the host reports"));
    free(out);
    /* a case that failed the check after timing keeps its samples: timed */
    r = json_load_file(path, 0, NULL);
    json_t *c0 = json_array_get(json_object_get(r, "cases"), 0);
    json_object_set_new(c0, "status", json_string("verify-failed"));
    json_object_set_new(json_object_get(c0, "verification"), "after", json_string("fail"));
    assert_int_equal(json_dump_file(r, path, 0), 0);
    json_decref(r);
    assert_int_equal(run(args), 0);
    out = slurp("out.txt");
    assert_non_null(strstr(out, "1 timed case failed the check after timing: its time is of "
                                "wrong output"));
    assert_non_null(strstr(out, "[ ] verification against the CPU oracle (GMP-checked): 15 of "
                                "16 timed cases passed"));
    free(out);
}

/* Guards: the methods text of a run at equal log Q named neither the word
 * sizes nor the modulus, on which a 32- against 64-bit claim rests. */
static void test_report_names_word_sizes_and_log_q(void **state)
{
    (void)state;
    char args[512];
    snprintf(args, sizeof args, "-q --format json --output %s/words.json run --variant "
             "cpu-harvey,cpu-harvey32 --word 32,64 --logq 120,240 --logn 10 --tier warm "
             "--min-time 0.01 --timeout 0.05 --no-progress", dir);
    assert_int_equal(run(args), 0);
    snprintf(args, sizeof args, "report %s/words.json", dir);
    assert_int_equal(run(args), 0);
    char *out = slurp("out.txt");
    static const char *const words[] = {"word bits 64, 32", "log Q targets 120, 240",
                                        "log Q 120.."};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strstr(out, words[i]))
            fail_msg("report lacks '%s': %s", words[i], out);
    free(out);
}

/* Guards: a run whose --backend auto took the CPU for want of a GPU said
 * "GPU none" without the reason `env` gives. */
static void test_auto_run_without_a_gpu_says_why(void **state)
{
    (void)state;
    char args[512];
    snprintf(args, sizeof args, "-q --format json --output %s/auto.json run --logn 10 --limbs 1 "
             "--tier warm --min-time 0.01 --timeout 0.05 --no-progress", dir);
    assert_int_equal(run(args), 0);
    json_t *j = load_json("auto.json");
    const json_t *env = json_object_get(j, "environment");
    const char *why = json_string_value(json_object_get(env, "gpu_none_reason"));
    if (json_is_null(json_object_get(env, "gpu")))
        assert_true(why && why[0]);
    else
        assert_null(why);
    json_decref(j);
    snprintf(args, sizeof args, "-q --format json --output %s/cpu.json run --variant cpu-harvey "
             "--logn 10 --limbs 1 --tier warm --min-time 0.01 --timeout 0.05 --no-progress", dir);
    assert_int_equal(run(args), 0);
    j = load_json("cpu.json");
    assert_null(json_object_get(json_object_get(j, "environment"), "gpu_none_reason"));
    json_decref(j);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s NTTBENCH DATA_DIR\n", argv[0]);
        return 2;
    }
    exe = argv[1];
    data_dir = argv[2];
    nb_test_seed_init();
    if (cli_scratch_create("nbpaper") != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_primes_are_ntt_friendly_with_roots_of_order_2n),
        cmocka_unit_test(test_primes_text_and_errors),
        cmocka_unit_test(test_report_is_filled_in_from_the_file),
        cmocka_unit_test(test_report_says_what_bounds_each_gpu_case),
        cmocka_unit_test(test_report_names_failed_checks_and_a_set_llc),
        cmocka_unit_test(test_report_names_word_sizes_and_log_q),
        cmocka_unit_test(test_auto_run_without_a_gpu_says_why),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cli_scratch_remove();
    return rc;
}

/* A result file that contradicts itself is refused or named, never read as
 * if it were whole: statistics without their sample count (the check of the
 * median against the samples needs it), an "ok" case whose check failed, a
 * cache state no run writes, and a finished run's file holding fewer cases
 * than it planned; one sample's noise is unknown, and cpu-harvey's cases
 * are not called checked by an oracle other than themselves. Rejected
 * inputs and warnings are rows of the bad-input
 * table (clirows.h). argv: NTTBENCH [TABLE-FILE]. */
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wunused-function" /* clirows.h helpers this file does not use */
#include "testutil.h"
#include "cliutil.h"
#include "clirows.h"

/* dir/NAME: dir/base.json with case 0's `stats` object changed: `key` set to
 * `value`, or removed when value is NULL, and its median multiplied by
 * `scale`. */
static void derive_stats(const char *name, const char *key, json_t *value, double scale)
{
    json_t *j = load_json("base.json");
    json_t *st = json_object_get(json_array_get(json_object_get(j, "cases"), 0), "stats");
    assert_true(json_is_object(st));
    if (value)
        json_object_set_new(st, key, value);
    else
        json_object_del(st, key);
    json_t *m = json_object_get(st, "median");
    json_object_set_new(st, "median", json_real(json_number_value(m) * scale));
    assert_int_equal(json_dump_file(j, at(name), JSON_INDENT(1) | JSON_PRESERVE_ORDER), 0);
    json_decref(j);
}

/* Guards: with stats.samples removed, a median tripled by hand was compared
 * (ratio 1.0000 beside medians 3x apart) and plotted: the check of the
 * median against the samples needs the count. */
static void test_stats_without_a_sample_count_are_refused(void **state)
{
    (void)state;
    derive_stats("nocount.json", "samples", NULL, 3.0);
    expect_error("statistics without their sample count",
                 (const char *[]){"compare", at("base.json"), at("nocount.json"), NULL}, 2,
                 "DIR/nocount.json: case 0: 'stats' has no sample count ('stats.samples')");
    derive_stats("counted.json", "samples", NULL, 1.0);
    expect_error("statistics without their sample count (report)",
                 (const char *[]){"report", at("counted.json"), NULL}, 2,
                 "'stats' has no sample count");
}

/* Guards: a case edited to status ok after its check failed was judged
 * `same`, exit 0. */
static void test_ok_case_whose_check_failed_is_refused(void **state)
{
    (void)state;
    derive_cases("okfail.json", "{\"verification\": {\"before\": \"pass\", \"after\": \"fail\"}}");
    expect_error("status ok after a failed check",
                 (const char *[]){"compare", at("base.json"), at("okfail.json"), NULL}, 2,
                 "DIR/okfail.json: case 0: status ok, but its check after timing failed");
    derive_cases("okodd.json", "{\"verification\": {\"before\": \"maybe\", \"after\": \"pass\"}}");
    expect_error("a check that is none of pass, fail, not-run",
                 (const char *[]){"report", at("okodd.json"), NULL}, 2,
                 "'verification.before' is none of pass, fail, not-run");
}

/* Guards: cache_state "lukewarm" was read and the case matched with the
 * base's warm one. */
static void test_unknown_cache_state_is_refused(void **state)
{
    (void)state;
    derive_cases("lukewarm.json", "{\"cache_state\": \"lukewarm\"}");
    expect_error("a cache state no run writes",
                 (const char *[]){"compare", at("base.json"), at("lukewarm.json"), NULL}, 2,
                 "DIR/lukewarm.json: case 0: 'cache_state' is none of warm, flush, rotate, both");
    /* Guards: a log Q of -3 was paired by compare --match word and reported as a range */
    json_t *j = load_json("base.json");
    json_object_set_new(json_object_get(json_array_get(json_object_get(j, "cases"), 0), "params"),
                        "log_q", json_integer(-3));
    assert_int_equal(json_dump_file(j, at("neglogq.json"), JSON_INDENT(1)), 0);
    json_decref(j);
    expect_error("a log Q no modulus has",
                 (const char *[]){"report", at("neglogq.json"), NULL}, 2,
                 "DIR/neglogq.json: case 0: 'params.log_q' -3 is not in (0, 1000000]");
}

/* Guards: a finished run's file with cases cut out (complete: true, fewer
 * cases than cases_planned) was compared and reported without a word. */
static void test_short_file_is_named(void **state)
{
    (void)state;
    json_t *j = load_json("base.json");
    assert_true(json_is_true(json_object_get(j, "complete")));
    json_object_set_new(j, "cases_planned", json_integer(3));
    assert_int_equal(json_dump_file(j, at("short.json"), JSON_INDENT(1) | JSON_PRESERVE_ORDER),
                     0);
    json_decref(j);
    expect_warning("compare with a finished run's file missing cases",
                   (const char *[]){"compare", at("base.json"), at("short.json"), NULL}, 0,
                   "DIR/short.json: holds 1 of 3 planned cases although its run finished: "
                   "cases were removed from it");
    expect_warning("report on a finished run's file missing cases",
                   (const char *[]){"report", at("short.json"), NULL}, 0,
                   "holds 1 of 3 planned cases although its run finished");
    char *o = slurp("out.txt");
    if (!strstr(o, "The file holds 1 of the 3 planned cases although its sweep finished"))
        fail_msg("report: %s", o);
    free(o);
}

/* Guards: a run of one sample a case read "noise 0.00 %" (one sample has no
 * spread) and report's "noise 0.00..0.00 % (mean nan %)"; report called
 * cpu-harvey's check against the CPU oracle GMP-checked, though cpu-harvey
 * is that oracle. */
static void test_one_sample_and_the_oracles_own_cases(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){"-q", "--format", "json", "--output", at("one.json"),
                                            "run", "--variant", "cpu-harvey", "--tier", "warm",
                                            "--logn", "10", "--limbs", "1", "--min-samples",
                                            "1", "--max-samples", "1", "--warmup", "0",
                                            "--warmup-time", "0", "--min-time", "0", NULL}),
                     0);
    json_t *j = load_json("one.json");
    json_t *st = json_object_get(json_array_get(json_object_get(j, "cases"), 0), "stats");
    assert_true(json_is_null(json_object_get(st, "noise_pct")));
    assert_true(json_is_null(json_object_get(st, "stddev")));
    json_decref(j);
    assert_int_equal(run_v((const char *[]){"report", at("one.json"), NULL}), 0);
    char *o = slurp("out.txt");
    if (!strstr(o, "noise unknown (one sample a case)") || strstr(o, "nan") ||
        !strstr(o, "1 of them cpu-harvey's, the oracle itself"))
        fail_msg("report: %s", o);
    free(o);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_without_a_sample_count_are_refused),
        cmocka_unit_test(test_ok_case_whose_check_failed_is_refused),
        cmocka_unit_test(test_unknown_cache_state_is_refused),
        cmocka_unit_test(test_short_file_is_named),
        cmocka_unit_test(test_one_sample_and_the_oracles_own_cases),
    };
    return cli_rows_main(argc, argv, "nb-checks-", "result_checks", tests,
                         sizeof tests / sizeof tests[0], make_quick_base);
}

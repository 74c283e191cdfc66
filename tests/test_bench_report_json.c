/* Tests of the JSON report document (bench/report/json_doc.c): what a write
 * produces is byte for byte jansson's dump of the parsed document, with and
 * without cases, and a report rewritten as cases arrive, whose ceilings
 * change between two writes, ends in the same text as one written once with
 * everything in it (the kept case texts are made again when the ceilings
 * they read change, and kept while they do not). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bench/bench.h"
#include "bench/report/internal.h"
#include "reportutil.h"

#define DUMP_FLAGS (JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))

/* text must equal the dump of its own parse (and its final newline). */
static void assert_whole_dump(const char *text)
{
    json_error_t err;
    json_t *j = json_loads(text, 0, &err);
    if (!j)
        fail_msg("JSON does not parse: %s (line %d)", err.text, err.line);
    char *again = json_dumps(j, DUMP_FLAGS);
    assert_non_null(again);
    const size_t n = strlen(again);
    if (strlen(text) != n + 1 || strncmp(text, again, n) || text[n] != '\n')
        fail_msg("the written JSON differs from the dump of its parse (%zu against %zu bytes)",
                 strlen(text), n + 1);
    free(again);
    json_decref(j);
}

static nb_report *new_report(const nb_env *e)
{
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    char *argv[] = {"nttbench", "run", "--tier", "warm,cold"};
    assert_int_equal(nb_report_set_argv(rep, 4, argv), NB_OK);
    nb_report_set_env(rep, e);
    nb_bench_opts o;
    nb_bench_opts_default(&o);
    nb_report_set_options(rep, &o);
    nb_report_set_planned(rep, 4);
    nb_report_set_complete(rep, 0);
    return rep;
}

/* Case i of the sweep: GPU NTT cases with samples and figures, the third
 * one skipped. */
static void add_case(nb_report *rep, int i)
{
    nb_case *c = NULL;
    if (i == 2) {
        assert_int_equal(nb_case_create(&c, "warm", NB_CACHE_WARM, "gpu-x", NB_BACKEND_GPU,
                                        "fwd logn=20 \"quoted\" L=3"),
                         NB_OK);
        nb_case_set_status(c, NB_CASE_SKIPPED, "log_n=20 outside the variant's range");
    } else {
        c = nb_test_gpu_ntt_case(i ? "cold" : "warm", i ? NB_CACHE_COLD : NB_CACHE_WARM,
                                 i == 3 ? "gpu-fast32" : "gpu-fast");
        assert_int_equal(nb_case_metric(c, "per_ntt_ns", 1234.5 + i), NB_OK);
        nb_case_set_status(c, NB_CASE_OK, NULL);
        nb_case_set_wall_time(c, 0.25 + i);
    }
    assert_int_equal(nb_report_add_case(rep, c), NB_OK);
}

static void test_written_text_is_the_whole_documents_dump(void **state)
{
    (void)state;
    nb_env e;
    assert_int_equal(nb_env_collect(&e, 0, 0), NB_OK);
    nb_report *rep = new_report(&e);
    char *empty = nb_test_report_text(rep, NB_FORMAT_JSON);
    assert_non_null(strstr(empty, "\"cases\": [],"));
    assert_whole_dump(empty);
    for (int i = 0; i < 3; i++)
        add_case(rep, i);
    nb_report_set_wall_time(rep, 9.5);
    char *text = nb_test_report_text(rep, NB_FORMAT_JSON);
    assert_whole_dump(text);
    json_t *j = json_loads(text, 0, NULL);
    assert_int_equal(json_array_size(json_object_get(j, "cases")), 3);
    assert_non_null(json_object_get(j, "overhead"));
    json_decref(j);
    free(text);
    free(empty);
    nb_report_destroy(rep);
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

static void test_rewrites_end_as_one_write_with_everything(void **state)
{
    (void)state;
    nb_env e;
    assert_int_equal(nb_env_collect(&e, 0, 0), NB_OK);
    nb_ceilings ceil;
    memset(&ceil, 0, sizeof ceil);
    nb_ceilings_default(&ceil, 2.7e12, 132, 1980);

    nb_report *grown = new_report(&e); /* written after each case, ceilings late */
    for (int i = 0; i < 2; i++) {
        add_case(grown, i);
        free(nb_test_report_text(grown, NB_FORMAT_JSON));
    }
    char *before = nb_test_report_text(grown, NB_FORMAT_JSON);
    nb_report_set_ceilings(grown, &ceil);
    add_case(grown, 2);
    add_case(grown, 3);
    nb_report_set_wall_time(grown, 12.0);
    nb_report_set_complete(grown, 1);
    char *after = nb_test_report_text(grown, NB_FORMAT_JSON);

    nb_report *once = new_report(&e); /* everything first, one write */
    nb_report_set_ceilings(once, &ceil);
    for (int i = 0; i < 4; i++)
        add_case(once, i);
    nb_report_set_wall_time(once, 12.0);
    nb_report_set_complete(once, 1);
    char *whole = nb_test_report_text(once, NB_FORMAT_JSON);

    assert_string_equal(after, whole);
    assert_whole_dump(after);
    /* with the ceilings unchanged, a further write keeps every case's text */
    const char *kept[4];
    for (size_t i = 0; i < 4; i++)
        kept[i] = nb_report_case_at(grown, i)->json_text;
    char *again = nb_test_report_text(grown, NB_FORMAT_JSON);
    assert_string_equal(again, whole);
    for (size_t i = 0; i < 4; i++)
        assert_ptr_equal(nb_report_case_at(grown, i)->json_text, kept[i]);
    free(again);
    /* the ceilings reached the cases written before them */
    assert_int_equal(count(before, "\"bound\""), 0);
    assert_int_equal(count(after, "\"bound\""), 3);
    free(before);
    free(after);
    free(whole);
    nb_report_destroy(grown);
    nb_report_destroy(once);
}

/* Guards: an argument that is not UTF-8 (a file name in Latin-1, a byte in a
 * --filter) vanished from command_line, so the recorded command could not
 * reproduce the run. */
static void test_command_line_keeps_arguments_that_are_not_utf8(void **state)
{
    (void)state;
    nb_env e;
    memset(&e, 0, sizeof e);
    nb_report *rep = new_report(&e);
    char *argv[] = {"nttbench", "--output", "r\xe9sultat.json", "run", "--filter",
                    "warm|\xff", "caf\xc3\xa9", "\xe2\x82"};
    assert_int_equal(nb_report_set_argv(rep, 8, argv), NB_OK);
    char *buf = nb_test_report_text(rep, NB_FORMAT_JSON);
    json_t *j = json_loads(buf, 0, NULL);
    assert_non_null(j);
    const json_t *a = json_object_get(j, "command_line");
    assert_int_equal(json_array_size(a), 8);
    assert_string_equal(json_string_value(json_array_get(a, 2)), "r\\xe9sultat.json");
    assert_string_equal(json_string_value(json_array_get(a, 5)), "warm|\\xff");
    assert_string_equal(json_string_value(json_array_get(a, 6)), "caf\xc3\xa9"); /* UTF-8 kept */
    assert_string_equal(json_string_value(json_array_get(a, 7)), "\\xe2\\x82"); /* cut short */
    json_decref(j);
    free(buf);
    nb_report_destroy(rep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_written_text_is_the_whole_documents_dump),
        cmocka_unit_test(test_rewrites_end_as_one_write_with_everything),
        cmocka_unit_test(test_command_line_keeps_arguments_that_are_not_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

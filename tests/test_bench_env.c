/* Tests of the environment block (nb_env_collect, nb_env_write): its JSON
 * and table forms, the NVML snapshot that says when NVML is absent, and the
 * NCCL settings it records (the caller's NCCL_* and NB_NCCL_* variables,
 * sorted, without NCCL_NVLS_ENABLE or the tuner nttbench arms itself). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bench/bench.h"
#ifdef NB_HAVE_NCCL
#include "ckks/nccl.h"
#endif
#include "reportutil.h"

static void test_env_writers(void **state)
{
    (void)state;
    nb_env e;
    assert_int_equal(nb_env_collect(&e, 1, 0), NB_OK);
    assert_true(e.host_cores >= 1);
    assert_true(e.host_llc_bytes > 0);
    assert_true(strlen(e.timestamp_utc) == 20);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(nb_env_write(&e, (nb_format)9, f), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_env_write(&e, NB_FORMAT_JSON, f), NB_OK);
    fclose(f);
    json_error_t err;
    json_t *j = json_loads(buf, 0, &err);
    assert_non_null(j);
    assert_non_null(json_object_get(json_object_get(j, "host"), "cpu"));
    assert_string_equal(json_string_value(json_object_get(j, "schema")), "nttbench-env");
    if (!e.has_gpu)
        assert_true(json_is_null(json_object_get(j, "gpu")));
    json_decref(j);
    free(buf);
    buf = NULL;
    f = open_memstream(&buf, &len);
    assert_int_equal(nb_env_write(&e, NB_FORMAT_TABLE, f), NB_OK);
    fclose(f);
    assert_non_null(strstr(buf, "host CPU"));
    free(buf);
    nb_nvml_snapshot s;
    nb_nvml_snapshot_take(&s); /* never fails: absent NVML says so */
    if (!s.available)
        assert_non_null(strstr(s.note, "unavailable"));
}

/* The NCCL_* and NB_NCCL_* variables, sorted, without NCCL_NVLS_ENABLE, in
 * the JSON and table forms; none: "" and "(none)". */
static void test_env_records_nccl_settings(void **state)
{
    (void)state;
    extern char **environ;
    char names[64][128];
    size_t k = 0;
    for (char **p = environ; *p && k < 64; p++)
        if (!strncmp(*p, "NCCL_", 5) || !strncmp(*p, "NB_NCCL_", 8))
            snprintf(names[k++], sizeof names[0], "%.*s", (int)strcspn(*p, "="), *p);
    for (size_t i = 0; i < k; i++)
        unsetenv(names[i]);
    nb_env e;
    assert_int_equal(nb_env_collect(&e, 0, 0), NB_OK);
    assert_string_equal(e.nccl_settings, "");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(nb_env_write(&e, NB_FORMAT_TABLE, f), NB_OK);
    fclose(f);
    assert_non_null(strstr(buf, "(none)"));
    free(buf);

    setenv("NCCL_PROTO", "LL128", 1);
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    setenv("NB_NCCL_EXCHANGE", "copy-engine", 1);
    setenv("NCCL_ALGO", "Ring", 1);
    assert_int_equal(nb_env_collect(&e, 0, 0), NB_OK);
    const char *want = "NB_NCCL_EXCHANGE=copy-engine NCCL_ALGO=Ring NCCL_PROTO=LL128";
    assert_string_equal(e.nccl_settings, want);
    buf = NULL;
    f = open_memstream(&buf, &len);
    assert_int_equal(nb_env_write(&e, NB_FORMAT_JSON, f), NB_OK);
    fclose(f);
    json_t *j = json_loads(buf, 0, NULL);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "nccl_settings")), want);
    json_decref(j);
    free(buf);
    unsetenv("NCCL_PROTO");
    unsetenv("NCCL_NVLS_ENABLE");
    unsetenv("NB_NCCL_EXCHANGE");
    unsetenv("NCCL_ALGO");
}

#ifdef NB_HAVE_NCCL
/* The NCCL_TUNER_PLUGIN nttbench sets for its own tuner is not a setting of
 * the caller's: left out; another value, the caller's, is recorded. */
static void test_env_leaves_out_the_tuner_nttbench_armed(void **state)
{
    (void)state;
    unsetenv("NCCL_TUNER_PLUGIN");
    unsetenv("NB_NCCL_TUNER");
    setenv("NCCL_PROTO", "Simple", 1);
    assert_int_equal(nb_nccl_tuner_arm(), 1);
    assert_non_null(getenv("NCCL_TUNER_PLUGIN"));
    nb_env e;
    assert_int_equal(nb_env_collect(&e, 0, 0), NB_OK);
    assert_null(strstr(e.nccl_settings, "NCCL_TUNER_PLUGIN"));
    assert_non_null(strstr(e.nccl_settings, "NCCL_PROTO=Simple"));
    setenv("NCCL_TUNER_PLUGIN", "/opt/tuners/libnccl-tuner-mine.so", 1);
    assert_int_equal(nb_env_collect(&e, 0, 0), NB_OK);
    assert_non_null(strstr(e.nccl_settings, "NCCL_TUNER_PLUGIN=/opt/tuners/libnccl-tuner-mine.so"));
    unsetenv("NCCL_TUNER_PLUGIN");
    unsetenv("NCCL_PROTO");
}
#endif

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_writers),
        cmocka_unit_test(test_env_records_nccl_settings),
#ifdef NB_HAVE_NCCL
        cmocka_unit_test(test_env_leaves_out_the_tuner_nttbench_armed),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* nttbench's NCCL tuner (ckks/nccl_tuner.c), called as NCCL calls it, on
 * cost tables of random prices: which entries it changes (Ring LL128 for
 * broadcasts of a megabyte or more, only where priced), which it leaves,
 * that it writes nothing outside the table it is given; and how it is armed
 * (NCCL_TUNER_PLUGIN pointed at a library that NCCL can open and find it
 * in, the caller's setting kept, NB_NCCL_TUNER checked); and the choice of
 * the exchanges' collective (NB_NCCL_EXCHANGE, against what the library and
 * the build offer). Needs no GPU and no NCCL library, only nccl.h at build
 * time (exit 77 without it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#ifdef NB_HAVE_NCCL
#include <dlfcn.h>

#include "ckks/nccl.h"

#define ALGOS 7 /* NCCL 2.28's algorithms and protocols */
#define PROTOS 3
#define RING 1
#define LL128 1
#define CANARY (-123.25f)

/* A table of random prices in [1, 1000) (NCCL's are microseconds), with
 * `disabled` entries at -1 as NCCL leaves what it will not run, and a
 * canary after it. */
static void fill(float *t, size_t n_algo, size_t n_proto, int disabled)
{
    for (size_t i = 0; i < n_algo * n_proto; i++)
        t[i] = 1.0f + (float)(nb_test_rand() % 999000u) / 1000.0f;
    for (int k = 0; k < disabled; k++)
        t[nb_test_rand() % (n_algo * n_proto)] = -1.0f;
    t[n_algo * n_proto] = CANARY;
}

static void call(int coll, size_t bytes, float *t, int n_algo, int n_proto)
{
    int channels = 17;
    assert_int_equal(ncclTunerPlugin_v4.get_coll_info(NULL, coll, bytes, 1, (float **)t, n_algo,
                                                      n_proto, 0, &channels),
                     ncclSuccess);
    assert_int_equal(channels, 17); /* the channel count stays NCCL's */
}

static void test_large_broadcasts_are_offered_ll128(void **state)
{
    (void)state;
    const size_t sizes[] = {NB_NCCL_LL128_MIN_BYTES, 2621440, 5767168, (size_t)1 << 30};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int rep = 0; rep < 20; rep++) {
            float t[ALGOS * PROTOS + 1], before[ALGOS * PROTOS + 1];
            fill(t, ALGOS, PROTOS, rep % 3);
            t[RING * PROTOS + LL128] = 50.0f + (float)rep; /* priced */
            memcpy(before, t, sizeof t);
            call(0, sizes[k], t, ALGOS, PROTOS);
            for (size_t i = 0; i < ALGOS * PROTOS + 1; i++)
                if (i == RING * PROTOS + LL128)
                    assert_true(t[i] == 0.0f);
                else if (memcmp(&t[i], &before[i], sizeof *t))
                    nb_test_fail("%zu bytes: entry %zu changed from %g to %g", sizes[k], i,
                                 (double)before[i], (double)t[i]);
        }
}

/* Small broadcasts, other collectives, and LL128 where NCCL did not price
 * it: the table comes back as it went in. */
static void test_everything_else_is_left_to_nccl(void **state)
{
    (void)state;
    const struct {
        int coll;
        size_t bytes;
        int ll128_disabled;
    } cases[] = {
        {0, 524288, 0},  {0, NB_NCCL_LL128_MIN_BYTES - 1, 0}, {0, 1, 0},
        {0, 5767168, 1}, {0, (size_t)1 << 30, 1},             {1, 5767168, 0},
        {2, 5767168, 0}, {3, 5767168, 0},                     {4, 5767168, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        float t[ALGOS * PROTOS + 1], before[ALGOS * PROTOS + 1];
        fill(t, ALGOS, PROTOS, 2);
        t[RING * PROTOS + LL128] = cases[k].ll128_disabled ? -1.0f : 40.0f;
        memcpy(before, t, sizeof t);
        call(cases[k].coll, cases[k].bytes, t, ALGOS, PROTOS);
        if (memcmp(t, before, sizeof t))
            nb_test_fail("collective %d, %zu bytes, LL128 %s: the table changed", cases[k].coll,
                         cases[k].bytes, cases[k].ll128_disabled ? "disabled" : "priced");
    }
}

/* A table too small to hold Ring LL128 is read and written nowhere. */
static void test_short_tables_are_not_overrun(void **state)
{
    (void)state;
    const int shapes[][2] = {{1, 3}, {2, 1}, {1, 1}, {2, 2}};
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        const int a = shapes[k][0], p = shapes[k][1];
        float t[8], before[8];
        fill(t, (size_t)a, (size_t)p, 0);
        memcpy(before, t, sizeof t);
        call(0, 5767168, t, a, p);
        if (a > RING && p > LL128) {
            assert_true(t[RING * p + LL128] == 0.0f);
            t[RING * p + LL128] = before[RING * p + LL128];
        }
        assert_memory_equal(t, before, (size_t)(a * p + 1) * sizeof *t);
    }
}

static void test_init_counts_communicators(void **state)
{
    (void)state;
    const unsigned long n0 = nb_nccl_tuner_inits();
    void *ctx = &ctx;
    assert_string_equal(ncclTunerPlugin_v4.name, "nttbench");
    assert_int_equal(ncclTunerPlugin_v4.init(2, 1, NULL, &ctx), ncclSuccess);
    assert_int_equal(ncclTunerPlugin_v4.destroy(ctx), ncclSuccess);
    assert_int_equal(ncclTunerPlugin_v4.init(4, 1, NULL, &ctx), ncclSuccess);
    assert_int_equal(ncclTunerPlugin_v4.destroy(ctx), ncclSuccess);
    assert_int_equal(nb_nccl_tuner_inits(), n0 + 2);
}

/* What NCCL does with NCCL_TUNER_PLUGIN: dlopen, then dlsym of its name. */
static void test_arming_points_nccl_at_the_tuner(void **state)
{
    (void)state;
    unsetenv("NCCL_TUNER_PLUGIN");
    unsetenv("NB_NCCL_TUNER");
    assert_int_equal(nb_nccl_tuner_arm(), 1);
    const char *path = getenv("NCCL_TUNER_PLUGIN");
    assert_non_null(path);
    assert_true(path[0] == '/');
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(h);
    const nb_nccl_tuner_v4 *t = dlsym(h, "ncclTunerPlugin_v4"); /* the library's own */
    assert_non_null(t);
    assert_string_equal(t->name, "nttbench");
    assert_ptr_equal(t->get_coll_info, ncclTunerPlugin_v4.get_coll_info);
    dlclose(h);
    setenv("NB_NCCL_TUNER", "ll128", 1);
    unsetenv("NCCL_TUNER_PLUGIN");
    assert_int_equal(nb_nccl_tuner_arm(), 1);
    unsetenv("NCCL_TUNER_PLUGIN");
    unsetenv("NB_NCCL_TUNER");
}

static void test_arming_keeps_the_callers_choice(void **state)
{
    (void)state;
    setenv("NCCL_TUNER_PLUGIN", "none", 1);
    assert_int_equal(nb_nccl_tuner_arm(), 0);
    assert_string_equal(getenv("NCCL_TUNER_PLUGIN"), "none");
    unsetenv("NCCL_TUNER_PLUGIN");
    setenv("NB_NCCL_TUNER", "off", 1);
    assert_int_equal(nb_nccl_tuner_arm(), 0);
    assert_null(getenv("NCCL_TUNER_PLUGIN"));
    unsetenv("NB_NCCL_TUNER");
}

static void test_unknown_setting_is_refused(void **state)
{
    (void)state;
    const char *ok[] = {"", "ll128", "off"};
    for (size_t i = 0; i < 3; i++) {
        setenv("NB_NCCL_TUNER", ok[i], 1);
        assert_int_equal(nb_nccl_tuner_check_env(), NB_OK);
    }
    setenv("NB_NCCL_TUNER", "LL128x", 1);
    assert_int_equal(nb_nccl_tuner_check_env(), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "NB_NCCL_TUNER='LL128x'"));
    assert_null(strchr(nb_last_error(), '\n'));
    unsetenv("NB_NCCL_TUNER");
    assert_int_equal(nb_nccl_tuner_check_env(), NB_OK);
}

static ncclResult_t old_version(int *v)
{
    *v = 22703;
    return ncclSuccess;
}

static ncclResult_t fake_send(const void *b, size_t n, ncclDataType_t t, int peer, ncclComm_t c,
                              cudaStream_t s)
{
    (void)b, (void)n, (void)t, (void)peer, (void)c, (void)s;
    return ncclSuccess;
}

static ncclResult_t fake_recv(void *b, size_t n, ncclDataType_t t, int peer, ncclComm_t c,
                              cudaStream_t s)
{
    (void)b, (void)n, (void)t, (void)peer, (void)c, (void)s;
    return ncclSuccess;
}

static void test_exchange_setting_is_read_and_checked(void **state)
{
    (void)state;
    nb_nccl_api a;
    memset(&a, 0, sizeof a);
    a.get_version = old_version;
    snprintf(a.path, sizeof a.path, "%s", "/opt/old/libnccl.so.2");
    const char *unset[] = {NULL, "", "auto"};
    nb_nccl_exchange k = (nb_nccl_exchange)7;
    for (size_t i = 0; i < 3; i++) {
        if (unset[i])
            setenv("NB_NCCL_EXCHANGE", unset[i], 1);
        else
            unsetenv("NB_NCCL_EXCHANGE");
        k = (nb_nccl_exchange)7;
        assert_int_equal(nb_nccl_exchange_kind(&a, NB_NCCL_BROADCAST, &k), NB_OK);
        assert_int_equal(k, NB_NCCL_BROADCAST);
        k = (nb_nccl_exchange)7; /* the default send-recv, without ncclSend: broadcasts */
        assert_int_equal(nb_nccl_exchange_kind(&a, NB_NCCL_SEND_RECV, &k), NB_OK);
        assert_int_equal(k, NB_NCCL_BROADCAST);
        k = (nb_nccl_exchange)7; /* and so for the mixed default */
        assert_int_equal(nb_nccl_exchange_kind(&a, NB_NCCL_MIXED, &k), NB_OK);
        assert_int_equal(k, NB_NCCL_BROADCAST);
    }
    const char *bad[] = {"Broadcast", "send_recv", "copy-engine "};
    for (size_t i = 0; i < 3; i++) {
        setenv("NB_NCCL_EXCHANGE", bad[i], 1);
        assert_int_equal(nb_nccl_exchange_kind(&a, NB_NCCL_SEND_RECV, &k), NB_ERR_INVALID_ARG);
        char want[64];
        snprintf(want, sizeof want, "NB_NCCL_EXCHANGE='%s'", bad[i]);
        assert_non_null(strstr(nb_last_error(), want));
        assert_null(strchr(nb_last_error(), '\n'));
        assert_int_equal(k, NB_NCCL_BROADCAST);
    }
    setenv("NB_NCCL_EXCHANGE", "mixed", 1);
    assert_int_equal(nb_nccl_exchange_kind(&a, NB_NCCL_BROADCAST, &k), NB_ERR_UNSUPPORTED);
    assert_non_null(strstr(nb_last_error(), "NB_NCCL_EXCHANGE=mixed"));
    setenv("NB_NCCL_EXCHANGE", "send-recv", 1);
    assert_int_equal(nb_nccl_exchange_kind(&a, NB_NCCL_BROADCAST, &k), NB_ERR_UNSUPPORTED);
    assert_non_null(strstr(nb_last_error(), "ncclSend"));
    assert_non_null(strstr(nb_last_error(), "/opt/old/libnccl.so.2"));
    a.send = fake_send;
    assert_int_equal(nb_nccl_exchange_kind(&a, NB_NCCL_BROADCAST, &k), NB_ERR_UNSUPPORTED);
    a.recv = fake_recv;
    assert_int_equal(nb_nccl_exchange_kind(&a, NB_NCCL_BROADCAST, &k), NB_OK);
    assert_int_equal(k, NB_NCCL_SEND_RECV);
    setenv("NB_NCCL_EXCHANGE", "mixed", 1);
    assert_int_equal(nb_nccl_exchange_kind(&a, NB_NCCL_SEND_RECV, &k), NB_OK);
    assert_int_equal(k, NB_NCCL_MIXED);
    setenv("NB_NCCL_EXCHANGE", "broadcast", 1);
    assert_int_equal(nb_nccl_exchange_kind(&a, NB_NCCL_SEND_RECV, &k), NB_OK);
    assert_int_equal(k, NB_NCCL_BROADCAST);
    unsetenv("NB_NCCL_EXCHANGE"); /* the default, now that the library has both */
    assert_int_equal(nb_nccl_exchange_kind(&a, NB_NCCL_SEND_RECV, &k), NB_OK);
    assert_int_equal(k, NB_NCCL_SEND_RECV);
    assert_int_equal(nb_nccl_exchange_kind(&a, NB_NCCL_MIXED, &k), NB_OK);
    assert_int_equal(k, NB_NCCL_MIXED);
    assert_int_equal(nb_nccl_exchange_kind(&a, NB_NCCL_BROADCAST, &k), NB_OK);
    assert_int_equal(k, NB_NCCL_BROADCAST);
    setenv("NB_NCCL_EXCHANGE", "copy-engine", 1);
    assert_int_equal(nb_nccl_exchange_kind(&a, NB_NCCL_SEND_RECV, &k),
                     NB_ERR_UNSUPPORTED); /* no CE entry points */
    assert_non_null(strstr(nb_last_error(), "2.28"));
    assert_int_equal(k, NB_NCCL_BROADCAST);
    a.copy_engine = 1;
#ifdef NB_NCCL_HAS_CE
    assert_int_equal(nb_nccl_exchange_kind(&a, NB_NCCL_SEND_RECV, &k), NB_OK);
    assert_int_equal(k, NB_NCCL_COPY_ENGINE);
#else
    assert_int_equal(nb_nccl_exchange_kind(&a, NB_NCCL_SEND_RECV, &k),
                     NB_ERR_UNSUPPORTED); /* this nccl.h */
#endif
    unsetenv("NB_NCCL_EXCHANGE");
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_large_broadcasts_are_offered_ll128),
        cmocka_unit_test(test_everything_else_is_left_to_nccl),
        cmocka_unit_test(test_short_tables_are_not_overrun),
        cmocka_unit_test(test_init_counts_communicators),
        cmocka_unit_test(test_arming_points_nccl_at_the_tuner),
        cmocka_unit_test(test_arming_keeps_the_callers_choice),
        cmocka_unit_test(test_unknown_setting_is_refused),
        cmocka_unit_test(test_exchange_setting_is_read_and_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void)
{
    printf("built without nccl.h: no NCCL tuner to test (skip)\n");
    return 77;
}
#endif

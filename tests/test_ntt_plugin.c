/* The variant interface's optional entries and the plug-in ABIs they came
 * with: the wrapper validates a kernel report call and passes what a
 * variant reports through; a variant without the entry is "not reported"
 * with a message; plug-ins built for plug-in ABI 1 (struct ends before
 * `kernels`) and 2 (before `forward_sub_scale`) load and run, keep the
 * entries their ABI has, and the library never reads the word after their
 * struct. argv: ABI1-PLUGIN ABI2-PLUGIN. */
#include <string.h>

#include "testutil.h"

static const char *abi1_plugin, *abi2_plugin;

static nb_status plan_create(void **plan, const nb_ntt_tables *t, void *stream)
{
    (void)stream;
    *plan = (void *)t;
    return NB_OK;
}

static void plan_destroy(void *plan) { (void)plan; }

static nb_status transform(void *plan, void *data, size_t first, size_t count, void *stream)
{
    (void)plan, (void)data, (void)first, (void)count, (void)stream;
    return NB_OK;
}

/* Reports two kernels whose fields record the call it was asked about. */
static nb_status two_kernels(void *plan, int inverse, size_t first, size_t count,
                             nb_ntt_kernel *out, size_t max, size_t *n)
{
    (void)plan;
    *n = 2;
    for (size_t i = 0; i < 2 && i < max; i++) {
        memset(&out[i], 0, sizeof out[i]);
        snprintf(out[i].name, sizeof out[i].name, "%s %zu", inverse ? "inv" : "fwd", i);
        out[i].launches = (unsigned)count;
        out[i].blocks = first;
        out[i].regs = 32 + (int)i;
    }
    return NB_OK;
}

static const nb_ntt_variant reporting = {
    .name = "test-kernels",
    .description = "reports two kernels (test_ntt_plugin)",
    .backend = NB_BACKEND_CPU,
    .min_log_n = 3,
    .max_log_n = 12,
    .word_bits = 64,
    .max_prime_bits = 50,
    .plan_create = plan_create,
    .plan_destroy = plan_destroy,
    .forward = transform,
    .inverse = transform,
    .kernels = two_kernels,
};

static nb_ntt *make(const nb_ntt_variant *v, size_t limbs)
{
    uint64_t q[4];
    assert_int_equal(nb_primes_generate(8, 40, limbs, NULL, 0, q), NB_OK);
    nb_ntt *ntt = NULL;
    assert_int_equal(nb_ntt_create(&ntt, v, 8, q, NULL, limbs, NULL), NB_OK);
    return ntt;
}

static void test_kernels_reach_the_caller_for_the_call_asked(void **state)
{
    (void)state;
    nb_ntt *ntt = make(&reporting, 4);
    nb_ntt_kernel k[4];
    size_t n = 0;
    EXPECT_STATUS(nb_ntt_kernels(ntt, 1, 1, 3, k, 4, &n), NB_OK);
    assert_int_equal(n, 2);
    assert_string_equal(k[0].name, "inv 0");
    assert_int_equal(k[1].regs, 33);
    assert_int_equal(k[1].launches, 3);
    assert_int_equal(k[1].blocks, 1);
    n = 0; /* fewer slots than kernels: the count says how many there are */
    EXPECT_STATUS(nb_ntt_kernels(ntt, 0, 0, 4, k, 1, &n), NB_OK);
    assert_int_equal(n, 2);
    assert_string_equal(k[0].name, "fwd 0");
    nb_ntt_destroy(ntt);
}

static void test_kernels_outside_the_plan_are_refused(void **state)
{
    (void)state;
    nb_ntt *ntt = make(&reporting, 4);
    nb_ntt_kernel k[2];
    size_t n = 7;
    EXPECT_STATUS(nb_ntt_kernels(ntt, 0, 3, 2, k, 2, &n), NB_ERR_INVALID_ARG);
    assert_int_equal(n, 0);
    EXPECT_STATUS(nb_ntt_kernels(ntt, 0, 0, 0, k, 2, &n), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_ntt_kernels(ntt, 0, 0, 1, NULL, 2, &n), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_ntt_kernels(ntt, 0, 0, 1, k, 2, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_ntt_kernels(NULL, 0, 0, 1, k, 2, &n), NB_ERR_INVALID_ARG);
    nb_ntt_destroy(ntt);
}

static void test_variant_without_the_entry_is_not_reported(void **state)
{
    (void)state;
    nb_ntt *ntt = make(nb_ntt_variant_find("cpu-harvey"), 1);
    nb_ntt_kernel k[1];
    size_t n = 5;
    EXPECT_STATUS(nb_ntt_kernels(ntt, 0, 0, 1, k, 1, &n), NB_ERR_UNSUPPORTED);
    assert_int_equal(n, 0);
    assert_non_null(strstr(nb_last_error(), "does not report its kernels"));
    nb_ntt_destroy(ntt);
}

/* Guards: reading an ABI-1 plug-in's variant as this ABI's layout, which
 * takes the word after its struct for `kernels`. */
static void test_abi1_plugin_loads_without_a_kernels_entry(void **state)
{
    (void)state;
    EXPECT_STATUS(nb_plugin_load(abi1_plugin), NB_OK);
    const nb_ntt_variant *v = nb_ntt_variant_find("abi1-harvey");
    assert_non_null(v);
    assert_null(v->kernels);
    nb_ntt *ntt = make(v, 2);
    uint64_t a[2 << 8], b[2 << 8];
    const nb_ntt_tables *t = nb_ntt_get_tables(ntt);
    nb_test_fill_residues(a, 1 << 8, t->q, 2);
    memcpy(b, a, sizeof a);
    EXPECT_STATUS(nb_ntt_forward(ntt, a, 0, 2, NULL), NB_OK);
    EXPECT_STATUS(nb_ntt_inverse(ntt, a, 0, 2, NULL), NB_OK);
    assert_memory_equal(a, b, sizeof a);
    nb_ntt_kernel k[1];
    size_t n = 0;
    EXPECT_STATUS(nb_ntt_kernels(ntt, 0, 0, 2, k, 1, &n), NB_ERR_UNSUPPORTED);
    assert_int_equal(nb_ntt_has_sub_scale(ntt), 0);
    nb_ntt_destroy(ntt);
}

/* Guards: reading an ABI-2 plug-in's variant as this ABI's layout, which
 * takes the word after its struct for `forward_sub_scale`; its `kernels`
 * entry must survive the copy. */
static void test_abi2_plugin_keeps_kernels_and_has_no_fused_entry(void **state)
{
    (void)state;
    EXPECT_STATUS(nb_plugin_load(abi2_plugin), NB_OK);
    const nb_ntt_variant *v = nb_ntt_variant_find("abi2-harvey");
    assert_non_null(v);
    assert_non_null(v->kernels);
    assert_null(v->forward_sub_scale);
    nb_ntt *ntt = make(v, 2);
    nb_ntt_kernel k[1];
    size_t n = 7;
    EXPECT_STATUS(nb_ntt_kernels(ntt, 0, 0, 2, k, 1, &n), NB_OK);
    assert_int_equal(n, 0);
    assert_int_equal(nb_ntt_has_sub_scale(ntt), 0);
    uint64_t a[2 << 8], x[2 << 8], o[2 << 8], w[2] = {1, 1};
    const nb_ntt_sub_scale e = {{o, o}, {x, x}, 2, w, w};
    EXPECT_STATUS(nb_ntt_forward_sub_scale(ntt, a, &e, 0, 2, NULL), NB_ERR_UNSUPPORTED);
    assert_non_null(strstr(nb_last_error(), "does not fuse"));
    nb_ntt_destroy(ntt);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s ABI1-PLUGIN ABI2-PLUGIN\n", argv[0]);
        return 2;
    }
    abi1_plugin = argv[1];
    abi2_plugin = argv[2];
    nb_test_seed_init();
    if (nb_ntt_variant_register(&reporting) != NB_OK) {
        fprintf(stderr, "cannot register test-kernels: %s\n", nb_last_error());
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernels_reach_the_caller_for_the_call_asked),
        cmocka_unit_test(test_kernels_outside_the_plan_are_refused),
        cmocka_unit_test(test_variant_without_the_entry_is_not_reported),
        cmocka_unit_test(test_abi1_plugin_loads_without_a_kernels_entry),
        cmocka_unit_test(test_abi2_plugin_keeps_kernels_and_has_no_fused_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

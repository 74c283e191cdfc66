/* The kernel log (ntt/kernel_log.h) without a GPU: entries of the same name,
 * block size and dynamic shared memory merge, a full log counts what it
 * drops, the first failure's reason is kept, nothing is logged while no log
 * is active or on another thread, a CPU variant's NTT calls log nothing, and
 * demangled names are shortened. (A GPU pipeline's log is checked against
 * its launches in test_gpu_trace.) */
#include <pthread.h>
#include <string.h>

#include "ntt/kernel_log.h"
#include "testutil.h"

static nb_ntt_kernel kernel(const char *name, unsigned threads, size_t smem, unsigned launches,
                            unsigned long long blocks)
{
    nb_ntt_kernel k;
    memset(&k, 0, sizeof k);
    snprintf(k.name, sizeof k.name, "%s", name);
    k.block_threads = threads;
    k.smem_dynamic = smem;
    k.launches = launches;
    k.blocks = blocks;
    k.regs = 32;
    return k;
}

static void test_same_kernel_and_shape_merge_and_others_do_not(void **state)
{
    (void)state;
    nb_ntt_kernel k[4];
    nb_kernel_log log = {k, 4, 7, 7, 7, 1, "stale"};
    nb_kernel_log_begin(&log);
    assert_ptr_equal(nb_kernel_log_active(), &log);
    assert_int_equal(log.n, 0); /* begin resets */
    assert_int_equal(log.incomplete, 0);
    const nb_ntt_kernel a = kernel("conv_kernel<true, 0>", 256, 0, 1, 10);
    nb_kernel_log_add(&a);
    nb_kernel_log_add(&a);
    const nb_ntt_kernel other_threads = kernel("conv_kernel<true, 0>", 128, 0, 1, 20);
    nb_kernel_log_add(&other_threads);
    const nb_ntt_kernel other_smem = kernel("conv_kernel<true, 0>", 256, 4096, 2, 30);
    nb_kernel_log_add(&other_smem);
    nb_kernel_log_end();
    assert_null(nb_kernel_log_active());
    nb_kernel_log_add(&a); /* not active: not logged */
    assert_int_equal(log.n, 3);
    assert_int_equal(log.launches, 5);
    assert_int_equal(log.dropped, 0);
    assert_int_equal(k[0].launches, 2);
    assert_int_equal(k[0].blocks, 20);
    assert_int_equal(k[1].block_threads, 128);
    assert_int_equal(k[2].smem_dynamic, 4096);
    assert_int_equal(k[2].launches, 2);
}

static void test_a_full_log_counts_what_it_drops_and_keeps_the_first_reason(void **state)
{
    (void)state;
    nb_ntt_kernel k[1];
    nb_kernel_log log = {k, 1, 0, 0, 0, 0, ""};
    nb_kernel_log_begin(&log);
    const nb_ntt_kernel a = kernel("a", 32, 0, 1, 1), b = kernel("b", 32, 0, 1, 1);
    nb_kernel_log_add(&a);
    nb_kernel_log_add(&b);
    nb_kernel_log_add(&b);
    nb_kernel_log_fail("first reason");
    nb_kernel_log_fail("second reason");
    nb_kernel_log_end();
    assert_int_equal(log.n, 1);
    assert_int_equal(log.dropped, 2);
    assert_int_equal(log.launches, 3);
    assert_int_equal(log.incomplete, 1);
    assert_string_equal(log.why, "first reason");
    assert_string_equal(k[0].name, "a");
}

static void *add_on_thread(void *arg)
{
    const nb_ntt_kernel *a = arg;
    nb_kernel_log_add(a);
    return nb_kernel_log_active();
}

static void test_a_log_is_the_calling_threads_only(void **state)
{
    (void)state;
    nb_ntt_kernel k[2];
    nb_kernel_log log = {k, 2, 0, 0, 0, 0, ""};
    const nb_ntt_kernel a = kernel("a", 32, 0, 1, 1);
    nb_kernel_log_begin(&log);
    pthread_t t;
    void *seen = &log;
    assert_int_equal(pthread_create(&t, NULL, add_on_thread, (void *)&a), 0);
    assert_int_equal(pthread_join(t, &seen), 0);
    nb_kernel_log_end();
    assert_null(seen);
    assert_int_equal(log.n, 0);
    assert_int_equal(log.launches, 0);
}

static void test_cpu_ntt_calls_log_nothing(void **state)
{
    (void)state;
    uint64_t q;
    assert_int_equal(nb_primes_generate(10, 40, 1, NULL, 0, &q), NB_OK);
    nb_ntt *t = NULL;
    assert_int_equal(nb_ntt_create(&t, nb_ntt_variant_find("cpu-harvey"), 10, &q, NULL, 1, NULL),
                     NB_OK);
    uint64_t data[1024];
    for (size_t i = 0; i < 1024; i++)
        data[i] = (nb_test_rand() % (q - 1)) + 1;
    nb_ntt_kernel k[2];
    nb_kernel_log log = {k, 2, 0, 0, 0, 0, ""};
    nb_kernel_log_begin(&log);
    assert_int_equal(nb_ntt_forward(t, data, 0, 1, NULL), NB_OK);
    assert_int_equal(nb_ntt_inverse(t, data, 0, 1, NULL), NB_OK);
    nb_kernel_log_end();
    assert_int_equal(log.n, 0);
    assert_int_equal(log.launches, 0);
    assert_int_equal(log.incomplete, 0);
    nb_ntt_destroy(t);
}

static void test_short_name_keeps_the_function_and_its_template_arguments(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"void (anonymous namespace)::conv_kernel<true, 0>(nb_conv_view, nb_polys, unsigned "
         "long)",
         "conv_kernel<true, 0>"},
        {"void nb_regpass::phase<(bool)1, 10, nb_regpass::W<unsigned long> >(int*)",
         "phase<(bool)1, 10, nb_regpass::W<unsigned long> >"},
        {"sub_mul_kernel", "sub_mul_kernel"},
        {"_Z6kernelv", "_Z6kernelv"},
        {"flush(float*, unsigned long)", "flush"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[96];
        nb_kernel_short_name(cases[i][0], out, sizeof out);
        assert_string_equal(out, cases[i][1]);
    }
}

static void test_short_name_cuts_a_long_name_with_an_ellipsis(void **state)
{
    (void)state;
    char out[12];
    nb_kernel_short_name("void a_very_long_kernel_name<1, 2, 3>(int)", out, sizeof out);
    assert_int_equal(strlen(out), sizeof out - 1);
    assert_string_equal(out + sizeof out - 4, "...");
    assert_memory_equal(out, "a_very_l", 8);
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_kernel_and_shape_merge_and_others_do_not),
        cmocka_unit_test(test_a_full_log_counts_what_it_drops_and_keeps_the_first_reason),
        cmocka_unit_test(test_a_log_is_the_calling_threads_only),
        cmocka_unit_test(test_cpu_ntt_calls_log_nothing),
        cmocka_unit_test(test_short_name_keeps_the_function_and_its_template_arguments),
        cmocka_unit_test(test_short_name_cuts_a_long_name_with_an_ellipsis),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

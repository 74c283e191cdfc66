/* The several-GPU pipelines' refusals that need no GPU: a CPU variant, no
 * devices, a device list of the wrong length for the set, and every entry
 * point on a NULL object, each with its status and a message (the GPU
 * behaviour is test_gpu_multi's). */
#include <string.h>

#include "ckks/ckks.h"
#include "core/device.h"
#include "testutil.h"

static nb_ckks_params *tiny(void)
{
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "test-tiny"), NB_OK);
    return p;
}

static void test_multi_refuses_a_cpu_variant(void **state)
{
    (void)state;
    nb_ckks_params *p = tiny();
    const int dev[1] = {0};
    nb_ckks_multi *m = (nb_ckks_multi *)p; /* overwritten with NULL on failure */
    const nb_status s = nb_ckks_multi_create(&m, p, nb_ntt_variant_find("cpu-harvey"), dev, 1);
    assert_true(s == NB_ERR_UNSUPPORTED || s == NB_ERR_NO_DEVICE);
    assert_null(m);
    assert_true(strlen(nb_last_error()) > 10);
    nb_ckks_params_destroy(p);
}

static void test_multi_refuses_counts_the_set_cannot_split_into(void **state)
{
    (void)state;
    nb_ckks_params *p = tiny(); /* alpha = 2 */
    const nb_ntt_variant *v = nb_ntt_variant_find("gpu-fast");
    if (!v) {
        print_message("built without the GPU variants: nothing to refuse (skip)\n");
        nb_ckks_params_destroy(p);
        return;
    }
    const int dev[3] = {0, 1, 2};
    nb_ckks_multi *m = NULL;
    const nb_status s0 = nb_ckks_multi_create(&m, p, v, dev, 0);
    const nb_status s3 = nb_ckks_multi_create(&m, p, v, dev, 3);
    /* without NCCL's header every call says so; with it, the count is checked first */
    assert_true(s0 == NB_ERR_INVALID_ARG || s0 == NB_ERR_UNSUPPORTED);
    assert_true(s3 == NB_ERR_INVALID_ARG || s3 == NB_ERR_UNSUPPORTED);
    assert_null(m);
    if (nb_gpu_count() == 0) {
        const nb_status s1 = nb_ckks_multi_create(&m, p, v, dev, 1);
        assert_true(s1 == NB_ERR_NO_DEVICE || s1 == NB_ERR_UNSUPPORTED);
        assert_null(m);
    }
    nb_ckks_params_destroy(p);
}

static void test_multi_calls_on_null_fail_cleanly(void **state)
{
    (void)state;
    void *parts[1] = {NULL};
    const void *in[1] = {NULL};
    assert_int_not_equal(nb_ckks_multi_modup_all(NULL, 0, parts, in, NULL, NULL), NB_OK);
    assert_int_not_equal(nb_ckks_multi_moddown(NULL, 0, parts, in, NULL, NULL), NB_OK);
    assert_int_not_equal(nb_ckks_multi_keyswitch(NULL, 0, parts, parts, in, in, NULL, NULL), NB_OK);
    assert_int_not_equal(nb_ckks_multi_rescale(NULL, 1, NB_CKKS_RESCALE_FLOOR, parts, in, NULL,
                                               NULL),
                         NB_OK);
    assert_int_equal(nb_ckks_multi_gpus(NULL), 0);
    assert_int_equal(nb_ckks_multi_device(NULL, 0), -1);
    nb_ckks_multi_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multi_refuses_a_cpu_variant),
        cmocka_unit_test(test_multi_refuses_counts_the_set_cannot_split_into),
        cmocka_unit_test(test_multi_calls_on_null_fail_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The several-GPU pipelines' refusals that need no GPU: a CPU variant, no
 * devices, a device list of the wrong length for the set, and every entry
 * point on a NULL object, each with its status and a message; and modUp's
 * exchange schedule, which is plain C on the partition (the GPU behaviour
 * is test_gpu_multi's). */
#include <string.h>

#include "ckks/ckks.h"
#include "ckks/multi.h"
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

/* Limbs of digit j at level l in [qa, qa + nq). */
static size_t owned(const nb_ckks_params *p, size_t level, size_t j, size_t qa, size_t nq)
{
    size_t first, count;
    nb_ckks_digit_range(p, level, j, &first, &count);
    const size_t a = qa > first ? qa : first;
    const size_t b = qa + nq < first + count ? qa + nq : first + count;
    return b > a ? b - a : 0;
}

/* Every property the pipeline relies on, for one partition at one level. */
static void check_plan(const nb_ckks_params *p, size_t level, size_t G, const size_t *qa,
                       const size_t *nq)
{
    const size_t D = nb_ckks_digits(p, level);
    size_t group[64];
    unsigned char order[8 * 64], recv[8 * 64];
    memset(order, 0xff, sizeof order); /* poisoned: every entry must be written */
    memset(recv, 0xff, sizeof recv);
    const size_t ng = nb_multi_modup_plan(p, level, G, qa, nq, group, order, recv);
    assert_true(ng >= 1 && ng <= D);
    size_t next = 0;
    for (size_t j = 0; j < D; j++) { /* numbered in order of first use */
        assert_true(group[j] <= next && group[j] < ng);
        next = group[j] == next ? next + 1 : next;
    }
    assert_int_equal(next, ng);
    for (size_t g = 0; g < ng; g++)
        for (size_t i = 0; i < G; i++) { /* one range a device per exchange */
            size_t sends = 0;
            for (size_t j = 0; j < D; j++)
                sends += group[j] == g && owned(p, level, j, qa[i], nq[i]) > 0;
            assert_true(sends <= 1);
        }
    for (size_t i = 0; i < G; i++) {
        const unsigned char *od = order + i * D, *rv = recv + i * D;
        unsigned char seen[64] = {0};
        size_t prev_key = 0, prev_j = 0;
        for (size_t k = 0; k < D; k++) {
            const size_t j = od[k];
            assert_true(j < D && !seen[j]);
            seen[j] = 1;
            int gets = 0;
            for (size_t r = 0; r < G; r++)
                gets |= r != i && owned(p, level, j, qa[r], nq[r]) > 0;
            assert_int_equal(rv[j], gets);
            const size_t key = gets ? 1 + group[j] : 0; /* held whole first, then by exchange */
            assert_true(k == 0 || key > prev_key || (key == prev_key && j > prev_j));
            prev_key = key;
            prev_j = j;
        }
    }
}

static void test_modup_plan_on_two_and_four_devices(void **state)
{
    (void)state;
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "ckks16-l30-d3"), NB_OK);
    const size_t L = p->max_level; /* 31 limbs, digits of 11, 11 and 9 */
    assert_int_equal(nb_ckks_digits(p, L), 3);
    size_t group[3];
    unsigned char order[4 * 3], recv[4 * 3];
    const size_t qa2[2] = {0, 16}, nq2[2] = {16, 15};
    assert_int_equal(nb_multi_modup_plan(p, L, 2, qa2, nq2, group, order, recv), 2);
    static const unsigned char order2[6] = {0, 2, 1, 2, 0, 1}, recv2[6] = {0, 1, 1, 1, 1, 0};
    assert_int_equal(group[0], 0);
    assert_int_equal(group[1], 1);
    assert_int_equal(group[2], 0);
    assert_memory_equal(order, order2, 6);
    assert_memory_equal(recv, recv2, 6);
    const size_t qa4[4] = {0, 8, 16, 24}, nq4[4] = {8, 8, 8, 7};
    assert_int_equal(nb_multi_modup_plan(p, L, 4, qa4, nq4, group, order, recv), 2);
    for (size_t i = 0; i < 4; i++) { /* no device holds a digit whole */
        static const unsigned char order4[3] = {0, 2, 1};
        assert_memory_equal(order + 3 * i, order4, 3);
    }
    nb_ckks_params_destroy(p);
}

static void test_modup_plan_holds_on_every_split(void **state)
{
    (void)state;
    static const char *const sets[] = {"ckks16-l30-d3", "test-tiny"};
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t s = 0; s < 2; s++) {
        nb_ckks_params *p = NULL;
        assert_int_equal(nb_ckks_params_from_preset(&p, sets[s]), NB_OK);
        const size_t Q = p->max_level + 1;
        for (size_t G = 1; G <= 8 && G <= Q; G++)
            for (size_t trial = 0; trial < 20; trial++) {
                size_t qa[8], len[8], left = Q; /* a random split of Q into G ranges */
                for (size_t i = 0; i < G; i++) {
                    x = x * 6364136223846793005ull + 1442695040888963407ull;
                    const size_t most = left - (G - 1 - i);
                    len[i] = i + 1 == G ? left : 1 + (size_t)((x >> 33) % most);
                    qa[i] = Q - left;
                    left -= len[i];
                }
                for (size_t level = 0; level < Q; level++) {
                    size_t nq[8]; /* the part of each range at this level */
                    for (size_t i = 0; i < G; i++)
                        nq[i] = qa[i] > level ? 0
                                : qa[i] + len[i] > level + 1 ? level + 1 - qa[i] : len[i];
                    check_plan(p, level, G, qa, nq);
                }
            }
        nb_ckks_params_destroy(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multi_refuses_a_cpu_variant),
        cmocka_unit_test(test_multi_refuses_counts_the_set_cannot_split_into),
        cmocka_unit_test(test_multi_calls_on_null_fail_cleanly),
        cmocka_unit_test(test_modup_plan_on_two_and_four_devices),
        cmocka_unit_test(test_modup_plan_holds_on_every_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

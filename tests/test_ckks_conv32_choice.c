/* The run-time choice of the 32-bit conversion kernel (NB_CONV32_KERNEL):
 * a value that names no kernel is refused with one clear message before
 * anything reaches a device, so this runs on machines without one. Exits
 * 77 (skip) in a build without CUDA. */
#include <stdlib.h>
#include <string.h>

#include "ckks/consts.h"
#include "testutil.h"

#ifdef NB_HAVE_CUDA
static void test_unknown_conv32_kernel_is_refused(void **state)
{
    (void)state;
    assert_int_equal(setenv("NB_CONV32_KERNEL", "tiled", 1), 0);
    uint64_t word = 3;
    nb_conv_view v;
    memset(&v, 0, sizeof v);
    v.n_from = 1;
    v.n_to = 1;
    v.from_q = v.qhat_inv = v.qhat_inv_shoup = v.to_q = v.out_limb = v.qhat_mod = &word;
    uint32_t in[16] = {0}, out[16] = {0};
    nb_polys io;
    memset(&io, 0, sizeof io);
    io.out[0] = out;
    io.a[0] = in;
    io.count = 1;
    io.word_bits = 32;
    assert_int_equal(nb_gpu_conv(&v, &io, 16, NULL), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "NB_CONV32_KERNEL"));
}
#endif

int main(void)
{
#ifdef NB_HAVE_CUDA
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_conv32_kernel_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
#else
    printf("# built without CUDA: no 32-bit GPU conversion to choose\n");
    return 77;
#endif
}

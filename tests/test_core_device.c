/* core/device: host buffers check every range and NULL and round-trip
 * bytes; without a usable GPU every device request fails with
 * NB_ERR_NO_DEVICE and a message instead of crashing. (GPU buffers and
 * streams on a device are exercised by the GPU suite.) */
#include <string.h>

#include "testutil.h"

static void test_host_buffers_reject_bad_arguments(void **state)
{
    (void)state;
    nb_buffer *b = (nb_buffer *)0x1;
    EXPECT_STATUS(nb_buffer_create(NULL, NB_BACKEND_CPU, 64), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_buffer_create(&b, NB_BACKEND_CPU, 0), NB_ERR_INVALID_ARG);
    assert_null(b);
    /* rounded up to 64-byte lines, this size wrapped to 0 and made a 1-byte block */
    EXPECT_STATUS(nb_buffer_create(&b, NB_BACKEND_CPU, SIZE_MAX - 1), NB_ERR_OUT_OF_MEMORY);
    assert_null(b);
    EXPECT_STATUS(nb_buffer_create(&b, NB_BACKEND_CPU, 100), NB_OK);
    assert_int_equal(nb_buffer_bytes(b), 100);
    assert_int_equal((uintptr_t)nb_buffer_ptr(b) % 64, 0);
    assert_int_equal(nb_buffer_backend(b), NB_BACKEND_CPU);
    uint8_t host[128];
    memset(host, 7, sizeof host);
    EXPECT_STATUS(nb_buffer_upload(b, 0, host, 101, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_buffer_upload(b, 1, host, 100, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_buffer_upload(b, SIZE_MAX, host, 2, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_buffer_upload(b, 2, host, SIZE_MAX, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_buffer_upload(b, 0, NULL, 1, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_buffer_upload(NULL, 0, host, 1, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_buffer_download(b, 50, host, 51, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_buffer_download(b, 0, NULL, 1, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_buffer_fill(NULL, 0, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_buffer_copy(NULL, 0, b, 0, 1, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_buffer_copy(b, 0, NULL, 0, 1, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_buffer_copy(b, 60, b, 0, 41, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_buffer_copy(b, 0, b, 60, 41, NULL), NB_ERR_INVALID_ARG);
    /* and the valid round trip */
    EXPECT_STATUS(nb_buffer_fill(b, 0xA5, NULL), NB_OK);
    EXPECT_STATUS(nb_buffer_upload(b, 10, host, 90, NULL), NB_OK);
    uint8_t back[100];
    EXPECT_STATUS(nb_buffer_download(b, 0, back, 100, NULL), NB_OK);
    for (int i = 0; i < 100; i++)
        assert_int_equal(back[i], i < 10 ? 0xA5 : 7);
    nb_buffer_destroy(b);
    nb_buffer_destroy(NULL);
    assert_null(nb_buffer_ptr(NULL));
    assert_int_equal(nb_buffer_bytes(NULL), 0);
}

/* A guard set after some data reads back whole until one of its bytes is
 * written, and then names that byte; a range past the buffer is refused. */
static void test_guard_names_the_first_byte_written(void **state)
{
    (void)state;
    nb_buffer *b = NULL;
    EXPECT_STATUS(nb_buffer_create(&b, NB_BACKEND_CPU, 96), NB_OK);
    size_t at = 0;
    EXPECT_STATUS(nb_buffer_guard_set(b, 64, 32, NULL), NB_OK);
    EXPECT_STATUS(nb_buffer_guard_check(b, 64, 32, &at, NULL), NB_OK);
    assert_int_equal(at, 32);
    ((unsigned char *)nb_buffer_ptr(b))[64 + 5] = 0;
    EXPECT_STATUS(nb_buffer_guard_check(b, 64, 32, &at, NULL), NB_OK);
    assert_int_equal(at, 5);
    EXPECT_STATUS(nb_buffer_guard_set(b, 80, 32, NULL), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_buffer_guard_check(b, 64, 32, NULL, NULL), NB_ERR_INVALID_ARG);
    nb_buffer_destroy(b);
}

static void test_gpu_requests_without_device_fail_cleanly(void **state)
{
    (void)state;
    if (nb_gpu_count() > 0)
        skip(); /* only meaningful on a machine without a usable GPU */
    EXPECT_STATUS(nb_gpu_require(), NB_ERR_NO_DEVICE);
    void *stream = (void *)0x1;
    EXPECT_STATUS(nb_stream_create(&stream), NB_ERR_NO_DEVICE);
    assert_null(stream);
    EXPECT_STATUS(nb_stream_create(NULL), NB_ERR_INVALID_ARG);
    nb_buffer *b = (nb_buffer *)0x1;
    EXPECT_STATUS(nb_buffer_create(&b, NB_BACKEND_GPU, 64), NB_ERR_NO_DEVICE);
    assert_null(b);
    nb_stream_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_buffers_reject_bad_arguments),
        cmocka_unit_test(test_guard_names_the_first_byte_written),
        cmocka_unit_test(test_gpu_requests_without_device_fail_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

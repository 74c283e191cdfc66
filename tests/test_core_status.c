/* core/status: every status has a distinct constant name, nb_set_error
 * records a message and returns its status, long messages are truncated
 * safely, and the message is thread-local. */
#include <pthread.h>
#include <string.h>

#include "testutil.h"

static void test_status_names_are_distinct_and_messages_clear(void **state)
{
    (void)state;
    const char *seen[32];
    for (int s = NB_OK; s <= NB_ERR_INTERNAL; s++) {
        seen[s] = nb_status_str((nb_status)s);
        assert_non_null(seen[s]);
        assert_true(strncmp(seen[s], "NB_", 3) == 0);
        for (int j = 0; j < s; j++)
            assert_string_not_equal(seen[j], seen[s]);
    }
    assert_non_null(nb_status_str((nb_status)999));
    assert_int_equal(nb_set_error(NB_ERR_IO, "x=%d", 42), NB_ERR_IO);
    assert_string_equal(nb_last_error(), "x=42");
    nb_clear_error();
    assert_string_equal(nb_last_error(), "");
    /* very long messages are truncated, not overflowed */
    char big[2048];
    memset(big, 'z', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    nb_set_error(NB_ERR_IO, "%s", big);
    assert_true(strlen(nb_last_error()) > 0 && strlen(nb_last_error()) < sizeof big);
}

static void *other_thread(void *arg)
{
    (void)arg;
    static char seen[64];
    snprintf(seen, sizeof seen, "%s", nb_last_error());
    nb_set_error(NB_ERR_IO, "from the other thread");
    return seen;
}

static void test_last_error_is_thread_local(void **state)
{
    (void)state;
    nb_set_error(NB_ERR_IO, "from the main thread");
    pthread_t th;
    void *ret;
    assert_int_equal(pthread_create(&th, NULL, other_thread, NULL), 0);
    assert_int_equal(pthread_join(th, &ret), 0);
    assert_string_equal((const char *)ret, "");
    assert_string_equal(nb_last_error(), "from the main thread");
}

/* Guards: a message that wrapped the last one (nb_last_error() as an
 * argument) was formatted over itself and came out garbled. */
static void test_a_message_may_wrap_the_last_one(void **state)
{
    (void)state;
    nb_set_error(NB_ERR_INVALID_ARG, "only %d prime is available (asked for %d)", 1, 5);
    assert_int_equal(nb_set_error(NB_ERR_INVALID_ARG, "log Q %u at log N %u: %s", 100u, 17u,
                                  nb_last_error()),
                     NB_ERR_INVALID_ARG);
    assert_string_equal(nb_last_error(),
                        "log Q 100 at log N 17: only 1 prime is available (asked for 5)");
    nb_set_error(NB_ERR_IO, "%s%s", nb_last_error(), nb_last_error());
    assert_string_equal(nb_last_error(), "log Q 100 at log N 17: only 1 prime is available "
                                         "(asked for 5)log Q 100 at log N 17: only 1 prime is "
                                         "available (asked for 5)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_names_are_distinct_and_messages_clear),
        cmocka_unit_test(test_last_error_is_thread_local),
        cmocka_unit_test(test_a_message_may_wrap_the_last_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

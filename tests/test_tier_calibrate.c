/* Tests of the calibrate tier's workloads on the CPU backend: the copy and
 * empty workloads timed by the core (per-launch and batch modes). */
#include <math.h>
#include <string.h>

#include "bench/bench.h"
#include "benchutil.h"
#include "testutil.h"

static void test_copy_and_empty_workloads_cpu(void **state)
{
    (void)state;
    nb_workload *w = NULL;
    assert_int_equal(nb_copy_workload_create(&w, NB_BACKEND_CPU, 100), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_copy_workload_create(&w, NB_BACKEND_CPU, 1 << 16), NB_OK);
    nb_bench_opts o = nb_test_quick_opts();
    nb_bench_result r;
    assert_int_equal(nb_bench_run(w, NULL, &o, &r), NB_OK);
    assert_true(r.stats.median > 0);
    nb_bench_result_free(&r);
    nb_workload_destroy(w);
    assert_int_equal(nb_empty_workload_create(&w, NB_BACKEND_CPU), NB_OK);
    o.mode = NB_MODE_BATCH;
    o.batch = 100;
    assert_int_equal(nb_bench_run(w, NULL, &o, &r), NB_OK);
    assert_int_equal(r.launches_per_sample, 100);
    nb_bench_result_free(&r);
    nb_workload_destroy(w);
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_and_empty_workloads_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Tests of the host readings of the timing core: /proc/stat and
 * /proc/meminfo parsers on synthetic text, the "contended" rule on injected
 * readings (each threshold alone, and an idle host), the memory-fit check
 * naming the sizes, and the wake-up of the OpenMP team after a cold CPU
 * flush on a scripted clock. */
#include <stdio.h>
#include <string.h>

#include "bench/timing/contention.h"
#include "bench/timing/internal.h"
#include "bench/timing/memfit.h"
#include "testutil.h"

static const char stat_text[] =
    "cpu  4705 356 584 3699 23 23 0 120 0 0\n"
    "cpu0 1393 280 307 1740 13 20 0 60 0 0\n"
    "intr 114930548 113199788 3 0 5 263 0 4 [... 30 more]\n"
    "ctxt 1990473\n"
    "procs_running 3\n"
    "procs_blocked 0\n";

static void test_proc_stat_fields_are_read(void **state)
{
    (void)state;
    long long total, steal, running;
    nb_parse_proc_stat(stat_text, &total, &steal, &running);
    assert_int_equal(total, 4705 + 356 + 584 + 3699 + 23 + 23 + 0 + 120); /* guest excluded */
    assert_int_equal(steal, 120);
    assert_int_equal(running, 3);
}

static void test_proc_stat_missing_or_short_lines_are_unknown(void **state)
{
    (void)state;
    long long total, steal, running;
    nb_parse_proc_stat(NULL, &total, &steal, &running);
    assert_true(total == -1 && steal == -1 && running == -1);
    /* an old kernel: four fields, no steal; "cpu0" is not the aggregate line */
    nb_parse_proc_stat("cpu0 1 2 3 4 5 6 7 8\ncpu  10 20 30 40\nprocs_running x\n", &total,
                       &steal, &running);
    assert_int_equal(total, 100);
    assert_int_equal(steal, -1);
    assert_int_equal(running, -1);
    /* fields whose sum overflows a long long: malformed, not a negative total */
    nb_parse_proc_stat("cpu  9223372036854775807 9223372036854775807 1 1 1 1 1 1\n", &total,
                       &steal, &running);
    assert_int_equal(total, -1);
}

/* A quiet second of sampling on 2 CPUs with the case's 2 threads. */
static void quiet(nb_host_load *a, nb_host_load *b)
{
    *a = (nb_host_load){.t_s = 10.0, .ivcsw = 100, .total_ticks = 1000, .steal_ticks = 5,
                        .procs_running = 1};
    *b = (nb_host_load){.t_s = 11.0, .ivcsw = 103, .total_ticks = 1200, .steal_ticks = 6,
                        .procs_running = 1};
}

static void test_quiet_host_is_not_contended(void **state)
{
    (void)state;
    nb_host_load a, b;
    quiet(&a, &b);
    nb_contention c;
    nb_contention_judge(&a, &b, 2, 2, &c);
    assert_true(c.measured);
    assert_false(c.contended);
    assert_string_equal(c.reason, "");
    assert_int_equal(c.ivcsw, 3);
}

static void test_each_threshold_alone_flags_contended(void **state)
{
    (void)state;
    nb_host_load a, b;
    nb_contention c;
    quiet(&a, &b); /* preempted 200 times in one second */
    b.ivcsw = a.ivcsw + 200;
    nb_contention_judge(&a, &b, 2, 2, &c);
    assert_true(c.contended);
    assert_non_null(strstr(c.reason, "200 involuntary context switches"));
    quiet(&a, &b); /* 10% of the host's CPU time stolen by the hypervisor */
    b.steal_ticks = a.steal_ticks + 20;
    nb_contention_judge(&a, &b, 2, 2, &c);
    assert_true(c.contended);
    assert_non_null(strstr(c.reason, "steal time 10%"));
    quiet(&a, &b); /* one other runnable thread at both readings */
    a.procs_running = b.procs_running = 2;
    nb_contention_judge(&a, &b, 2, 2, &c);
    assert_true(c.contended);
    assert_non_null(strstr(c.reason, "other runnable"));
}

static void test_rates_and_room_decide_not_counts(void **state)
{
    (void)state;
    nb_host_load a, b;
    nb_contention c;
    quiet(&a, &b); /* 40 switches over 10 s: 4/s is scheduler noise */
    b.t_s = a.t_s + 10.0;
    b.ivcsw = a.ivcsw + 40;
    nb_contention_judge(&a, &b, 2, 2, &c);
    assert_false(c.contended);
    quiet(&a, &b); /* 5 switches in 10 ms: a high rate from too few events */
    b.t_s = a.t_s + 0.01;
    b.ivcsw = a.ivcsw + 5;
    nb_contention_judge(&a, &b, 2, 2, &c);
    assert_false(c.contended);
    quiet(&a, &b); /* one other runnable thread, but a free CPU for it */
    a.procs_running = b.procs_running = 2;
    nb_contention_judge(&a, &b, 1, 2, &c);
    assert_false(c.contended);
    nb_contention_judge(&a, &b, 1, 1, &c); /* ... and none on one CPU */
    assert_true(c.contended);
}

static void test_unreadable_host_is_not_measured(void **state)
{
    (void)state;
    nb_host_load a = {.t_s = 1, .ivcsw = -1, .total_ticks = -1, .steal_ticks = -1,
                      .procs_running = -1};
    nb_host_load b = a;
    b.t_s = 2;
    nb_contention c;
    nb_contention_judge(&a, &b, 2, 2, &c);
    assert_false(c.measured);
    assert_false(c.contended);
}

static void test_live_reading_is_plausible(void **state)
{
    (void)state;
    nb_host_load l;
    nb_host_load_read(&l);
    assert_true(l.ivcsw >= 0);
    assert_true(l.procs_running >= 1); /* this thread is running */
    assert_true(l.total_ticks > 0);
}

static void test_meminfo_available_is_read(void **state)
{
    (void)state;
    assert_int_equal(nb_parse_meminfo_available("MemTotal:       24576000 kB\n"
                                                "MemFree:         1000000 kB\n"
                                                "MemAvailable:   12000000 kB\n"),
                     (size_t)12000000 * 1024);
    assert_int_equal(nb_parse_meminfo_available("MemTotal: 1 kB\n"), 0);
    assert_int_equal(nb_parse_meminfo_available("MemAvailable: lots\n"), 0);
    assert_int_equal(nb_parse_meminfo_available("XMemAvailable: 5 kB\n"), 0);
    assert_int_equal(nb_parse_meminfo_available(NULL), 0);
}

static void test_memory_fit_names_needed_and_available(void **state)
{
    (void)state;
    assert_true(nb_host_mem_available() > 0);
    assert_int_equal(nb_memory_fit("small case", 4096.0, 0), NB_OK);
    /* an exabyte fits no host */
    assert_int_equal(nb_memory_fit("huge case", 1e18, 0), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "huge case needs"));
    assert_non_null(strstr(nb_last_error(), "1000000000000000000 bytes) of host memory"));
    assert_non_null(strstr(nb_last_error(), "GiB available"));
}

/* A clock whose empty parallel regions take script[k] seconds, k = 0, 1, ...
 * (two reads per region; the last entry repeats). */
typedef struct script_clock {
    const double *dt;
    size_t n, reads;
    double now;
} script_clock;

static double scripted(void *ctx)
{
    script_clock *c = ctx;
    const size_t region = c->reads / 2;
    if (c->reads++ % 2)
        c->now += c->dt[region < c->n ? region : c->n - 1];
    return c->now;
}

static size_t wake_regions(const double *dt, size_t n)
{
    script_clock c = {dt, n, 0, 0.0};
    nb_bench_opts o;
    nb_bench_opts_default(&o);
    o.clock = scripted;
    o.clock_ctx = &c;
    int threads = 0;
    const size_t k = nb_cpu_wake_team(&o, &threads);
    assert_true(threads >= 1);
    return k;
}

/* After a flush the sample waits until the team wakes in a steady time: the
 * scheduler's delay (milliseconds on a shared host) is spent before t0. */
static void test_cold_cpu_sample_starts_after_the_team_woke(void **state)
{
    (void)state;
    static const double settled[] = {5e-6}, after_delay[] = {4e-3, 1e-3, 20e-6, 18e-6},
                        erratic[] = {1e-3, 10e-6, 1e-3, 10e-6, 1e-3, 10e-6, 1e-3, 10e-6,
                                     1e-3, 10e-6};
    assert_int_equal(wake_regions(settled, 1), 2);
    assert_int_equal(wake_regions(after_delay, 4), 4);
    assert_int_equal(wake_regions(erratic, 10), NB_CPU_WAKE_MAX);
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_proc_stat_fields_are_read),
        cmocka_unit_test(test_proc_stat_missing_or_short_lines_are_unknown),
        cmocka_unit_test(test_quiet_host_is_not_contended),
        cmocka_unit_test(test_each_threshold_alone_flags_contended),
        cmocka_unit_test(test_rates_and_room_decide_not_counts),
        cmocka_unit_test(test_unreadable_host_is_not_measured),
        cmocka_unit_test(test_live_reading_is_plausible),
        cmocka_unit_test(test_meminfo_available_is_read),
        cmocka_unit_test(test_memory_fit_names_needed_and_available),
        cmocka_unit_test(test_cold_cpu_sample_starts_after_the_team_woke),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The kernel trace's pure half (bench/timing/trace_attr.c) on synthetic
 * activity lists: overlapping kernels, gaps, a kernel running across a step
 * boundary, an empty step, steps merged by name, activities after the last
 * mark, the event times beside the steps, the figures per device, the deep
 * copy; a seeded random property check of busy, gaps and
 * overlap against a brute-force count. */
#include <math.h>

#include "bench/bench.h"
#include "testutil.h"

static nb_trace_activity act(const char *name, uint64_t start, uint64_t end, size_t mark,
                             uint32_t corr)
{
    nb_trace_activity a;
    memset(&a, 0, sizeof a);
    snprintf(a.name, sizeof a.name, "%s", name);
    a.kind = NB_TRACE_KERNEL;
    a.start_ns = start;
    a.end_ns = end;
    a.mark = mark;
    a.correlation_id = corr;
    return a;
}

static nb_trace_mark mk(const char *name, int is_ntt)
{
    nb_trace_mark m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "%s", name);
    m.is_ntt = is_ntt;
    return m;
}

/* A trace over a copy of acts[0..n), attributed to marks[0..nm). */
static void attribute(nb_trace *t, const nb_trace_activity *acts, size_t n,
                      const nb_trace_mark *marks, size_t nm)
{
    memset(t, 0, sizeof *t);
    t->acts = malloc((n ? n : 1) * sizeof *t->acts);
    assert_non_null(t->acts);
    memcpy(t->acts, acts, n * sizeof *acts);
    t->n_acts = n;
    if (nb_trace_attribute(t, marks, nm) != NB_OK)
        nb_test_fail("nb_trace_attribute: %s", nb_last_error());
}

static void test_trace_overlapping_kernels_count_once_in_busy(void **state)
{
    (void)state;
    const nb_trace_activity a[] = {act("k0", 1000, 1100, 0, 1), act("k1", 1060, 1160, 0, 2)};
    const nb_trace_mark m[] = {mk("ntt", 1)};
    nb_trace t;
    attribute(&t, a, 2, m, 1);
    assert_int_equal(t.n_steps, 1);
    const nb_trace_sums *s = &t.steps[0].sums;
    assert_int_equal(s->kernels, 2);
    assert_true(s->kernel_ns == 200 && s->busy_ns == 160 && s->overlap_ns == 40);
    assert_true(s->gap_ns == 0 && s->span_ns == 160);
    assert_true(t.origin_ns == 1000);
    nb_trace_free(&t);
}

static void test_trace_gaps_are_idle_time_between_kernels(void **state)
{
    (void)state;
    const nb_trace_activity a[] = {act("k0", 0, 100, 0, 1), act("k1", 150, 200, 0, 2),
                                   act("k2", 230, 260, 0, 3)};
    const nb_trace_mark m[] = {mk("conv", 0)};
    nb_trace t;
    attribute(&t, a, 3, m, 1);
    const nb_trace_sums *s = &t.steps[0].sums;
    assert_true(s->busy_ns == 180 && s->gap_ns == 80 && s->overlap_ns == 0);
    assert_true(s->span_ns == 260);
    nb_trace_free(&t);
}

static void test_trace_kernel_across_a_step_boundary_stays_in_its_launch_step(void **state)
{
    (void)state;
    /* step 1's kernel starts while step 0's is still running (programmatic
     * dependent launch): each keeps its own kernel, the overlap is the
     * later step's boundary overlap, and the launch counts it once */
    const nb_trace_activity a[] = {act("intt", 0, 100, 0, 1), act("conv", 80, 150, 1, 2)};
    const nb_trace_mark m[] = {mk("intt", 1), mk("conv", 0)};
    nb_trace t;
    attribute(&t, a, 2, m, 2);
    assert_int_equal(t.n_steps, 2);
    assert_true(t.steps[0].sums.busy_ns == 100 && t.steps[0].boundary_ns == 0);
    assert_true(t.steps[1].sums.busy_ns == 70 && t.steps[1].boundary_ns == 20);
    assert_true(t.steps[1].sums.overlap_ns == 0);
    assert_true(t.launch.busy_ns == 150 && t.launch.overlap_ns == 20 && t.launch.gap_ns == 0);
    nb_trace_free(&t);
}

static void test_trace_empty_step_has_zero_figures_and_breaks_the_boundary(void **state)
{
    (void)state;
    const nb_trace_activity a[] = {act("a", 0, 100, 0, 1), act("c", 50, 120, 2, 3)};
    const nb_trace_mark m[] = {mk("intt", 1), mk("copy", 0), mk("conv", 0)};
    nb_trace t;
    attribute(&t, a, 2, m, 3);
    assert_int_equal(t.n_steps, 3);
    const nb_trace_step *copy = &t.steps[1];
    assert_string_equal(copy->name, "copy");
    assert_int_equal(copy->marks, 1);
    assert_true(copy->sums.kernels == 0 && copy->sums.busy_ns == 0 && copy->sums.span_ns == 0);
    /* the boundary overlap is with the mark right before: the empty one */
    assert_true(t.steps[2].boundary_ns == 0);
    assert_true(t.launch.overlap_ns == 50);
    nb_trace_free(&t);
}

static void test_trace_steps_merge_by_name_like_the_breakdown(void **state)
{
    (void)state;
    const nb_trace_activity a[] = {act("n0", 0, 10, 0, 1), act("c0", 10, 15, 1, 2),
                                   act("n1", 20, 40, 2, 3), act("n2", 40, 45, 2, 4)};
    const nb_trace_mark m[] = {mk("ntt", 1), mk("conv", 0), mk("ntt", 1)};
    nb_trace t;
    attribute(&t, a, 4, m, 3);
    assert_int_equal(t.n_steps, 2);
    assert_string_equal(t.steps[0].name, "ntt");
    assert_int_equal(t.steps[0].marks, 2);
    assert_int_equal(t.steps[0].sums.kernels, 3);
    assert_true(t.steps[0].sums.busy_ns == 35 && t.steps[0].sums.span_ns == 35);
    assert_true(isnan(t.steps[0].event_ns));
    nb_trace_free(&t);
}

static void test_trace_sorts_by_start_then_correlation_and_keeps_copies_apart(void **state)
{
    (void)state;
    nb_trace_activity a[] = {act("late", 50, 60, 0, 3), act("b", 10, 20, 0, 2),
                             act("a", 10, 30, 0, 1)};
    a[0].kind = NB_TRACE_MEMCPY;
    const nb_trace_mark m[] = {mk("copy", 0)};
    nb_trace t;
    attribute(&t, a, 3, m, 1);
    assert_string_equal(t.acts[0].name, "a");
    assert_string_equal(t.acts[1].name, "b");
    assert_string_equal(t.acts[2].name, "late");
    assert_int_equal(t.steps[0].sums.kernels, 2);
    assert_int_equal(t.steps[0].sums.copies, 1);
    nb_trace_free(&t);
}

static void test_trace_activity_after_the_last_mark_is_in_no_step(void **state)
{
    (void)state;
    const nb_trace_activity a[] = {act("k", 0, 10, 0, 1), act("tail", 10, 30, 1, 2)};
    const nb_trace_mark m[] = {mk("scalar", 0)};
    nb_trace t;
    attribute(&t, a, 2, m, 1);
    assert_int_equal(t.unattributed, 1);
    assert_int_equal(t.steps[0].sums.kernels, 1);
    assert_true(t.launch.kernel_ns == 30); /* the launch counts every activity */
    nb_trace_free(&t);
}

static void test_trace_rejects_an_activity_ending_before_it_starts(void **state)
{
    (void)state;
    nb_trace t;
    memset(&t, 0, sizeof t);
    nb_trace_activity a = act("bad", 100, 50, 0, 1);
    t.acts = &a;
    t.n_acts = 1;
    const nb_trace_mark m[] = {mk("ntt", 1)};
    assert_int_equal(nb_trace_attribute(&t, m, 1), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "bad"));
    free(t.marks);
}

static void test_trace_event_times_come_from_the_breakdown_step_of_that_name(void **state)
{
    (void)state;
    const nb_trace_activity a[] = {act("k", 0, 10, 0, 1), act("k", 10, 20, 1, 2)};
    const nb_trace_mark m[] = {mk("ntt", 1), mk("scalar", 0)};
    nb_trace t;
    attribute(&t, a, 2, m, 2);
    nb_breakdown bd;
    memset(&bd, 0, sizeof bd);
    bd.n_steps = 2;
    snprintf(bd.steps[0].name, sizeof bd.steps[0].name, "scalar");
    bd.steps[0].median_s = 2e-6;
    snprintf(bd.steps[1].name, sizeof bd.steps[1].name, "ntt");
    bd.steps[1].is_ntt = 1;
    bd.steps[1].inverse = 1; /* another direction: not the forward "ntt" */
    bd.steps[1].median_s = 5e-6;
    nb_trace_set_events(&t, &bd);
    assert_true(isnan(t.steps[0].event_ns));
    assert_true(fabs(t.steps[1].event_ns - 2000.0) < 1e-6);
    nb_trace_free(&t);
}

/* Two devices running at once inside one step: together they overlap, each
 * alone does not; the devices come out ascending whatever the start order. */
static void test_trace_devices_are_figured_alone_and_together(void **state)
{
    (void)state;
    nb_trace_activity a[] = {act("d3a", 0, 100, 0, 1), act("d0", 20, 80, 0, 2),
                             act("d3b", 120, 150, 1, 3), act("d0b", 130, 140, 1, 4)};
    a[0].device = a[2].device = 3;
    a[3].kind = NB_TRACE_MEMCPY;
    const nb_trace_mark m[] = {mk("conv", 0), mk("ntt", 1)};
    nb_trace t;
    attribute(&t, a, 4, m, 2);
    assert_int_equal(t.n_devices, 2);
    assert_true(t.devices[0] == 0 && t.devices[1] == 3);
    const nb_trace_sums *conv0 = &t.device_steps[0], *conv3 = &t.device_steps[1];
    assert_true(t.steps[0].sums.busy_ns == 100 && t.steps[0].sums.overlap_ns == 60);
    assert_true(conv0->kernels == 1 && conv0->busy_ns == 60 && conv0->overlap_ns == 0);
    assert_true(conv3->kernels == 1 && conv3->busy_ns == 100 && conv3->span_ns == 100);
    const nb_trace_sums *ntt0 = &t.device_steps[2], *ntt3 = &t.device_steps[3];
    assert_true(ntt0->kernels == 0 && ntt0->copies == 1 && ntt0->busy_ns == 10);
    assert_true(ntt3->kernels == 1 && ntt3->busy_ns == 30);
    /* the launch per device: device 0 idle between its two activities */
    assert_true(t.device_launch[0].span_ns == 120 && t.device_launch[0].gap_ns == 50);
    assert_true(t.device_launch[1].busy_ns == 130 && t.device_launch[1].gap_ns == 20);
    assert_true(t.device_launch[0].kernel_ns + t.device_launch[1].kernel_ns ==
                t.launch.kernel_ns);
    nb_trace_free(&t);
}

static void test_trace_one_device_figures_equal_the_whole(void **state)
{
    (void)state;
    const nb_trace_activity a[] = {act("k0", 0, 40, 0, 1), act("k1", 30, 90, 0, 2),
                                   act("k2", 95, 99, 1, 3)};
    const nb_trace_mark m[] = {mk("intt", 1), mk("scalar", 0)};
    nb_trace t;
    attribute(&t, a, 3, m, 2);
    assert_int_equal(t.n_devices, 1);
    assert_memory_equal(&t.device_launch[0], &t.launch, sizeof t.launch);
    for (size_t j = 0; j < t.n_steps; j++)
        assert_memory_equal(&t.device_steps[j], &t.steps[j].sums, sizeof t.launch);
    nb_trace_free(&t);
}

static void test_trace_copy_owns_its_arrays(void **state)
{
    (void)state;
    nb_trace_activity a[] = {act("k0", 0, 40, 0, 1), act("k1", 10, 30, 0, 2)};
    a[1].device = 1;
    const nb_trace_mark m[] = {mk("conv", 0)};
    nb_trace t, c;
    attribute(&t, a, 2, m, 1);
    assert_int_equal(nb_trace_copy(&c, &t), NB_OK);
    assert_true(c.acts != t.acts && c.marks != t.marks && c.devices != t.devices);
    assert_true(c.device_launch != t.device_launch && c.device_steps != t.device_steps);
    const nb_trace_sums want = t.device_steps[1];
    nb_trace_free(&t);
    assert_int_equal(c.n_acts, 2);
    assert_string_equal(c.acts[1].name, "k1");
    assert_string_equal(c.marks[0].name, "conv");
    assert_true(c.n_devices == 2 && c.devices[1] == 1);
    assert_memory_equal(&c.device_steps[1], &want, sizeof want);
    nb_trace_free(&c);
}

/* Busy, gaps and overlap of random activities on a small integer grid
 * against counting each nanosecond. */
static void test_trace_busy_gap_overlap_match_a_count_per_nanosecond(void **state)
{
    (void)state;
    enum { GRID = 400, MAX_ACTS = 12 };
    for (int round = 0; round < 200; round++) {
        const size_t n = 1 + nb_test_rand_below(MAX_ACTS), nm = 1 + nb_test_rand_below(4);
        nb_trace_activity a[MAX_ACTS];
        nb_trace_mark m[4];
        for (size_t i = 0; i < nm; i++)
            m[i] = mk(i % 2 ? "conv" : "ntt", i % 2 == 0);
        for (size_t i = 0; i < n; i++) {
            const uint64_t s = nb_test_rand_below(GRID - 40), d = nb_test_rand_below(40);
            a[i] = act("k", s, s + d, nb_test_rand_below(nm), (uint32_t)i);
        }
        nb_trace t;
        attribute(&t, a, n, m, nm);
        unsigned cover[GRID] = {0};
        double dur = 0;
        uint64_t lo = UINT64_MAX, hi = 0;
        for (size_t i = 0; i < n; i++) {
            for (uint64_t x = a[i].start_ns; x < a[i].end_ns; x++)
                cover[x]++;
            dur += (double)(a[i].end_ns - a[i].start_ns);
            lo = a[i].start_ns < lo ? a[i].start_ns : lo;
            hi = a[i].end_ns > hi ? a[i].end_ns : hi;
        }
        double busy = 0;
        for (int x = 0; x < GRID; x++)
            busy += cover[x] > 0;
        if (t.launch.busy_ns != busy || t.launch.kernel_ns != dur ||
            t.launch.span_ns != (double)(hi - lo) || t.launch.gap_ns != (double)(hi - lo) - busy ||
            t.launch.overlap_ns != dur - busy)
            nb_test_fail("round %d: busy %g (want %g), kernel %g (want %g)", round,
                         t.launch.busy_ns, busy, t.launch.kernel_ns, dur);
        double step_kernel = 0;
        size_t step_marks = 0;
        for (size_t j = 0; j < t.n_steps; j++) {
            step_kernel += t.steps[j].sums.kernel_ns;
            step_marks += t.steps[j].marks;
            assert_true(t.steps[j].sums.busy_ns <= t.steps[j].sums.kernel_ns);
            assert_true(t.steps[j].sums.gap_ns >= 0 && t.steps[j].sums.overlap_ns >= 0);
        }
        assert_true(step_kernel == dur);
        assert_int_equal(step_marks, nm);
        nb_trace_free(&t);
    }
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_overlapping_kernels_count_once_in_busy),
        cmocka_unit_test(test_trace_gaps_are_idle_time_between_kernels),
        cmocka_unit_test(test_trace_kernel_across_a_step_boundary_stays_in_its_launch_step),
        cmocka_unit_test(test_trace_empty_step_has_zero_figures_and_breaks_the_boundary),
        cmocka_unit_test(test_trace_steps_merge_by_name_like_the_breakdown),
        cmocka_unit_test(test_trace_sorts_by_start_then_correlation_and_keeps_copies_apart),
        cmocka_unit_test(test_trace_activity_after_the_last_mark_is_in_no_step),
        cmocka_unit_test(test_trace_rejects_an_activity_ending_before_it_starts),
        cmocka_unit_test(test_trace_event_times_come_from_the_breakdown_step_of_that_name),
        cmocka_unit_test(test_trace_devices_are_figured_alone_and_together),
        cmocka_unit_test(test_trace_one_device_figures_equal_the_whole),
        cmocka_unit_test(test_trace_copy_owns_its_arrays),
        cmocka_unit_test(test_trace_busy_gap_overlap_match_a_count_per_nanosecond),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

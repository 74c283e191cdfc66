/* The kernel trace (nb_bench_trace) of a key switch of test-small at its top
 * level with gpu-fast, against what the pipeline launches: the trace has the
 * pipeline's step marks, and each mark the kernels its launches enqueued. A
 * counting copy of gpu-fast adds, for each NTT call (with or without the
 * fused epilogue), the launches its `kernels` entry reports for that very
 * call; every other GPU step launches
 * one kernel (conv, inner-product, scalar: ckks/gpu_kernels.cu) and a "copy"
 * step one memcpy and no kernel. Kernels start in launch order (correlation
 * ids) on the workload's stream. And the trace of the stage workload's key
 * switch on two GPUs, per device (those two skipped without CUPTI). And the
 * kernel log of the same key switch against the same count. Exits 77 without
 * a device. */
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/tiers/stage.h"
#include "benchutil.h"
#include "ckks/ckks.h"
#include "testutil.h"

static void *stream;
static const nb_ntt_variant *inner; /* gpu-fast */
static nb_ntt_variant counted;      /* gpu-fast, counting */
static size_t ntt_launches;         /* kernels of the NTT calls since the last mark */

static void count_call(void *plan, int inverse, size_t first, size_t count)
{
    nb_ntt_kernel k[NB_CASE_MAX_KERNELS];
    size_t n = 0;
    if (inner->kernels(plan, inverse, first, count, k, NB_CASE_MAX_KERNELS, &n) != NB_OK)
        nb_test_fail("gpu-fast kernels: %s", nb_last_error());
    assert_true(n >= 1 && n <= NB_CASE_MAX_KERNELS);
    for (size_t i = 0; i < n; i++)
        ntt_launches += k[i].launches;
}

static nb_status c_forward(void *plan, void *data, size_t first, size_t count, void *s)
{
    count_call(plan, 0, first, count);
    return inner->forward(plan, data, first, count, s);
}

static nb_status c_inverse(void *plan, void *data, size_t first, size_t count, void *s)
{
    count_call(plan, 1, first, count);
    return inner->inverse(plan, data, first, count, s);
}

static nb_status c_forward_to(void *plan, void *dst, const void *src, size_t first,
                              size_t count, void *s)
{
    count_call(plan, 0, first, count);
    return inner->forward_to(plan, dst, src, first, count, s);
}

static nb_status c_inverse_to(void *plan, void *dst, const void *src, size_t first,
                              size_t count, void *s)
{
    count_call(plan, 1, first, count);
    return inner->inverse_to(plan, dst, src, first, count, s);
}

static nb_status c_forward_sub_scale(void *plan, void *data, const nb_ntt_sub_scale *e,
                                     size_t first, size_t count, void *s)
{
    count_call(plan, NB_NTT_KERNELS_SUB_SCALE, first, count);
    return inner->forward_sub_scale(plan, data, e, first, count, s);
}

/* A key switch as a workload: one buffer set, the expectation per mark. */
typedef struct ks_ctx {
    nb_ckks *ck;
    size_t level;
    nb_buffer *in, *out, *key;
    nb_step_marks *marks;
    size_t n_marks;
    char names[NB_MAX_MARKS][32];
    size_t want_kernels[NB_MAX_MARKS], want_copies[NB_MAX_MARKS];
} ks_ctx;

static nb_status ks_setup(void *ctx, size_t sets, void *s)
{
    (void)ctx;
    (void)sets;
    (void)s;
    return NB_OK;
}

static size_t ks_bytes(const void *ctx)
{
    const ks_ctx *c = ctx;
    return nb_buffer_bytes(c->in) + nb_buffer_bytes(c->out) + nb_buffer_bytes(c->key);
}

static nb_status ks_hook(void *user, const char *step, int is_ntt, size_t limbs, int inverse)
{
    ks_ctx *c = user;
    if (c->n_marks < NB_MAX_MARKS) {
        const int copy = !is_ntt && !strcmp(step, "copy");
        snprintf(c->names[c->n_marks], sizeof c->names[0], "%s", step);
        c->want_kernels[c->n_marks] = is_ntt ? ntt_launches : copy ? 0 : 1;
        c->want_copies[c->n_marks] = copy;
        c->n_marks++;
    }
    ntt_launches = 0;
    return nb_step_mark(c->marks, step, is_ntt, limbs, inverse);
}

static nb_status ks_run(ks_ctx *c, const nb_ckks_hook *hook, void *s)
{
    const size_t half = nb_buffer_bytes(c->out) / 2;
    char *out = nb_buffer_ptr(c->out);
    return nb_ckks_keyswitch(c->ck, c->level, out, out + half, nb_buffer_ptr(c->in),
                             nb_buffer_ptr(c->key), hook, s);
}

static nb_status ks_launch(void *ctx, size_t set, void *s)
{
    (void)set;
    return ks_run(ctx, NULL, s);
}

static nb_status ks_launch_marked(void *ctx, size_t set, void *s, nb_step_marks *marks)
{
    (void)set;
    ks_ctx *c = ctx;
    c->marks = marks;
    c->n_marks = 0;
    ntt_launches = 0;
    const nb_ckks_hook hook = {ks_hook, c};
    return ks_run(c, &hook, s);
}

static nb_status ks_verify(void *ctx, size_t set, void *s)
{
    (void)ctx;
    (void)set;
    (void)s;
    return NB_OK;
}

static void ks_teardown(void *ctx) { (void)ctx; }

static const nb_workload_ops ks_ops = {
    .setup = ks_setup,
    .bytes_per_launch = ks_bytes,
    .launch = ks_launch,
    .launch_marked = ks_launch_marked,
    .verify = ks_verify,
    .teardown = ks_teardown,
};

static nb_buffer *zeros(size_t limbs, size_t n)
{
    nb_buffer *b = NULL;
    if (nb_buffer_create(&b, NB_BACKEND_GPU, limbs * n * sizeof(uint64_t)) != NB_OK)
        nb_test_fail("device alloc: %s", nb_last_error());
    assert_int_equal(nb_buffer_fill(b, 0, stream), NB_OK);
    return b;
}

/* Skips a trace test: no CUPTI (no headers at build time, or libcupti not
 * found at run time). */
#define skip_without_cupti()                                                                   \
    do {                                                                                       \
        print_message("skipped: CUPTI unavailable (no headers, or libcupti not found)\n");     \
        skip();                                                                                \
    } while (0)

/* Where a step's one kernel comes from: a part of its kernel's name. */
static const char *kernel_of(const char *step)
{
    if (!strcmp(step, "conv"))
        return "conv";
    if (!strcmp(step, "scalar"))
        return "sub_mul";
    if (!strcmp(step, "inner-product"))
        return "inner_product";
    return NULL;
}

/* gpu-fast's counting copy (`counted`), a pipeline of test-small over it and
 * c's buffers at its top level; *p the parameters, destroyed by ks_close. */
static void ks_open(ks_ctx *c, nb_ckks_params **p)
{
    inner = nb_ntt_variant_find("gpu-fast");
    assert_non_null(inner);
    assert_non_null(inner->kernels);
    counted = *inner;
    counted.forward = c_forward;
    counted.inverse = c_inverse;
    counted.forward_to = inner->forward_to ? c_forward_to : NULL;
    counted.inverse_to = inner->inverse_to ? c_inverse_to : NULL;
    counted.forward_sub_scale = inner->forward_sub_scale ? c_forward_sub_scale : NULL;
    assert_int_equal(nb_ckks_params_create(p, &nb_ckks_preset_find("test-small")->spec), NB_OK);
    memset(c, 0, sizeof *c);
    c->level = (*p)->max_level;
    if (nb_ckks_create(&c->ck, *p, &counted, stream) != NB_OK)
        nb_test_fail("nb_ckks_create: %s", nb_last_error());
    c->in = zeros(c->level + 1, (*p)->n);
    c->out = zeros(2 * (c->level + 1), (*p)->n);
    c->key = zeros(nb_ckks_key_limbs(*p), (*p)->n);
}

static void ks_close(ks_ctx *c, nb_ckks_params *p)
{
    nb_buffer_destroy(c->in);
    nb_buffer_destroy(c->out);
    nb_buffer_destroy(c->key);
    nb_ckks_destroy(c->ck);
    nb_ckks_params_destroy(p);
}

static void test_trace_of_a_key_switch_has_the_pipelines_kernels_per_step(void **state)
{
    (void)state;
    if (!nb_trace_available())
        skip_without_cupti();
    nb_ckks_params *p = NULL;
    ks_ctx c;
    ks_open(&c, &p);
    nb_workload w = {"keyswitch test-small traced", NB_BACKEND_GPU, &ks_ops, &c};
    nb_bench_opts o = nb_test_quick_opts();
    o.cache = NB_CACHE_WARM;
    nb_trace t;
    const nb_status s = nb_bench_trace(&w, stream, &o, &t);
    if (s != NB_OK)
        nb_test_fail("nb_bench_trace: %s", nb_last_error());

    assert_true(c.n_marks > 0);
    assert_int_equal(t.n_marks, c.n_marks);
    size_t want_total = 0;
    for (size_t i = 0; i < c.n_marks; i++) {
        assert_string_equal(t.marks[i].name, c.names[i]);
        size_t kernels = 0, copies = 0;
        for (size_t k = 0; k < t.n_acts; k++)
            if (t.acts[k].mark == i) {
                kernels += t.acts[k].kind == NB_TRACE_KERNEL;
                copies += t.acts[k].kind != NB_TRACE_KERNEL;
                const char *part = kernel_of(c.names[i]);
                if (part && !strstr(t.acts[k].name, part))
                    nb_test_fail("mark %zu (%s): kernel '%s' has no '%s'", i, c.names[i],
                                 t.acts[k].name, part);
            }
        if (kernels != c.want_kernels[i] || copies != c.want_copies[i])
            nb_test_fail("mark %zu (%s): %zu kernels, %zu copies traced; the pipeline "
                         "launched %zu, %zu", i, c.names[i], kernels, copies,
                         c.want_kernels[i], c.want_copies[i]);
        want_total += c.want_kernels[i] + c.want_copies[i];
    }
    assert_int_equal(t.n_acts, want_total);
    assert_int_equal(t.unattributed, 0);
    for (size_t k = 1; k < t.n_acts; k++) {
        assert_true(t.acts[k].correlation_id > t.acts[k - 1].correlation_id);
        assert_true(t.acts[k].mark >= t.acts[k - 1].mark);
        assert_int_equal(t.acts[k].stream_id, t.acts[0].stream_id);
    }
    for (size_t k = 0; k < t.n_acts; k++)
        assert_true(t.acts[k].end_ns > t.acts[k].start_ns);
    assert_true(t.launch.busy_ns > 0 && t.launch.busy_ns <= t.launch.span_ns);
    nb_trace_free(&t);
    ks_close(&c, p);
}

/* A hook that only counts: the kernels each step launched (as ks_hook). */
static nb_status count_hook(void *user, const char *step, int is_ntt, size_t limbs, int inverse)
{
    (void)limbs;
    (void)inverse;
    size_t *total = user;
    *total += is_ntt ? ntt_launches : !strcmp(step, "copy") ? 0 : 1;
    ntt_launches = 0;
    return NB_OK;
}

/* The kernel log of one key switch (nb_bench_kernel_log, no CUPTI needed)
 * counts every kernel the pipeline launched, as the counting variant and the
 * steps count them; every entry has its resources; the conversion, the inner
 * product and gpu-fast's kernels are among them. */
static void test_kernel_log_of_a_key_switch_counts_every_launch(void **state)
{
    (void)state;
    nb_ckks_params *p = NULL;
    ks_ctx c;
    ks_open(&c, &p);
    size_t want = 0;
    ntt_launches = 0;
    const nb_ckks_hook hook = {count_hook, &want};
    assert_int_equal(ks_run(&c, &hook, stream), NB_OK);
    assert_int_equal(nb_stream_sync(stream), NB_OK);
    assert_true(want > 0);

    nb_workload w = {"keyswitch test-small logged", NB_BACKEND_GPU, &ks_ops, &c};
    nb_bench_opts o = nb_test_quick_opts();
    o.cache = NB_CACHE_WARM;
    nb_ntt_kernel k[NB_CASE_MAX_KERNELS];
    nb_kernel_log log = {k, NB_CASE_MAX_KERNELS, 0, 0, 0, 0, ""};
    if (nb_bench_kernel_log(&w, stream, &o, &log) != NB_OK)
        nb_test_fail("nb_bench_kernel_log: %s", nb_last_error());
    assert_null(nb_kernel_log_active());
    if (log.incomplete)
        nb_test_fail("kernel log incomplete: %s", log.why);
    assert_int_equal(log.dropped, 0);
    assert_int_equal(log.launches, want);
    unsigned long long sum = 0;
    int conv = 0, ip = 0, ntt = 0;
    for (size_t i = 0; i < log.n; i++) {
        if (k[i].regs <= 0 || k[i].block_threads == 0 || k[i].blocks < k[i].launches ||
            !(k[i].occupancy > 0 && k[i].occupancy <= 1))
            nb_test_fail("'%s': regs %d, %u threads, %llu blocks, %u launches, occupancy %g",
                         k[i].name, k[i].regs, k[i].block_threads, k[i].blocks, k[i].launches,
                         k[i].occupancy);
        sum += k[i].launches;
        conv |= strstr(k[i].name, "conv") != NULL;
        ip |= strstr(k[i].name, "inner_product") != NULL;
        ntt |= strstr(k[i].name, "2^") != NULL; /* gpu-fast's "rows 2^k-point, ..." */
    }
    assert_int_equal(sum, log.launches);
    assert_true(conv && ip && ntt);
    ks_close(&c, p);
}

/* 1 when the trace has an activity of device `device` whose name holds "nccl". */
static int has_nccl_kernel(const nb_trace *t, uint32_t device)
{
    for (size_t k = 0; k < t->n_acts; k++)
        if (t->acts[k].device == device && t->acts[k].kind == NB_TRACE_KERNEL &&
            (strstr(t->acts[k].name, "nccl") || strstr(t->acts[k].name, "NCCL")))
            return 1;
    return 0;
}

/* The stage workload's key switch of test-small on two GPUs: the launch's
 * kernels come back from both devices, each attributed to a step, the
 * exchanges' NCCL kernels among them on both devices, and the per-device
 * figures add up to the launch's. Skipped without two devices or NCCL. */
static void test_trace_of_a_two_gpu_key_switch_covers_both_devices(void **state)
{
    (void)state;
    if (!nb_trace_available())
        skip_without_cupti();
    if (nb_gpu_count() < 2) {
        print_message("skipped: %d GPU, the two-GPU trace needs two\n", nb_gpu_count());
        skip();
    }
    nb_ckks_params *p = NULL;
    if (nb_ckks_params_from_preset(&p, "test-small") != NB_OK)
        nb_test_fail("params: %s", nb_last_error());
    const nb_stage_config cfg = {NB_CKKS_STAGE_KEYSWITCH, SIZE_MAX, NB_CKKS_RESCALE_FLOOR,
                                 nb_test_rand(), 2, 0, 0};
    nb_workload *w = NULL;
    nb_status s = nb_stage_workload_create(&w, p, nb_ntt_variant_find("gpu-fast"), &cfg, stream);
    if (s == NB_ERR_UNSUPPORTED) { /* no NCCL */
        print_message("skipped: %s\n", nb_last_error());
        nb_ckks_params_destroy(p);
        skip();
    }
    if (s != NB_OK)
        nb_test_fail("stage workload: %s", nb_last_error());
    nb_bench_opts o = nb_test_quick_opts();
    o.cache = NB_CACHE_COLD; /* the other device's eviction runs too, outside the trace */
    nb_trace t;
    if (nb_bench_trace(w, stream, &o, &t) != NB_OK)
        nb_test_fail("nb_bench_trace: %s", nb_last_error());

    assert_int_equal(t.n_devices, 2);
    assert_true(t.devices[0] == 0 && t.devices[1] == 1);
    assert_int_equal(t.unattributed, 0);
    size_t kernels = 0, copies = 0;
    for (size_t k = 0; k < 2; k++) {
        if (!t.device_launch[k].kernels)
            nb_test_fail("device %u: no kernel traced", (unsigned)t.devices[k]);
        if (!has_nccl_kernel(&t, t.devices[k]))
            nb_test_fail("device %u: no NCCL kernel traced (the exchanges)",
                         (unsigned)t.devices[k]);
        kernels += t.device_launch[k].kernels;
        copies += t.device_launch[k].copies;
        assert_true(t.device_launch[k].busy_ns <= t.launch.busy_ns);
    }
    assert_int_equal(kernels, t.launch.kernels);
    assert_int_equal(copies, t.launch.copies);
    int comm = 0;
    for (size_t j = 0; j < t.n_steps; j++) {
        size_t step_kernels = 0;
        for (size_t k = 0; k < 2; k++)
            step_kernels += t.device_steps[j * 2 + k].kernels;
        assert_int_equal(step_kernels, t.steps[j].sums.kernels);
        comm |= strcmp(t.steps[j].name, "comm") == 0;
    }
    assert_true(comm); /* the exchanges' waits are marked */
    nb_trace_free(&t);
    nb_workload_destroy(w);
    nb_ckks_params_destroy(p);
}

int main(void)
{
    nb_test_require_gpu_or_skip();
    nb_test_seed_init();
    if (nb_stream_create(&stream) != NB_OK) {
        printf("cannot create a stream: %s\n", nb_last_error());
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_of_a_key_switch_has_the_pipelines_kernels_per_step),
        cmocka_unit_test(test_trace_of_a_two_gpu_key_switch_covers_both_devices),
        cmocka_unit_test(test_kernel_log_of_a_key_switch_counts_every_launch),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    nb_stream_destroy(stream);
    return rc;
}

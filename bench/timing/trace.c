/* The kernel trace pass (nb_bench_trace): one marked launch of a GPU
 * workload with CUPTI's activity records on, an external correlation id
 * per step, the records collected from CUPTI's buffers and handed to
 * nb_trace_attribute. CUPTI is called through the library opened at run
 * time (cupti_load.h); a build without CUPTI's headers (NB_HAVE_CUPTI
 * unset) has a stub that says so. CUPTI's callbacks are process-wide: one
 * trace at a time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/timing/internal.h"
#include "bench/timing/plan.h"
#include "bench/timing/trace.h"

/* NB_ERR_UNSUPPORTED for a workload that runs on the CPU, whatever the
 * build: the trace records GPU activities. */
static nb_status refuse_cpu(const nb_workload *w)
{
    return nb_set_error(NB_ERR_UNSUPPORTED, "kernel trace: '%s' runs on the CPU; the trace "
                        "records GPU activities", w->label ? w->label : "");
}

#if defined(NB_HAVE_CUPTI) && defined(NB_HAVE_CUDA)
#include <pthread.h>

#include "bench/timing/cupti_load.h"
#include "core/cuda_check.h"

/* The Itanium C++ ABI's demangler (C linkage; libstdc++, linked with the
 * CUDA objects). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define BUFFER_BYTES ((size_t)4 << 20)
#define EXT_KIND CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0
#define MAX_ATTEMPTS 2 /* behind the blocking kernel, then (it timed out) without */

static const CUpti_ActivityKind trace_kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET,            CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_DRIVER,            CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
};
#define N_KINDS (sizeof trace_kinds / sizeof trace_kinds[0])

typedef struct ext_map {
    uint32_t correlation_id;
    uint64_t id;
} ext_map;

/* What CUPTI's buffer callback delivered (it may run on CUPTI's thread). */
static struct {
    pthread_mutex_t mu;
    nb_trace_activity *acts;
    size_t n, cap;
    ext_map *ext;
    size_t n_ext, cap_ext;
    int oom;
    CUptiResult bad; /* how reading a buffer failed (CUPTI_SUCCESS: it did not) */
} col = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, NULL, 0, 0, 0, CUPTI_SUCCESS};

static pthread_mutex_t trace_mu = PTHREAD_MUTEX_INITIALIZER;

/* The opened CUPTI, set before a trace registers its buffer callbacks. */
static const nb_cupti_api *cu;

static nb_status cupti_check(CUptiResult r, const char *what)
{
    if (r == CUPTI_SUCCESS)
        return NB_OK;
    const char *msg = NULL;
    if (cu->get_result_string(r, &msg) != CUPTI_SUCCESS || !msg)
        msg = "unknown error";
    return nb_set_error(NB_ERR_CUDA, "kernel trace: CUPTI %s: %s", what, msg);
}

static void collector_clear(void)
{
    pthread_mutex_lock(&col.mu);
    free(col.acts);
    free(col.ext);
    col.acts = NULL;
    col.ext = NULL;
    col.n = col.cap = col.n_ext = col.cap_ext = 0;
    col.oom = 0;
    col.bad = CUPTI_SUCCESS;
    pthread_mutex_unlock(&col.mu);
}

/* Room for one more element of `size` bytes in *arr (cap doubles). */
static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 1;
    const size_t nc = *cap ? 2 * *cap : 256;
    void *p = realloc(*arr, nc * size);
    if (!p)
        return 0;
    *arr = p;
    *cap = nc;
    return 1;
}

static void add_activity(nb_trace_kind kind, const char *name, uint64_t start, uint64_t end,
                         uint32_t stream, uint32_t device, uint32_t corr)
{
    if (!grow((void **)&col.acts, &col.cap, col.n, sizeof *col.acts)) {
        col.oom = 1;
        return;
    }
    nb_trace_activity *a = &col.acts[col.n++];
    memset(a, 0, sizeof *a);
    a->kind = kind;
    if (kind == NB_TRACE_KERNEL) {
        int status = -1;
        char *d = name ? __cxa_demangle(name, NULL, NULL, &status) : NULL;
        nb_kernel_short_name(status == 0 && d ? d : (name ? name : "?"), a->name, sizeof a->name);
        free(d);
    } else {
        snprintf(a->name, sizeof a->name, "%s", nb_trace_kind_name(kind));
    }
    a->start_ns = start;
    a->end_ns = end < start ? start : end;
    a->stream_id = stream;
    a->device = device;
    a->correlation_id = corr;
}

static void take_record(const CUpti_Activity *r)
{
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;
        add_activity(NB_TRACE_KERNEL, k->name, k->start, k->end, k->streamId, k->deviceId,
                     k->correlationId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *c = (const CUpti_ActivityMemcpy6 *)r;
        add_activity(NB_TRACE_MEMCPY, NULL, c->start, c->end, c->streamId, c->deviceId,
                     c->correlationId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *s = (const CUpti_ActivityMemset4 *)r;
        add_activity(NB_TRACE_MEMSET, NULL, s->start, s->end, s->streamId, s->deviceId,
                     s->correlationId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const CUpti_ActivityExternalCorrelation *x = (const CUpti_ActivityExternalCorrelation *)r;
        if (x->externalKind != EXT_KIND)
            break;
        if (!grow((void **)&col.ext, &col.cap_ext, col.n_ext, sizeof *col.ext)) {
            col.oom = 1;
            break;
        }
        col.ext[col.n_ext].correlation_id = x->correlationId;
        col.ext[col.n_ext++].id = x->externalId;
        break;
    }
    default: /* the runtime and driver records only carry the correlation */
        break;
    }
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
    *buf = aligned_alloc(8, BUFFER_BYTES);
    *size = *buf ? BUFFER_BYTES : 0;
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buf,
                                      size_t size, size_t valid)
{
    (void)ctx;
    (void)stream_id;
    (void)size;
    CUpti_Activity *r = NULL;
    pthread_mutex_lock(&col.mu);
    CUptiResult e = CUPTI_SUCCESS;
    while (buf && (e = cu->activity_get_next_record(buf, valid, &r)) == CUPTI_SUCCESS)
        take_record(r);
    if (e != CUPTI_SUCCESS && e != CUPTI_ERROR_MAX_LIMIT_REACHED && col.bad == CUPTI_SUCCESS)
        col.bad = e;
    pthread_mutex_unlock(&col.mu);
    free(buf);
}

/* The marked launch's state: the attempt's id base, the marks' host times. */
typedef struct trace_ctx {
    uint64_t base;
    uint64_t stamp[NB_MAX_MARKS];
} trace_ctx;

/* At mark `index`: the launches since the previous mark belonged to step
 * `index`; the next ones get the next id. */
static nb_status on_mark(void *user, size_t index)
{
    trace_ctx *tc = user;
    NB_TRY(cupti_check(cu->activity_pop_external_correlation_id(EXT_KIND, NULL), "pop id"));
    NB_TRY(cupti_check(cu->get_timestamp(&tc->stamp[index]), "timestamp"));
    return cupti_check(cu->activity_push_external_correlation_id(EXT_KIND, tc->base + index + 1),
                       "push id");
}

/* Disables the first n kinds; the first failure's status. */
static nb_status disable_kinds(size_t n)
{
    CUptiResult first = CUPTI_SUCCESS;
    for (size_t i = 0; i < n; i++) {
        const CUptiResult e = cu->activity_disable(trace_kinds[i]);
        if (first == CUPTI_SUCCESS)
            first = e;
    }
    return cupti_check(first, "disable records");
}

static nb_status enable_kinds(void)
{
    NB_TRY(cupti_check(cu->activity_register_callbacks(buffer_requested, buffer_completed),
                       "register buffers"));
    for (size_t i = 0; i < N_KINDS; i++) {
        nb_status s = cupti_check(cu->activity_enable(trace_kinds[i]), "enable records");
        if (s != NB_OK) {
            char msg[320];
            snprintf(msg, sizeof msg, "%s", nb_last_error());
            (void)disable_kinds(i); /* the enable's failure is the one to report */
            return nb_set_error(s, "%s", msg);
        }
    }
    return NB_OK;
}

/* One marked launch under external ids (cache flush, the workload's own
 * eviction and blocking kernel as a sample has them); *timed_out when the
 * blocking kernel gave up. */
static nb_status traced_launch(run_state *st, nb_step_marks *m, trace_ctx *tc, int *timed_out)
{
    cudaStream_t s = (cudaStream_t)st->stream;
    const size_t set = nb_cache_plan_set(&st->plan, st->next_sample++, 0);
    if (st->plan.flush)
        NB_TRY(nb_gpu_flush_launch(nb_buffer_ptr(st->gpu_scratch), st->scratch_bytes, s));
    if (st->plan.flush && st->w->ops->evict)
        NB_TRY(st->w->ops->evict(st->w->ctx, st->stream));
    const int blocked = st->use_blocker;
    if (blocked)
        NB_TRY(nb_run_hold_stream(st));
    m->count = 0;
    m->overflow = 0;
    nb_status ls = cupti_check(cu->activity_push_external_correlation_id(EXT_KIND, tc->base),
                               "push id");
    if (ls == NB_OK) {
        ls = st->w->ops->launch_marked(st->w->ctx, set, st->stream, m);
        const CUptiResult pr = cu->activity_pop_external_correlation_id(EXT_KIND, NULL);
        if (ls == NB_OK)
            ls = cupti_check(pr, "pop id");
    }
    if (blocked)
        nb_run_release_blocker(st);
    const cudaError_t se = cudaStreamSynchronize(s);
    NB_TRY(ls);
    if (se != cudaSuccess)
        return nb_set_error(NB_ERR_CUDA, "kernel trace: %s", cudaGetErrorString(se));
    *timed_out = blocked && nb_run_blocker_timed_out(st);
    return NB_OK;
}

static int cmp_ext(const void *a, const void *b)
{
    const uint32_t x = ((const ext_map *)a)->correlation_id;
    const uint32_t y = ((const ext_map *)b)->correlation_id;
    return (x > y) - (x < y);
}

/* The collected activities enqueued under this attempt's ids into out->acts
 * (mark = id - base), the marks from m and tc. */
static nb_status collect(const nb_step_marks *m, const trace_ctx *tc, nb_trace *out)
{
    pthread_mutex_lock(&col.mu);
    nb_status s = NB_OK;
    if (col.bad != CUPTI_SUCCESS)
        s = cupti_check(col.bad, "read records");
    else if (col.oom)
        s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "kernel trace: out of memory for the records");
    else if (col.n && !col.n_ext)
        s = nb_set_error(NB_ERR_UNSUPPORTED, "kernel trace: CUPTI delivered no external "
                         "correlation records, so the kernels cannot be given to steps");
    if (s == NB_OK && col.n_ext)
        qsort(col.ext, col.n_ext, sizeof *col.ext, cmp_ext);
    if (s == NB_OK && !(out->acts = malloc((col.n ? col.n : 1) * sizeof *out->acts)))
        s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "kernel trace: out of memory");
    for (size_t i = 0; s == NB_OK && i < col.n; i++) {
        const ext_map key = {col.acts[i].correlation_id, 0};
        const ext_map *x = bsearch(&key, col.ext, col.n_ext, sizeof key, cmp_ext);
        if (!x || x->id < tc->base || x->id - tc->base > m->count)
            continue; /* not enqueued by the marked launch (blocking, flush kernels) */
        out->acts[out->n_acts] = col.acts[i];
        out->acts[out->n_acts++].mark = (size_t)(x->id - tc->base);
    }
    pthread_mutex_unlock(&col.mu);
    NB_TRY(s);
    out->marks = calloc(m->count ? m->count : 1, sizeof *out->marks);
    if (!out->marks)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "kernel trace: out of memory");
    for (size_t i = 0; i < m->count; i++) {
        snprintf(out->marks[i].name, sizeof out->marks[i].name, "%s", m->info[i].name);
        out->marks[i].is_ntt = m->info[i].is_ntt;
        out->marks[i].inverse = m->info[i].inverse;
        out->marks[i].enqueued_ns = tc->stamp[i];
    }
    return nb_trace_attribute(out, out->marks, m->count);
}

static nb_status trace_body(run_state *st, nb_step_marks *m, trace_ctx *tc, nb_trace *out)
{
    cudaStream_t s = (cudaStream_t)st->stream;
    m->backend = NB_BACKEND_GPU;
    m->stream = st->stream;
    m->on_mark = on_mark;
    m->on_mark_ctx = tc;
    if (st->o->cache != NB_CACHE_WARM)
        NB_TRY(nb_run_l2_reset(st));
    /* untraced: module loading and first-launch costs stay out of the trace */
    NB_TRY(st->w->ops->launch(st->w->ctx, nb_cache_plan_set(&st->plan, st->next_sample++, 0),
                              st->stream));
    NB_CUDA_TRY(cudaStreamSynchronize(s));
    collector_clear();
    nb_status r = enable_kinds();
    if (r != NB_OK) {
        (void)cu->finalize(); /* detach; the enable's failure is the one to report */
        return r;
    }
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        int timed_out = 0;
        tc->base = (uint64_t)(attempt + 1) << 32;
        r = traced_launch(st, m, tc, &timed_out);
        if (r != NB_OK || !timed_out)
            break;
        st->use_blocker = 0; /* more work than the launch queue holds: trace unheld */
    }
    const CUptiResult fe = cu->activity_flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (r == NB_OK)
        r = cupti_check(fe, "flush");
    const nb_status ds = disable_kinds(N_KINDS);
    if (r == NB_OK)
        r = ds;
    if (r == NB_OK) {
        out->blocked = st->use_blocker;
        r = collect(m, tc, out);
    }
    collector_clear();
    const CUptiResult de = cu->finalize(); /* detached: later cases run without CUPTI */
    if (r == NB_OK)
        r = cupti_check(de, "detach");
    return r;
}

int nb_trace_available(void) { return nb_cupti_load() != NULL; }

nb_status nb_bench_trace(const nb_workload *w, void *stream, const nb_bench_opts *o,
                         nb_trace *out)
{
    if (!out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_bench_trace: NULL result");
    memset(out, 0, sizeof *out);
    NB_TRY(nb_run_check(w, stream, o, 1));
    if (w->backend != NB_BACKEND_GPU)
        return refuse_cpu(w);
    const nb_cupti_api *api = nb_cupti_load();
    if (!api) {
        char why[400];
        snprintf(why, sizeof why, "%s", nb_last_error());
        return nb_set_error(NB_ERR_UNSUPPORTED, "kernel trace: %s", why);
    }
    if (pthread_mutex_trylock(&trace_mu) != 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "kernel trace: another trace of this process "
                            "is under way");
    cu = api;
    nb_step_marks *m = calloc(1, sizeof *m);
    trace_ctx *tc = calloc(1, sizeof *tc);
    nb_status s = m && tc ? NB_OK : nb_set_error(NB_ERR_OUT_OF_MEMORY, "trace: out of memory");
    run_state st;
    int setup_called = 0;
    if (s == NB_OK && (s = nb_run_open(&st, w, stream, o, NB_MODE_PER_LAUNCH, &setup_called)) ==
                          NB_OK)
        s = trace_body(&st, m, tc, out);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", nb_last_error());
    if (m && tc)
        nb_run_close(&st, setup_called);
    free(m);
    free(tc);
    pthread_mutex_unlock(&trace_mu);
    if (s != NB_OK) {
        nb_trace_free(out);
        nb_set_error(s, "%s", msg);
    }
    return s;
}

#else /* no CUPTI */

int nb_trace_available(void) { return 0; }

nb_status nb_bench_trace(const nb_workload *w, void *stream, const nb_bench_opts *o,
                         nb_trace *out)
{
    (void)stream;
    (void)o;
    if (out)
        memset(out, 0, sizeof *out);
    if (w && w->backend != NB_BACKEND_GPU)
        return refuse_cpu(w);
    return nb_set_error(NB_ERR_UNSUPPORTED, "kernel trace: built without CUPTI's headers "
                        "(looked for in the CUDA toolkit; docs/methodology.md, \"The kernel "
                        "trace\")");
}

#endif

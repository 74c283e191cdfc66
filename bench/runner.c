/* The sample loop shared by every tier (nb_bench_run), the breakdown pass of
 * the stage tier (nb_bench_breakdown) and the step marks it reads.
 *
 * A sample, GPU (per-launch and graph modes):
 *   [flush L2]  probe  blocker  start-event  work  stop-event  (release)  probe  sync
 * so the events bracket device work only (the blocker holds the stream while
 * the host queues it) and the probes, outside the events, give the SM clock.
 * Batch mode drops the blocker (the classic "events around the loop").
 * A sample, CPU: [flush LLC]  t0  work  t1 (work runs to completion).
 * Nothing between the start and stop of a sample allocates or synchronizes. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/internal.h"

#ifdef NB_HAVE_CUDA
#include "ntt/cuda_check.h"
#endif

#define PROBE_SLOTS 1024 /* %smid values kept (H100: < 144) */
#define CPU_FLUSH_CAP ((size_t)1 << 30)

/* ------------------------------------------------------------- step marks */

typedef struct mark_info {
    char name[32];
    int is_ntt, inverse;
    size_t limbs;
} mark_info;

struct nb_step_marks {
    nb_backend backend;
    void *stream;
    nb_clock_fn clock;
    void *clock_ctx;
    size_t count;             /* step marks recorded after the start mark */
    int overflow;
    mark_info info[NB_MAX_MARKS];
    double t[NB_MAX_MARKS + 1]; /* CPU: t[0] start, t[i+1] end of mark i */
#ifdef NB_HAVE_CUDA
    cudaEvent_t ev[NB_MAX_MARKS + 1];
    int events_ready;
#endif
};

static double cpu_clock(const nb_bench_opts *o)
{
    return o && o->clock ? o->clock(o->clock_ctx) : nb_now_s();
}

nb_status nb_step_mark(nb_step_marks *m, const char *step, int is_ntt, size_t ntt_limbs,
                       int inverse)
{
    if (!m)
        return NB_OK;
    if (m->count >= NB_MAX_MARKS) {
        m->overflow = 1;
        return nb_set_error(NB_ERR_INVALID_ARG, "more than %d step marks in one launch",
                            NB_MAX_MARKS);
    }
    mark_info *inf = &m->info[m->count];
    snprintf(inf->name, sizeof inf->name, "%s", step ? step : "?");
    inf->is_ntt = is_ntt != 0;
    inf->inverse = inverse != 0;
    inf->limbs = ntt_limbs;
    if (m->backend == NB_BACKEND_GPU) {
#ifdef NB_HAVE_CUDA
        NB_CUDA_TRY(cudaEventRecord(m->ev[m->count + 1], (cudaStream_t)m->stream));
#else
        return nb_set_error(NB_ERR_NO_DEVICE, "built without CUDA");
#endif
    } else {
        m->t[m->count + 1] = m->clock ? m->clock(m->clock_ctx) : nb_now_s();
    }
    m->count++;
    return NB_OK;
}

/* ------------------------------------------------------------- helpers */

static void logmsg(const nb_bench_opts *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void logmsg(const nb_bench_opts *o, const char *fmt, ...)
{
    if (!o->log)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    o->log(o->log_ctx, buf);
}

static void sleep_s(double s)
{
    if (s <= 0)
        return;
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    nanosleep(&ts, NULL);
}

void nb_cpu_flush(unsigned char *buf, size_t bytes)
{
    const size_t words = bytes / sizeof(uint64_t);
    uint64_t *w = (uint64_t *)buf;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < words; i += 8) /* one touch per 64-byte line */
        w[i] += 1;
}

void nb_bench_result_free(nb_bench_result *r)
{
    if (!r)
        return;
    free(r->sample_s);
    free(r->sample_clock_mhz);
    r->sample_s = NULL;
    r->sample_clock_mhz = NULL;
    r->n_samples = 0;
}

/* Everything one case needs while it runs. */
typedef struct run_state {
    const nb_workload *w;
    const nb_bench_opts *o;
    void *stream;
    nb_cache_plan plan;
    nb_backend backend;
    size_t next_sample; /* schedule position: counts warm-up and discarded samples too */
    int use_blocker;
    /* CPU */
    unsigned char *cpu_scratch;
    size_t scratch_bytes;
    /* GPU */
    nb_buffer *gpu_scratch;
    double default_mhz;
#ifdef NB_HAVE_CUDA
    cudaEvent_t ev_start, ev_stop;
    int *flags;      /* host-mapped: [0] release, [1] blocker timed out */
    int *flags_dev;
    unsigned long long *probe[2], *probe_dev[2];
    int sms;
    cudaGraphExec_t *execs;
    size_t n_execs;
    int l2_touched;  /* persisting limit changed: restore at the end */
    size_t l2_saved_limit;
#endif
} run_state;

static const nb_workload_ops *ops_of(const run_state *st) { return st->w->ops; }

#ifdef NB_HAVE_CUDA
static nb_status gpu_state_init(run_state *st)
{
    int dev = 0, khz = 0;
    NB_CUDA_TRY(cudaGetDevice(&dev));
    NB_CUDA_TRY(cudaDeviceGetAttribute(&st->sms, cudaDevAttrMultiProcessorCount, dev));
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev) == cudaSuccess)
        st->default_mhz = khz / 1000.0;
    else
        (void)cudaGetLastError();
    NB_CUDA_TRY(cudaEventCreate(&st->ev_start));
    NB_CUDA_TRY(cudaEventCreate(&st->ev_stop));
    NB_CUDA_TRY(cudaHostAlloc((void **)&st->flags, 2 * sizeof(int), cudaHostAllocMapped));
    NB_CUDA_TRY(cudaHostGetDevicePointer((void **)&st->flags_dev, st->flags, 0));
    for (int i = 0; i < 2; i++) {
        NB_CUDA_TRY(cudaHostAlloc((void **)&st->probe[i],
                                  2 * PROBE_SLOTS * sizeof(unsigned long long),
                                  cudaHostAllocMapped));
        NB_CUDA_TRY(cudaHostGetDevicePointer((void **)&st->probe_dev[i], st->probe[i], 0));
    }
    return NB_OK;
}

static void gpu_state_free(run_state *st)
{
    for (size_t g = 0; g < st->n_execs; g++)
        if (st->execs[g])
            cudaGraphExecDestroy(st->execs[g]);
    free(st->execs);
    st->execs = NULL;
    st->n_execs = 0;
    if (st->ev_start)
        cudaEventDestroy(st->ev_start);
    if (st->ev_stop)
        cudaEventDestroy(st->ev_stop);
    if (st->flags)
        cudaFreeHost(st->flags);
    for (int i = 0; i < 2; i++)
        if (st->probe[i])
            cudaFreeHost(st->probe[i]);
    st->ev_start = st->ev_stop = NULL;
    st->flags = NULL;
    st->probe[0] = st->probe[1] = NULL;
}

/* Median over SMs of cycles / ns between the two probes, in MHz; NAN if no
 * SM has both readings. */
static double probe_mhz(const run_state *st)
{
    double r[PROBE_SLOTS];
    size_t n = 0;
    for (size_t s = 0; s < PROBE_SLOTS; s++) {
        unsigned long long c0 = st->probe[0][2 * s], t0 = st->probe[0][2 * s + 1];
        unsigned long long c1 = st->probe[1][2 * s], t1 = st->probe[1][2 * s + 1];
        if (!t0 || !t1 || t1 <= t0 || c1 <= c0)
            continue;
        r[n++] = (double)(c1 - c0) / (double)(t1 - t0) * 1e3;
    }
    if (n == 0)
        return NAN;
    /* insertion sort: n <= a few hundred */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && r[j - 1] > r[j]; j--) {
            double t = r[j];
            r[j] = r[j - 1];
            r[j - 1] = t;
        }
    return n % 2 ? r[n / 2] : 0.5 * (r[n / 2 - 1] + r[n / 2]);
}

/* Clears persisting L2 lines and the stream's access-policy window (cold
 * tiers), remembering the limit so it is restored afterwards. */
static nb_status l2_reset_persisting(run_state *st)
{
    int dev = 0, maxp = 0;
    NB_CUDA_TRY(cudaGetDevice(&dev));
    NB_CUDA_TRY(cudaDeviceGetAttribute(&maxp, cudaDevAttrMaxPersistingL2CacheSize, dev));
    cudaStreamAttrValue attr;
    memset(&attr, 0, sizeof attr);
    attr.accessPolicyWindow.num_bytes = 0;
    NB_CUDA_TRY(cudaStreamSetAttribute((cudaStream_t)st->stream,
                                       cudaStreamAttributeAccessPolicyWindow, &attr));
    if (maxp <= 0)
        return NB_OK; /* no persisting L2 on this device */
    if (!st->l2_touched) {
        NB_CUDA_TRY(cudaDeviceGetLimit(&st->l2_saved_limit, cudaLimitPersistingL2CacheSize));
        st->l2_touched = 1;
    }
    NB_CUDA_TRY(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
    NB_CUDA_TRY(cudaCtxResetPersistingL2Cache());
    return NB_OK;
}

/* --l2-persist: an access-policy window over set 0's input, hit ratio F. */
static nb_status l2_persist_set(run_state *st, nb_bench_result *res)
{
    void *ptr = NULL;
    size_t bytes = 0;
    NB_TRY(ops_of(st)->input_region(st->w->ctx, 0, &ptr, &bytes));
    int dev = 0, maxp = 0, maxw = 0;
    NB_CUDA_TRY(cudaGetDevice(&dev));
    NB_CUDA_TRY(cudaDeviceGetAttribute(&maxp, cudaDevAttrMaxPersistingL2CacheSize, dev));
    NB_CUDA_TRY(cudaDeviceGetAttribute(&maxw, cudaDevAttrMaxAccessPolicyWindowSize, dev));
    if (maxp <= 0 || maxw <= 0)
        return nb_set_error(NB_ERR_UNSUPPORTED, "--l2-persist: this device has no persisting L2");
    if (bytes > (size_t)maxw)
        bytes = (size_t)maxw;
    size_t limit = bytes < (size_t)maxp ? bytes : (size_t)maxp;
    if (!st->l2_touched) {
        NB_CUDA_TRY(cudaDeviceGetLimit(&st->l2_saved_limit, cudaLimitPersistingL2CacheSize));
        st->l2_touched = 1;
    }
    NB_CUDA_TRY(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, limit));
    cudaStreamAttrValue attr;
    memset(&attr, 0, sizeof attr);
    attr.accessPolicyWindow.base_ptr = ptr;
    attr.accessPolicyWindow.num_bytes = bytes;
    attr.accessPolicyWindow.hitRatio = (float)st->o->l2_persist;
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    NB_CUDA_TRY(cudaStreamSetAttribute((cudaStream_t)st->stream,
                                       cudaStreamAttributeAccessPolicyWindow, &attr));
    res->persist_bytes = (double)bytes;
    res->persist_hit_ratio = st->o->l2_persist;
    return NB_OK;
}

/* Undo any L2 persistence change (window off, lines cleared, limit restored). */
static void l2_restore(run_state *st)
{
    if (!st->l2_touched)
        return;
    cudaStreamAttrValue attr;
    memset(&attr, 0, sizeof attr);
    cudaStreamSetAttribute((cudaStream_t)st->stream, cudaStreamAttributeAccessPolicyWindow,
                           &attr);
    cudaCtxResetPersistingL2Cache();
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, st->l2_saved_limit);
    (void)cudaGetLastError();
    st->l2_touched = 0;
}

static nb_status capture_graphs(run_state *st)
{
    st->n_execs = st->plan.graphs;
    st->execs = calloc(st->n_execs, sizeof *st->execs);
    if (!st->execs)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "graph mode: out of memory");
    cudaStream_t s = (cudaStream_t)st->stream;
    for (size_t g = 0; g < st->n_execs; g++) {
        cudaGraph_t graph = NULL;
        NB_CUDA_TRY(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        nb_status ls = NB_OK;
        for (size_t k = 0; k < st->plan.launches && ls == NB_OK; k++)
            ls = ops_of(st)->launch(st->w->ctx, nb_cache_plan_set(&st->plan, g, k), st->stream);
        cudaError_t e = cudaStreamEndCapture(s, &graph);
        if (ls != NB_OK) {
            if (graph)
                cudaGraphDestroy(graph);
            (void)cudaGetLastError();
            return nb_set_error(ls, "graph capture of '%s' failed (is its launch capturable?): %s",
                                st->w->label, nb_last_error());
        }
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return nb_set_error(NB_ERR_CUDA,
                                "graph capture of '%s' failed: %s (the launch must not "
                                "synchronize or allocate)",
                                st->w->label, cudaGetErrorString(e));
        }
        e = cudaGraphInstantiate(&st->execs[g], graph, 0);
        cudaGraphDestroy(graph);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return nb_set_error(NB_ERR_CUDA, "graph instantiation failed: %s",
                                cudaGetErrorString(e));
        }
        NB_CUDA_TRY(cudaGraphUpload(st->execs[g], s));
    }
    NB_CUDA_TRY(cudaStreamSynchronize(s));
    return NB_OK;
}

/* Lets a held stream go (host-mapped store the blocker polls). */
static void release_blocker(run_state *st)
{
    __atomic_store_n(&st->flags[0], 1, __ATOMIC_SEQ_CST);
}

static nb_status gpu_sample(run_state *st, size_t i, double *total_s, double *mhz)
{
    cudaStream_t s = (cudaStream_t)st->stream;
    const nb_workload_ops *ops = ops_of(st);
    if (st->plan.flush)
        NB_TRY(nb_gpu_flush_launch(nb_buffer_ptr(st->gpu_scratch), st->scratch_bytes, s));
    memset(st->probe[0], 0, 2 * PROBE_SLOTS * sizeof(unsigned long long));
    memset(st->probe[1], 0, 2 * PROBE_SLOTS * sizeof(unsigned long long));
    NB_TRY(nb_gpu_probe_launch(st->probe_dev[0], st->sms, s));
    int blocked = st->use_blocker;
    if (blocked) {
        st->flags[0] = 0;
        st->flags[1] = 0;
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        NB_TRY(nb_gpu_blocker_launch(st->flags_dev,
                                     (unsigned long long)(st->o->blocking_timeout_s * 1e9), s));
    }
    nb_status ws = NB_OK;
    cudaError_t e = cudaEventRecord(st->ev_start, s);
    if (e == cudaSuccess) {
        if (st->o->mode == NB_MODE_GRAPH) {
            e = cudaGraphLaunch(st->execs[i % st->n_execs], s);
        } else {
            for (size_t k = 0; k < st->plan.launches && ws == NB_OK; k++)
                ws = ops->launch(st->w->ctx, nb_cache_plan_set(&st->plan, i, k), st->stream);
        }
        if (e == cudaSuccess && ws == NB_OK)
            e = cudaEventRecord(st->ev_stop, s);
    }
    if (blocked)
        release_blocker(st);
    if (ws != NB_OK) {
        cudaStreamSynchronize(s);
        return ws;
    }
    if (e != cudaSuccess) {
        cudaStreamSynchronize(s);
        (void)cudaGetLastError();
        return nb_set_error(NB_ERR_CUDA, "timing '%s': %s", st->w->label, cudaGetErrorString(e));
    }
    NB_TRY(nb_gpu_probe_launch(st->probe_dev[1], st->sms, s));
    NB_CUDA_TRY(cudaStreamSynchronize(s));
    if (blocked && st->flags[1])
        return nb_set_error(NB_ERR_TIMEOUT,
                            "the blocking kernel timed out after %.3g s while '%s' was being "
                            "queued: the launch synchronizes, or queues more work than the "
                            "launch queue holds; use --mode batch or graph, or raise "
                            "--blocking-timeout",
                            st->o->blocking_timeout_s, st->w->label);
    float ms = 0.0f;
    NB_CUDA_TRY(cudaEventElapsedTime(&ms, st->ev_start, st->ev_stop));
    *total_s = (double)ms * 1e-3;
    *mhz = probe_mhz(st);
    return NB_OK;
}
#endif /* NB_HAVE_CUDA */

static nb_status cpu_sample(run_state *st, size_t i, double *total_s, double *mhz)
{
    const nb_workload_ops *ops = ops_of(st);
    if (st->plan.flush)
        nb_cpu_flush(st->cpu_scratch, st->scratch_bytes);
    nb_status s = NB_OK;
    double t0 = cpu_clock(st->o);
    for (size_t k = 0; k < st->plan.launches && s == NB_OK; k++)
        s = ops->launch(st->w->ctx, nb_cache_plan_set(&st->plan, i, k), st->stream);
    double t1 = cpu_clock(st->o);
    *total_s = t1 - t0;
    *mhz = NAN;
    return s;
}

static nb_status take_sample(run_state *st, double *total_s, double *mhz)
{
    size_t i = st->next_sample++;
#ifdef NB_HAVE_CUDA
    if (st->backend == NB_BACKEND_GPU)
        return gpu_sample(st, i, total_s, mhz);
#endif
    return cpu_sample(st, i, total_s, mhz);
}

/* prepare + launch (or marked launch) + verify of one set. */
static nb_status verify_set(run_state *st, size_t set, nb_step_marks *marks, char *msg,
                            size_t msg_len, const char *when)
{
    const nb_workload_ops *ops = ops_of(st);
    nb_status s = NB_OK;
    if (ops->prepare)
        s = ops->prepare(st->w->ctx, set, st->stream);
    if (s == NB_OK) {
        if (marks) {
            marks->count = 0;
            s = ops->launch_marked(st->w->ctx, set, st->stream, marks);
        } else {
            s = ops->launch(st->w->ctx, set, st->stream);
        }
    }
    if (s == NB_OK)
        s = nb_stream_sync(st->backend == NB_BACKEND_GPU ? st->stream : NULL);
    if (s == NB_OK)
        s = ops->verify(st->w->ctx, set, st->stream);
    if (s == NB_ERR_VERIFY && msg) {
        char tmp[256];
        snprintf(tmp, sizeof tmp, "%s", nb_last_error());
        snprintf(msg, msg_len, "verification %s (set %zu) failed: %s", when, set, tmp);
        nb_set_error(NB_ERR_VERIFY, "%s", msg);
    }
    return s;
}

static nb_status check_workload(const nb_workload *w, void *stream, const nb_bench_opts *o,
                                int need_marked)
{
    if (!w || !w->ops || !o)
        return nb_set_error(NB_ERR_INVALID_ARG, "benchmark: NULL workload or options");
    const nb_workload_ops *ops = w->ops;
    if (!ops->setup || !ops->bytes_per_launch || !ops->launch || !ops->verify || !ops->teardown)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "workload '%s': setup, bytes_per_launch, launch, verify and "
                            "teardown are required",
                            w->label ? w->label : "?");
    if (need_marked && !ops->launch_marked)
        return nb_set_error(NB_ERR_UNSUPPORTED, "workload '%s' has no marked launch (breakdown)",
                            w->label ? w->label : "?");
    NB_TRY(nb_bench_opts_check(o));
    if (w->backend == NB_BACKEND_GPU) {
        NB_TRY(nb_gpu_require());
        if (!stream)
            return nb_set_error(NB_ERR_INVALID_ARG,
                                "workload '%s': GPU workloads need a stream (not the legacy "
                                "default stream)",
                                w->label ? w->label : "?");
    } else if (o->mode == NB_MODE_GRAPH) {
        return nb_set_error(NB_ERR_UNSUPPORTED,
                            "graph mode needs a GPU workload ('%s' runs on the CPU)",
                            w->label ? w->label : "?");
    }
    if (o->l2_persist >= 0.0 && (w->backend != NB_BACKEND_GPU || !ops->input_region))
        return nb_set_error(NB_ERR_UNSUPPORTED,
                            "--l2-persist needs a GPU workload that exposes its input ('%s')",
                            w->label ? w->label : "?");
    return NB_OK;
}

/* Plans cache use, calls setup, allocates scratch and GPU state. */
static nb_status state_open(run_state *st, const nb_workload *w, void *stream,
                            const nb_bench_opts *o, nb_mode mode, int *setup_called)
{
    memset(st, 0, sizeof *st);
    st->w = w;
    st->o = o;
    st->stream = stream;
    st->backend = w->backend;
    size_t cache = 0, footprint;
    NB_TRY(nb_cache_bytes(w->backend, &cache));
    footprint = w->ops->footprint_bytes ? w->ops->footprint_bytes(w->ctx)
                                        : w->ops->bytes_per_launch(w->ctx);
    if (footprint == 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "workload '%s' touches zero bytes", w->label);
    NB_TRY(nb_cache_plan_make(&st->plan, o->tier, o->cold, mode, o->batch, footprint, cache,
                              o->rotate_sets, o->rotate_factor));
    if (st->plan.tier != NB_TIER_WARM && st->plan.sets > 1 &&
        st->plan.reuse_bytes < o->rotate_factor * (double)cache)
        logmsg(o, "%s: rotation reuses data after %.3g MB (< %.0fx the %.3g MB cache)", w->label,
               st->plan.reuse_bytes / 1e6, o->rotate_factor, cache / 1e6);
    *setup_called = 1;
    NB_TRY(w->ops->setup(w->ctx, st->plan.sets, stream));
    if (st->plan.flush) {
        st->scratch_bytes = 2 * cache;
        if (w->backend == NB_BACKEND_CPU) {
            if (st->scratch_bytes > CPU_FLUSH_CAP)
                st->scratch_bytes = CPU_FLUSH_CAP;
            st->cpu_scratch = aligned_alloc(64, st->scratch_bytes);
            if (!st->cpu_scratch)
                return nb_set_error(NB_ERR_OUT_OF_MEMORY, "cannot allocate %zu flush bytes",
                                    st->scratch_bytes);
            memset(st->cpu_scratch, 1, st->scratch_bytes);
        } else {
            NB_TRY(nb_buffer_create(&st->gpu_scratch, NB_BACKEND_GPU, st->scratch_bytes));
            NB_TRY(nb_buffer_fill(st->gpu_scratch, 1, stream));
        }
    }
#ifdef NB_HAVE_CUDA
    if (w->backend == NB_BACKEND_GPU) {
        NB_TRY(gpu_state_init(st));
        st->use_blocker = mode != NB_MODE_BATCH;
    }
#endif
    return NB_OK;
}

static void state_close(run_state *st, int setup_called)
{
#ifdef NB_HAVE_CUDA
    if (st->backend == NB_BACKEND_GPU) {
        if (st->stream)
            cudaStreamSynchronize((cudaStream_t)st->stream);
        l2_restore(st);
        gpu_state_free(st);
        (void)cudaGetLastError();
    }
#endif
    free(st->cpu_scratch);
    nb_buffer_destroy(st->gpu_scratch);
    st->cpu_scratch = NULL;
    st->gpu_scratch = NULL;
    if (setup_called)
        st->w->ops->teardown(st->w->ctx);
}

static nb_status push_sample(nb_bench_result *r, size_t *cap, double s, double mhz)
{
    if (r->n_samples == *cap) {
        size_t nc = *cap ? 2 * *cap : 1024;
        double *a = realloc(r->sample_s, nc * sizeof *a);
        if (!a)
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory for samples");
        r->sample_s = a;
        double *b = realloc(r->sample_clock_mhz, nc * sizeof *b);
        if (!b)
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory for samples");
        r->sample_clock_mhz = b;
        *cap = nc;
    }
    r->sample_s[r->n_samples] = s;
    r->sample_clock_mhz[r->n_samples] = mhz;
    r->n_samples++;
    return NB_OK;
}

static nb_status run_body(run_state *st, nb_bench_result *res)
{
    const nb_bench_opts *o = st->o;
    const nb_workload *w = st->w;
    const size_t K = st->plan.launches;
    res->cache = st->plan;
    res->flush_bytes = st->plan.flush ? (double)st->scratch_bytes : 0.0;
    res->default_clock_mhz = st->default_mhz;
    res->blocked = st->use_blocker;

#ifdef NB_HAVE_CUDA
    if (st->backend == NB_BACKEND_GPU) {
        if (o->tier != NB_TIER_WARM)
            NB_TRY(l2_reset_persisting(st));
        else if (o->l2_persist >= 0.0)
            NB_TRY(l2_persist_set(st, res));
    }
#endif

    /* verify before the first sample: a wrong result is never timed */
    nb_status s = verify_set(st, 0, NULL, res->message, sizeof res->message, "before timing");
    if (s != NB_OK) {
        res->verified_before = s == NB_ERR_VERIFY ? -1 : 0;
        return s;
    }
    res->verified_before = 1;

#ifdef NB_HAVE_CUDA
    if (st->backend == NB_BACKEND_GPU && o->mode == NB_MODE_GRAPH)
        NB_TRY(capture_graphs(st));
#endif

    if (st->backend == NB_BACKEND_GPU)
        nb_nvml_snapshot_take(&res->nvml_before);
    else
        snprintf(res->nvml_before.note, sizeof res->nvml_before.note, "CPU workload");

    /* warm-up: a count and a minimum wall time, bounded by the timeout */
    double t, mhz;
    double w0 = cpu_clock(o);
    size_t warm = 0;
    while (warm < o->warmup_samples || cpu_clock(o) - w0 < o->warmup_time_s) {
        NB_TRY(take_sample(st, &t, &mhz));
        warm++;
        if (cpu_clock(o) - w0 > o->timeout_s)
            break;
    }
    res->warmup_samples = warm;

    nb_stop_rule rule;
    size_t cap = 0;
    const double thr = st->default_mhz > 0 ? o->throttle_threshold_pct / 100.0 * st->default_mhz
                                           : 0.0;
    double start = cpu_clock(o);
    nb_stop_rule_init(&rule, o, start);
    nb_stop_reason why = NB_STOP_TIMEOUT;
    for (;;) {
        NB_TRY(take_sample(st, &t, &mhz));
        if (thr > 0 && isfinite(mhz) && mhz < thr) {
            res->throttled_samples++;
            if (res->throttled_samples == 1 || res->throttled_samples % 100 == 0)
                logmsg(o, "%s: SM clock %.0f MHz below %.0f%% of %.0f MHz: sample discarded "
                          "(%zu so far)",
                       w->label, mhz, o->throttle_threshold_pct, st->default_mhz,
                       res->throttled_samples);
            sleep_s(o->throttle_recovery_s);
            if (cpu_clock(o) - start >= o->timeout_s) {
                why = NB_STOP_TIMEOUT;
                break;
            }
            continue;
        }
        NB_TRY(push_sample(res, &cap, t / (double)K, mhz));
        res->measured_s += t;
        nb_stop_rule_add(&rule, t / (double)K, t);
        if (nb_stop_rule_done(&rule, cpu_clock(o), &why))
            break;
    }
    res->stop = why;
    res->wall_s = cpu_clock(o) - start;
    res->noise_target_met = nb_stop_rule_noise_pct(&rule) <= o->max_noise_pct;

    if (st->backend == NB_BACKEND_GPU)
        nb_nvml_snapshot_take(&res->nvml_after);
    else
        snprintf(res->nvml_after.note, sizeof res->nvml_after.note, "CPU workload");

    if (res->n_samples > 0)
        NB_TRY(nb_stats_compute(res->sample_s, res->n_samples, &res->stats));

    /* verify again: the first set, and the last one the samples used */
    size_t last = nb_cache_plan_set(&st->plan, st->next_sample - 1, K - 1);
    s = verify_set(st, 0, NULL, res->message, sizeof res->message, "after timing");
    if (s == NB_OK && last != 0)
        s = verify_set(st, last, NULL, res->message, sizeof res->message, "after timing");
    if (s != NB_OK) {
        res->verified_after = s == NB_ERR_VERIFY ? -1 : 0;
        return s;
    }
    res->verified_after = 1;
    if (why == NB_STOP_TIMEOUT || why == NB_STOP_MAX_SAMPLES)
        logmsg(o, "%s: stopped by %s before the stopping rule was met (noise %.2f%%, %.3g s "
                  "measured)",
               w->label, nb_stop_reason_name(why), res->stats.noise_pct, res->measured_s);
    return NB_OK;
}

nb_status nb_bench_run(const nb_workload *w, void *stream, const nb_bench_opts *o,
                       nb_bench_result *out)
{
    if (!out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_bench_run: NULL result");
    memset(out, 0, sizeof *out);
    NB_TRY(check_workload(w, stream, o, 0));
    out->tier = o->tier;
    out->mode = o->mode;
    out->backend = w->backend;
    out->launches_per_sample = o->mode == NB_MODE_PER_LAUNCH ? 1 : o->batch;

    char range[256];
    snprintf(range, sizeof range, "%s %s %s", nb_tier_name(o->tier), nb_mode_name(o->mode),
             w->label ? w->label : "");
    if (o->nvtx)
        nb_nvtx_push(range);
    run_state st;
    int setup_called = 0;
    nb_status s = state_open(&st, w, stream, o, o->mode, &setup_called);
    if (s == NB_OK)
        s = run_body(&st, out);
    if (s != NB_OK) {
        /* keep the message across the clean-up's CUDA calls */
        char msg[512];
        snprintf(msg, sizeof msg, "%s", nb_last_error());
        state_close(&st, setup_called);
        nb_set_error(s, "%s", msg);
    } else {
        state_close(&st, setup_called);
    }
    if (o->nvtx)
        nb_nvtx_pop();
    return s;
}

/* ------------------------------------------------------------- breakdown */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One marked launch on `set` (marks reset), step durations into d[0..count). */
static nb_status marked_pass(run_state *st, nb_step_marks *m, size_t set, double *d,
                             double *launch_s)
{
    const nb_workload_ops *ops = ops_of(st);
    m->count = 0;
    m->overflow = 0;
    if (st->backend == NB_BACKEND_CPU) {
        if (st->plan.flush)
            nb_cpu_flush(st->cpu_scratch, st->scratch_bytes);
        m->t[0] = cpu_clock(st->o);
        NB_TRY(ops->launch_marked(st->w->ctx, set, st->stream, m));
        for (size_t i = 0; i < m->count; i++)
            d[i] = m->t[i + 1] - m->t[i];
        *launch_s = m->count ? m->t[m->count] - m->t[0] : 0.0;
        return NB_OK;
    }
#ifdef NB_HAVE_CUDA
    cudaStream_t s = (cudaStream_t)st->stream;
    if (st->plan.flush)
        NB_TRY(nb_gpu_flush_launch(nb_buffer_ptr(st->gpu_scratch), st->scratch_bytes, s));
    int blocked = st->use_blocker;
    if (blocked) {
        st->flags[0] = 0;
        st->flags[1] = 0;
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        NB_TRY(nb_gpu_blocker_launch(st->flags_dev,
                                     (unsigned long long)(st->o->blocking_timeout_s * 1e9), s));
    }
    cudaError_t e = cudaEventRecord(m->ev[0], s);
    nb_status ls = e == cudaSuccess ? ops->launch_marked(st->w->ctx, set, st->stream, m)
                                    : NB_ERR_CUDA;
    if (blocked)
        release_blocker(st);
    cudaError_t se = cudaStreamSynchronize(s);
    if (ls != NB_OK)
        return e == cudaSuccess ? ls
                                : nb_set_error(NB_ERR_CUDA, "event record: %s",
                                               cudaGetErrorString(e));
    if (se != cudaSuccess)
        return nb_set_error(NB_ERR_CUDA, "breakdown pass: %s", cudaGetErrorString(se));
    if (blocked && st->flags[1])
        return nb_set_error(NB_ERR_TIMEOUT, "blocking kernel timed out during a marked launch");
    for (size_t i = 0; i < m->count; i++) {
        float ms = 0;
        NB_CUDA_TRY(cudaEventElapsedTime(&ms, m->ev[i], m->ev[i + 1]));
        d[i] = ms * 1e-3;
    }
    float ms = 0;
    if (m->count)
        NB_CUDA_TRY(cudaEventElapsedTime(&ms, m->ev[0], m->ev[m->count]));
    *launch_s = ms * 1e-3;
    return NB_OK;
#else
    return nb_set_error(NB_ERR_NO_DEVICE, "built without CUDA");
#endif
}

static nb_status breakdown_body(run_state *st, nb_step_marks *m, size_t passes,
                                nb_breakdown *out)
{
    const nb_bench_opts *o = st->o;
    char msg[320] = "";
    m->backend = st->backend;
    m->stream = st->stream;
    m->clock = st->backend == NB_BACKEND_CPU ? o->clock : NULL;
    m->clock_ctx = o->clock_ctx;
#ifdef NB_HAVE_CUDA
    if (st->backend == NB_BACKEND_GPU) {
        for (size_t i = 0; i <= NB_MAX_MARKS; i++)
            NB_CUDA_TRY(cudaEventCreate(&m->ev[i]));
        m->events_ready = 1;
        if (o->tier != NB_TIER_WARM)
            NB_TRY(l2_reset_persisting(st));
    }
#endif
    NB_TRY(verify_set(st, 0, m, msg, sizeof msg, "before the breakdown"));
    if (m->count == 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "workload '%s': launch_marked marked no step",
                            st->w->label);
    /* reference sequence from the verified launch */
    const size_t nmarks = m->count;
    mark_info *ref = malloc(nmarks * sizeof *ref);
    double *d = malloc(nmarks * sizeof *d);
    size_t *name_of = malloc(nmarks * sizeof *name_of);
    double *per = NULL, *launch = malloc(passes * sizeof *launch);
    nb_status s = NB_OK;
    if (!ref || !d || !name_of || !launch) {
        s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "breakdown: out of memory");
        goto done;
    }
    memcpy(ref, m->info, nmarks * sizeof *ref);
    /* distinct names in order of first appearance */
    out->n_steps = 0;
    for (size_t i = 0; i < nmarks; i++) {
        size_t j = 0;
        for (; j < out->n_steps; j++)
            if (strcmp(out->steps[j].name, ref[i].name) == 0 &&
                out->steps[j].is_ntt == ref[i].is_ntt && out->steps[j].inverse == ref[i].inverse)
                break;
        if (j == out->n_steps) {
            if (out->n_steps == NB_MAX_STEPS) {
                s = nb_set_error(NB_ERR_INVALID_ARG, "more than %d distinct step names",
                                 NB_MAX_STEPS);
                goto done;
            }
            nb_step_stat *st_ = &out->steps[out->n_steps++];
            memset(st_, 0, sizeof *st_);
            snprintf(st_->name, sizeof st_->name, "%s", ref[i].name);
            st_->is_ntt = ref[i].is_ntt;
            st_->inverse = ref[i].inverse;
        }
        name_of[i] = j;
        out->steps[j].count++;
        out->steps[j].ntt_limbs += ref[i].limbs;
        if (ref[i].is_ntt) {
            if (ref[i].inverse)
                out->ntt_inv_limbs += ref[i].limbs;
            else
                out->ntt_fwd_limbs += ref[i].limbs;
        }
    }
    per = calloc(passes * out->n_steps, sizeof *per);
    if (!per) {
        s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "breakdown: out of memory");
        goto done;
    }
    /* one warm-up pass, then the measured passes */
    for (size_t p = 0; p <= passes; p++) {
        size_t set = nb_cache_plan_set(&st->plan, st->next_sample++, 0);
        double ls = 0;
        s = marked_pass(st, m, set, d, &ls);
        if (s == NB_ERR_TIMEOUT && st->use_blocker) {
            /* more work than the launch queue holds: measure without holding */
            st->use_blocker = 0;
            out->blocked = 0;
            s = marked_pass(st, m, set, d, &ls);
        }
        if (s != NB_OK)
            goto done;
        if (m->count != nmarks) {
            s = nb_set_error(NB_ERR_INTERNAL, "workload '%s' marked %zu steps, earlier %zu",
                             st->w->label, m->count, nmarks);
            goto done;
        }
        for (size_t i = 0; i < nmarks; i++)
            if (strcmp(m->info[i].name, ref[i].name) != 0) {
                s = nb_set_error(NB_ERR_INTERNAL, "workload '%s': step %zu is '%s', earlier '%s'",
                                 st->w->label, i, m->info[i].name, ref[i].name);
                goto done;
            }
        if (p == 0)
            continue;
        for (size_t i = 0; i < nmarks; i++)
            per[(p - 1) * out->n_steps + name_of[i]] += d[i];
        launch[p - 1] = ls;
    }
    out->passes = passes;
    out->sum_s = 0;
    out->ntt_s = 0;
    {
        double *col = malloc(passes * sizeof *col);
        if (!col) {
            s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "breakdown: out of memory");
            goto done;
        }
        for (size_t j = 0; j < out->n_steps; j++) {
            for (size_t p = 0; p < passes; p++)
                col[p] = per[p * out->n_steps + j];
            out->steps[j].median_s = median_of(col, passes);
            out->sum_s += out->steps[j].median_s;
            if (out->steps[j].is_ntt)
                out->ntt_s += out->steps[j].median_s;
        }
        free(col);
    }
    for (size_t j = 0; j < out->n_steps; j++)
        out->steps[j].share = out->sum_s > 0 ? out->steps[j].median_s / out->sum_s : 0.0;
    out->ntt_share = out->sum_s > 0 ? out->ntt_s / out->sum_s : 0.0;
    out->launch_s = median_of(launch, passes);
    {
        size_t last = nb_cache_plan_set(&st->plan, st->next_sample - 1, 0);
        s = verify_set(st, last, m, msg, sizeof msg, "after the breakdown");
    }
done:
    free(ref);
    free(d);
    free(name_of);
    free(per);
    free(launch);
    return s;
}

nb_status nb_bench_breakdown(const nb_workload *w, void *stream, const nb_bench_opts *o,
                             size_t passes, nb_breakdown *out)
{
    if (!out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_bench_breakdown: NULL result");
    memset(out, 0, sizeof *out);
    NB_TRY(check_workload(w, stream, o, 1));
    if (passes == 0)
        passes = o->min_samples > 20 ? o->min_samples : 20;
    nb_step_marks *m = calloc(1, sizeof *m);
    if (!m)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "breakdown: out of memory");
    char range[256];
    snprintf(range, sizeof range, "breakdown %s %s", nb_tier_name(o->tier),
             w->label ? w->label : "");
    if (o->nvtx)
        nb_nvtx_push(range);
    run_state st;
    int setup_called = 0;
    nb_status s = state_open(&st, w, stream, o, NB_MODE_PER_LAUNCH, &setup_called);
    if (s == NB_OK) {
        out->blocked = st.use_blocker;
        s = breakdown_body(&st, m, passes, out);
    }
    char msg[512];
    snprintf(msg, sizeof msg, "%s", nb_last_error());
#ifdef NB_HAVE_CUDA
    if (m->events_ready)
        for (size_t i = 0; i <= NB_MAX_MARKS; i++)
            if (m->ev[i])
                cudaEventDestroy(m->ev[i]);
#endif
    state_close(&st, setup_called);
    free(m);
    if (o->nvtx)
        nb_nvtx_pop();
    if (s != NB_OK)
        nb_set_error(s, "%s", msg);
    return s;
}

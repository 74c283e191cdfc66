/* The phases every timed pass shares: check (workload and options), open
 * (plan the cache, set up the buffer sets, flush scratch, GPU state), verify
 * one set, take one sample (CPU here, GPU in sample_gpu.c), close. A CPU
 * sample: [flush LLC, wake the team]  t0  work  t1 (work runs to
 * completion). Nothing between the start and stop of a sample allocates or
 * synchronizes. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/timing/internal.h"
#include "bench/timing/memfit.h"
#include "bench/timing/plan.h"
#include "bench/timing/stats.h"

#ifdef NB_HAVE_CUDA
#include "core/cuda_check.h"
#endif

#define CPU_FLUSH_CAP ((size_t)1 << 30)

double nb_run_clock(const nb_bench_opts *o)
{
    return o && o->clock ? o->clock(o->clock_ctx) : nb_now_s();
}


void nb_run_log(const nb_bench_opts *o, const char *fmt, ...)
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

size_t nb_cpu_wake_team(const nb_bench_opts *o, int *threads)
{
    double prev = -1.0;
    size_t k = 0;
    while (k < NB_CPU_WAKE_MAX) {
        int n = 0;
        const double t0 = nb_run_clock(o);
#pragma omp parallel
        {
#pragma omp atomic
            n++;
        }
        const double dt = nb_run_clock(o) - t0;
        k++;
        if (threads)
            *threads = n;
        if (prev >= 0.0 && dt <= 2.0 * prev && prev <= 2.0 * dt)
            break;
        prev = dt;
    }
    return k;
}

size_t nb_cpu_flush(unsigned char *buf, size_t bytes, const nb_bench_opts *o)
{
    const size_t words = bytes / sizeof(uint64_t);
    uint64_t *w = (uint64_t *)buf;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < words; i += 8) /* one touch per 64-byte line */
        w[i] += 1;
    return nb_cpu_wake_team(o, NULL);
}

static nb_status cpu_sample(run_state *st, size_t i, double *total_s, double *mhz)
{
    const nb_workload_ops *ops = st->w->ops;
    if (st->plan.flush)
        nb_cpu_flush(st->cpu_scratch, st->scratch_bytes, st->o);
    nb_status s = NB_OK;
    double t0 = nb_run_clock(st->o);
    for (size_t k = 0; k < st->plan.launches && s == NB_OK; k++)
        s = ops->launch(st->w->ctx, nb_cache_plan_set(&st->plan, i, k), st->stream);
    double t1 = nb_run_clock(st->o);
    *total_s = t1 - t0;
    *mhz = NAN;
    return s;
}

nb_status nb_run_take_samples(run_state *st, size_t k, double *total_s, double *mhz)
{
    const size_t i = st->next_sample;
    const double t0 = nb_run_clock(st->o);
    nb_status s;
#ifdef NB_HAVE_CUDA
    if (st->backend == NB_BACKEND_GPU)
        s = st->ahead && k == 1 ? nb_run_gpu_take_ahead(st, i, total_s, mhz)
                                : nb_run_gpu_batch(st, i, k, total_s, mhz);
    else
#endif
        s = k == 1 ? cpu_sample(st, i, total_s, mhz)
                   : nb_set_error(NB_ERR_INTERNAL, "a CPU sample is taken alone (asked %zu)", k);
    st->next_sample += k;
    st->syncs++;
    st->est_sample_s = (nb_run_clock(st->o) - t0) / (double)k;
    return s;
}

nb_status nb_run_drain(run_state *st)
{
#ifdef NB_HAVE_CUDA
    if (st->backend == NB_BACKEND_GPU && st->held) {
        NB_TRY(nb_run_gpu_drain(st));
        st->syncs++;
    }
#else
    (void)st;
#endif
    return NB_OK;
}

size_t nb_run_batch_size(const run_state *st, size_t until_check)
{
    if (st->backend != NB_BACKEND_GPU)
        return 1;
    return nb_batch_size(st->o->batch_samples, until_check, st->ops_per_sample,
                         st->est_sample_s);
}

/* prepare + launch (or marked launch) + verify of one set. */
nb_status nb_run_verify_set(run_state *st, size_t set, nb_step_marks *marks, char *msg,
                            size_t msg_len, const char *when)
{
    const nb_workload_ops *ops = st->w->ops;
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

nb_status nb_run_check(const nb_workload *w, void *stream, const nb_bench_opts *o,
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
nb_status nb_run_open(run_state *st, const nb_workload *w, void *stream,
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
    NB_TRY(nb_cache_plan_make(&st->plan, o->cache, mode, o->batch, footprint, cache,
                              o->rotate_sets, o->rotate_factor));
    if (st->plan.cache != NB_CACHE_WARM && st->plan.sets > 1 &&
        st->plan.reuse_bytes < o->rotate_factor * (double)cache)
        nb_run_log(o, "%s: rotation reuses data after %.3g MB (< %.0fx the %.3g MB cache)", w->label,
               st->plan.reuse_bytes / 1e6, o->rotate_factor, cache / 1e6);
    /* the rotation sets and the flush scratch, before either is allocated */
    const double sets_bytes = st->plan.allocated_bytes + (st->plan.flush ? 2.0 * cache : 0.0);
    NB_TRY(nb_memory_fit(w->label, w->backend == NB_BACKEND_CPU ? sets_bytes : 0,
                         w->backend == NB_BACKEND_GPU ? sets_bytes : 0));
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
        st->use_blocker = mode != NB_MODE_BATCH;
        /* a workload with an eviction of its own (the stage tier's, whose launch
         * may span several GPUs and whose eviction may wait on the host) is
         * sampled as before */
        st->ahead = st->use_blocker && o->queue_ahead && o->batch_samples == 1 &&
                    !w->ops->evict;
        NB_TRY(nb_run_gpu_init(st));
    }
#endif
    return NB_OK;
}

void nb_run_close(run_state *st, int setup_called)
{
#ifdef NB_HAVE_CUDA
    if (st->backend == NB_BACKEND_GPU) {
        (void)nb_run_gpu_drain(st);
        if (st->stream)
            cudaStreamSynchronize((cudaStream_t)st->stream);
        nb_run_l2_restore(st);
        nb_run_gpu_free(st);
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
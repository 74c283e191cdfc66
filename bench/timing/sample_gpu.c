/* GPU sampling of the timing core: per-run GPU state (events, host-mapped
 * flags and clock probes), L2 persistence control, graph capture, and one
 * GPU sample:
 *   [flush L2]  probe  blocker  start-event  work  stop-event  (release)  probe  sync
 * so the events bracket device work only (the blocker holds the stream while
 * the host queues it) and the probes, outside the events, give the SM clock.
 * Batch mode drops the blocker (the classic "events around the loop"). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/timing/internal.h"
#include "bench/timing/plan.h"
#include "bench/timing/stats.h"

#ifdef NB_HAVE_CUDA
#include "core/cuda_check.h"
#endif

#ifdef NB_HAVE_CUDA

#define PROBE_SLOTS 1024 /* %smid values kept (H100: < 144) */

nb_status nb_run_gpu_init(run_state *st)
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

void nb_run_gpu_free(run_state *st)
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
    return nb_median_inplace(r, n);
}

/* Clears persisting L2 lines and the stream's access-policy window (cache
 * states other than warm), remembering the limit so it is restored afterwards. */
nb_status nb_run_l2_reset(run_state *st)
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
nb_status nb_run_l2_persist(run_state *st, nb_bench_result *res)
{
    void *ptr = NULL;
    size_t bytes = 0;
    NB_TRY(st->w->ops->input_region(st->w->ctx, 0, &ptr, &bytes));
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
void nb_run_l2_restore(run_state *st)
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

nb_status nb_run_capture_graphs(run_state *st)
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
            ls = st->w->ops->launch(st->w->ctx, nb_cache_plan_set(&st->plan, g, k), st->stream);
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

nb_status nb_run_hold_stream(run_state *st)
{
    st->flags[0] = 0;
    st->flags[1] = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return nb_gpu_blocker_launch(st->flags_dev,
                                 (unsigned long long)(st->o->blocking_timeout_s * 1e9),
                                 st->stream);
}

/* Lets a held stream go (host-mapped store the blocker polls). */
void nb_run_release_blocker(run_state *st)
{
    __atomic_store_n(&st->flags[0], 1, __ATOMIC_SEQ_CST);
}

nb_status nb_run_gpu_sample(run_state *st, size_t i, double *total_s, double *mhz)
{
    cudaStream_t s = (cudaStream_t)st->stream;
    const nb_workload_ops *ops = st->w->ops;
    if (st->plan.flush)
        NB_TRY(nb_gpu_flush_launch(nb_buffer_ptr(st->gpu_scratch), st->scratch_bytes, s));
    if (st->plan.flush && ops->evict)
        NB_TRY(ops->evict(st->w->ctx, st->stream));
    memset(st->probe[0], 0, 2 * PROBE_SLOTS * sizeof(unsigned long long));
    memset(st->probe[1], 0, 2 * PROBE_SLOTS * sizeof(unsigned long long));
    NB_TRY(nb_gpu_probe_launch(st->probe_dev[0], st->sms, s));
    const int blocked = st->use_blocker;
    if (blocked)
        NB_TRY(nb_run_hold_stream(st));
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
        nb_run_release_blocker(st);
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

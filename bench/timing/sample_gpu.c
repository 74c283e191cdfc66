/* GPU sampling of the timing core: per-run GPU state (events, host-mapped
 * flags and clock probes), L2 persistence control, graph capture, and one
 * batch of K GPU samples:
 *   [flush L2]  probe  blocker  start_0 work_0 stop_0  [flush L2] start_1 work_1 stop_1
 *   ...  start_K-1 work_K-1 stop_K-1  (release)  probe  sync
 * so each sample's events bracket its device work only (the blocker holds the
 * stream until the host has queued all K samples) and the probes, outside the
 * events, give the batch's SM clock. K = 1 is one sample, one synchronisation.
 * Batch mode drops the blocker (the classic "events around the loop") and
 * takes one sample per batch.
 * Queued ahead (--queue-ahead 1, samples one at a time): each sample is the
 * same sequence, but sample i + 1's is queued, held by its own blocker, while
 * sample i runs; the host releases it once it has read sample i and wants
 * another (the next call):
 *   ... stop_i  probe  | [flush L2]  probe  blocker  start_i+1 work_i+1 stop_i+1  probe
 * so the host's queueing of one sample overlaps the device work of the one
 * before, and a sample still starts after a blocker and a host round trip. */
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

/* One slot's events and host-mapped flags and probes. */
static nb_status slot_init(struct nb_gpu_slot *b, size_t n_ev)
{
    b->ev = calloc(n_ev, sizeof *b->ev);
    if (!b->ev)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory for %zu events", n_ev);
    for (size_t i = 0; i < n_ev; i++)
        NB_CUDA_TRY(cudaEventCreate(&b->ev[i]));
    NB_CUDA_TRY(cudaEventCreateWithFlags(&b->done, cudaEventDisableTiming));
    NB_CUDA_TRY(cudaHostAlloc((void **)&b->flags, 2 * sizeof(int), cudaHostAllocMapped));
    NB_CUDA_TRY(cudaHostGetDevicePointer((void **)&b->flags_dev, b->flags, 0));
    for (int i = 0; i < 2; i++) {
        NB_CUDA_TRY(cudaHostAlloc((void **)&b->probe[i],
                                  2 * PROBE_SLOTS * sizeof(unsigned long long),
                                  cudaHostAllocMapped));
        NB_CUDA_TRY(cudaHostGetDevicePointer((void **)&b->probe_dev[i], b->probe[i], 0));
    }
    return NB_OK;
}

static void slot_free(struct nb_gpu_slot *b, size_t n_ev)
{
    if (b->ev)
        for (size_t i = 0; i < n_ev; i++)
            if (b->ev[i])
                cudaEventDestroy(b->ev[i]);
    free(b->ev);
    if (b->done)
        cudaEventDestroy(b->done);
    if (b->flags)
        cudaFreeHost(b->flags);
    for (int i = 0; i < 2; i++)
        if (b->probe[i])
            cudaFreeHost(b->probe[i]);
    memset(b, 0, sizeof *b);
}

nb_status nb_run_gpu_init(run_state *st)
{
    int dev = 0, khz = 0;
    NB_CUDA_TRY(cudaGetDevice(&dev));
    NB_CUDA_TRY(cudaDeviceGetAttribute(&st->sms, cudaDevAttrMultiProcessorCount, dev));
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev) == cudaSuccess)
        st->default_mhz = khz / 1000.0;
    else
        (void)cudaGetLastError();
    st->n_ev = 2 * (st->o->batch_samples ? st->o->batch_samples : 1);
    const int slots = st->ahead ? 2 : 1;
    for (; st->n_slots < slots; st->n_slots++)
        NB_TRY(slot_init(&st->slot[st->n_slots], st->n_ev));
    st->cur = st->held = 0;
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
    /* a slot that failed half-way through slot_init is freed too */
    for (int i = 0; i < 2; i++)
        slot_free(&st->slot[i], st->n_ev);
    st->n_slots = 0;
    st->n_ev = 0;
    st->held = 0;
}

/* Median over SMs of cycles / ns between the two probes, in MHz; NAN if no
 * SM has both readings. */
static double probe_mhz(const struct nb_gpu_slot *b)
{
    double r[PROBE_SLOTS];
    size_t n = 0;
    for (size_t s = 0; s < PROBE_SLOTS; s++) {
        unsigned long long c0 = b->probe[0][2 * s], t0 = b->probe[0][2 * s + 1];
        unsigned long long c1 = b->probe[1][2 * s], t1 = b->probe[1][2 * s + 1];
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

static nb_status hold(run_state *st, struct nb_gpu_slot *b)
{
    b->flags[0] = 0;
    b->flags[1] = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return nb_gpu_blocker_launch(b->flags_dev,
                                 (unsigned long long)(st->o->blocking_timeout_s * 1e9),
                                 st->stream);
}

/* Lets a held stream go (host-mapped store the blocker polls). */
static void release(struct nb_gpu_slot *b)
{
    __atomic_store_n(&b->flags[0], 1, __ATOMIC_SEQ_CST);
}

nb_status nb_run_hold_stream(run_state *st) { return hold(st, &st->slot[0]); }

void nb_run_release_blocker(run_state *st) { release(&st->slot[0]); }

int nb_run_blocker_timed_out(const run_state *st) { return st->slot[0].flags[1] != 0; }

nb_status nb_run_count_ops(run_state *st, int *captured)
{
    st->ops_per_sample = 0;
    *captured = 1;
    const nb_workload_ops *ops = st->w->ops;
    /* the workload's own eviction may wait on the host: never behind the blocker */
    if (!st->use_blocker || st->o->batch_samples < 2 || (st->plan.flush && ops->evict))
        return NB_OK;
    cudaStream_t s = (cudaStream_t)st->stream;
    cudaGraph_t graph = NULL;
    NB_CUDA_TRY(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    nb_status ls = NB_OK;
    for (size_t k = 0; k < st->plan.launches && ls == NB_OK; k++)
        ls = ops->launch(st->w->ctx, nb_cache_plan_set(&st->plan, 0, k), st->stream);
    cudaError_t e = cudaStreamEndCapture(s, &graph);
    size_t nodes = 0;
    if (ls == NB_OK && e == cudaSuccess && graph)
        e = cudaGraphGetNodes(graph, NULL, &nodes);
    if (graph)
        cudaGraphDestroy(graph);
    (void)cudaGetLastError();
    if (ls != NB_OK || e != cudaSuccess) {
        *captured = 0;
        return NB_OK;
    }
    /* the sample's two events and its flush beside what its launches queue */
    st->ops_per_sample = nodes + 2 + (st->plan.flush ? 1 : 0);
    return NB_OK;
}

/* Queues sample i's eviction: the flush kernel, then the workload's own. */
static nb_status queue_flush(run_state *st)
{
    NB_TRY(nb_gpu_flush_launch(nb_buffer_ptr(st->gpu_scratch), st->scratch_bytes, st->stream));
    if (st->w->ops->evict)
        NB_TRY(st->w->ops->evict(st->w->ctx, st->stream));
    return NB_OK;
}

/* Queues sample i between its two events: start, its launches (or its
 * graph), stop. */
static nb_status queue_sample(run_state *st, size_t i, cudaEvent_t start, cudaEvent_t stop)
{
    cudaStream_t s = (cudaStream_t)st->stream;
    const nb_workload_ops *ops = st->w->ops;
    cudaError_t e = cudaEventRecord(start, s);
    if (e == cudaSuccess && st->o->mode == NB_MODE_GRAPH) {
        e = cudaGraphLaunch(st->execs[i % st->n_execs], s);
    } else if (e == cudaSuccess) {
        for (size_t k = 0; k < st->plan.launches; k++)
            NB_TRY(ops->launch(st->w->ctx, nb_cache_plan_set(&st->plan, i, k), st->stream));
    }
    if (e == cudaSuccess)
        e = cudaEventRecord(stop, s);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return nb_set_error(NB_ERR_CUDA, "timing '%s': %s", st->w->label, cudaGetErrorString(e));
    }
    return NB_OK;
}

/* A batch whose queueing failed with `failed`: its blocker let go and the
 * stream drained, so nothing stays held; returns `failed` with the first
 * error's message. */
static nb_status let_go(run_state *st, struct nb_gpu_slot *b, nb_status failed)
{
    release(b); /* neither this nor the drain sets a message: the first one stays */
    cudaStreamSynchronize((cudaStream_t)st->stream);
    (void)cudaGetLastError();
    return failed;
}

/* Queues a batch in slot b up to its last stop event: its first flush, the
 * first probe, its blocker (holding the stream), then each sample with its
 * own flush. On failure the blocker is let go and the stream drained. */
static nb_status queue_head(run_state *st, struct nb_gpu_slot *b, size_t first, size_t k)
{
    cudaStream_t s = (cudaStream_t)st->stream;
    if (st->plan.flush)
        NB_TRY(queue_flush(st));
    memset(b->probe[0], 0, 2 * PROBE_SLOTS * sizeof(unsigned long long));
    memset(b->probe[1], 0, 2 * PROBE_SLOTS * sizeof(unsigned long long));
    NB_TRY(nb_gpu_probe_launch(b->probe_dev[0], st->sms, s));
    if (st->use_blocker)
        NB_TRY(hold(st, b));
    nb_status ws = NB_OK;
    for (size_t j = 0; j < k && ws == NB_OK; j++) {
        if (j > 0 && st->plan.flush)
            ws = queue_flush(st);
        if (ws == NB_OK)
            ws = queue_sample(st, first + j, b->ev[2 * j], b->ev[2 * j + 1]);
    }
    return ws == NB_OK ? NB_OK : let_go(st, b, ws);
}

/* The batch's second probe and, when the host waits on the batch alone
 * (not the whole stream), its done event. */
static nb_status queue_tail(run_state *st, struct nb_gpu_slot *b, int done)
{
    NB_TRY(nb_gpu_probe_launch(b->probe_dev[1], st->sms, st->stream));
    if (done)
        NB_CUDA_TRY(cudaEventRecord(b->done, (cudaStream_t)st->stream));
    return NB_OK;
}

/* Reads a batch of k samples that has ended (its done event reached). */
static nb_status read_batch(run_state *st, const struct nb_gpu_slot *b, size_t k,
                            double *total_s, double *mhz)
{
    if (st->use_blocker && b->flags[1])
        return nb_set_error(NB_ERR_TIMEOUT,
                            "the blocking kernel timed out after %.3g s while '%s' was being "
                            "queued: the launch synchronizes, or queues more work than the "
                            "launch queue holds; use --mode batch or graph, or raise "
                            "--blocking-timeout",
                            st->o->blocking_timeout_s, st->w->label);
    for (size_t j = 0; j < k; j++) {
        float ms = 0.0f;
        NB_CUDA_TRY(cudaEventElapsedTime(&ms, b->ev[2 * j], b->ev[2 * j + 1]));
        total_s[j] = (double)ms * 1e-3;
    }
    *mhz = probe_mhz(b);
    return NB_OK;
}

nb_status nb_run_gpu_batch(run_state *st, size_t first, size_t k, double *total_s, double *mhz)
{
    if (k < 1 || 2 * k > st->n_ev || (k > 1 && !st->use_blocker) || st->held)
        return nb_set_error(NB_ERR_INTERNAL,
                            "timing '%s': a batch of %zu samples (%zu events%s%s)", st->w->label,
                            k, st->n_ev, st->use_blocker ? "" : ", no blocker",
                            st->held ? ", a sample held" : "");
    struct nb_gpu_slot *b = &st->slot[0];
    NB_TRY(queue_head(st, b, first, k));
    if (st->use_blocker)
        release(b);
    NB_TRY(queue_tail(st, b, 0));
    NB_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)st->stream));
    return read_batch(st, b, k, total_s, mhz);
}

nb_status nb_run_gpu_take_ahead(run_state *st, size_t first, double *total_s, double *mhz)
{
    if (!st->ahead || st->n_slots < 2)
        return nb_set_error(NB_ERR_INTERNAL, "timing '%s': no slot to queue ahead in",
                            st->w->label);
    struct nb_gpu_slot *now = &st->slot[st->cur], *next = &st->slot[1 - st->cur];
    if (!st->held) {
        NB_TRY(queue_head(st, now, first, 1));
        NB_TRY(queue_tail(st, now, 1));
    }
    release(now);
    st->held = 0;
    nb_status s = queue_head(st, next, first + 1, 1);
    if (s == NB_OK)
        s = queue_tail(st, next, 1);
    if (s != NB_OK)
        return let_go(st, next, s);
    st->held = 1;
    st->cur = 1 - st->cur;
    NB_CUDA_TRY(cudaEventSynchronize(now->done));
    return read_batch(st, now, 1, total_s, mhz);
}

nb_status nb_run_gpu_drain(run_state *st)
{
    if (!st->held)
        return NB_OK;
    struct nb_gpu_slot *b = &st->slot[st->cur];
    release(b);
    st->held = 0;
    st->next_sample++;
    NB_CUDA_TRY(cudaEventSynchronize(b->done));
    if (b->flags[1])
        return nb_set_error(NB_ERR_TIMEOUT,
                            "the blocking kernel timed out after %.3g s while '%s' waited to "
                            "run: raise --blocking-timeout",
                            st->o->blocking_timeout_s, st->w->label);
    return NB_OK;
}
#endif /* NB_HAVE_CUDA */

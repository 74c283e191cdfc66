/* One marked call of a workload, after the same check, open and
 * verification as a timed run: the target side of a profiler pass (the call
 * between cudaProfilerStart and cudaProfilerStop, so that ncu
 * --profile-from-start off sees its kernels and nothing else), and the
 * kernel log of a call (the call with a kernel log active). */
#include <stdio.h>
#include <string.h>

#include "bench/timing/internal.h"
#include "bench/timing/profile.h"

#ifdef NB_HAVE_CUDA
#include <cuda_profiler_api.h>

#include "core/cuda_check.h"

/* Warm-up (a warm state), then the marked call on set 0: between profiler
 * start and stop when log is NULL, else with log active. */
static nb_status marked_call(run_state *st, nb_kernel_log *log)
{
    const nb_workload_ops *ops = st->w->ops;
    char msg[512];
    NB_TRY(nb_run_verify_set(st, 0, NULL, msg, sizeof msg, "before the marked call"));
    if (ops->prepare)
        NB_TRY(ops->prepare(st->w->ctx, 0, st->stream));
    if (st->plan.cache == NB_CACHE_WARM)
        NB_TRY(ops->launch(st->w->ctx, 0, st->stream));
    NB_TRY(nb_stream_sync(st->stream));
    if (log) {
        nb_kernel_log_begin(log);
        nb_status s = ops->launch(st->w->ctx, 0, st->stream);
        nb_kernel_log_end();
        return s == NB_OK ? nb_stream_sync(st->stream) : s;
    }
    NB_CUDA_TRY(cudaProfilerStart());
    nb_status s = ops->launch(st->w->ctx, 0, st->stream);
    if (s == NB_OK)
        s = nb_stream_sync(st->stream);
    const cudaError_t e = cudaProfilerStop();
    if (s == NB_OK && e != cudaSuccess)
        s = nb_set_error(NB_ERR_CUDA, "cudaProfilerStop: %s", cudaGetErrorString(e));
    return s;
}
#endif

/* Opens w, runs marked_call, closes; the first error's message kept. */
static nb_status one_marked_call(const nb_workload *w, void *stream, const nb_bench_opts *o,
                                 nb_kernel_log *log)
{
    NB_TRY(nb_run_check(w, stream, o, 0));
    if (w->backend != NB_BACKEND_GPU)
        return nb_set_error(NB_ERR_UNSUPPORTED, "'%s': %s needs a GPU workload",
                            w->label ? w->label : "?",
                            log ? "a kernel log" : "a profiler pass");
#ifdef NB_HAVE_CUDA
    run_state st;
    int setup_called = 0;
    nb_status s = nb_run_open(&st, w, stream, o, NB_MODE_PER_LAUNCH, &setup_called);
    if (s == NB_OK)
        s = marked_call(&st, log);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", s == NB_OK ? "" : nb_last_error());
    nb_run_close(&st, setup_called);
    return s == NB_OK ? NB_OK : nb_set_error(s, "%s", msg);
#else
    (void)stream;
    (void)o;
    return nb_set_error(NB_ERR_UNSUPPORTED, "%s needs a build with CUDA",
                        log ? "a kernel log" : "a profiler pass");
#endif
}

nb_status nb_bench_profile_call(const nb_workload *w, void *stream, const nb_bench_opts *o)
{
    return one_marked_call(w, stream, o, NULL);
}

nb_status nb_bench_kernel_log(const nb_workload *w, void *stream, const nb_bench_opts *o,
                              nb_kernel_log *log)
{
    if (!log)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_bench_kernel_log: NULL log");
    return one_marked_call(w, stream, o, log);
}

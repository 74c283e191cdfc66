/* The target side of a profiler pass: one call of a workload between
 * cudaProfilerStart and cudaProfilerStop, after the same check, open and
 * verification as a timed run, so that ncu --profile-from-start off sees
 * that call's kernels and nothing else. */
#include <stdio.h>
#include <string.h>

#include "bench/timing/internal.h"
#include "bench/timing/profile.h"

#ifdef NB_HAVE_CUDA
#include <cuda_profiler_api.h>

#include "core/cuda_check.h"

/* Warm-up (a warm state), then the profiled call on set 0. */
static nb_status profiled_call(run_state *st)
{
    const nb_workload_ops *ops = st->w->ops;
    char msg[512];
    NB_TRY(nb_run_verify_set(st, 0, NULL, msg, sizeof msg, "before the profiled call"));
    if (ops->prepare)
        NB_TRY(ops->prepare(st->w->ctx, 0, st->stream));
    if (st->plan.cache == NB_CACHE_WARM)
        NB_TRY(ops->launch(st->w->ctx, 0, st->stream));
    NB_TRY(nb_stream_sync(st->stream));
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

nb_status nb_bench_profile_call(const nb_workload *w, void *stream, const nb_bench_opts *o)
{
    NB_TRY(nb_run_check(w, stream, o, 0));
    if (w->backend != NB_BACKEND_GPU)
        return nb_set_error(NB_ERR_UNSUPPORTED, "'%s': a profiler pass needs a GPU workload",
                            w->label ? w->label : "?");
#ifdef NB_HAVE_CUDA
    run_state st;
    int setup_called = 0;
    nb_status s = nb_run_open(&st, w, stream, o, NB_MODE_PER_LAUNCH, &setup_called);
    if (s == NB_OK)
        s = profiled_call(&st);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", s == NB_OK ? "" : nb_last_error());
    nb_run_close(&st, setup_called);
    return s == NB_OK ? NB_OK : nb_set_error(s, "%s", msg);
#else
    (void)stream;
    (void)o;
    return nb_set_error(NB_ERR_UNSUPPORTED, "a profiler pass needs a build with CUDA");
#endif
}

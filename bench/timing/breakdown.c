/* The breakdown pass (nb_bench_breakdown): marked launches with a mark
 * between the steps, each step's median time and share; and the step marks
 * (nb_step_mark) a marked launch records. */
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

/* ------------------------------------------------------------- step marks */

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
    if (m->backend == NB_BACKEND_GPU && m->on_mark) {
        NB_TRY(m->on_mark(m->on_mark_ctx, m->count));
    } else if (m->backend == NB_BACKEND_GPU) {
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

/* ------------------------------------------------------------- breakdown */

/* One marked launch on `set` (marks reset), step durations into d[0..count). */
static nb_status marked_pass(run_state *st, nb_step_marks *m, size_t set, double *d,
                             double *launch_s)
{
    const nb_workload_ops *ops = st->w->ops;
    m->count = 0;
    m->overflow = 0;
    if (st->backend == NB_BACKEND_CPU) {
        if (st->plan.flush)
            nb_cpu_flush(st->cpu_scratch, st->scratch_bytes, st->o);
        m->t[0] = nb_run_clock(st->o);
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
    if (st->plan.flush && ops->evict)
        NB_TRY(ops->evict(st->w->ctx, st->stream));
    const int blocked = st->use_blocker;
    if (blocked)
        NB_TRY(nb_run_hold_stream(st));
    cudaError_t e = cudaEventRecord(m->ev[0], s);
    nb_status ls = e == cudaSuccess ? ops->launch_marked(st->w->ctx, set, st->stream, m)
                                    : NB_ERR_CUDA;
    if (blocked)
        nb_run_release_blocker(st);
    cudaError_t se = cudaStreamSynchronize(s);
    if (ls != NB_OK)
        return e == cudaSuccess ? ls
                                : nb_set_error(NB_ERR_CUDA, "event record: %s",
                                               cudaGetErrorString(e));
    if (se != cudaSuccess)
        return nb_set_error(NB_ERR_CUDA, "breakdown pass: %s", cudaGetErrorString(se));
    if (blocked && nb_run_blocker_timed_out(st))
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

/* Distinct step names of the reference sequence ref[0..nmarks), in order of
 * first appearance, into out->steps; name_of[i] = the entry of mark i. */
static nb_status collect_steps(const mark_info *ref, size_t nmarks, size_t *name_of,
                               nb_breakdown *out)
{
    out->n_steps = 0;
    for (size_t i = 0; i < nmarks; i++) {
        size_t j = 0;
        for (; j < out->n_steps; j++)
            if (strcmp(out->steps[j].name, ref[i].name) == 0 &&
                out->steps[j].is_ntt == ref[i].is_ntt && out->steps[j].inverse == ref[i].inverse)
                break;
        if (j == out->n_steps) {
            if (out->n_steps == NB_MAX_STEPS)
                return nb_set_error(NB_ERR_INVALID_ARG, "more than %d distinct step names",
                                    NB_MAX_STEPS);
            nb_step_stat *e = &out->steps[out->n_steps++];
            memset(e, 0, sizeof *e);
            snprintf(e->name, sizeof e->name, "%s", ref[i].name);
            e->is_ntt = ref[i].is_ntt;
            e->inverse = ref[i].inverse;
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
    return NB_OK;
}

/* One warm-up pass, then `passes` measured ones: per[p * n_steps + step] and
 * launch[p]. Every pass must mark the reference sequence. */
static nb_status run_passes(run_state *st, nb_step_marks *m, const mark_info *ref, size_t nmarks,
                            const size_t *name_of, size_t passes, nb_breakdown *out,
                            double *per, double *launch, double *d)
{
    for (size_t p = 0; p <= passes; p++) {
        size_t set = nb_cache_plan_set(&st->plan, st->next_sample++, 0);
        double ls = 0;
        nb_status s = marked_pass(st, m, set, d, &ls);
        if (s == NB_ERR_TIMEOUT && st->use_blocker) {
            /* more work than the launch queue holds: measure without holding */
            st->use_blocker = 0;
            out->blocked = 0;
            s = marked_pass(st, m, set, d, &ls);
        }
        NB_TRY(s);
        if (m->count != nmarks)
            return nb_set_error(NB_ERR_INTERNAL, "workload '%s' marked %zu steps, earlier %zu",
                                st->w->label, m->count, nmarks);
        for (size_t i = 0; i < nmarks; i++)
            if (strcmp(m->info[i].name, ref[i].name) != 0)
                return nb_set_error(NB_ERR_INTERNAL,
                                    "workload '%s': step %zu is '%s', earlier '%s'",
                                    st->w->label, i, m->info[i].name, ref[i].name);
        if (p == 0)
            continue;
        for (size_t i = 0; i < nmarks; i++)
            per[(p - 1) * out->n_steps + name_of[i]] += d[i];
        launch[p - 1] = ls;
    }
    return NB_OK;
}

/* Medians and shares from per[] and launch[] (both reordered). */
static nb_status summarize(double *per, double *launch, size_t passes, nb_breakdown *out)
{
    double *col = malloc(passes * sizeof *col);
    if (!col)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "breakdown: out of memory");
    out->passes = passes;
    out->sum_s = 0;
    out->ntt_s = 0;
    for (size_t j = 0; j < out->n_steps; j++) {
        for (size_t p = 0; p < passes; p++)
            col[p] = per[p * out->n_steps + j];
        out->steps[j].median_s = nb_median_inplace(col, passes);
        out->sum_s += out->steps[j].median_s;
        if (out->steps[j].is_ntt)
            out->ntt_s += out->steps[j].median_s;
    }
    free(col);
    for (size_t j = 0; j < out->n_steps; j++)
        out->steps[j].share = out->sum_s > 0 ? out->steps[j].median_s / out->sum_s : 0.0;
    out->ntt_share = out->sum_s > 0 ? out->ntt_s / out->sum_s : 0.0;
    out->launch_s = nb_median_inplace(launch, passes);
    return NB_OK;
}

static nb_status init_marks(run_state *st, nb_step_marks *m)
{
    m->backend = st->backend;
    m->stream = st->stream;
    m->clock = st->backend == NB_BACKEND_CPU ? st->o->clock : NULL;
    m->clock_ctx = st->o->clock_ctx;
#ifdef NB_HAVE_CUDA
    if (st->backend == NB_BACKEND_GPU) {
        for (size_t i = 0; i <= NB_MAX_MARKS; i++)
            NB_CUDA_TRY(cudaEventCreate(&m->ev[i]));
        m->events_ready = 1;
        if (st->o->cache != NB_CACHE_WARM)
            NB_TRY(nb_run_l2_reset(st));
    }
#endif
    return NB_OK;
}

static nb_status breakdown_body(run_state *st, nb_step_marks *m, size_t passes,
                                nb_breakdown *out)
{
    char msg[320] = "";
    NB_TRY(init_marks(st, m));
    NB_TRY(nb_run_verify_set(st, 0, m, msg, sizeof msg, "before the breakdown"));
    if (m->count == 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "workload '%s': launch_marked marked no step",
                            st->w->label);
    const size_t nmarks = m->count;
    mark_info *ref = malloc(nmarks * sizeof *ref);
    double *d = malloc(nmarks * sizeof *d);
    size_t *name_of = malloc(nmarks * sizeof *name_of);
    double *per = NULL, *launch = malloc(passes * sizeof *launch);
    nb_status s = NB_OK;
    if (!ref || !d || !name_of || !launch)
        s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "breakdown: out of memory");
    if (s == NB_OK) {
        memcpy(ref, m->info, nmarks * sizeof *ref);
        s = collect_steps(ref, nmarks, name_of, out);
    }
    if (s == NB_OK && !(per = calloc(passes * out->n_steps, sizeof *per)))
        s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "breakdown: out of memory");
    if (s == NB_OK)
        s = run_passes(st, m, ref, nmarks, name_of, passes, out, per, launch, d);
    if (s == NB_OK)
        s = summarize(per, launch, passes, out);
    if (s == NB_OK) {
        size_t last = nb_cache_plan_set(&st->plan, st->next_sample - 1, 0);
        s = nb_run_verify_set(st, last, m, msg, sizeof msg, "after the breakdown");
    }
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
    NB_TRY(nb_run_check(w, stream, o, 1));
    if (passes == 0)
        passes = o->min_samples > 20 ? o->min_samples : 20;
    nb_step_marks *m = calloc(1, sizeof *m);
    if (!m)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "breakdown: out of memory");
    char range[256];
    snprintf(range, sizeof range, "breakdown %s %s", nb_cache_state_name(o->cache),
             w->label ? w->label : "");
    if (o->nvtx)
        nb_nvtx_push(range);
    run_state st;
    int setup_called = 0;
    nb_status s = nb_run_open(&st, w, stream, o, NB_MODE_PER_LAUNCH, &setup_called);
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
    nb_run_close(&st, setup_called);
    free(m);
    if (o->nvtx)
        nb_nvtx_pop();
    if (s != NB_OK)
        nb_set_error(s, "%s", msg);
    return s;
}
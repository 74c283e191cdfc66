/* nb_bench_run: one case timed as named phases (NVBench's measure_cold is
 * the model): check, open, verify, warm-up, sample until the stopping rule
 * fires, summarize, verify again, close. The phases shared with the
 * breakdown pass live in phases.c, GPU sampling in sample_gpu.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench/timing/contention.h"
#include "bench/timing/internal.h"
#include "bench/timing/plan.h"
#include "bench/timing/stats.h"

#ifdef NB_HAVE_CUDA
#include "core/cuda_check.h"
#endif

static void sleep_s(double s)
{
    if (s <= 0)
        return;
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    nanosleep(&ts, NULL);
}

void nb_workload_destroy(nb_workload *w)
{
    if (w && w->ops && w->ops->destroy)
        w->ops->destroy(w->ctx);
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

/* Phase "verify": prepare, launch, verify set `set`; records the verdict in
 * *verdict (1 pass, -1 wrong result, 0 could not run). */
static nb_status phase_verify(run_state *st, nb_bench_result *res, size_t set, const char *when,
                              int *verdict)
{
    nb_status s = nb_run_verify_set(st, set, NULL, res->message, sizeof res->message, when);
    *verdict = s == NB_OK ? 1 : s == NB_ERR_VERIFY ? -1 : 0;
    return s;
}

/* Phase "prepare": cache controls on the device (persisting lines cleared for
 * a cold state, the --l2-persist window for a warm one); after the first
 * check, graphs captured and what one sample queues counted. */
static nb_status phase_prepare(run_state *st, nb_bench_result *res, int after_verify)
{
#ifdef NB_HAVE_CUDA
    if (st->backend != NB_BACKEND_GPU)
        return NB_OK;
    if (!after_verify && st->o->cache != NB_CACHE_WARM)
        return nb_run_l2_reset(st);
    if (!after_verify && st->o->l2_persist >= 0.0)
        return nb_run_l2_persist(st, res);
    if (after_verify && st->o->mode == NB_MODE_GRAPH)
        NB_TRY(nb_run_capture_graphs(st));
    if (after_verify) {
        int captured = 1;
        NB_TRY(nb_run_count_ops(st, &captured));
        if (!captured)
            nb_run_log(st->o, "%s: its launch cannot be captured to count what it queues: one "
                              "sample per synchronisation",
                       st->w->label);
    }
#else
    (void)st;
    (void)res;
    (void)after_verify;
#endif
    return NB_OK;
}

/* Phase "warm-up": a count and a minimum wall time, bounded by the timeout;
 * in batches sized as the sampling phase's. */
static nb_status phase_warmup(run_state *st, nb_bench_result *res)
{
    const nb_bench_opts *o = st->o;
    double t[NB_BATCH_SAMPLES_MAX], mhz, w0 = nb_run_clock(o);
    size_t warm = 0;
    while (warm < o->warmup_samples || nb_run_clock(o) - w0 < o->warmup_time_s) {
        const size_t k = nb_run_batch_size(
            st, warm < o->warmup_samples ? o->warmup_samples - warm : NB_BATCH_SAMPLES_MAX);
        NB_TRY(nb_run_take_samples(st, k, t, &mhz));
        warm += k;
        if (nb_run_clock(o) - w0 > o->timeout_s || nb_bench_interrupted(o))
            break;
    }
    NB_TRY(nb_run_drain(st));
    res->warmup_samples = warm;
    return NB_OK;
}

/* *yes = 1 if a batch of k samples at `mhz` is throttled: counted, logged
 * now and then, and followed by the back-off. */
static nb_status throttled(run_state *st, nb_bench_result *res, double mhz, size_t k, int *yes)
{
    const nb_bench_opts *o = st->o;
    const double thr =
        st->default_mhz > 0 ? o->throttle_threshold_pct / 100.0 * st->default_mhz : 0.0;
    *yes = thr > 0 && isfinite(mhz) && mhz < thr;
    if (!*yes)
        return NB_OK;
    const size_t before = res->throttled_samples;
    res->throttled_samples += k;
    /* the sample queued ahead would span the back-off with its clock probes */
    NB_TRY(nb_run_drain(st));
    if (before == 0 || before / 100 != res->throttled_samples / 100)
        nb_run_log(o,
                   "%s: SM clock %.0f MHz below %.0f%% of %.0f MHz: sample discarded "
                   "(%zu so far)",
                   st->w->label, mhz, o->throttle_threshold_pct, st->default_mhz,
                   res->throttled_samples);
    sleep_s(o->throttle_recovery_s);
    return NB_OK;
}

/* Judges the host's interference over the CPU sampling phase and warns
 * through the log hook when it crossed a threshold. */
static void judge_contention(run_state *st, nb_bench_result *res, const nb_host_load *before,
                             const nb_host_load *after)
{
#ifdef _OPENMP
    int threads = omp_get_max_threads();
#else
    int threads = 1;
#endif
    nb_contention_judge(before, after, threads, (int)sysconf(_SC_NPROCESSORS_ONLN),
                        &res->contention);
    if (res->contention.contended)
        nb_run_log(st->o, "%s: contended host (%s): the CPU times include other work",
                   st->w->label, res->contention.reason);
}

/* Phase "sample": samples until the stopping rule fires (throttled samples
 * discarded), the NVML snapshots around it. */
static nb_status phase_sample(run_state *st, nb_bench_result *res)
{
    const nb_bench_opts *o = st->o;
    const size_t K = st->plan.launches;
    if (st->backend == NB_BACKEND_GPU)
        nb_nvml_snapshot_take(&res->nvml_before);
    else
        snprintf(res->nvml_before.note, sizeof res->nvml_before.note, "CPU workload");
    nb_host_load load0, load1;
    nb_host_load_read(&load0);
    nb_stop_rule rule;
    size_t cap = 0;
    double t[NB_BATCH_SAMPLES_MAX], mhz, start = nb_run_clock(o);
    const size_t syncs0 = st->syncs;
    nb_stop_rule_init(&rule, o, start);
    nb_stop_reason why = NB_STOP_TIMEOUT;
    for (;;) {
        const size_t k = nb_run_batch_size(st, nb_stop_rule_until_check(&rule));
        NB_TRY(nb_run_take_samples(st, k, t, &mhz));
        int slow = 0;
        NB_TRY(throttled(st, res, mhz, k, &slow));
        if (slow) {
            if (nb_run_clock(o) - start >= o->timeout_s || nb_bench_interrupted(o))
                break;
            continue;
        }
        if (k > res->batch_max)
            res->batch_max = k;
        for (size_t j = 0; j < k; j++) {
            NB_TRY(push_sample(res, &cap, t[j] / (double)K, mhz));
            res->measured_s += t[j];
            nb_stop_rule_add(&rule, t[j] / (double)K, t[j]);
        }
        if (nb_stop_rule_done(&rule, nb_run_clock(o), &why))
            break;
        if (nb_bench_interrupted(o)) {
            why = NB_STOP_INTERRUPTED;
            break;
        }
    }
    NB_TRY(nb_run_drain(st));
    res->stop = why;
    res->wall_s = nb_run_clock(o) - start;
    res->sampling_syncs = st->syncs - syncs0;
    res->noise_target_met = nb_stop_rule_noise_pct(&rule) <= o->max_noise_pct;
    if (st->backend == NB_BACKEND_GPU)
        nb_nvml_snapshot_take(&res->nvml_after);
    else
        snprintf(res->nvml_after.note, sizeof res->nvml_after.note, "CPU workload");
    nb_host_load_read(&load1);
    if (st->backend == NB_BACKEND_CPU)
        judge_contention(st, res, &load0, &load1);
    return NB_OK;
}

/* The phases in order: prepare, verify, warm-up, sample, summarize, verify
 * again (the first set, and the last one the samples used). */
static nb_status run_phases(run_state *st, nb_bench_result *res)
{
    const size_t K = st->plan.launches;
    res->cache = st->plan;
    res->flush_bytes = st->plan.flush ? (double)st->scratch_bytes : 0.0;
    res->default_clock_mhz = st->default_mhz;
    res->blocked = st->use_blocker;
    NB_TRY(phase_prepare(st, res, 0));
    /* a wrong result is never timed */
    double t0 = nb_run_clock(st->o);
    NB_TRY(phase_verify(st, res, 0, "before timing", &res->verified_before));
    res->verify_s += nb_run_clock(st->o) - t0;
    NB_TRY(phase_prepare(st, res, 1));
    t0 = nb_run_clock(st->o);
    NB_TRY(phase_warmup(st, res));
    res->warmup_s = nb_run_clock(st->o) - t0;
    NB_TRY(phase_sample(st, res));
    if (res->n_samples > 0)
        NB_TRY(nb_stats_compute(res->sample_s, res->n_samples, &res->stats));
    size_t last = nb_cache_plan_set(&st->plan, st->next_sample - 1, K - 1);
    t0 = nb_run_clock(st->o);
    NB_TRY(phase_verify(st, res, 0, "after timing", &res->verified_after));
    if (last != 0)
        NB_TRY(phase_verify(st, res, last, "after timing", &res->verified_after));
    res->verify_s += nb_run_clock(st->o) - t0;
    if (res->stop == NB_STOP_TIMEOUT || res->stop == NB_STOP_MAX_SAMPLES) {
        char noise[32] = "unknown: one sample";
        if (isfinite(res->stats.noise_pct))
            snprintf(noise, sizeof noise, "%.2f%%", res->stats.noise_pct);
        nb_run_log(st->o,
                   "%s %s: stopped by %s before the stopping rule was met (noise %s, "
                   "%.3g s measured)",
                   st->o->cache == NB_CACHE_WARM ? "warm" : "cold", st->w->label,
                   nb_stop_reason_name(res->stop), noise, res->measured_s);
    }
    return NB_OK;
}

nb_status nb_bench_run(const nb_workload *w, void *stream, const nb_bench_opts *o,
                       nb_bench_result *out)
{
    if (!out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_bench_run: NULL result");
    memset(out, 0, sizeof *out);
    NB_TRY(nb_run_check(w, stream, o, 0));
    out->mode = o->mode;
    out->backend = w->backend;
    out->launches_per_sample = o->mode == NB_MODE_PER_LAUNCH ? 1 : o->batch;

    char range[256];
    snprintf(range, sizeof range, "%s %s %s", nb_cache_state_name(o->cache), nb_mode_name(o->mode),
             w->label ? w->label : "");
    if (o->nvtx)
        nb_nvtx_push(range);
    run_state st;
    int setup_called = 0;
    const double t0 = nb_run_clock(o);
    nb_status s = nb_run_open(&st, w, stream, o, o->mode, &setup_called);
    out->setup_s = nb_run_clock(o) - t0;
    if (s == NB_OK)
        s = run_phases(&st, out);
    if (s != NB_OK) {
        /* keep the message across the clean-up's CUDA calls */
        char msg[512];
        snprintf(msg, sizeof msg, "%s", nb_last_error());
        nb_run_close(&st, setup_called);
        nb_set_error(s, "%s", msg);
    } else {
        nb_run_close(&st, setup_called);
    }
    out->run_s = nb_run_clock(o) - t0;
    if (o->nvtx)
        nb_nvtx_pop();
    return s;
}
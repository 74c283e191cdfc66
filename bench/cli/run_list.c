/* The plan pass of `run`: every case the command line selects, named in
 * sweep order by the tiers themselves (nb_tier_run.plan_only), counted for
 * the progress lines and the report's cases_planned, and, with --list /
 * --dry-run, printed with a time estimate: each timed run after its warm-up
 * between its --min-time of samples (on a GPU with each sample's own cost
 * beside it: its events, synchronisation and L2 flush) and its --timeout,
 * plus an estimate of what happens outside the samples (buffer sets drawn
 * and copied in, CPU cache flushes, tables and checks, the environment
 * probe). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/cli/cli.h"
#include "bench/timing/memfit.h"
#include "bench/timing/plan.h"

/* Rates of the work outside the samples, measured on the 2-core EPYC of
 * docs/cli.md ("Listing the cases"); an estimate, not a promise. */
#define SETUP_BPS 4e8     /* buffer sets: allocated, drawn (core/rng.h), copied in */
#define FLUSH_BPS 5e9     /* one CPU cache flush: the scratch read and written back */
/* The GPU's, from the H100 of docs/results.md ("The wall time of a GPU sweep"). */
#define GPU_BPS 2.5e12        /* bytes a transform, or the L2 flush, moves per second */
#define GPU_SAMPLE_MIN_S 4e-6 /* the shortest sample: one small transform */
#define GPU_BATCHED_S 2e-6    /* a sample batched behind the blocking kernel: its events */
#define GPU_UNBATCHED_S 3e-5  /* one at a time, --queue-ahead 0: queued, then waited for */
#define GPU_AHEAD_S 2.5e-5    /* one at a time, queued while the one before runs */
#define GPU_L2_BYTES 50e6     /* the L2 assumed where no GPU is visible (H100's) */
#define SCRATCH_BPS 1e9   /* the flush scratch allocated and filled, once per case */
#define CASE_FIXED_S 0.02 /* tables, plans, three verifications, the report row */
#define STAGE_FIXED_S 0.1 /* a stage case's parameters, pipelines and breakdown pass */
#define ENV_PROBE_S 0.7   /* the environment block (copy bandwidth), once per run */
#define MICRO_COLD_RUNS 2 /* a stage level's NTT micro-benchmarks in the cold state */

/* 1 when the command line selects the case: the one a profiler pass's
 * target names, else --filter's. */
static int selected(const nb_cli_run *run, const char *name)
{
    if (run->profile_case)
        return strcmp(name, run->profile_case) == 0;
    return nb_cli_filter_match(&run->filter, name);
}

int nb_cli_keep_case(void *ctx, const nb_case_plan *c)
{
    return selected(ctx, c->name);
}

/* Bytes of the cache a case's state controls (the GPU's L2 assumed when
 * none is visible). */
static double cache_bytes(const nb_case_plan *c)
{
    size_t cache = 0;
    if (nb_cache_bytes(c->variant->backend, &cache) != NB_OK)
        cache = 0;
    if (cache == 0 && c->variant->backend == NB_BACKEND_GPU)
        return GPU_L2_BYTES;
    return (double)cache;
}

/* Seconds a case is expected to spend outside its samples. */
static double outside_samples_s(const nb_cli_run *run, const nb_case_plan *c, int stage)
{
    const double cache = cache_bytes(c);
    double sets = 1.0;
    if ((c->cache & NB_CACHE_ROTATED) && c->set_bytes > 0)
        sets = run->timing.rotate_sets ? (double)run->timing.rotate_sets
                                       : fmax(1.0, ceil(run->timing.rotate_factor * cache /
                                                        c->set_bytes));
    /* set 0 drawn on the host; an NTT case's other sets on a GPU, when it has one */
    const int device_drawn = !stage && c->variant->backend == NB_BACKEND_GPU;
    double s = (stage ? STAGE_FIXED_S : CASE_FIXED_S) +
               (device_drawn ? c->set_bytes : sets * c->set_bytes) / SETUP_BPS;
    /* CPU flushes: the case's own in an evicted state, and those of its level's
     * cold NTT micro-benchmarks (forward and inverse) whatever its state */
    const double flushed_runs = ((c->cache & NB_CACHE_EVICTED) ? 1.0 : 0.0) +
                                (stage && c->timed_runs > 1 ? (double)MICRO_COLD_RUNS : 0.0);
    if (flushed_runs > 0 && c->variant->backend == NB_BACKEND_CPU) {
        const double flushes = (double)(run->timing.warmup_samples + run->timing.min_samples);
        s += flushed_runs * (2.0 * cache / SCRATCH_BPS + flushes * 2.0 * cache / FLUSH_BPS);
    }
    return s;
}

/* Seconds one sampling phase of the case is expected to take. A GPU case:
 * enough samples for --min-time (at least --min-samples), each with its own
 * cost beside the measured time (its events, a synchronisation when
 * unbatched, the L2 flush when the state evicts), at most --timeout. A CPU
 * case: --min-time, at most --timeout (its flushes are counted outside the
 * samples). */
static double sampling_s(const nb_cli_run *run, const nb_case_plan *c, int stage)
{
    const nb_bench_opts *t = &run->timing;
    if (c->variant->backend != NB_BACKEND_GPU)
        return fmin(t->timeout_s, t->min_time_s);
    const double sample =
        fmax(GPU_SAMPLE_MIN_S, 2.0 * (c->set_bytes > 0 ? c->set_bytes : 0.0) / GPU_BPS);
    double beside = t->batch_samples > 1        ? GPU_BATCHED_S
                    : t->queue_ahead && !stage ? GPU_AHEAD_S
                                               : GPU_UNBATCHED_S;
    if (c->cache & NB_CACHE_EVICTED) /* the flush writes 2x the L2 */
        beside += 2.0 * cache_bytes(c) / GPU_BPS;
    const double n = fmax((double)t->min_samples, t->min_time_s / sample);
    return fmin(t->timeout_s, n * (sample + beside));
}

/* For a case whose tables, staging and first set (any backend), or, on the
 * CPU, whose rotated buffer sets and flush scratch would not fit the
 * available memory (the checks the run makes before it allocates, on this
 * plan's sets): "  [will not fit: ...]"; for a CPU case whose cache plan the
 * run would refuse (too many sets): "  [will fail: ...]"; else "". */
static void unfit_note(const nb_cli_run *run, const nb_case_plan *c, char *buf, size_t n)
{
    buf[0] = '\0';
    if (c->skipped || c->fails)
        return;
    if ((c->host_bytes > 0 || c->device_bytes > 0) &&
        nb_memory_fit("it", c->host_bytes, c->device_bytes) != NB_OK) {
        snprintf(buf, n, "  [will not fit: %s]", nb_last_error());
        return;
    }
    if (c->variant->backend != NB_BACKEND_CPU || !(c->set_bytes >= 1))
        return;
    const double cache = cache_bytes(c);
    nb_cache_plan pl;
    if (nb_cache_plan_make(&pl, c->cache, NB_MODE_PER_LAUNCH, 1, (size_t)c->set_bytes,
                           (size_t)cache, run->timing.rotate_sets,
                           run->timing.rotate_factor) != NB_OK) {
        snprintf(buf, n, "  [will fail: %s]", nb_last_error());
        return;
    }
    if (nb_memory_fit("it", pl.allocated_bytes + (pl.flush ? 2.0 * cache : 0.0), 0) != NB_OK)
        snprintf(buf, n, "  [will not fit: %s]", nb_last_error());
}

int nb_cli_plan_case(void *ctx, const nb_case_plan *c)
{
    nb_cli_plan *p = ctx;
    const nb_cli_run *run = p->run;
    if (!selected(run, c->name))
        return 0;
    p->cases++;
    const char *fails = c->fails;
    if (!fails && c->variant->backend == NB_BACKEND_GPU && !c->skipped)
        fails = p->no_gpu; /* NULL where a GPU is usable */
    char unfit[300] = "";
    if (p->list && !fails)
        unfit_note(run, c, unfit, sizeof unfit);
    if (p->list && fails)
        fprintf(p->list, "%s  [will fail: %s]\n", c->name, fails);
    else if (p->list)
        fprintf(p->list, "%s%s%s\n", c->name, c->skipped ? "  [skipped]" : "", unfit);
    if (c->skipped || unfit[0] || fails) {
        const int plan_fails = strstr(unfit, "[will fail: ") != NULL;
        p->skipped += c->skipped;
        p->unfit += unfit[0] != '\0' && !plan_fails;
        p->fails += fails != NULL || plan_fails;
        return 1;
    }
    const nb_bench_opts *t = &run->timing;
    const double runs = (double)c->timed_runs;
    p->lo_s += runs * (t->warmup_time_s + sampling_s(run, c, p->stage));
    p->hi_s += runs * (t->warmup_time_s + t->timeout_s);
    p->outside_s += outside_samples_s(run, c, p->stage);
    p->any_cpu |= c->variant->backend == NB_BACKEND_CPU;
    p->any_gpu |= c->variant->backend == NB_BACKEND_GPU;
    return 1;
}

/* "4.1s", "1m05s", "2h03m". */
static void duration(char *buf, size_t n, double s)
{
    if (s < 59.95)
        snprintf(buf, n, "%.1fs", s);
    else if (s < 3600)
        snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else
        snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
}

void nb_cli_plan_print_total(const nb_cli_plan *p, FILE *f)
{
    const double outside = p->outside_s + (p->any_cpu ? ENV_PROBE_S : 0.0);
    char lo[16], hi[16], tlo[16], thi[16], out[16];
    duration(lo, sizeof lo, p->lo_s + outside);
    duration(hi, sizeof hi, p->hi_s + outside);
    duration(tlo, sizeof tlo, p->lo_s);
    duration(thi, sizeof thi, p->hi_s);
    duration(out, sizeof out, outside);
    fprintf(f, "%zu case%s", p->cases, p->cases == 1 ? "" : "s");
    if (p->skipped)
        fprintf(f, " (%zu skipped)", p->skipped);
    if (p->unfit)
        fprintf(f, " (%zu will not fit the memory)", p->unfit);
    if (p->fails)
        fprintf(f, " (%zu will fail)", p->fails);
    fprintf(f, ", estimated %s to %s: timed runs %s to %s (each after its warm-up from "
               "--min-time, %s to --timeout) and about %s outside the samples (buffer sets, "
               "cache flushes, tables and checks, the environment probe)\n",
            lo, hi, tlo, thi,
            !p->any_gpu   ? "with each cold sample's flush beside it,"
            : !p->any_cpu ? "on a GPU with each sample's events and flush beside it,"
                          : "with each cold sample's flush, and on a GPU each sample's events, "
                            "beside it,",
            out);
}

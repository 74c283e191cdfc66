/* The plan pass of `run`: every case the command line selects, named in
 * sweep order by the tiers themselves (nb_tier_run.plan_only), counted for
 * the progress lines and the report's cases_planned, and, with --list /
 * --dry-run, printed with a time estimate: each timed run between its
 * --min-time and its --timeout after its warm-up, plus an estimate of what
 * happens outside the samples (buffer sets drawn and copied in, cache
 * flushes, tables and checks, the environment probe). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/cli/cli.h"

/* Rates of the work outside the samples, measured on the 2-core EPYC of
 * docs/cli.md ("Listing the cases"); an estimate, not a promise. */
#define SETUP_BPS 4e8     /* buffer sets: allocated, drawn (core/rng.h), copied in */
#define FLUSH_BPS 5e9     /* one CPU cache flush: the scratch read and written back */
#define SCRATCH_BPS 1e9   /* the flush scratch allocated and filled, once per case */
#define CASE_FIXED_S 0.02 /* tables, plans, three verifications, the report row */
#define STAGE_FIXED_S 0.1 /* a stage case's parameters, pipelines and breakdown pass */
#define ENV_PROBE_S 0.7   /* the environment block (copy bandwidth), once per run */

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

/* Seconds a case is expected to spend outside its samples. */
static double outside_samples_s(const nb_cli_run *run, const nb_case_plan *c, int stage)
{
    size_t cache = 0;
    if (nb_cache_bytes(c->variant->backend, &cache) != NB_OK)
        cache = 0;
    double sets = 1.0;
    if ((c->cache & NB_CACHE_ROTATED) && c->set_bytes > 0)
        sets = run->timing.rotate_sets ? (double)run->timing.rotate_sets
                                       : fmax(1.0, ceil(run->timing.rotate_factor *
                                                        (double)cache / c->set_bytes));
    double s = (stage ? STAGE_FIXED_S : CASE_FIXED_S) + sets * c->set_bytes / SETUP_BPS;
    if ((c->cache & NB_CACHE_EVICTED) && c->variant->backend == NB_BACKEND_CPU) {
        const double flushes = (double)(run->timing.warmup_samples + run->timing.min_samples);
        s += 2.0 * cache / SCRATCH_BPS + flushes * 2.0 * cache / FLUSH_BPS;
    }
    return s;
}

int nb_cli_plan_case(void *ctx, const nb_case_plan *c)
{
    nb_cli_plan *p = ctx;
    const nb_cli_run *run = p->run;
    if (!selected(run, c->name))
        return 0;
    p->cases++;
    if (p->list)
        fprintf(p->list, "%s%s\n", c->name, c->skipped ? "  [skipped]" : "");
    if (c->skipped) {
        p->skipped++;
        return 1;
    }
    const nb_bench_opts *t = &run->timing;
    const double runs = (double)c->timed_runs;
    p->lo_s += runs * (t->warmup_time_s + t->min_time_s);
    p->hi_s += runs * (t->warmup_time_s + t->timeout_s);
    p->outside_s += outside_samples_s(run, c, p->stage);
    p->any_cpu |= c->variant->backend == NB_BACKEND_CPU;
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
    fprintf(f, ", estimated %s to %s: timed runs %s to %s (each from --min-time to --timeout "
               "after its warm-up) and about %s outside the samples (buffer sets, cache "
               "flushes, tables and checks, the environment probe)\n",
            lo, hi, tlo, thi, out);
}

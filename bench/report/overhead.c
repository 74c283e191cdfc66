/* Where a run's time went: the samples' measured time, the sampling phases
 * around them, and the rest of each case (buffer sets, checks, warm-up, the
 * build of plans and tables), summed over the timed cases (nb_report_overhead),
 * and its section after the table and markdown reports. */
#include <math.h>
#include <stdio.h>

#include "bench/report/internal.h"

void nb_report_set_wall_time(nb_report *r, double wall_s)
{
    if (r)
        r->wall_s = wall_s;
}

void nb_case_set_wall_time(nb_case *c, double wall_s)
{
    if (c)
        c->wall_s = wall_s;
}

void nb_report_overhead(const nb_report *r, nb_overhead *o)
{
    if (!o)
        return;
    *o = (nb_overhead){0};
    if (!r)
        return;
    double run_s = 0.0;
    for (size_t i = 0; i < r->n; i++) {
        const nb_case *c = r->cases[i];
        if (!c->has_result)
            continue;
        const nb_bench_result *b = &c->result;
        o->cases++;
        o->samples += b->n_samples;
        o->syncs += b->sampling_syncs;
        o->measured_s += b->measured_s;
        o->sampling_s += b->wall_s;
        o->setup_s += b->setup_s;
        o->verify_s += b->verify_s;
        o->warmup_s += b->warmup_s;
        run_s += b->run_s;
        o->cases_s += isfinite(c->wall_s) ? c->wall_s : b->run_s;
    }
    o->wall_s = r->wall_s;
    o->outside_s = o->cases_s - o->sampling_s;
    o->outside_per_case_s = o->cases ? o->outside_s / (double)o->cases : 0.0;
    o->build_s = o->cases_s - run_s;
    o->between_s = o->wall_s - o->cases_s;
}

/* One line of the section: a label, seconds, and a note (may be ""). */
static void line(FILE *f, int md, int depth, const char *label, double s, const char *note)
{
    static const char *const indent[] = {"", "&nbsp;&nbsp;", "&nbsp;&nbsp;&nbsp;&nbsp;"};
    if (md)
        fprintf(f, "| %s%s | %.3f s | %s |\n", indent[depth], label, s, note);
    else
        fprintf(f, "  %*s%-*s %10.3f s%s%s\n", 2 * depth, "", 34 - 2 * depth, label, s,
                *note ? "  " : "", note);
}

void nb_text_write_overhead(const nb_report *r, FILE *f, int md)
{
    nb_overhead o;
    nb_report_overhead(r, &o);
    if (!o.cases)
        return;
    char note[160];
    fprintf(f, md ? "\n### Where the time went (%zu timed case%s)\n\n| part | time | |\n|---|---:|---|\n"
                  : "\nWhere the time went (%zu timed case%s):\n",
            o.cases, o.cases == 1 ? "" : "s");
    if (isfinite(o.wall_s))
        line(f, md, 0, "the run (wall)", o.wall_s, "");
    line(f, md, 0, "the timed cases", o.cases_s, "");
    snprintf(note, sizeof note, "%.2fx measured; %zu samples, %zu synchronisations",
             o.measured_s > 0 ? o.sampling_s / o.measured_s : NAN, o.samples, o.syncs);
    line(f, md, 1, "sampling phases", o.sampling_s, note);
    line(f, md, 2, "samples measured", o.measured_s, "");
    snprintf(note, sizeof note, "%.3f s per case", o.outside_per_case_s);
    line(f, md, 1, "outside the sampling phases", o.outside_s, note);
    line(f, md, 2, "buffer sets", o.setup_s, "inputs drawn and copied in, flush scratch");
    line(f, md, 2, "checks", o.verify_s, "before and after timing");
    line(f, md, 2, "warm-up", o.warmup_s, "");
    line(f, md, 2, "building the cases", o.build_s,
         "plans, tables, the oracle, a stage's breakdown, the row");
    if (isfinite(o.between_s))
        line(f, md, 0, "outside the timed cases", o.between_s,
             "environment, case list, reports, cases not timed, stage micro-runs, "
             "shared pipelines freed");
}

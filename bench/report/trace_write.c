/* The "Kernel trace" section the table and markdown writers print after the
 * breakdowns: per traced stage case one line on the launch and per step the
 * event time (breakdown), kernel time, busy union, gaps, overlap inside the
 * step and across its boundary, and the kernel count; one line per distinct
 * reason a trace was asked for and not recorded. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/report/internal.h"

static const char *const cols[] = {"step",   "marks",   "kernels", "event", "kernel time",
                                   "busy",   "gaps",    "overlap", "across boundary",
                                   "event - busy"};
#define N_COLS (sizeof cols / sizeof cols[0])

/* ns as the table's times, signed ("-" when not finite). */
static void fmt_ns(char *buf, size_t n, double v)
{
    if (isfinite(v) && v < 0) {
        char t[32];
        nb_text_fmt_time(t, sizeof t, -v * 1e-9);
        snprintf(buf, n, "-%s", t);
        return;
    }
    nb_text_fmt_time(buf, n, v * 1e-9);
}

static void write_row(FILE *f, int md, char cell[N_COLS][48])
{
    if (md) {
        fputc('|', f);
        for (size_t k = 0; k < N_COLS; k++)
            fprintf(f, " %s |", cell[k]);
        fputc('\n', f);
        return;
    }
    fprintf(f, "  %-16s %5s %7s", cell[0], cell[1], cell[2]);
    for (size_t k = 3; k < N_COLS; k++)
        fprintf(f, " %*s", k == 8 ? 15 : 12, cell[k]);
    fputc('\n', f);
}

static void write_trace(const nb_case *c, FILE *f, int md)
{
    const nb_trace *t = c->trace;
    char busy[48], span[48], gaps[48], over[48];
    fmt_ns(busy, sizeof busy, t->launch.busy_ns);
    fmt_ns(span, sizeof span, t->launch.span_ns);
    fmt_ns(gaps, sizeof gaps, t->launch.gap_ns);
    fmt_ns(over, sizeof over, t->launch.overlap_ns);
    fprintf(f, "\n%sKernel trace: %s %s%s (one marked launch%s: %zu kernels, %zu copies; busy "
               "%s of %s first start to last end, gaps %s, overlap %s)\n",
            md ? "**" : "", c->variant, c->label, md ? "**" : "",
            t->blocked ? " behind the blocking kernel" : ", not held", t->launch.kernels,
            t->launch.copies, busy, span, gaps, over);
    if (t->unattributed)
        fprintf(f, "%s%zu activities enqueued after the last step mark are in no step%s\n",
                md ? "\n_" : "  ", t->unattributed, md ? "_" : "");
    char cell[N_COLS][48];
    if (md) {
        fputc('\n', f);
        for (size_t k = 0; k < N_COLS; k++)
            snprintf(cell[k], sizeof cell[k], "%s", cols[k]);
        write_row(f, md, cell);
        for (size_t k = 0; k < N_COLS; k++)
            snprintf(cell[k], sizeof cell[k], k == 0 ? "---" : "---:");
        write_row(f, md, cell);
    } else {
        for (size_t k = 0; k < N_COLS; k++)
            snprintf(cell[k], sizeof cell[k], "%s", cols[k]);
        write_row(f, md, cell);
    }
    for (size_t i = 0; i < t->n_steps; i++) {
        const nb_trace_step *e = &t->steps[i];
        snprintf(cell[0], sizeof cell[0], "%s%s", e->name, e->is_ntt ? " (NTT)" : "");
        snprintf(cell[1], sizeof cell[1], "%zu", e->marks);
        if (e->sums.copies)
            snprintf(cell[2], sizeof cell[2], "%zu + %zu copies", e->sums.kernels,
                     e->sums.copies);
        else
            snprintf(cell[2], sizeof cell[2], "%zu", e->sums.kernels);
        const double v[] = {e->event_ns,       e->sums.kernel_ns, e->sums.busy_ns,
                            e->sums.gap_ns,    e->sums.overlap_ns, e->boundary_ns,
                            e->event_ns - e->sums.busy_ns};
        for (size_t k = 0; k < 7; k++)
            fmt_ns(cell[3 + k], sizeof cell[3 + k], v[k]);
        write_row(f, md, cell);
    }
}

void nb_text_write_traces(const nb_report *r, FILE *f, int md)
{
    const char *last_why = NULL;
    for (size_t i = 0; i < r->n; i++) {
        const nb_case *c = r->cases[i];
        if (c->trace_state == 1 && c->trace) {
            write_trace(c, f, md);
        } else if (c->trace_state == 2 && (!last_why || strcmp(last_why, c->trace_why))) {
            fprintf(f, "\n%sKernel trace%s not recorded: %s\n", md ? "**" : "", md ? "**" : "",
                    c->trace_why);
            last_why = c->trace_why;
        }
    }
}

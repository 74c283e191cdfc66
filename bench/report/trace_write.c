/* The "Kernel trace" section the table and markdown writers print after the
 * breakdowns: per traced stage case one line on the launch and per step the
 * event time (breakdown), kernel time, busy union, gaps, overlap inside the
 * step and across its boundary, and the kernel count; for a launch on
 * several devices the same figures per device; one line per distinct
 * reason a trace was asked for and not recorded. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/report/internal.h"

/* A table's column: its heading and its width in the text form (negative:
 * left-aligned). */
typedef struct column {
    const char *name;
    int width;
} column;

static const column cols[] = {
    {"step", -16},       {"marks", 5}, {"kernels", 7}, {"event", 12},
    {"kernel time", 12}, {"busy", 12}, {"gaps", 12},   {"overlap", 12},
    {"across boundary", 15}, {"event - busy", 12},
};
static const column dev_cols[] = {
    {"step", -16}, {"device", 6}, {"kernels", 7}, {"kernel time", 12},
    {"busy", 12},  {"gaps", 12},  {"overlap", 12},
};
#define N_COLS (sizeof cols / sizeof cols[0])
#define N_DEV_COLS (sizeof dev_cols / sizeof dev_cols[0])

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

static void write_row(FILE *f, int md, const column *col, size_t n, char (*cell)[48])
{
    fputs(md ? "|" : " ", f);
    for (size_t k = 0; k < n; k++) {
        if (md)
            fprintf(f, " %s |", cell[k]);
        else
            fprintf(f, " %*s", col[k].width, cell[k]);
    }
    fputc('\n', f);
}

/* The heading row, and in markdown the alignment row (a blank line before). */
static void write_head(FILE *f, int md, const column *col, size_t n)
{
    char cell[N_COLS][48];
    if (md)
        fputc('\n', f);
    for (size_t k = 0; k < n; k++)
        snprintf(cell[k], sizeof cell[k], "%s", col[k].name);
    write_row(f, md, col, n, cell);
    if (!md)
        return;
    for (size_t k = 0; k < n; k++)
        snprintf(cell[k], sizeof cell[k], k == 0 ? "---" : "---:");
    write_row(f, md, col, n, cell);
}

/* "K" or "K + C copies". */
static void fmt_count(char *buf, size_t n, const nb_trace_sums *s)
{
    if (s->copies)
        snprintf(buf, n, "%zu + %zu copies", s->kernels, s->copies);
    else
        snprintf(buf, n, "%zu", s->kernels);
}

/* One row per device of a set of figures (row[k] on device devices[k]) with
 * any activity. */
static void write_dev_rows(FILE *f, int md, const nb_trace *t, const char *name,
                           const nb_trace_sums *row)
{
    char cell[N_DEV_COLS][48];
    for (size_t k = 0; k < t->n_devices; k++) {
        const nb_trace_sums *s = &row[k];
        if (!s->kernels && !s->copies)
            continue;
        snprintf(cell[0], sizeof cell[0], "%s", name);
        snprintf(cell[1], sizeof cell[1], "%u", (unsigned)t->devices[k]);
        fmt_count(cell[2], sizeof cell[2], s);
        const double v[] = {s->kernel_ns, s->busy_ns, s->gap_ns, s->overlap_ns};
        for (size_t j = 0; j < 4; j++)
            fmt_ns(cell[3 + j], sizeof cell[3 + j], v[j]);
        write_row(f, md, dev_cols, N_DEV_COLS, cell);
    }
}

/* The per-device table of a launch on several devices. */
static void write_devices(const nb_trace *t, FILE *f, int md)
{
    fprintf(f, "%sPer device (%zu devices; the rows above take them together)%s\n",
            md ? "\n_" : "\n  ", t->n_devices, md ? "_" : "");
    write_head(f, md, dev_cols, N_DEV_COLS);
    write_dev_rows(f, md, t, "launch", t->device_launch);
    for (size_t i = 0; i < t->n_steps; i++) {
        char name[48];
        snprintf(name, sizeof name, "%s%s", t->steps[i].name, t->steps[i].is_ntt ? " (NTT)" : "");
        write_dev_rows(f, md, t, name, t->device_steps + i * t->n_devices);
    }
}

static void write_trace(const nb_case *c, FILE *f, int md)
{
    const nb_trace *t = c->trace;
    char busy[48], span[48], gaps[48], over[48];
    fmt_ns(busy, sizeof busy, t->launch.busy_ns);
    fmt_ns(span, sizeof span, t->launch.span_ns);
    fmt_ns(gaps, sizeof gaps, t->launch.gap_ns);
    fmt_ns(over, sizeof over, t->launch.overlap_ns);
    char devs[48] = "";
    if (t->n_devices > 1)
        snprintf(devs, sizeof devs, " on %zu devices", t->n_devices);
    fprintf(f, "\n%sKernel trace: %s %s%s (one marked launch%s%s: %zu kernels, %zu copies; busy "
               "%s of %s first start to last end, gaps %s, overlap %s)\n",
            md ? "**" : "", c->variant, c->label, md ? "**" : "", devs,
            t->blocked ? " behind the blocking kernel" : ", not held", t->launch.kernels,
            t->launch.copies, busy, span, gaps, over);
    if (t->unattributed)
        fprintf(f, "%s%zu activities enqueued after the last step mark are in no step%s\n",
                md ? "\n_" : "  ", t->unattributed, md ? "_" : "");
    write_head(f, md, cols, N_COLS);
    char cell[N_COLS][48];
    for (size_t i = 0; i < t->n_steps; i++) {
        const nb_trace_step *e = &t->steps[i];
        snprintf(cell[0], sizeof cell[0], "%s%s", e->name, e->is_ntt ? " (NTT)" : "");
        snprintf(cell[1], sizeof cell[1], "%zu", e->marks);
        fmt_count(cell[2], sizeof cell[2], &e->sums);
        const double v[] = {e->event_ns,       e->sums.kernel_ns, e->sums.busy_ns,
                            e->sums.gap_ns,    e->sums.overlap_ns, e->boundary_ns,
                            e->event_ns - e->sums.busy_ns};
        for (size_t k = 0; k < 7; k++)
            fmt_ns(cell[3 + k], sizeof cell[3 + k], v[k]);
        write_row(f, md, cols, N_COLS, cell);
    }
    if (t->n_devices > 1)
        write_devices(t, f, md);
}

void nb_text_write_traces(const nb_report *r, FILE *f, int md)
{
    const char *last_why = NULL;
    for (size_t i = 0; i < r->n; i++) {
        const nb_case *c = r->cases[i];
        if (c->trace_state == 1 && c->trace) {
            write_trace(c, f, md);
        } else if (c->trace_state == 2 && (!last_why || strcmp(last_why, c->trace_why))) {
            const char *why = c->trace_why; /* the note as the tracer words it, prefix and all */
            if (!strncmp(why, "kernel trace: ", 14))
                why += 14;
            fprintf(f, "\n%sKernel trace%s not recorded: %s\n", md ? "**" : "", md ? "**" : "",
                    why);
            last_why = c->trace_why;
        }
    }
}

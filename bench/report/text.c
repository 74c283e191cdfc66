/* The cells the table and markdown writers share: one row per case (tier,
 * variant, case, mode, samples, median, CI, noise, bandwidth, fractions,
 * butterflies, notes), the stage cases' per-NTT comparison (warm / cold /
 * in-stage) and the breakdown sections after the table. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/report/internal.h"

/* -------------------------------------------------------- text formats */

void nb_text_fmt_time(char *buf, size_t n, double s)
{
    if (!isfinite(s))
        snprintf(buf, n, "-");
    else if (s < 1e-6)
        snprintf(buf, n, "%.1f ns", s * 1e9);
    else if (s < 1e-3)
        snprintf(buf, n, "%.2f us", s * 1e6);
    else if (s < 1.0)
        snprintf(buf, n, "%.3f ms", s * 1e3);
    else
        snprintf(buf, n, "%.3f s", s);
}

static void fmt_num(char *buf, size_t n, double v, const char *fmt)
{
    if (!isfinite(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, fmt, v);
}

const char *const nb_text_col_names[NB_TEXT_COLS] = {"tier",    "variant", "case",   "mode",  "samples",
                                            "median",  "95% CI",  "noise",  "GB/s",  "% copy",
                                            "% peak",  "Gbfly/s", "notes"};

static void case_cells(const nb_case *c, char cells[NB_TEXT_COLS][200])
{
    for (int i = 0; i < NB_TEXT_COLS; i++)
        snprintf(cells[i], 200, "-");
    if (c->cache == NB_CACHE_WARM && strcmp(c->tier, "warm") != 0)
        snprintf(cells[0], 200, "%s (warm)", c->tier);
    else
        snprintf(cells[0], 200, "%s", c->tier);
    snprintf(cells[1], 200, "%s", c->variant);
    snprintf(cells[2], 200, "%s", c->label);
    char notes[200] = "";
    if (c->has_result) {
        const nb_bench_result *r = &c->result;
        if (r->mode == NB_MODE_PER_LAUNCH)
            snprintf(cells[3], 200, "%s", nb_mode_name(r->mode));
        else
            snprintf(cells[3], 200, "%s x%zu", nb_mode_name(r->mode), r->launches_per_sample);
        if (r->n_samples) {
            char a[32], b[32];
            snprintf(cells[4], 200, "%zu", r->n_samples);
            nb_text_fmt_time(cells[5], 200, r->stats.median);
            nb_text_fmt_time(a, sizeof a, r->stats.ci_lo);
            nb_text_fmt_time(b, sizeof b, r->stats.ci_hi);
            if (r->stats.ci_level > 0)
                snprintf(cells[6], 200, "%s .. %s", a, b);
            else /* one sample: no interval */
                snprintf(cells[6], 200, "-");
            if (isfinite(r->stats.noise_pct))
                snprintf(cells[7], 200, "%.2f%%", r->stats.noise_pct);
            else
                snprintf(cells[7], 200, "-");
        }
        size_t u = 0;
        if (r->n_samples && !r->noise_target_met)
            u += (size_t)snprintf(notes + u, sizeof notes - u, "noise>target ");
        if (r->n_samples && r->stats.ci_level < 0.95) /* below 6 samples: [min, max] */
            u += (size_t)snprintf(notes + u, sizeof notes - u, "ci:%.0f%% ",
                                  100.0 * r->stats.ci_level);
        if (r->n_samples && (r->stop == NB_STOP_TIMEOUT || r->stop == NB_STOP_MAX_SAMPLES))
            u += (size_t)snprintf(notes + u, sizeof notes - u, "stop:%s ",
                                  nb_stop_reason_name(r->stop));
        if (r->throttled_samples && u < sizeof notes)
            u += (size_t)snprintf(notes + u, sizeof notes - u, "throttled:%zu ",
                                  r->throttled_samples);
        if (r->cache.cache != NB_CACHE_WARM && u < sizeof notes)
            u += (size_t)snprintf(notes + u, sizeof notes - u, "%s%s%zu-sets ",
                                  r->cache.flush ? "flush " : "",
                                  r->cache.sets > 1 ? "rot " : "", r->cache.sets);
        if (r->persist_bytes > 0 && u < sizeof notes)
            u += (size_t)snprintf(notes + u, sizeof notes - u, "l2-persist ");
        if (r->contention.contended && u < sizeof notes)
            snprintf(notes + u, sizeof notes - u, "contended ");
    }
    if (c->has_figures) {
        fmt_num(cells[8], 200, c->fig.bandwidth_Bps / 1e9, "%.1f");
        fmt_num(cells[9], 200, 100.0 * c->fig.frac_copy, "%.1f");
        fmt_num(cells[10], 200, 100.0 * c->fig.frac_peak, "%.1f");
        fmt_num(cells[11], 200, c->fig.butterflies_per_s / 1e9, "%.2f");
    }
    if (c->status != NB_CASE_OK) {
        char tmp[200];
        snprintf(tmp, sizeof tmp, "%s: %.150s %.30s", nb_case_status_name(c->status),
                 c->message, notes);
        memcpy(notes, tmp, sizeof notes);
    }
    size_t len = strlen(notes);
    while (len && notes[len - 1] == ' ')
        notes[--len] = '\0';
    snprintf(cells[12], 200, "%s", len ? notes : "");
}

void nb_text_write_breakdowns(const nb_report *r, FILE *f, int md)
{
    for (size_t i = 0; i < r->n; i++) {
        const nb_case *c = r->cases[i];
        if (!c->has_breakdown)
            continue;
        const nb_breakdown *b = c->bd;
        char t1[32], t2[32];
        nb_text_fmt_time(t1, sizeof t1, b->sum_s);
        nb_text_fmt_time(t2, sizeof t2, b->launch_s);
        fprintf(f, "\n%sbreakdown: %s %s%s%s (%zu passes; steps sum %s, marked launch %s; NTT "
                   "share %.1f%%, %zu fwd + %zu inv limb-NTTs)\n",
                md ? "**" : "", c->variant, c->label, c->cache == NB_CACHE_WARM ? " (warm)" : "",
                md ? "**" : "", b->passes, t1, t2, 100.0 * b->ntt_share, b->ntt_fwd_limbs,
                b->ntt_inv_limbs);
        /* what the steps measure: wall time between marks; on the GPU a mark
         * is an event, which ends the kernels' overlap at the step boundary */
        const double timed = c->has_result ? c->result.stats.median : NAN;
        if (isfinite(timed) && timed > 0) {
            char t3[32];
            const double ratio = b->launch_s / timed;
            nb_text_fmt_time(t3, sizeof t3, timed);
            if (c->backend == NB_BACKEND_GPU)
                fprintf(f, "%s(each step: the time between events around it, its kernels "
                           "overlapping one another; the events end the overlap across step "
                           "boundaries, so the marked launch takes %.2fx the timed median %s)%s\n",
                        md ? "\n_" : "  ", ratio, t3, md ? "_" : "");
            else
                fprintf(f, "%s(each step: the wall time between marks around it; the marked "
                           "launch takes %.2fx the timed median %s%s)%s\n",
                        md ? "\n_" : "  ", ratio, t3,
                        ratio < 0.8 || ratio > 1.25
                            ? ": the marked launches ran unlike the timed ones (a contended "
                              "host or a spread of samples), so these shares do not describe "
                              "that median"
                            : "",
                        md ? "_" : "");
        }
        if (md)
            fprintf(f, "\n| step | count | median | share |\n| --- | --- | --- | --- |\n");
        for (size_t k = 0; k < b->n_steps; k++) {
            nb_text_fmt_time(t1, sizeof t1, b->steps[k].median_s);
            if (md)
                fprintf(f, "| %s%s | %zu | %s | %.1f%% |\n", b->steps[k].name,
                        b->steps[k].is_ntt ? " (NTT)" : "", b->steps[k].count, t1,
                        100.0 * b->steps[k].share);
            else
                fprintf(f, "  %-20s x%-4zu %12s  %5.1f%%%s\n", b->steps[k].name,
                        b->steps[k].count, t1, 100.0 * b->steps[k].share,
                        b->steps[k].is_ntt ? "  NTT" : "");
        }
    }
}

static const char *const stage_ntt_cols[] = {
    "variant", "case", "direction", "warm ns/limb", "cold ns/limb", "in-stage ns/limb",
    "in-stage/warm", "in-stage/cold"};

/* One row (direction "fwd" or "inv") when the stage has that NTT. */
static void stage_ntt_row(const nb_case *c, const char *dir, FILE *f, int md)
{
    char k[5][48];
    const char *const what[] = {"warm", "cold", "in_stage"};
    double v[5];
    for (int i = 0; i < 3; i++) {
        snprintf(k[i], sizeof k[i], "%s_%s_ns_per_limb", what[i], dir);
        v[i] = nb_case_metric_find(c, k[i]);
    }
    snprintf(k[3], sizeof k[3], "in_stage_vs_warm_%s", dir);
    snprintf(k[4], sizeof k[4], "in_stage_vs_cold_%s", dir);
    v[3] = nb_case_metric_find(c, k[3]);
    v[4] = nb_case_metric_find(c, k[4]);
    if (!isfinite(v[2]))
        return;
    char cell[5][32];
    for (int i = 0; i < 5; i++)
        fmt_num(cell[i], sizeof cell[i], v[i], i < 3 ? "%.1f" : "%.2fx");
    const char *direction = strcmp(dir, "fwd") == 0 ? "forward" : "inverse";
    char label[200]; /* a stage timed warm says so: its in-stage NTT ran on warm caches */
    snprintf(label, sizeof label, "%s%s", c->label, c->cache == NB_CACHE_WARM ? " (warm)" : "");
    if (md)
        fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", c->variant, label,
                direction, cell[0], cell[1], cell[2], cell[3], cell[4]);
    else
        fprintf(f, "  %-14s %-34s %-9s %12s %12s %16s %13s %13s\n", c->variant, label,
                direction, cell[0], cell[1], cell[2], cell[3], cell[4]);
}

/* The case carries micro-benchmark figures to compare with. */
static int has_micro(const nb_case *c)
{
    return isfinite(nb_case_metric_find(c, "warm_fwd_ns_per_limb")) ||
           isfinite(nb_case_metric_find(c, "warm_inv_ns_per_limb"));
}

void nb_text_write_stage_ntt(const nb_report *r, FILE *f, int md)
{
    int any = 0;
    for (size_t i = 0; i < r->n && !any; i++)
        any = has_micro(r->cases[i]);
    if (!any)
        return;
    const char *const title = "NTT per limb-transform: warm and cold micro-benchmarks vs "
                              "in-stage (ns per limb-transform; ratio > 1: slower in the stage)";
    if (md) {
        fprintf(f, "\n**%s**\n\n|", title);
        for (size_t k = 0; k < 8; k++)
            fprintf(f, " %s |", stage_ntt_cols[k]);
        fputs("\n| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n", f);
    } else {
        fprintf(f, "\n%s\n  %-14s %-34s %-9s %12s %12s %16s %13s %13s\n", title,
                stage_ntt_cols[0], stage_ntt_cols[1], stage_ntt_cols[2], stage_ntt_cols[3],
                stage_ntt_cols[4], stage_ntt_cols[5], stage_ntt_cols[6], stage_ntt_cols[7]);
    }
    for (size_t i = 0; i < r->n; i++) {
        if (!has_micro(r->cases[i]))
            continue;
        stage_ntt_row(r->cases[i], "fwd", f, md);
        stage_ntt_row(r->cases[i], "inv", f, md);
    }
    /* a timed stage case's message is its micro-benchmarks' (a missing one, or
     * one that missed its noise target): the ratios above divide by them */
    for (size_t i = 0; i < r->n; i++) {
        const nb_case *c = r->cases[i];
        if (has_micro(c) && c->status == NB_CASE_OK && c->message[0])
            fprintf(f, "%s%s %s: %s\n", md ? "\n" : "  note: ", c->variant, c->label,
                    c->message);
    }
}

int nb_text_col_numeric(int k) { return k >= 4 && k <= 11; }

nb_status nb_text_cells(const nb_report *r, char (**out)[NB_TEXT_COLS][200])
{
    char(*cells)[NB_TEXT_COLS][200] = calloc(r->n ? r->n : 1, sizeof *cells);
    if (!cells)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "table: out of memory");
    nb_ceilings ceil;
    const int have = nb_report_ceilings(r, &ceil);
    for (size_t i = 0; i < r->n; i++) {
        case_cells(r->cases[i], cells[i]);
        nb_bound b; /* the class in the notes; the fractions in the section after */
        if (have && nb_case_bound(r->cases[i], &ceil, &b) && b.cls != NB_BOUND_UNKNOWN) {
            char *notes = cells[i][NB_TEXT_COLS - 1];
            const size_t u = strcmp(notes, "-") ? strlen(notes) : 0;
            snprintf(notes + u, 200 - u, "%s%s", u && notes[u - 1] != ' ' ? " " : "",
                     nb_bound_class_name(b.cls));
        }
    }
    *out = cells;
    return NB_OK;
}

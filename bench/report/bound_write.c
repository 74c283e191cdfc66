/* What a report says of its GPU cases (NTT, one-GPU stage) beyond their times: the ceilings
 * they are classified against, each case's bound (fractions of the copy
 * bandwidth, of the butterfly ceiling and of the launch floor, and the
 * class), the kernels its call launched with their resources and its
 * profiler pass when it has one, as the section after the table
 * (docs/cli.md); json.c and csv.c write them from the same two functions. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench/report/bound.h"
#include "bench/report/internal.h"

int nb_report_ceilings(const nb_report *r, nb_ceilings *c)
{
    if (r->has_ceilings) {
        *c = r->ceilings;
        return 1;
    }
    if (!r->has_env || !r->env.has_gpu)
        return 0;
    nb_ceilings_default(c, r->env.gpu_copy_Bps, r->env.sm_count, r->env.default_sm_mhz);
    return 1;
}

static unsigned word_bits_of(const nb_case *c)
{
    const param *p = nb_case_param_find(c, "word_bits");
    return p && p->type == P_INT && p->i == 32 ? 32 : 64;
}

/* A stage case's floors (nb_stage_floors) from its parameters and metrics;
 * 0 when it lacks them. */
static int stage_floors(const nb_case *c, double *bytes, double *butterflies)
{
    const param *ln = nb_case_param_find(c, "log_n"), *g = nb_case_param_find(c, "gpus");
    if (strcmp(c->tier, "stage") || !ln || ln->type != P_INT || (g && g->type == P_INT && g->i > 1))
        return 0;
    return nb_stage_floors((unsigned)ln->i, nb_case_metric_find(c, "ntt_fwd_limbs"),
                           nb_case_metric_find(c, "ntt_inv_limbs"),
                           nb_case_metric_find(c, "bytes_per_launch"), bytes, butterflies);
}

int nb_case_bound(const nb_case *c, const nb_ceilings *ceil, nb_bound *b)
{
    if (c->backend != NB_BACKEND_GPU || !c->has_result || !c->result.n_samples)
        return 0;
    const double t = c->result.stats.median;
    double bytes, butterflies;
    if (c->has_figures) {
        bytes = c->fig.coefficient_bytes;
        butterflies = c->fig.butterflies_per_s * t;
    } else if (!stage_floors(c, &bytes, &butterflies)) {
        return 0;
    }
    unsigned launches = 0;
    for (size_t i = 0; i < c->n_kernels; i++)
        launches += c->kernels[i].launches;
    nb_bound_classify(t, bytes, butterflies, word_bits_of(c), launches, ceil, b);
    if (c->has_profile)
        nb_bound_refine(b, nb_profile_dram_frac(&c->profile), nb_profile_issue_frac(&c->profile));
    return 1;
}

/* "Nsight Compute 2025.3.1.0, clocks locked to base, caches flushed before
 * each kernel" */
static void settings_text(const nb_profile *p, char *buf, size_t n)
{
    snprintf(buf, n, "Nsight Compute %s, clocks %s, caches %s", p->version[0] ? p->version : "?",
             p->clocks_locked ? "locked to base" : "unlocked",
             p->caches_flushed ? "flushed before each kernel" : "kept warm (not flushed)");
}

/* Appends to buf (length *u of n) what fmt prints. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void add(char *buf, size_t n, size_t *u, const char *fmt, ...)
{
    if (*u >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    const int k = vsnprintf(buf + *u, n - *u, fmt, ap);
    va_end(ap);
    *u = k < 0 ? n : *u + (size_t)k;
}

/* " 48 %" or " -" */
static void add_pct(char *buf, size_t n, size_t *u, double v)
{
    if (isfinite(v))
        add(buf, n, u, " %.0f %%", v);
    else
        add(buf, n, u, " -");
}

/* "fast_phase<...>: 16.60 us, DRAM 59 % (33.1 MB), L2 hit 41 %, issue slots 31 %,
 * pipes FMAHEAVY 48 % ALU 22 %, stalls long-scoreboard 52 % wait 11 %
 * mio-throttle 9 %" */
static void kernel_text(const nb_kernel_profile *k, char *buf, size_t n)
{
    size_t u = 0;
    buf[0] = '\0';
    if (isfinite(k->time_ns))
        add(buf, n, &u, "%s: %.2f us", k->name, k->time_ns * 1e-3);
    else
        add(buf, n, &u, "%s: -", k->name);
    if (k->launches > 1)
        add(buf, n, &u, " (%u launches)", k->launches);
    add(buf, n, &u, ", DRAM");
    add_pct(buf, n, &u, k->dram_pct);
    const double bytes = k->dram_read_bytes + k->dram_write_bytes;
    if (isfinite(bytes))
        add(buf, n, &u, " (%.1f MB)", bytes / 1e6);
    add(buf, n, &u, ", L2 hit");
    add_pct(buf, n, &u, k->l2_hit_pct);
    add(buf, n, &u, ", issue slots");
    add_pct(buf, n, &u, k->issue_pct);
    add(buf, n, &u, ", pipes");
    for (size_t i = 0; i < NB_PROFILE_PIPES && k->pipes[i].name[0]; i++) {
        char up[32];
        size_t j = 0;
        for (; k->pipes[i].name[j] && j + 1 < sizeof up; j++)
            up[j] = (char)toupper((unsigned char)k->pipes[i].name[j]);
        up[j] = '\0';
        add(buf, n, &u, " %s", up);
        add_pct(buf, n, &u, k->pipes[i].pct);
    }
    add(buf, n, &u, ", stalls");
    for (size_t i = 0; i < NB_PROFILE_STALLS && k->stalls[i].name[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s", k->stalls[i].name);
        for (char *c = name; *c; c++)
            *c = *c == '_' ? '-' : *c;
        add(buf, n, &u, " %s", name);
        add_pct(buf, n, &u, k->stalls[i].pct);
    }
}

/* A case's profiler settings and one line per kernel, each line opened by
 * `indent` and `bullet`. */
static void write_profile(FILE *f, const nb_case *c, const char *indent, const char *bullet)
{
    char line[600];
    settings_text(&c->profile, line, sizeof line);
    fprintf(f, "%sprofiler: %s\n", indent, line);
    for (size_t k = 0; k < c->profile.n_kernels; k++) {
        kernel_text(&c->profile.k[k], line, sizeof line);
        fprintf(f, "%s%s%s\n", indent, bullet, line);
    }
}

/* Markdown: the profiled cases after the bounds table, a list each. */
static void write_profiles_md(const nb_report *r, FILE *f)
{
    int any = 0;
    for (size_t i = 0; i < r->n; i++) {
        const nb_case *c = r->cases[i];
        if (!c->has_profile)
            continue;
        if (!any++)
            fputs("\n#### Profiler pass\n", f);
        fprintf(f, "\n%s %s %s:\n\n", c->tier, c->variant, c->label);
        write_profile(f, c, "", "- ");
    }
}

void nb_text_write_bounds(const nb_report *r, FILE *f, int md)
{
    nb_ceilings ceil;
    const int have = nb_report_ceilings(r, &ceil);
    size_t shown = 0;
    for (size_t i = 0; i < r->n; i++) {
        const nb_case *c = r->cases[i];
        nb_bound b;
        const int bounded = have && nb_case_bound(c, &ceil, &b);
        if (!bounded && c->kernels_state == 0 && !c->has_profile)
            continue;
        if (shown++ == 0) {
            char line[512] = "no GPU ceilings known";
            if (have)
                nb_ceilings_text(&ceil, line, sizeof line);
            fprintf(f, md ? "\n### Bounds and kernels\n\nCeilings: %s; bound at %.0f %% of "
                            "one (docs/methodology.md, \"Bounds\").\n\n"
                          : "\nBounds and kernels (ceilings: %s; bound at %.0f %% of one)\n",
                    line, 100.0 * NB_BOUND_THRESHOLD);
            if (md)
                fputs("| tier | variant | case | bound | kernels |\n"
                      "| --- | --- | --- | --- | --- |\n", f);
        }
        char name[256], bt[160] = "-";
        snprintf(name, sizeof name, "%s %s %s", c->tier, c->variant, c->label);
        if (bounded)
            nb_bound_text(&b, bt, sizeof bt);
        if (md)
            fprintf(f, "| %s | %s | %s | %s | ", c->tier, c->variant, c->label, bt);
        else
            fprintf(f, "  %s: %s\n", name, bt);
        for (size_t k = 0; k < c->n_kernels; k++) {
            char kt[320];
            nb_kernel_text(&c->kernels[k], kt, sizeof kt);
            fprintf(f, md ? "%s%s" : "      %s%s\n", md && k ? "; " : "", kt);
        }
        if (c->kernels_state == 2)
            fprintf(f, md ? "not reported: %s" : "      kernels not reported: %s\n",
                    c->kernels_why);
        if (md)
            fputs(" |\n", f);
        else if (c->has_profile)
            write_profile(f, c, "      ", "");
    }
    if (md)
        write_profiles_md(r, f);
}

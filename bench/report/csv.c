/* The CSV writer: one row per case, RFC 4180 quoting; a column per
 * parameter and metric key appearing in any case, in order of appearance,
 * but for a parameter named like a fixed column (the stage tier's "mode"),
 * which that column holds. 64-bit integers (seeds, prime and root lists) are
 * quoted text. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/report/bound.h"
#include "bench/report/internal.h"

void nb_csv_write_field(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n\r")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
}

static void csv_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.9g", v);
}

/* The fixed columns between the parameters and the metrics. */
static const char *const fixed[] = {
    "mode",          "launches_per_sample", "status",        "samples",
    "median_ns",     "mean_ns",             "min_ns",        "max_ns",
    "stddev_ns",     "noise_pct",           "p10_ns",        "p90_ns",
    "ci95_lo_ns",    "ci95_hi_ns",          "stop_reason",   "noise_target_met",
    "throttled",     "sets",                "flush",         "contended",
    "coefficient_bytes",
    "twiddle_bytes", "bandwidth_GBps",      "frac_copy",     "frac_peak",
    "butterflies_per_s", "frac_butterfly",  "launch_fraction", "bound",
    "kernels"};

static int is_fixed(const char *key)
{
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
        if (!strcmp(fixed[k], key))
            return 1;
    return 0;
}

/* Keys in order of first appearance across cases (pointers into the
 * cases), parameters named like a fixed column left out; *keys is allocated
 * (caller frees), no limit on their number. */
static nb_status collect_keys(const nb_report *r, int metrics, const char ***keys, size_t *n)
{
    size_t cap = 0;
    for (size_t i = 0; i < r->n; i++)
        cap += metrics ? r->cases[i]->n_metrics : r->cases[i]->n_params;
    *n = 0;
    *keys = malloc((cap ? cap : 1) * sizeof **keys);
    if (!*keys)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "CSV: out of memory");
    for (size_t i = 0; i < r->n; i++) {
        const nb_case *c = r->cases[i];
        size_t m = metrics ? c->n_metrics : c->n_params;
        for (size_t k = 0; k < m; k++) {
            const char *key = metrics ? c->metrics[k].key : c->params[k].key;
            if (!metrics && is_fixed(key))
                continue;
            size_t j = 0;
            while (j < *n && strcmp((*keys)[j], key) != 0)
                j++;
            if (j == *n)
                (*keys)[(*n)++] = key;
        }
    }
    return NB_OK;
}

/* Integers a spreadsheet would round (beyond 2^53) and seeds, whatever
 * their value, are written as quoted text: a seed column reads the same in
 * every row. */
static int quoted_int(const param *p)
{
    const long long lim = 1ll << 53;
    return p->i > lim || p->i < -lim || strcmp(p->key, "seed") == 0;
}

static void write_param(FILE *f, const nb_case *c, const char *key)
{
    for (size_t j = 0; j < c->n_params; j++) {
        const param *p = &c->params[j];
        if (strcmp(p->key, key) != 0)
            continue;
        if (p->type == P_INT && quoted_int(p))
            fprintf(f, "\"%lld\"", p->i);
        else if (p->type == P_INT)
            fprintf(f, "%lld", p->i);
        else if (p->type == P_STR && strcmp(p->key, "seed") == 0)
            fprintf(f, "\"%s\"", p->s); /* a decimal string: quoted like integer seeds */
        else if (p->type == P_STR)
            nb_csv_write_field(f, p->s);
        else if (p->type == P_REAL) {
            if (isfinite(p->r)) /* unknown: an empty field */
                fprintf(f, "%.*f", (int)p->i, p->r);
        } else {
            fputc('"', f);
            for (size_t m = 0; m < p->n; m++)
                fprintf(f, "%s%llu", m ? ";" : "", (unsigned long long)p->list[m]);
            fputc('"', f);
        }
        return;
    }
}

/* The bound columns of a GPU NTT case (empty otherwise): the fractions of
 * the butterfly ceiling and of the launch floor, the class, and the kernels
 * as their text joined by ';' (or "not reported: why"). */
static void write_bound(FILE *f, const nb_case *c, const nb_ceilings *ceil)
{
    nb_bound b;
    const int have = ceil && nb_case_bound(c, ceil, &b);
    fputc(',', f);
    if (have)
        csv_num(f, b.frac_butterfly);
    fputc(',', f);
    if (have)
        csv_num(f, b.frac_launch);
    fprintf(f, ",%s,", have ? nb_bound_class_name(b.cls) : "");
    char all[NB_CASE_MAX_KERNELS * 330] = "";
    size_t u = 0;
    for (size_t k = 0; k < c->n_kernels && u < sizeof all; k++) {
        char kt[320];
        nb_kernel_text(&c->kernels[k], kt, sizeof kt);
        u += (size_t)snprintf(all + u, sizeof all - u, "%s%s", k ? "; " : "", kt);
    }
    if (c->kernels_state == 2)
        snprintf(all, sizeof all, "not reported: %s", c->kernels_why);
    nb_csv_write_field(f, all);
}

/* The fixed columns of one case (mode .. butterflies_per_s). */
static void write_result(FILE *f, const nb_case *c)
{
    const nb_bench_result *r_ = c->has_result ? &c->result : NULL;
    const nb_stats *s = r_ && r_->n_samples ? &r_->stats : NULL;
    const param *pm = nb_case_param_find(c, "mode"); /* a case not timed may still name it */
    fputc(',', f);
    if (r_)
        fputs(nb_mode_name(r_->mode), f);
    else if (pm && pm->type == P_STR && pm->s)
        nb_csv_write_field(f, pm->s);
    fputc(',', f);
    if (r_)
        fprintf(f, "%zu", r_->launches_per_sample);
    fprintf(f, ",%s,", nb_case_status_name(c->status));
    if (s)
        fprintf(f, "%zu", s->n);
    const double vals[] = {s ? s->median * 1e9 : NAN, s ? s->mean * 1e9 : NAN,
                           s ? s->min * 1e9 : NAN,    s ? s->max * 1e9 : NAN,
                           s ? s->stddev * 1e9 : NAN, s ? s->noise_pct : NAN,
                           s ? s->p10 * 1e9 : NAN,    s ? s->p90 * 1e9 : NAN,
                           s ? s->ci_lo * 1e9 : NAN,  s ? s->ci_hi * 1e9 : NAN};
    for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
        fputc(',', f);
        csv_num(f, vals[k]);
    }
    fprintf(f, ",%s,%s,", s ? nb_stop_reason_name(r_->stop) : "",
            s ? (r_->noise_target_met ? "true" : "false") : "");
    if (r_)
        fprintf(f, "%zu,%zu,%s,%s", r_->throttled_samples, r_->cache.sets,
                r_->cache.flush ? "true" : "false",
                r_->contention.measured ? (r_->contention.contended ? "true" : "false") : "");
    else
        fputs(",,,", f);
    const nb_ntt_figures *g = c->has_figures ? &c->fig : NULL;
    const double fv[] = {g ? g->coefficient_bytes : NAN, g ? g->twiddle_bytes : NAN,
                         g ? g->bandwidth_Bps / 1e9 : NAN, g ? g->frac_copy : NAN,
                         g ? g->frac_peak : NAN, g ? g->butterflies_per_s : NAN};
    for (size_t k = 0; k < sizeof fv / sizeof fv[0]; k++) {
        fputc(',', f);
        csv_num(f, fv[k]);
    }
}

nb_status nb_report_write_csv(const nb_report *r, FILE *f)
{
    const char **pkeys = NULL, **mkeys = NULL;
    size_t np = 0, nm = 0;
    nb_ceilings ceil;
    const int have_ceilings = nb_report_ceilings(r, &ceil);
    nb_status st = collect_keys(r, 0, &pkeys, &np);
    if (st == NB_OK)
        st = collect_keys(r, 1, &mkeys, &nm);
    if (st != NB_OK) {
        free(pkeys);
        return st;
    }
    fputs("tier,variant,backend,label", f);
    for (size_t k = 0; k < np; k++) { /* keys are the caller's: quoted like any field */
        fputc(',', f);
        nb_csv_write_field(f, pkeys[k]);
    }
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
        fprintf(f, ",%s", fixed[k]);
    for (size_t k = 0; k < nm; k++) {
        fputc(',', f);
        nb_csv_write_field(f, mkeys[k]);
    }
    fputs(",cache_state,message\n", f);
    for (size_t i = 0; i < r->n; i++) {
        const nb_case *c = r->cases[i];
        fprintf(f, "%s,", c->tier);
        nb_csv_write_field(f, c->variant);
        fprintf(f, ",%s,", nb_backend_name(c->backend));
        nb_csv_write_field(f, c->label);
        for (size_t k = 0; k < np; k++) {
            fputc(',', f);
            write_param(f, c, pkeys[k]);
        }
        write_result(f, c);
        write_bound(f, c, have_ceilings ? &ceil : NULL);
        for (size_t k = 0; k < nm; k++) {
            fputc(',', f);
            for (size_t j = 0; j < c->n_metrics; j++)
                if (strcmp(c->metrics[j].key, mkeys[k]) == 0) {
                    csv_num(f, c->metrics[j].v);
                    break;
                }
        }
        fprintf(f, ",%s,", nb_cache_state_name(c->cache));
        nb_csv_write_field(f, c->message);
        fputc('\n', f);
    }
    free(pkeys);
    free(mkeys);
    return NB_OK;
}


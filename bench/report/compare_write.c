/* Writers of a comparison (compare.h): terminal table, markdown, CSV (one row
 * per matched case) and JSON (schema "nttbench-compare", version 2). A row
 * whose two sides differ in variant or label (compare --match word) shows
 * both, new first. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/timing/rank_stats.h"
#include "bench/report/compare.h"
#include "bench/report/internal.h" /* nb_csv_write_field, nb_text_fmt_time */

static void fmt_p(char *buf, size_t n, double p)
{
    if (!isfinite(p))
        snprintf(buf, n, "-");
    else if (p < 1e-99)
        snprintf(buf, n, "<1e-99");
    else
        snprintf(buf, n, "%.2g", p);
}

static void fmt_ratio(char *buf, size_t n, const nb_compare_test *t)
{
    if (!isfinite(t->ratio))
        snprintf(buf, n, "-");
    else if (!t->done)
        snprintf(buf, n, "%.4f (medians)", t->ratio);
    else
        snprintf(buf, n, "%.4f [%.4f, %.4f]", t->ratio, t->lo, t->hi);
}

enum { NCOL = 10 };
static const char *const cols[NCOL] = {"tier",  "variant", "case",   "base",          "new",
                                       "ratio new/base [95% CI]", "p",      "cycles ratio",
                                       "verdict", "notes"};

static void row_cells(const nb_compare_row *r, char cell[NCOL][200])
{
    snprintf(cell[0], 200, "%s", r->base->tier);
    if (strcmp(r->base->variant, r->new_->variant))
        snprintf(cell[1], 200, "%.90s / %.90s", r->new_->variant, r->base->variant);
    else
        snprintf(cell[1], 200, "%s", r->base->variant);
    if (strcmp(r->base->label, r->new_->label))
        snprintf(cell[2], 200, "%.90s / %.90s", r->new_->label, r->base->label);
    else
        snprintf(cell[2], 200, "%s", r->base->label);
    nb_text_fmt_time(cell[3], 200, r->base_median_ns * 1e-9);
    nb_text_fmt_time(cell[4], 200, r->new_median_ns * 1e-9);
    fmt_ratio(cell[5], 200, &r->time);
    fmt_p(cell[6], 200, r->time.p);
    if (r->cycles.done) {
        char p[32];
        fmt_p(p, sizeof p, r->cycles.p);
        snprintf(cell[7], 200, "%.4f (p %s)", r->cycles.ratio, p);
    } else {
        snprintf(cell[7], 200, "-");
    }
    snprintf(cell[8], 200, "%s", nb_verdict_name(r->verdict));
    snprintf(cell[9], 200, "%s", r->note);
}

static const char *cycle_sources(const nb_comparison *c)
{
    int seen[3] = {0, 0, 0};
    for (size_t i = 0; i < c->n_rows; i++)
        if (c->rows[i].time.done)
            seen[c->rows[i].cycle_source] = 1;
    if (seen[NB_CLOCK_PER_SAMPLE] && !seen[NB_CLOCK_RECORDED] && !seen[NB_CLOCK_NONE])
        return "each sample x its own SM clock (per-sample clocks)";
    if (seen[NB_CLOCK_RECORDED] && !seen[NB_CLOCK_NONE])
        return seen[NB_CLOCK_PER_SAMPLE]
                   ? "per-sample clocks where both files have them, else each case's recorded clock"
                   : "each case's recorded SM clock (no per-sample clocks stored)";
    if (seen[NB_CLOCK_PER_SAMPLE] || seen[NB_CLOCK_RECORDED])
        return "per-sample or recorded SM clocks; none for CPU cases";
    return "not tested (no SM clocks: CPU cases)";
}

static void write_header(const nb_comparison *c, FILE *f, int md)
{
    const char *b = md ? "**" : "";
    const json_t *ea = nb_result_file_env(c->base), *eb = nb_result_file_env(c->new_);
    const json_t *sides[2] = {ea, eb};
    const char *names[2] = {"base", "new"};
    const nb_result_file *files[2] = {c->base, c->new_};
    for (int k = 0; k < 2; k++) {
        const json_t *g = nb_json_path(sides[k], "gpu.name"), *h = nb_json_path(sides[k], "host.cpu");
        const json_t *t = nb_json_path(sides[k], "timestamp_utc");
        const json_t *cm = nb_json_path(sides[k], "git_commit");
        fprintf(f, "%s%s:%s %s (%s; commit %s; %s)%s\n", b, names[k], b,
                nb_result_file_path(files[k]),
                json_is_string(g) ? json_string_value(g)
                                  : json_is_string(h) ? json_string_value(h) : "unknown device",
                json_is_string(cm) ? json_string_value(cm) : "unknown",
                json_is_string(t) ? json_string_value(t) : "no date", md ? "  " : "");
    }
    fprintf(f, "\nratio = new/base: Hodges-Lehmann estimate on log times with its %.0f%% "
               "(Moses) interval; p = two-sided Mann-Whitney U (exact below %u samples without "
               "ties, else normal approximation with tie correction); cycles = time x SM clock: "
               "%s. A change counts when p < %g and the ratio is beyond +-%g%%.\n\n",
            100 * c->opts.level, NB_MWU_EXACT_MAX_N, cycle_sources(c), c->opts.alpha,
            c->opts.threshold_pct);
    if (c->opts.match == NB_MATCH_WORD)
        fprintf(f, "Matched by word size: each 32-bit case of new against the 64-bit case of "
                   "base of the same tier, direction and log N whose log Q is nearest (within "
                   "one prime); variant and case read new / base.\n\n");
}

static void write_lists(const nb_comparison *c, FILE *f, int md)
{
    const char *bullet = md ? "- " : "  ";
    if (c->n_env_diffs) {
        fprintf(f, "\n%senvironment and option differences%s (timings may differ for these "
                   "reasons):\n%s",
                md ? "**" : "", md ? "**" : "", md ? "\n" : "");
        for (size_t i = 0; i < c->n_env_diffs; i++)
            fprintf(f, "%s%s: %s -> %s\n", bullet, c->env_diffs[i].field, c->env_diffs[i].base,
                    c->env_diffs[i].new_);
    }
    const nb_rf_case *const *lists[2] = {c->unmatched_base, c->unmatched_new};
    size_t counts[2] = {c->n_unmatched_base, c->n_unmatched_new};
    const char *which[2] = {"only in base", "only in new"};
    for (int k = 0; k < 2; k++) {
        if (!counts[k])
            continue;
        fprintf(f, "\n%s%s%s (%zu unmatched):\n%s", md ? "**" : "", which[k], md ? "**" : "",
                counts[k], md ? "\n" : "");
        for (size_t i = 0; i < counts[k]; i++)
            fprintf(f, "%s%s %s %s\n", bullet, lists[k][i]->tier, lists[k][i]->variant,
                    lists[k][i]->label);
    }
    fprintf(f, "\n%zu matched: ", c->n_rows);
    for (int v = 0; v < NB_VERDICT_COUNT; v++)
        fprintf(f, "%s%zu %s", v ? ", " : "", c->counts[v], nb_verdict_name((nb_verdict)v));
    fputc('\n', f);
}

static nb_status write_text(const nb_comparison *c, FILE *f, int md)
{
    char(*cells)[NCOL][200] = calloc(c->n_rows ? c->n_rows : 1, sizeof *cells);
    if (!cells)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "compare: out of memory");
    size_t w[NCOL];
    for (int k = 0; k < NCOL; k++)
        w[k] = strlen(cols[k]);
    for (size_t i = 0; i < c->n_rows; i++) {
        row_cells(&c->rows[i], cells[i]);
        for (int k = 0; k < NCOL; k++)
            if (strlen(cells[i][k]) > w[k])
                w[k] = strlen(cells[i][k]);
    }
    write_header(c, f, md);
    for (size_t i = 0; i <= c->n_rows; i++) {
        for (int k = 0; k < NCOL; k++) {
            const char *s = i == 0 ? cols[k] : cells[i - 1][k];
            if (md)
                fprintf(f, "%s %s", k ? "" : "|", s);
            else
                fprintf(f, k >= 3 && k <= 7 ? "%*s  " : "%-*s  ", (int)w[k], s);
            if (md)
                fputs(" |", f);
        }
        fputc('\n', f);
        if (md && i == 0) {
            fputs("|", f);
            for (int k = 0; k < NCOL; k++)
                fputs(k >= 3 && k <= 7 ? " ---: |" : " --- |", f);
            fputc('\n', f);
        }
    }
    free(cells);
    write_lists(c, f, md);
    return NB_OK;
}

static void csv_num(FILE *f, double v)
{
    fputc(',', f);
    if (isfinite(v))
        fprintf(f, "%.9g", v);
}

static nb_status write_csv(const nb_comparison *c, FILE *f)
{
    fputs("tier,variant,label,base_median_ns,new_median_ns,base_samples,new_samples,ratio,"
          "ratio_ci_lo,ratio_ci_hi,p,cycle_source,cycle_ratio,cycle_ci_lo,cycle_ci_hi,cycle_p,"
          "base_sm_clock_mhz,new_sm_clock_mhz,verdict,note,new_variant,new_label\n", f);
    for (size_t i = 0; i < c->n_rows; i++) {
        const nb_compare_row *r = &c->rows[i];
        nb_csv_write_field(f, r->base->tier);
        fputc(',', f);
        nb_csv_write_field(f, r->base->variant);
        fputc(',', f);
        nb_csv_write_field(f, r->base->label);
        csv_num(f, r->base_median_ns);
        csv_num(f, r->new_median_ns);
        fprintf(f, ",%zu,%zu", r->base->n_samples, r->new_->n_samples);
        csv_num(f, r->time.ratio);
        csv_num(f, r->time.lo);
        csv_num(f, r->time.hi);
        csv_num(f, r->time.p);
        fprintf(f, ",%s", nb_clock_source_name(r->cycle_source));
        csv_num(f, r->cycles.done ? r->cycles.ratio : NAN);
        csv_num(f, r->cycles.lo);
        csv_num(f, r->cycles.hi);
        csv_num(f, r->cycles.p);
        csv_num(f, r->base_clock_mhz);
        csv_num(f, r->new_clock_mhz);
        fprintf(f, ",%s,", nb_verdict_name(r->verdict));
        nb_csv_write_field(f, r->note);
        fputc(',', f);
        nb_csv_write_field(f, r->new_->variant);
        fputc(',', f);
        nb_csv_write_field(f, r->new_->label);
        fputc('\n', f);
    }
    return NB_OK;
}

static json_t *jnum(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *test_json(const nb_compare_test *t)
{
    return json_pack("{s:b, s:o, s:o, s:o, s:o, s:s}", "tested", t->done, "ratio",
                     jnum(t->ratio), "ci_lo", jnum(t->done ? t->lo : NAN), "ci_hi",
                     jnum(t->done ? t->hi : NAN), "p", jnum(t->done ? t->p : NAN), "verdict",
                     t->done ? nb_verdict_name(t->verdict) : "not-tested");
}

static json_t *comparison_json(const nb_comparison *c)
{
    json_t *cases = json_array();
    for (size_t i = 0; i < c->n_rows; i++) {
        const nb_compare_row *r = &c->rows[i];
        json_t *cy = test_json(&r->cycles);
        json_object_set_new(cy, "clock_source", json_string(nb_clock_source_name(r->cycle_source)));
        json_array_append_new(
            cases, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:I, s:I, s:o, s:o, s:o, "
                             "s:o, s:o, s:s, s:s}",
                             "tier", r->base->tier, "variant", r->base->variant, "label",
                             r->base->label, "new_variant", r->new_->variant, "new_label",
                             r->new_->label, "key", r->base->key, "base_median_ns",
                             jnum(r->base_median_ns), "new_median_ns", jnum(r->new_median_ns),
                             "base_samples", (json_int_t)r->base->n_samples, "new_samples",
                             (json_int_t)r->new_->n_samples, "time", test_json(&r->time),
                             "cycles", cy, "base_sm_clock_mhz", jnum(r->base_clock_mhz),
                             "new_sm_clock_mhz", jnum(r->new_clock_mhz), "noise_target_met",
                             json_boolean(r->base->noise_target_met &&
                                          r->new_->noise_target_met),
                             "verdict", nb_verdict_name(r->verdict), "note", r->note));
    }
    json_t *diffs = json_array(), *ub = json_array(), *un = json_array(), *counts = json_object();
    for (size_t i = 0; i < c->n_env_diffs; i++)
        json_array_append_new(diffs, json_pack("{s:s, s:s, s:s}", "field", c->env_diffs[i].field,
                                               "base", c->env_diffs[i].base, "new",
                                               c->env_diffs[i].new_));
    for (size_t i = 0; i < c->n_unmatched_base; i++)
        json_array_append_new(ub, json_string(c->unmatched_base[i]->key));
    for (size_t i = 0; i < c->n_unmatched_new; i++)
        json_array_append_new(un, json_string(c->unmatched_new[i]->key));
    for (int v = 0; v < NB_VERDICT_COUNT; v++)
        json_object_set_new(counts, nb_verdict_name((nb_verdict)v),
                            json_integer((json_int_t)c->counts[v]));
    json_object_set_new(counts, "regression", json_boolean(nb_comparison_regressed(c)));
    return json_pack("{s:s, s:i, s:s, s:s, s:{s:s, s:s, s:s, s:f, s:f, s:f, s:I}, s:o, s:o, "
                     "s:o, s:o, s:o}",
                     "schema", "nttbench-compare", "schema_version", 2, "base",
                     nb_result_file_path(c->base), "new", nb_result_file_path(c->new_), "method",
                     "match", c->opts.match == NB_MATCH_WORD ? "word" : "same", "ratio", "Hodges-Lehmann estimate of new/base on log times, Moses interval",
                     "test", "two-sided Mann-Whitney U", "threshold_pct", c->opts.threshold_pct,
                     "alpha", c->opts.alpha, "level", c->opts.level, "min_samples",
                     (json_int_t)c->opts.min_samples, "cases", cases,
                     "environment_differences", diffs, "unmatched_base", ub, "unmatched_new", un,
                     "summary", counts);
}

nb_status nb_comparison_write(const nb_comparison *c, const char *fmt, FILE *f)
{
    if (!c || !fmt || !f)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_comparison_write: NULL argument");
    if (!strcmp(fmt, "table"))
        return write_text(c, f, 0);
    if (!strcmp(fmt, "md"))
        return write_text(c, f, 1);
    if (!strcmp(fmt, "csv"))
        return write_csv(c, f);
    if (!strcmp(fmt, "json")) {
        json_t *j = comparison_json(c);
        if (!j)
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "compare: cannot build JSON");
        int rc = json_dumpf(j, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        json_decref(j);
        fputc('\n', f);
        return rc ? nb_set_error(NB_ERR_IO, "cannot write JSON") : NB_OK;
    }
    return nb_set_error(NB_ERR_INVALID_ARG, "compare: unknown format '%s'", fmt);
}

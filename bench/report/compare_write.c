/* Writers of a comparison (compare.h): terminal table, markdown, CSV (one row
 * per matched case) and JSON (schema "nttbench-compare", version 3). Each row
 * says which variance its interval covers; a row whose two sides differ in
 * variant or label (compare --match word) shows both, new first. */
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

/* What a row's interval covers, in a few words: "within-run", "+-1.0 %/run
 * assumed", "3+3 runs". */
static void source_text(const nb_compare_row *r, char *buf, size_t n)
{
    if (!r->time.done)
        snprintf(buf, n, "-");
    else if (r->source == NB_VARIANCE_RUNS)
        snprintf(buf, n, "%zu+%zu runs", r->base_runs, r->new_runs);
    else if (r->source == NB_VARIANCE_FLOOR)
        snprintf(buf, n, "+-%.3g%%/run assumed", r->run_noise_pct);
    else
        snprintf(buf, n, "within-run");
}

enum { NCOL = 11, CELL = 340 };
static const char *const cols[NCOL] = {"tier",  "variant", "case",   "base",          "new",
                                       "ratio new/base [95% CI]", "interval covers", "p",
                                       "cycles ratio", "verdict", "notes"};

static void row_cells(const nb_compare_row *r, char cell[NCOL][CELL])
{
    snprintf(cell[0], CELL, "%s", r->base->tier);
    if (strcmp(r->base->variant, r->new_->variant))
        snprintf(cell[1], CELL, "%.90s / %.90s", r->new_->variant, r->base->variant);
    else
        snprintf(cell[1], CELL, "%.200s", r->base->variant);
    if (strcmp(r->base->label, r->new_->label))
        snprintf(cell[2], CELL, "%.90s / %.90s", r->new_->label, r->base->label);
    else
        snprintf(cell[2], CELL, "%.200s", r->base->label);
    nb_text_fmt_time(cell[3], CELL, r->base_median_ns * 1e-9);
    nb_text_fmt_time(cell[4], CELL, r->new_median_ns * 1e-9);
    fmt_ratio(cell[5], CELL, &r->time);
    source_text(r, cell[6], CELL);
    fmt_p(cell[7], CELL, r->time.p);
    if (r->cycles.done) {
        char p[32];
        fmt_p(p, sizeof p, r->cycles.p);
        snprintf(cell[8], CELL, "%.4f (p %s)", r->cycles.ratio, p);
    } else {
        snprintf(cell[8], CELL, "-");
    }
    snprintf(cell[9], CELL, "%s", nb_verdict_name(r->verdict));
    snprintf(cell[10], CELL, "%s", r->note);
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
    const nb_result_file *const *more[2] = {c->base_files, c->new_files};
    const size_t n_more[2] = {c->n_base_files, c->n_new_files};
    for (int k = 0; k < 2; k++) {
        const json_t *g = nb_json_path(sides[k], "gpu.name"), *h = nb_json_path(sides[k], "host.cpu");
        const json_t *t = nb_json_path(sides[k], "timestamp_utc");
        const json_t *cm = nb_json_path(sides[k], "git_commit");
        fprintf(f, "%s%s:%s %s (%s; commit %s; %s)", b, names[k], b,
                nb_result_file_path(files[k]),
                json_is_string(g) ? json_string_value(g)
                                  : json_is_string(h) ? json_string_value(h) : "unknown device",
                json_is_string(cm) ? json_string_value(cm) : "unknown",
                json_is_string(t) ? json_string_value(t) : "no date");
        for (size_t i = 1; i < n_more[k]; i++)
            fprintf(f, "%s %s", i == 1 ? "; repeated runs:" : ",", nb_result_file_path(more[k][i]));
        fprintf(f, "%s\n", md ? "  " : "");
    }
    fprintf(f, "\nratio = new/base with its %.0f%% interval, which covers (column 'interval "
               "covers'):\n"
               "%s within-run: the samples of one run a side only: Hodges-Lehmann estimate on "
               "log times, Moses interval, p = two-sided Mann-Whitney U;\n"
               "%s assumed: that interval widened by the run-to-run noise of one run's median "
               "(--run-noise; default GPU %.3g%%, CPU %.3g%%, or the spread of the samples of "
               "a run that missed its noise target when wider), normal quantile;\n"
               "%s K+K runs: the mean of the runs' log medians, their spread pooled with the "
               "assumed noise (as %g degrees of freedom, unless the runs spread significantly "
               "more), Student's t.\n"
               "cycles = time x SM clock: %s. A change counts when p < %g (with one run a "
               "side, p is the larger of that test's and the within-run one) and the ratio is "
               "beyond +-%g%%; 'same' needs the interval within that, or every run at a "
               "noise target no looser than that (repeated runs spread no more) and the ratio "
               "within it; a contended case is %s.\n\n",
            100 * c->opts.level, md ? "-" : " ", md ? "-" : " ", NB_RUN_NOISE_GPU_PCT,
            NB_RUN_NOISE_CPU_PCT, md ? "-" : " ", NB_RUN_NOISE_PRIOR_DF, cycle_sources(c),
            c->opts.alpha, c->opts.threshold_pct,
            c->opts.strict ? "judged like the others (--strict)"
                           : "not judged (verdict 'contended'; --strict judges it)");
    if (c->opts.match == NB_MATCH_WORD)
        fprintf(f, "Matched by word size: each 32-bit case of new against the 64-bit case of "
                   "base of the same tier, direction or stage (a set X-w32 against X or X-w64) "
                   "and log N whose log Q is nearest (within one prime); variant and case read "
                   "new / base.\n\n");
    if (c->opts.ignored && c->opts.ignored[0]) {
        fputs("Matched without:", f);
        for (size_t i = 0; c->opts.ignored[i]; i++)
            fprintf(f, "%s %s", i ? "," : "", c->opts.ignored[i]);
        fputs(" (--ignore); where the pair differs, variant and case read new / base.\n\n", f);
    }
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
    if (c->n_run_diffs) {
        fprintf(f, "\n%sruns pooled on one side whose environment or options differ from that "
                   "side's first run%s (they are taken as repeats of one experiment):\n%s",
                md ? "**" : "", md ? "**" : "", md ? "\n" : "");
        for (size_t i = 0; i < c->n_run_diffs; i++)
            fprintf(f, "%s%s: %s (first run) -> %s\n", bullet, c->run_diffs[i].field,
                    c->run_diffs[i].base, c->run_diffs[i].new_);
    }
    const nb_rf_case *const *lists[2] = {c->unmatched_base, c->unmatched_new};
    size_t counts[2] = {c->n_unmatched_base, c->n_unmatched_new};
    const char *which[2] = {"only in base", "only in new"};
    for (int k = 0; k < 2; k++) {
        if (!counts[k])
            continue;
        fprintf(f, "\n%s%s%s (%zu unmatched):\n%s", md ? "**" : "", which[k], md ? "**" : "",
                counts[k], md ? "\n" : "");
        for (size_t i = 0; i < counts[k]; i++) {
            char why[400];
            /* the nearest case, when the list is short enough to search for each */
            nb_compare_why_unmatched(lists[k][i], k ? c->base : c->new_, lists[1 - k],
                                     counts[1 - k], k == 0, &c->opts, counts[k] <= 16, why,
                                     sizeof why);
            fprintf(f, "%s%s %s %s%s\n", bullet, lists[k][i]->tier, lists[k][i]->variant,
                    lists[k][i]->label, why);
        }
    }
    fprintf(f, "\n%zu matched: ", c->n_rows);
    for (int v = 0; v < NB_VERDICT_COUNT; v++)
        fprintf(f, "%s%zu %s", v ? ", " : "", c->counts[v], nb_verdict_name((nb_verdict)v));
    fputc('\n', f);
    const size_t broken = nb_comparison_broken(c);
    if (broken)
        fprintf(f, "%s%zu case%s that ran in base failed %s check or erred in new (status "
                   "verify-failed or error)%s\n",
                md ? "\n" : "", broken, broken == 1 ? "" : "s", broken == 1 ? "its" : "their",
                c->opts.match == NB_MATCH_WORD ? "" : ": a regression (exit 1)");
}

static nb_status write_text(const nb_comparison *c, FILE *f, int md)
{
    char(*cells)[NCOL][CELL] = calloc(c->n_rows ? c->n_rows : 1, sizeof *cells);
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
                fprintf(f, k >= 3 && k <= 8 ? "%*s  " : "%-*s  ", (int)w[k], s);
            if (md)
                fputs(" |", f);
        }
        fputc('\n', f);
        if (md && i == 0) {
            fputs("|", f);
            for (int k = 0; k < NCOL; k++)
                fputs(k >= 3 && k <= 8 ? " ---: |" : " --- |", f);
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
          "base_sm_clock_mhz,new_sm_clock_mhz,verdict,note,new_variant,new_label,"
          "interval_source,base_runs,new_runs,run_noise_pct,run_sd_pct,df,within_ratio,"
          "within_ci_lo,within_ci_hi,within_p,contended\n", f);
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
        fprintf(f, ",%s,%zu,%zu", r->time.done ? nb_variance_source_name(r->source) : "",
                r->base_runs, r->new_runs);
        csv_num(f, r->run_noise_pct);
        csv_num(f, r->run_sd_pct);
        csv_num(f, r->df);
        csv_num(f, r->within.done ? r->within.ratio : NAN);
        csv_num(f, r->within.lo);
        csv_num(f, r->within.hi);
        csv_num(f, r->within.p);
        fprintf(f, ",%s\n", r->contended ? "true" : "false");
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
        json_t *interval = json_pack("{s:s, s:I, s:I, s:o, s:o, s:o}", "covers",
                                     nb_variance_source_name(r->source), "base_runs",
                                     (json_int_t)r->base_runs, "new_runs",
                                     (json_int_t)r->new_runs, "run_noise_pct",
                                     jnum(r->run_noise_pct), "run_sd_pct", jnum(r->run_sd_pct),
                                     "df", jnum(r->df));
        json_t *row = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:I, s:I, s:o, s:o, s:o, "
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
                             "verdict", nb_verdict_name(r->verdict), "note", r->note);
        json_object_set_new(row, "within_run", test_json(&r->within));
        json_object_set_new(row, "interval", r->time.done ? interval : json_null());
        if (!r->time.done)
            json_decref(interval);
        json_object_set_new(row, "contended", json_boolean(r->contended != 0));
        json_array_append_new(cases, row);
    }
    json_t *diffs = json_array(), *ub = json_array(), *un = json_array(), *counts = json_object();
    for (size_t i = 0; i < c->n_env_diffs; i++)
        json_array_append_new(diffs, json_pack("{s:s, s:s, s:s}", "field", c->env_diffs[i].field,
                                               "base", c->env_diffs[i].base, "new",
                                               c->env_diffs[i].new_));
    json_t *run_diffs = json_array();
    for (size_t i = 0; i < c->n_run_diffs; i++)
        json_array_append_new(run_diffs, json_pack("{s:s, s:s, s:s}", "field",
                                                   c->run_diffs[i].field, "first_run",
                                                   c->run_diffs[i].base, "this_run",
                                                   c->run_diffs[i].new_));
    for (size_t i = 0; i < c->n_unmatched_base; i++)
        json_array_append_new(ub, json_string(c->unmatched_base[i]->key));
    for (size_t i = 0; i < c->n_unmatched_new; i++)
        json_array_append_new(un, json_string(c->unmatched_new[i]->key));
    for (int v = 0; v < NB_VERDICT_COUNT; v++)
        json_object_set_new(counts, nb_verdict_name((nb_verdict)v),
                            json_integer((json_int_t)c->counts[v]));
    json_object_set_new(counts, "regression", json_boolean(nb_comparison_regressed(c)));
    json_object_set_new(counts, "broken_in_new",
                        json_integer((json_int_t)nb_comparison_broken(c)));
    json_t *bf = json_array(), *nf = json_array();
    for (size_t i = 0; i < c->n_base_files; i++)
        json_array_append_new(bf, json_string(nb_result_file_path(c->base_files[i])));
    for (size_t i = 0; i < c->n_new_files; i++)
        json_array_append_new(nf, json_string(nb_result_file_path(c->new_files[i])));
    json_t *method = json_pack(
        "{s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:I, s:o, s:f, s:f, s:f, s:b}", "match",
        c->opts.match == NB_MATCH_WORD ? "word" : "same", "ratio",
        "within-run: Hodges-Lehmann estimate of new/base on log times, Moses interval; "
        "repeated runs: mean of the runs' log medians",
        "test", "within-run: two-sided Mann-Whitney U; with the run-to-run noise: two-sided "
        "t on the log ratio (normal with one run a side)",
        "interval", "covers the within-run variance, plus the assumed run-to-run noise with "
        "one run a side, or the spread of repeated runs pooled with it",
        "threshold_pct", c->opts.threshold_pct, "alpha", c->opts.alpha, "level", c->opts.level,
        "min_samples", (json_int_t)c->opts.min_samples, "run_noise_pct",
        c->opts.run_noise_pct >= 0 ? json_real(c->opts.run_noise_pct) : json_null(),
        "default_run_noise_gpu_pct", NB_RUN_NOISE_GPU_PCT, "default_run_noise_cpu_pct",
        NB_RUN_NOISE_CPU_PCT, "run_noise_prior_df", NB_RUN_NOISE_PRIOR_DF, "strict",
        c->opts.strict);
    json_t *ignored = json_array();
    for (size_t i = 0; c->opts.ignored && c->opts.ignored[i]; i++)
        json_array_append_new(ignored, json_string(c->opts.ignored[i]));
    json_object_set_new(method, "ignored", ignored);
    return json_pack("{s:s, s:i, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                     "schema", "nttbench-compare", "schema_version", 3, "base",
                     nb_result_file_path(c->base), "new", nb_result_file_path(c->new_),
                     "base_files", bf, "new_files", nf, "method", method, "cases", cases,
                     "environment_differences", diffs, "run_differences", run_diffs,
                     "unmatched_base", ub, "unmatched_new", un, "summary", counts);
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

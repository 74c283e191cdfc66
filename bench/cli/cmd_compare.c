/* `nttbench compare BASE.json NEW.json [--threshold PCT] [--alpha A]`: the
 * comparison of two run reports (bench/report/compare.h) as a table,
 * markdown, CSV or JSON. Exit 0 when no case is slower beyond the threshold,
 * 1 when one is, 2 on bad input (unreadable or malformed file, wrong schema,
 * nothing matches), 3 when the output cannot be written. */
#include <string.h>

#include "bench/cli/cli.h"
#include "bench/cli/paper.h"
#include "bench/report/compare.h"

static const nb_cli_option compare_options[] = {
    {"threshold", 1, "PCT    changes within +-PCT % count as the same (1)"},
    {"alpha", 1, "A      significance level of the Mann-Whitney test (0.01)"},
    {"min-samples", 1, "N      fewer stored samples: insufficient data (5)"},
    {"match", 1, "M      same: the same cases (default); word: each 32-bit case of NEW\n"
                 "                         against the 64-bit case of BASE of the same tier,\n"
                 "                         direction and log N, log Q nearest within a prime"},
    {"filter", 1, "REGEX  compare only the cases whose name (as `run --list` prints it)\n"
                  "                         matches; repeatable: any"},
    {NULL, 0, NULL},
};

void nb_cmd_compare_help(FILE *f)
{
    fprintf(f, "usage: nttbench compare BASE.json NEW.json [--threshold PCT] [--alpha A]\n"
               "                        [--min-samples N] [--match same|word] [--filter REGEX]\n"
               "                        [--format table|md|csv|json]\n\n"
               "Matches the cases of two run reports (tier, variant, cache state, mode,\n"
               "parameters) and prints per case both medians, the ratio new/base with its 95%%\n"
               "interval (Hodges-Lehmann on log times), the two-sided Mann-Whitney p-value of\n"
               "the times and of the cycles (time x SM clock) and a verdict: faster, slower,\n"
               "same, clock-change, noisy or insufficient-data. Environment differences and\n"
               "unmatched cases are listed. Either file may be '-' (standard input).\n"
               "Exit 0: nothing slower beyond the threshold; 1: a case is slower (never\n"
               "with --match word); 2: bad input or nothing matches.\n\n");
    nb_cli_print_options(f, compare_options);
}

typedef struct compare_writer {
    const nb_comparison *c;
    const char *fmt;
} compare_writer;

static nb_status write_cb(void *ctx, FILE *f)
{
    const compare_writer *w = ctx;
    return nb_comparison_write(w->c, w->fmt, f);
}

/* --filter on a case of a result file: its name as `run` gives it (the cache
 * state, else the tier word of files before version 2). */
static int keep_case(void *ctx, const nb_rf_case *c)
{
    const json_t *state = json_object_get(c->json, "cache_state");
    const char *cache = json_is_string(state) ? json_string_value(state) : c->tier;
    char name[512];
    nb_case_name(name, sizeof name, strcmp(cache, "warm") == 0, c->variant, c->label, c->mode);
    return nb_cli_filter_match(ctx, name);
}

void nb_cli_warn_incomplete(const nb_result_file *f, int quiet)
{
    char why[1024];
    nb_rf_completeness c = nb_result_file_completeness(f, why, sizeof why);
    if (!quiet && (c == NB_RF_INCOMPLETE || c == NB_RF_INTERRUPTED))
        fprintf(stderr, "nttbench: warning: %s\n", why);
}

/* `compare`; its --filter patterns are compiled into *filter (the caller's). */
static int compare_with(int argc, char **argv, nb_format fmt, const char *output, int quiet,
                        nb_cli_filter *filter)
{
    nb_compare_opts o;
    nb_compare_opts_default(&o);
    const char *paths[2];
    int np = 0;
    const nb_cli_option *const tables[] = {compare_options, NULL};
    for (int i = 0; i < argc;) {
        const char *n, *v;
        int r = nb_cli_next_option(argc, argv, &i, tables, &n, &v);
        if (r < 0)
            return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
        if (r == 0) {
            if (np == 2)
                return nb_cli_fail(NB_ERR_INVALID_ARG, "compare takes two result files");
            paths[np++] = argv[i++];
            continue;
        }
        nb_status st = NB_OK;
        if (!strcmp(n, "threshold"))
            st = nb_cli_parse_double(v, n, 0, 999, &o.threshold_pct);
        else if (!strcmp(n, "alpha"))
            st = nb_cli_parse_double(v, n, 1e-12, 0.5, &o.alpha);
        else if (!strcmp(n, "min-samples"))
            st = nb_cli_parse_size(v, n, 2, 1000000, &o.min_samples);
        else if (!strcmp(n, "match") && (!strcmp(v, "same") || !strcmp(v, "word")))
            o.match = !strcmp(v, "word") ? NB_MATCH_WORD : NB_MATCH_SAME;
        else if (!strcmp(n, "match"))
            st = nb_set_error(NB_ERR_INVALID_ARG, "--match '%s': same or word", v);
        else if (!strcmp(n, "filter"))
            st = nb_cli_filter_add(filter, v);
        if (st != NB_OK)
            return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
    }
    if (np != 2)
        return nb_cli_fail(NB_ERR_INVALID_ARG,
                           "compare needs two result files: nttbench compare BASE.json NEW.json");
    if (filter->n) {
        o.keep = keep_case;
        o.keep_ctx = filter;
    }
    if (!strcmp(paths[0], "-") && !strcmp(paths[1], "-"))
        return nb_cli_fail(NB_ERR_INVALID_ARG, "compare reads at most one file from standard "
                                               "input ('-')");
    nb_result_file *a = NULL, *b = NULL;
    nb_comparison *c = NULL;
    nb_status s = nb_result_file_load(&a, paths[0]);
    if (s == NB_OK)
        s = nb_result_file_load(&b, paths[1]);
    if (s == NB_OK) {
        nb_cli_warn_incomplete(a, quiet);
        nb_cli_warn_incomplete(b, quiet);
        s = nb_compare(a, b, &o, &c);
    }
    int rc;
    if (s != NB_OK) {
        rc = nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error()); /* bad input: exit 2 */
    } else {
        compare_writer w = {c, nb_format_name(fmt)};
        s = nb_write_file_atomic(output ? output : "-", write_cb, &w);
        rc = s != NB_OK ? nb_cli_fail(NB_ERR_IO, nb_last_error())
                        : nb_comparison_regressed(c) ? 1 : 0;
    }
    nb_comparison_destroy(c);
    nb_result_file_destroy(a);
    nb_result_file_destroy(b);
    return rc;
}

int nb_cmd_compare(int argc, char **argv, nb_format fmt, const char *output, int quiet)
{
    nb_cli_filter filter = {.n = 0};
    int rc = compare_with(argc, argv, fmt, output, quiet, &filter);
    nb_cli_filter_free(&filter);
    return rc;
}

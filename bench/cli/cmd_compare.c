/* `nttbench compare BASE.json NEW.json` or `compare BASE1.json BASE2.json ...
 * -- NEW1.json NEW2.json ...` (repeated runs of each side) [--threshold PCT]
 * [--alpha A] [--run-noise PCT] [--strict] [--match same|word] [--filter REGEX]
 * [--ignore F,...]: the comparison of run reports
 * (bench/report/compare.h) as a table, markdown, CSV or JSON. Exit 0 when no
 * case is slower beyond the threshold, 1 when one is (a contended case only
 * with --strict) or one that ran in BASE failed its check or erred in NEW, 2 on
 * bad input (unreadable or malformed file, wrong schema, nothing matches), 3
 * when the output cannot be written. */
#include <string.h>
#include <sys/stat.h>

#include "bench/cli/cli.h"
#include "bench/cli/paper.h"
#include "bench/report/compare.h"

static const nb_cli_option compare_options[] = {
    {"threshold", 1, "PCT    changes within +-PCT % count as the same (1)"},
    {"alpha", 1, "A      significance level of the tests (0.01)"},
    {"min-samples", 1, "N      fewer stored samples: insufficient data (5)"},
    {"run-noise", 1, "PCT    run-to-run noise of one run's median, % (GPU 1, CPU 2);\n"
                     "                         0: within-run samples only"},
    {"strict", 0, "       judge contended cases too (they can then make exit 1)"},
    {"match", 1, "M      same: the same cases (default); word: each 32-bit case of NEW\n"
                 "                         against the 64-bit case of BASE of the same tier,\n"
                 "                         direction and log N, log Q nearest within a prime"},
    {"filter", 1, "REGEX  compare only the cases whose name (as `run --list` prints it)\n"
                  "                         matches; repeatable: any"},
    {"ignore", 1, "F,...  match the cases without these parameters (e.g. exchange, gpus)\n"
                  "                         or without the variant ('variant'); repeatable"},
    {NULL, 0, NULL},
};

const nb_cli_option *const nb_cli_compare_tables[] = {compare_options, NULL};

void nb_cmd_compare_help(FILE *f)
{
    fprintf(f, "usage: nttbench compare BASE.json NEW.json [options]\n"
               "       nttbench compare BASE1.json BASE2.json ... -- NEW1.json NEW2.json ...\n"
               "options: [--threshold PCT] [--alpha A] [--min-samples N] [--run-noise PCT]\n"
               "         [--strict] [--match same|word] [--filter REGEX] [--ignore F,...]\n"
               "         [--format table|md|csv|json]\n\n"
               "Matches the cases of run reports (tier, variant, cache state, mode,\n"
               "parameters) and prints per case both medians, the ratio new/base with its 95%%\n"
               "interval, what the interval covers, its p-value, the same on the cycles\n"
               "(time x SM clock) and a verdict: faster, slower, same, clock-change, noisy,\n"
               "contended or insufficient-data. With one run a side the interval is the\n"
               "within-run one (Hodges-Lehmann on log times) widened by the run-to-run noise\n"
               "of --run-noise; with repeated runs of a side (files before and after '--')\n"
               "it comes from the spread of the runs' medians. A case with a contended run\n"
               "is not judged unless --strict. Environment differences and unmatched cases\n"
               "are listed. One file may be '-' (standard input). --ignore pairs cases that\n"
               "differ only in the fields it names, each setting a run of its own: two\n"
               "exchange settings (--ignore exchange), two GPU counts (--ignore gpus), two\n"
               "variants (--ignore variant).\n"
               "Exit 0: nothing slower beyond the threshold; 1: a case is slower, or one\n"
               "that ran in BASE failed its check or erred in NEW (never with --match\n"
               "word; a contended one only with --strict); 2: bad input,\n"
               "nothing matches, or a file twice on one side; 3: the output cannot be\n"
               "written. Runs of different machines are judged with a warning.\n\n");
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
    if (!quiet && (c == NB_RF_INCOMPLETE || c == NB_RF_INTERRUPTED || c == NB_RF_SHORT))
        fprintf(stderr, "nttbench: warning: %s\n", why);
}

/* Loads every file of both sides; files[0..nb) base, files[nb..nb+nn) new. */
static nb_status load_all(const char *const *paths, size_t n, nb_result_file **files)
{
    for (size_t i = 0; i < n; i++)
        NB_TRY(nb_result_file_load(&files[i], paths[i]));
    return NB_OK;
}

#define MAX_RUNS 64
#define MAX_IGNORED 16

/* The fields of compare --ignore: names[0..n) (owned), NULL-terminated. */
typedef struct ignore_list {
    char *names[MAX_IGNORED + 1];
    size_t n;
    int variant; /* 'variant' was named */
} ignore_list;

static void ignore_free(ignore_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->names[i]);
    l->n = 0;
}

/* Adds the comma-separated fields of one --ignore value (duplicates once). */
static nb_status ignore_add(ignore_list *l, const char *v)
{
    const char *p = v;
    do {
        const size_t len = strcspn(p, ",");
        if (len == 0 || len > 64)
            return nb_set_error(NB_ERR_INVALID_ARG, "--ignore '%s': a comma-separated list of "
                                "parameter names (or 'variant'), each of 1 to 64 characters",
                                v);
        int seen = 0;
        for (size_t i = 0; i < l->n; i++)
            seen |= strlen(l->names[i]) == len && !strncmp(l->names[i], p, len);
        if (!seen && l->n == MAX_IGNORED)
            return nb_set_error(NB_ERR_INVALID_ARG, "--ignore: at most %d fields",
                                MAX_IGNORED);
        if (!seen && !(l->names[l->n++] = strndup(p, len)))
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "--ignore: out of memory");
        p += len;
    } while (*p++ == ',');
    return NB_OK;
}

/* One case of a file with its key before --ignore (strdup'd) and after. */
typedef struct rekeyed {
    char *before;
    const char *after;
    const nb_rf_case *c;
} rekeyed;

static int by_key_after(const void *a, const void *b)
{
    return strcmp(((const rekeyed *)a)->after, ((const rekeyed *)b)->after);
}

/* Re-keys f without the fields (nb_result_file_ignore) and refuses it when two
 * cases that --filter keeps come to share a key (word: a word key, compare
 * --match word) they did not share before: the settings of an ignored
 * parameter held in one file would pair by their order in it. */
static nb_status rekey_file(nb_result_file *f, const char *const *params, int variant, int word,
                            nb_cli_filter *filter)
{
    const size_t n = nb_result_file_case_count(f);
    rekeyed *r = calloc(n ? n : 1, sizeof *r);
    nb_status st = r ? NB_OK : nb_set_error(NB_ERR_OUT_OF_MEMORY, "--ignore: out of memory");
    for (size_t i = 0; st == NB_OK && i < n; i++) {
        const nb_rf_case *c = nb_result_file_case(f, i);
        r[i].c = c;
        if (!(r[i].before = strdup(word ? c->word_key : c->key)))
            st = nb_set_error(NB_ERR_OUT_OF_MEMORY, "--ignore: out of memory");
    }
    if (st == NB_OK)
        st = nb_result_file_ignore(f, params, variant);
    size_t m = 0; /* the kept cases, sorted by their new key */
    for (size_t i = 0; st == NB_OK && i < n; i++)
        if (!filter->n || keep_case(filter, r[i].c)) {
            r[i].after = word ? r[i].c->word_key : r[i].c->key;
            rekeyed t = r[m];
            r[m++] = r[i];
            r[i] = t;
        }
    if (st == NB_OK)
        qsort(r, m, sizeof *r, by_key_after);
    for (size_t i = 1; st == NB_OK && i < m; i++)
        if (!strcmp(r[i - 1].after, r[i].after) && strcmp(r[i - 1].before, r[i].before))
            st = nb_set_error(NB_ERR_INVALID_ARG, "--ignore: %s holds cases that then match "
                              "alike ('%.100s' %s and '%.100s' %s): they would pair by their "
                              "order in the file; give each setting a file of its own",
                              nb_result_file_path(f), r[i - 1].c->label, r[i - 1].c->variant,
                              r[i].c->label, r[i].c->variant);
    for (size_t i = 0; r && i < n; i++)
        free(r[i].before);
    free(r);
    return st;
}

/* Applies the list to every loaded file (word: compare --match word); a
 * name that is neither 'variant' nor a parameter of any of their cases, or
 * one that no match ever reads (the seed, word_bits, log_q), is refused (it
 * would change nothing); so are files that the list makes ambiguous
 * (rekey_file). The list passed on to the keys leaves 'variant' out. */
static nb_status ignore_apply(ignore_list *l, nb_result_file *const *files, size_t n, int word,
                              nb_cli_filter *filter)
{
    const char *params[MAX_IGNORED + 1];
    size_t np = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (nb_result_file_key_leaves_out(l->names[i], word))
            return nb_set_error(NB_ERR_INVALID_ARG, "--ignore '%s': cases are always matched "
                                "without it%s", l->names[i], word ? " under --match word" : "");
        if (!strcmp(l->names[i], "variant")) {
            l->variant = 1;
            continue;
        }
        int found = 0;
        for (size_t f = 0; f < n && !found; f++)
            found = nb_result_file_has_param(files[f], l->names[i]);
        if (!found)
            return nb_set_error(NB_ERR_INVALID_ARG, "--ignore '%s': no case of the files has a "
                                "parameter '%s' (nor is it 'variant')", l->names[i],
                                l->names[i]);
        params[np++] = l->names[i];
    }
    params[np] = NULL;
    for (size_t f = 0; f < n; f++)
        NB_TRY(rekey_file(files[f], params, l->variant, word, filter));
    return NB_OK;
}

/* Bad usage when one side names a file twice (however written: the same
 * device and inode; '-' is whatever standard input is), which would count one
 * run as several and narrow the interval; a file on both sides (compared with
 * itself) is allowed. */
static int same_file_twice(const char *const *paths, size_t from, size_t to)
{
    struct stat a, b;
    for (size_t i = from; i < to; i++)
        for (size_t j = i + 1; j < to; j++)
            if (nb_cli_stat_arg(paths[i], &a) == 0 && nb_cli_stat_arg(paths[j], &b) == 0 &&
                S_ISREG(a.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
                char msg[700];
                snprintf(msg, sizeof msg, "'%.250s' and '%.250s' are the same file on one side: "
                         "each run counts once, so repeated runs are separate files", paths[i],
                         paths[j]);
                return nb_cli_fail(NB_ERR_INVALID_ARG, msg);
            }
    return -1;
}

/* Bad usage when two files of one side hold the same run (copies: the same
 * environment block, which records when the run started and what it
 * measured of the host, and the same command line). */
static int same_run_twice(nb_result_file *const *files, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        for (size_t j = i + 1; j < to; j++) {
            const json_t *a = nb_result_file_json(files[i]), *b = nb_result_file_json(files[j]);
            const json_t *ea = nb_result_file_env(files[i]), *eb = nb_result_file_env(files[j]);
            if (!ea || !eb || !json_equal(ea, eb) ||
                !json_equal(json_object_get(a, "command_line"), json_object_get(b, "command_line")))
                continue;
            char msg[700];
            snprintf(msg, sizeof msg, "'%.250s' and '%.250s' hold the same run on one side (the "
                     "same environment block and command line): each run counts once",
                     nb_result_file_path(files[i]), nb_result_file_path(files[j]));
            return nb_cli_fail(NB_ERR_INVALID_ARG, msg);
        }
    return -1;
}

/* environment.host.cpu or environment.gpu.name of a result file ("" when
 * absent). */
static const char *env_string(const nb_result_file *f, const char *block, const char *key)
{
    const json_t *e = nb_result_file_env(f), *b = e ? json_object_get(e, block) : NULL;
    const json_t *v = json_is_object(b) ? json_object_get(b, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : "";
}

/* One warning line when the first runs of the two sides come from different
 * machines (host CPU or GPU model): the verdicts then compare the machines as
 * well as the code. */
static void warn_other_machine(const nb_result_file *base, const nb_result_file *new_, int quiet)
{
    static const char *const what[][3] = {{"gpu", "name", "GPU"}, {"host", "cpu", "host CPU"}};
    for (size_t i = 0; i < 2 && !quiet; i++) {
        const char *a = env_string(base, what[i][0], what[i][1]);
        const char *b = env_string(new_, what[i][0], what[i][1]);
        if (strcmp(a, b)) {
            fprintf(stderr, "nttbench: warning: the runs come from different machines (%s '%s' "
                            "-> '%s'): a verdict compares the machines as well as the code\n",
                    what[i][2], *a ? a : "none", *b ? b : "none");
            return;
        }
    }
}


/* `compare`; its --filter patterns are compiled into *filter (the caller's). */
static int compare_with(int argc, char **argv, nb_format fmt, const char *output, int quiet,
                        nb_cli_filter *filter, ignore_list *ignore)
{
    nb_compare_opts o;
    nb_compare_opts_default(&o);
    const char *paths[2 * MAX_RUNS];
    size_t np = 0, n_base = 0;
    int split = 0, stdin_uses = 0;
    const nb_cli_option *const *tables = nb_cli_compare_tables;
    for (int i = 0; i < argc;) {
        const char *n, *v;
        int r = nb_cli_next_option(argc, argv, &i, tables, &n, &v);
        if (r < 0)
            return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
        if (r == 0 && !strcmp(argv[i], "--")) {
            if (split++)
                return nb_cli_fail(NB_ERR_INVALID_ARG, "compare takes one '--' (between the "
                                                       "base runs and the new ones)");
            n_base = np;
            i++;
            continue;
        }
        if (r == 0) {
            if (np == 2 * MAX_RUNS)
                return nb_cli_fail(NB_ERR_INVALID_ARG, "compare takes at most 64 runs a side");
            stdin_uses += !strcmp(argv[i], "-");
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
        else if (!strcmp(n, "run-noise"))
            st = nb_cli_parse_double(v, n, 0, 50, &o.run_noise_pct);
        else if (!strcmp(n, "strict"))
            o.strict = 1;
        else if (!strcmp(n, "match") && (!strcmp(v, "same") || !strcmp(v, "word")))
            o.match = !strcmp(v, "word") ? NB_MATCH_WORD : NB_MATCH_SAME;
        else if (!strcmp(n, "match"))
            st = nb_set_error(NB_ERR_INVALID_ARG, "--match '%s': same or word", v);
        else if (!strcmp(n, "filter"))
            st = nb_cli_filter_add(filter, v);
        else if (!strcmp(n, "ignore"))
            st = ignore_add(ignore, v);
        if (st != NB_OK)
            return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
    }
    if (!split && np > 2)
        return nb_cli_fail(NB_ERR_INVALID_ARG, "compare of more than two result files needs "
                                               "'--' between the base runs and the new ones: "
                                               "nttbench compare BASE1.json ... -- NEW1.json ...");
    if (!split && np != 2)
        return nb_cli_fail(NB_ERR_INVALID_ARG, "compare needs two result files: nttbench compare "
                                               "BASE.json NEW.json (or BASE1.json ... -- "
                                               "NEW1.json ...)");
    if (!split)
        n_base = 1;
    if (n_base == 0 || n_base == np)
        return nb_cli_fail(NB_ERR_INVALID_ARG,
                           "compare needs at least one result file on each side of '--'");
    if (n_base > MAX_RUNS || np - n_base > MAX_RUNS)
        return nb_cli_fail(NB_ERR_INVALID_ARG, "compare takes at most 64 runs a side");
    if (filter->n) {
        o.keep = keep_case;
        o.keep_ctx = filter;
    }
    if (stdin_uses > 1)
        return nb_cli_fail(NB_ERR_INVALID_ARG, "compare reads at most one file from standard "
                                               "input ('-')");
    int rc = same_file_twice(paths, 0, n_base);
    if (rc < 0)
        rc = same_file_twice(paths, n_base, np);
    if (rc >= 0)
        return rc;
    nb_result_file *files[2 * MAX_RUNS] = {NULL};
    nb_comparison *c = NULL;
    nb_status s = load_all(paths, np, files);
    if (s == NB_OK && ((rc = same_run_twice(files, 0, n_base)) >= 0 ||
                       (rc = same_run_twice(files, n_base, np)) >= 0)) {
        for (size_t i = 0; i < np; i++)
            nb_result_file_destroy(files[i]);
        return rc;
    }
    if (s == NB_OK && ignore->n) {
        s = ignore_apply(ignore, files, np, o.match == NB_MATCH_WORD, filter);
        o.ignored = (const char *const *)ignore->names;
    }
    if (s == NB_OK) {
        for (size_t i = 0; i < np; i++)
            nb_cli_warn_incomplete(files[i], quiet);
        warn_other_machine(files[0], files[n_base], quiet);
        s = nb_compare_runs((const nb_result_file *const *)files, n_base,
                            (const nb_result_file *const *)files + n_base, np - n_base, &o, &c);
    }
    if (s != NB_OK) {
        rc = nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error()); /* bad input: exit 2 */
    } else {
        compare_writer w = {c, nb_format_name(fmt)};
        s = nb_write_file_atomic(output ? output : "-", write_cb, &w);
        rc = s != NB_OK ? nb_cli_fail(NB_ERR_IO, nb_last_error())
                        : nb_comparison_regressed(c) ? 1 : 0;
    }
    nb_comparison_destroy(c);
    for (size_t i = 0; i < np; i++)
        nb_result_file_destroy(files[i]);
    return rc;
}

int nb_cmd_compare(int argc, char **argv, nb_format fmt, const char *output, int quiet)
{
    nb_cli_filter filter = {.n = 0};
    ignore_list ignore = {.n = 0};
    int rc = compare_with(argc, argv, fmt, output, quiet, &filter, &ignore);
    nb_cli_filter_free(&filter);
    ignore_free(&ignore);
    return rc;
}

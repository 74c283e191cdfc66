/* The comparison: case matching between the first files of each side, the
 * same case in each repeated run, and the environment / option differences.
 * The per-case tests and verdicts are in compare_case.c, the writers in
 * compare_write.c. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/report/compare.h"
#include "bench/report/internal.h"

/* ------------------------------------------------------------ environment */

void nb_json_text(const json_t *v, char *buf, size_t n)
{
    if (!v) {
        snprintf(buf, n, "-");
        return;
    }
    if (json_is_string(v)) {
        snprintf(buf, n, "%s", json_string_value(v));
        return;
    }
    char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    snprintf(buf, n, "%s", s ? s : "?");
    free(s);
}

/* Records prefix.field's two values in *list when they differ; a field one
 * report lacks and the other holds as "" does not differ. */
static nb_status add_diff_to(nb_env_diff **list, size_t *n, const char *prefix,
                             const char *field, const json_t *a, const json_t *b)
{
    if ((!a && !b) || (a && b && json_equal((json_t *)a, (json_t *)b)))
        return NB_OK;
    const json_t *one = a ? a : b;
    if (!(a && b) && json_is_string(one) && !*json_string_value(one))
        return NB_OK;
    nb_env_diff *d = realloc(*list, (*n + 1) * sizeof *d);
    if (!d)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "compare: out of memory");
    *list = d;
    d = &d[(*n)++];
    snprintf(d->field, sizeof d->field, "%s%s", prefix, field);
    nb_json_text(a, d->base, sizeof d->base);
    nb_json_text(b, d->new_, sizeof d->new_);
    return NB_OK;
}

/* The fields whose difference can change a timing. */
static const char *const env_fields[] = {
    "gpu.name",        "gpu.compute_capability", "gpu.sm_count",      "gpu.l2_bytes",
    "gpu.memory_clock_mhz", "gpu.default_sm_clock_mhz", "gpu.ecc",   "gpu.nvml_driver",
    "gpu.cuda_driver", "gpu.cuda_runtime",       "host.cpu",          "host.cores",
    "host.omp_threads", "host.omp_wait_policy",  "host.omp_proc_bind", "host.llc_bytes",
    "host.os",         "nttbench_version",       "git_commit",        "build",
    "nccl_settings",   NULL};

/* Every difference between files a and b in *list: the environment's
 * env_fields as "<prefix>environment.FIELD", the timing options (each key of
 * either `options` object) as "<prefix>options.KEY". */
static nb_status file_diffs(nb_env_diff **list, size_t *n, const char *prefix,
                            const nb_result_file *a, const nb_result_file *b)
{
    char env[80], opt[80];
    snprintf(env, sizeof env, "%senvironment.", prefix);
    snprintf(opt, sizeof opt, "%soptions.", prefix);
    const json_t *ea = nb_result_file_env(a), *eb = nb_result_file_env(b);
    for (int i = 0; env_fields[i]; i++)
        NB_TRY(add_diff_to(list, n, env, env_fields[i], nb_json_path(ea, env_fields[i]),
                           nb_json_path(eb, env_fields[i])));
    const json_t *oa = nb_result_file_options(a), *ob = nb_result_file_options(b);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)oa, key, v)
        NB_TRY(add_diff_to(list, n, opt, key, v, json_object_get(ob, key)));
    json_object_foreach((json_t *)ob, key, v)
        if (!json_object_get(oa, key))
            NB_TRY(add_diff_to(list, n, opt, key, NULL, v));
    return NB_OK;
}

/* The two first runs' differences (env_diffs), and each repeated run's from
 * its side's first (run_diffs): runs pooled as one side must be the same
 * experiment. */
static nb_status env_differences(nb_comparison *c)
{
    for (int side = 0; side < 2; side++) {
        const nb_result_file **files = side ? c->new_files : c->base_files;
        const size_t n = side ? c->n_new_files : c->n_base_files;
        for (size_t k = 1; k < n; k++) {
            char prefix[64];
            snprintf(prefix, sizeof prefix, "%s run %zu: ", side ? "new" : "base", k + 1);
            NB_TRY(file_diffs(&c->run_diffs, &c->n_run_diffs, prefix, files[0], files[k]));
        }
    }
    return file_diffs(&c->env_diffs, &c->n_env_diffs, "", c->base, c->new_);
}

/* ---------------------------------------------------------------- matching */

/* 1 when the case takes part (opts.keep). */
static int kept(const nb_comparison *c, const nb_rf_case *k)
{
    return !c->opts.keep || c->opts.keep(c->opts.keep_ctx, k);
}

/* Under NB_MATCH_WORD: the 64-bit case of base for the 32-bit case b (nearest
 * log Q within one prime's bits, the first on a tie; used or not, as several
 * 32-bit variants may face the same one), or the case count when none. */

static size_t word_partner(const nb_comparison *c, const nb_rf_case *b)
{
    size_t na = nb_result_file_case_count(c->base), best = na;
    double best_d = INFINITY;
    if (b->word_bits != 32 || !isfinite(b->log_q))
        return na;
    for (size_t i = 0; i < na; i++) {
        const nb_rf_case *a = nb_result_file_case(c->base, i);
        if (a->word_bits != 64 || !isfinite(a->log_q) || strcmp(a->word_key, b->word_key) ||
            !kept(c, a))
            continue;
        const double d = fabs(a->log_q - b->log_q);
        if (d <= nb_word_pair_tolerance(a->prime_bits, b->prime_bits) && d < best_d) {
            best_d = d;
            best = i;
        }
    }
    return best;
}

/* A case's key without what only a case that produced a result records (its
 * mode, launches per sample and cache state; malloc'd, NULL when the key does
 * not parse): a case that failed before timing has none of them, and pairs
 * with its counterpart by this key. */
static char *result_free_key(const nb_rf_case *x)
{
    json_t *k = json_loads(x->key, 0, NULL);
    static const char *const drop[] = {"mode", "K", "cache", "flush", "rotate", NULL};
    for (size_t i = 0; k && drop[i]; i++)
        json_object_del(k, drop[i]);
    char *s = k ? json_dumps(k, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(k);
    return s;
}

static int ok_status(const nb_rf_case *x) { return !strcmp(x->status, "ok"); }

/* Pairs the unmatched cases of which one side did not run (status not ok)
 * with the other side's unmatched case of the same result-free key (the
 * first), removing both from the unmatched lists; each key computed once. */
static nb_status match_unrun(nb_comparison *c)
{
    const size_t nb = c->n_unmatched_base;
    char **bk = calloc(nb ? nb : 1, sizeof *bk);
    nb_status st = bk ? NB_OK : nb_set_error(NB_ERR_OUT_OF_MEMORY, "compare: out of memory");
    for (size_t i = 0; st == NB_OK && i < nb; i++)
        if (!(bk[i] = result_free_key(c->unmatched_base[i])))
            st = nb_set_error(NB_ERR_OUT_OF_MEMORY, "compare: out of memory");
    for (size_t j = 0; st == NB_OK && j < c->n_unmatched_new; j++) {
        const nb_rf_case *b = c->unmatched_new[j];
        char *key = NULL;
        for (size_t i = 0; i < c->n_unmatched_base; i++) {
            const nb_rf_case *a = c->unmatched_base[i];
            if (ok_status(a) && ok_status(b))
                continue;
            if (!key && !(key = result_free_key(b))) {
                st = nb_set_error(NB_ERR_OUT_OF_MEMORY, "compare: out of memory");
                break;
            }
            if (strcmp(key, bk[i]))
                continue;
            c->rows[c->n_rows].base = a;
            c->rows[c->n_rows++].new_ = b;
            free(bk[i]);
            const size_t left = --c->n_unmatched_base - i;
            memmove(&c->unmatched_base[i], &c->unmatched_base[i + 1],
                    left * sizeof *c->unmatched_base);
            memmove(&bk[i], &bk[i + 1], left * sizeof *bk);
            memmove(&c->unmatched_new[j], &c->unmatched_new[j + 1],
                    (--c->n_unmatched_new - j) * sizeof *c->unmatched_new);
            j--;
            break;
        }
        free(key);
    }
    for (size_t i = 0; bk && i < c->n_unmatched_base; i++)
        free(bk[i]);
    free(bk);
    return st;
}

/* 1 when every unmatched case of base is on 64-bit words and every one of
 * new on 32-bit words (what --match word pairs), -1 the other way round,
 * else 0. */
static int words_apart(const nb_comparison *c)
{
    unsigned seen[2] = {0, 0}; /* bit 0: 32-bit, bit 1: 64-bit */
    for (int side = 0; side < 2; side++) {
        const size_t n = side ? c->n_unmatched_new : c->n_unmatched_base;
        for (size_t i = 0; i < n; i++) {
            const nb_rf_case *x = side ? c->unmatched_new[i] : c->unmatched_base[i];
            seen[side] |= x->word_bits == 32 ? 1u : 2u;
        }
    }
    return seen[0] == 2 && seen[1] == 1 ? 1 : seen[0] == 1 && seen[1] == 2 ? -1 : 0;
}

static nb_status match(nb_comparison *c)
{
    size_t na = nb_result_file_case_count(c->base), nn = nb_result_file_case_count(c->new_);
    char *used = calloc(nn ? nn : 1, 1);
    c->rows = calloc((na > nn ? na : nn) + 1, sizeof *c->rows);
    c->unmatched_base = calloc(na ? na : 1, sizeof *c->unmatched_base);
    c->unmatched_new = calloc(nn ? nn : 1, sizeof *c->unmatched_new);
    if (!used || !c->rows || !c->unmatched_base || !c->unmatched_new) {
        free(used);
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "compare: out of memory");
    }
    for (size_t j = 0; j < nn; j++)
        used[j] = !kept(c, nb_result_file_case(c->new_, j)); /* left out: never listed */
    if (c->opts.match == NB_MATCH_WORD) {
        char *base_used = calloc(na ? na : 1, 1);
        if (!base_used) {
            free(used);
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "compare: out of memory");
        }
        for (size_t j = 0; j < nn; j++) {
            const nb_rf_case *b = nb_result_file_case(c->new_, j);
            size_t i = used[j] ? na : word_partner(c, b);
            if (i == na)
                continue;
            used[j] = base_used[i] = 1;
            c->rows[c->n_rows].base = nb_result_file_case(c->base, i);
            c->rows[c->n_rows++].new_ = b;
        }
        /* unmatched: what could have paired and did not (a 64-bit case of base,
         * a 32-bit one of new), never the cases of the other word size */
        for (size_t i = 0; i < na; i++) {
            const nb_rf_case *a = nb_result_file_case(c->base, i);
            if (!base_used[i] && kept(c, a) && a->word_bits == 64)
                c->unmatched_base[c->n_unmatched_base++] = a;
        }
        for (size_t j = 0; j < nn; j++)
            used[j] |= nb_result_file_case(c->new_, j)->word_bits != 32;
        free(base_used);
        na = 0; /* done: only the unmatched new cases are left to list */
    }
    for (size_t i = 0; i < na; i++) {
        const nb_rf_case *a = nb_result_file_case(c->base, i);
        if (!kept(c, a))
            continue;
        size_t j = 0;
        while (j < nn && (used[j] || strcmp(a->key, nb_result_file_case(c->new_, j)->key)))
            j++;
        if (j == nn) {
            c->unmatched_base[c->n_unmatched_base++] = a;
            continue;
        }
        used[j] = 1;
        c->rows[c->n_rows].base = a;
        c->rows[c->n_rows++].new_ = nb_result_file_case(c->new_, j);
    }
    for (size_t j = 0; j < nn; j++)
        if (!used[j])
            c->unmatched_new[c->n_unmatched_new++] = nb_result_file_case(c->new_, j);
    free(used);
    return c->opts.match == NB_MATCH_SAME ? match_unrun(c) : NB_OK;
}

/* The k-th case with `key` in f (k counted from 0), or NULL. */
static const nb_rf_case *kth_with_key(const nb_result_file *f, const char *key, size_t k)
{
    for (size_t i = 0, n = nb_result_file_case_count(f); i < n; i++) {
        const nb_rf_case *c = nb_result_file_case(f, i);
        if (!strcmp(c->key, key) && k-- == 0)
            return c;
    }
    return NULL;
}

/* How many cases before `c` in f share its key. */
static size_t rank_of(const nb_result_file *f, const nb_rf_case *c)
{
    size_t k = 0;
    for (size_t i = 0, n = nb_result_file_case_count(f); i < n; i++) {
        const nb_rf_case *o = nb_result_file_case(f, i);
        if (o == c)
            break;
        k += !strcmp(o->key, c->key);
    }
    return k;
}

/* Appends to buf the fields (dotted, "params.x") whose values differ
 * between the key objects a and b, "name base -> new" each (as many as fit);
 * the number of such fields, all of them counted. */
static size_t key_fields_differ(const json_t *a, const json_t *b, const char *prefix, char *buf,
                                size_t n)
{
    const char *k;
    json_t *va;
    size_t count = 0;
    json_object_foreach((json_t *)a, k, va) {
        const json_t *vb = json_object_get(b, k);
        char path[96];
        snprintf(path, sizeof path, "%s%s", prefix, k);
        if (json_is_object(va) && json_is_object(vb)) {
            snprintf(path, sizeof path, "%s%s.", prefix, k);
            count += key_fields_differ(va, vb, path, buf, n);
        } else if (!vb || !json_equal(va, (json_t *)vb)) {
            char x[48], y[48];
            nb_json_text(va, x, sizeof x);
            nb_json_text(vb, y, sizeof y);
            size_t u = strlen(buf);
            snprintf(buf + u, n - u, "%s%s %s -> %s", u ? ", " : "", path, x, y);
            count++;
        }
    }
    json_object_foreach((json_t *)b, k, va) {
        size_t u = strlen(buf);
        if (!json_object_get(a, k) && !json_is_object(va)) {
            char y[48];
            nb_json_text(va, y, sizeof y);
            snprintf(buf + u, n - u, "%s%s%s - -> %s", u ? ", " : "", prefix, k, y);
            count++;
        }
    }
    return count;
}

/* The fields whose values differ between the keys of x and y (x as base when
 * x_is_base) into diff, as key_fields_differ; the number of them (SIZE_MAX
 * when a key does not parse). */
static size_t keys_differ(const nb_rf_case *x, const nb_rf_case *y, int x_is_base, char *diff,
                          size_t n)
{
    diff[0] = '\0';
    json_t *kx = json_loads(x->key, 0, NULL), *ky = json_loads(y->key, 0, NULL);
    size_t count = SIZE_MAX;
    if (kx && ky)
        count = key_fields_differ(x_is_base ? kx : ky, x_is_base ? ky : kx, "", diff, n);
    json_decref(kx);
    json_decref(ky);
    return count;
}

/* The hint after a difference `diff` (key_fields_differ's text) into hint:
 * "; try --ignore F,..." naming the fields when every one that differs is a
 * parameter or the variant, else "". A suggestion: --ignore refuses a file it
 * would make ambiguous. */
static void ignore_hint(const char *diff, char *hint, size_t n)
{
    char names[200] = "";
    hint[0] = '\0';
    for (const char *p = diff; *p; p = strstr(p, ", ") ? strstr(p, ", ") + 2 : "") {
        const char *name = !strncmp(p, "params.", 7)    ? p + 7
                           : !strncmp(p, "variant ", 8) ? p
                                                        : NULL;
        if (!name)
            return;
        const size_t len = strcspn(name, " "), u = strlen(names);
        snprintf(names + u, sizeof names - u, "%s%.*s", u ? "," : "", (int)len, name);
    }
    if (names[0])
        snprintf(hint, n, "; try --ignore %s", names);
}

/* bench/report/internal.h */
void nb_compare_why_unmatched(const nb_rf_case *x, const nb_result_file *other,
                              const nb_rf_case *const *spare, size_t n_spare, int x_is_base,
                              const nb_compare_opts *o, int nearest, char *buf, size_t cap)
{
    buf[0] = '\0';
    const char *side = x_is_base ? "new" : "base";
    const int same = !o || o->match == NB_MATCH_SAME; /* hints: matching the same cases */
    char diff[300], hint[240] = "";
    /* an unmatched case of the other side with this label */
    for (size_t i = 0; same && i < n_spare; i++) {
        const nb_rf_case *y = spare[i];
        if (strcmp(x->tier, y->tier) || strcmp(x->variant, y->variant) ||
            strcmp(x->label, y->label))
            continue;
        if (keys_differ(x, y, x_is_base, diff, sizeof diff) && diff[0]) {
            ignore_hint(diff, hint, sizeof hint);
            snprintf(buf, cap, " (the case of %s with this label differs: %s%s)", side, diff,
                     hint);
            return;
        }
    }
    /* else the unmatched one of the same tier that --filter keeps and that
     * differs in the fewest fields, if at most three */
    char best[300] = "";
    size_t best_n = 4;
    const nb_rf_case *near = NULL;
    for (size_t i = 0; same && nearest && i < n_spare; i++) {
        const nb_rf_case *y = spare[i];
        if (strcmp(x->tier, y->tier) || (o && o->keep && !o->keep(o->keep_ctx, y)))
            continue;
        const size_t d = keys_differ(x, y, x_is_base, diff, sizeof diff);
        if (d && d < best_n) {
            best_n = d;
            near = y;
            snprintf(best, sizeof best, "%s", diff);
        }
    }
    if (near) {
        ignore_hint(best, hint, sizeof hint);
        snprintf(buf, cap, " (the nearest case of %s, %.80s, differs: %s%s)", side, near->label,
                 best, hint);
        return;
    }
    /* else the first case of the other side with this label that --filter
     * keeps, matched or not (then --ignore would pair it twice: no hint) */
    for (size_t i = 0, n = nb_result_file_case_count(other); i < n; i++) {
        const nb_rf_case *y = nb_result_file_case(other, i);
        if (strcmp(x->tier, y->tier) || strcmp(x->variant, y->variant) ||
            strcmp(x->label, y->label) || (o && o->keep && !o->keep(o->keep_ctx, y)))
            continue;
        if (keys_differ(x, y, x_is_base, diff, sizeof diff) && diff[0])
            snprintf(buf, cap, " (the case of %s with this label differs: %s)", side, diff);
        return;
    }
}

/* Each row's case in every file of each side: [0] the first file's. */
static nb_status gather_runs(nb_comparison *c)
{
    const size_t per = c->n_base_files + c->n_new_files;
    c->run_cases = calloc(c->n_rows * per + 1, sizeof *c->run_cases);
    if (!c->run_cases)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "compare: out of memory");
    for (size_t i = 0; i < c->n_rows; i++) {
        nb_compare_row *r = &c->rows[i];
        r->base_run = c->run_cases + i * per;
        r->new_run = r->base_run + c->n_base_files;
        const nb_rf_case *firsts[2] = {r->base, r->new_};
        const nb_result_file **files[2] = {c->base_files, c->new_files};
        size_t nf[2] = {c->n_base_files, c->n_new_files}, *nr[2] = {&r->n_base_run, &r->n_new_run};
        const nb_rf_case **out[2] = {r->base_run, r->new_run};
        for (int k = 0; k < 2; k++) {
            const size_t rank = rank_of(files[k][0], firsts[k]);
            out[k][(*nr[k])++] = firsts[k];
            char *first_key = NULL; /* firsts[k]'s result-free key, when first needed */
            for (size_t f = 1; f < nf[k]; f++) {
                const nb_rf_case *x = kth_with_key(files[k][f], firsts[k]->key, rank);
                for (size_t i = 0, n = nb_result_file_case_count(files[k][f]); !x && i < n;
                     i++) { /* a case of this run that did not run, by its result-free key */
                    const nb_rf_case *y = nb_result_file_case(files[k][f], i);
                    if (ok_status(y) || (!first_key && !(first_key = result_free_key(firsts[k]))))
                        continue;
                    char *yk = result_free_key(y);
                    if (yk && !strcmp(yk, first_key))
                        x = y;
                    free(yk);
                }
                if (x)
                    out[k][(*nr[k])++] = x;
            }
            free(first_key);
        }
    }
    return NB_OK;
}

nb_status nb_compare(const nb_result_file *base, const nb_result_file *new_,
                     const nb_compare_opts *opts, nb_comparison **out)
{
    return nb_compare_runs(&base, 1, &new_, 1, opts, out);
}

nb_status nb_compare_runs(const nb_result_file *const *base, size_t n_base,
                          const nb_result_file *const *new_, size_t n_new,
                          const nb_compare_opts *opts, nb_comparison **out)
{
    if (!out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_compare: NULL argument");
    *out = NULL;
    if (!base || !new_ || !n_base || !n_new)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_compare: no file on a side");
    for (size_t i = 0; i < n_base + n_new; i++)
        if (!(i < n_base ? base[i] : new_[i - n_base]))
            return nb_set_error(NB_ERR_INVALID_ARG, "nb_compare: NULL file");
    nb_compare_opts o;
    nb_compare_opts_default(&o);
    if (opts)
        o = *opts;
    if (!(o.threshold_pct >= 0 && o.threshold_pct < 1000) || !(o.alpha > 0 && o.alpha < 1) ||
        !(o.level > 0 && o.level < 1) || !(o.run_noise_pct < 100))
        return nb_set_error(NB_ERR_INVALID_ARG, "compare: threshold must be in [0, 1000) %%, "
                            "alpha and level in (0, 1), run noise below 100 %%");
    nb_comparison *c = calloc(1, sizeof *c);
    if (!c)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "compare: out of memory");
    c->base = base[0];
    c->new_ = new_[0];
    c->opts = o;
    c->base_files = malloc(n_base * sizeof *c->base_files);
    c->new_files = malloc(n_new * sizeof *c->new_files);
    nb_status s = c->base_files && c->new_files
                      ? NB_OK
                      : nb_set_error(NB_ERR_OUT_OF_MEMORY, "compare: out of memory");
    if (s == NB_OK) {
        memcpy(c->base_files, base, n_base * sizeof *base);
        memcpy(c->new_files, new_, n_new * sizeof *new_);
        c->n_base_files = n_base;
        c->n_new_files = n_new;
        s = match(c);
    }
    if (s == NB_OK && c->n_rows == 0) {
        /* the word sizes when they alone part the files, else what the first
         * case of new differs by from base's like it */
        char why[400] = "";
        const int apart = o.match != NB_MATCH_WORD ? words_apart(c) : 0;
        if (apart)
            snprintf(why, sizeof why, " (their cases are of different word sizes: --match word "
                                      "pairs each 32-bit case of NEW with the 64-bit one of its "
                                      "log Q in BASE%s)",
                     apart < 0 ? "; give the 64-bit file first" : "");
        else if (o.match != NB_MATCH_WORD && c->n_unmatched_new)
            nb_compare_why_unmatched(c->unmatched_new[0], c->base,
                                     (const nb_rf_case *const *)c->unmatched_base,
                                     c->n_unmatched_base, 0, &o, 1, why, sizeof why);
        s = nb_set_error(NB_ERR_INVALID_ARG,
                         o.match == NB_MATCH_WORD && o.keep
                             ? "no 32-bit case of %s that the filter keeps matches a 64-bit "
                               "case of %s that it keeps (same tier, direction or stage, log N, "
                               "log Q within a prime)%s"
                         : o.match == NB_MATCH_WORD
                             ? "no 32-bit case of %s matches a 64-bit case of %s (same tier, "
                               "direction or stage, log N, log Q within a prime)%s"
                         : o.keep ? "no case of %s that the filter keeps matches a case of %s%s"
                                  : "no case of %s matches a case of %s%s",
                         nb_result_file_path(c->new_), nb_result_file_path(c->base), why);
    }
    if (s == NB_OK)
        s = gather_runs(c);
    for (size_t i = 0; s == NB_OK && i < c->n_rows; i++) {
        s = nb_compare_judge_row(&c->rows[i], &o, n_base, n_new);
        if (s == NB_OK)
            c->counts[c->rows[i].verdict]++;
    }
    if (s == NB_OK)
        s = env_differences(c);
    if (s != NB_OK) {
        nb_comparison_destroy(c);
        return s;
    }
    *out = c;
    return NB_OK;
}

void nb_comparison_destroy(nb_comparison *c)
{
    if (!c)
        return;
    free(c->rows);
    free(c->run_cases);
    free(c->base_files);
    free(c->new_files);
    free(c->unmatched_base);
    free(c->unmatched_new);
    free(c->env_diffs);
    free(c->run_diffs);
    free(c);
}

size_t nb_comparison_broken(const nb_comparison *c)
{
    size_t n = 0;
    for (size_t i = 0; c && i < c->n_rows; i++) {
        const nb_compare_row *r = &c->rows[i];
        int broken = 0;
        for (size_t k = 0; k < r->n_new_run; k++)
            broken |= !strcmp(r->new_run[k]->status, "verify-failed") ||
                      !strcmp(r->new_run[k]->status, "error");
        n += ok_status(r->base) && broken;
    }
    return n;
}

int nb_comparison_regressed(const nb_comparison *c)
{
    return c && c->opts.match != NB_MATCH_WORD &&
           (c->counts[NB_VERDICT_SLOWER] > 0 || nb_comparison_broken(c) > 0);
}

/* Argument parsing of the nttbench CLI: lists and ranges ("12:17", "1,8,32"),
 * numbers with range checks, and a small long-option scanner
 * ("--name value", "--name=value", "--flag"). Messages name the flag. Also
 * the helpers every command shares: the one-line error, the progress
 * estimate, the message for a GPU variant without a device. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/cli/cli.h"
#include "bench/cli/numparse.h"
#include "ntt/builtin.h"

nb_status nb_cli_parse_ulist(const char *s, const char *flag, unsigned long long lo,
                             unsigned long long hi, unsigned long long *out, size_t max,
                             size_t *n)
{
    *n = 0;
    if (!s || !*s)
        return nb_set_error(NB_ERR_INVALID_ARG, "--%s '' %s", flag, nb_num_why(NB_NUM_EMPTY));
    char *copy = strdup(s);
    if (!copy)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    nb_status st = NB_OK;
    char *save = NULL;
    size_t len = strlen(copy);
    if (copy[0] == ',' || copy[len - 1] == ',' || strstr(copy, ",,")) {
        st = nb_set_error(NB_ERR_INVALID_ARG, "--%s '%s': empty list item", flag, s);
        goto done;
    }
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        unsigned long long a, b, step = 1;
        char *c1 = strchr(item, ':');
        if (c1) {
            *c1 = '\0';
            char *c2 = strchr(c1 + 1, ':');
            if (c2)
                *c2 = '\0';
            const char *part[3] = {item, c1 + 1, c2 ? c2 + 1 : NULL};
            unsigned long long *dst[3] = {&a, &b, &step};
            for (int k = 0; k < 3 && part[k]; k++) {
                uint64_t x;
                nb_num_result nr = nb_num_u64(part[k], &x);
                if (nr != NB_NUM_OK) {
                    st = nb_set_error(NB_ERR_INVALID_ARG,
                                      "--%s '%s': range A:B or A:B:STEP, and '%s' %s", flag, s,
                                      part[k], nb_num_why(nr));
                    goto done;
                }
                *dst[k] = x;
            }
            if (a > b || step == 0) {
                st = nb_set_error(NB_ERR_INVALID_ARG,
                                  "--%s '%s': range must be increasing with a positive step", flag,
                                  s);
                goto done;
            }
        } else {
            uint64_t x;
            nb_num_result nr = nb_num_u64(item, &x);
            if (nr != NB_NUM_OK) {
                st = nb_set_error(NB_ERR_INVALID_ARG, "--%s '%s': '%s' %s", flag, s, item,
                                  nb_num_why(nr));
                goto done;
            }
            a = b = x;
        }
        for (unsigned long long v = a; v <= b; v += step) {
            if (v < lo || v > hi) {
                st = nb_set_error(NB_ERR_INVALID_ARG, "--%s %llu outside [%llu, %llu]", flag, v,
                                  lo, hi);
                goto done;
            }
            size_t k = 0;
            while (k < *n && out[k] != v)
                k++;
            if (k == *n) {
                if (*n == max) {
                    st = nb_set_error(NB_ERR_INVALID_ARG, "--%s: more than %zu values", flag, max);
                    goto done;
                }
                out[(*n)++] = v;
            }
            if (b - v < step)
                break;
        }
    }
done:
    free(copy);
    if (st != NB_OK)
        *n = 0;
    return st;
}

nb_status nb_cli_parse_words(const char *s, const char *flag, char **storage, char **out,
                             size_t max, size_t *n)
{
    *n = 0;
    *storage = NULL;
    if (!s || !*s)
        return nb_set_error(NB_ERR_INVALID_ARG, "--%s needs a value", flag);
    size_t len = strlen(s);
    if (s[0] == ',' || s[len - 1] == ',' || strstr(s, ",,"))
        return nb_set_error(NB_ERR_INVALID_ARG, "--%s '%s': empty list item", flag, s);
    char *copy = strdup(s);
    if (!copy)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (*n == max) {
            free(copy);
            *n = 0;
            return nb_set_error(NB_ERR_INVALID_ARG, "--%s: more than %zu items", flag, max);
        }
        out[(*n)++] = item;
    }
    *storage = copy;
    return NB_OK;
}

nb_status nb_cli_parse_names(const char *s, const char *flag, char **storage, char **out,
                             size_t max, size_t *n)
{
    NB_TRY(nb_cli_parse_words(s, flag, storage, out, max, n));
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        size_t j = 0;
        while (j < k && strcmp(out[j], out[i]))
            j++;
        if (j == k)
            out[k++] = out[i];
    }
    *n = k;
    return NB_OK;
}

nb_status nb_cli_parse_double(const char *s, const char *flag, double lo, double hi, double *out)
{
    double v;
    nb_num_result nr = nb_num_double(s, &v);
    if (nr != NB_NUM_OK)
        return nb_set_error(NB_ERR_INVALID_ARG, "--%s '%s' %s", flag, s ? s : "", nb_num_why(nr));
    if (v < lo || v > hi)
        return nb_set_error(NB_ERR_INVALID_ARG, "--%s %g outside [%g, %g]", flag, v, lo, hi);
    *out = v;
    return NB_OK;
}

nb_status nb_cli_parse_size(const char *s, const char *flag, unsigned long long lo,
                            unsigned long long hi, size_t *out)
{
    uint64_t v;
    nb_num_result nr = nb_num_u64(s, &v);
    if (nr != NB_NUM_OK)
        return nb_set_error(NB_ERR_INVALID_ARG, "--%s '%s' %s", flag, s ? s : "", nb_num_why(nr));
    if (v < lo || v > hi)
        return nb_set_error(NB_ERR_INVALID_ARG, "--%s %llu outside [%llu, %llu]", flag,
                            (unsigned long long)v, lo, hi);
    *out = (size_t)v;
    return NB_OK;
}

nb_status nb_cli_parse_u64(const char *s, const char *flag, uint64_t *out)
{
    nb_num_result nr = nb_num_u64(s, out);
    if (nr != NB_NUM_OK)
        return nb_set_error(NB_ERR_INVALID_ARG, "--%s '%s' %s", flag, s ? s : "", nb_num_why(nr));
    return NB_OK;
}

/* The option of `tables` that argument a ("--name" or "--name=value") names,
 * or NULL; *eq: its '=' or NULL. *known: 0 when a is no "--name" at all. */
static const nb_cli_option *lookup(const nb_cli_option *const *tables, const char *a,
                                   const char **eq, int *known)
{
    *eq = NULL;
    *known = 0;
    if (strncmp(a, "--", 2) != 0 || a[2] == '\0')
        return NULL;
    *known = 1;
    *eq = strchr(a + 2, '=');
    const size_t len = *eq ? (size_t)(*eq - (a + 2)) : strlen(a + 2);
    for (size_t t = 0; tables[t]; t++)
        for (const nb_cli_option *o = tables[t]; o->name; o++)
            if (strlen(o->name) == len && !strncmp(o->name, a + 2, len))
                return o;
    return NULL;
}

/* Whether option o (taking a value) was already given in argv[0..end), read
 * as nb_cli_next_option reads it: an option's value is skipped. */
static int given_before(int end, char **argv, const nb_cli_option *const *tables,
                        const nb_cli_option *o)
{
    for (int j = 0; j < end; j++) {
        const char *eq;
        int known;
        const nb_cli_option *p = lookup(tables, argv[j], &eq, &known);
        if (p == o)
            return 1;
        if (p && p->takes_value && !eq)
            j++;
    }
    return 0;
}

nb_status nb_cli_other_mode(const char *a, const nb_cli_option *const *tables,
                            const nb_cli_option *const *other, const char *why)
{
    const char *eq;
    int known;
    const nb_cli_option *o = lookup(other, a, &eq, &known);
    if (o && !lookup(tables, a, &eq, &known))
        nb_set_error(NB_ERR_INVALID_ARG, "--%s %s", o->name, why);
    return NB_ERR_INVALID_ARG;
}

int nb_cli_takes_value(const nb_cli_option *const *tables, const char *a)
{
    const char *eq;
    int known;
    const nb_cli_option *o = lookup(tables, a, &eq, &known);
    return o && o->takes_value && !eq;
}

int nb_cli_next_option(int argc, char **argv, int *i, const nb_cli_option *const *tables,
                       const char **name, const char **value)
{
    const char *a = argv[*i], *eq;
    int known;
    const nb_cli_option *o = lookup(tables, a, &eq, &known);
    if (!known)
        return 0;
    if (!o) {
        const size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
        nb_set_error(NB_ERR_INVALID_ARG, "unknown option '--%.*s' (see --help)",
                     (int)(len < 100 ? len : 100), a + 2);
        return -1;
    }
    /* an option whose help says "repeatable" (--filter) may be given again */
    if (o->takes_value && !strstr(o->help, "repeatable") && given_before(*i, argv, tables, o)) {
        const int list = !strncmp(o->help, "LIST", 4);
        nb_set_error(NB_ERR_INVALID_ARG, "--%s given twice: give it once%s%s%s", o->name,
                     list ? " (a list takes commas: --" : "", list ? o->name : "",
                     list ? " A,B)" : "");
        return -1;
    }
    *name = o->name;
    (*i)++;
    if (!o->takes_value) {
        if (eq) {
            nb_set_error(NB_ERR_INVALID_ARG, "option --%s takes no value", o->name);
            return -1;
        }
        *value = NULL;
        return 1;
    }
    if (eq) {
        *value = eq + 1;
        return 1;
    }
    if (*i >= argc) {
        nb_set_error(NB_ERR_INVALID_ARG, "option --%s needs a value", o->name);
        return -1;
    }
    if (nb_cli_looks_like_option(o->name, argv[*i]))
        return -1;
    *value = argv[(*i)++];
    return 1;
}

int nb_cli_looks_like_option(const char *opt, const char *a)
{
    if (strncmp(a, "--", 2) != 0 || a[2] == '\0')
        return 0;
    nb_set_error(NB_ERR_INVALID_ARG,
                 "option --%s needs a value before '%.100s' (a value that starts with '--' is "
                 "written --%s=VALUE)",
                 opt, a, opt);
    return 1;
}

void nb_cli_print_options(FILE *f, const nb_cli_option *table)
{
    for (const nb_cli_option *o = table; o->name; o++) {
        char head[64];
        snprintf(head, sizeof head, "--%s", o->name);
        fprintf(f, "  %-22s %s\n", head, o->help);
    }
}

int nb_cli_output_is_file(const char *output)
{
    char resolved[PATH_MAX];
    nb_output_kind kind;
    return output && nb_output_classify(output, &kind, resolved) == NB_OK &&
           (kind == NB_OUTPUT_REGULAR || kind == NB_OUTPUT_NEW);
}

nb_status nb_cli_parse_directions(const char *s, int *out)
{
    char *storage, *words[4];
    size_t n;
    NB_TRY(nb_cli_parse_words(s, "direction", &storage, words, 4, &n));
    int dirs = 0;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(words[i], "forward") || !strcmp(words[i], "fwd"))
            dirs |= 1;
        else if (!strcmp(words[i], "inverse") || !strcmp(words[i], "inv"))
            dirs |= 2;
        else if (!strcmp(words[i], "both"))
            dirs |= 3;
        else {
            nb_status st = nb_set_error(NB_ERR_INVALID_ARG, "--direction '%s': forward, inverse, "
                                        "forward,inverse or both", words[i]);
            free(storage);
            return st;
        }
    }
    free(storage);
    *out = dirs;
    return NB_OK;
}

nb_status nb_cli_parse_words_bits(const char *s, unsigned *out)
{
    unsigned long long v[4];
    size_t n;
    NB_TRY(nb_cli_parse_ulist(s, "word", 0, 1u << 20, v, 4, &n)); /* 32 or 64: below */
    unsigned words = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] != 32 && v[i] != 64)
            return nb_set_error(NB_ERR_INVALID_ARG, "--word %llu: 32 or 64 (bits per word)", v[i]);
        words |= NB_CLI_WORD(v[i]);
    }
    *out = words;
    return NB_OK;
}

nb_status nb_cli_check_word(const nb_ntt_variant *v, unsigned words)
{
    if (words & NB_CLI_WORD(v->word_bits))
        return NB_OK;
    return nb_set_error(NB_ERR_INVALID_ARG, "variant '%s' has %u-bit words, not in --word %s",
                        v->name, v->word_bits, words == NB_CLI_WORD(32) ? "32" : "64");
}

nb_status nb_cli_find_variant(const char *name, const nb_ntt_variant **v)
{
    if ((*v = nb_ntt_variant_find(name)))
        return NB_OK;
    return nb_builtin_is_gpu_name(name) ? NB_ERR_NO_DEVICE : NB_ERR_NOT_FOUND;
}

int nb_cli_exit_code(nb_status s)
{
    switch (s) {
    case NB_OK: return NB_EXIT_OK;
    case NB_ERR_VERIFY: return NB_EXIT_VERIFY;
    case NB_ERR_INVALID_ARG:
    case NB_ERR_NOT_FOUND:
    case NB_ERR_UNSUPPORTED: return NB_EXIT_USAGE;
    default: return NB_EXIT_ENV;
    }
}

int nb_cli_fail(nb_status s, const char *msg)
{
    const char *m = msg && *msg ? msg : nb_status_str(s);
    fputs("nttbench: error: ", stderr);
    for (const unsigned char *p = (const unsigned char *)m; *p; p++) {
        if (*p == '\n')
            fputs("\\n", stderr);
        else if (*p == '\t')
            fputs("\\t", stderr);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(stderr, "\\x%02x", *p);
        else
            fputc(*p, stderr);
    }
    fputc('\n', stderr);
    return nb_cli_exit_code(s);
}

/* Progress: " (~Xs left)" after k of total cases took elapsed_s; empty
 * when it cannot be estimated. */
void nb_cli_eta(char *buf, size_t n, double elapsed_s, size_t k, size_t total)
{
    buf[0] = '\0';
    if (k == 0 || k > total || !(elapsed_s >= 0))
        return;
    const double left = elapsed_s / (double)k * (double)(total - k);
    const unsigned long long s = left < 1e9 ? (unsigned long long)(left + 0.5) : 999999999ull;
    if (s < 60)
        snprintf(buf, n, " (~%llus left)", s);
    else if (s < 3600)
        snprintf(buf, n, " (~%llum%02llus left)", s / 60, s % 60);
    else
        snprintf(buf, n, " (~%lluh%02llum left)", s / 3600, s / 60 % 60);
}

/* Names the first GPU variant of the list that needs the missing device. */
int nb_cli_fail_no_gpu(const nb_ntt_variant *const *vars, size_t nv)
{
    nb_gpu_require();
    const char *first_gpu = NULL;
    for (size_t i = 0; i < nv && !first_gpu; i++)
        if (vars[i]->backend == NB_BACKEND_GPU)
            first_gpu = vars[i]->name;
    char msg[600];
    if (first_gpu)
        snprintf(msg, sizeof msg, "%.500s (needed for GPU variant '%s')", nb_last_error(),
                 first_gpu);
    else
        snprintf(msg, sizeof msg, "%.500s (--backend gpu)", nb_last_error());
    return nb_cli_fail(NB_ERR_NO_DEVICE, msg);
}

nb_status nb_cli_parse_backend(const char *v, nb_cli_backend *out)
{
    if (!strcmp(v, "cpu"))
        *out = NB_CLI_CPU;
    else if (!strcmp(v, "gpu"))
        *out = NB_CLI_GPU;
    else if (!strcmp(v, "auto"))
        *out = NB_CLI_AUTO;
    else
        return nb_set_error(NB_ERR_INVALID_ARG, "--backend '%s': cpu, gpu or auto", v);
    return NB_OK;
}

int nb_cli_stat_arg(const char *path, struct stat *st)
{
    return strcmp(path, "-") ? stat(path, st) : fstat(STDIN_FILENO, st);
}

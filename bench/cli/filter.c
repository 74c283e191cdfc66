/* --filter REGEX of run, verify and compare: POSIX extended regular
 * expressions matched against a case's name; a case is kept when any of
 * them matches (or when none is given). Patterns are bounded (length,
 * repetitions) before they are compiled: glibc's regcomp copies a
 * sub-expression per quantifier, so 'e++++...' would take gigabytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/cli.h"

#define FILTER_MAX_LEN 256       /* characters of one pattern                    */
#define FILTER_MAX_QUANTIFIERS 16 /* *, +, ? and {..} of one pattern               */
#define FILTER_MAX_REPEAT 64      /* the largest bound of an interval {m,n}        */

#define FILTER_MAX_EXPANDED 4096 /* characters once every repetition is copied out */

/* The repetition factor of the quantifier at p (0 if none) and its length:
 * a bounded {m,n} copies its operand n times ({m} m, {m,} m + 1), and *, +
 * and ? about twice. */
static double quantifier(const char *p, size_t *len)
{
    *len = 1;
    if (*p == '*' || *p == '+' || *p == '?')
        return 2.0;
    if (*p != '{')
        return 0.0;
    char *e;
    const long m = strtol(p + 1, &e, 10);
    long n = m;
    if (*e == ',')
        n = e[1] == '}' ? m + 1 : strtol(e + 1, &e, 10);
    const char *close = strchr(p, '}');
    *len = close ? (size_t)(close - p) + 1 : strlen(p);
    return n > 1 ? (double)n : 1.0;
}

/* How large the pattern grows once each character is copied as often as the
 * repetitions around it say (groups nested inside repeated groups multiply):
 * regcomp's tree is about that size. */
static double expanded_size(const char *p)
{
    const size_t n = strlen(p);
    double w[FILTER_MAX_LEN + 1];
    size_t open[FILTER_MAX_LEN], depth = 0, last_atom = 0;
    int closed = 0; /* the last token closed a group */
    for (size_t i = 0; i < n; i++)
        w[i] = 1.0;
    for (size_t i = 0; i < n;) {
        size_t len;
        const double f = quantifier(p + i, &len);
        if (f > 0.0) {
            if (closed) /* the group just closed, open[depth] its start */
                for (size_t k = open[depth]; k < i; k++)
                    w[k] *= f;
            else
                w[last_atom] *= f;
            closed = 0;
            i += len;
            continue;
        }
        if (p[i] == '[') { /* a bracket expression is one atom; ']' first is a member */
            size_t k = i + 1 + (p[i + 1] == '^');
            k += p[k] == ']';
            while (k < n && p[k] != ']')
                k++;
            last_atom = i;
            closed = 0;
            i = k < n ? k + 1 : n;
            continue;
        }
        closed = p[i] == ')' && depth > 0;
        if (p[i] == '(')
            open[depth++] = i; /* depth <= n <= FILTER_MAX_LEN */
        else if (closed)
            depth--; /* its start stays in open[depth] for a quantifier right after */
        last_atom = i;
        i += p[i] == '\\' && p[i + 1] ? 2 : 1;
    }
    double total = 0.0;
    for (size_t i = 0; i < n; i++)
        total += w[i];
    return total;
}

/* NULL if the pattern is within the limits that keep regcomp's work small
 * (its tree is copied once per quantifier, so stacked, nested or large
 * repetitions grow it exponentially), else what is wrong. */
static const char *too_complex(const char *p)
{
    if (strlen(p) > FILTER_MAX_LEN)
        return "longer than 256 characters";
    int quantifiers = 0, prev_quantifier = 0;
    for (const char *c = p; *c; c++) {
        if (*c == '\\' && c[1]) { /* an escaped character is a literal */
            c++;
            prev_quantifier = 0;
            continue;
        }
        const int q = *c == '*' || *c == '+' || *c == '?' || *c == '{';
        if (q && prev_quantifier)
            return "a repetition of a repetition (such as 'a++' or 'a*{2}')";
        if (q && ++quantifiers > FILTER_MAX_QUANTIFIERS)
            return "more than 16 repetitions (*, +, ?, {m,n})";
        if (*c == '{') {
            for (c++; *c && *c != '}'; c++)
                if (*c >= '0' && *c <= '9' && strtol(c, NULL, 10) > FILTER_MAX_REPEAT)
                    return "a repetition count above 64";
            if (!*c)
                break;
        }
        prev_quantifier = q;
    }
    if (expanded_size(p) > FILTER_MAX_EXPANDED)
        return "repetitions nested too deep (such as '((a{64}){64}){64}': the pattern grows "
               "past 4096 characters once its repetitions are copied out)";
    return NULL;
}

nb_status nb_cli_filter_add(nb_cli_filter *f, const char *pattern)
{
    if (f->n == NB_CLI_MAX_FILTERS)
        return nb_set_error(NB_ERR_INVALID_ARG, "--filter: at most %d of them",
                            NB_CLI_MAX_FILTERS);
    if (!*pattern)
        return nb_set_error(NB_ERR_INVALID_ARG, "--filter '': an empty pattern keeps every case "
                                                "(leave --filter out to keep them all)");
    const char *why_not = too_complex(pattern);
    if (why_not)
        return nb_set_error(NB_ERR_INVALID_ARG, "--filter '%.200s': %s", pattern, why_not);
    int rc = regcomp(&f->re[f->n], pattern, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char why[160];
        regerror(rc, &f->re[f->n], why, sizeof why);
        regfree(&f->re[f->n]);
        return nb_set_error(NB_ERR_INVALID_ARG, "--filter '%.200s': %s", pattern, why);
    }
    f->n++;
    return NB_OK;
}

int nb_cli_filter_match(const nb_cli_filter *f, const char *name)
{
    if (!f || f->n == 0)
        return 1;
    for (size_t i = 0; i < f->n; i++)
        if (regexec(&f->re[i], name, 0, NULL, 0) == 0)
            return 1;
    return 0;
}

void nb_cli_filter_free(nb_cli_filter *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++)
        regfree(&f->re[i]);
    f->n = 0;
}

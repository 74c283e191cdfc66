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

/* NULL if the pattern is within the limits that keep regcomp's work small
 * (its tree is copied once per quantifier, so stacked or large repetitions
 * grow it exponentially), else what is wrong. */
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
    return NULL;
}

nb_status nb_cli_filter_add(nb_cli_filter *f, const char *pattern)
{
    if (f->n == NB_CLI_MAX_FILTERS)
        return nb_set_error(NB_ERR_INVALID_ARG, "--filter: at most %d of them",
                            NB_CLI_MAX_FILTERS);
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

/* --filter REGEX of run, verify and compare: POSIX extended regular
 * expressions matched against a case's name; a case is kept when any of
 * them matches (or when none is given). */
#include <stdio.h>
#include <string.h>

#include "bench/cli/cli.h"

nb_status nb_cli_filter_add(nb_cli_filter *f, const char *pattern)
{
    if (f->n == NB_CLI_MAX_FILTERS)
        return nb_set_error(NB_ERR_INVALID_ARG, "--filter: at most %d of them",
                            NB_CLI_MAX_FILTERS);
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

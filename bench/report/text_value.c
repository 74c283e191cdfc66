/* The text form of a value that writers in different files share (a
 * percentage), so that none of them needs another. */
#include <math.h>
#include <stdio.h>

#include "bench/report/internal.h"

void nb_text_fmt_pct(char *buf, size_t n, double frac, int decimals)
{
    if (isfinite(frac))
        snprintf(buf, n, "%.*f %%", decimals, 100.0 * frac);
    else
        snprintf(buf, n, "-");
}

/* Strict decimal parsing (see numparse.h): the grammar is checked by hand
 * before any conversion, so the C library's base detection, blank skipping
 * and sign handling never apply. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/numparse.h"

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

nb_num_result nb_num_u64n(const char *s, size_t len, uint64_t *out)
{
    if (!s || len == 0)
        return NB_NUM_EMPTY;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!is_digit(s[i]))
            return NB_NUM_SYNTAX;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return NB_NUM_OVERFLOW;
        v = v * 10 + d;
    }
    if (len > 1 && s[0] == '0')
        return NB_NUM_LEADING_ZERO;
    *out = v;
    return NB_NUM_OK;
}

nb_num_result nb_num_u64(const char *s, uint64_t *out)
{
    return nb_num_u64n(s, s ? strlen(s) : 0, out);
}

/* Length of the run of digits at s. */
static size_t digits(const char *s)
{
    size_t n = 0;
    while (is_digit(s[n]))
        n++;
    return n;
}

nb_num_result nb_num_double(const char *s, double *out)
{
    if (!s || !*s)
        return NB_NUM_EMPTY;
    size_t ip = digits(s);
    if (ip == 0)
        return NB_NUM_SYNTAX;
    if (ip > 1 && s[0] == '0')
        return NB_NUM_LEADING_ZERO;
    const char *p = s + ip;
    if (*p == '.') {
        size_t fp = digits(p + 1);
        if (fp == 0)
            return NB_NUM_SYNTAX;
        p += 1 + fp;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        size_t ep = digits(p);
        if (ep == 0)
            return NB_NUM_SYNTAX;
        p += ep;
    }
    if (*p != '\0')
        return NB_NUM_SYNTAX;
    errno = 0;
    double v = strtod(s, NULL);
    if (errno == ERANGE || !isfinite(v))
        return NB_NUM_OVERFLOW;
    *out = v;
    return NB_NUM_OK;
}

const char *nb_num_why(nb_num_result r)
{
    switch (r) {
    case NB_NUM_OK: return "is a number";
    case NB_NUM_EMPTY: return "is empty (a decimal number is expected)";
    case NB_NUM_LEADING_ZERO: return "has a leading zero (decimal only: write it without)";
    case NB_NUM_OVERFLOW: return "is out of range";
    case NB_NUM_SYNTAX: break;
    }
    return "is not a decimal number (digits only: no sign, blanks or base prefix)";
}

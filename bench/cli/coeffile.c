/* Readers of coefficient files (format in coeffile.h). The text reader reads
 * a line byte by byte, so a NUL byte is rejected where it stands and a line
 * past its bound fails before it is held; both stop at the value past their
 * maximum. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/coeffile.h"
#include "bench/cli/numparse.h"

/* Appends x to the growing array *v (capacity *cap, count *cnt). */
static nb_status push(uint64_t **v, size_t *cap, size_t *cnt, uint64_t x)
{
    if (*cnt == *cap) {
        size_t nc = *cap ? 2 * *cap : 4096;
        uint64_t *nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
        *v = nv;
        *cap = nc;
    }
    (*v)[(*cnt)++] = x;
    return NB_OK;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* One line (len bytes, newline removed). Sets *has to 1 and *x when the line
 * holds a number, 0 for a blank or comment line; NB_ERR_IO when malformed. */
static nb_status parse_line(const char *s, size_t len, const char *name, size_t lineno,
                            int *has, uint64_t *x)
{
    *has = 0;
    if (len && s[len - 1] == '\r')
        len--;
    size_t a = 0, b = len;
    while (a < b && is_blank(s[a]))
        a++;
    if (a < b && s[a] == '#')
        return NB_OK;
    while (b > a && is_blank(s[b - 1]))
        b--;
    if (a == b)
        return NB_OK;
    nb_num_result r = nb_num_u64n(s + a, b - a, x);
    if (r == NB_NUM_OVERFLOW)
        return nb_set_error(NB_ERR_IO, "%s:%zu: value above 2^64 - 1", name, lineno);
    if (r == NB_NUM_LEADING_ZERO)
        return nb_set_error(NB_ERR_IO, "%s:%zu: '%.*s' %s", name, lineno,
                            (int)(b - a < 40 ? b - a : 40), s + a, nb_num_why(r));
    if (r != NB_NUM_OK)
        return nb_set_error(NB_ERR_IO,
                            "%s:%zu: expected one unsigned decimal number (optionally "
                            "surrounded by blanks) or a '#' comment",
                            name, lineno);
    *has = 1;
    return NB_OK;
}

/* The too-many failure of a reader that found a value past max. */
static nb_status too_many(const char *name, size_t max, const char *why)
{
    return nb_set_error(NB_ERR_IO, "'%s' holds more than %zu values%s", name, max, why);
}

/* Reads one line into *line (capacity *cap; the newline not kept) and its
 * length into *len: 1, or 0 at the end of the stream with nothing read. A
 * NUL byte or a line past NB_COEFF_MAX_LINE bytes fails at once, so that an
 * endless line is never held. */
static int read_line(FILE *f, const char *name, size_t lineno, char **line, size_t *cap,
                     size_t *len, nb_status *s)
{
    int c, any = 0;
    *len = 0;
    while ((c = getc(f)) != EOF) {
        any = 1;
        if (c == '\n')
            break;
        if (c == '\0' || *len >= NB_COEFF_MAX_LINE) {
            *s = c == '\0' ? nb_set_error(NB_ERR_IO, "%s:%zu: NUL byte in a text file", name,
                                          lineno)
                           : nb_set_error(NB_ERR_IO, "%s:%zu: line longer than %zu bytes",
                                          name, lineno, NB_COEFF_MAX_LINE);
            return 0;
        }
        if (*len + 1 >= *cap) {
            size_t nc = *cap ? 2 * *cap : 256;
            char *nl = realloc(*line, nc);
            if (!nl) {
                *s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
                return 0;
            }
            *line = nl;
            *cap = nc;
        }
        (*line)[(*len)++] = (char)c;
    }
    return any;
}

nb_status nb_coeff_read_text(FILE *f, const char *name, size_t max, const char *why,
                             uint64_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    uint64_t *v = NULL;
    size_t cap = 0, cnt = 0, lineno = 0, bufcap = 0, len = 0;
    char *line = NULL;
    nb_status s = NB_OK;
    errno = 0;
    while (s == NB_OK && read_line(f, name, lineno + 1, &line, &bufcap, &len, &s)) {
        lineno++;
        int has;
        uint64_t x;
        s = parse_line(line ? line : "", len, name, lineno, &has, &x);
        if (s == NB_OK && has)
            s = cnt < max ? push(&v, &cap, &cnt, x) : too_many(name, max, why);
    }
    if (s == NB_OK && ferror(f))
        s = nb_set_error(NB_ERR_IO, "cannot read '%s': %s", name,
                         strerror(errno ? errno : EIO));
    free(line);
    if (s != NB_OK) {
        free(v);
        return s;
    }
    *out = v;
    *n = cnt;
    return NB_OK;
}

nb_status nb_coeff_read_raw(FILE *f, const char *name, size_t max, const char *why,
                            uint64_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    uint64_t *v = NULL;
    size_t cap = 0, cnt = 0, got;
    unsigned char b[8];
    nb_status s = NB_OK;
    errno = 0;
    while (s == NB_OK && (got = fread(b, 1, 8, f)) == 8) {
        uint64_t x = 0;
        for (int k = 7; k >= 0; k--)
            x = x << 8 | b[k];
        s = cnt < max ? push(&v, &cap, &cnt, x) : too_many(name, max, why);
    }
    if (s == NB_OK && ferror(f))
        s = nb_set_error(NB_ERR_IO, "cannot read '%s': %s", name,
                         strerror(errno ? errno : EIO));
    else if (s == NB_OK && got != 0)
        s = nb_set_error(NB_ERR_IO, "'%s': size is not a multiple of 8 bytes (raw uint64)", name);
    if (s != NB_OK) {
        free(v);
        return s;
    }
    *out = v;
    *n = cnt;
    return NB_OK;
}

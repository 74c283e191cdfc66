/* Readers of coefficient files (format in coeffile.h). The text reader takes
 * whole lines with getline(), so a line's length is unbounded, its number is
 * exact and a NUL byte inside it is seen (and rejected). */
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
    if (memchr(s, '\0', len))
        return nb_set_error(NB_ERR_IO, "%s:%zu: NUL byte in a text file", name, lineno);
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

nb_status nb_coeff_read_text(FILE *f, const char *name, uint64_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    uint64_t *v = NULL;
    size_t cap = 0, cnt = 0, lineno = 0, bufcap = 0;
    char *line = NULL;
    nb_status s = NB_OK;
    ssize_t got;
    errno = 0;
    while (s == NB_OK && (got = getline(&line, &bufcap, f)) >= 0) {
        lineno++;
        size_t len = (size_t)got;
        if (len && line[len - 1] == '\n')
            len--;
        int has;
        uint64_t x;
        s = parse_line(line, len, name, lineno, &has, &x);
        if (s == NB_OK && has)
            s = push(&v, &cap, &cnt, x);
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

nb_status nb_coeff_read_raw(FILE *f, const char *name, uint64_t **out, size_t *n)
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
        s = push(&v, &cap, &cnt, x);
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

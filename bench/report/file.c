/* nb_report_write (the dispatch to one writer per format) and the atomic
 * file writer: temporary file, flush, fsync, rename. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/report/internal.h"

nb_status nb_report_write(const nb_report *r, nb_format fmt, FILE *f)
{
    if (!r || !f)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_report_write: NULL argument");
    nb_status s = NB_OK;
    switch (fmt) {
    case NB_FORMAT_JSON: s = nb_report_write_json(r, f); break;
    case NB_FORMAT_CSV: s = nb_report_write_csv(r, f); break;
    case NB_FORMAT_MD: s = nb_report_write_markdown(r, f); break;
    case NB_FORMAT_TABLE: s = nb_report_write_table(r, f); break;
    default: s = nb_set_error(NB_ERR_INVALID_ARG, "unknown format %d", (int)fmt);
    }
    if (s == NB_OK && ferror(f))
        s = nb_set_error(NB_ERR_IO, "write error: %s", strerror(errno));
    return s;
}

/* ------------------------------------------------------------ atomic files */

nb_status nb_write_file_atomic(const char *path, nb_writer_fn fn, void *ctx)
{
    if (!path || !fn)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_write_file_atomic: NULL argument");
    if (strcmp(path, "-") == 0) {
        nb_status s = fn(ctx, stdout);
        fflush(stdout);
        return s;
    }
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (!tmp)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        nb_status s = nb_set_error(NB_ERR_IO, "cannot create '%s': %s", tmp, strerror(errno));
        free(tmp);
        return s;
    }
    nb_status s = fn(ctx, f);
    if (s == NB_OK && fflush(f) != 0)
        s = nb_set_error(NB_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
    if (s == NB_OK && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS)
        s = nb_set_error(NB_ERR_IO, "cannot sync '%s': %s", tmp, strerror(errno));
    if (fclose(f) != 0 && s == NB_OK)
        s = nb_set_error(NB_ERR_IO, "cannot close '%s': %s", tmp, strerror(errno));
    if (s == NB_OK && rename(tmp, path) != 0)
        s = nb_set_error(NB_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path,
                         strerror(errno));
    if (s != NB_OK)
        unlink(tmp);
    free(tmp);
    return s;
}

typedef struct report_writer {
    const nb_report *r;
    nb_format fmt;
} report_writer;

static nb_status write_report_cb(void *ctx, FILE *f)
{
    const report_writer *w = ctx;
    return nb_report_write(w->r, w->fmt, f);
}

nb_status nb_report_write_file(const nb_report *r, nb_format fmt, const char *path)
{
    report_writer w = {r, fmt};
    return nb_write_file_atomic(path, write_report_cb, &w);
}

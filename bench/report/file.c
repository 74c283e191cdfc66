/* nb_report_write (the dispatch to one writer per format) and the output
 * file writer: a regular file (or a new path) is replaced atomically
 * (temporary file beside it, flush, fsync, rename); a symlink is followed and
 * its target replaced; devices, FIFOs, sockets and /dev, /proc paths are
 * written through; a directory is refused. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* ------------------------------------------------------------ output paths */

/* Follows the symlinks of `path` (at most 40) into out (PATH_MAX bytes): the
 * path the data goes to. A relative link target is taken relative to the
 * link's folder. A dangling link resolves to its (missing) target. */
static nb_status resolve_links(const char *path, char *out)
{
    if (strlen(path) >= PATH_MAX)
        return nb_set_error(NB_ERR_INVALID_ARG, "output path too long");
    strcpy(out, path);
    for (int hop = 0; hop < 40; hop++) {
        struct stat lst;
        if (lstat(out, &lst) != 0 || !S_ISLNK(lst.st_mode))
            return NB_OK;
        char target[PATH_MAX];
        ssize_t n = readlink(out, target, sizeof target - 1);
        if (n < 0)
            return nb_set_error(NB_ERR_IO, "cannot read the link '%s': %s", out, strerror(errno));
        target[n] = '\0';
        if (target[0] == '/') {
            strcpy(out, target);
            continue;
        }
        char *slash = strrchr(out, '/');
        size_t dir = slash ? (size_t)(slash - out) + 1 : 0;
        if (dir + (size_t)n >= PATH_MAX)
            return nb_set_error(NB_ERR_INVALID_ARG, "output path too long");
        memcpy(out + dir, target, (size_t)n + 1);
    }
    return nb_set_error(NB_ERR_INVALID_ARG, "output '%s': too many levels of symbolic links",
                        path);
}

static int under_system_tree(const char *p)
{
    return !strncmp(p, "/dev/", 5) || !strncmp(p, "/proc/", 6);
}

nb_status nb_output_classify(const char *path, nb_output_kind *kind, char *resolved)
{
    if (!path || !kind || !resolved)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_output_classify: NULL argument");
    if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout") || !strcmp(path, "/dev/fd/1")) {
        *kind = NB_OUTPUT_STDOUT;
        strcpy(resolved, "-");
        return NB_OK;
    }
    if (!path[0])
        return nb_set_error(NB_ERR_INVALID_ARG, "--output needs a file name");
    /* /dev/stderr, /proc/self/fd/N and the like name open files, not places */
    if (under_system_tree(path)) {
        *kind = NB_OUTPUT_STREAM;
        snprintf(resolved, PATH_MAX, "%s", path);
        return NB_OK;
    }
    NB_TRY(resolve_links(path, resolved));
    struct stat st;
    if (stat(resolved, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return nb_set_error(NB_ERR_INVALID_ARG, "output '%s' is a directory", path);
        *kind = S_ISREG(st.st_mode) && !under_system_tree(resolved) ? NB_OUTPUT_REGULAR
                                                                    : NB_OUTPUT_STREAM;
        return NB_OK;
    }
    if (errno != ENOENT)
        return nb_set_error(NB_ERR_IO, "output '%s': %s", path, strerror(errno));
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", resolved);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir ? 1 : 0] = '\0';
    if (stat(slash ? dir : ".", &st) != 0 || !S_ISDIR(st.st_mode))
        return nb_set_error(NB_ERR_INVALID_ARG, "output '%s': the folder '%s' does not exist",
                            path, slash ? dir : ".");
    *kind = NB_OUTPUT_NEW;
    return NB_OK;
}

/* Writes straight into an existing non-regular file (device, FIFO, socket). */
static nb_status write_through(const char *path, nb_writer_fn fn, void *ctx)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return nb_set_error(NB_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    nb_status s = fn(ctx, f);
    if (fclose(f) != 0 && s == NB_OK)
        s = nb_set_error(NB_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    return s;
}

/* The temporary file's lifetime: written, synced, renamed over `path` (its
 * mode kept when it existed) or removed. SIGINT, SIGTERM, SIGHUP and SIGQUIT
 * are held back meanwhile, so a signal never leaves the temporary behind; a
 * held signal is delivered once the file is in place or removed. */
static nb_status replace_file(const char *path, nb_writer_fn fn, void *ctx)
{
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (!tmp)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
    sigset_t hold, old;
    sigemptyset(&hold);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    sigaddset(&hold, SIGHUP);
    sigaddset(&hold, SIGQUIT);
    sigprocmask(SIG_BLOCK, &hold, &old);
    struct stat prev;
    const int existed = stat(path, &prev) == 0;
    nb_status s = NB_OK;
    FILE *f = fopen(tmp, "w");
    if (!f) {
        s = nb_set_error(NB_ERR_IO, "cannot create '%s': %s", tmp, strerror(errno));
    } else {
        s = fn(ctx, f);
        if (s == NB_OK && fflush(f) != 0)
            s = nb_set_error(NB_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
        if (s == NB_OK && existed)
            (void)fchmod(fileno(f), prev.st_mode & 07777);
        if (s == NB_OK && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS)
            s = nb_set_error(NB_ERR_IO, "cannot sync '%s': %s", tmp, strerror(errno));
        if (fclose(f) != 0 && s == NB_OK)
            s = nb_set_error(NB_ERR_IO, "cannot close '%s': %s", tmp, strerror(errno));
        if (s == NB_OK && rename(tmp, path) != 0)
            s = nb_set_error(NB_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path,
                             strerror(errno));
        if (s != NB_OK)
            unlink(tmp);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    free(tmp);
    return s;
}

nb_status nb_write_file_atomic(const char *path, nb_writer_fn fn, void *ctx)
{
    if (!path || !fn)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_write_file_atomic: NULL argument");
    char resolved[PATH_MAX];
    nb_output_kind kind;
    NB_TRY(nb_output_classify(path, &kind, resolved));
    if (kind == NB_OUTPUT_STDOUT) {
        nb_status s = fn(ctx, stdout);
        if (fflush(stdout) != 0 && s == NB_OK)
            s = nb_set_error(NB_ERR_IO, "cannot write to stdout: %s", strerror(errno));
        return s;
    }
    if (kind == NB_OUTPUT_STREAM)
        return write_through(resolved, fn, ctx);
    if (kind == NB_OUTPUT_REGULAR && access(resolved, W_OK) != 0)
        return nb_set_error(NB_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    return replace_file(resolved, fn, ctx);
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

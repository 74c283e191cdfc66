/* nb_report_write (the dispatch to one writer per format) and the output
 * file writer: a regular file (or a new path) is replaced atomically
 * (temporary file beside it, flush, fsync, rename); a symlink is followed and
 * its target replaced; devices, FIFOs, sockets and /dev, /proc paths are
 * written through; a directory is refused. Before a long command, the path
 * is claimed: checked for writing and locked against a second writer. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

/* The folder of a resolved path into dir (PATH_MAX bytes): "." for a bare
 * name, "/" for a file at the root. */
static const char *folder_of(const char *resolved, char *dir)
{
    snprintf(dir, PATH_MAX, "%s", resolved);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return ".";
    slash[slash == dir ? 1 : 0] = '\0';
    return dir;
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
    /* /dev/stderr, /proc/self/fd/N and the like name open files, not places:
     * written through, so one that does not exist would be created there */
    if (under_system_tree(path)) {
        struct stat sst;
        if (stat(path, &sst) != 0)
            return nb_set_error(NB_ERR_INVALID_ARG, "output '%s': %s (a path under /dev or "
                                "/proc is written through, never created)", path,
                                strerror(errno));
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
    char buf[PATH_MAX];
    const char *dir = folder_of(resolved, buf);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return nb_set_error(NB_ERR_INVALID_ARG, "output '%s': the folder '%s' does not exist",
                            path, dir);
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
    if (s == NB_OK ? fflush(f) != 0 : ferror(f) != 0)
        s = nb_set_error(NB_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
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
        if (s == NB_OK ? fflush(f) != 0 : ferror(f) != 0) /* name the file and the cause */
            s = nb_set_error(NB_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
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

/* ------------------------------------------------------------ claims */

struct nb_output_claim {
    char *lock_path;
    int fd;
};

void nb_output_claim_release(nb_output_claim *c)
{
    if (!c)
        return;
    unlink(c->lock_path); /* before the unlock: a waiting process then sees a new file */
    close(c->fd);
    free(c->lock_path);
    free(c);
}

const char *nb_output_claim_lock_path(const nb_output_claim *c)
{
    return c ? c->lock_path : NULL;
}

/* Opens and locks c->lock_path (retrying when another process removed the
 * file between our open and our lock). */
static nb_status lock_file(nb_output_claim *c, const char *path, const char *dir)
{
    for (int tries = 0; tries < 8; tries++) {
        c->fd = open(c->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (c->fd < 0)
            return nb_set_error(NB_ERR_IO, "cannot write the output '%s': cannot create files "
                                "in '%s': %s", path, dir, strerror(errno));
        if (flock(c->fd, LOCK_EX | LOCK_NB) != 0) {
            if (errno != EWOULDBLOCK)
                return NB_OK; /* no locks on this file system: unguarded, as before */
            char pid[24] = "";
            ssize_t n = pread(c->fd, pid, sizeof pid - 1, 0);
            pid[n > 0 ? n : 0] = '\0';
            pid[strcspn(pid, "\n")] = '\0';
            close(c->fd);
            c->fd = -1;
            return nb_set_error(NB_ERR_IO, "output '%s' is being written by another nttbench: "
                                "wait for it or choose another --output (lock file '%s' held "
                                "by process %s)", path, c->lock_path, pid[0] ? pid : "unknown");
        }
        struct stat held, now;
        if (fstat(c->fd, &held) == 0 && stat(c->lock_path, &now) == 0 &&
            held.st_dev == now.st_dev && held.st_ino == now.st_ino) {
            char pid[24];
            int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
            if (ftruncate(c->fd, 0) != 0 || pwrite(c->fd, pid, (size_t)n, 0) != n) {
                /* the id is a courtesy for the message of a second writer */
            }
            return NB_OK;
        }
        close(c->fd); /* removed by its last holder meanwhile: take the new one */
        c->fd = -1;
    }
    return nb_set_error(NB_ERR_IO, "output '%s': cannot lock '%s'", path, c->lock_path);
}

nb_status nb_output_claim_take(nb_output_claim **out, const char *path)
{
    if (!out || !path)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_output_claim_take: NULL argument");
    *out = NULL;
    char resolved[PATH_MAX];
    nb_output_kind kind;
    NB_TRY(nb_output_classify(path, &kind, resolved));
    if (kind == NB_OUTPUT_STDOUT || kind == NB_OUTPUT_STREAM)
        return NB_OK;
    if (kind == NB_OUTPUT_REGULAR && access(resolved, W_OK) != 0)
        return nb_set_error(NB_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    char buf[PATH_MAX];
    const char *dir = folder_of(resolved, buf);
    nb_output_claim *c = calloc(1, sizeof *c);
    size_t len = strlen(resolved) + 32;
    if (!c || !(c->lock_path = malloc(len))) {
        free(c);
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    }
    snprintf(c->lock_path, len, "%s.lock", resolved);
    nb_status s = lock_file(c, path, dir);
    if (s != NB_OK) {
        if (c->fd >= 0)
            close(c->fd);
        free(c->lock_path);
        free(c);
        return s;
    }
    /* the temporary nb_write_file_atomic will create, created and removed now */
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", resolved, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        s = nb_set_error(NB_ERR_IO, "cannot write the output '%s': cannot create files in "
                         "'%s': %s", path, dir, strerror(errno));
        nb_output_claim_release(c);
        return s;
    }
    close(fd);
    unlink(tmp);
    *out = c;
    return NB_OK;
}

nb_status nb_write_file_atomic(const char *path, nb_writer_fn fn, void *ctx)
{
    if (!path || !fn)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_write_file_atomic: NULL argument");
    char resolved[PATH_MAX];
    nb_output_kind kind;
    NB_TRY(nb_output_classify(path, &kind, resolved));
    if (kind == NB_OUTPUT_STDOUT) {
        errno = 0;
        nb_status s = fn(ctx, stdout);
        const int failed = ferror(stdout), e = errno;
        if (s != NB_OK && failed && e) /* the stream's own cause, not the writer's summary */
            s = nb_set_error(NB_ERR_IO, "cannot write to stdout: %s", strerror(e));
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

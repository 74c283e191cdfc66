/* Host interference readings (getrusage, /proc/stat) and the "contended"
 * rule; see contention.h for the thresholds. */
#include "bench/timing/contention.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <limits.h>

#include "bench/timing/internal.h"

void nb_parse_proc_stat(const char *text, long long *total_ticks, long long *steal_ticks,
                        long long *procs_running)
{
    long long unused[3];
    total_ticks = total_ticks ? total_ticks : &unused[0];
    steal_ticks = steal_ticks ? steal_ticks : &unused[1];
    procs_running = procs_running ? procs_running : &unused[2];
    *total_ticks = *steal_ticks = *procs_running = -1;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > 4 && strncmp(line, "cpu ", 4) == 0) {
            long long f[10] = {0}, sum = 0;
            int n = 0;
            const char *p = line + 4;
            while (n < 10 && p < line + len) {
                char *q;
                long long v = strtoll(p, &q, 10);
                if (q == p || v < 0)
                    break;
                f[n++] = v;
                p = q;
            }
            /* user nice system idle iowait irq softirq steal [guest guest_nice]:
             * guest time is already inside user and nice */
            for (int i = 0; i < n && i < 8; i++) {
                if (f[i] > LLONG_MAX - sum) { /* not a count this machine could reach */
                    n = 0;
                    break;
                }
                sum += f[i];
            }
            if (n >= 4)
                *total_ticks = sum;
            if (n >= 8)
                *steal_ticks = f[7];
        } else if (len > 14 && strncmp(line, "procs_running ", 14) == 0) {
            char *q;
            long long v = strtoll(line + 14, &q, 10);
            if (q != line + 14 && v >= 0)
                *procs_running = v;
        }
        line = end ? end + 1 : NULL;
    }
}

char *nb_read_text_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 16384, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - 1 - n, f)) > 0) {
        n += got;
        if (n == cap - 1 && cap < ((size_t)4 << 20)) {
            char *more = realloc(buf, 2 * cap);
            if (!more) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = more;
            cap *= 2;
        } else if (n == cap - 1) {
            break;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

void nb_host_load_read(nb_host_load *l)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    l->t_s = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    struct rusage ru;
    l->ivcsw = getrusage(RUSAGE_SELF, &ru) == 0 ? (long long)ru.ru_nivcsw : -1;
    char *text = nb_read_text_file("/proc/stat");
    nb_parse_proc_stat(text, &l->total_ticks, &l->steal_ticks, &l->procs_running);
    free(text);
}

static void add_reason(nb_contention *c, const char *what)
{
    size_t used = strlen(c->reason);
    snprintf(c->reason + used, sizeof c->reason - used, "%s%s", used ? "; " : "", what);
}

void nb_contention_judge(const nb_host_load *before, const nb_host_load *after, int threads,
                         int cpus, nb_contention *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    out->steal_frac = out->run_queue = -1;
    out->threads = threads;
    out->cpus = cpus;
    if (!before || !after) /* nothing measured, so not contended */
        return;
    const double dt = after->t_s - before->t_s;
    char what[96];
    if (before->ivcsw >= 0 && after->ivcsw >= before->ivcsw && dt > 0) {
        out->measured = 1;
        out->ivcsw = after->ivcsw - before->ivcsw;
        out->ivcsw_per_s = (double)out->ivcsw / dt;
        if (out->ivcsw >= NB_CONTENTION_IVCSW_MIN && out->ivcsw_per_s > NB_CONTENTION_IVCSW_PER_S)
        {
            snprintf(what, sizeof what, "%lld involuntary context switches (%.0f/s)",
                     out->ivcsw, out->ivcsw_per_s);
            add_reason(out, what);
        }
    }
    long long dtot = after->total_ticks - before->total_ticks;
    long long dsteal = after->steal_ticks - before->steal_ticks;
    if (before->total_ticks >= 0 && after->total_ticks >= 0 && before->steal_ticks >= 0 &&
        after->steal_ticks >= 0 && dtot > 0 && dsteal >= 0) {
        out->measured = 1;
        out->steal_frac = (double)dsteal / (double)dtot;
        if (out->steal_frac > NB_CONTENTION_STEAL_FRAC)
        {
            snprintf(what, sizeof what, "steal time %.0f%% of CPU time", 100.0 * out->steal_frac);
            add_reason(out, what);
        }
    }
    if (before->procs_running >= 1 && after->procs_running >= 1 && cpus > 0) {
        out->measured = 1;
        out->run_queue = 0.5 * (double)(before->procs_running + after->procs_running);
        /* the reading thread is one of the runnable; the case's threads run on top */
        double others = out->run_queue - 1.0;
        double excess = others + (threads > 0 ? threads : 1) - cpus;
        if (others > 0 && excess >= NB_CONTENTION_RUNQ_EXCESS) {
            snprintf(what, sizeof what, "%.1f other runnable threads beside our %d", others,
                     threads > 0 ? threads : 1);
            add_reason(out, what);
        }
    }
    if (out->reason[0] && cpus > 0) {
        size_t used = strlen(out->reason);
        snprintf(out->reason + used, sizeof out->reason - used, " on %d CPUs", cpus);
    }
    out->contended = out->reason[0] != '\0';
}

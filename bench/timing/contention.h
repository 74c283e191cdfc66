/* Host interference around a CPU measurement: readings of the process's
 * involuntary context switches, the run queue (/proc/stat procs_running) and
 * steal time (/proc/stat), and the rule that calls a case "contended". The
 * parsers are pure functions over the text of /proc files, so the rule is
 * testable with synthetic readings. */
#ifndef NB_BENCH_CONTENTION_H
#define NB_BENCH_CONTENTION_H

#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Thresholds of nb_contention_judge (documented in docs/methodology.md). */
#define NB_CONTENTION_IVCSW_PER_S 50.0 /* involuntary switches per second of sampling */
#define NB_CONTENTION_IVCSW_MIN 10     /* ... and at least this many in all */
#define NB_CONTENTION_STEAL_FRAC 0.05  /* steal ticks / all ticks over the sampling */
#define NB_CONTENTION_RUNQ_EXCESS 1.0  /* mean runnable threads beyond the online CPUs */

/* One reading of the host. Fields a reading could not obtain are -1. */
typedef struct nb_host_load {
    double t_s;                      /* monotonic seconds */
    long long ivcsw;                 /* involuntary context switches of this process */
    long long total_ticks, steal_ticks; /* aggregate "cpu" line of /proc/stat */
    long long procs_running;         /* runnable threads on the host, this one included */
} nb_host_load;

/* The interference over one sampling phase. */
typedef struct nb_contention {
    int measured;          /* 0: no reading was available (fields below are 0) */
    int contended;         /* 1 if any threshold was crossed */
    long long ivcsw;       /* involuntary switches between the readings */
    double ivcsw_per_s;
    double steal_frac;     /* -1 when unknown */
    double run_queue;      /* mean of procs_running at the two readings (-1 unknown) */
    int threads, cpus;     /* the case's worker threads, online CPUs */
    char reason[160];      /* what crossed a threshold, "" when not contended */
} nb_contention;

/* Parses the text of /proc/stat: the sum of the aggregate "cpu" line's
 * fields and its steal field (8th), and procs_running. Each output is -1 when
 * its line is absent or malformed. Never fails; text may be NULL, and so may
 * any output (not written). */
void nb_parse_proc_stat(const char *text, long long *total_ticks, long long *steal_ticks,
                        long long *procs_running);

/* Fills `l` from getrusage, /proc/stat and the monotonic clock. */
void nb_host_load_read(nb_host_load *l);

/* Judges the interval between `before` and `after` for a case that ran
 * `threads` worker threads on a host with `cpus` online CPUs. Contended when
 * the process was preempted at least NB_CONTENTION_IVCSW_MIN times and more
 * than NB_CONTENTION_IVCSW_PER_S times per second; or steal time was more than
 * NB_CONTENTION_STEAL_FRAC of the CPU time; or the run queue, less the reading
 * thread and plus the case's threads, exceeded the CPUs by at least
 * NB_CONTENTION_RUNQ_EXCESS on average over the two readings. A NULL before
 * or after: nothing measured, not contended; a NULL out is left alone. */
void nb_contention_judge(const nb_host_load *before, const nb_host_load *after, int threads,
                         int cpus, nb_contention *out);

#ifdef __cplusplus
}
#endif
#endif

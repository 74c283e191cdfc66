/* The kernel trace of one marked launch: every kernel, copy and memset a
 * GPU workload's marked launch enqueued, with its GPU start and end time
 * from CUPTI's activity API, attributed to the step whose launches enqueued
 * it, and per step the kernel time, the union of the busy intervals, the
 * gaps and the overlap, over every device and per device (docs/methodology.md,
 * "The kernel trace").
 * nb_bench_trace (trace.c) collects; nb_trace_attribute and the name
 * shortening (trace_attr.c) are pure. */
#ifndef NB_BENCH_TRACE_H
#define NB_BENCH_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "bench/timing/run.h"
#include "ntt/kernel_log.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nb_trace_kind {
    NB_TRACE_KERNEL = 0,
    NB_TRACE_MEMCPY = 1,
    NB_TRACE_MEMSET = 2
} nb_trace_kind;

/* "kernel" / "memcpy" / "memset". */
const char *nb_trace_kind_name(nb_trace_kind k);

/* One device activity of the traced launch. */
typedef struct nb_trace_activity {
    char name[96];           /* kernel: demangled and shortened (nb_kernel_short_name, ntt/kernel_log.h);
                                copy / memset: "memcpy" or "memset" */
    nb_trace_kind kind;
    uint64_t start_ns, end_ns; /* GPU timestamps, CUPTI's clock (end >= start) */
    uint32_t stream_id, correlation_id;
    uint32_t device;         /* CUPTI's device id (the CUDA device index) */
    size_t mark;             /* the step mark whose launches enqueued it (0-based) */
} nb_trace_activity;

/* One step mark of the traced launch. */
typedef struct nb_trace_mark {
    char name[32];
    int is_ntt, inverse;
    uint64_t enqueued_ns;    /* CUPTI's clock when the hook ran: the step's launches were
                                all enqueued by then (0 when unknown) */
} nb_trace_mark;

/* The figures of one activity set (a step occurrence, a step, the launch).
 * Each activity is an interval [start, end). */
typedef struct nb_trace_sums {
    size_t kernels, copies;  /* kernels; memcpy and memset operations */
    double kernel_ns;        /* sum of the durations */
    double busy_ns;          /* length of the union of the intervals */
    double span_ns;          /* first start to last end (0 when empty) */
    double gap_ns;           /* span_ns - busy_ns: idle time between the activities */
    double overlap_ns;       /* kernel_ns - busy_ns: time two or more ran at once */
} nb_trace_sums;

/* One distinct step name, merged like the breakdown's steps (every mark of
 * that name and kind): its sums are the sums over its marks, each mark's
 * figures taken over that mark's activities alone. */
typedef struct nb_trace_step {
    char name[32];
    int is_ntt, inverse;
    size_t marks;            /* marks with this name per launch */
    nb_trace_sums sums;
    double boundary_ns;      /* time its activities ran at once with those of the mark
                                before (summed over its marks): overlap across a step
                                boundary */
    double event_ns;         /* the breakdown's median for the step (events around it);
                                NAN when not known (nb_trace_set_events) */
} nb_trace_step;

/* The steps' and the launch's figures take every device's activities as one
 * set (busy: time at least one device was busy; overlap includes devices
 * running at once); device_launch and device_steps take each device alone. */
typedef struct nb_trace {
    nb_trace_activity *acts; /* [n_acts], by start time (ties: correlation id); owned */
    size_t n_acts;
    nb_trace_mark *marks;    /* [n_marks], in launch order; owned */
    size_t n_marks;
    nb_trace_step steps[NB_MAX_STEPS]; /* distinct names, in order of first appearance */
    size_t n_steps;
    nb_trace_sums launch;    /* over every activity of the launch */
    uint32_t *devices;       /* [n_devices], ascending: the devices of the activities; owned */
    size_t n_devices;
    nb_trace_sums *device_launch; /* [n_devices]: the launch's figures on devices[k]; owned */
    nb_trace_sums *device_steps;  /* step j's figures on devices[k] at [j * n_devices + k],
                                     summed over its marks like steps[j].sums; owned */
    uint64_t origin_ns;      /* start of the first activity (0 when none) */
    size_t unattributed;     /* activities of a mark index >= n_marks (not in any step) */
    int blocked;             /* the launch was queued behind the blocking kernel */
} nb_trace;

/* Frees the arrays and zeroes *t; accepts NULL. */
void nb_trace_free(nb_trace *t);

/* *dst = a copy of *src that owns its own arrays. NB_ERR_OUT_OF_MEMORY
 * (dst zeroed). dst must not hold arrays of its own (they are not freed). */
nb_status nb_trace_copy(nb_trace *dst, const nb_trace *src);

/* 1 when nb_bench_trace can run: the build has CUPTI's headers and libcupti
 * opens (looked for and opened on the first call; bench/timing/cupti_load.h
 * says where), else 0 with the reason in nb_last_error(). */
int nb_trace_available(void);

/* Traces one marked launch of GPU workload `w` (which must have
 * launch_marked) in its own pass under o's cache state, like one pass of
 * nb_bench_breakdown but without events between the steps: setup, one
 * untraced launch (module loading, first-launch costs), then with CUPTI's
 * activity records on (concurrent kernels, memcpy, memset, the runtime and
 * driver calls and external correlation) the cache flush, the workload's
 * own eviction and the blocking kernel as a sample has them, the marked
 * launch with an external correlation id per step, a forced flush of
 * CUPTI's buffers, records off. Only activities enqueued under the ids from
 * this thread count, on every device (a launch that forks streams of other
 * devices from `stream` is traced whole); the blocking, flush and eviction
 * work is left out. *out gets the activities, the marks, and
 * nb_trace_attribute's figures. Nothing is verified (the breakdown and the
 * timed pass verify the same launch).
 * NB_ERR_UNSUPPORTED with a message when the build has no CUPTI, for a CPU
 * workload, when libcupti cannot be opened at run time (the message says
 * where it was looked for; NB_CUPTI_LIBRARY names the file), or when CUPTI
 * cannot attribute the kernels (no correlation records); NB_ERR_INVALID_ARG while another trace of this process runs;
 * NB_ERR_CUDA with CUPTI's message when a CUPTI call fails (a profiler such
 * as Nsight attached holds CUPTI). */
nb_status nb_bench_trace(const nb_workload *w, void *stream, const nb_bench_opts *o,
                         nb_trace *out);

/* Fills t->steps, t->launch, t->unattributed and the per-device figures
 * (replacing any t had) from t->acts (sorted first by start, then
 * correlation id) and marks[0..n_marks) (copied into t->marks unless marks
 * == t->marks). An activity belongs to the mark its `mark` index names; a
 * mark without activities is a step occurrence of zero figures. Steps are
 * merged by (name, is_ntt, inverse) in order of first appearance; event_ns
 * starts NAN. t's arrays must be valid or NULL. NB_ERR_INVALID_ARG for an
 * activity that ends before it starts or for more than NB_MAX_STEPS names;
 * NB_ERR_OUT_OF_MEMORY. Pure: reads no clock, calls no device. */
nb_status nb_trace_attribute(nb_trace *t, const nb_trace_mark *marks, size_t n_marks);

/* The figures of acts[0..n) (any order). NB_ERR_OUT_OF_MEMORY. */
nb_status nb_trace_sums_of(const nb_trace_activity *acts, size_t n, nb_trace_sums *out);

/* Sets each step's event_ns from the breakdown step of the same name, kind
 * and direction (median_s in ns); NAN where bd has none. bd may be NULL. */
void nb_trace_set_events(nb_trace *t, const nb_breakdown *bd);


#ifdef __cplusplus
}
#endif
#endif

/* The pure half of the kernel trace: activities to steps (by the mark whose
 * launches enqueued them), the busy union, gaps, overlap and the overlap
 * across step boundaries, over every device and per device, the event times
 * beside them. No clock, no
 * device: the CPU tests feed it synthetic activity lists. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/timing/trace.h"

const char *nb_trace_kind_name(nb_trace_kind k)
{
    switch (k) {
    case NB_TRACE_KERNEL: return "kernel";
    case NB_TRACE_MEMCPY: return "memcpy";
    case NB_TRACE_MEMSET: return "memset";
    default: return "?";
    }
}

void nb_trace_free(nb_trace *t)
{
    if (!t)
        return;
    free(t->acts);
    free(t->marks);
    free(t->devices);
    free(t->device_launch);
    free(t->device_steps);
    memset(t, 0, sizeof *t);
}

/* A malloc'd copy of n elements of `size` bytes at src (one byte when n is 0). */
static void *dup_array(const void *src, size_t n, size_t size)
{
    void *p = malloc(n ? n * size : 1);
    if (p && n)
        memcpy(p, src, n * size);
    return p;
}

nb_status nb_trace_copy(nb_trace *dst, const nb_trace *src)
{
    if (!dst || !src)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_trace_copy: NULL argument");
    if ((src->n_acts && !src->acts) || (src->n_marks && !src->marks) ||
        (src->n_devices && (!src->devices || !src->device_launch)) ||
        (src->n_steps && src->n_devices && !src->device_steps))
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_trace_copy: a count without its array");
    *dst = *src;
    const size_t nd = src->n_devices;
    dst->acts = dup_array(src->acts, src->n_acts, sizeof *src->acts);
    dst->marks = dup_array(src->marks, src->n_marks, sizeof *src->marks);
    dst->devices = dup_array(src->devices, nd, sizeof *src->devices);
    dst->device_launch = dup_array(src->device_launch, nd, sizeof *src->device_launch);
    dst->device_steps = dup_array(src->device_steps, src->n_steps * nd,
                                  sizeof *src->device_steps);
    if (dst->acts && dst->marks && dst->devices && dst->device_launch && dst->device_steps)
        return NB_OK;
    nb_trace_free(dst);
    return nb_set_error(NB_ERR_OUT_OF_MEMORY, "trace copy: out of memory");
}

/* by start, then correlation id (launch order on one thread) */
static int cmp_act(const void *pa, const void *pb)
{
    const nb_trace_activity *a = pa, *b = pb;
    if (a->start_ns != b->start_ns)
        return a->start_ns < b->start_ns ? -1 : 1;
    return (a->correlation_id > b->correlation_id) - (a->correlation_id < b->correlation_id);
}

typedef struct span {
    uint64_t s, e;
} span;

/* The union of a[0..n) (sorted by start) as disjoint spans in order, into
 * out (n entries at most); returns their number. */
static size_t merge(const nb_trace_activity *a, size_t n, span *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && a[i].start_ns <= out[k - 1].e) {
            if (a[i].end_ns > out[k - 1].e)
                out[k - 1].e = a[i].end_ns;
        } else {
            out[k].s = a[i].start_ns;
            out[k].e = a[i].end_ns;
            k++;
        }
    }
    return k;
}

/* The sums of a[0..n) (sorted by start) whose union is u[0..nu). */
static void sums_from(const nb_trace_activity *a, size_t n, const span *u, size_t nu,
                      nb_trace_sums *out)
{
    memset(out, 0, sizeof *out);
    uint64_t last = 0;
    for (size_t i = 0; i < n; i++) {
        if (a[i].kind == NB_TRACE_KERNEL)
            out->kernels++;
        else
            out->copies++;
        out->kernel_ns += (double)(a[i].end_ns - a[i].start_ns);
        if (a[i].end_ns > last)
            last = a[i].end_ns;
    }
    for (size_t i = 0; i < nu; i++)
        out->busy_ns += (double)(u[i].e - u[i].s);
    if (n) {
        out->span_ns = (double)(last - a[0].start_ns);
        out->gap_ns = out->span_ns - out->busy_ns;
        out->overlap_ns = out->kernel_ns - out->busy_ns;
    }
}

nb_status nb_trace_sums_of(const nb_trace_activity *acts, size_t n, nb_trace_sums *out)
{
    if (!out || (n && !acts))
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_trace_sums_of: NULL argument");
    memset(out, 0, sizeof *out);
    if (n == 0)
        return NB_OK;
    nb_trace_activity *a = malloc(n * sizeof *a);
    span *u = malloc(n * sizeof *u);
    if (!a || !u) {
        free(a);
        free(u);
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "trace: out of memory");
    }
    memcpy(a, acts, n * sizeof *a);
    qsort(a, n, sizeof *a, cmp_act);
    sums_from(a, n, u, merge(a, n, u), out);
    free(a);
    free(u);
    return NB_OK;
}

/* Length of the intersection of two unions (disjoint spans, in order). */
static double intersection(const span *a, size_t na, const span *b, size_t nb)
{
    double sum = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        const uint64_t s = a[i].s > b[j].s ? a[i].s : b[j].s;
        const uint64_t e = a[i].e < b[j].e ? a[i].e : b[j].e;
        if (e > s)
            sum += (double)(e - s);
        if (a[i].e < b[j].e)
            i++;
        else
            j++;
    }
    return sum;
}

static void add_sums(nb_trace_sums *to, const nb_trace_sums *s)
{
    to->kernels += s->kernels;
    to->copies += s->copies;
    to->kernel_ns += s->kernel_ns;
    to->busy_ns += s->busy_ns;
    to->span_ns += s->span_ns;
    to->gap_ns += s->gap_ns;
    to->overlap_ns += s->overlap_ns;
}

/* The step entry of mark m (added when new); NULL past NB_MAX_STEPS. */
static nb_trace_step *step_of(nb_trace *t, const nb_trace_mark *m)
{
    for (size_t j = 0; j < t->n_steps; j++)
        if (!strcmp(t->steps[j].name, m->name) && t->steps[j].is_ntt == m->is_ntt &&
            t->steps[j].inverse == m->inverse)
            return &t->steps[j];
    if (t->n_steps == NB_MAX_STEPS)
        return NULL;
    nb_trace_step *e = &t->steps[t->n_steps++];
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", m->name);
    e->is_ntt = m->is_ntt;
    e->inverse = m->inverse;
    e->event_ns = NAN;
    return e;
}

/* The sums of the activities of a[0..n) (sorted by start) on `device`,
 * using buf and u (n entries each) as scratch. */
static void device_sums(const nb_trace_activity *a, size_t n, uint32_t device,
                        nb_trace_activity *buf, span *u, nb_trace_sums *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (a[i].device == device)
            buf[m++] = a[i];
    sums_from(buf, m, u, merge(buf, m, u), out);
}

/* t->devices (ascending, distinct) and t->device_launch from t->acts, and
 * t->device_steps zeroed for `rows` steps; buf and u scratch of n_acts. */
static nb_status devices_of(nb_trace *t, size_t rows, nb_trace_activity *buf, span *u)
{
    size_t nd = 0;
    t->devices = malloc((t->n_acts ? t->n_acts : 1) * sizeof *t->devices);
    if (!t->devices)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "trace: out of memory");
    for (size_t i = 0; i < t->n_acts; i++) {
        const uint32_t d = t->acts[i].device;
        size_t k = 0;
        while (k < nd && t->devices[k] < d)
            k++;
        if (k < nd && t->devices[k] == d)
            continue;
        memmove(t->devices + k + 1, t->devices + k, (nd - k) * sizeof *t->devices);
        t->devices[k] = d;
        nd++;
    }
    t->n_devices = nd;
    t->device_launch = calloc(nd ? nd : 1, sizeof *t->device_launch);
    const size_t cells = rows * nd;
    t->device_steps = calloc(cells ? cells : 1, sizeof *t->device_steps);
    if (!t->device_launch || !t->device_steps)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "trace: out of memory");
    for (size_t k = 0; k < nd; k++)
        device_sums(t->acts, t->n_acts, t->devices[k], buf, u, &t->device_launch[k]);
    return NB_OK;
}

/* The per-mark pass over acts grouped by mark (g, in start order within a
 * mark; first[i]..first[i+1] the activities of mark i), unions in u; buf and
 * du scratch for one device's activities and their union. */
static nb_status per_mark(nb_trace *t, const nb_trace_activity *g, const size_t *first,
                          span *u, span *prev, nb_trace_activity *buf, span *du)
{
    size_t n_prev = 0;
    for (size_t i = 0; i < t->n_marks; i++) {
        const size_t n = first[i + 1] - first[i];
        const size_t nu = merge(g + first[i], n, u);
        nb_trace_sums s;
        sums_from(g + first[i], n, u, nu, &s);
        nb_trace_step *e = step_of(t, &t->marks[i]);
        if (!e)
            return nb_set_error(NB_ERR_INVALID_ARG, "trace: more than %d distinct step names",
                                NB_MAX_STEPS);
        e->marks++;
        add_sums(&e->sums, &s);
        e->boundary_ns += intersection(u, nu, prev, n_prev);
        memcpy(prev, u, nu * sizeof *u);
        n_prev = nu;
        const size_t row = (size_t)(e - t->steps) * t->n_devices;
        for (size_t k = 0; k < t->n_devices; k++) {
            device_sums(g + first[i], n, t->devices[k], buf, du, &s);
            add_sums(&t->device_steps[row + k], &s);
        }
    }
    return NB_OK;
}

nb_status nb_trace_attribute(nb_trace *t, const nb_trace_mark *marks, size_t n_marks)
{
    if (!t || (!marks && n_marks))
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_trace_attribute: NULL argument");
    for (size_t i = 0; i < t->n_acts; i++)
        if (t->acts[i].end_ns < t->acts[i].start_ns)
            return nb_set_error(NB_ERR_INVALID_ARG, "trace: activity %zu ('%s') ends before it "
                                "starts", i, t->acts[i].name);
    if (marks != t->marks) {
        nb_trace_mark *copy = malloc((n_marks ? n_marks : 1) * sizeof *copy);
        if (!copy)
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "trace: out of memory");
        if (n_marks)
            memcpy(copy, marks, n_marks * sizeof *copy);
        free(t->marks);
        t->marks = copy;
    }
    t->n_marks = n_marks;
    t->n_steps = 0;
    t->unattributed = 0;
    free(t->devices);
    free(t->device_launch);
    free(t->device_steps);
    t->devices = NULL;
    t->device_launch = t->device_steps = NULL;
    t->n_devices = 0;
    const size_t n = t->n_acts;
    if (n)
        qsort(t->acts, n, sizeof *t->acts, cmp_act);
    t->origin_ns = n ? t->acts[0].start_ns : 0;
    nb_trace_activity *g = malloc((n ? n : 1) * sizeof *g);
    size_t *first = calloc(n_marks + 1, sizeof *first);
    nb_trace_activity *buf = malloc((n ? n : 1) * sizeof *buf);
    span *u = malloc((n ? n : 1) * sizeof *u), *prev = malloc((n ? n : 1) * sizeof *prev);
    span *du = malloc((n ? n : 1) * sizeof *du);
    nb_status s = NB_OK;
    if (!g || !first || !buf || !u || !prev || !du)
        s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "trace: out of memory");
    if (s == NB_OK)
        s = devices_of(t, n_marks < NB_MAX_STEPS ? n_marks : NB_MAX_STEPS, buf, u);
    if (s == NB_OK) {
        /* grouped by mark, start order kept within a mark */
        for (size_t i = 0; i < n; i++)
            if (t->acts[i].mark < n_marks)
                first[t->acts[i].mark + 1]++;
            else
                t->unattributed++;
        for (size_t i = 0; i < n_marks; i++)
            first[i + 1] += first[i];
        for (size_t i = 0, w = 0; i < n_marks; i++)
            for (size_t k = 0; k < n; k++)
                if (t->acts[k].mark == i)
                    g[w++] = t->acts[k];
        s = per_mark(t, g, first, u, prev, buf, du);
    }
    if (s == NB_OK)
        sums_from(t->acts, n, u, merge(t->acts, n, u), &t->launch);
    free(g);
    free(first);
    free(buf);
    free(u);
    free(prev);
    free(du);
    return s;
}

void nb_trace_set_events(nb_trace *t, const nb_breakdown *bd)
{
    for (size_t j = 0; t && j < t->n_steps; j++) {
        nb_trace_step *e = &t->steps[j];
        e->event_ns = NAN;
        for (size_t k = 0; bd && k < bd->n_steps; k++)
            if (!strcmp(bd->steps[k].name, e->name) && bd->steps[k].is_ntt == e->is_ntt &&
                bd->steps[k].inverse == e->inverse)
                e->event_ns = bd->steps[k].median_s * 1e9;
    }
}


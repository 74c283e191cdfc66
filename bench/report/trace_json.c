/* The JSON object of a case's kernel trace (the JSON writer's `trace`;
 * docs/cli.md): the launch's and each step's figures over every device and
 * per device, the marks and the activities, times relative to origin_ns
 * (the first activity's start). */
#include "bench/report/internal.h"

static void sums_json(json_t *o, const nb_trace_sums *s)
{
    json_object_set_new(o, "kernels", json_integer((json_int_t)s->kernels));
    json_object_set_new(o, "copies", json_integer((json_int_t)s->copies));
    json_object_set_new(o, "kernel_ns", nb_json_real(s->kernel_ns));
    json_object_set_new(o, "busy_ns", nb_json_real(s->busy_ns));
    json_object_set_new(o, "span_ns", nb_json_real(s->span_ns));
    json_object_set_new(o, "gap_ns", nb_json_real(s->gap_ns));
    json_object_set_new(o, "overlap_ns", nb_json_real(s->overlap_ns));
}

/* One object per device of t: its id and row[k]'s sums. */
static json_t *devices_json(const nb_trace *t, const nb_trace_sums *row)
{
    json_t *a = json_array();
    for (size_t k = 0; k < t->n_devices; k++) {
        json_t *o = json_object();
        json_object_set_new(o, "device", json_integer((json_int_t)t->devices[k]));
        sums_json(o, &row[k]);
        json_array_append_new(a, o);
    }
    return a;
}

json_t *nb_trace_to_json(const nb_trace *t)
{
    json_t *j = json_object(), *launch = json_object(), *steps = json_array();
    json_t *marks = json_array(), *acts = json_array();
    const double o = (double)t->origin_ns;
    json_object_set_new(j, "blocking_kernel", json_boolean(t->blocked));
    json_object_set_new(j, "origin_ns", json_integer((json_int_t)t->origin_ns));
    sums_json(launch, &t->launch);
    json_object_set_new(launch, "devices", devices_json(t, t->device_launch));
    json_object_set_new(j, "launch", launch);
    json_object_set_new(j, "unattributed", json_integer((json_int_t)t->unattributed));
    for (size_t i = 0; i < t->n_steps; i++) {
        const nb_trace_step *e = &t->steps[i];
        json_t *sj = json_pack("{s:s, s:b, s:b, s:I}", "name", e->name, "is_ntt", e->is_ntt,
                               "inverse", e->inverse, "marks", (json_int_t)e->marks);
        sums_json(sj, &e->sums);
        json_object_set_new(sj, "devices",
                            devices_json(t, t->n_devices ? t->device_steps + i * t->n_devices
                                                         : NULL));
        json_object_set_new(sj, "boundary_overlap_ns", nb_json_real(e->boundary_ns));
        json_object_set_new(sj, "event_ns", nb_json_real(e->event_ns));
        json_object_set_new(sj, "event_minus_busy_ns", nb_json_real(e->event_ns - e->sums.busy_ns));
        json_array_append_new(steps, sj);
    }
    for (size_t i = 0; i < t->n_marks; i++) {
        const uint64_t q = t->marks[i].enqueued_ns;
        json_array_append_new(marks, json_pack("{s:s, s:o}", "name", t->marks[i].name,
                                               "enqueued_ns",
                                               q ? nb_json_real((double)q - o) : json_null()));
    }
    for (size_t i = 0; i < t->n_acts; i++) {
        const nb_trace_activity *a = &t->acts[i];
        json_t *aj = json_pack("{s:s, s:s}", "name", a->name, "kind", nb_trace_kind_name(a->kind));
        json_object_set_new(aj, "start_ns", nb_json_real((double)a->start_ns - o));
        json_object_set_new(aj, "end_ns", nb_json_real((double)a->end_ns - o));
        json_object_set_new(aj, "stream", json_integer(a->stream_id));
        json_object_set_new(aj, "device", json_integer(a->device));
        json_object_set_new(aj, "correlation_id", json_integer(a->correlation_id));
        json_object_set_new(aj, "mark", json_integer((json_int_t)a->mark));
        json_object_set_new(aj, "step", a->mark < t->n_marks ? json_string(t->marks[a->mark].name)
                                                             : json_null());
        json_array_append_new(acts, aj);
    }
    json_object_set_new(j, "steps", steps);
    json_object_set_new(j, "marks", marks);
    json_object_set_new(j, "activities", acts);
    return j;
}

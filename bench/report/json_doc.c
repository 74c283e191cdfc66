/* The JSON report document: its head (schema, command, environment,
 * options, ceilings), the cases, and its tail (summary, overhead, whether the
 * run is complete), written as one object. A sweep rewrites its report after
 * cases (bench/cli/cmd_run.c), so each case's text is made once, when a write
 * first meets the case, and kept with it: a case is final once it is in a
 * report, and only the ceilings, which its `bound` object reads, can change
 * it; a write that finds other ceilings than the last one makes every text
 * again. The document is byte for byte what dumping it whole gives. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/report/internal.h"

#define DUMP_FLAGS (JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))

/* Where the run's time went (nb_report_overhead); NULL without a timed case. */
static json_t *overhead_json(const nb_report *r)
{
    nb_overhead o;
    nb_report_overhead(r, &o);
    if (!o.cases)
        return NULL;
    json_t *j = json_pack("{s:I, s:I, s:I}", "timed_cases", (json_int_t)o.cases, "samples",
                          (json_int_t)o.samples, "synchronisations", (json_int_t)o.syncs);
    json_object_set_new(j, "wall_time_s", nb_json_real(o.wall_s));
    json_object_set_new(j, "cases_time_s", nb_json_real(o.cases_s));
    json_object_set_new(j, "measured_time_s", nb_json_real(o.measured_s));
    json_object_set_new(j, "sampling_time_s", nb_json_real(o.sampling_s));
    json_object_set_new(j, "outside_sampling_s", nb_json_real(o.outside_s));
    json_object_set_new(j, "outside_per_case_s", nb_json_real(o.outside_per_case_s));
    json_object_set_new(j, "buffer_sets_s", nb_json_real(o.setup_s));
    json_object_set_new(j, "checks_s", nb_json_real(o.verify_s));
    json_object_set_new(j, "warmup_s", nb_json_real(o.warmup_s));
    json_object_set_new(j, "build_s", nb_json_real(o.build_s));
    json_object_set_new(j, "outside_cases_s", nb_json_real(o.between_s));
    return j;
}

/* The members before "cases". */
static json_t *head_json(const nb_report *r, const nb_ceilings *ceil)
{
    json_t *j = json_object();
    json_object_set_new(j, "schema", json_string(NB_REPORT_SCHEMA));
    json_object_set_new(j, "schema_version", json_integer(NB_REPORT_SCHEMA_VERSION));
    json_object_set_new(j, "command", json_string(r->kind));
    json_object_set_new(j, "command_line", r->argv ? json_incref(r->argv) : json_array());
    json_object_set_new(j, "environment", r->has_env ? nb_env_to_json(&r->env) : json_null());
    json_object_set_new(j, "options", r->has_opts ? nb_opts_to_json(&r->opts) : json_null());
    if (ceil)
        json_object_set_new(j, "ceilings", nb_ceilings_to_json(ceil));
    json_object_set_new(j, "interrupted", json_boolean(r->interrupted));
    if (r->complete >= 0)
        json_object_set_new(j, "cases_planned", r->cases_planned
                                                    ? json_integer((json_int_t)r->cases_planned)
                                                    : json_null());
    return j;
}

/* The members after "cases". */
static json_t *tail_json(const nb_report *r)
{
    size_t fails = 0, errors = 0, skipped = 0;
    for (size_t i = 0; i < r->n; i++) {
        fails += r->cases[i]->status == NB_CASE_VERIFY_FAILED;
        errors += r->cases[i]->status == NB_CASE_ERROR;
        skipped += r->cases[i]->status == NB_CASE_SKIPPED;
    }
    json_t *j = json_object();
    json_object_set_new(j, "summary",
                        json_pack("{s:I, s:I, s:I, s:I}", "cases", (json_int_t)r->n,
                                  "verify_failed", (json_int_t)fails, "errors",
                                  (json_int_t)errors, "skipped", (json_int_t)skipped));
    json_t *over = overhead_json(r);
    if (over)
        json_object_set_new(j, "overhead", over);
    if (r->complete >= 0) /* last: a document cut short anywhere lacks it */
        json_object_set_new(j, "complete", json_boolean(r->complete > 0));
    return j;
}

/* An object's members as the whole document's dump writes them: its dump
 * without the opening "{\n" and the closing "\n}" (malloc'd; NULL when out
 * of memory). The object is consumed. */
static char *members(json_t *j)
{
    char *s = j ? json_dumps(j, DUMP_FLAGS) : NULL;
    json_decref(j);
    if (!s)
        return NULL;
    const size_t n = strlen(s);
    if (n < 4) { /* "{}": no member (the callers' objects always have one) */
        s[0] = '\0';
        return s;
    }
    memmove(s, s + 2, n - 4);
    s[n - 4] = '\0';
    return s;
}

/* Case c's text as an element of "cases": its dump, every line indented by
 * two more spaces (the array's depth). 0 when out of memory. */
static int make_text(nb_case *c, const nb_ceilings *ceil)
{
    json_t *j = nb_case_to_json(c, ceil);
    char *s = j ? json_dumps(j, DUMP_FLAGS) : NULL;
    json_decref(j);
    if (!s)
        return 0;
    size_t n = 0, lines = 1;
    for (; s[n]; n++)
        lines += s[n] == '\n';
    char *t = malloc(n + 2 * lines + 1), *w = t;
    if (t) {
        *w++ = ' ';
        *w++ = ' ';
        for (size_t i = 0; i < n; i++) {
            *w++ = s[i];
            if (s[i] == '\n') {
                *w++ = ' ';
                *w++ = ' ';
            }
        }
        *w = '\0';
    }
    free(s);
    free(c->json_text);
    c->json_text = t;
    c->json_len = t ? (size_t)(w - t) : 0;
    return t != NULL;
}

nb_status nb_report_write_json(const nb_report *r, FILE *f)
{
    /* the cached texts are not part of the report's value: a write may keep them */
    nb_report *rw = (nb_report *)(uintptr_t)r;
    nb_ceilings ceil;
    memset(&ceil, 0, sizeof ceil);
    const int have = nb_report_ceilings(r, &ceil);
    if (have != rw->json_have_ceilings || (have && memcmp(&ceil, &rw->json_ceilings, sizeof ceil))) {
        for (size_t i = 0; i < r->n; i++) {
            free(r->cases[i]->json_text);
            r->cases[i]->json_text = NULL;
        }
        rw->json_have_ceilings = have;
        memcpy(&rw->json_ceilings, &ceil, sizeof ceil); /* padding too: memcmp reads it */
    }
    for (size_t i = 0; i < r->n; i++)
        if (!r->cases[i]->json_text && !make_text(r->cases[i], have ? &ceil : NULL))
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "JSON report: out of memory");
    char *head = members(head_json(r, have ? &ceil : NULL)), *tail = members(tail_json(r));
    nb_status s = NB_OK;
    if (!head || !tail) {
        s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "JSON report: out of memory");
    } else {
        int e = fprintf(f, "{\n%s,\n \"cases\": [", head) < 0;
        for (size_t i = 0; i < r->n && !e; i++)
            e = fputs(i ? ",\n" : "\n", f) < 0 ||
                fwrite(r->cases[i]->json_text, 1, r->cases[i]->json_len, f) !=
                    r->cases[i]->json_len;
        if (!e)
            e = fprintf(f, "%s],\n%s\n}\n", r->n ? "\n " : "", tail) < 0;
        if (e)
            s = nb_set_error(NB_ERR_IO, "cannot write JSON");
    }
    free(head);
    free(tail);
    return s;
}

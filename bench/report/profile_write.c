/* What a report says of a case's profiler pass (docs/methodology.md,
 * "Profiler pass"): the JSON "profile" object json.c writes, and the
 * settings line and per-kernel lines the table and markdown writers print
 * in the "Bounds and kernels" section (bound_write.c). */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench/report/internal.h"

static json_t *shares_json(const nb_profile_share *s, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        if (!s[i].name[0])
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(s[i].name));
        json_object_set_new(o, "pct", nb_json_real(s[i].pct));
        json_array_append_new(a, o);
    }
    return a;
}

json_t *nb_profile_json(const nb_profile *p)
{
    json_t *j = json_object();
    json_object_set_new(j, "tool", json_string("Nsight Compute"));
    json_object_set_new(j, "version", json_string(p->version));
    json_object_set_new(j, "clock_control", json_string(p->clocks_locked ? "base" : "none"));
    json_object_set_new(j, "cache_control", json_string(p->caches_flushed ? "all" : "none"));
    json_object_set_new(j, "time_ns", nb_json_real(nb_profile_time_ns(p)));
    json_object_set_new(j, "dram_throughput_pct", nb_json_real(100.0 * nb_profile_dram_frac(p)));
    json_object_set_new(j, "issue_active_pct", nb_json_real(100.0 * nb_profile_issue_frac(p)));
    json_t *a = json_array();
    for (size_t i = 0; i < p->n_kernels; i++) {
        const nb_kernel_profile *k = &p->k[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(k->name));
        json_object_set_new(o, "launches", json_integer(k->launches));
        json_object_set_new(o, "time_ns", nb_json_real(k->time_ns));
        json_object_set_new(o, "dram_throughput_pct", nb_json_real(k->dram_pct));
        json_object_set_new(o, "dram_read_bytes", nb_json_real(k->dram_read_bytes));
        json_object_set_new(o, "dram_write_bytes", nb_json_real(k->dram_write_bytes));
        json_object_set_new(o, "l2_hit_pct", nb_json_real(k->l2_hit_pct));
        json_object_set_new(o, "issue_active_pct", nb_json_real(k->issue_pct));
        json_object_set_new(o, "pipes", shares_json(k->pipes, NB_PROFILE_PIPES));
        json_object_set_new(o, "stalls", shares_json(k->stalls, NB_PROFILE_STALLS));
        json_array_append_new(a, o);
    }
    json_object_set_new(j, "kernels", a);
    return j;
}

void nb_profile_settings_text(const nb_profile *p, char *buf, size_t n)
{
    snprintf(buf, n, "Nsight Compute %s, clocks %s, caches %s", p->version[0] ? p->version : "?",
             p->clocks_locked ? "locked to base" : "unlocked",
             p->caches_flushed ? "flushed before each kernel" : "kept warm (not flushed)");
}

/* Appends to buf (length *u of n) what fmt prints. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void add(char *buf, size_t n, size_t *u, const char *fmt, ...)
{
    if (*u >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    const int k = vsnprintf(buf + *u, n - *u, fmt, ap);
    va_end(ap);
    *u = k < 0 ? n : *u + (size_t)k;
}

/* " 48 %" or " -" */
static void add_pct(char *buf, size_t n, size_t *u, double v)
{
    if (isfinite(v))
        add(buf, n, u, " %.0f %%", v);
    else
        add(buf, n, u, " -");
}

void nb_profile_kernel_text(const nb_kernel_profile *k, char *buf, size_t n)
{
    size_t u = 0;
    buf[0] = '\0';
    char t[32];
    nb_text_fmt_time(t, sizeof t, k->time_ns * 1e-9);
    add(buf, n, &u, "%s: %s", k->name, isfinite(k->time_ns) ? t : "-");
    if (k->launches > 1)
        add(buf, n, &u, " (%u launches)", k->launches);
    add(buf, n, &u, ", DRAM");
    add_pct(buf, n, &u, k->dram_pct);
    const double bytes = k->dram_read_bytes + k->dram_write_bytes;
    if (isfinite(bytes))
        add(buf, n, &u, " (%.1f MB)", bytes / 1e6);
    add(buf, n, &u, ", L2 hit");
    add_pct(buf, n, &u, k->l2_hit_pct);
    add(buf, n, &u, ", issue");
    add_pct(buf, n, &u, k->issue_pct);
    add(buf, n, &u, ", pipes");
    for (size_t i = 0; i < NB_PROFILE_PIPES && k->pipes[i].name[0]; i++) {
        char up[32];
        size_t j = 0;
        for (; k->pipes[i].name[j] && j + 1 < sizeof up; j++)
            up[j] = (char)toupper((unsigned char)k->pipes[i].name[j]);
        up[j] = '\0';
        add(buf, n, &u, " %s", up);
        add_pct(buf, n, &u, k->pipes[i].pct);
    }
    add(buf, n, &u, ", stalls");
    for (size_t i = 0; i < NB_PROFILE_STALLS && k->stalls[i].name[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s", k->stalls[i].name);
        for (char *c = name; *c; c++)
            *c = *c == '_' ? '-' : *c;
        add(buf, n, &u, " %s", name);
        add_pct(buf, n, &u, k->stalls[i].pct);
    }
}

/* Reading Nsight Compute's `--csv --page raw` output: one header row of
 * metric names from "ID" on (lines before it are ncu's and the program's own
 * messages), a units row, then one row per profiled kernel launch; fields
 * quoted, numbers with thousands separators. Launches of the same kernel
 * are merged into one nb_kernel_profile. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/timing/profile.h"

#define MAX_FIELDS 4096
#define MAX_SHARES 32
#define PIPE_PREFIX "sm__inst_executed_pipe_"
#define PIPE_SUFFIX ".avg.pct_of_peak_sustained_active"
#define STALL_PREFIX "smsp__warp_issue_stalled_"
#define STALL_SUFFIX "_per_warp_active.pct"

/* One CSV record from *p (RFC 4180: quoted fields, doubled quotes, commas
 * and line breaks inside quotes) into fields[] (pointers into buf, which is
 * overwritten in place); *p moves past the record's line break. Returns the
 * field count (0 at the end of the text). */
static size_t read_record(char **p, char **fields, size_t max)
{
    char *in = *p, *out = *p;
    size_t n = 0;
    if (!*in)
        return 0;
    for (;;) {
        char *start = out;
        if (*in == '"') {
            in++;
            while (*in && !(*in == '"' && in[1] != '"')) {
                if (*in == '"')
                    in++; /* a doubled quote */
                *out++ = *in++;
            }
            if (*in == '"')
                in++;
        }
        while (*in && *in != ',' && *in != '\n' && *in != '\r')
            *out++ = *in++;
        const char end = *in;
        *out++ = '\0';
        if (n < max)
            fields[n++] = start;
        if (end == ',') {
            in++;
            continue;
        }
        if (end == '\r')
            in++;
        if (*in == '\n')
            in++;
        break;
    }
    *p = in;
    return n;
}

/* A number as ncu prints it ("33,561,088", "37.26", "n/a") scaled by its
 * unit to ns, bytes or per cent; NAN when it is not one. */
static double number(const char *s, const char *unit)
{
    char buf[64];
    size_t k = 0;
    for (; *s && k + 1 < sizeof buf; s++)
        if (*s != ',' && *s != ' ')
            buf[k++] = *s;
    buf[k] = '\0';
    char *end;
    const double v = strtod(buf, &end);
    if (k == 0 || *end)
        return NAN;
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"usecond", 1e3}, {"msecond", 1e6}, {"second", 1e9}, {"Kbyte", 1e3},
                 {"Mbyte", 1e6},   {"Gbyte", 1e9},   {"KB", 1e3},     {"MB", 1e6},
                 {"GB", 1e9}};
    for (size_t i = 0; unit && i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(unit, units[i].unit))
            return v * units[i].scale;
    return v;
}

/* ncu's kernel name without a leading "void " and the trailing argument list. */
static void clean_name(const char *s, char *out, size_t n)
{
    if (!strncmp(s, "void ", 5))
        s += 5;
    size_t len = strlen(s);
    if (len && s[len - 1] == ')') {
        int depth = 0;
        for (size_t i = len; i-- > 0;) {
            depth += s[i] == ')' ? 1 : s[i] == '(' ? -1 : 0;
            if (depth == 0) {
                len = i;
                break;
            }
        }
    }
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), s);
}

/* What a header column holds. */
typedef enum { COL_OTHER, COL_TIME, COL_DRAM, COL_READ, COL_WRITE, COL_L2, COL_ISSUE,
               COL_PIPE, COL_STALL } col_kind;

typedef struct column {
    col_kind kind;
    size_t share;   /* COL_PIPE / COL_STALL: its index among the shares */
} column;

typedef struct share_names {
    char name[MAX_SHARES][32];
    size_t n;
} share_names;

/* Registers the part of `metric` between prefix and suffix as a share;
 * its index, or MAX_SHARES when it does not match or there is no room. */
static size_t share_of(share_names *s, const char *metric, const char *prefix,
                       const char *suffix)
{
    const size_t lp = strlen(prefix), ls = strlen(suffix), lm = strlen(metric);
    if (lm <= lp + ls || strncmp(metric, prefix, lp) || strcmp(metric + lm - ls, suffix) ||
        s->n == MAX_SHARES)
        return MAX_SHARES;
    snprintf(s->name[s->n], sizeof s->name[0], "%.*s", (int)(lm - lp - ls), metric + lp);
    if (!strcmp(s->name[s->n], "selected")) /* issuing, not stalled */
        return MAX_SHARES;
    return s->n++;
}

static column classify(const char *h, share_names *pipes, share_names *stalls)
{
    static const struct {
        const char *name;
        col_kind kind;
    } fixed[] = {{"gpu__time_duration.sum", COL_TIME},
                 {"dram__throughput.avg.pct_of_peak_sustained_elapsed", COL_DRAM},
                 {"dram__bytes_read.sum", COL_READ},
                 {"dram__bytes_write.sum", COL_WRITE},
                 {"lts__t_sector_hit_rate.pct", COL_L2},
                 {"sm__inst_issued.avg.pct_of_peak_sustained_active", COL_ISSUE}};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (!strcmp(h, fixed[i].name))
            return (column){fixed[i].kind, 0};
    size_t k = share_of(pipes, h, PIPE_PREFIX, PIPE_SUFFIX);
    if (k < MAX_SHARES)
        return (column){COL_PIPE, k};
    k = share_of(stalls, h, STALL_PREFIX, STALL_SUFFIX);
    if (k < MAX_SHARES)
        return (column){COL_STALL, k};
    return (column){COL_OTHER, 0};
}

/* Sums of one kernel's launches: weights are the launches' times. */
typedef struct acc {
    double time, read, write, w;
    double dram, l2, issue, pipe[MAX_SHARES], stall[MAX_SHARES];
    double w_dram, w_l2, w_issue, w_pipe[MAX_SHARES], w_stall[MAX_SHARES];
    int any_time, any_read, any_write;
} acc;

static void add_weighted(double v, double w, double *sum, double *wsum)
{
    if (isfinite(v)) {
        *sum += v * w;
        *wsum += w;
    }
}

static double mean(double sum, double w) { return w > 0 ? sum / w : NAN; }

/* The `keep` largest of the shares into out[] (descending; empty names
 * beyond the known ones). */
static void top(const share_names *names, const double *sum, const double *w,
                nb_profile_share *out, size_t keep)
{
    int used[MAX_SHARES] = {0};
    for (size_t j = 0; j < keep; j++) {
        size_t best = MAX_SHARES;
        double bv = -1;
        for (size_t i = 0; i < names->n; i++) {
            const double v = mean(sum[i], w[i]);
            if (!used[i] && isfinite(v) && v > bv) {
                bv = v;
                best = i;
            }
        }
        memset(&out[j], 0, sizeof out[j]);
        out[j].pct = NAN;
        if (best == MAX_SHARES)
            continue;
        used[best] = 1;
        snprintf(out[j].name, sizeof out[j].name, "%s", names->name[best]);
        out[j].pct = bv;
    }
}

/* One launch's row into the kernel's sums. */
static void accumulate(acc *a, char **f, size_t nf, const column *cols, char **units)
{
    double v[COL_PIPE];
    for (size_t i = 0; i < COL_PIPE; i++)
        v[i] = NAN;
    for (size_t i = 0; i < nf; i++)
        if (cols[i].kind != COL_OTHER && cols[i].kind < COL_PIPE)
            v[cols[i].kind] = number(f[i], units ? units[i] : NULL);
    const double w = isfinite(v[COL_TIME]) && v[COL_TIME] > 0 ? v[COL_TIME] : 1.0;
    if (isfinite(v[COL_TIME])) {
        a->time += v[COL_TIME];
        a->any_time = 1;
    }
    if (isfinite(v[COL_READ])) {
        a->read += v[COL_READ];
        a->any_read = 1;
    }
    if (isfinite(v[COL_WRITE])) {
        a->write += v[COL_WRITE];
        a->any_write = 1;
    }
    add_weighted(v[COL_DRAM], w, &a->dram, &a->w_dram);
    add_weighted(v[COL_L2], w, &a->l2, &a->w_l2);
    add_weighted(v[COL_ISSUE], w, &a->issue, &a->w_issue);
    for (size_t i = 0; i < nf; i++) {
        const double x = number(f[i], NULL);
        if (cols[i].kind == COL_PIPE)
            add_weighted(x, w, &a->pipe[cols[i].share], &a->w_pipe[cols[i].share]);
        else if (cols[i].kind == COL_STALL)
            add_weighted(x, w, &a->stall[cols[i].share], &a->w_stall[cols[i].share]);
    }
}

/* The parser's working memory (too large for the stack). */
typedef struct parse_state {
    char *f[MAX_FIELDS], *units[MAX_FIELDS];
    column cols[MAX_FIELDS];
    acc accs[NB_PROFILE_MAX_KERNELS];
    share_names pipes, stalls;
} parse_state;

/* Parses the records after the header; `text` is the header's start. */
static nb_status parse_rows(char *text, parse_state *ps, nb_profile *out)
{
    char **f = ps->f, **units = ps->units;
    column *cols = ps->cols;
    acc *accs = ps->accs;
    share_names *pipes = &ps->pipes, *stalls = &ps->stalls;
    char *p = text;
    const size_t nh = read_record(&p, f, MAX_FIELDS);
    size_t name_col = nh, id_col = nh;
    for (size_t i = 0; i < nh; i++) {
        cols[i] = classify(f[i], pipes, stalls);
        if (!strcmp(f[i], "Kernel Name"))
            name_col = i;
        if (!strcmp(f[i], "ID"))
            id_col = i;
    }
    if (name_col == nh || id_col == nh)
        return nb_set_error(NB_ERR_INVALID_ARG, "ncu's CSV has no \"ID\" or \"Kernel Name\" "
                                                "column");
    out->n_kernels = 0;
    int have_units = 0;
    size_t nf;
    while ((nf = read_record(&p, f, MAX_FIELDS)) > 0) {
        if (nf < nh)
            continue; /* a message line after the table */
        if (!f[id_col][0]) { /* the units row */
            for (size_t i = 0; i < nh; i++)
                units[i] = f[i];
            have_units = 1;
            continue;
        }
        char name[160];
        clean_name(f[name_col], name, sizeof name);
        size_t k = 0;
        while (k < out->n_kernels && strcmp(out->k[k].name, name))
            k++;
        if (k == out->n_kernels) {
            if (k == NB_PROFILE_MAX_KERNELS)
                continue;
            memset(&out->k[k], 0, sizeof out->k[k]);
            snprintf(out->k[k].name, sizeof out->k[k].name, "%s", name);
            out->n_kernels++;
        }
        out->k[k].launches++;
        accumulate(&accs[k], f, nh, cols, have_units ? units : NULL);
    }
    if (out->n_kernels == 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "ncu profiled no kernel");
    for (size_t k = 0; k < out->n_kernels; k++) {
        const acc *a = &accs[k];
        nb_kernel_profile *o = &out->k[k];
        o->time_ns = a->any_time ? a->time : NAN;
        o->dram_read_bytes = a->any_read ? a->read : NAN;
        o->dram_write_bytes = a->any_write ? a->write : NAN;
        o->dram_pct = mean(a->dram, a->w_dram);
        o->l2_hit_pct = mean(a->l2, a->w_l2);
        o->issue_pct = mean(a->issue, a->w_issue);
        top(pipes, a->pipe, a->w_pipe, o->pipes, NB_PROFILE_PIPES);
        top(stalls, a->stall, a->w_stall, o->stalls, NB_PROFILE_STALLS);
    }
    return NB_OK;
}

nb_status nb_ncu_parse_csv(const char *text, nb_profile *out)
{
    const char *h = text;
    while (h && strncmp(h, "\"ID\",", 5)) {
        h = strchr(h, '\n');
        h = h ? h + 1 : NULL;
    }
    if (!h)
        return nb_set_error(NB_ERR_INVALID_ARG, "ncu printed no CSV table");
    char *copy = strdup(h);
    parse_state *ps = calloc(1, sizeof *ps);
    nb_status s = copy && ps ? parse_rows(copy, ps, out)
                             : nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory for ncu's output");
    free(ps);
    free(copy);
    return s;
}

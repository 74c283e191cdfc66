/* The bound of a GPU NTT case: its measured time against the device's
 * ceilings (copy bandwidth, butterfly ceiling of its word size, the cost of
 * launching its kernels), as fractions and a class (docs/methodology.md,
 * "Bounds"); the ceilings' defaults and a calibration file's; and the text
 * forms the table, markdown and `report` share. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "bench/report/bound.h"
#include "bench/report/internal.h"

/* The H100 calibration the defaults come from (docs/data/calibrate-h100-words.json):
 * 132 SMs at 1980 MHz. */
#define REF_SMS 132.0
#define REF_SM_MHZ 1980.0
#define REF_BFLY64 877.1e9
#define REF_BFLY32 2648.2e9
#define REF_LAUNCH_NS 3136.0
#define REF_BOUNDARY_NS 800.0

const char *nb_ceiling_source_name(nb_ceiling_source s)
{
    switch (s) {
    case NB_CEILING_RUN: return "run";
    case NB_CEILING_CALIBRATION: return "calibration";
    case NB_CEILING_DEFAULT: return "default";
    default: return "none";
    }
}

const char *nb_bound_class_name(nb_bound_class c)
{
    switch (c) {
    case NB_BOUND_COMPUTE: return "compute-bound";
    case NB_BOUND_MEMORY: return "memory-bound";
    case NB_BOUND_LAUNCH: return "launch-bound";
    case NB_BOUND_LATENCY: return "latency-bound";
    default: return "unknown";
    }
}

static double positive_or_nan(double v) { return v > 0 && isfinite(v) ? v : NAN; }

void nb_bound_classify(double median_s, double bytes, double butterflies, unsigned word_bits,
                       unsigned kernel_launches, const nb_ceilings *c, nb_bound *out)
{
    if (!out)
        return;
    const nb_ceilings none = {0}; /* no ceilings: every fraction NAN, the class unknown */
    if (!c)
        c = &none;
    const unsigned k = kernel_launches ? kernel_launches : 1;
    const double bfly = word_bits == 32 ? c->butterflies32_per_s : c->butterflies_per_s;
    const double copy = positive_or_nan(c->copy_Bps), ceil = positive_or_nan(bfly);
    const double launch = positive_or_nan(c->launch_ns);
    const double boundary = c->boundary_ns > 0 ? c->boundary_ns : 0.0;
    memset(out, 0, sizeof *out);
    out->profile_dram = out->profile_issue = NAN;
    out->kernel_launches = k;
    out->copy_floor_s = bytes / copy;
    out->butterfly_floor_s = butterflies / ceil;
    out->launch_floor_s = (launch + (k - 1) * boundary) * 1e-9;
    const int timed = median_s > 0 && isfinite(median_s);
    out->frac_copy = timed ? out->copy_floor_s / median_s : NAN;
    out->frac_butterfly = timed ? out->butterfly_floor_s / median_s : NAN;
    out->frac_launch = timed ? out->launch_floor_s / median_s : NAN;
    const struct {
        double f;
        nb_bound_class cls;
    } all[] = {{out->frac_copy, NB_BOUND_MEMORY},
               {out->frac_butterfly, NB_BOUND_COMPUTE},
               {out->frac_launch, NB_BOUND_LAUNCH}};
    double best = NAN;
    for (size_t i = 0; i < 3; i++)
        if (isfinite(all[i].f) && !(all[i].f <= best)) {
            best = all[i].f;
            out->cls = all[i].cls;
        }
    if (isfinite(best) && best < NB_BOUND_THRESHOLD)
        out->cls = NB_BOUND_LATENCY;
}

void nb_bound_refine(nb_bound *b, double dram_frac, double issue_frac)
{
    if (!b)
        return;
    b->profile_dram = dram_frac;
    b->profile_issue = issue_frac;
    if (!isfinite(dram_frac) || !isfinite(issue_frac) || b->cls == NB_BOUND_UNKNOWN ||
        b->cls == NB_BOUND_LAUNCH)
        return;
    b->refined = 1;
    b->timing_cls = b->cls;
    const double top = dram_frac > issue_frac ? dram_frac : issue_frac;
    b->cls = top < NB_BOUND_PROFILE_THRESHOLD ? NB_BOUND_LATENCY
             : dram_frac >= issue_frac        ? NB_BOUND_MEMORY
                                              : NB_BOUND_COMPUTE;
}

void nb_ceilings_default(nb_ceilings *c, double copy_Bps, int sm_count, double sm_clock_mhz)
{
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    if (copy_Bps > 0 && isfinite(copy_Bps)) {
        c->copy_Bps = copy_Bps;
        c->copy_source = NB_CEILING_RUN;
    }
    if (sm_count > 0 && sm_clock_mhz > 0 && isfinite(sm_clock_mhz)) {
        const double scale = sm_count * sm_clock_mhz / (REF_SMS * REF_SM_MHZ);
        c->butterflies_per_s = REF_BFLY64 * scale;
        c->butterflies32_per_s = REF_BFLY32 * scale;
        c->butterfly_source = NB_CEILING_DEFAULT;
    }
    c->launch_ns = REF_LAUNCH_NS;
    c->boundary_ns = REF_BOUNDARY_NS;
    c->launch_source = NB_CEILING_DEFAULT;
}

/* A positive number at key of o into *v; 0 when absent or null, -1 when
 * present but not a positive number. */
static int take(const json_t *o, const char *key, double *v)
{
    const json_t *j = json_object_get(o, key);
    if (!j || json_is_null(j))
        return 0;
    if (!json_is_number(j) || !(json_number_value(j) > 0) || !isfinite(json_number_value(j)))
        return -1;
    *v = json_number_value(j);
    return 1;
}

nb_status nb_ceilings_load(nb_ceilings *c, const char *path)
{
    if (!c || !path)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ceilings_load: NULL argument");
    const int std_in = !strcmp(path, "-");
    struct stat st;
    if (!std_in && stat(path, &st) != 0)
        return nb_set_error(NB_ERR_IO, "%s: cannot read a calibration: %s", path,
                            strerror(errno));
    if (!std_in && S_ISDIR(st.st_mode))
        return nb_set_error(NB_ERR_IO, "%s: is a directory, not a calibration file", path);
    json_error_t err;
    json_t *j = std_in ? json_loadf(stdin, JSON_REJECT_DUPLICATES, &err)
                       : json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!j && err.line < 1)
        return nb_set_error(NB_ERR_IO, "%s: cannot read a calibration: %s", path, err.text);
    if (!j)
        return nb_set_error(NB_ERR_IO, "%s: cannot read a calibration: %s (line %d)", path,
                            err.text, err.line);
    const json_t *schema = json_object_get(j, "schema"), *b = json_object_get(j, "backend");
    nb_status s = NB_OK;
    double copy = 0, b64 = 0, b32 = 0, launch = 0, pdl = 0;
    int got[5];
    if (!json_is_string(schema) || strcmp(json_string_value(schema), "nttbench-calibration"))
        s = nb_set_error(NB_ERR_INVALID_ARG, "%s: not an nttbench calibration (schema "
                         "\"nttbench-calibration\", from nttbench calibrate --format json)", path);
    else if (!json_is_string(b) || strcmp(json_string_value(b), "gpu"))
        s = nb_set_error(NB_ERR_INVALID_ARG, "%s: a calibration of the CPU: the ceilings of a "
                         "GPU case come from nttbench calibrate --backend gpu", path);
    if (s == NB_OK) {
        got[0] = take(j, "copy_bandwidth_Bps", &copy);
        got[1] = take(j, "butterflies_per_s", &b64);
        got[2] = take(j, "butterflies32_per_s", &b32);
        got[3] = take(j, "launch_device_ns", &launch);
        got[4] = take(j, "kernel_boundary_pdl_ns", &pdl);
        for (int i = 0; i < 5 && s == NB_OK; i++)
            if (got[i] < 0)
                s = nb_set_error(NB_ERR_INVALID_ARG, "%s: a ceiling that is not a positive "
                                 "number", path);
    }
    if (s == NB_OK) {
        if (got[0] > 0) {
            c->copy_Bps = copy;
            c->copy_source = NB_CEILING_CALIBRATION;
        }
        if (got[1] > 0 || got[2] > 0) {
            c->butterflies_per_s = got[1] > 0 ? b64 : c->butterflies_per_s;
            c->butterflies32_per_s = got[2] > 0 ? b32 : c->butterflies32_per_s;
            c->butterfly_source = NB_CEILING_CALIBRATION;
        }
        if (got[3] > 0) {
            c->launch_ns = launch;
            c->boundary_ns = got[4] > 0 && pdl > launch ? pdl - launch : c->boundary_ns;
            c->launch_source = NB_CEILING_CALIBRATION;
        }
        const json_t *gpu = json_object_get(json_object_get(j, "environment"), "gpu");
        const json_t *name = json_object_get(gpu, "name");
        snprintf(c->calibration, sizeof c->calibration, "%s", path);
        snprintf(c->calibration_gpu, sizeof c->calibration_gpu, "%s",
                 json_is_string(name) ? json_string_value(name) : "");
    }
    json_decref(j);
    return s;
}

void nb_ceilings_overlay(nb_ceilings *dst, const nb_ceilings *src)
{
    if (!dst || !src)
        return;
    if (src->copy_source == NB_CEILING_CALIBRATION) {
        dst->copy_Bps = src->copy_Bps;
        dst->copy_source = src->copy_source;
    }
    if (src->butterfly_source == NB_CEILING_CALIBRATION) { /* a file may give one word size */
        if (src->butterflies_per_s > 0)
            dst->butterflies_per_s = src->butterflies_per_s;
        if (src->butterflies32_per_s > 0)
            dst->butterflies32_per_s = src->butterflies32_per_s;
        dst->butterfly_source = src->butterfly_source;
    }
    if (src->launch_source == NB_CEILING_CALIBRATION) {
        dst->launch_ns = src->launch_ns;
        dst->boundary_ns = src->boundary_ns;
        dst->launch_source = src->launch_source;
    }
    memcpy(dst->calibration, src->calibration, sizeof dst->calibration);
    memcpy(dst->calibration_gpu, src->calibration_gpu, sizeof dst->calibration_gpu);
}

void nb_bound_text(const nb_bound *b, char *buf, size_t n)
{
    char fb[16], fc[16], fl[16];
    nb_text_fmt_pct(fb, sizeof fb, b->frac_butterfly, 0);
    nb_text_fmt_pct(fc, sizeof fc, b->frac_copy, 0);
    nb_text_fmt_pct(fl, sizeof fl, b->frac_launch, 0);
    if (!b->refined) {
        snprintf(buf, n, "%s bfly, %s copy, %s launch: %s", fb, fc, fl,
                 nb_bound_class_name(b->cls));
        return;
    }
    char fd[16], fi[16];
    nb_text_fmt_pct(fd, sizeof fd, b->profile_dram, 0);
    nb_text_fmt_pct(fi, sizeof fi, b->profile_issue, 0);
    snprintf(buf, n, "%s bfly, %s copy, %s launch (%s); profiler DRAM %s, issue slots %s: %s",
             fb, fc, fl, nb_bound_class_name(b->timing_cls), fd, fi, nb_bound_class_name(b->cls));
}

void nb_kernel_text(const nb_ntt_kernel *k, char *buf, size_t n)
{
    snprintf(buf, n, "%s: %u threads, regs %d, local %zu B, smem %zu+%zu B, occ %.0f %% "
                     "(%d blocks/SM), %u launch%s, %llu blocks",
             k->name, k->block_threads, k->regs, k->local_bytes, k->smem_static,
             k->smem_dynamic, 100.0 * k->occupancy, k->blocks_per_sm, k->launches,
             k->launches == 1 ? "" : "es", k->blocks);
}

void nb_ceilings_text(const nb_ceilings *c, char *buf, size_t n)
{
    snprintf(buf, n, "copy %.0f GB/s (%s), butterflies %.1f G/s on 64-bit words and %.1f G/s "
                     "on 32-bit words (%s), launch %.2f us + %.2f us per further kernel (%s)",
             c->copy_Bps / 1e9, nb_ceiling_source_name(c->copy_source),
             c->butterflies_per_s / 1e9, c->butterflies32_per_s / 1e9,
             nb_ceiling_source_name(c->butterfly_source), c->launch_ns / 1e3,
             c->boundary_ns / 1e3, nb_ceiling_source_name(c->launch_source));
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static nb_ceiling_source source_of(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    const char *s = json_is_string(v) ? json_string_value(v) : "";
    for (int i = NB_CEILING_RUN; i <= NB_CEILING_DEFAULT; i++)
        if (!strcmp(s, nb_ceiling_source_name((nb_ceiling_source)i)))
            return (nb_ceiling_source)i;
    return NB_CEILING_NONE;
}

int nb_ceilings_from_report_json(const json_t *root, nb_ceilings *c)
{
    const json_t *cj = json_object_get(root, "ceilings");
    const json_t *gpu = json_object_get(json_object_get(root, "environment"), "gpu");
    if (json_is_object(cj)) {
        memset(c, 0, sizeof *c);
        c->copy_Bps = num(cj, "copy_bandwidth_Bps");
        c->butterflies_per_s = num(cj, "butterflies_per_s");
        c->butterflies32_per_s = num(cj, "butterflies32_per_s");
        c->launch_ns = num(cj, "launch_ns");
        c->boundary_ns = num(cj, "kernel_boundary_ns");
        c->copy_source = source_of(cj, "copy_source");
        c->butterfly_source = source_of(cj, "butterfly_source");
        c->launch_source = source_of(cj, "launch_source");
        const json_t *f = json_object_get(cj, "calibration");
        snprintf(c->calibration, sizeof c->calibration, "%s",
                 json_is_string(f) ? json_string_value(f) : "");
        return 1;
    }
    if (!json_is_object(gpu))
        return 0;
    const double sms = num(gpu, "sm_count");
    nb_ceilings_default(c, num(gpu, "copy_bandwidth_Bps"), isfinite(sms) ? (int)sms : 0,
                        num(gpu, "default_sm_clock_mhz"));
    return 1;
}

/* A count at key of o: 0 when absent, not a number or negative. */
static double count(const json_t *o, const char *key)
{
    const double v = num(o, key);
    return v >= 0 ? v : 0.0;
}

size_t nb_kernels_from_json(const json_t *case_json, nb_ntt_kernel *out, size_t max)
{
    const json_t *arr = json_object_get(case_json, "kernels"), *k;
    size_t i, n = 0;
    json_array_foreach(arr, i, k) {
        if (n == max || !json_is_object(k))
            break;
        nb_ntt_kernel *o = &out[n++];
        memset(o, 0, sizeof *o);
        const json_t *name = json_object_get(k, "name");
        snprintf(o->name, sizeof o->name, "%s",
                 json_is_string(name) ? json_string_value(name) : "");
        o->block_threads = (unsigned)count(k, "block_threads");
        o->launches = (unsigned)count(k, "launches");
        o->blocks = (unsigned long long)count(k, "blocks");
        o->smem_dynamic = (size_t)count(k, "smem_dynamic");
        o->smem_static = (size_t)count(k, "smem_static");
        o->local_bytes = (size_t)count(k, "local_bytes");
        o->regs = (int)count(k, "regs");
        o->blocks_per_sm = (int)count(k, "blocks_per_sm");
        o->occupancy = num(k, "occupancy");
    }
    return n;
}

int nb_stage_floors(unsigned log_n, double fwd_limbs, double inv_limbs, double bytes_per_launch,
                    double *bytes, double *butterflies)
{
    if (log_n < 1 || log_n > 40 || !(fwd_limbs >= 0) || !(inv_limbs >= 0) ||
        !(fwd_limbs + inv_limbs > 0) || !(bytes_per_launch > 0))
        return 0;
    *bytes = bytes_per_launch;
    *butterflies = ldexp(1.0, (int)log_n - 1) * log_n * (fwd_limbs + inv_limbs);
    return 1;
}

int nb_bound_of_case_json(const json_t *case_json, const nb_ceilings *c, nb_bound *out)
{
    const json_t *p = json_object_get(case_json, "params");
    const json_t *b = json_object_get(case_json, "backend");
    const json_t *tier = json_object_get(case_json, "tier");
    const json_t *m = json_object_get(case_json, "metrics");
    const double log_n = num(p, "log_n"), limbs = num(p, "limbs"), wb = num(p, "word_bits");
    const double median_ns = num(json_object_get(case_json, "stats"), "median");
    const unsigned word_bits = wb == 32 ? 32 : 64;
    if (!json_is_string(b) || strcmp(json_string_value(b), "gpu") || !(log_n >= 1) ||
        !(median_ns > 0))
        return 0;
    double bytes, butterflies;
    if (json_is_string(tier) && !strcmp(json_string_value(tier), "stage")) {
        if (num(p, "gpus") > 1 ||
            !nb_stage_floors((unsigned)log_n, num(m, "ntt_fwd_limbs"), num(m, "ntt_inv_limbs"),
                             num(m, "bytes_per_launch"), &bytes, &butterflies))
            return 0;
    } else if (limbs >= 1) {
        const double n = ldexp(1.0, (int)log_n);
        bytes = 2.0 * (word_bits / 8) * n * limbs;
        butterflies = n / 2 * log_n * limbs;
    } else {
        return 0;
    }
    nb_ntt_kernel k[NB_CASE_MAX_KERNELS];
    const size_t nk = nb_kernels_from_json(case_json, k, NB_CASE_MAX_KERNELS);
    unsigned launches = 0;
    for (size_t i = 0; i < nk; i++)
        launches += k[i].launches;
    nb_bound_classify(median_ns * 1e-9, bytes, butterflies, word_bits, launches, c, out);
    const json_t *prof = json_object_get(case_json, "profile");
    if (json_is_object(prof))
        nb_bound_refine(out, num(prof, "dram_throughput_pct") / 100.0,
                        num(prof, "issue_active_pct") / 100.0);
    return 1;
}

/* `nttbench verify --stage LIST --preset LIST`: each CKKS stage (modUp of
 * every digit, modDown, hybrid key switch, rescale) of each chosen NTT
 * variant, on fresh seeded inputs, against the GMP reference of
 * reference/ckks_ref.h, as pass/fail rows like the NTT rows of `verify`
 * (the checks themselves: stage_check.c). Exit 1 if any check fails. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/cli/cli.h"
#include "bench/tiers/stage_check.h"


static const char *const stage_names[4] = {"modup", "moddown", "keyswitch", "rescale"};
typedef struct stage_out {
    const nb_stage_check_row *rows;
    size_t n;
    nb_format fmt;
    uint64_t seed;
} stage_out;

static nb_status write_rows_json(const stage_out *o, FILE *f, size_t sum[4])
{
    json_t *checks = json_array();
    for (size_t i = 0; i < o->n; i++) {
        const nb_stage_check_row *r = &o->rows[i];
        json_array_append_new(checks,
                              json_pack("{s:s, s:s, s:s, s:s, s:I, s:s, s:s}", "variant",
                                        r->v->name, "backend", nb_backend_name(r->v->backend),
                                        "stage", stage_names[r->stage], "preset", r->preset,
                                        "level", (json_int_t)r->level, "result", r->result,
                                        "message", r->message));
    }
    char seed[24];
    snprintf(seed, sizeof seed, "%" PRIu64, o->seed);
    json_t *j = json_pack("{s:s, s:i, s:s, s:o, s:{s:I, s:I, s:I, s:I}}", "schema",
                          "nttbench-verify-stage", "schema_version", 1, "seed", seed, "checks",
                          checks, "summary", "pass", (json_int_t)sum[0], "fail",
                          (json_int_t)sum[1], "skipped", (json_int_t)sum[2], "error",
                          (json_int_t)sum[3]);
    int rc = json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(j);
    fputc('\n', f);
    return rc ? nb_set_error(NB_ERR_IO, "cannot write JSON") : NB_OK;
}

/* Rows as a table, markdown, CSV or JSON (the `verify` formats). */
static nb_status write_rows(void *ctx, FILE *f)
{
    const stage_out *o = ctx;
    static const char *const results[4] = {"pass", "fail", "skipped", "error"};
    size_t sum[4] = {0};
    for (size_t i = 0; i < o->n; i++)
        for (int k = 0; k < 4; k++)
            sum[k] += !strcmp(o->rows[i].result, results[k]);
    if (o->fmt == NB_FORMAT_JSON)
        return write_rows_json(o, f, sum);
    const int md = o->fmt == NB_FORMAT_MD, csv = o->fmt == NB_FORMAT_CSV;
    if (!csv)
        NB_TRY(nb_cli_write_env_heading(o->fmt, f));
    if (csv)
        fprintf(f, "variant,backend,stage,preset,level,result,message\n");
    else if (md)
        fprintf(f, "| variant | stage | preset | level | result | detail |\n"
                   "| --- | --- | --- | ---: | --- | --- |\n");
    else
        fprintf(f, "%-22s %-9s %-14s %5s  %-7s  %s\n", "variant", "stage", "preset", "level",
                "result", "detail");
    for (size_t i = 0; i < o->n; i++) {
        const nb_stage_check_row *r = &o->rows[i];
        const char *res = r->result;
        if (csv)
            fprintf(f, "%s,%s,%s,%s,%zu,%s,\"%s\"\n", r->v->name, nb_backend_name(r->v->backend),
                    stage_names[r->stage], r->preset, r->level, res, r->message);
        else if (md)
            fprintf(f, "| %s | %s | %s | %zu | %s | %s |\n", r->v->name, stage_names[r->stage],
                    r->preset, r->level, res, r->message);
        else
            fprintf(f, "%-22s %-9s %-14s %5zu  %-7s  %s\n", r->v->name, stage_names[r->stage],
                    r->preset, r->level,
                    !strcmp(res, "pass") ? "PASS" : !strcmp(res, "fail") ? "FAIL" : res,
                    r->message);
    }
    if (!csv)
        fprintf(f, "\n%zu passed, %zu failed, %zu skipped, %zu errors (seed %" PRIu64 ")\n",
                sum[0], sum[1], sum[2], sum[3], o->seed);
    return NB_OK;
}

/* Parsed options of `verify --stage`. */
typedef struct stage_args {
    int stages[4];
    size_t n_stages;
    char *preset_store, *presets[NB_CLI_MAX_LIST];
    size_t n_presets;
    char *variant_store, *variants[NB_CLI_MAX_LIST];
    size_t n_variants;
    int backend; /* -1 auto, 0 cpu, 1 gpu */
    unsigned long long levels[NB_CLI_MAX_LIST];
    size_t n_levels;
    uint64_t seed;
    nb_cli_filter filter; /* --filter */
    double t_start; /* progress: when the checks began, how many are planned */
    size_t total;
} stage_args;

/* 1 when --filter keeps the check of `stage` at `level` of variant v on a
 * preset; its name: "cpu-harvey test-small modup l=7". */
static int kept(const stage_args *a, const nb_ntt_variant *v, const char *preset, int stage,
                unsigned long long level)
{
    char name[200];
    snprintf(name, sizeof name, "%s %s %s l=%llu", v->name, preset, stage_names[stage], level);
    return nb_cli_filter_match(&a->filter, name);
}

static nb_status set_stages(stage_args *a, const char *v)
{
    nb_ckks_stage st[4];
    size_t n = 0;
    NB_TRY(nb_cli_parse_stages(v, st, &n));
    a->n_stages = 0;
    for (size_t i = 0; i < n; i++)
        a->stages[a->n_stages++] = (int)st[i];
    return NB_OK;
}

static nb_status set_arg(stage_args *a, const char *name, const char *v)
{
    if (!strcmp(name, "stage"))
        return set_stages(a, v);
    if (!strcmp(name, "preset")) {
        free(a->preset_store);
        NB_TRY(nb_cli_parse_names(v, name, &a->preset_store, a->presets, NB_CLI_MAX_LIST,
                                  &a->n_presets));
        for (size_t i = 0; i < a->n_presets; i++)
            if (!nb_ckks_preset_find(a->presets[i]))
                return nb_set_error(NB_ERR_INVALID_ARG,
                                    "--preset: no CKKS preset named '%s' (see 'nttbench list')",
                                    a->presets[i]);
        return NB_OK;
    }
    if (!strcmp(name, "variant")) {
        free(a->variant_store);
        return nb_cli_parse_names(v, name, &a->variant_store, a->variants, NB_CLI_MAX_LIST,
                                  &a->n_variants);
    }
    if (!strcmp(name, "backend")) {
        nb_cli_backend b;
        NB_TRY(nb_cli_parse_backend(v, &b));
        a->backend = (int)b;
        return NB_OK;
    }
    if (!strcmp(name, "level"))
        return nb_cli_parse_ulist(v, name, 0, 255, a->levels, NB_CLI_MAX_LIST, &a->n_levels);
    if (!strcmp(name, "filter"))
        return nb_cli_filter_add(&a->filter, v);
    return nb_cli_parse_u64(v, name, &a->seed);
}

/* The variants to check: the explicit list, or every one of the backend
 * usable here. NB_ERR_NO_DEVICE: --backend gpu, or a GPU variant, without a
 * usable GPU; NB_ERR_INVALID_ARG: a variant of the other backend than the
 * --backend given (as `run`). */
static nb_status pick_variants(const stage_args *a, const nb_ntt_variant **out, size_t *n)
{
    const int gpu = nb_gpu_count() > 0;
    *n = 0;
    if (a->backend == 1 && !gpu) {
        nb_gpu_require(); /* sets the message: why no device is usable */
        return nb_set_error(NB_ERR_NO_DEVICE, "%s (--backend gpu)", nb_last_error());
    }
    for (size_t i = 0; i < a->n_variants; i++) {
        const nb_ntt_variant *v = NULL;
        NB_TRY(nb_cli_find_variant(a->variants[i], &v));
        if (v->backend == NB_BACKEND_GPU && !gpu) {
            char msg[400];
            nb_gpu_require();
            snprintf(msg, sizeof msg, "%.300s", nb_last_error());
            return nb_set_error(NB_ERR_NO_DEVICE, "%s (needed for GPU variant '%s')", msg,
                                v->name);
        }
        if (a->backend >= 0 && (int)v->backend != a->backend)
            return nb_set_error(NB_ERR_INVALID_ARG, "variant '%s' runs on the %s, not --backend %s",
                                v->name, nb_backend_name(v->backend), a->backend ? "gpu" : "cpu");
        out[(*n)++] = v;
    }
    if (a->n_variants)
        return NB_OK;
    unsigned words = 0; /* the word sizes the sets are made for */
    for (size_t i = 0; i < a->n_presets; i++) {
        const nb_ckks_preset *pr = nb_ckks_preset_find(a->presets[i]);
        words |= pr && pr->spec.word_bits == 32 ? 32 : 64;
    }
    for (size_t i = 0; i < nb_ntt_variant_count() && *n < NB_CLI_MAX_LIST; i++) {
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        int b = (int)v->backend;
        if (((a->backend < 0 && (b == 0 || gpu)) || a->backend == b) && (v->word_bits & words))
            out[(*n)++] = v;
    }
    return NB_OK;
}

/* The bits of the set's largest prime, Q and P together. */
static unsigned set_prime_bits(const nb_ckks_params *p)
{
    unsigned bits = 0;
    for (size_t i = 0; i < p->q_count + p->alpha; i++) {
        unsigned b = 0;
        for (uint64_t q = p->primes[i]; q; q >>= 1)
            b++;
        bits = b > bits ? b : bits;
    }
    return bits;
}

/* Rows of a preset the variant does not run (its ring, the set made for the
 * other word size, or primes above its bound): skipped, with the reason (as
 * `verify` skips sizes outside a variant's range). */
static void skip_preset(const stage_args *a, const char *preset, const nb_ntt_variant *v,
                        const nb_ckks_params *p, const unsigned long long *lv, size_t nlv,
                        nb_stage_check_row *rows, size_t *n)
{
    for (size_t si = 0; si < a->n_stages; si++)
        for (size_t li = 0; li < nlv; li++) {
            if (!kept(a, v, preset, a->stages[si], lv[li]))
                continue;
            nb_stage_check_row *r = &rows[(*n)++];
            *r = (nb_stage_check_row){.v = v, .preset = preset, .stage = a->stages[si],
                                    .level = (size_t)lv[li], .result = "skipped"};
            if (v->word_bits != p->word_bits)
                snprintf(r->message, sizeof r->message,
                         "the set is made for %u-bit words, the variant works on %u-bit ones",
                         p->word_bits, v->word_bits);
            else if (set_prime_bits(p) > v->max_prime_bits)
                snprintf(r->message, sizeof r->message,
                         "the set's primes have up to %u bits, the variant takes at most %u",
                         set_prime_bits(p), v->max_prime_bits);
            else
                snprintf(r->message, sizeof r->message,
                         "log N %u outside [%u, %u] of the variant", p->log_n, v->min_log_n,
                         v->max_log_n);
        }
}

/* Rows of a preset whose pipeline the variant failed to build (status s,
 * message nb_last_error()): fail when it wrote wrong or past its data
 * (NB_ERR_VERIFY), else error, as `verify` records a variant's failures (the
 * sets it cannot serve by its declared ranges are skipped before, by
 * skip_preset). */
static void fail_preset(const stage_args *a, const char *preset, const nb_ntt_variant *v,
                        const unsigned long long *lv, size_t nlv, nb_status s,
                        nb_stage_check_row *rows, size_t *n)
{
    char why[256];
    snprintf(why, sizeof why, "%s", nb_last_error());
    for (size_t si = 0; si < a->n_stages; si++)
        for (size_t li = 0; li < nlv; li++) {
            if (!kept(a, v, preset, a->stages[si], lv[li]))
                continue;
            nb_stage_check_row *r = &rows[(*n)++];
            *r = (nb_stage_check_row){.v = v, .preset = preset, .stage = a->stages[si],
                                    .level = (size_t)lv[li],
                                    .result = s == NB_ERR_VERIFY ? "fail" : "error"};
            snprintf(r->message, sizeof r->message, "%s", why);
        }
}

/* The levels checked when --level is not given: the set's top level and the
 * lowest one a rescale can start from (its rescale_primes: 1, or 2 for sets
 * of 32-bit words that drop a pair), once when they coincide. Returns how
 * many of out[0..1] it filled (1 or 2). */
static size_t default_levels(const nb_ckks_params *p, unsigned long long out[2])
{
    out[0] = p->max_level;
    out[1] = p->rescale_primes;
    return p->max_level > p->rescale_primes ? 2 : 1;
}

/* The rows check_preset will fill for every preset and variant that
 * --filter keeps (the default levels depend on each preset's L); `cap` when
 * a preset cannot be loaded (its rows then fail early). A --level above a
 * preset's top level is bad usage, as in `run` (NB_ERR_INVALID_ARG, *total
 * untouched). */
static nb_status planned_rows(const stage_args *a, const nb_ntt_variant *const *vars, size_t nv,
                              size_t cap, size_t *total)
{
    size_t rows = 0;
    for (size_t pi = 0; pi < a->n_presets; pi++) {
        nb_ckks_params *p = NULL;
        if (nb_ckks_params_from_preset(&p, a->presets[pi]) != NB_OK) {
            *total = cap;
            return NB_OK;
        }
        const size_t top = p->max_level;
        unsigned long long defaults[2];
        const size_t ndef = default_levels(p, defaults);
        nb_ckks_params_destroy(p);
        for (size_t li = 0; li < a->n_levels; li++)
            if (a->levels[li] > top)
                return nb_set_error(NB_ERR_INVALID_ARG, "--level %llu is above the top level "
                                    "%zu of the set %s", a->levels[li], top, a->presets[pi]);
        const unsigned long long *lv = a->n_levels ? a->levels : defaults;
        const size_t nlv = a->n_levels ? a->n_levels : ndef;
        for (size_t vi = 0; vi < nv; vi++)
            for (size_t si = 0; si < a->n_stages; si++)
                for (size_t li = 0; li < nlv; li++)
                    rows += kept(a, vars[vi], a->presets[pi], a->stages[si], lv[li]);
    }
    *total = rows;
    return NB_OK;
}

/* Every stage x level of one preset and one variant into rows (advancing *n). */
static nb_status check_preset(const stage_args *a, const char *preset,
                              const nb_ntt_variant *v, void *stream, nb_stage_check_row *rows,
                              size_t *n, int quiet)
{
    nb_ckks_params *p = NULL;
    nb_ckks *c = NULL;
    const double t0 = nb_now_s();
    NB_TRY(nb_ckks_params_from_preset(&p, preset));
    unsigned long long defaults[2];
    const size_t ndef = default_levels(p, defaults);
    const unsigned long long *lv = a->n_levels ? a->levels : defaults;
    const size_t nlv = a->n_levels ? a->n_levels : ndef;
    if (p->log_n < v->min_log_n || p->log_n > v->max_log_n || v->word_bits != p->word_bits ||
        set_prime_bits(p) > v->max_prime_bits) {
        skip_preset(a, preset, v, p, lv, nlv, rows, n);
        nb_ckks_params_destroy(p);
        return NB_OK;
    }
    nb_status s = nb_ckks_create(&c, p, v, v->backend == NB_BACKEND_GPU ? stream : NULL);
    if (s != NB_OK) { /* the set loaded: the failure is the variant's, and its rows say so */
        fail_preset(a, preset, v, lv, nlv, s, rows, n);
        nb_ckks_params_destroy(p);
        return NB_OK;
    }
    for (size_t si = 0; si < a->n_stages && s == NB_OK; si++)
        for (size_t li = 0; li < nlv; li++) {
            if (!kept(a, v, preset, a->stages[si], lv[li]))
                continue;
            nb_stage_check_row *r = &rows[(*n)++];
            *r = (nb_stage_check_row){.v = v, .preset = preset, .stage = a->stages[si],
                             .level = (size_t)lv[li]};
            nb_stage_check_ctx x = {p, c, v, v->backend == NB_BACKEND_GPU ? stream : NULL,
                                    {a->seed ^ (0x9E3779B97F4A7C15ull * *n)}};
            nb_stage_check_run(&x, r);
            if (!quiet && nb_now_s() - t0 > 3.0) {
                char eta[48];
                nb_cli_eta(eta, sizeof eta, nb_now_s() - a->t_start, *n, a->total);
                fprintf(stderr, "[%zu/%zu] %s %s %s l=%zu: %s%s\n", *n, a->total, v->name,
                        preset, stage_names[r->stage], r->level, r->result, eta);
            }
        }
    nb_ckks_destroy(c);
    nb_ckks_params_destroy(p);
    return s;
}

/* `nttbench verify --stage ...`: options as in stage_options; the global
 * --format / --output / --quiet as for `verify`. */
int nb_cmd_verify_stage(int argc, char **argv, nb_format fmt, const char *output, int quiet)
{
    stage_args a = {.stages = {0, 1, 2, 3}, .n_stages = 4, .backend = -1,
                    .seed = (uint64_t)time(NULL) * 0x2545F4914F6CDD1Dull};
    const nb_cli_option *const *tables = nb_cli_verify_stage_tables;
    nb_status st = NB_OK;
    for (int i = 0; i < argc && st == NB_OK;) {
        const char *n, *v;
        const int at = i;
        int r = nb_cli_next_option(argc, argv, &i, tables, &n, &v);
        if (r == 0)
            st = nb_set_error(NB_ERR_INVALID_ARG, "verify: unexpected argument '%s'", argv[i]);
        else if (r < 0)
            st = nb_cli_other_mode(argv[at], tables, nb_cli_verify_tables,
                                   "is an option of verify without --stage (the NTT checks); "
                                   "the stage checks take their sizes from --preset and --level");
        else
            st = set_arg(&a, n, v);
    }
    if (st == NB_OK && !a.n_presets)
        st = nb_cli_parse_words("test-small", "preset", &a.preset_store, a.presets, 1,
                                &a.n_presets);
    const nb_ntt_variant *vars[NB_CLI_MAX_LIST];
    size_t nv = 0;
    if (st == NB_OK)
        st = pick_variants(&a, vars, &nv);
    void *stream = NULL;
    for (size_t i = 0; i < nv && st == NB_OK && !stream; i++)
        if (vars[i]->backend == NB_BACKEND_GPU)
            st = nb_stream_create(&stream);
    size_t cap = nv * a.n_presets * a.n_stages * (a.n_levels ? a.n_levels : 2), n = 0;
    nb_stage_check_row *rows = st == NB_OK ? calloc(cap ? cap : 1, sizeof *rows) : NULL;
    if (st == NB_OK && !rows)
        st = nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    a.t_start = nb_now_s();
    if (st == NB_OK)
        st = planned_rows(&a, vars, nv, cap, &a.total);
    if (st == NB_OK && a.total == 0 && a.filter.n)
        st = nb_set_error(NB_ERR_INVALID_ARG, "--filter keeps none of the checks (their names "
                          "take the form \"VARIANT PRESET STAGE l=LEVEL\", e.g. \"cpu-harvey "
                          "test-small modup l=7\")");
    for (size_t pi = 0; pi < a.n_presets && st == NB_OK; pi++)
        for (size_t vi = 0; vi < nv && st == NB_OK; vi++)
            st = check_preset(&a, a.presets[pi], vars[vi], stream, rows, &n, quiet);
    nb_stream_destroy(stream);
    free(a.variant_store);
    nb_cli_filter_free(&a.filter);
    if (st == NB_OK) {
        stage_out o = {rows, n, fmt, a.seed};
        st = nb_write_file_atomic(output ? output : "-", write_rows, &o);
    }
    free(a.preset_store);
    if (st != NB_OK) {
        free(rows);
        return nb_cli_fail(st, nb_last_error());
    }
    size_t fails = 0, errs = 0, skips = 0;
    char skip_why[256] = "";
    for (size_t i = 0; i < n; i++) {
        fails += !strcmp(rows[i].result, "fail");
        errs += !strcmp(rows[i].result, "error");
        if (!strcmp(rows[i].result, "skipped") && !skips++)
            snprintf(skip_why, sizeof skip_why, "%s", rows[i].message);
    }
    free(rows);
    if (n && skips == n) { /* nothing was checked: a pass would say more than was shown */
        char msg[400];
        snprintf(msg, sizeof msg, "every stage check was skipped, nothing was checked (%s)",
                 skip_why);
        return nb_cli_fail(NB_ERR_INVALID_ARG, msg);
    }
    if (fails) {
        char msg[96];
        snprintf(msg, sizeof msg, "%zu stage check%s failed against the GMP reference", fails,
                 fails == 1 ? "" : "s");
        return nb_cli_fail(NB_ERR_VERIFY, msg);
    }
    if (errs) {
        char msg[64];
        snprintf(msg, sizeof msg, "%zu stage check%s could not run", errs, errs == 1 ? "" : "s");
        return nb_cli_fail(NB_ERR_CUDA, msg);
    }
    return 0;
}

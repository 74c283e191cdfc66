/* `nttbench env`, `nttbench list` and `nttbench calibrate`: the environment
 * block, the registered variants and presets, and the device's measured
 * ceilings with the hot-versus-cold copy experiment; the environment heading
 * that opens the text outputs of `verify`. */
#include <stdlib.h>
#include <string.h>

#include "bench/cli/cli.h"

int nb_cli_timing_set(nb_bench_opts *t, const char *name, const char *v, nb_status *st);

static const nb_cli_option no_options[] = {{NULL, 0, NULL}};

static int no_args(int argc, char **argv, const char *cmd)
{
    const nb_cli_option *const tables[] = {no_options, NULL};
    for (int i = 0; i < argc;) {
        const char *n, *v;
        int r = nb_cli_next_option(argc, argv, &i, tables, &n, &v);
        if (r <= 0) {
            if (r == 0)
                nb_set_error(NB_ERR_INVALID_ARG, "%s: unexpected argument '%s'", cmd, argv[i]);
            return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
        }
    }
    return 0;
}

typedef struct env_writer {
    const nb_env *e;
    nb_format fmt;
} env_writer;

static nb_status write_env(void *ctx, FILE *f)
{
    const env_writer *w = ctx;
    return nb_env_write(w->e, w->fmt, f);
}

int nb_cmd_env(int argc, char **argv, nb_format fmt, const char *output)
{
    int rc = no_args(argc, argv, "env");
    if (rc)
        return rc;
    nb_env e;
    nb_status s = nb_env_collect(&e, 1, 1);
    if (s != NB_OK)
        return nb_cli_fail(s, nb_last_error());
    env_writer w = {&e, fmt};
    s = nb_write_file_atomic(output ? output : "-", write_env, &w);
    return s == NB_OK ? 0 : nb_cli_fail(s, nb_last_error());
}

/* ------------------------------------------------------------------ list */

static nb_status write_list(void *ctx, FILE *f)
{
    nb_format fmt = *(const nb_format *)ctx;
    const size_t n = nb_ntt_variant_count();
    if (fmt == NB_FORMAT_JSON) {
        json_t *vars = json_array();
        for (size_t i = 0; i < n; i++) {
            const nb_ntt_variant *v = nb_ntt_variant_at(i);
            json_array_append_new(
                vars, json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:s}", "name", v->name, "backend",
                                nb_backend_name(v->backend), "min_log_n", (int)v->min_log_n,
                                "max_log_n", (int)v->max_log_n, "word_bits", (int)v->word_bits,
                                "max_prime_bits", (int)v->max_prime_bits, "description",
                                v->description));
        }
        json_t *j = json_pack("{s:s, s:i, s:o, s:o, s:b}", "schema", "nttbench-list",
                              "schema_version", 1, "variants", vars, "presets",
                              nb_cli_stage_list_json(), "gpu_present", nb_gpu_count() > 0);
        int r = json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        json_decref(j);
        fputc('\n', f);
        return r == 0 ? NB_OK : nb_set_error(NB_ERR_IO, "cannot write JSON");
    }
    if (fmt == NB_FORMAT_CSV) {
        fprintf(f, "name,backend,min_log_n,max_log_n,word_bits,max_prime_bits,description\n");
        for (size_t i = 0; i < n; i++) {
            const nb_ntt_variant *v = nb_ntt_variant_at(i);
            fprintf(f, "%s,%s,%u,%u,%u,%u,\"%s\"\n", v->name, nb_backend_name(v->backend),
                    v->min_log_n, v->max_log_n, v->word_bits, v->max_prime_bits, v->description);
        }
        return NB_OK;
    }
    const int md = fmt == NB_FORMAT_MD;
    size_t w = 7;
    for (size_t i = 0; i < n; i++)
        if (strlen(nb_ntt_variant_at(i)->name) > w)
            w = strlen(nb_ntt_variant_at(i)->name);
    if (md)
        fprintf(f, "| variant | backend | log N | word | q bits | description |\n"
                   "| --- | --- | --- | --- | --- | --- |\n");
    else
        fprintf(f, "%-*s  %-7s  %-7s  %-6s  %-6s  %s\n", (int)w, "variant", "backend", "log N",
                "word", "q bits", "description");
    for (size_t i = 0; i < n; i++) {
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        char range[16];
        snprintf(range, sizeof range, "%u..%u", v->min_log_n, v->max_log_n);
        if (md)
            fprintf(f, "| %s | %s | %s | %u-bit | <= %u | %s |\n", v->name,
                    nb_backend_name(v->backend), range, v->word_bits, v->max_prime_bits,
                    v->description);
        else
            fprintf(f, "%-*s  %-7s  %-7s  %-2u-bit  <=%-4u  %s\n", (int)w, v->name,
                    nb_backend_name(v->backend), range, v->word_bits, v->max_prime_bits,
                    v->description);
    }
    if (nb_gpu_count() == 0)
        fprintf(f, md ? "\nNo GPU is usable here: GPU variants cannot run.\n"
                      : "\n(no GPU is usable here: GPU variants cannot run)\n");
    nb_cli_stage_list_text(f, md);
    return NB_OK;
}

int nb_cmd_list(int argc, char **argv, nb_format fmt, const char *output)
{
    int rc = no_args(argc, argv, "list");
    if (rc)
        return rc;
    nb_status s = nb_write_file_atomic(output ? output : "-", write_list, &fmt);
    return s == NB_OK ? 0 : nb_cli_fail(s, nb_last_error());
}

/* ------------------------------------------------------------- calibrate */

static const nb_cli_option calib_options[] = {
    {"backend", 1, "B      cpu | gpu | auto (auto: gpu when a device is present)"},
    {NULL, 0, NULL},
};

const nb_cli_option *const nb_cli_calibrate_tables[] = {calib_options, nb_cli_timing_options, NULL};

typedef struct calib_writer {
    const nb_calibration *c;
    const nb_env *e;
    nb_format fmt;
} calib_writer;

static nb_status write_calib(void *ctx, FILE *f)
{
    const calib_writer *w = ctx;
    return nb_calibration_write(w->c, w->e, w->fmt, f);
}

int nb_cmd_calibrate(int argc, char **argv, nb_format fmt, const char *output, int quiet)
{
    nb_bench_opts o;
    nb_bench_opts_default(&o);
    o.min_time_s = 0.1;
    o.timeout_s = 5.0;
    int backend = -1;
    const char *gpu_sampling = NULL; /* an option that shapes GPU samples only */
    const nb_cli_option *const *tables = nb_cli_calibrate_tables;
    for (int i = 0; i < argc;) {
        const char *n, *v;
        int r = nb_cli_next_option(argc, argv, &i, tables, &n, &v);
        if (r <= 0) {
            if (r == 0)
                nb_set_error(NB_ERR_INVALID_ARG, "calibrate: unexpected argument '%s'", argv[i]);
            return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
        }
        nb_status st;
        if (!strcmp(n, "backend")) {
            nb_cli_backend b;
            if (nb_cli_parse_backend(v, &b) != NB_OK)
                return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
            backend = (int)b;
        } else if (nb_cli_timing_set(&o, n, v, &st) && st != NB_OK) {
            return nb_cli_fail(st, nb_last_error());
        } else if (!strcmp(n, "batch-samples") || !strcmp(n, "queue-ahead")) {
            gpu_sampling = n;
        }
    }
    if (gpu_sampling && backend == (int)NB_CLI_CPU) { /* as `run` refuses them */
        char msg[200];
        snprintf(msg, sizeof msg, "--%s shapes how GPU samples are taken, and --backend cpu "
                 "calibrates the host (leave --%s out)", gpu_sampling, gpu_sampling);
        return nb_cli_fail(NB_ERR_INVALID_ARG, msg);
    }
    if (nb_bench_opts_check(&o) != NB_OK)
        return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
    if (backend < 0)
        backend = nb_gpu_count() > 0;
    nb_backend b = backend ? NB_BACKEND_GPU : NB_BACKEND_CPU;
    void *stream = NULL;
    nb_status s = NB_OK;
    if (b == NB_BACKEND_GPU)
        s = nb_stream_create(&stream);
    nb_env e;
    if (s == NB_OK)
        s = nb_env_collect(&e, b == NB_BACKEND_GPU, 0);
    nb_calibration c;
    if (s == NB_OK) {
        if (!quiet)
            fprintf(stderr, "nttbench: calibrating the %s (about %s)...\n", nb_backend_name(b),
                    b == NB_BACKEND_GPU ? "10-30 s" : "a minute");
        nb_nvtx_push("nttbench calibrate");
        s = nb_calibrate(b, stream, &o, &c);
        nb_nvtx_pop();
    }
    if (s == NB_OK) {
        calib_writer w = {&c, &e, fmt};
        s = nb_write_file_atomic(output ? output : "-", write_calib, &w);
    }
    if (s == NB_OK && fmt != NB_FORMAT_TABLE && !quiet && nb_cli_output_is_file(output))
        s = nb_calibration_write(&c, &e, NB_FORMAT_TABLE, stdout); /* the short table, as run */
    nb_stream_destroy(stream);
    return s == NB_OK ? 0 : nb_cli_fail(s, nb_last_error());
}

nb_status nb_cli_write_env_heading(nb_format fmt, FILE *f)
{
    nb_env e;
    nb_env_collect(&e, 0, 0);
    fputs(fmt == NB_FORMAT_MD ? "### Environment\n\n" : "Environment\n", f);
    NB_TRY(nb_env_write(&e, fmt, f));
    fputs(fmt == NB_FORMAT_MD ? "\n### Checks against the GMP reference\n\n" : "\n", f);
    return NB_OK;
}

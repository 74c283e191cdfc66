/* The environment's report forms: its JSON object (the "environment" of
 * every report) and `nttbench env` as table, markdown, CSV (key,value) or
 * JSON. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/nb_build.h"
#include "bench/report/internal.h"

/* ---------------------------------------------------------------- writers */

typedef struct kv {
    char key[48];
    char val[1100]; /* the GPU topology is the longest */
} kv;

static size_t env_rows(const nb_env *e, kv *rows, size_t max)
{
    size_t n = 0;
#define ROW(k, ...)                                                                  \
    do {                                                                             \
        if (n < max) {                                                               \
            snprintf(rows[n].key, sizeof rows[n].key, "%s", k);                      \
            snprintf(rows[n].val, sizeof rows[n].val, __VA_ARGS__);                  \
            n++;                                                                     \
        }                                                                            \
    } while (0)
    ROW("nttbench", "%s (%s)", e->version, e->git_commit);
    ROW("timestamp (UTC)", "%s", e->timestamp_utc);
    ROW("build", "%s; %s; CUDA %s; OpenMP %s", NB_BUILD_COMPILER, NB_BUILD_FLAGS,
        NB_BUILD_CUDA_ARCHS[0] ? NB_BUILD_CUDA_ARCHS : "none", NB_BUILD_OPENMP ? "on" : "off");
    ROW("host CPU", "%s", e->host_cpu);
    ROW("host cores / OpenMP threads", "%d / %d", e->host_cores, e->omp_threads);
    ROW("host LLC", "%.1f MiB (%s)", e->host_llc_bytes / 1048576.0, e->host_llc_source);
    ROW("host memory", "%.1f GiB", e->host_mem_bytes / 1073741824.0);
    ROW("host OS", "%s", e->host_os);
    ROW("CPU threads", "OMP_WAIT_POLICY=%s, OMP_PROC_BIND=%s",
        e->omp_wait_policy[0] ? e->omp_wait_policy : "(unset)",
        e->omp_proc_bind[0] ? e->omp_proc_bind : "(unset)");
    ROW("NCCL settings", "%s", e->nccl_settings[0] ? e->nccl_settings : "(none)");
    if (e->host_copy_Bps > 0)
        ROW("host copy bandwidth", "%.1f GB/s (read + write; %s)", e->host_copy_Bps / 1e9,
            NB_HOST_COPY_METHOD);
    if (!e->has_gpu) {
        if (e->gpu_none_reason[0])
            ROW("GPU", "none (%s)", e->gpu_none_reason);
        else
            ROW("GPU", "none");
        return n;
    }
    ROW("GPU", "%s", e->gpu_name);
    ROW("GPUs", "%d (%s)", e->gpu_count, e->gpu_topology);
    ROW("compute capability", "%d.%d", e->cc_major, e->cc_minor);
    ROW("SMs", "%d", e->sm_count);
    ROW("L2", "%.1f MiB (persisting max %.1f MiB)", e->l2_bytes / 1048576.0,
        e->persisting_l2_max_bytes / 1048576.0);
    ROW("GPU memory", "%.1f GiB", e->gpu_mem_bytes / 1073741824.0);
    ROW("memory clock / bus", "%.0f MHz / %d bit", e->mem_clock_mhz, e->bus_width_bits);
    ROW("theoretical DRAM peak", "%.1f GB/s", e->peak_Bps / 1e9);
    if (e->gpu_copy_Bps > 0)
        ROW("measured copy bandwidth", "%.1f GB/s (read + write, %.0f%% of peak)",
            e->gpu_copy_Bps / 1e9, e->peak_Bps > 0 ? 100.0 * e->gpu_copy_Bps / e->peak_Bps : 0);
    ROW("default SM clock", "%.0f MHz", e->default_sm_mhz);
    ROW("CUDA driver / runtime", "%d.%d / %d.%d", e->driver_version / 1000,
        e->driver_version % 1000 / 10, e->runtime_version / 1000,
        e->runtime_version % 1000 / 10);
    ROW("NVML driver", "%s", e->nvml_driver[0] ? e->nvml_driver : "unavailable");
    ROW("ECC", "%s", e->ecc_enabled < 0 ? "unavailable" : e->ecc_enabled ? "on" : "off");
    if (e->nvml.available)
        ROW("clocks now (NVML)", "SM %u MHz, memory %u MHz, reasons: %s", e->nvml.sm_mhz,
            e->nvml.mem_mhz, e->nvml.reasons);
    else
        ROW("clocks now (NVML)", "%s", e->nvml.note);
#undef ROW
    return n;
}

/* The report's argv as one line (arguments with a space quoted). */
static void command_line(const nb_report *r, char *buf, size_t n)
{
    size_t u = 0;
    buf[0] = '\0';
    for (size_t i = 0; r->argv && i < json_array_size(r->argv) && u < n; i++) {
        const char *a = json_string_value(json_array_get(r->argv, i));
        const int q = a && strpbrk(a, " \t'\"|") != NULL;
        u += (size_t)snprintf(buf + u, n - u, "%s%s%s%s", i ? " " : "", q ? "'" : "",
                              a ? a : "", q ? "'" : "");
    }
}

static void write_rows(const kv *rows, size_t n, nb_format fmt, FILE *f)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (strlen(rows[i].key) > w)
            w = strlen(rows[i].key);
    if (fmt == NB_FORMAT_MD)
        fprintf(f, "| item | value |\n| --- | --- |\n");
    if (fmt == NB_FORMAT_CSV)
        fprintf(f, "item,value\n");
    for (size_t i = 0; i < n; i++) {
        if (fmt == NB_FORMAT_MD) {
            fprintf(f, "| %s | ", rows[i].key);
            for (const char *c = rows[i].val; *c; c++) {
                if (*c == '|')
                    fputc('\\', f);
                fputc(*c, f);
            }
            fputs(" |\n", f);
        } else if (fmt == NB_FORMAT_CSV) {
            nb_csv_write_field(f, rows[i].key);
            fputc(',', f);
            nb_csv_write_field(f, rows[i].val);
            fputc('\n', f);
        } else {
            fprintf(f, "%-*s  %s\n", (int)w, rows[i].key, rows[i].val);
        }
    }
}

void nb_env_write_block(const nb_report *r, FILE *f, int md)
{
    if (!r->has_env)
        return;
    kv rows[49];
    size_t n = env_rows(&r->env, rows, 48);
    snprintf(rows[n].key, sizeof rows[n].key, "command line");
    command_line(r, rows[n].val, sizeof rows[n].val);
    n++;
    fputs(md ? "### Environment\n\n" : "Environment\n", f);
    write_rows(rows, n, md ? NB_FORMAT_MD : NB_FORMAT_TABLE, f);
    fputs(md ? "\n### Results\n\n" : "\n", f);
}

nb_status nb_env_write(const nb_env *e, nb_format fmt, FILE *f)
{
    if (!e || !f)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_env_write: NULL argument");
    if ((unsigned)fmt > NB_FORMAT_JSON)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_env_write: unknown format %d", (int)fmt);
    if (fmt == NB_FORMAT_JSON) { /* a document of its own: its schema, then the block */
        json_t *j = json_pack("{s:s, s:i}", "schema", "nttbench-env", "schema_version", 1);
        json_t *block = nb_env_to_json(e);
        int rc = !j || !block || json_object_update(j, block) != 0 ||
                 json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0;
        json_decref(block);
        json_decref(j);
        fputc('\n', f);
        return rc == 0 ? NB_OK : nb_set_error(NB_ERR_IO, "cannot write JSON");
    }
    kv rows[48];
    write_rows(rows, env_rows(e, rows, 48), fmt, f);
    return ferror(f) ? nb_set_error(NB_ERR_IO, "write error") : NB_OK;
}

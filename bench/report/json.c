/* The JSON writer (schema "nttbench-report", version NB_REPORT_SCHEMA_VERSION;
 * docs/cli.md): every case with its parameters, result, the accepted samples
 * and their SM clocks (at most NB_REPORT_MAX_STORED_SAMPLES, a seeded reservoir
 * beyond), cache plan, figures, breakdown, kernel trace and metrics, a GPU
 * case's kernels, profiler pass and bound, the report's ceilings; and the JSON
 * objects of the environment, the options and NVML snapshots. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/nb_build.h"
#include "bench/report/internal.h"
#include "core/rng.h"


static json_t *opt_real(double v, int known)
{
    return known ? nb_json_real(v) : json_null();
}

json_t *nb_build_to_json(void)
{
    json_t *archs = json_array();
    char buf[sizeof NB_BUILD_CUDA_ARCHS];
    memcpy(buf, NB_BUILD_CUDA_ARCHS, sizeof buf);
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
        json_array_append_new(archs, json_string(t));
    return json_pack("{s:s, s:s, s:o, s:b}", "compiler", NB_BUILD_COMPILER, "flags",
                     NB_BUILD_FLAGS, "cuda_architectures", archs, "openmp", NB_BUILD_OPENMP);
}

json_t *nb_env_to_json(const nb_env *e)
{
    json_t *host = json_pack("{s:s, s:s, s:i, s:i, s:I, s:s, s:I}", "cpu", e->host_cpu, "os",
                             e->host_os, "cores", e->host_cores, "omp_threads", e->omp_threads,
                             "llc_bytes", (json_int_t)e->host_llc_bytes, "llc_source",
                             e->host_llc_source, "memory_bytes", (json_int_t)e->host_mem_bytes);
    json_object_set_new(host, "copy_bandwidth_Bps",
                        opt_real(e->host_copy_Bps, e->host_copy_Bps > 0));
    json_object_set_new(host, "copy_bandwidth_method", json_string(NB_HOST_COPY_METHOD));
    json_object_set_new(host, "omp_wait_policy", json_string(e->omp_wait_policy));
    json_object_set_new(host, "omp_proc_bind", json_string(e->omp_proc_bind));
    json_t *j = json_pack("{s:s, s:s, s:s}", "nttbench_version", e->version, "git_commit",
                          e->git_commit, "timestamp_utc", e->timestamp_utc);
    json_object_set_new(j, "build", nb_build_to_json());
    json_object_set_new(j, "host", host);
    json_object_set_new(j, "nccl_settings", json_string(e->nccl_settings));
    if (!e->has_gpu) {
        json_object_set_new(j, "gpu", json_null());
        if (e->gpu_none_reason[0])
            json_object_set_new(j, "gpu_none_reason", json_string(e->gpu_none_reason));
        return j;
    }
    char cc[16], drv[32], rt[32];
    snprintf(cc, sizeof cc, "%d.%d", e->cc_major, e->cc_minor);
    snprintf(drv, sizeof drv, "%d.%d", e->driver_version / 1000, e->driver_version % 1000 / 10);
    snprintf(rt, sizeof rt, "%d.%d", e->runtime_version / 1000, e->runtime_version % 1000 / 10);
    json_t *g = json_pack("{s:s, s:s, s:i, s:I, s:I, s:I}", "name", e->gpu_name,
                          "compute_capability", cc, "sm_count", e->sm_count, "l2_bytes",
                          (json_int_t)e->l2_bytes, "persisting_l2_max_bytes",
                          (json_int_t)e->persisting_l2_max_bytes, "memory_bytes",
                          (json_int_t)e->gpu_mem_bytes);
    json_object_set_new(g, "count", json_integer(e->gpu_count));
    json_object_set_new(g, "topology", json_string(e->gpu_topology));
    json_object_set_new(g, "memory_clock_mhz", nb_json_real(e->mem_clock_mhz));
    json_object_set_new(g, "bus_width_bits", json_integer(e->bus_width_bits));
    json_object_set_new(g, "theoretical_peak_Bps", opt_real(e->peak_Bps, e->peak_Bps > 0));
    json_object_set_new(g, "default_sm_clock_mhz", nb_json_real(e->default_sm_mhz));
    json_object_set_new(g, "copy_bandwidth_Bps", opt_real(e->gpu_copy_Bps, e->gpu_copy_Bps > 0));
    json_object_set_new(g, "cuda_driver", json_string(drv));
    json_object_set_new(g, "cuda_runtime", json_string(rt));
    json_object_set_new(g, "nvml_driver",
                        e->nvml_driver[0] ? json_string(e->nvml_driver)
                                          : json_string("unavailable"));
    json_object_set_new(g, "ecc",
                        e->ecc_enabled < 0 ? json_string("unavailable")
                                           : json_string(e->ecc_enabled ? "on" : "off"));
    json_object_set_new(g, "nvml", nb_nvml_to_json(&e->nvml));
    json_object_set_new(j, "gpu", g);
    return j;
}


json_t *nb_nvml_to_json(const nb_nvml_snapshot *s)
{
    if (!s->available)
        return json_pack("{s:s, s:s}", "status", "unavailable", "note",
                         s->note[0] ? s->note : "not taken");
    json_t *j = json_pack("{s:s, s:i, s:i, s:I, s:s}", "status", "ok", "sm_clock_mhz",
                          (int)s->sm_mhz, "mem_clock_mhz", (int)s->mem_mhz,
                          "clock_event_reasons", (json_int_t)s->event_reasons,
                          "clock_event_reasons_text", s->reasons);
    json_object_set_new(j, "temperature_c",
                        s->temperature_c >= 0 ? json_integer(s->temperature_c) : json_null());
    json_object_set_new(j, "power_w", s->power_w >= 0 ? json_real(s->power_w) : json_null());
    return j;
}

json_t *nb_opts_to_json(const nb_bench_opts *o)
{
    json_t *j = json_pack(
        "{s:s, s:I, s:I, s:f, s:f, s:f, s:I, s:I, s:f, s:f, s:f, s:f, s:s, s:I, s:f}", "mode",
        nb_mode_name(o->mode), "batch", (json_int_t)o->batch, "min_samples",
        (json_int_t)o->min_samples, "min_time_s", o->min_time_s, "max_noise_pct",
        o->max_noise_pct, "timeout_s", o->timeout_s, "max_samples", (json_int_t)o->max_samples,
        "warmup_samples", (json_int_t)o->warmup_samples, "warmup_time_s", o->warmup_time_s,
        "throttle_threshold_pct", o->throttle_threshold_pct, "throttle_recovery_s",
        o->throttle_recovery_s, "blocking_timeout_s", o->blocking_timeout_s, "cold",
        nb_cache_state_name(o->cache), "sets", (json_int_t)o->rotate_sets, "rotate_factor",
        o->rotate_factor);
    json_object_set_new(j, "l2_persist", o->l2_persist >= 0 ? json_real(o->l2_persist)
                                                            : json_null());
    json_object_set_new(j, "batch_samples", json_integer((json_int_t)o->batch_samples));
    json_object_set_new(j, "queue_ahead", json_integer((json_int_t)o->queue_ahead));
    return j;
}


static json_t *ns(double s) { return nb_json_real(s * 1e9); }

static const char *verify_word(int v) { return v > 0 ? "pass" : v < 0 ? "fail" : "not-run"; }

static json_t *params_json(const nb_case *c)
{
    json_t *params = json_object();
    for (size_t i = 0; i < c->n_params; i++) {
        const param *p = &c->params[i];
        if (p->type == P_INT) {
            json_object_set_new(params, p->key, json_integer(p->i));
        } else if (p->type == P_STR) {
            json_object_set_new(params, p->key, json_string(p->s));
        } else if (p->type == P_REAL) {
            json_object_set_new(params, p->key, nb_json_real(p->r));
        } else {
            json_t *a = json_array();
            for (size_t k = 0; k < p->n; k++)
                json_array_append_new(a, json_integer((json_int_t)p->list[k]));
            json_object_set_new(params, p->key, a);
        }
    }
    return params;
}

static json_t *stats_json(const nb_bench_result *r)
{
    if (!r->n_samples)
        return json_null();
    const nb_stats *s = &r->stats;
    json_t *st = json_object();
    json_object_set_new(st, "unit", json_string("ns"));
    json_object_set_new(st, "samples", json_integer((json_int_t)s->n));
    json_object_set_new(st, "median", ns(s->median));
    json_object_set_new(st, "mean", ns(s->mean));
    json_object_set_new(st, "min", ns(s->min));
    json_object_set_new(st, "max", ns(s->max));
    json_object_set_new(st, "stddev", ns(s->stddev));
    json_object_set_new(st, "noise_pct", nb_json_real(s->noise_pct));
    json_object_set_new(st, "p10", ns(s->p10));
    json_object_set_new(st, "p90", ns(s->p90));
    json_object_set_new(st, "median_ci95_lo", ns(s->ci_lo));
    json_object_set_new(st, "median_ci95_hi", ns(s->ci_hi));
    json_object_set_new(st, "median_ci_coverage", nb_json_real(s->ci_level));
    return st;
}

static int cmp_size(const void *a, const void *b)
{
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

size_t *nb_report_reservoir(size_t n, size_t k, uint64_t seed)
{
    size_t *idx = malloc((k ? k : 1) * sizeof *idx);
    if (!idx)
        return NULL;
    nb_rng g;
    nb_rng_seed(&g, seed);
    for (size_t i = 0; i < n; i++) {
        if (i < k) {
            idx[i] = i;
            continue;
        }
        const uint64_t j = nb_rng_below(&g, (uint64_t)i + 1);
        if (j < k)
            idx[j] = i;
    }
    qsort(idx, n < k ? n : k, sizeof *idx, cmp_size);
    return idx;
}

/* The case's "seed" parameter (0 when it has none): the reservoir's seed. */
static uint64_t case_seed(const nb_case *c)
{
    for (size_t i = 0; i < c->n_params; i++)
        if (c->params[i].type == P_INT && strcmp(c->params[i].key, "seed") == 0)
            return (uint64_t)c->params[i].i;
    return 0;
}

/* Host interference over the sampling (CPU cases; null fields when not
 * measured). */
static json_t *contention_json(const nb_contention *k)
{
    json_t *o = json_object();
    json_object_set_new(o, "measured", json_boolean(k->measured));
    json_object_set_new(o, "involuntary_context_switches",
                        k->measured ? json_integer((json_int_t)k->ivcsw) : json_null());
    json_object_set_new(o, "involuntary_switches_per_s", nb_json_real(k->ivcsw_per_s));
    json_object_set_new(o, "run_queue", k->run_queue >= 0 ? json_real(k->run_queue) : json_null());
    json_object_set_new(o, "steal_fraction",
                        k->steal_frac >= 0 ? json_real(k->steal_frac) : json_null());
    json_object_set_new(o, "threads", json_integer(k->threads));
    json_object_set_new(o, "cpus", json_integer(k->cpus));
    json_object_set_new(o, "reason", json_string(k->reason));
    return o;
}

/* The measurement of a case: mode, verification, cache plan, stopping,
 * statistics, clocks and every sample. */
static void result_json(json_t *j, const nb_case *c)
{
    const nb_bench_result *r = &c->result;
    json_object_set_new(j, "mode", json_string(nb_mode_name(r->mode)));
    json_object_set_new(j, "launches_per_sample",
                        json_integer((json_int_t)r->launches_per_sample));
    json_object_set_new(j, "blocking_kernel", json_boolean(r->blocked));
    json_object_set_new(j, "verification",
                        json_pack("{s:s, s:s}", "before", verify_word(r->verified_before),
                                  "after", verify_word(r->verified_after)));
    const nb_cache_plan *p = &r->cache;
    json_t *cache = json_pack("{s:s, s:s, s:b, s:I, s:I, s:I, s:I, s:I}", "tier",
                              c->tier, "state", nb_cache_state_name(p->cache), "flush", p->flush, "sets",
                              (json_int_t)p->sets, "graphs", (json_int_t)p->graphs,
                              "launches_per_sample", (json_int_t)p->launches, "cache_bytes",
                              (json_int_t)p->cache_bytes, "footprint_bytes",
                              (json_int_t)p->footprint);
    json_object_set_new(cache, "allocated_bytes", nb_json_real(p->allocated_bytes));
    json_object_set_new(cache, "min_reuse_bytes", nb_json_real(p->reuse_bytes));
    json_object_set_new(cache, "flush_bytes", nb_json_real(r->flush_bytes));
    json_object_set_new(cache, "l2_persist_bytes", nb_json_real(r->persist_bytes));
    json_object_set_new(cache, "l2_persist_hit_ratio",
                        r->persist_bytes > 0 ? json_real(r->persist_hit_ratio) : json_null());
    json_object_set_new(j, "cache", cache);
    json_t *stop = json_pack("{s:s, s:b, s:I, s:I}", "reason", nb_stop_reason_name(r->stop),
                             "noise_target_met", r->noise_target_met, "warmup_samples",
                             (json_int_t)r->warmup_samples, "throttled_discarded",
                             (json_int_t)r->throttled_samples);
    json_object_set_new(stop, "measured_time_s", nb_json_real(r->measured_s));
    json_object_set_new(stop, "wall_time_s", nb_json_real(r->wall_s));
    json_object_set_new(stop, "synchronisations", json_integer((json_int_t)r->sampling_syncs));
    json_object_set_new(stop, "largest_batch", json_integer((json_int_t)r->batch_max));
    json_object_set_new(stop, "buffer_sets_s", nb_json_real(r->setup_s));
    json_object_set_new(stop, "checks_s", nb_json_real(r->verify_s));
    json_object_set_new(stop, "warmup_s", nb_json_real(r->warmup_s));
    json_object_set_new(stop, "run_s", nb_json_real(r->run_s));
    json_object_set_new(stop, "case_s", nb_json_real(c->wall_s));
    json_object_set_new(j, "stopping", stop);
    json_object_set_new(j, "contended", json_boolean(r->contention.contended));
    json_object_set_new(j, "contention", contention_json(&r->contention));
    json_object_set_new(j, "stats", stats_json(r));
    json_t *clk = json_object();
    json_object_set_new(clk, "default_sm_mhz",
                        r->default_clock_mhz > 0 ? json_real(r->default_clock_mhz)
                                                 : json_null());
    json_object_set_new(clk, "nvml_before", nb_nvml_to_json(&r->nvml_before));
    json_object_set_new(clk, "nvml_after", nb_nvml_to_json(&r->nvml_after));
    json_object_set_new(j, "clocks", clk);
    size_t *keep = NULL, n_keep = r->n_samples;
    if (r->n_samples > NB_REPORT_MAX_STORED_SAMPLES) {
        keep = nb_report_reservoir(r->n_samples, NB_REPORT_MAX_STORED_SAMPLES, case_seed(c));
        n_keep = keep ? NB_REPORT_MAX_STORED_SAMPLES : 0;
    }
    json_t *samples = json_array(), *clocks = json_array();
    for (size_t k = 0; k < n_keep; k++) {
        const size_t i = keep ? keep[k] : k;
        json_array_append_new(samples, ns(r->sample_s[i]));
        json_array_append_new(clocks, nb_json_real(r->sample_clock_mhz[i]));
    }
    free(keep);
    json_object_set_new(j, "samples_ns", samples);
    json_object_set_new(j, "sample_sm_clock_mhz", clocks);
    json_object_set_new(j, "samples_stored", json_integer((json_int_t)n_keep));
    json_object_set_new(j, "samples_selection",
                        json_string(n_keep < r->n_samples ? "reservoir" : "all"));
}

static json_t *figures_json(const nb_ntt_figures *f)
{
    json_t *fj = json_object();
    json_object_set_new(fj, "coefficient_bytes", nb_json_real(f->coefficient_bytes));
    json_object_set_new(fj, "twiddle_bytes", nb_json_real(f->twiddle_bytes));
    json_object_set_new(fj, "bandwidth_Bps", nb_json_real(f->bandwidth_Bps));
    json_object_set_new(fj, "bandwidth_with_twiddles_Bps",
                        nb_json_real(f->bandwidth_with_twiddles_Bps));
    json_object_set_new(fj, "fraction_of_copy_bandwidth", nb_json_real(f->frac_copy));
    json_object_set_new(fj, "fraction_of_peak_bandwidth", nb_json_real(f->frac_peak));
    json_object_set_new(fj, "butterflies_per_s", nb_json_real(f->butterflies_per_s));
    return fj;
}

static json_t *breakdown_json(const nb_breakdown *b)
{
    json_t *steps = json_array();
    for (size_t i = 0; i < b->n_steps; i++) {
        const nb_step_stat *s = &b->steps[i];
        json_t *sj = json_pack("{s:s, s:b, s:b, s:I, s:I}", "name", s->name, "is_ntt",
                               s->is_ntt, "inverse", s->inverse, "count",
                               (json_int_t)s->count, "ntt_limbs", (json_int_t)s->ntt_limbs);
        json_object_set_new(sj, "median_ns", ns(s->median_s));
        json_object_set_new(sj, "share", nb_json_real(s->share));
        json_array_append_new(steps, sj);
    }
    json_t *bj = json_object();
    json_object_set_new(bj, "passes", json_integer((json_int_t)b->passes));
    json_object_set_new(bj, "blocking_kernel", json_boolean(b->blocked));
    json_object_set_new(bj, "steps", steps);
    json_object_set_new(bj, "sum_of_steps_ns", ns(b->sum_s));
    json_object_set_new(bj, "marked_launch_ns", ns(b->launch_s));
    json_object_set_new(bj, "ntt_ns", ns(b->ntt_s));
    json_object_set_new(bj, "ntt_share", nb_json_real(b->ntt_share));
    json_object_set_new(bj, "ntt_forward_limbs", json_integer((json_int_t)b->ntt_fwd_limbs));
    json_object_set_new(bj, "ntt_inverse_limbs", json_integer((json_int_t)b->ntt_inv_limbs));
    return bj;
}

json_t *nb_ceilings_to_json(const nb_ceilings *c)
{
    json_t *j = json_object();
    json_object_set_new(j, "copy_bandwidth_Bps", nb_json_real(c->copy_Bps));
    json_object_set_new(j, "copy_source", json_string(nb_ceiling_source_name(c->copy_source)));
    json_object_set_new(j, "butterflies_per_s", nb_json_real(c->butterflies_per_s));
    json_object_set_new(j, "butterflies32_per_s", nb_json_real(c->butterflies32_per_s));
    json_object_set_new(j, "butterfly_source",
                        json_string(nb_ceiling_source_name(c->butterfly_source)));
    json_object_set_new(j, "launch_ns", nb_json_real(c->launch_ns));
    json_object_set_new(j, "kernel_boundary_ns", nb_json_real(c->boundary_ns));
    json_object_set_new(j, "launch_source", json_string(nb_ceiling_source_name(c->launch_source)));
    json_object_set_new(j, "calibration", c->calibration[0] ? json_string(c->calibration)
                                                            : json_null());
    json_object_set_new(j, "calibration_gpu", c->calibration_gpu[0]
                                                  ? json_string(c->calibration_gpu)
                                                  : json_null());
    json_object_set_new(j, "threshold", json_real(NB_BOUND_THRESHOLD));
    return j;
}

static json_t *kernels_json(const nb_case *c)
{
    if (c->kernels_state != 1)
        return NULL;
    json_t *a = json_array();
    for (size_t i = 0; i < c->n_kernels; i++) {
        const nb_ntt_kernel *k = &c->kernels[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(k->name));
        json_object_set_new(o, "block_threads", json_integer(k->block_threads));
        json_object_set_new(o, "launches", json_integer(k->launches));
        json_object_set_new(o, "blocks", json_integer((json_int_t)k->blocks));
        json_object_set_new(o, "regs", json_integer(k->regs));
        json_object_set_new(o, "local_bytes", json_integer((json_int_t)k->local_bytes));
        json_object_set_new(o, "smem_static", json_integer((json_int_t)k->smem_static));
        json_object_set_new(o, "smem_dynamic", json_integer((json_int_t)k->smem_dynamic));
        json_object_set_new(o, "blocks_per_sm", json_integer(k->blocks_per_sm));
        json_object_set_new(o, "occupancy", nb_json_real(k->occupancy));
        json_array_append_new(a, o);
    }
    return a;
}

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

/* A case's profiler pass (docs/cli.md, "profile"). */
static json_t *profile_json(const nb_profile *p)
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

static json_t *bound_json(const nb_case *c, const nb_ceilings *ceil)
{
    nb_bound b;
    if (!ceil || !nb_case_bound(c, ceil, &b))
        return NULL;
    json_t *j = json_object();
    json_object_set_new(j, "class", json_string(nb_bound_class_name(b.cls)));
    json_object_set_new(j, "fraction_of_butterfly_ceiling", nb_json_real(b.frac_butterfly));
    json_object_set_new(j, "fraction_of_copy_bandwidth", nb_json_real(b.frac_copy));
    json_object_set_new(j, "launch_fraction", nb_json_real(b.frac_launch));
    json_object_set_new(j, "butterfly_floor_ns", nb_json_real(b.butterfly_floor_s * 1e9));
    json_object_set_new(j, "copy_floor_ns", nb_json_real(b.copy_floor_s * 1e9));
    json_object_set_new(j, "launch_floor_ns", nb_json_real(b.launch_floor_s * 1e9));
    json_object_set_new(j, "kernel_launches", json_integer(b.kernel_launches));
    json_object_set_new(j, "kernels_reported", json_boolean(c->kernels_state == 1));
    if (b.refined) {
        json_object_set_new(j, "class_from_timing", json_string(nb_bound_class_name(b.timing_cls)));
        json_object_set_new(j, "profile_dram_fraction", nb_json_real(b.profile_dram));
        json_object_set_new(j, "profile_issue_fraction", nb_json_real(b.profile_issue));
    }
    return j;
}

json_t *nb_case_to_json(const nb_case *c, const nb_ceilings *ceil)
{
    json_t *j = json_object();
    json_object_set_new(j, "tier", json_string(c->tier));
    json_object_set_new(j, "cache_state", json_string(nb_cache_state_name(c->cache)));
    json_object_set_new(j, "variant", json_string(c->variant));
    json_object_set_new(j, "backend", json_string(nb_backend_name(c->backend)));
    json_object_set_new(j, "label", json_string(c->label));
    json_object_set_new(j, "params", params_json(c));
    json_object_set_new(j, "status", json_string(nb_case_status_name(c->status)));
    json_object_set_new(j, "message", json_string(c->message));
    if (c->has_result)
        result_json(j, c);
    if (c->has_figures)
        json_object_set_new(j, "figures", figures_json(&c->fig));
    if (c->kernels_state == 1)
        json_object_set_new(j, "kernels", kernels_json(c));
    else if (c->kernels_state == 2) {
        json_object_set_new(j, "kernels", json_null());
        json_object_set_new(j, "kernels_note", json_string(c->kernels_why));
    }
    if (c->has_profile)
        json_object_set_new(j, "profile", profile_json(&c->profile));
    json_t *bound = bound_json(c, ceil);
    if (bound)
        json_object_set_new(j, "bound", bound);
    if (c->has_breakdown)
        json_object_set_new(j, "breakdown", breakdown_json(c->bd));
    if (c->trace_state == 1)
        json_object_set_new(j, "trace", nb_trace_to_json(c->trace));
    else if (c->trace_state == 2) {
        json_object_set_new(j, "trace", json_null());
        json_object_set_new(j, "trace_note", json_string(c->trace_why));
    }
    if (c->n_metrics) {
        json_t *m = json_object();
        for (size_t i = 0; i < c->n_metrics; i++)
            json_object_set_new(m, c->metrics[i].key, nb_json_real(c->metrics[i].v));
        json_object_set_new(j, "metrics", m);
    }
    return j;
}

/* The stage tier's cases: the NTT micro-benchmarks a stage is compared
 * with, and nb_stage_run_case, which times one stage (timed pass, then the
 * breakdown pass) under the caller's cache state and returns it as a report
 * row. The sweep over presets, levels and stages is stage_sweep.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tiers/ntt.h"
#include "bench/tiers/stage.h"
#include "bench/tiers/stage_multi.h"
#include "bench/tiers/stage_pool.h"
#include "bench/tiers/tiers.h"

/* ---- micro-benchmarks ---- */

static double micro_one(nb_stage_micro *m, const nb_ntt_variant *v, unsigned log_n, size_t limbs,
                        unsigned bits, int inverse, nb_cache_state cache,
                        const nb_bench_opts *o, void *stream)
{
    nb_workload *w = NULL;
    nb_bench_opts oo = *o;
    oo.cache = cache;
    oo.l2_persist = -1;
    double per = NAN;
    nb_status s = nb_ntt_workload_create(&w, v, log_n, limbs, bits, inverse, 0x5eedull, stream);
    nb_bench_result r;
    memset(&r, 0, sizeof r);
    if (s == NB_OK)
        s = nb_bench_run(w, stream, &oo, &r);
    if (s == NB_OK && r.n_samples)
        per = r.stats.median / (double)limbs;
    else if (!m->message[0])
        snprintf(m->message, sizeof m->message, "%s %s %s: %s", v->name, nb_cache_state_name(cache),
                 inverse ? "inverse" : "forward", nb_last_error());
    if (s == NB_OK && r.n_samples && !r.noise_target_met && !m->message[0]) {
        char noise[24] = "unknown";
        if (isfinite(r.stats.noise_pct))
            snprintf(noise, sizeof noise, "%.0f %%", r.stats.noise_pct);
        snprintf(m->message, sizeof m->message, "the NTT micro-benchmarks the in-stage ratios "
                 "divide by missed their noise target (%s %s: stopped by %s, noise %s)",
                 nb_cache_state_name(cache), inverse ? "inverse" : "forward",
                 nb_stop_reason_name(r.stop), noise);
    }
    nb_bench_result_free(&r);
    nb_workload_destroy(w);
    return per;
}

nb_status nb_stage_micro_measure(nb_stage_micro *m, const nb_ckks_params *params,
                                 const nb_ntt_variant *variant, size_t level,
                                 const nb_bench_opts *o, void *stream)
{
    if (!m || !params || !variant || !o)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_stage_micro_measure: NULL argument");
    if (level == SIZE_MAX)
        level = params->max_level;
    if (level > params->max_level)
        return nb_set_error(NB_ERR_INVALID_ARG, "micro-benchmarks: level %zu > L=%zu", level,
                            params->max_level);
    memset(m, 0, sizeof *m);
    m->log_n = params->log_n;
    m->limbs = level + 1;
    /* primes of the size of the level's scaling primes (on 32-bit words
     * spec.q_bits is the size of a rescale's pair, not of one prime) */
    unsigned bits = 0;
    for (size_t i = level ? 1 : 0; i <= level; i++) {
        unsigned b = 0;
        for (uint64_t q = params->q[i]; q; q >>= 1)
            b++;
        bits = b > bits ? b : bits;
    }
    /* the cold micro-benchmarks use o's cold state (or the default cold one) */
    const nb_cache_state cold = o->cache != NB_CACHE_WARM ? o->cache : NB_CACHE_COLD;
    m->warm_fwd_s =
        micro_one(m, variant, m->log_n, m->limbs, bits, 0, NB_CACHE_WARM, o, stream);
    m->cold_fwd_s = micro_one(m, variant, m->log_n, m->limbs, bits, 0, cold, o, stream);
    m->warm_inv_s =
        micro_one(m, variant, m->log_n, m->limbs, bits, 1, NB_CACHE_WARM, o, stream);
    m->cold_inv_s = micro_one(m, variant, m->log_n, m->limbs, bits, 1, cold, o, stream);
    return NB_OK;
}

/* ---- one report row ---- */

static const nb_step_stat *find_step(const nb_breakdown *b, const char *name)
{
    for (size_t i = 0; i < b->n_steps; i++)
        if (strcmp(b->steps[i].name, name) == 0)
            return &b->steps[i];
    return NULL;
}

static nb_status add_params(nb_case *cs, const nb_ckks_params *p, const nb_stage_config *cfg,
                            size_t level, unsigned word_bits)
{
    NB_TRY(nb_case_param_str(cs, "preset", p->name));
    NB_TRY(nb_case_param_str(cs, "stage", nb_stage_name(cfg->stage)));
    NB_TRY(nb_case_param_int(cs, "log_n", p->log_n));
    NB_TRY(nb_case_param_int(cs, "levels", (long long)p->max_level));
    NB_TRY(nb_case_param_int(cs, "level", (long long)level));
    NB_TRY(nb_case_param_int(cs, "dnum", (long long)p->dnum));
    NB_TRY(nb_case_param_int(cs, "alpha", (long long)p->alpha));
    NB_TRY(nb_case_param_int(cs, "digits", (long long)nb_ckks_digits(p, level)));
    NB_TRY(nb_case_param_int(cs, "q0_bits", p->spec.q0_bits));
    NB_TRY(nb_case_param_int(cs, "q_bits", p->spec.q_bits));
    NB_TRY(nb_case_param_int(cs, "p_bits", p->spec.p_bits));
    NB_TRY(nb_case_param_int(cs, "word_bits", word_bits));
    NB_TRY(nb_case_param_int(cs, "gpus", cfg->gpus > 1 ? (long long)cfg->gpus : 1));
    NB_TRY(nb_case_param_real(cs, "log_q", nb_log_q(p->q, level + 1), 1)); /* Q_level */
    if (cfg->stage == NB_CKKS_STAGE_RESCALE)
        NB_TRY(nb_case_param_str(cs, "rounding", nb_stage_rounding_suffix(cfg) + 1));
    return NB_OK;
}

/* The breakdown's figures and the comparison with the micro-benchmarks. */
static nb_status add_breakdown_metrics(nb_case *cs, const nb_breakdown *bd, double stage_s,
                                       const nb_stage_micro *micro)
{
    const nb_step_stat *sf = find_step(bd, "ntt"), *si = find_step(bd, "intt");
    const double in_fwd = sf && sf->ntt_limbs ? sf->median_s / (double)sf->ntt_limbs : NAN;
    const double in_inv = si && si->ntt_limbs ? si->median_s / (double)si->ntt_limbs : NAN;
    NB_TRY(nb_case_metric(cs, "in_stage_fwd_ns_per_limb", in_fwd * 1e9));
    NB_TRY(nb_case_metric(cs, "in_stage_inv_ns_per_limb", in_inv * 1e9));
    NB_TRY(nb_case_metric(cs, "ntt_share", bd->ntt_share));
    const nb_step_stat *sc = find_step(bd, "conv"); /* base conversion (rescale: the bring step) */
    NB_TRY(nb_case_metric(cs, "conv_share", sc && bd->sum_s > 0 ? sc->median_s / bd->sum_s : 0));
    const nb_step_stat *sx = find_step(bd, "comm"); /* several GPUs: the exchanges */
    if (sx)
        NB_TRY(nb_case_metric(cs, "comm_share", bd->sum_s > 0 ? sx->median_s / bd->sum_s : 0));
    NB_TRY(nb_case_metric(cs, "breakdown_sum_ns", bd->sum_s * 1e9));
    NB_TRY(nb_case_metric(cs, "breakdown_vs_stage", stage_s > 0 ? bd->sum_s / stage_s : NAN));
    if (!micro)
        return NB_OK;
    NB_TRY(nb_case_metric(cs, "micro_limbs", (double)micro->limbs));
    NB_TRY(nb_case_metric(cs, "warm_fwd_ns_per_limb", micro->warm_fwd_s * 1e9));
    NB_TRY(nb_case_metric(cs, "cold_fwd_ns_per_limb", micro->cold_fwd_s * 1e9));
    NB_TRY(nb_case_metric(cs, "warm_inv_ns_per_limb", micro->warm_inv_s * 1e9));
    NB_TRY(nb_case_metric(cs, "cold_inv_ns_per_limb", micro->cold_inv_s * 1e9));
    NB_TRY(nb_case_metric(cs, "in_stage_vs_warm_fwd", in_fwd / micro->warm_fwd_s));
    NB_TRY(nb_case_metric(cs, "in_stage_vs_cold_fwd", in_fwd / micro->cold_fwd_s));
    NB_TRY(nb_case_metric(cs, "in_stage_vs_warm_inv", in_inv / micro->warm_inv_s));
    return nb_case_metric(cs, "in_stage_vs_cold_inv", in_inv / micro->cold_inv_s);
}

/* The kernel trace of one marked launch into cs, its steps beside the
 * breakdown's; a trace that cannot be recorded is a note, not an error. */
static nb_status add_trace(nb_case *cs, nb_workload *w, const nb_breakdown *bd,
                           const nb_bench_opts *o, void *stream)
{
    nb_trace t;
    const nb_status s = nb_bench_trace(w, stream, o, &t);
    if (s == NB_ERR_OUT_OF_MEMORY)
        return s;
    if (s != NB_OK)
        return nb_case_set_trace(cs, NULL, nb_last_error());
    nb_trace_set_events(&t, bd);
    const nb_status cs_ = nb_case_set_trace(cs, &t, NULL);
    nb_trace_free(&t);
    return cs_;
}

/* Records in cs the kernels one verified call of w launches, or why they are
 * not known (never fails the case). The call runs warm: which kernels a call
 * launches does not depend on the cache, and a warm open builds no rotated
 * input sets. */
static nb_status record_kernels(nb_case *cs, nb_workload *w, const nb_bench_opts *o,
                                void *stream)
{
    nb_ntt_kernel k[NB_CASE_MAX_KERNELS];
    nb_kernel_log log = {k, NB_CASE_MAX_KERNELS, 0, 0, 0, 0, ""};
    nb_bench_opts wo = *o;
    wo.cache = NB_CACHE_WARM;
    char why[256];
    const nb_status s = nb_bench_kernel_log(w, stream, &wo, &log);
    if (s == NB_OK && !log.incomplete && !log.dropped)
        return nb_case_set_kernels(cs, k, log.n, NULL);
    if (s == NB_ERR_OUT_OF_MEMORY)
        return s;
    if (s != NB_OK)
        snprintf(why, sizeof why, "%s", nb_last_error());
    else if (log.incomplete)
        snprintf(why, sizeof why, "%s", log.why);
    else
        snprintf(why, sizeof why, "more than %d distinct kernels", NB_CASE_MAX_KERNELS);
    return nb_case_set_kernels(cs, NULL, 0, why);
}

/* Timed pass, then the kernels of one call, then breakdown pass (then with
 * `trace` the trace pass), into cs. NB_OK when the stage ran (the case
 * status says how); an error status when the case could not be built. */
static nb_status measure_stage(nb_case *cs, nb_workload *w, const nb_stage_micro *micro,
                               const nb_bench_opts *o, size_t passes, int trace, void *stream)
{
    nb_bench_opts oo = *o;
    oo.l2_persist = -1;
    nb_bench_result r;
    memset(&r, 0, sizeof r);
    nb_status s = nb_bench_run(w, stream, &oo, &r), cs_ = NB_OK;
    if (r.n_samples || s == NB_ERR_VERIFY)
        cs_ = nb_case_set_result(cs, &r);
    if (s != NB_OK) {
        nb_case_set_status(cs, s == NB_ERR_VERIFY ? NB_CASE_VERIFY_FAILED : NB_CASE_ERROR,
                           r.message[0] ? r.message : nb_last_error());
        nb_bench_result_free(&r);
        return cs_;
    }
    NB_TRY(cs_);
    const double stage_s = r.stats.median;
    nb_bench_result_free(&r);
    NB_TRY(nb_case_metric(cs, "stage_median_ns", stage_s * 1e9));
    if (w->backend == NB_BACKEND_GPU)
        NB_TRY(record_kernels(cs, w, &oo, stream));
    nb_breakdown bd;
    memset(&bd, 0, sizeof bd);
    s = nb_bench_breakdown(w, stream, &oo, passes, &bd);
    if (s != NB_OK) {
        nb_case_set_status(cs, s == NB_ERR_VERIFY ? NB_CASE_VERIFY_FAILED : NB_CASE_ERROR,
                           nb_last_error());
        return NB_OK;
    }
    NB_TRY(nb_case_set_breakdown(cs, &bd));
    NB_TRY(add_breakdown_metrics(cs, &bd, stage_s, micro));
    double comm_s = 0;
    if (nb_stage_workload_comm_median(w, &comm_s) == NB_OK && bd.sum_s > 0) {
        /* several GPUs: the exchanges' own time against the part nothing hid */
        const nb_step_stat *sx = find_step(&bd, "comm");
        const double exposed = sx ? sx->median_s : 0;
        NB_TRY(nb_case_metric(cs, "comm_ns", comm_s * 1e9));
        NB_TRY(nb_case_metric(cs, "comm_exposed_ns", exposed * 1e9));
        NB_TRY(nb_case_metric(cs, "comm_overlap_ns",
                              (comm_s > exposed ? comm_s - exposed : 0) * 1e9));
        double total = 0, link = 0;
        NB_TRY(nb_stage_workload_comm_bytes(w, &total, &link));
        NB_TRY(nb_case_metric(cs, "comm_bytes", total));
        NB_TRY(nb_case_metric(cs, "comm_link_bytes", link));
    }
    if (trace) /* after the exchange times were read: its launch is not among them */
        NB_TRY(add_trace(cs, w, &bd, &oo, stream));
    nb_case_set_status(cs, NB_CASE_OK, micro && micro->message[0] ? micro->message : NULL);
    return NB_OK;
}

nb_status nb_stage_run_case(nb_case **out, const nb_ckks_params *params,
                            const nb_ntt_variant *variant, const nb_stage_config *cfg,
                            const nb_stage_micro *micro, const nb_bench_opts *o,
                            size_t passes, void *stream)
{
    return nb_stage_run_case_pooled(out, params, variant, cfg, micro, o, passes, NULL, stream);
}

nb_status nb_stage_run_case_pooled(nb_case **out, const nb_ckks_params *params,
                                   const nb_ntt_variant *variant, const nb_stage_config *cfg,
                                   const nb_stage_micro *micro, const nb_bench_opts *o,
                                   size_t passes, nb_stage_pool *pool, void *stream)
{
    if (out)
        *out = NULL;
    if (!out || !params || !variant || !cfg || !o)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_stage_run_case: NULL argument");
    const size_t level = cfg->level == SIZE_MAX ? params->max_level : cfg->level;
    char label[160];
    nb_stage_case_label(label, sizeof label, params, cfg);
    nb_case *cs = NULL;
    NB_TRY(nb_case_create(&cs, "stage", o->cache, variant->name, variant->backend, label));
    nb_status s = add_params(cs, params, cfg, level, variant->word_bits);
    nb_workload *w = NULL;
    if (s == NB_OK &&
        (s = nb_stage_workload_create_pooled(&w, params, variant, cfg, pool, stream)) != NB_OK) {
        nb_case_set_status(cs, s == NB_ERR_UNSUPPORTED ? NB_CASE_SKIPPED : NB_CASE_ERROR,
                           nb_last_error());
        *out = cs;
        return NB_OK;
    }
    const char *ex = nb_stage_workload_exchange(w); /* named when not the default */
    if (s == NB_OK && ex && strcmp(ex, nb_ckks_exchange_default(cfg->gpus)))
        s = nb_case_param_str(cs, "exchange", ex);
    const int nccl = nb_stage_workload_nccl_version(w); /* several GPUs: what they ran on */
    if (s == NB_OK && nccl > 0)
        s = nb_case_metric(cs, "nccl_version", (double)nccl);
    if (s == NB_OK && nccl > 0) /* 1: nttbench's tuner served NCCL (nb_ckks_multi_nccl_tuned) */
        s = nb_case_metric(cs, "nccl_tuner", (double)nb_stage_workload_nccl_tuned(w));
    size_t fwd, inv;
    nb_stage_workload_ntt_counts(w, &fwd, &inv);
    if (s == NB_OK)
        s = nb_case_metric(cs, "ntt_fwd_limbs", (double)fwd);
    if (s == NB_OK)
        s = nb_case_metric(cs, "ntt_inv_limbs", (double)inv);
    if (s == NB_OK) /* input + output + (key switch) the key: each once */
        s = nb_case_metric(cs, "bytes_per_launch", (double)w->ops->bytes_per_launch(w->ctx));
    if (s == NB_OK && cfg->profile_call) {
        nb_bench_opts po = *o;
        po.mode = NB_MODE_PER_LAUNCH;
        po.l2_persist = -1;
        const nb_status ps = nb_bench_profile_call(w, stream, &po);
        nb_case_set_status(cs, ps == NB_OK ? NB_CASE_OK : nb_tier_case_status(ps),
                           ps == NB_OK ? "one call profiled" : nb_last_error());
        nb_case_set_cause(cs, ps);
    } else if (s == NB_OK) {
        s = measure_stage(cs, w, micro, o, passes, cfg->trace, stream);
    }
    nb_workload_destroy(w);
    if (s != NB_OK) {
        nb_case_destroy(cs);
        return s;
    }
    *out = cs;
    return NB_OK;
}

/* The stage tier's sweep (nb_tier_stage_run, a row of the tier table):
 * parameter sets (presets or a custom set per log N) x variants x levels x
 * stages x modes, each case through nb_stage_run_case under the run's cache
 * state, with the NTT micro-benchmarks measured once per variant and level. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tiers/stage.h"
#include "bench/tiers/stage_pool.h"
#include "bench/tiers/tiers.h"
#include "bench/timing/options.h"

#define MAX_MODES 16 /* modes of one sweep (nb_sweep.n_modes) */

void nb_stage_tier_opts_default(nb_stage_tier_opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < 4; i++)
        o->stages[i] = (nb_ckks_stage)i;
    o->n_stages = 4;
    o->dnum = 3;
    o->q_bits = 51;
    o->p_bits = 62;
    o->micro = 1;
}

/* 1 if the variant works on the words the set is made for and can
 * transform every prime of it. */
static int variant_fits(const nb_ntt_variant *v, const nb_ckks_params *p, char *why, size_t len)
{
    if (p->log_n < v->min_log_n || p->log_n > v->max_log_n) {
        snprintf(why, len, "log_n=%u outside [%u, %u] of variant '%s'", p->log_n, v->min_log_n,
                 v->max_log_n, v->name);
        return 0;
    }
    if (v->word_bits != p->word_bits) {
        snprintf(why, len, "set %s is made for %u-bit words and variant '%s' works on %u-bit ones",
                 p->name, p->word_bits, v->name, v->word_bits);
        return 0;
    }
    for (size_t i = 0; i < p->q_count + p->alpha; i++)
        if (p->primes[i] >> v->max_prime_bits) {
            snprintf(why, len, "the prime %llu of set %s exceeds the %u bits of variant '%s'",
                     (unsigned long long)p->primes[i], p->name, v->max_prime_bits, v->name);
            return 0;
        }
    return 1;
}

/* Asks r->select about a case of variant v with this label (mode: NULL when
 * the label carries none); 1 when it is to run. */
static int select_case(const nb_tier_run *r, const nb_ntt_variant *v, const char *label,
                       const char *mode, double set_bytes, size_t timed_runs, int skipped)
{
    char name[256];
    nb_case_name(name, sizeof name, r->timing.cache == NB_CACHE_WARM, v->name, label, mode);
    const nb_case_plan plan = {.name = name, .variant = v, .cache = r->timing.cache,
                               .set_bytes = set_bytes, .timed_runs = timed_runs,
                               .skipped = skipped};
    return nb_tier_select(r, &plan);
}

static nb_status add_skipped(const nb_tier_run *r, const nb_ntt_variant *v, const char *label,
                             const char *why)
{
    nb_case *c = NULL;
    NB_TRY(nb_case_create(&c, "stage", r->timing.cache, v->name, v->backend, label));
    nb_case_set_status(c, NB_CASE_SKIPPED, why);
    return nb_report_add_case(r->report, c);
}

/* The label of a stage case's row (nb_stage_run_case's), and of the row of
 * one that is skipped, which adds the mode the case would have run in. */
static void stage_label(char *label, size_t n, const nb_stage_config *cfg,
                        const nb_ckks_params *p, const nb_mode *skipped_mode)
{
    char base[140];
    nb_stage_case_label(base, sizeof base, p, cfg);
    snprintf(label, n, "%s%s%s", base, skipped_mode ? " " : "",
             skipped_mode ? nb_mode_name(*skipped_mode) : "");
}

/* Every stage x mode of one variant at one level, as selected; the NTT
 * micro-benchmarks first, when a case of the level is kept. One-GPU and CPU
 * cases borrow their pipelines from pool. */
static nb_status run_level(const nb_tier_run *r, const nb_stage_tier_opts *o,
                           const nb_ckks_params *p, const nb_ntt_variant *v, size_t level,
                           size_t gpus, nb_stage_pool *pool)
{
    void *stream = v->backend == NB_BACKEND_GPU ? r->stream : NULL;
    nb_stage_micro micro;
    const nb_stage_micro *mp = NULL;
    if (nb_bench_interrupted(&r->timing))
        return NB_OK;
    unsigned char keep[4][MAX_MODES] = {{0}};
    size_t kept = 0, kept_rows = 0; /* cases to time; rows, skipped ones included */
    for (size_t si = 0; si < o->n_stages; si++)
        for (size_t mi = 0; mi < r->sweep.n_modes; mi++) {
            const nb_stage_config cfg = {o->stages[si], level, o->rounding, 0, gpus, 0, 0};
            const nb_mode mode = r->sweep.modes[mi];
            const int skipped = v->backend == NB_BACKEND_CPU && mode == NB_MODE_GRAPH;
            char label[160];
            stage_label(label, sizeof label, &cfg, p, skipped ? &mode : NULL);
            keep[si][mi] = (unsigned char)select_case(
                r, v, label, nb_mode_name(mode), nb_stage_set_bytes(p, cfg.stage, level),
                1 + (o->micro && gpus <= 1 && !skipped && !kept ? 4 : 0), skipped);
            kept += keep[si][mi] && !skipped;
            kept_rows += keep[si][mi];
        }
    if (r->plan_only || !kept_rows)
        return NB_OK;
    if (o->micro && kept && gpus <= 1 && !r->profile_call) {
        /* one-GPU NTTs: measured with the one-GPU cases */
        nb_bench_opts mo = r->timing;
        mo.mode = r->sweep.modes[0];
        NB_TRY(nb_stage_micro_measure(&micro, p, v, level, &mo, stream));
        mp = &micro;
    }
    for (size_t si = 0; si < o->n_stages && !nb_bench_interrupted(&r->timing); si++) {
        /* the inputs' seed follows from the run's and the stage alone, so that the
         * recorded run seed, given to --seed, draws them again */
        nb_stage_config cfg = {o->stages[si], level, o->rounding,
                               r->sweep.seed + 0x9E37ull * ((uint64_t)o->stages[si] + 1), gpus,
                               o->trace, r->profile_call};
        for (size_t mi = 0; mi < r->sweep.n_modes && !nb_bench_interrupted(&r->timing); mi++) {
            if (!keep[si][mi])
                continue;
            nb_bench_opts to = r->timing;
            to.mode = r->sweep.modes[mi];
            char label[160], what[256];
            if (v->backend == NB_BACKEND_CPU && to.mode == NB_MODE_GRAPH) {
                stage_label(label, sizeof label, &cfg, p, &to.mode);
                NB_TRY(add_skipped(r, v, label, "graph mode needs a GPU variant"));
                continue;
            }
            stage_label(label, sizeof label, &cfg, p, NULL);
            const double t0 = nb_now_s(); /* the case's wall time, its build included */
            nb_case *c = NULL;
            NB_TRY(nb_stage_run_case_pooled(&c, p, v, &cfg, mp, &to, o->passes, pool, stream));
            nb_status s = nb_case_param_str(c, "mode", nb_mode_name(to.mode));
            char seed[24]; /* the run's 64-bit seed exactly, as in the NTT tier */
            snprintf(seed, sizeof seed, "%" PRIu64, r->sweep.seed);
            if (s == NB_OK)
                s = nb_case_param_str(c, "seed", seed);
            if (s != NB_OK) {
                nb_case_destroy(c);
                return s;
            }
            const char *res = nb_case_status_name(nb_case_get_status(c));
            nb_case_name(what, sizeof what, r->timing.cache == NB_CACHE_WARM, v->name, label,
                         nb_mode_name(to.mode));
            if (gpus <= 1) /* a profiler serialises kernels; the exchanges' must run together */
                nb_tier_profile(r, v->backend, c, what);
            nb_case_set_wall_time(c, nb_now_s() - t0);
            NB_TRY(nb_report_add_case(r->report, c));
            nb_tier_progress(r, what, res);
        }
    }
    return NB_OK;
}

/* NB_ERR_INVALID_ARG naming the level when a requested level lies outside
 * what the set allows: above its top level L, or below the primes rescale
 * drops when rescale is among the stages. */
static nb_status check_levels(const nb_stage_tier_opts *o, const nb_ckks_params *p)
{
    size_t lowest = 0;
    for (size_t si = 0; si < o->n_stages; si++)
        if (o->stages[si] == NB_CKKS_STAGE_RESCALE)
            lowest = p->rescale_primes;
    for (size_t li = 0; li < o->n_levels; li++)
        if (o->levels[li] > p->max_level || o->levels[li] < lowest)
            return nb_set_error(NB_ERR_INVALID_ARG,
                                "--level %zu is outside [%zu, %zu] of the set %s%s",
                                o->levels[li], lowest, p->max_level, p->name,
                                lowest == 1   ? " (rescale needs level 1 or more)"
                                : lowest == 2 ? " (rescale drops two primes: level 2 or more)"
                                              : "");
    return NB_OK;
}

/* All cases of one parameter set. */
static nb_status run_params(const nb_tier_run *r, const nb_stage_tier_opts *o,
                            const nb_ckks_params *p)
{
    const size_t top = p->max_level;
    const size_t nl = o->n_levels ? o->n_levels : 1;
    NB_TRY(check_levels(o, p));
    nb_stage_pool pool = {0};
    nb_status s = NB_OK;
    for (size_t vi = 0; vi < r->sweep.n_variants && s == NB_OK; vi++) {
        const nb_ntt_variant *v = r->sweep.variants[vi];
        char why[200], label[160];
        if (!variant_fits(v, p, why, sizeof why)) {
            snprintf(label, sizeof label, "stage %s", p->name);
            if (select_case(r, v, label, NULL, 0.0, 0, 1))
                s = add_skipped(r, v, label, why);
            continue;
        }
        /* GPU counts: the CPU backend and a count of 1 run the one-GPU pipeline */
        const size_t ng = v->backend == NB_BACKEND_GPU && o->n_gpus ? o->n_gpus : 1;
        for (size_t gi = 0; gi < ng && s == NB_OK; gi++) {
            const size_t gpus = v->backend == NB_BACKEND_GPU && o->n_gpus ? o->gpus[gi] : 1;
            if (gpus > 1) /* the one-GPU pipeline's memory is not held beside G devices' */
                nb_stage_pool_free(&pool);
            for (size_t li = 0; li < nl && s == NB_OK; li++)
                s = run_level(r, o, p, v, o->n_levels ? o->levels[li] : top, gpus, &pool);
        }
    }
    nb_stage_pool_free(&pool);
    return s;
}

static nb_status run_custom(const nb_tier_run *r, const nb_stage_tier_opts *o)
{
    for (size_t k = 0; k < r->sweep.n_log_n; k++) {
        nb_ckks_spec spec = {r->sweep.log_n[k], (unsigned)o->custom_levels, (unsigned)o->dnum,
                             (unsigned)(o->q0_bits ? o->q0_bits : o->p_bits),
                             (unsigned)o->q_bits, (unsigned)o->p_bits, 64, 1, 1};
        nb_ckks_params *p = NULL;
        NB_TRY(nb_ckks_params_create(&p, &spec));
        snprintf(p->name, sizeof p->name, "custom-%u-%zu-%zu", spec.log_n, o->custom_levels,
                 o->dnum);
        nb_status s = run_params(r, o, p);
        nb_ckks_params_destroy(p);
        NB_TRY(s);
    }
    return NB_OK;
}

nb_status nb_tier_stage_run(const nb_tier_run *r)
{
    nb_stage_tier_opts defaults;
    nb_stage_tier_opts_default(&defaults);
    const nb_stage_tier_opts *o = r->tier_opts ? r->tier_opts : &defaults;
    if (o->n_stages > 4 || (o->n_presets && !o->presets) || (o->n_levels && !o->levels) ||
        (o->n_gpus && !o->gpus))
        return nb_set_error(NB_ERR_INVALID_ARG, "stage tier: %zu stages (at most 4), or a "
                            "NULL list of presets, levels or GPU counts with entries",
                            o->n_stages);
    if (r->sweep.n_modes == 0 || r->sweep.n_modes > MAX_MODES)
        return nb_set_error(NB_ERR_INVALID_ARG, "stage tier: %zu modes (1 to %d)",
                            r->sweep.n_modes, MAX_MODES);
    int gpu = 0;
    for (size_t i = 0; i < r->sweep.n_variants; i++)
        gpu |= r->sweep.variants[i]->backend == NB_BACKEND_GPU;
    if (o->custom)
        NB_TRY(run_custom(r, o));
    if (o->n_presets || !o->custom) {
        const char *fallback = gpu ? "ckks16-l30-d3" : "test-medium";
        const size_t np = o->n_presets ? o->n_presets : 1;
        for (size_t k = 0; k < np; k++) {
            nb_ckks_params *p = NULL;
            NB_TRY(nb_ckks_params_from_preset(&p, o->n_presets ? o->presets[k] : fallback));
            nb_status s = run_params(r, o, p);
            nb_ckks_params_destroy(p);
            NB_TRY(s);
        }
    }
    return NB_OK;
}

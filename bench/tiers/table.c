/* The tier table: one row per tier (name, description, allowed cache states,
 * default states, the function that builds and runs its cases) and the
 * checks before a tier runs. Adding a tier: its file, and one row here. */
#include <stdio.h>
#include <string.h>

#include "bench/tiers/tiers.h"

#define STATE(s) (1u << (s))
#define ANY_STATE                                                                          \
    (STATE(NB_CACHE_WARM) | STATE(NB_CACHE_EVICTED) | STATE(NB_CACHE_ROTATED) |            \
     STATE(NB_CACHE_COLD))

static const nb_tier tiers[] = {
    {"ntt", "one NTT (forward or inverse) of L limbs per launch", ANY_STATE,
     STATE(NB_CACHE_WARM) | STATE(NB_CACHE_COLD), nb_tier_ntt_run},
    {"stage", "CKKS stages (modUp, modDown, key switch, rescale) with a step breakdown",
     ANY_STATE, STATE(NB_CACHE_COLD), nb_tier_stage_run},
};

size_t nb_tier_count(void) { return sizeof tiers / sizeof tiers[0]; }

const nb_tier *nb_tier_at(size_t i) { return i < nb_tier_count() ? &tiers[i] : NULL; }

const nb_tier *nb_tier_find(const char *name)
{
    for (size_t i = 0; name && i < nb_tier_count(); i++)
        if (strcmp(tiers[i].name, name) == 0)
            return &tiers[i];
    char names[128] = "";
    size_t u = 0;
    for (size_t i = 0; i < nb_tier_count() && u < sizeof names; i++)
        u += (size_t)snprintf(names + u, sizeof names - u, "%s%s", i ? ", " : "", tiers[i].name);
    nb_set_error(NB_ERR_INVALID_ARG, "unknown tier '%s' (%s)", name ? name : "(null)", names);
    return NULL;
}

nb_status nb_tier_run_one(const nb_tier *tier, const nb_tier_run *r)
{
    if (!tier || !r || (!r->report && !r->plan_only))
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_tier_run_one: NULL tier, run or report");
    if (r->plan_only && !r->select)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_tier_run_one: plan only without a select");
    NB_TRY(nb_bench_opts_check(&r->timing));
    const nb_sweep *sw = &r->sweep;
    const struct {
        const void *list;
        size_t n;
        const char *what;
    } lists[] = {
        {sw->variants, sw->n_variants, "variants"},
        {sw->log_n, sw->n_log_n, "log_n"},
        {sw->limbs, sw->n_limbs, "limbs"},
        {sw->prime_bits, sw->n_prime_bits, "prime_bits"},
        {sw->modes, sw->n_modes, "modes"},
        {sw->prime_bits_32, sw->n_prime_bits_32, "prime_bits_32"},
        {sw->log_q, sw->n_log_q, "log_q"},
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        if (lists[i].n && !lists[i].list)
            return nb_set_error(NB_ERR_INVALID_ARG, "tier '%s': sweep.%s is NULL with %zu entries",
                                tier->name, lists[i].what, lists[i].n);
    if (!(tier->cache_states & STATE(r->timing.cache)))
        return nb_set_error(NB_ERR_INVALID_ARG, "tier '%s' cannot run with a %s cache",
                            tier->name, nb_cache_state_name(r->timing.cache));
    for (size_t i = 0; i < r->sweep.n_variants; i++) {
        if (!r->sweep.variants[i])
            return nb_set_error(NB_ERR_INVALID_ARG, "tier '%s': NULL variant", tier->name);
        if (r->sweep.variants[i]->backend == NB_BACKEND_GPU && !r->stream && !r->plan_only)
            return nb_set_error(NB_ERR_INVALID_ARG,
                                "tier '%s': GPU variant '%s' needs a stream", tier->name,
                                r->sweep.variants[i]->name);
    }
    return tier->run(r);
}

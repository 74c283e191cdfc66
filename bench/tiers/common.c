/* What the tiers share: the case status of a failed measurement, the
 * progress call, the case selection and the profiler pass after a case. */
#include <string.h>

#include "bench/tiers/tiers.h"

nb_case_status nb_tier_case_status(nb_status s)
{
    if (s == NB_OK)
        return NB_CASE_OK;
    if (s == NB_ERR_VERIFY)
        return NB_CASE_VERIFY_FAILED;
    if (s == NB_ERR_UNSUPPORTED)
        return NB_CASE_SKIPPED;
    return NB_CASE_ERROR;
}

void nb_tier_progress(const nb_tier_run *r, const char *what, const char *result)
{
    if (r->progress)
        r->progress(r->progress_ctx, what, result);
}

int nb_tier_select(const nb_tier_run *r, const nb_case_plan *c)
{
    const int keep = !r->select || r->select(r->select_ctx, c);
    return keep && !r->plan_only;
}

void nb_tier_profile(const nb_tier_run *r, nb_backend backend, nb_case *c, const char *what)
{
    if (!r->profile || r->profile_call || backend != NB_BACKEND_GPU ||
        nb_case_get_status(c) != NB_CASE_OK)
        return;
    nb_profile p;
    memset(&p, 0, sizeof p);
    if (r->profile(r->profile_ctx, what, r->timing.cache, &p) == NB_OK)
        nb_case_set_profile(c, &p);
}

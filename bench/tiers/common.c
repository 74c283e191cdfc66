/* What the tiers share: the case status of a failed measurement, the
 * progress call and the case selection. */
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

/* The stage sweep's pool of pipelines (bench/tiers/stage_pool.h). */
#include "bench/tiers/stage_pool.h"

nb_status nb_stage_pool_pipeline(nb_stage_pool *pool, const nb_ckks_params *params,
                                 const nb_ntt_variant *variant, void *stream, nb_ckks **out)
{
    if (!pool || !params || !variant || !out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_stage_pool_pipeline: NULL argument");
    if (!pool->ck || pool->params != params || pool->variant != variant ||
        pool->stream != stream) {
        nb_ckks_destroy(pool->ck);
        pool->ck = NULL;
        NB_TRY(nb_ckks_create(&pool->ck, params, variant, stream));
        pool->params = params;
        pool->variant = variant;
        pool->stream = stream;
    }
    *out = pool->ck;
    return NB_OK;
}

nb_status nb_stage_pool_reference(nb_stage_pool *pool, const nb_ckks_params *params,
                                  nb_ckks **out)
{
    if (!pool || !params || !out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_stage_pool_reference: NULL argument");
    if (!pool->ref || pool->ref_params != params) {
        nb_ckks_destroy(pool->ref);
        pool->ref = NULL;
        const nb_ntt_variant *cpu = nb_ntt_variant_find("cpu-harvey");
        if (!cpu)
            return nb_set_error(NB_ERR_INTERNAL, "stage verify: cpu-harvey is not registered");
        NB_TRY(nb_ckks_create(&pool->ref, params, cpu, NULL));
        pool->ref_params = params;
    }
    *out = pool->ref;
    return NB_OK;
}

void nb_stage_pool_free(nb_stage_pool *pool)
{
    if (!pool)
        return;
    nb_ckks_destroy(pool->ck);
    nb_ckks_destroy(pool->ref);
    *pool = (nb_stage_pool){0};
}

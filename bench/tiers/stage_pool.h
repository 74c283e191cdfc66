/* The pipelines one stage sweep keeps from case to case (internal, not
 * installed): the cases of one set, variant and level differ only in the
 * stage and the mode, and one pipeline runs every stage, so it and the CPU
 * pipeline the checks compare with are built once for them, not once a
 * case. A pool holds at most one of each; asking for another set, variant
 * or stream frees the one held first. */
#ifndef NB_BENCH_TIERS_STAGE_POOL_H
#define NB_BENCH_TIERS_STAGE_POOL_H

#include "bench/tiers/stage.h"

typedef struct nb_stage_pool {
    const nb_ckks_params *params; /* of ck */
    const nb_ntt_variant *variant;
    void *stream;
    nb_ckks *ck;                  /* params on variant, launching on stream */
    const nb_ckks_params *ref_params;
    nb_ckks *ref;                 /* ref_params on cpu-harvey */
} nb_stage_pool;

/* *out: the pool's pipeline of params on variant and stream, built when the
 * pool holds no such one; owned by the pool (valid until the next call or
 * nb_stage_pool_free). */
nb_status nb_stage_pool_pipeline(nb_stage_pool *pool, const nb_ckks_params *params,
                                 const nb_ntt_variant *variant, void *stream, nb_ckks **out);
/* *out: the pool's CPU pipeline (cpu-harvey) of params, as above. */
nb_status nb_stage_pool_reference(nb_stage_pool *pool, const nb_ckks_params *params,
                                  nb_ckks **out);
/* Frees what the pool holds and empties it; NULL is a no-op. */
void nb_stage_pool_free(nb_stage_pool *pool);

/* nb_stage_workload_create with the pipelines borrowed from pool (NULL: the
 * workload builds and owns its own). The pool outlives the workload, which
 * is destroyed before the pool is asked for another set, variant or stream
 * (that frees the pipelines the workload borrowed). */
nb_status nb_stage_workload_create_pooled(nb_workload **out, const nb_ckks_params *params,
                                          const nb_ntt_variant *variant,
                                          const nb_stage_config *cfg, nb_stage_pool *pool,
                                          void *stream);
/* nb_stage_run_case over nb_stage_workload_create_pooled. */
nb_status nb_stage_run_case_pooled(nb_case **out, const nb_ckks_params *params,
                                   const nb_ntt_variant *variant, const nb_stage_config *cfg,
                                   const nb_stage_micro *micro, const nb_bench_opts *o,
                                   size_t passes, nb_stage_pool *pool, void *stream);

#endif

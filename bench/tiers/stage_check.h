/* The check of one CKKS stage against the GMP reference (stage_check.c):
 * a stage of a variant at a level, on fresh seeded inputs, its outputs
 * compared bit for bit with reference/ckks_ref.h. `nttbench verify --stage`
 * loops over these and prints them. Not part of libnttbench: it is built
 * with the reference (GMP) into the private library the CLI and the tests
 * link (bench/tiers/meson.build). */
#ifndef NB_STAGE_CHECK_H
#define NB_STAGE_CHECK_H

#include "ckks/ckks.h"
#include "core/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One row: what was checked and the outcome. */
typedef struct nb_stage_check_row {
    const nb_ntt_variant *v;
    const char *preset;
    int stage;                /* nb_ckks_stage */
    size_t level;
    const char *result;       /* pass / fail / skipped / error */
    char message[256];        /* first difference, skip reason or error */
} nb_stage_check_row;

/* What one check needs: parameters, pipelines (of variant v), the GPU stream
 * (NULL for a CPU variant) and the generator of the inputs (advanced by the
 * check). */
typedef struct nb_stage_check_ctx {
    const nb_ckks_params *p;
    nb_ckks *c;
    const nb_ntt_variant *v;
    void *stream;
    nb_rng rng;
} nb_stage_check_ctx;

/* Checks r->stage at r->level (modUp of every digit, modDown, hybrid key
 * switch with a random key, rescale floor and round), outputs poisoned
 * first, compared in coefficient form bit for bit. Sets r->result and
 * r->message; "skipped" where the stage or the reference does not apply
 * (level above the preset's, rescale at level 0, key switch above log N 8). */
void nb_stage_check_run(nb_stage_check_ctx *x, nb_stage_check_row *r);

#ifdef __cplusplus
}
#endif
#endif

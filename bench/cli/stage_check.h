/* One CKKS stage check of `nttbench verify --stage` (bench/cli/stage_check.c):
 * a stage of a variant at a level, on fresh seeded inputs, against the GMP
 * reference. Used by cmd_verify_stage.c, which parses, loops and prints. */
#ifndef NB_CLI_STAGE_CHECK_H
#define NB_CLI_STAGE_CHECK_H

#include "bench/cli/cli.h"
#include "ckks/ckks.h"

/* One row: what was checked and the outcome. */
typedef struct nb_cli_stage_row {
    const nb_ntt_variant *v;
    const char *preset;
    int stage;                /* nb_ckks_stage */
    size_t level;
    const char *result;       /* pass / fail / skipped / error */
    char message[256];        /* first difference, skip reason or error */
} nb_cli_stage_row;

/* What one check needs: parameters, pipelines (of variant v), the GPU stream
 * (NULL for a CPU variant) and the input seed (advanced by the check). */
typedef struct nb_cli_stage_ctx {
    const nb_ckks_params *p;
    nb_ckks *c;
    const nb_ntt_variant *v;
    void *stream;
    uint64_t seed;
} nb_cli_stage_ctx;

/* Checks r->stage at r->level (modUp of every digit, modDown, hybrid key
 * switch with a random key, rescale floor and round), outputs poisoned
 * first, compared in coefficient form bit for bit. Sets r->result and
 * r->message; "skipped" where the stage or the reference does not apply
 * (level above the preset's, rescale at level 0, key switch above log N 8). */
void nb_cli_stage_check_row(nb_cli_stage_ctx *x, nb_cli_stage_row *r);

#endif

/* One row of `nttbench verify` (bench/cli/cmd_verify.c) and the check that
 * fills it (bench/cli/verify_check.c): a variant against the GMP reference on
 * one direction, log N, limb count and prime size. */
#ifndef NB_CLI_VERIFY_CHECK_H
#define NB_CLI_VERIFY_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "ntt/variant.h"

typedef struct check_row {
    const nb_ntt_variant *v;
    int inverse;
    unsigned log_n;
    size_t limbs;
    unsigned bits;
    const char *result; /* pass / fail / skipped / error */
    nb_status cause;    /* why an "error" row could not run */
    size_t mismatches;
    size_t limb, index;
    uint64_t expected, actual;
    char message[256];
} check_row;

/* Checks row r (v, inverse, log_n, limbs, bits set; the variant runnable
 * here) on inputs drawn from `seed`: the whole batch in place against the
 * reference, then (two limbs or more) the sub-range contract, then the
 * out-of-place entry when the variant has one; every buffer written is
 * followed by a guard checked after each call. Sets result to pass, fail
 * or error, with message (and cause for an error). */
void nb_cli_verify_check(check_row *r, void *stream, uint64_t seed);

#endif

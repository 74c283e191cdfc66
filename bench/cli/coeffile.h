/* Coefficient files of `nttbench transform` and `check`: raw little-endian
 * uint64 (limb-major: limb 0's N values, then limb 1's ...) or text. A text
 * file holds one unsigned decimal number per line (numparse.h syntax), with
 * optional blanks (space, tab) around it and an optional '\r' before the
 * newline; lines that are empty or blank, and lines whose first non-blank
 * character is '#', are skipped. Lines may be of any length. Anything else
 * (a sign, a second number, another control character, a NUL byte) is an
 * error naming the file and the 1-based line. */
#ifndef NB_CLI_COEFFILE_H
#define NB_CLI_COEFFILE_H

#include <stdint.h>
#include <stdio.h>

#include "ntt/ntt.h" /* nb_status, nb_set_error */

/* Reads every value of an open stream. `name` is used in messages. On
 * success *out (malloc'd, caller frees; may be NULL when *n is 0) and *n are
 * set; on failure NB_ERR_IO (malformed or unreadable, message
 * "name:line: ...") or NB_ERR_OUT_OF_MEMORY, and *out is NULL. */
nb_status nb_coeff_read_text(FILE *f, const char *name, uint64_t **out, size_t *n);
nb_status nb_coeff_read_raw(FILE *f, const char *name, uint64_t **out, size_t *n);

#endif

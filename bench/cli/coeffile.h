/* Coefficient files of `nttbench transform` and `check`: raw little-endian
 * uint64 (limb-major: limb 0's N values, then limb 1's ...) or text. A text
 * file holds one unsigned decimal number per line (numparse.h syntax), with
 * optional blanks (space, tab) around it and an optional '\r' before the
 * newline; lines that are empty or blank, and lines whose first non-blank
 * character is '#', are skipped. A line holds at most NB_COEFF_MAX_LINE
 * bytes. Anything else (a sign, a second number, another control character,
 * a NUL byte, seen where it stands) is an error naming the file and the
 * 1-based line. */
#ifndef NB_CLI_COEFFILE_H
#define NB_CLI_COEFFILE_H

#include <stdint.h>
#include <stdio.h>

#include "ntt/ntt.h" /* nb_status, nb_set_error */

#define NB_COEFF_MAX_LINE ((size_t)1 << 20)

/* Reads every value of an open stream, at most `max` of them: a stream
 * with more fails as soon as the value after the max-th is read (an endless
 * stream such as /dev/zero ends there). `name` is used in messages, `why`
 * (may be "") follows the count in the too-many one. On success *out
 * (malloc'd, caller frees; may be NULL when *n is 0) and *n are set; on
 * failure NB_ERR_IO (malformed, too many values or unreadable, message
 * "name:line: ..." or naming the file) or NB_ERR_OUT_OF_MEMORY, and *out is
 * NULL. */
nb_status nb_coeff_read_text(FILE *f, const char *name, size_t max, const char *why,
                             uint64_t **out, size_t *n);
nb_status nb_coeff_read_raw(FILE *f, const char *name, size_t max, const char *why,
                            uint64_t **out, size_t *n);

#endif

/* Strict decimal number syntax for every numeric option of the CLI and for
 * the text coefficient files. A number is the whole string: ASCII digits
 * only, no sign, no blanks, no base prefix, no leading zeros ("0" itself is
 * fine; "010" is rejected rather than read as 8 or 10). Pure functions: no
 * allocation, no error state. */
#ifndef NB_CLI_NUMPARSE_H
#define NB_CLI_NUMPARSE_H

#include <stddef.h>
#include <stdint.h>

typedef enum nb_num_result {
    NB_NUM_OK = 0,
    NB_NUM_EMPTY,        /* no characters */
    NB_NUM_SYNTAX,       /* something other than the grammar */
    NB_NUM_LEADING_ZERO, /* "007" */
    NB_NUM_OVERFLOW,     /* above 2^64 - 1 */
} nb_num_result;

/* Parses s[0..len) as an unsigned decimal in [0, 2^64 - 1]. *out is written
 * only on NB_NUM_OK. */
nb_num_result nb_num_u64n(const char *s, size_t len, uint64_t *out);
/* Same for a NUL-terminated string. */
nb_num_result nb_num_u64(const char *s, uint64_t *out);
/* A decimal real: digits, optionally '.' and digits, optionally 'e' or 'E',
 * an optional sign and digits ("0.5", "10", "1e-3"). No sign in front, no
 * hexadecimal, inf or nan; the integer part follows the leading-zero rule
 * ("0.25" fine, "00.25" not). The result is finite. */
nb_num_result nb_num_double(const char *s, double *out);
/* A short phrase for a failed result: "is not a decimal number" ... */
const char *nb_num_why(nb_num_result r);

#endif

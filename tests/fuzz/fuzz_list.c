/* libFuzzer harness: the strict number and list syntax of the CLI. The
 * first input byte picks the bounds, the rest is the option value.
 * Properties: a number is accepted exactly when it is in canonical decimal
 * form (printing the value back gives the same string), reals agree with
 * strtod, lists stay within bounds with no duplicates, words are non-empty. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/cli.h"
#include "bench/cli/numparse.h"
#include "props.h"

/* 1 if s is a canonical decimal of a value <= 2^64 - 1 (independent check). */
static int canonical_u64(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 20 || (n > 1 && s[0] == '0'))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return n < 20 || strcmp(s, "18446744073709551615") <= 0;
}

static void check_numbers(const char *s)
{
    uint64_t x;
    nb_num_result r = nb_num_u64(s, &x);
    if ((r == NB_NUM_OK) != canonical_u64(s))
        abort();
    if (r == NB_NUM_OK) {
        char back[32];
        snprintf(back, sizeof back, "%llu", (unsigned long long)x);
        if (strcmp(back, s) != 0)
            abort();
    }
    double d;
    if (nb_num_double(s, &d) == NB_NUM_OK && d != strtod(s, NULL))
        abort();
}

static void check_list(const char *s, unsigned long long lo, unsigned long long hi)
{
    unsigned long long v[NB_CLI_MAX_LIST];
    size_t n;
    if (nb_cli_parse_ulist(s, "fuzz", lo, hi, v, NB_CLI_MAX_LIST, &n) != NB_OK) {
        if (n != 0)
            abort();
        return;
    }
    if (n == 0)
        abort();
    prop_list_ok(v, n, NB_CLI_MAX_LIST, lo, hi);
}

static void check_words(const char *s)
{
    char *storage, *out[8];
    size_t n;
    if (nb_cli_parse_words(s, "fuzz", &storage, out, 8, &n) != NB_OK)
        return;
    for (size_t i = 0; i < n; i++)
        if (!out[i][0] || strchr(out[i], ','))
            abort();
    free(storage);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    static const unsigned long long bounds[4][2] = {
        {1, 17}, {0, 255}, {1, 4096}, {0, UINT64_MAX}};
    const unsigned long long *b = bounds[data[0] & 3];
    char *s = malloc(size);
    if (!s)
        return 0;
    memcpy(s, data + 1, size - 1);
    s[size - 1] = '\0';
    check_numbers(s);
    check_list(s, b[0], b[1]);
    check_words(s);
    free(s);
    return 0;
}

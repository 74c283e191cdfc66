/* libFuzzer harness: the option parser of `nttbench run` (long options of
 * every table, lists, ranges, numbers, words, the stage tier's options) on
 * an argument vector made of the input split at NUL bytes. Properties: no
 * crash, leak or undefined behaviour; a successful parse leaves every list
 * within its bounds and without duplicates. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/cli.h"
#include "props.h"

#define MAX_ARGS 32

/* The parsed lists stay within their bounds, without duplicates. */
static void check_list(const unsigned long long *v, size_t n, unsigned long long lo,
                       unsigned long long hi)
{
    prop_list_ok(v, n, NB_CLI_MAX_LIST, lo, hi);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    for (size_t i = 0; i <= size && argc < MAX_ARGS;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;
    nb_cli_run run;
    if (nb_cli_run_parse(argc, argv, &run) == 0) {
        if (run.given_logn)
            check_list(run.logn, run.n_logn, NB_MIN_LOG_N, NB_MAX_LOG_N);
        if (run.given_limbs)
            check_list(run.limbs, run.n_limbs, 1, 4096);
        check_list(run.bits, run.n_bits, 20, 62);
        if (run.n_variants > NB_CLI_MAX_LIST)
            abort();
        for (size_t i = 0; i < run.n_variants; i++)
            if (!run.variants[i][0])
                abort();
    }
    nb_cli_run_free(&run);
    free(buf);
    return 0;
}

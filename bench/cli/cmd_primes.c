/* `nttbench primes --logn N --bits B --count K [--word 32|64]`: the K largest
 * NTT-friendly primes q = 1 (mod 2N) with exactly B bits (2^(B-1) < q < 2^B),
 * in decreasing order, each with its minimal primitive 2N-th root of unity
 * psi (the root every variant uses unless told otherwise); --word 32 gives
 * the primes of 32-bit variants (B <= 31, default 31). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bench/cli/cli.h"
#include "bench/cli/paper.h"
#include "ntt/arith.h"
#include "ntt/primes.h"

static const nb_cli_option primes_options[] = {
    {"logn", 1, "N      log2 of the transform size (16)"},
    {"bits", 1, "B      bits of each prime: 2^(B-1) < q < 2^B (60; 31 with --word 32)"},
    {"word", 1, "W      64 | 32: primes for variants of that word size, B <= 31 for 32 (64)"},
    {"count", 1, "K      how many primes, largest first (8)"},
    {NULL, 0, NULL},
};

const nb_cli_option *const nb_cli_primes_tables[] = {primes_options, NULL};

void nb_cmd_primes_help(FILE *f)
{
    fprintf(f, "usage: nttbench primes [--logn N] [--bits B] [--count K] [--word W] "
               "[--format F]\n\n"
               "The K largest primes q < 2^B with q = 1 (mod 2N) and B bits, each with its\n"
               "minimal primitive 2N-th root of unity psi (psi^N = -1 mod q). Use them with\n"
               "`nttbench transform --primes ... --psi ...`.\n\n");
    nb_cli_print_options(f, primes_options);
}

typedef struct primes_out {
    unsigned log_n, bits, word_bits;
    size_t count;
    const uint64_t *q, *psi;
    nb_format fmt;
} primes_out;

static nb_status write_primes(void *ctx, FILE *f)
{
    const primes_out *p = ctx;
    if (p->fmt == NB_FORMAT_JSON) {
        json_t *a = json_array();
        for (size_t i = 0; i < p->count; i++) { /* 64-bit values as decimal strings */
            char q[24], r[24];
            snprintf(q, sizeof q, "%" PRIu64, p->q[i]);
            snprintf(r, sizeof r, "%" PRIu64, p->psi[i]);
            json_array_append_new(a, json_pack("{s:s, s:s}", "q", q, "psi", r));
        }
        json_t *j = json_pack("{s:s, s:i, s:i, s:i, s:i, s:I, s:o}", "schema",
                              "nttbench-primes", "schema_version", 1, "log_n", (int)p->log_n,
                              "bits", (int)p->bits, "word_bits", (int)p->word_bits, "count",
                              (json_int_t)p->count, "primes", a);
        int rc = json_dumpf(j, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        json_decref(j);
        fputc('\n', f);
        return rc ? nb_set_error(NB_ERR_IO, "cannot write JSON") : NB_OK;
    }
    if (p->fmt == NB_FORMAT_CSV)
        fputs("index,q,psi\n", f);
    else if (p->fmt == NB_FORMAT_MD)
        fprintf(f, "NTT-friendly primes for N = 2^%u, %u bits:\n\n| # | q | psi |\n"
                   "| ---: | ---: | ---: |\n", p->log_n, p->bits);
    else
        fprintf(f, "# N = 2^%u, %u-bit primes q = 1 mod 2N, psi = minimal primitive 2N-th "
                   "root\n%5s  %20s  %20s\n", p->log_n, p->bits, "#", "q", "psi");
    for (size_t i = 0; i < p->count; i++) {
        if (p->fmt == NB_FORMAT_CSV) /* quoted: spreadsheets round 64-bit numbers */
            fprintf(f, "%zu,\"%" PRIu64 "\",\"%" PRIu64 "\"\n", i, p->q[i], p->psi[i]);
        else if (p->fmt == NB_FORMAT_MD)
            fprintf(f, "| %zu | %" PRIu64 " | %" PRIu64 " |\n", i, p->q[i], p->psi[i]);
        else
            fprintf(f, "%5zu  %20" PRIu64 "  %20" PRIu64 "\n", i, p->q[i], p->psi[i]);
    }
    return NB_OK;
}

int nb_cmd_primes(int argc, char **argv, nb_format fmt, const char *output, int quiet)
{
    size_t log_n = 16, bits = 0, count = 8;
    unsigned word_bits = 64;
    const nb_cli_option *const *tables = nb_cli_primes_tables;
    for (int i = 0; i < argc;) {
        const char *n, *v;
        int r = nb_cli_next_option(argc, argv, &i, tables, &n, &v);
        if (r <= 0) {
            if (r == 0)
                nb_set_error(NB_ERR_INVALID_ARG, "primes: unexpected argument '%s'", argv[i]);
            return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
        }
        nb_status st = NB_OK;
        if (!strcmp(n, "logn"))
            st = nb_cli_parse_size(v, n, NB_MIN_LOG_N, NB_MAX_LOG_N, &log_n);
        else if (!strcmp(n, "bits"))
            st = nb_cli_parse_size(v, n, NB_MIN_PRIME_BITS, NB_MAX_PRIME_BITS, &bits);
        else if (!strcmp(n, "count"))
            st = nb_cli_parse_size(v, n, 1, 4096, &count);
        else if (!strcmp(n, "word")) {
            size_t w = 0;
            st = nb_cli_parse_size(v, n, 0, (size_t)1 << 20, &w); /* 32 or 64: below */
            if (st == NB_OK && w != 32 && w != 64)
                st = nb_set_error(NB_ERR_INVALID_ARG, "--word %zu: 32 or 64 (bits per word)", w);
            word_bits = (unsigned)w;
        }
        if (st != NB_OK)
            return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
    }
    const size_t max_bits = word_bits == 32 ? NB_MAX_PRIME_BITS_32 : NB_MAX_PRIME_BITS;
    if (bits == 0)
        bits = word_bits == 32 ? NB_MAX_PRIME_BITS_32 : 60;
    if (bits > max_bits)
        return nb_cli_fail(NB_ERR_INVALID_ARG, word_bits == 32
                                                   ? "--bits: 32-bit words take primes of at "
                                                     "most 31 bits (--word 32)"
                                                   : "--bits: at most 62");
    uint64_t *q = malloc(count * sizeof *q), *psi = malloc(count * sizeof *psi);
    if (!q || !psi) {
        free(q);
        free(psi);
        return nb_cli_fail(NB_ERR_OUT_OF_MEMORY, "out of memory");
    }
    nb_status s = nb_primes_generate((unsigned)log_n, (unsigned)bits, count, NULL, 0, q);
    if (s == NB_OK && !quiet && count << log_n >= (size_t)1 << 27) /* ~1 s on a 2-core EPYC */
        fprintf(stderr, "nttbench: primes: the minimal roots of %zu primes at N = 2^%zu take a "
                        "few seconds...\n", count, log_n);
    for (size_t i = 0; s == NB_OK && i < count; i++)
        s = nb_root_minimal(q[i], (unsigned)log_n, &psi[i]);
    int rc = 0;
    if (s != NB_OK) {
        rc = nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
    } else {
        primes_out p = {(unsigned)log_n, (unsigned)bits, word_bits, count, q, psi, fmt};
        s = nb_write_file_atomic(output ? output : "-", write_primes, &p);
        if (s != NB_OK)
            rc = nb_cli_fail(NB_ERR_IO, nb_last_error());
    }
    free(q);
    free(psi);
    return rc;
}

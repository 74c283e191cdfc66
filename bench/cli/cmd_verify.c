/* `nttbench verify`: every chosen variant against the GMP reference on fresh
 * random inputs, per direction x log N x limbs x prime size, as a pass/fail
 * table (or markdown / CSV / JSON). Exit 1 if any check fails. A 32-bit
 * variant gets its data as 32-bit words (narrowed before the upload, widened
 * after the download) and primes of at most 31 bits. What one check does is
 * bench/cli/verify_check.c's. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/cli/cli.h"
#include "bench/cli/verify_check.h"
#include "ntt/arith.h"



typedef struct verify_out {
    check_row *rows;
    size_t n;
    nb_format fmt;
    uint64_t seed;
} verify_out;

static nb_status write_verify(void *ctx, FILE *f)
{
    const verify_out *o = ctx;
    size_t pass = 0, fail = 0, skip = 0, err = 0;
    for (size_t i = 0; i < o->n; i++) {
        const char *r = o->rows[i].result;
        pass += !strcmp(r, "pass");
        fail += !strcmp(r, "fail");
        skip += !strcmp(r, "skipped");
        err += !strcmp(r, "error");
    }
    if (o->fmt == NB_FORMAT_JSON) {
        nb_env e;
        nb_env_collect(&e, 0, 0);
        json_t *checks = json_array();
        for (size_t i = 0; i < o->n; i++) {
            const check_row *r = &o->rows[i];
            json_t *c = json_pack("{s:s, s:s, s:s, s:i, s:I, s:i, s:s, s:I, s:s}", "variant",
                                  r->v->name, "backend", nb_backend_name(r->v->backend),
                                  "direction", r->inverse ? "inverse" : "forward", "log_n",
                                  (int)r->log_n, "limbs", (json_int_t)r->limbs, "prime_bits",
                                  (int)r->bits, "result", r->result, "mismatches",
                                  (json_int_t)r->mismatches, "message", r->message);
            json_array_append_new(checks, c);
        }
        char seed[24]; /* exact: a decimal string */
        snprintf(seed, sizeof seed, "%" PRIu64, o->seed);
        json_t *j = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:o, s:{s:I, s:I, s:I, s:I}}",
                              "schema", "nttbench-verify", "schema_version", 2,
                              "nttbench_version", e.version, "git_commit", e.git_commit,
                              "timestamp_utc", e.timestamp_utc, "seed",
                              seed, "checks", checks,
                              "summary", "pass", (json_int_t)pass, "fail", (json_int_t)fail,
                              "skipped", (json_int_t)skip, "error", (json_int_t)err);
        int rc = json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        json_decref(j);
        fputc('\n', f);
        return rc ? nb_set_error(NB_ERR_IO, "cannot write JSON") : NB_OK;
    }
    if (o->fmt == NB_FORMAT_CSV) {
        fprintf(f, "variant,backend,direction,log_n,limbs,prime_bits,result,mismatches,message\n");
        for (size_t i = 0; i < o->n; i++) {
            const check_row *r = &o->rows[i];
            fprintf(f, "%s,%s,%s,%u,%zu,%u,%s,%zu,\"%s\"\n", r->v->name,
                    nb_backend_name(r->v->backend), r->inverse ? "inverse" : "forward", r->log_n,
                    r->limbs, r->bits, r->result, r->mismatches, r->message);
        }
        return NB_OK;
    }
    const int md = o->fmt == NB_FORMAT_MD;
    NB_TRY(nb_cli_write_env_heading(o->fmt, f));
    if (md)
        fprintf(f, "| variant | direction | log N | L | q bits | result | detail |\n"
                   "| --- | --- | ---: | ---: | ---: | --- | --- |\n");
    int w = 16; /* the variant column: as wide as its longest name */
    for (size_t i = 0; i < o->n; i++)
        w = strlen(o->rows[i].v->name) > (size_t)w ? (int)strlen(o->rows[i].v->name) : w;
    if (!md)
        fprintf(f, "%-*s %-9s %5s %4s %6s  %-7s  %s\n", w, "variant", "direction", "log N", "L",
                "q bits", "result", "detail");
    for (size_t i = 0; i < o->n; i++) {
        const check_row *r = &o->rows[i];
        if (md)
            fprintf(f, "| %s | %s | %u | %zu | %u | %s | %s |\n", r->v->name,
                    r->inverse ? "inverse" : "forward", r->log_n, r->limbs, r->bits, r->result,
                    r->message);
        else
            fprintf(f, "%-*s %-9s %5u %4zu %6u  %-7s  %s\n", w, r->v->name,
                    r->inverse ? "inverse" : "forward", r->log_n, r->limbs, r->bits,
                    !strcmp(r->result, "pass") ? "PASS" : !strcmp(r->result, "fail") ? "FAIL"
                                                                                        : r->result,
                    r->message);
    }
    fprintf(f, "\n%zu passed, %zu failed, %zu skipped, %zu errors (seed %" PRIu64 ")\n", pass,
            fail, skip, err, o->seed);
    return NB_OK;
}

typedef struct verify_args {
    char *vstore, *vnames[NB_CLI_MAX_LIST];
    size_t nvn;
    int backend, dirs; /* backend -1 auto, 0 cpu, 1 gpu */
    unsigned long long logn[NB_CLI_MAX_LIST], limbs[NB_CLI_MAX_LIST], bits[NB_CLI_MAX_LIST];
    size_t nlogn, nlimbs, nbits;
    unsigned words;       /* --word: NB_CLI_WORD bits (default 64) */
    int given_word, given_bits;
    uint64_t seed;
    nb_cli_filter filter; /* --filter */
} verify_args;

/* The prime sizes a variant is checked with: --bits, else 36,62 for 64-bit
 * words and 30,31 (the two 32-bit butterfly families) for 32-bit ones. */
static const unsigned long long *bits_of(const verify_args *a, const nb_ntt_variant *v,
                                         size_t *n)
{
    static const unsigned long long bits32[] = {30, 31};
    if (a->given_bits || v->word_bits != 32) {
        *n = a->nbits;
        return a->bits;
    }
    *n = 2;
    return bits32;
}

static nb_status set_verify_option(verify_args *a, const char *n, const char *v)
{
    if (!strcmp(n, "variant")) {
        free(a->vstore);
        return nb_cli_parse_names(v, n, &a->vstore, a->vnames, NB_CLI_MAX_LIST, &a->nvn);
    }
    if (!strcmp(n, "backend")) {
        nb_cli_backend b;
        NB_TRY(nb_cli_parse_backend(v, &b));
        a->backend = (int)b;
        return NB_OK;
    }
    if (!strcmp(n, "logn"))
        return nb_cli_parse_ulist(v, n, NB_MIN_LOG_N, NB_MAX_LOG_N, a->logn, NB_CLI_MAX_LIST,
                                  &a->nlogn);
    if (!strcmp(n, "limbs"))
        return nb_cli_parse_ulist(v, n, 1, 256, a->limbs, NB_CLI_MAX_LIST, &a->nlimbs);
    if (!strcmp(n, "bits")) {
        a->given_bits = 1;
        return nb_cli_parse_ulist(v, n, 20, 62, a->bits, NB_CLI_MAX_LIST, &a->nbits);
    }
    if (!strcmp(n, "word")) {
        a->given_word = 1;
        return nb_cli_parse_words_bits(v, &a->words);
    }
    if (!strcmp(n, "seed"))
        return nb_cli_parse_u64(v, n, &a->seed);
    if (!strcmp(n, "filter"))
        return nb_cli_filter_add(&a->filter, v);
    if (!strcmp(n, "direction"))
        return nb_cli_parse_directions(v, &a->dirs);
    return NB_OK;
}

static nb_status parse_verify(int argc, char **argv, verify_args *a)
{
    memset(a, 0, sizeof *a);
    a->backend = -1;
    a->dirs = 3;
    a->words = NB_CLI_WORD(64);
    static const unsigned long long logn[] = {10, 13, 16}, limbs[] = {1, 3}, bits[] = {36, 62};
    memcpy(a->logn, logn, sizeof logn);
    memcpy(a->limbs, limbs, sizeof limbs);
    memcpy(a->bits, bits, sizeof bits);
    a->nlogn = 3;
    a->nlimbs = 2;
    a->nbits = 2;
    a->seed = (uint64_t)time(NULL) * 0x2545F4914F6CDD1Dull;
    const nb_cli_option *const *tables = nb_cli_verify_tables;
    for (int i = 0; i < argc;) {
        const char *n, *v;
        const int at = i;
        int r = nb_cli_next_option(argc, argv, &i, tables, &n, &v);
        if (r == 0)
            return nb_set_error(NB_ERR_INVALID_ARG, "verify: unexpected argument '%s'", argv[i]);
        if (r < 0)
            return nb_cli_other_mode(argv[at], tables, nb_cli_verify_stage_tables,
                                     "is an option of verify --stage (the CKKS stages), which "
                                     "this command line does not give");
        NB_TRY(set_verify_option(a, n, v));
    }
    return NB_OK;
}

/* The variants to check, resolved once: the named ones (each of a --word
 * size when --word is given), or every one of the chosen backend and word
 * sizes. When every variant has 32-bit words, a --bits above 31 is refused. */
static nb_status verify_variants(const verify_args *a, const nb_ntt_variant **vars, size_t *nv)
{
    *nv = 0;
    if (a->nvn) {
        for (size_t i = 0; i < a->nvn; i++) {
            NB_TRY(nb_cli_find_variant(a->vnames[i], &vars[*nv]));
            (*nv)++;
            if (a->given_word)
                NB_TRY(nb_cli_check_word(vars[*nv - 1], a->words));
        }
    } else {
        for (size_t i = 0; i < nb_ntt_variant_count() && *nv < NB_CLI_MAX_LIST; i++) {
            const nb_ntt_variant *v = nb_ntt_variant_at(i);
            if ((a->backend < 0 || (int)v->backend == a->backend) &&
                (a->words & NB_CLI_WORD(v->word_bits)))
                vars[(*nv)++] = v;
        }
    }
    size_t n32 = 0;
    for (size_t i = 0; i < *nv; i++)
        n32 += vars[i]->word_bits == 32;
    for (size_t i = 0; a->given_bits && *nv && n32 == *nv && i < a->nbits; i++)
        if (a->bits[i] > NB_MAX_PRIME_BITS_32)
            return nb_set_error(NB_ERR_INVALID_ARG, "verify: --bits %llu: 32-bit variants take "
                                "primes of at most %u bits", a->bits[i], NB_MAX_PRIME_BITS_32);
    return NB_OK;
}

/* One row: skipped when the variant cannot run it here, else checked. */
static void check_one(check_row *r, void *stream, uint64_t seed, int gpu)
{
    if (r->log_n < r->v->min_log_n || r->log_n > r->v->max_log_n) {
        r->result = "skipped";
        snprintf(r->message, sizeof r->message, "log N outside [%u, %u]", r->v->min_log_n,
                 r->v->max_log_n);
    } else if (r->bits > r->v->max_prime_bits) {
        r->result = "skipped";
        snprintf(r->message, sizeof r->message, "primes above %u bits", r->v->max_prime_bits);
    } else if (r->v->backend == NB_BACKEND_GPU && !gpu) {
        r->result = "skipped";
        snprintf(r->message, sizeof r->message, "no GPU usable here");
    } else {
        nb_cli_verify_check(r, stream, seed);
    }
}

/* The name a check is shown and filtered by: "cpu-harvey forward logn=10 L=3 q36". */
static void check_name(char *buf, size_t n, const check_row *r)
{
    snprintf(buf, n, "%s %s logn=%u L=%zu q%u", r->v->name, r->inverse ? "inverse" : "forward",
             r->log_n, r->limbs, r->bits);
}

/* Every variant x direction x log N x limbs x bits that --filter keeps into
 * rows (*n of them; at most cap). With `run` 0 the rows are only named and
 * counted. */
static void check_all(const verify_args *a, const nb_ntt_variant *const *vars, size_t nv,
                      void *stream, int quiet, check_row *rows, size_t cap, size_t *n, int run)
{
    const int gpu = nb_gpu_count() > 0;
    double t0 = nb_now_s();
    *n = 0;
    for (size_t vi = 0; vi < nv; vi++)
        for (int d = 0; d < 2; d++) {
            if (!(a->dirs & (1 << d)))
                continue;
            size_t nbits;
            const unsigned long long *bits = bits_of(a, vars[vi], &nbits);
            for (size_t x = 0; x < a->nlogn * a->nlimbs * nbits && *n < cap; x++) {
                check_row *r = &rows[*n];
                char name[160];
                r->v = vars[vi];
                r->inverse = d;
                r->log_n = (unsigned)a->logn[x / (a->nlimbs * nbits)];
                r->limbs = (size_t)a->limbs[x / nbits % a->nlimbs];
                r->bits = (unsigned)bits[x % nbits];
                check_name(name, sizeof name, r);
                if (!nb_cli_filter_match(&a->filter, name))
                    continue;
                ++*n;
                if (!run)
                    continue;
                check_one(r, stream, a->seed ^ (0x9E37ull * *n), gpu);
                if (!quiet && nb_now_s() - t0 > 3.0) {
                    char eta[48];
                    nb_cli_eta(eta, sizeof eta, nb_now_s() - t0, *n, cap);
                    fprintf(stderr, "[%zu/%zu] %s: %s%s\n", *n, cap, name, r->result, eta);
                }
            }
        }
}

/* Writes the rows and turns failures into the exit code. */
static int finish_verify(check_row *rows, size_t n, nb_format fmt, uint64_t seed,
                         const char *output)
{
    verify_out o = {rows, n, fmt, seed};
    nb_status st = nb_write_file_atomic(output ? output : "-", write_verify, &o);
    size_t fails = 0, errs = 0, impossible = 0, skips = 0;
    const char *why = "", *skip_why = "";
    for (size_t i = 0; i < n; i++) {
        fails += !strcmp(rows[i].result, "fail");
        errs += !strcmp(rows[i].result, "error");
        if (!strcmp(rows[i].result, "error") && rows[i].cause == NB_ERR_INVALID_ARG &&
            !impossible++)
            why = rows[i].message;
        if (!strcmp(rows[i].result, "skipped") && !skips++)
            skip_why = rows[i].message;
    }
    if (st != NB_OK)
        return nb_cli_fail(st, nb_last_error());
    if (n && skips == n) { /* nothing was checked: a pass would say more than was shown */
        char msg[400];
        snprintf(msg, sizeof msg, "every check was skipped, nothing was checked (%.300s)",
                 skip_why);
        return nb_cli_fail(NB_ERR_INVALID_ARG, msg);
    }
    if (!fails && errs && impossible == errs) { /* the parameters, not the machine */
        char msg[400];
        snprintf(msg, sizeof msg, "%zu check%s cannot run with these parameters: %s", errs,
                 errs == 1 ? "" : "s", why);
        return nb_cli_fail(NB_ERR_INVALID_ARG, msg);
    }
    if (fails) {
        fprintf(stderr, "nttbench: error: %zu check%s failed against the GMP reference\n", fails,
                fails == 1 ? "" : "s");
        return NB_EXIT_VERIFY;
    }
    if (errs) {
        fprintf(stderr, "nttbench: error: %zu check%s could not run\n", errs,
                errs == 1 ? "" : "s");
        return NB_EXIT_ENV;
    }
    return 0;
}

/* `verify` once its options are parsed into a. */
static int verify_with(verify_args *a, nb_format fmt, const char *output, int quiet)
{
    const nb_ntt_variant *vars[NB_CLI_MAX_LIST];
    size_t nv = 0;
    nb_status st = verify_variants(a, vars, &nv);
    if (st != NB_OK)
        return nb_cli_fail(st == NB_ERR_INVALID_ARG || st == NB_ERR_NO_DEVICE ? st
                                                                              : NB_ERR_NOT_FOUND,
                           nb_last_error());
    int need_gpu = 0;
    for (size_t i = 0; i < nv; i++)
        need_gpu |= vars[i]->backend == NB_BACKEND_GPU;
    const int gpu = nb_gpu_count() > 0;
    if (!gpu && (a->backend == 1 || (need_gpu && a->nvn)))
        return nb_cli_fail_no_gpu(vars, nv);
    size_t cap = 0, n = 0;
    for (size_t i = 0; i < nv; i++) {
        size_t nbits;
        bits_of(a, vars[i], &nbits);
        cap += 2 * a->nlogn * a->nlimbs * nbits;
    }
    check_row *rows = calloc(cap ? cap : 1, sizeof *rows);
    if (!rows)
        return nb_cli_fail(NB_ERR_OUT_OF_MEMORY, "out of memory");
    check_all(a, vars, nv, NULL, quiet, rows, cap, &cap, 0); /* the checks --filter keeps */
    if (cap == 0 && a->filter.n) {
        free(rows);
        return nb_cli_fail(NB_ERR_INVALID_ARG, "--filter keeps none of the checks (their names "
                                               "take the form \"VARIANT DIRECTION logn=N "
                                               "L=LIMBS qBITS\", e.g. \"cpu-harvey forward "
                                               "logn=10 L=3 q36\")");
    }
    void *stream = NULL;
    if (need_gpu && gpu && (st = nb_stream_create(&stream)) != NB_OK) {
        free(rows);
        return nb_cli_fail(st, nb_last_error());
    }
    check_all(a, vars, nv, stream, quiet, rows, cap, &n, 1);
    nb_stream_destroy(stream);
    int rc = finish_verify(rows, n, fmt, a->seed, output);
    free(rows);
    return rc;
}

int nb_cmd_verify(int argc, char **argv, nb_format fmt, const char *output, int quiet)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--stage") || !strncmp(argv[i], "--stage=", 8))
            return nb_cmd_verify_stage(argc, argv, fmt, output, quiet);
    verify_args a;
    nb_status st = parse_verify(argc, argv, &a);
    int rc = st == NB_OK ? verify_with(&a, fmt, output, quiet)
                         : nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
    free(a.vstore);
    nb_cli_filter_free(&a.filter);
    return rc;
}

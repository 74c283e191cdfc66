/* `nttbench verify --stage LIST --preset LIST`: each CKKS stage (modUp of
 * every digit, modDown, hybrid key switch, rescale) of each chosen NTT
 * variant, on fresh seeded inputs, against the GMP reference of
 * reference/ckks_ref.h, as pass/fail rows like the NTT rows of `verify`.
 * Outputs are poisoned first; a value not below its prime (unwritten or
 * unreduced) fails the row. Exit 1 if any check fails. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/cli/cli.h"
#include "ckks/ckks.h"
#include "reference/ckks_ref.h"
#include "reference/reference.h"

/* The schoolbook key switch of the reference is O(N^2) per digit. */
#define KEYSWITCH_REF_MAX_LOG_N 8
#define POISON 0xA5A5A5A5A5A5A5A5ull

static const nb_cli_option stage_options[] = {
    {"stage", 1, "LIST   modup,moddown,keyswitch,rescale (all four)"},
    {"preset", 1, "LIST   CKKS presets (test-small)"},
    {"variant", 1, "LIST   variants (all usable here)"},
    {"backend", 1, "B      cpu | gpu | auto (auto)"},
    {"level", 1, "LIST   levels (the top one and 1)"},
    {"seed", 1, "N      input seed (time-based)"},
    {NULL, 0, NULL},
};

static const char *const stage_names[4] = {"modup", "moddown", "keyswitch", "rescale"};

typedef struct stage_row {
    const nb_ntt_variant *v;
    const char *preset;
    int stage;
    size_t level;
    const char *result; /* pass / fail / skipped / error */
    char message[256];
} stage_row;

/* What one check needs: parameters, pipelines, a stream, the seed. */
typedef struct stage_ctx {
    const nb_ckks_params *p;
    nb_ckks *c;
    const nb_ntt_variant *v;
    void *stream;
    uint64_t seed;
} stage_ctx;

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* limbs polys of n residues mod q[l], uniform, no limb starting at zero. */
static void fill(uint64_t *a, size_t n, const uint64_t *q, size_t limbs, uint64_t *seed)
{
    for (size_t l = 0; l < limbs; l++)
        for (size_t i = 0; i < n; i++) {
            uint64_t x, lim = UINT64_MAX - UINT64_MAX % q[l];
            do
                x = mix(seed);
            while (x >= lim || (i == 0 && x % q[l] == 0));
            a[l * n + i] = x % q[l];
        }
}

/* NTT form -> coefficient form with the reference and the minimal roots. */
static nb_status to_coeff(uint64_t *a, const uint64_t *q, size_t limbs, unsigned log_n)
{
    const size_t n = (size_t)1 << log_n;
    for (size_t l = 0; l < limbs; l++) {
        uint64_t psi;
        NB_TRY(nb_root_minimal(q[l], log_n, &psi));
        if (nb_ref_ntt_inverse(a + l * n, log_n, q[l], psi) != NB_OK)
            return nb_set_error(NB_ERR_INVALID_ARG, "the GMP reference rejected q=%" PRIu64, q[l]);
    }
    return NB_OK;
}

/* Compares got (NTT form from the pipeline, converted here) with want
 * (coefficient form); 1 and a message in r on the first difference. */
static int differs(stage_row *r, const char *what, uint64_t *got, const uint64_t *want,
                   const uint64_t *q, size_t limbs, unsigned log_n)
{
    const size_t n = (size_t)1 << log_n;
    for (size_t i = 0; i < limbs * n; i++)
        if (got[i] >= q[i / n]) {
            snprintf(r->message, sizeof r->message,
                     "%s limb %zu index %zu: %" PRIu64 " not below q (unwritten or unreduced)",
                     what, i / n, i % n, got[i]);
            return 1;
        }
    if (to_coeff(got, q, limbs, log_n) != NB_OK) {
        snprintf(r->message, sizeof r->message, "%s: %s", what, nb_last_error());
        return 1;
    }
    size_t bad = 0, at = 0;
    for (size_t i = 0; i < limbs * n; i++)
        if (got[i] != want[i] && !bad++)
            at = i;
    if (bad)
        snprintf(r->message, sizeof r->message,
                 "%s limb %zu index %zu: expected %" PRIu64 ", got %" PRIu64
                 " (coefficient form; %zu of %zu differ)",
                 what, at / n, at % n, want[at], got[at], bad, limbs * n);
    return bad != 0;
}

/* Device (or host) buffers of a check: in, out0, out1, key; sizes in words. */
typedef struct bufs {
    nb_buffer *b[4];
    size_t words[4];
} bufs;

static nb_status bufs_make(bufs *B, nb_backend where, void *stream, const uint64_t *in,
                           const uint64_t *key)
{
    for (int k = 0; k < 4; k++) {
        B->b[k] = NULL;
        if (!B->words[k])
            continue;
        NB_TRY(nb_buffer_create(&B->b[k], where, B->words[k] * sizeof(uint64_t)));
    }
    uint64_t *poison = malloc((B->words[1] > B->words[2] ? B->words[1] : B->words[2]) * 8 + 8);
    if (!poison)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < B->words[1] || i < B->words[2]; i++)
        poison[i] = POISON;
    nb_status s = nb_buffer_upload(B->b[0], 0, in, B->words[0] * 8, stream);
    for (int k = 1; k <= 2 && s == NB_OK; k++)
        if (B->b[k])
            s = nb_buffer_upload(B->b[k], 0, poison, B->words[k] * 8, stream);
    if (s == NB_OK && B->b[3])
        s = nb_buffer_upload(B->b[3], 0, key, B->words[3] * 8, stream);
    free(poison);
    return s;
}

static void bufs_free(bufs *B)
{
    for (int k = 0; k < 4; k++)
        nb_buffer_destroy(B->b[k]);
}

static uint64_t *ptr(const bufs *B, int k)
{
    return (uint64_t *)nb_buffer_ptr(B->b[k]);
}

/* Host side of one stage call: input (NTT form), outputs, the key-switch
 * key (NULL for other stages) and the rescale rounding. */
typedef struct stage_io {
    const uint64_t *in;
    size_t in_words;
    uint64_t *out0, *out1; /* out1: key switch only */
    size_t out_words;
    const uint64_t *key;
    int round;
} stage_io;

/* Runs stage r->stage at r->level on the variant's backend (uploading the
 * input, poisoning the outputs, downloading the results). */
static nb_status run_stage(stage_ctx *x, const stage_row *r, const stage_io *io)
{
    bufs B = {.words = {io->in_words, io->out_words, io->out1 ? io->out_words : 0,
                        io->key ? nb_ckks_key_limbs(x->p) * x->p->n : 0}};
    nb_status s = bufs_make(&B, x->v->backend, x->stream, io->in, io->key);
    const size_t l = r->level;
    if (s == NB_OK) {
        if (r->stage == NB_CKKS_STAGE_MODUP)
            s = nb_ckks_modup_all(x->c, l, ptr(&B, 1), ptr(&B, 0), NULL, x->stream);
        else if (r->stage == NB_CKKS_STAGE_MODDOWN)
            s = nb_ckks_moddown(x->c, l, ptr(&B, 1), ptr(&B, 0), NULL, x->stream);
        else if (r->stage == NB_CKKS_STAGE_KEYSWITCH)
            s = nb_ckks_keyswitch(x->c, l, ptr(&B, 1), ptr(&B, 2), ptr(&B, 0), ptr(&B, 3), NULL,
                                  x->stream);
        else
            s = nb_ckks_rescale(x->c, l, io->round ? NB_CKKS_RESCALE_ROUND
                                                   : NB_CKKS_RESCALE_FLOOR,
                                ptr(&B, 1), ptr(&B, 0), NULL, x->stream);
    }
    if (s == NB_OK)
        s = nb_buffer_download(B.b[1], 0, io->out0, io->out_words * 8, x->stream);
    if (s == NB_OK && io->out1)
        s = nb_buffer_download(B.b[2], 0, io->out1, io->out_words * 8, x->stream);
    bufs_free(&B);
    return s;
}

/* Allocates `count` arrays of `words` words each into a[]; 0 on failure
 * (everything freed). */
static int alloc_all(uint64_t **a, int count, size_t words)
{
    for (int k = 0; k < count; k++)
        if (!(a[k] = malloc(words * sizeof(uint64_t) + 8))) {
            while (k--)
                free(a[k]);
            return 0;
        }
    return 1;
}

static void free_all(uint64_t **a, int count)
{
    for (int k = 0; k < count; k++)
        free(a[k]);
}

/* modUp of every digit at level l: digit j's output against nb_ref_modup. */
static nb_status check_modup(stage_ctx *x, stage_row *r)
{
    const nb_ckks_params *p = x->p;
    const size_t n = p->n, l = r->level, E = l + 1 + p->alpha, D = nb_ckks_digits(p, l);
    uint64_t *m[4], basis[600]; /* in, in (coefficients), out, want */
    if (!alloc_all(m, 4, D * E * n))
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    nb_ckks_basis_ext(p, l, basis);
    fill(m[0], n, p->q, l + 1, &x->seed);
    memcpy(m[1], m[0], (l + 1) * n * 8);
    stage_io io = {m[0], (l + 1) * n, m[2], NULL, D * E * n, NULL, 0};
    nb_status s = run_stage(x, r, &io);
    if (s == NB_OK)
        s = to_coeff(m[1], p->q, l + 1, p->log_n);
    for (size_t j = 0; j < D && s == NB_OK && !strcmp(r->result, "pass"); j++) {
        size_t first, count;
        char what[32];
        nb_ckks_digit_range(p, l, j, &first, &count);
        if (nb_ref_modup(m[3], m[1], n, basis, E, first, count) != NB_OK)
            s = nb_set_error(NB_ERR_INVALID_ARG, "the GMP reference rejected modUp");
        snprintf(what, sizeof what, "digit %zu", j);
        if (s == NB_OK && differs(r, what, m[2] + j * E * n, m[3], basis, E, p->log_n))
            r->result = "fail";
    }
    free_all(m, 4);
    return s;
}

/* modDown at level l against nb_ref_moddown. */
static nb_status check_moddown(stage_ctx *x, stage_row *r)
{
    const nb_ckks_params *p = x->p;
    const size_t n = p->n, l = r->level, E = l + 1 + p->alpha;
    uint64_t *m[4], basis[600]; /* in, in (coefficients), out, want */
    if (!alloc_all(m, 4, E * n))
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    nb_ckks_basis_ext(p, l, basis);
    fill(m[0], n, basis, E, &x->seed);
    memcpy(m[1], m[0], E * n * 8);
    stage_io io = {m[0], E * n, m[2], NULL, (l + 1) * n, NULL, 0};
    nb_status s = run_stage(x, r, &io);
    if (s == NB_OK)
        s = to_coeff(m[1], basis, E, p->log_n);
    if (s == NB_OK && nb_ref_moddown(m[3], m[1], n, p->q, l + 1, p->p, p->alpha) != NB_OK)
        s = nb_set_error(NB_ERR_INVALID_ARG, "the GMP reference rejected modDown");
    if (s == NB_OK && differs(r, "output", m[2], m[3], p->q, l + 1, p->log_n))
        r->result = "fail";
    free_all(m, 4);
    return s;
}

/* Rescale from level l >= 1, floor and round, against nb_ref_rescale. */
static nb_status check_rescale(stage_ctx *x, stage_row *r)
{
    const nb_ckks_params *p = x->p;
    const size_t n = p->n, l = r->level;
    uint64_t *m[4]; /* in, in (coefficients), out, want */
    if (!alloc_all(m, 4, (l + 1) * n))
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    fill(m[0], n, p->q, l + 1, &x->seed);
    memcpy(m[1], m[0], (l + 1) * n * 8);
    nb_status s = to_coeff(m[1], p->q, l + 1, p->log_n);
    for (int round = 0; round < 2 && s == NB_OK && !strcmp(r->result, "pass"); round++) {
        stage_io io = {m[0], (l + 1) * n, m[2], NULL, l * n, NULL, round};
        s = run_stage(x, r, &io);
        if (s == NB_OK && nb_ref_rescale(m[3], m[1], n, p->q, l + 1, round) != NB_OK)
            s = nb_set_error(NB_ERR_INVALID_ARG, "the GMP reference rejected rescale");
        if (s == NB_OK && differs(r, round ? "round" : "floor", m[2], m[3], p->q, l, p->log_n))
            r->result = "fail";
    }
    free_all(m, 4);
    return s;
}

/* The key's level-l polys (q_0..q_l, then P) in coefficient form, in the
 * reference's layout, into out (2 * digits * E * n words). */
static nb_status key_at_level(const nb_ckks_params *p, const uint64_t *key, size_t l,
                              uint64_t *out)
{
    const size_t n = p->n, per = p->q_count + p->alpha, E = l + 1 + p->alpha;
    uint64_t basis[600];
    nb_ckks_basis_ext(p, l, basis);
    for (size_t poly = 0; poly < 2 * nb_ckks_digits(p, l); poly++) {
        const uint64_t *src = key + poly * per * n;
        uint64_t *dst = out + poly * E * n;
        memcpy(dst, src, (l + 1) * n * 8);
        memcpy(dst + (l + 1) * n, src + p->q_count * n, p->alpha * n * 8);
        NB_TRY(to_coeff(dst, basis, E, p->log_n));
    }
    return NB_OK;
}

/* Hybrid key switch at level l with a random key against nb_ref_keyswitch. */
static nb_status check_keyswitch(stage_ctx *x, stage_row *r)
{
    const nb_ckks_params *p = x->p;
    const size_t n = p->n, l = r->level, per = p->q_count + p->alpha;
    const size_t key_words = nb_ckks_key_limbs(p) * n;
    uint64_t *m[7]; /* in, in (coefficients), out0, out1, want0, want1, key; then key at l */
    if (!alloc_all(m, 7, key_words))
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    uint64_t *kl = malloc(2 * p->dnum * (l + 1 + p->alpha) * n * 8);
    nb_status s = kl ? NB_OK : nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    for (size_t poly = 0; poly < nb_ckks_key_limbs(p) / per; poly++)
        fill(m[6] + poly * per * n, n, p->primes, per, &x->seed);
    fill(m[0], n, p->q, l + 1, &x->seed);
    memcpy(m[1], m[0], (l + 1) * n * 8);
    stage_io io = {m[0], (l + 1) * n, m[2], m[3], (l + 1) * n, m[6], 0};
    if (s == NB_OK)
        s = run_stage(x, r, &io);
    if (s == NB_OK)
        s = to_coeff(m[1], p->q, l + 1, p->log_n);
    if (s == NB_OK)
        s = key_at_level(p, m[6], l, kl);
    if (s == NB_OK && nb_ref_keyswitch(m[4], m[5], m[1], kl, p->log_n, p->q, l + 1, p->p,
                                       p->alpha, p->alpha) != NB_OK)
        s = nb_set_error(NB_ERR_INVALID_ARG, "the GMP reference rejected the key switch");
    if (s == NB_OK && (differs(r, "out0", m[2], m[4], p->q, l + 1, p->log_n) ||
                       differs(r, "out1", m[3], m[5], p->q, l + 1, p->log_n)))
        r->result = "fail";
    free(kl);
    free_all(m, 7);
    return s;
}

/* One row: skipped when the stage does not apply, else checked. */
static void check_row(stage_ctx *x, stage_row *r)
{
    r->result = "pass";
    if (r->level > x->p->max_level) {
        r->result = "skipped";
        snprintf(r->message, sizeof r->message, "level above the preset's %zu",
                 x->p->max_level);
        return;
    }
    if (r->stage == NB_CKKS_STAGE_RESCALE && r->level == 0) {
        r->result = "skipped";
        snprintf(r->message, sizeof r->message, "rescale needs level >= 1");
        return;
    }
    if (r->stage == NB_CKKS_STAGE_KEYSWITCH && x->p->log_n > KEYSWITCH_REF_MAX_LOG_N) {
        r->result = "skipped";
        snprintf(r->message, sizeof r->message,
                 "the GMP key-switch reference is schoolbook: log N <= %d only",
                 KEYSWITCH_REF_MAX_LOG_N);
        return;
    }
    nb_status s = r->stage == NB_CKKS_STAGE_MODUP     ? check_modup(x, r)
                  : r->stage == NB_CKKS_STAGE_MODDOWN ? check_moddown(x, r)
                  : r->stage == NB_CKKS_STAGE_RESCALE ? check_rescale(x, r)
                                                      : check_keyswitch(x, r);
    if (s != NB_OK) {
        r->result = "error";
        snprintf(r->message, sizeof r->message, "%s", nb_last_error());
    }
}

typedef struct stage_out {
    const stage_row *rows;
    size_t n;
    nb_format fmt;
    uint64_t seed;
} stage_out;

static nb_status write_rows_json(const stage_out *o, FILE *f, size_t sum[4])
{
    json_t *checks = json_array();
    for (size_t i = 0; i < o->n; i++) {
        const stage_row *r = &o->rows[i];
        json_array_append_new(checks,
                              json_pack("{s:s, s:s, s:s, s:s, s:I, s:s, s:s}", "variant",
                                        r->v->name, "backend", nb_backend_name(r->v->backend),
                                        "stage", stage_names[r->stage], "preset", r->preset,
                                        "level", (json_int_t)r->level, "result", r->result,
                                        "message", r->message));
    }
    char seed[24];
    snprintf(seed, sizeof seed, "%" PRIu64, o->seed);
    json_t *j = json_pack("{s:s, s:i, s:s, s:o, s:{s:I, s:I, s:I, s:I}}", "schema",
                          "nttbench-verify-stage", "schema_version", 1, "seed", seed, "checks",
                          checks, "summary", "pass", (json_int_t)sum[0], "fail",
                          (json_int_t)sum[1], "skipped", (json_int_t)sum[2], "error",
                          (json_int_t)sum[3]);
    int rc = json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(j);
    fputc('\n', f);
    return rc ? nb_set_error(NB_ERR_IO, "cannot write JSON") : NB_OK;
}

/* Rows as a table, markdown, CSV or JSON (the `verify` formats). */
static nb_status write_rows(void *ctx, FILE *f)
{
    const stage_out *o = ctx;
    static const char *const results[4] = {"pass", "fail", "skipped", "error"};
    size_t sum[4] = {0};
    for (size_t i = 0; i < o->n; i++)
        for (int k = 0; k < 4; k++)
            sum[k] += !strcmp(o->rows[i].result, results[k]);
    if (o->fmt == NB_FORMAT_JSON)
        return write_rows_json(o, f, sum);
    const int md = o->fmt == NB_FORMAT_MD, csv = o->fmt == NB_FORMAT_CSV;
    if (csv)
        fprintf(f, "variant,backend,stage,preset,level,result,message\n");
    else if (md)
        fprintf(f, "| variant | stage | preset | level | result | detail |\n"
                   "| --- | --- | --- | ---: | --- | --- |\n");
    else
        fprintf(f, "%-22s %-9s %-14s %5s  %-7s  %s\n", "variant", "stage", "preset", "level",
                "result", "detail");
    for (size_t i = 0; i < o->n; i++) {
        const stage_row *r = &o->rows[i];
        const char *res = r->result;
        if (csv)
            fprintf(f, "%s,%s,%s,%s,%zu,%s,\"%s\"\n", r->v->name, nb_backend_name(r->v->backend),
                    stage_names[r->stage], r->preset, r->level, res, r->message);
        else if (md)
            fprintf(f, "| %s | %s | %s | %zu | %s | %s |\n", r->v->name, stage_names[r->stage],
                    r->preset, r->level, res, r->message);
        else
            fprintf(f, "%-22s %-9s %-14s %5zu  %-7s  %s\n", r->v->name, stage_names[r->stage],
                    r->preset, r->level,
                    !strcmp(res, "pass") ? "PASS" : !strcmp(res, "fail") ? "FAIL" : res,
                    r->message);
    }
    if (!csv)
        fprintf(f, "\n%zu passed, %zu failed, %zu skipped, %zu errors (seed %" PRIu64 ")\n",
                sum[0], sum[1], sum[2], sum[3], o->seed);
    return NB_OK;
}

/* Parsed options of `verify --stage`. */
typedef struct stage_args {
    int stages[4];
    size_t n_stages;
    char *preset_store, *presets[NB_CLI_MAX_LIST];
    size_t n_presets;
    char *variant_store, *variants[NB_CLI_MAX_LIST];
    size_t n_variants;
    int backend; /* -1 auto, 0 cpu, 1 gpu */
    unsigned long long levels[NB_CLI_MAX_LIST];
    size_t n_levels;
    uint64_t seed;
} stage_args;

static nb_status set_stages(stage_args *a, const char *v)
{
    char *store, *words[8];
    size_t n;
    NB_TRY(nb_cli_parse_words(v, "stage", &store, words, 8, &n));
    nb_status s = NB_OK;
    a->n_stages = 0;
    for (size_t i = 0; i < n && s == NB_OK; i++) {
        int k = 0;
        while (k < 4 && strcmp(words[i], stage_names[k]))
            k++;
        if (k == 4)
            s = nb_set_error(NB_ERR_INVALID_ARG,
                             "--stage '%s': modup, moddown, keyswitch or rescale", words[i]);
        else
            a->stages[a->n_stages++ % 4] = k;
    }
    free(store);
    return s;
}

static nb_status set_arg(stage_args *a, const char *name, const char *v)
{
    if (!strcmp(name, "stage"))
        return set_stages(a, v);
    if (!strcmp(name, "preset")) {
        free(a->preset_store);
        NB_TRY(nb_cli_parse_words(v, name, &a->preset_store, a->presets, NB_CLI_MAX_LIST,
                                  &a->n_presets));
        for (size_t i = 0; i < a->n_presets; i++)
            if (!nb_ckks_preset_find(a->presets[i]))
                return nb_set_error(NB_ERR_INVALID_ARG,
                                    "--preset: no CKKS preset named '%s' (see 'nttbench list')",
                                    a->presets[i]);
        return NB_OK;
    }
    if (!strcmp(name, "variant")) {
        free(a->variant_store);
        return nb_cli_parse_words(v, name, &a->variant_store, a->variants, NB_CLI_MAX_LIST,
                                  &a->n_variants);
    }
    if (!strcmp(name, "backend")) {
        a->backend = !strcmp(v, "cpu") ? 0 : !strcmp(v, "gpu") ? 1 : !strcmp(v, "auto") ? -1 : -2;
        return a->backend == -2 ? nb_set_error(NB_ERR_INVALID_ARG, "--backend: cpu, gpu or auto")
                                : NB_OK;
    }
    if (!strcmp(name, "level"))
        return nb_cli_parse_ulist(v, name, 0, 255, a->levels, NB_CLI_MAX_LIST, &a->n_levels);
    return nb_cli_parse_u64(v, name, &a->seed);
}

/* The variants to check: the explicit list, or every one of the backend
 * usable here. NB_ERR_NO_DEVICE names a GPU variant asked for without one. */
static nb_status pick_variants(const stage_args *a, const nb_ntt_variant **out, size_t *n)
{
    const int gpu = nb_gpu_count() > 0;
    *n = 0;
    for (size_t i = 0; i < a->n_variants; i++) {
        const nb_ntt_variant *v = nb_ntt_variant_find(a->variants[i]);
        if (!v)
            return NB_ERR_NOT_FOUND;
        if (v->backend == NB_BACKEND_GPU && !gpu) {
            char msg[400];
            nb_gpu_require();
            snprintf(msg, sizeof msg, "%.300s", nb_last_error());
            return nb_set_error(NB_ERR_NO_DEVICE, "%s (needed for GPU variant '%s')", msg,
                                v->name);
        }
        out[(*n)++] = v;
    }
    if (a->n_variants)
        return NB_OK;
    if (a->backend == 1 && !gpu) {
        nb_gpu_require(); /* sets the message: why no device is usable */
        return NB_ERR_NO_DEVICE;
    }
    for (size_t i = 0; i < nb_ntt_variant_count() && *n < NB_CLI_MAX_LIST; i++) {
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        int b = (int)v->backend;
        if ((a->backend < 0 && (b == 0 || gpu)) || a->backend == b)
            out[(*n)++] = v;
    }
    return NB_OK;
}

/* Every stage x level of one preset and one variant into rows (advancing *n). */
static nb_status check_preset(const stage_args *a, const char *preset,
                              const nb_ntt_variant *v, void *stream, stage_row *rows,
                              size_t *n, int quiet)
{
    nb_ckks_params *p = NULL;
    nb_ckks *c = NULL;
    const double t0 = nb_now_s();
    NB_TRY(nb_ckks_params_from_preset(&p, preset));
    nb_status s = nb_ckks_create(&c, p, v, v->backend == NB_BACKEND_GPU ? stream : NULL);
    unsigned long long top[2] = {p->max_level, 1};
    const unsigned long long *lv = a->n_levels ? a->levels : top;
    size_t nlv = a->n_levels ? a->n_levels : (p->max_level > 1 ? 2 : 1);
    for (size_t si = 0; si < a->n_stages && s == NB_OK; si++)
        for (size_t li = 0; li < nlv; li++) {
            stage_row *r = &rows[(*n)++];
            *r = (stage_row){.v = v, .preset = preset, .stage = a->stages[si],
                             .level = (size_t)lv[li]};
            stage_ctx x = {p, c, v, v->backend == NB_BACKEND_GPU ? stream : NULL,
                           a->seed ^ (0x9E3779B97F4A7C15ull * *n)};
            check_row(&x, r);
            if (!quiet && nb_now_s() - t0 > 3.0)
                fprintf(stderr, "[%zu] %s %s %s level %zu: %s\n", *n, v->name, preset,
                        stage_names[r->stage], r->level, r->result);
        }
    nb_ckks_destroy(c);
    nb_ckks_params_destroy(p);
    return s;
}

/* `nttbench verify --stage ...`: options as in stage_options; the global
 * --format / --output / --quiet as for `verify`. */
int nb_cmd_verify_stage(int argc, char **argv, nb_format fmt, const char *output, int quiet)
{
    stage_args a = {.stages = {0, 1, 2, 3}, .n_stages = 4, .backend = -1,
                    .seed = (uint64_t)time(NULL) * 0x2545F4914F6CDD1Dull};
    const nb_cli_option *const tables[] = {stage_options, NULL};
    nb_status st = NB_OK;
    for (int i = 0; i < argc && st == NB_OK;) {
        const char *n, *v;
        int r = nb_cli_next_option(argc, argv, &i, tables, &n, &v);
        if (r == 0)
            st = nb_set_error(NB_ERR_INVALID_ARG, "verify: unexpected argument '%s'", argv[i]);
        else if (r < 0)
            st = NB_ERR_INVALID_ARG;
        else
            st = set_arg(&a, n, v);
    }
    if (st == NB_OK && !a.n_presets)
        st = nb_cli_parse_words("test-small", "preset", &a.preset_store, a.presets, 1,
                                &a.n_presets);
    const nb_ntt_variant *vars[NB_CLI_MAX_LIST];
    size_t nv = 0;
    if (st == NB_OK)
        st = pick_variants(&a, vars, &nv);
    void *stream = NULL;
    for (size_t i = 0; i < nv && st == NB_OK && !stream; i++)
        if (vars[i]->backend == NB_BACKEND_GPU)
            st = nb_stream_create(&stream);
    size_t cap = nv * a.n_presets * a.n_stages * (a.n_levels ? a.n_levels : 2), n = 0;
    stage_row *rows = st == NB_OK ? calloc(cap ? cap : 1, sizeof *rows) : NULL;
    if (st == NB_OK && !rows)
        st = nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    for (size_t pi = 0; pi < a.n_presets && st == NB_OK; pi++)
        for (size_t vi = 0; vi < nv && st == NB_OK; vi++)
            st = check_preset(&a, a.presets[pi], vars[vi], stream, rows, &n, quiet);
    nb_stream_destroy(stream);
    free(a.variant_store);
    if (st == NB_OK) {
        stage_out o = {rows, n, fmt, a.seed};
        st = nb_write_file_atomic(output ? output : "-", write_rows, &o);
    }
    free(a.preset_store);
    if (st != NB_OK) {
        free(rows);
        return nb_cli_fail(st, nb_last_error());
    }
    size_t fails = 0, errs = 0;
    for (size_t i = 0; i < n; i++) {
        fails += !strcmp(rows[i].result, "fail");
        errs += !strcmp(rows[i].result, "error");
    }
    free(rows);
    if (fails) {
        char msg[96];
        snprintf(msg, sizeof msg, "%zu stage check(s) failed against the GMP reference", fails);
        return nb_cli_fail(NB_ERR_VERIFY, msg);
    }
    if (errs) {
        char msg[64];
        snprintf(msg, sizeof msg, "%zu stage check(s) could not run", errs);
        return nb_cli_fail(NB_ERR_CUDA, msg);
    }
    return 0;
}

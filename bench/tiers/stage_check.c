/* The CKKS stage checks of `nttbench verify --stage` (stage_check.h): each
 * stage pipeline of ckks/ckks.h on the variant's backend, its input and
 * outputs moved through nb_buffer objects, against reference/ckks_ref.h
 * after converting the outputs to coefficient form with the reference NTT.
 * Outputs are poisoned first; a value not below its prime fails the row.
 * Data travel in the variant's word size (32-bit words narrowed on upload
 * and widened on download); the checks work on 64-bit words. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tiers/ntt.h"
#include "bench/tiers/stage_check.h"
#include "reference/ckks_ref.h"
#include "reference/reference.h"

/* The schoolbook key switch of the reference is O(N^2) per digit. */
#define KEYSWITCH_REF_MAX_LOG_N 8
#define POISON 0xA5A5A5A5A5A5A5A5ull

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
static int differs(nb_stage_check_row *r, const char *what, uint64_t *got, const uint64_t *want,
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

/* Device (or host) buffers of a check: in, out0, out1, key; sizes in words
 * of wb bytes (the variant's: 8, or 4 for 32-bit words). */
typedef struct bufs {
    nb_buffer *b[4];
    size_t words[4];
    size_t wb;
} bufs;

/* Uploads `words` 64-bit words of h into b as words of B->wb bytes. */
static nb_status upload_words(const bufs *B, nb_buffer *b, const uint64_t *h, size_t words,
                              void *stream)
{
    if (B->wb == 8)
        return nb_buffer_upload(b, 0, h, words * 8, stream);
    uint32_t *t = malloc(words * sizeof *t + 4);
    if (!t)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    nb_words_from_u64(t, h, words, 32);
    nb_status s = nb_buffer_upload(b, 0, t, words * sizeof *t, stream);
    if (s == NB_OK)
        s = nb_stream_sync(stream);
    free(t);
    return s;
}

/* Downloads `words` words of b into h, widened to 64 bits. */
static nb_status download_words(const bufs *B, const nb_buffer *b, uint64_t *h, size_t words,
                                void *stream)
{
    NB_TRY(nb_buffer_download(b, 0, h, words * B->wb, stream));
    NB_TRY(nb_stream_sync(stream));
    nb_words_to_u64(h, h, words, (unsigned)(8 * B->wb)); /* in place */
    return NB_OK;
}

static nb_status bufs_make(bufs *B, nb_backend where, void *stream, const uint64_t *in,
                           const uint64_t *key)
{
    for (int k = 0; k < 4; k++) {
        B->b[k] = NULL;
        if (!B->words[k])
            continue;
        NB_TRY(nb_buffer_create(&B->b[k], where, B->words[k] * B->wb));
    }
    uint64_t *poison = malloc((B->words[1] > B->words[2] ? B->words[1] : B->words[2]) * 8 + 8);
    if (!poison)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < B->words[1] || i < B->words[2]; i++)
        poison[i] = POISON; /* as 32-bit words 0xA5A5A5A5: above every prime below 2^31 */
    nb_status s = upload_words(B, B->b[0], in, B->words[0], stream);
    for (int k = 1; k <= 2 && s == NB_OK; k++)
        if (B->b[k])
            s = upload_words(B, B->b[k], poison, B->words[k], stream);
    if (s == NB_OK && B->b[3])
        s = upload_words(B, B->b[3], key, B->words[3], stream);
    free(poison);
    return s;
}

static void bufs_free(bufs *B)
{
    for (int k = 0; k < 4; k++)
        nb_buffer_destroy(B->b[k]);
}

static void *ptr(const bufs *B, int k)
{
    return nb_buffer_ptr(B->b[k]);
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
static nb_status run_stage(nb_stage_check_ctx *x, const nb_stage_check_row *r, const stage_io *io)
{
    bufs B = {.words = {io->in_words, io->out_words, io->out1 ? io->out_words : 0,
                        io->key ? nb_ckks_key_limbs(x->p) * x->p->n : 0},
              .wb = nb_ckks_word_bytes(x->c)};
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
        s = download_words(&B, B.b[1], io->out0, io->out_words, x->stream);
    if (s == NB_OK && io->out1)
        s = download_words(&B, B.b[2], io->out1, io->out_words, x->stream);
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
static nb_status check_modup(nb_stage_check_ctx *x, nb_stage_check_row *r)
{
    const nb_ckks_params *p = x->p;
    const size_t n = p->n, l = r->level, E = l + 1 + p->alpha, D = nb_ckks_digits(p, l);
    uint64_t *m[4], basis[600]; /* in, in (coefficients), out, want */
    if (!alloc_all(m, 4, D * E * n))
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    nb_ckks_basis_ext(p, l, basis);
    nb_rng_fill_limbs(&x->rng, m[0], n, p->q, l + 1);
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
static nb_status check_moddown(nb_stage_check_ctx *x, nb_stage_check_row *r)
{
    const nb_ckks_params *p = x->p;
    const size_t n = p->n, l = r->level, E = l + 1 + p->alpha;
    uint64_t *m[4], basis[600]; /* in, in (coefficients), out, want */
    if (!alloc_all(m, 4, E * n))
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    nb_ckks_basis_ext(p, l, basis);
    nb_rng_fill_limbs(&x->rng, m[0], n, basis, E);
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

/* Rescale from level l >= g (the primes it drops), floor and round,
 * against nb_ref_rescale_by. */
static nb_status check_rescale(nb_stage_check_ctx *x, nb_stage_check_row *r)
{
    const nb_ckks_params *p = x->p;
    const size_t n = p->n, l = r->level, g = p->rescale_primes, keep = l + 1 - g;
    uint64_t *m[4]; /* in, in (coefficients), out, want */
    if (!alloc_all(m, 4, (l + 1) * n))
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    nb_rng_fill_limbs(&x->rng, m[0], n, p->q, l + 1);
    memcpy(m[1], m[0], (l + 1) * n * 8);
    nb_status s = to_coeff(m[1], p->q, l + 1, p->log_n);
    for (int round = 0; round < 2 && s == NB_OK && !strcmp(r->result, "pass"); round++) {
        stage_io io = {m[0], (l + 1) * n, m[2], NULL, keep * n, NULL, round};
        s = run_stage(x, r, &io);
        if (s == NB_OK && nb_ref_rescale_by(m[3], m[1], n, p->q, l + 1, g, round) != NB_OK)
            s = nb_set_error(NB_ERR_INVALID_ARG, "the GMP reference rejected rescale");
        if (s == NB_OK && differs(r, round ? "round" : "floor", m[2], m[3], p->q, keep, p->log_n))
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
static nb_status check_keyswitch(nb_stage_check_ctx *x, nb_stage_check_row *r)
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
        nb_rng_fill_limbs(&x->rng, m[6] + poly * per * n, n, p->primes, per);
    nb_rng_fill_limbs(&x->rng, m[0], n, p->q, l + 1);
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
void nb_stage_check_run(nb_stage_check_ctx *x, nb_stage_check_row *r)
{
    r->result = "pass";
    if (r->level > x->p->max_level) {
        r->result = "skipped";
        snprintf(r->message, sizeof r->message, "level above the preset's %zu",
                 x->p->max_level);
        return;
    }
    if (r->stage == NB_CKKS_STAGE_RESCALE && r->level < x->p->rescale_primes) {
        r->result = "skipped";
        snprintf(r->message, sizeof r->message, "rescale needs level >= %zu",
                 x->p->rescale_primes);
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


/* The stage workload: CKKS stages for the shared timing core (setup with
 * rotated buffer sets, launch / launch_marked through the ckks/ pipelines,
 * verification against the CPU pipeline), and the stage names and case labels. A set's
 * input and key are counter-based draws (nb_rng_residue_at) from keys
 * derived from the case's seed, so any set can be drawn alone: on one GPU
 * every set by one kernel per buffer, elsewhere set by set on the host
 * (limbs in parallel), and on the host again for a check. The CPU
 * pipeline's output for the sets checked (set 0 and the last one used) is
 * kept across the case's passes (timed, kernel list, breakdown): a set's
 * input does not depend on how many sets a pass has. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tiers/ntt.h"
#include "bench/tiers/stage.h"
#include "bench/tiers/stage_multi.h"
#include "bench/tiers/stage_pool.h"
#include "bench/timing/internal.h"
#include "core/device.h"
#include "core/rng.h"

static const char *const stage_names[] = {"modup", "moddown", "keyswitch", "rescale"};

const char *nb_stage_name(nb_ckks_stage s)
{
    return (unsigned)s < 4 ? stage_names[s] : "unknown";
}

const char *nb_stage_rounding_suffix(const nb_stage_config *cfg)
{
    if (!cfg || cfg->stage != NB_CKKS_STAGE_RESCALE)
        return "";
    return cfg->rounding == NB_CKKS_RESCALE_ROUND ? " round" : " floor";
}

void nb_stage_case_label(char *buf, size_t n, const nb_ckks_params *params,
                         const nb_stage_config *cfg)
{
    char gpus[32] = "";
    if (!buf || !n)
        return;
    if (!params || !cfg) {
        buf[0] = '\0';
        return;
    }
    if (cfg->gpus > 1)
        snprintf(gpus, sizeof gpus, " gpus=%zu", cfg->gpus);
    snprintf(buf, n, "%s%s %s l=%zu%s", nb_stage_name(cfg->stage), nb_stage_rounding_suffix(cfg),
             params->name, cfg->level == SIZE_MAX ? params->max_level : cfg->level, gpus);
}

nb_status nb_stage_parse(const char *s, nb_ckks_stage *out)
{
    if (!s || !out)
        return nb_set_error(NB_ERR_INVALID_ARG, "stage name: NULL argument");
    for (unsigned i = 0; i < 4; i++)
        if (strcmp(s, stage_names[i]) == 0) {
            *out = (nb_ckks_stage)i;
            return NB_OK;
        }
    return nb_set_error(NB_ERR_INVALID_ARG,
                        "unknown stage '%s' (expected modup, moddown, keyswitch or rescale)", s);
}

nb_status nb_stage_parse_list(const char *csv, nb_ckks_stage *out, size_t max, size_t *count)
{
    if (!csv || !out || !count)
        return nb_set_error(NB_ERR_INVALID_ARG, "stage list: NULL argument");
    *count = 0;
    char buf[256];
    if (strlen(csv) >= sizeof buf)
        return nb_set_error(NB_ERR_INVALID_ARG, "stage list too long");
    strcpy(buf, csv);
    const size_t len = strlen(buf);
    if (len && (buf[0] == ',' || buf[len - 1] == ',' || strstr(buf, ",,")))
        return nb_set_error(NB_ERR_INVALID_ARG, "stage list '%s': empty item", csv);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        nb_ckks_stage st;
        NB_TRY(nb_stage_parse(tok, &st));
        int seen = 0;
        for (size_t i = 0; i < *count; i++)
            seen |= out[i] == st;
        if (seen)
            continue;
        if (*count == max)
            return nb_set_error(NB_ERR_INVALID_ARG, "more than %zu stages in '%s'", max, csv);
        out[(*count)++] = st;
    }
    if (*count == 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "empty stage list");
    return NB_OK;
}

/* ---- the workload ---- */

typedef struct stage_ctx {
    nb_workload w;
    char label[224];
    const nb_ckks_params *p;
    const nb_ntt_variant *v;
    nb_stage_config cfg;
    nb_ckks *ck;
    nb_stage_multi *mx;                    /* several GPUs (cfg.gpus > 1): ck is NULL */
    nb_stage_pool *pool;                   /* ck and ref are the pool's: the caller's or own */
    nb_stage_pool own;
    size_t level, L1, E, digits;
    size_t in_limbs, out_limbs, key_limbs; /* per set */
    size_t wb;                             /* bytes per word of the variant: 8 or 4 */
    uint64_t *in_primes, *out_primes;      /* per limb of input / output */
    uint64_t *key_primes;                  /* per limb of the key (key switch) */
    uint64_t in_seed, key_seed;            /* the counter-based draws' keys */
    size_t fwd, inv;
    /* per-pass buffers (setup .. teardown) */
    size_t sets;
    nb_buffer *in, *out, *key;
    nb_buffer *in_q, *key_q;               /* one GPU: the primes the draws read */
    /* verification (host; kept until the workload is destroyed) */
    nb_ckks *ref;
    uint64_t *h_in, *h_key, *h_got;        /* 64-bit words (the oracle's) */
    void *h_words;                         /* 32-bit variants: inputs narrowed */
    uint64_t *h_exp[2];
    size_t exp_set[2];
} stage_ctx;

/* Set `set`'s input (and with key non-NULL its key) as 64-bit words: uniform
 * residues of each limb's prime, the first coefficient of a limb never
 * zero, so no limb is all zero; what the one-GPU setup draws on the device. */
static void set_inputs(const stage_ctx *c, size_t set, uint64_t *in, uint64_t *key)
{
    const size_t n = c->p->n;
    nb_rng_fill_limbs_at(c->in_seed, (uint64_t)set * c->in_limbs * n, in, n, c->in_primes,
                         c->in_limbs);
    if (key)
        nb_rng_fill_limbs_at(c->key_seed, (uint64_t)set * c->key_limbs * n, key, n,
                             c->key_primes, c->key_limbs);
}

typedef struct {
    nb_step_marks *marks;
} mark_ctx;

static nb_status hook_mark(void *user, const char *step, int is_ntt, size_t limbs, int inverse)
{
    return nb_step_mark(((mark_ctx *)user)->marks, step, is_ntt, limbs, inverse);
}

/* One stage call on ck's words: out, in, key of ck's word size. */
static nb_status run_stage(nb_ckks *ck, const stage_ctx *c, void *out, const void *in,
                           const void *key, const nb_ckks_hook *hook, void *stream)
{
    const size_t l = c->level, out1 = c->L1 * c->p->n * nb_ckks_word_bytes(ck);
    switch (c->cfg.stage) {
    case NB_CKKS_STAGE_MODUP:
        return nb_ckks_modup_all(ck, l, out, in, hook, stream);
    case NB_CKKS_STAGE_MODDOWN:
        return nb_ckks_moddown(ck, l, out, in, hook, stream);
    case NB_CKKS_STAGE_KEYSWITCH:
        return nb_ckks_keyswitch(ck, l, out, (char *)out + out1, in, key, hook, stream);
    case NB_CKKS_STAGE_RESCALE:
        return nb_ckks_rescale(ck, l, c->cfg.rounding, out, in, hook, stream);
    }
    return nb_set_error(NB_ERR_INVALID_ARG, "unknown stage %d", (int)c->cfg.stage);
}

/* Set `set` of a buffer of sets of `limbs` limbs of the variant's words. */
static void *buf_at(const stage_ctx *c, nb_buffer *b, size_t set, size_t limbs)
{
    return b ? (char *)nb_buffer_ptr(b) + set * limbs * c->p->n * c->wb : NULL;
}

/* Uploads `words` 64-bit words of h at set `set` of b (limbs per set), as
 * the variant's words. */
static nb_status upload_set(const stage_ctx *c, nb_buffer *b, size_t set, size_t limbs,
                            const uint64_t *h, void *stream)
{
    const size_t words = limbs * c->p->n, bytes = words * c->wb;
    const void *src = h;
    if (c->wb == 4) {
        nb_words_from_u64(c->h_words, h, words, 32);
        src = c->h_words;
    }
    NB_TRY(nb_buffer_upload(b, set * bytes, src, bytes, stream));
    return c->wb == 4 ? nb_stream_sync(stream) : NB_OK; /* h_words is reused */
}

/* h (limbs of 64-bit words) in the variant's words: h itself (64-bit), else
 * narrowed into h_words (valid until the next call). */
static const void *narrow(const stage_ctx *c, const uint64_t *h, size_t limbs)
{
    if (c->wb == 8)
        return h;
    nb_words_from_u64(c->h_words, h, limbs * c->p->n, 32);
    return c->h_words;
}

/* Frees one pass's buffers; the host copies and the CPU pipeline's outputs
 * stay for the next pass (ws_destroy frees them). */
static void ws_teardown(void *ctx)
{
    stage_ctx *c = ctx;
    nb_buffer_destroy(c->in);
    nb_buffer_destroy(c->out);
    nb_buffer_destroy(c->key);
    nb_buffer_destroy(c->in_q);
    nb_buffer_destroy(c->key_q);
    c->in = c->out = c->key = c->in_q = c->key_q = NULL;
    nb_stage_multi_teardown(c->mx);
    c->sets = 0;
}

/* The host copies, allocated by the first pass. */
static nb_status host_buffers(stage_ctx *c)
{
    const size_t n = c->p->n;
    if (!c->h_in)
        c->h_in = malloc(c->in_limbs * n * sizeof(uint64_t));
    if (!c->h_got)
        c->h_got = malloc(c->out_limbs * n * sizeof(uint64_t));
    if (c->key_limbs && !c->h_key)
        c->h_key = malloc(c->key_limbs * n * sizeof(uint64_t));
    const size_t most = c->in_limbs > c->key_limbs ? c->in_limbs : c->key_limbs;
    if (c->wb == 4 && !c->h_words)
        c->h_words = malloc(most * n * sizeof(uint32_t));
    if (!c->h_in || !c->h_got || (c->key_limbs && !c->h_key) || (c->wb == 4 && !c->h_words))
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "stage workload: out of host memory");
    return NB_OK;
}

#ifdef NB_HAVE_CUDA
/* Every set of b (`limbs` limbs each, primes q) drawn on the device. */
static nb_status draw_on_device(const stage_ctx *c, nb_buffer *b, nb_buffer **q_dev,
                                const uint64_t *q, size_t limbs, uint64_t seed, void *stream)
{
    NB_TRY(nb_buffer_create(q_dev, NB_BACKEND_GPU, limbs * sizeof *q));
    NB_TRY(nb_buffer_upload(*q_dev, 0, q, limbs * sizeof *q, stream));
    return nb_gpu_fill_residues(nb_buffer_ptr(b), (unsigned)(8 * c->wb), 0,
                                (uint64_t)c->sets * limbs * c->p->n, c->p->log_n, limbs,
                                nb_buffer_ptr(*q_dev), seed, stream);
}
#endif

static nb_status ws_setup(void *ctx, size_t sets, void *stream)
{
    stage_ctx *c = ctx;
    ws_teardown(c);
    if (sets == 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "stage workload: zero buffer sets");
    const size_t n = c->p->n;
    const nb_backend be = c->v->backend;
    NB_TRY(host_buffers(c));
    if (c->mx) {
        NB_TRY(nb_stage_multi_setup(c->mx, sets));
        for (size_t s = 0; s < sets; s++) {
            set_inputs(c, s, c->h_in, c->h_key);
            /* one at a time: both narrow into h_words */
            NB_TRY(nb_stage_multi_upload(c->mx, s, narrow(c, c->h_in, c->in_limbs), NULL));
            if (c->key_limbs)
                NB_TRY(nb_stage_multi_upload(c->mx, s, NULL,
                                             narrow(c, c->h_key, c->key_limbs)));
        }
        c->sets = sets;
        return NB_OK;
    }
    NB_TRY(nb_buffer_create(&c->in, be, sets * c->in_limbs * n * c->wb));
    NB_TRY(nb_buffer_create(&c->out, be, sets * c->out_limbs * n * c->wb));
    if (c->key_limbs)
        NB_TRY(nb_buffer_create(&c->key, be, sets * c->key_limbs * n * c->wb));
    NB_TRY(nb_buffer_fill(c->out, 0xA5, stream));
    c->sets = sets;
#ifdef NB_HAVE_CUDA
    if (be == NB_BACKEND_GPU) {
        NB_TRY(draw_on_device(c, c->in, &c->in_q, c->in_primes, c->in_limbs, c->in_seed, stream));
        if (c->key_limbs)
            NB_TRY(draw_on_device(c, c->key, &c->key_q, c->key_primes, c->key_limbs, c->key_seed,
                                  stream));
        return NB_OK;
    }
#endif
    for (size_t s = 0; s < sets; s++) {
        set_inputs(c, s, c->h_in, c->h_key);
        NB_TRY(upload_set(c, c->in, s, c->in_limbs, c->h_in, stream));
        if (c->key_limbs)
            NB_TRY(upload_set(c, c->key, s, c->key_limbs, c->h_key, stream));
    }
    return NB_OK;
}

/* Key limbs one launch reads: each digit's two components over B_l. */
static size_t key_limbs_used(const stage_ctx *c)
{
    return c->cfg.stage == NB_CKKS_STAGE_KEYSWITCH ? 2 * c->digits * c->E : 0;
}

static size_t ws_bytes(const void *ctx)
{
    const stage_ctx *c = ctx;
    return (c->in_limbs + c->out_limbs + key_limbs_used(c)) * c->p->n * c->wb;
}

double nb_stage_set_bytes(const nb_ckks_params *p, nb_ckks_stage stage, size_t l)
{
    const double q = (double)(l + 1), e = q + (double)p->alpha;
    const double d = (double)nb_ckks_digits(p, l);
    const double limbs = stage == NB_CKKS_STAGE_MODUP     ? q + d * e
                         : stage == NB_CKKS_STAGE_MODDOWN ? e + q
                         : stage == NB_CKKS_STAGE_RESCALE ? 2 * q - (double)p->rescale_primes
                                                          : q + 2 * q + 2 * d * e;
    return limbs * (double)p->n * (double)(p->word_bits / 8);
}

static nb_status ws_launch(void *ctx, size_t set, void *stream)
{
    stage_ctx *c = ctx;
    if (set >= c->sets)
        return nb_set_error(NB_ERR_INVALID_ARG, "stage workload: set %zu of %zu", set, c->sets);
    if (c->mx)
        return nb_stage_multi_launch(c->mx, set, NULL, stream);
    return run_stage(c->ck, c, buf_at(c, c->out, set, c->out_limbs),
                     buf_at(c, c->in, set, c->in_limbs), buf_at(c, c->key, set, c->key_limbs),
                     NULL, stream);
}

static nb_status ws_launch_marked(void *ctx, size_t set, void *stream, nb_step_marks *marks)
{
    stage_ctx *c = ctx;
    if (set >= c->sets)
        return nb_set_error(NB_ERR_INVALID_ARG, "stage workload: set %zu of %zu", set, c->sets);
    mark_ctx m = {marks};
    nb_ckks_hook hook = {hook_mark, &m};
    if (c->mx)
        return nb_stage_multi_launch(c->mx, set, &hook, stream);
    return run_stage(c->ck, c, buf_at(c, c->out, set, c->out_limbs),
                     buf_at(c, c->in, set, c->in_limbs), buf_at(c, c->key, set, c->key_limbs),
                     &hook, stream);
}

static nb_status expected_for(stage_ctx *c, size_t set, const uint64_t **exp)
{
    for (int k = 0; k < 2; k++)
        if (c->exp_set[k] == set) {
            *exp = c->h_exp[k];
            return NB_OK;
        }
    if (!c->ref)
        NB_TRY(nb_stage_pool_reference(c->pool, c->p, &c->ref));
    /* a free slot, else the one not holding set 0 (verified first and last) */
    int k = c->exp_set[0] == SIZE_MAX ? 0 : c->exp_set[1] == SIZE_MAX ? 1 : c->exp_set[0] == 0;
    if (!c->h_exp[k]) {
        c->h_exp[k] = malloc(c->out_limbs * c->p->n * sizeof(uint64_t));
        if (!c->h_exp[k])
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "stage verify: out of host memory");
    }
    set_inputs(c, set, c->h_in, c->h_key);
    NB_TRY(run_stage(c->ref, c, c->h_exp[k], c->h_in, c->h_key, NULL, NULL));
    c->exp_set[k] = set;
    *exp = c->h_exp[k];
    return NB_OK;
}

static nb_status ws_verify(void *ctx, size_t set, void *stream)
{
    stage_ctx *c = ctx;
    if (set >= c->sets)
        return nb_set_error(NB_ERR_INVALID_ARG, "stage workload: set %zu of %zu", set, c->sets);
    const size_t n = c->p->n, words = c->out_limbs * n;
    NB_TRY(nb_stream_sync(stream));
    if (c->mx) {
        NB_TRY(nb_stage_multi_download(c->mx, set, c->h_got));
    } else {
        NB_TRY(nb_buffer_download(c->out, set * words * c->wb, c->h_got, words * c->wb, stream));
        NB_TRY(nb_stream_sync(stream));
    }
    nb_words_to_u64(c->h_got, c->h_got, words, (unsigned)(8 * c->wb)); /* in place */
    const uint64_t *exp = NULL;
    NB_TRY(expected_for(c, set, &exp));
    size_t bad = 0, first = SIZE_MAX;
    for (size_t i = 0; i < words; i++)
        if (c->h_got[i] != exp[i]) {
            if (first == SIZE_MAX)
                first = i;
            bad++;
        }
    if (bad)
        return nb_set_error(NB_ERR_VERIFY,
                            "%s: set %zu: %zu of %zu residues differ from the CPU pipeline; "
                            "first at output limb %zu index %zu: want %llu got %llu",
                            c->label, set, bad, words, first / n, first % n,
                            (unsigned long long)exp[first], (unsigned long long)c->h_got[first]);
    return NB_OK;
}

static nb_status ws_input_region(const void *ctx, size_t set, void **ptr, size_t *bytes)
{
    const stage_ctx *c = ctx;
    if (set >= c->sets)
        return nb_set_error(NB_ERR_INVALID_ARG, "stage workload: set %zu of %zu", set, c->sets);
    if (c->mx)
        return nb_set_error(NB_ERR_UNSUPPORTED, "--l2-persist: not with several GPUs");
    *ptr = buf_at(c, c->in, set, c->in_limbs);
    *bytes = c->in_limbs * c->p->n * c->wb;
    return NB_OK;
}

static nb_status ws_evict(void *ctx, void *stream)
{
    stage_ctx *c = ctx;
    return c->mx ? nb_stage_multi_evict(c->mx, stream) : NB_OK;
}

static void ws_destroy(void *ctx);

static const nb_workload_ops stage_ops = {
    .setup = ws_setup,
    .bytes_per_launch = ws_bytes,
    .prepare = NULL,
    .launch = ws_launch,
    .launch_marked = ws_launch_marked,
    .verify = ws_verify,
    .teardown = ws_teardown,
    .footprint_bytes = ws_bytes,
    .input_region = ws_input_region,
    .destroy = ws_destroy,
    .evict = ws_evict,
};

static void ws_destroy(void *ctx)
{
    stage_ctx *c = ctx;
    ws_teardown(c);
    free(c->h_in);
    free(c->h_key);
    free(c->h_got);
    free(c->h_words);
    free(c->h_exp[0]);
    free(c->h_exp[1]);
    nb_stage_pool_free(&c->own);
    nb_stage_multi_destroy(c->mx);
    free(c->in_primes);
    free(c->out_primes);
    free(c->key_primes);
    free(c);
}

nb_status nb_stage_workload_create(nb_workload **out, const nb_ckks_params *params,
                                   const nb_ntt_variant *variant, const nb_stage_config *cfg,
                                   void *stream)
{
    return nb_stage_workload_create_pooled(out, params, variant, cfg, NULL, stream);
}

nb_status nb_stage_workload_create_pooled(nb_workload **out, const nb_ckks_params *params,
                                          const nb_ntt_variant *variant,
                                          const nb_stage_config *cfg, nb_stage_pool *pool,
                                          void *stream)
{
    if (out)
        *out = NULL;
    if (!out || !params || !variant || !cfg)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_stage_workload_create: NULL argument");
    if ((unsigned)cfg->stage > 3)
        return nb_set_error(NB_ERR_INVALID_ARG, "unknown stage %d", (int)cfg->stage);
    if (cfg->stage == NB_CKKS_STAGE_RESCALE && cfg->rounding != NB_CKKS_RESCALE_FLOOR &&
        cfg->rounding != NB_CKKS_RESCALE_ROUND)
        return nb_set_error(NB_ERR_INVALID_ARG, "rescale: unknown rounding mode %d",
                            (int)cfg->rounding);
    const size_t level = cfg->level == SIZE_MAX ? params->max_level : cfg->level;
    const size_t lowest = cfg->stage == NB_CKKS_STAGE_RESCALE ? params->rescale_primes : 0;
    if (level > params->max_level || level < lowest)
        return nb_set_error(NB_ERR_INVALID_ARG, "stage %s: level %zu outside [%zu, L=%zu]",
                            nb_stage_name(cfg->stage), level, lowest, params->max_level);
    stage_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "stage workload: out of host memory");
    c->w.ctx = c; /* first, so that nb_workload_destroy frees a half-built one */
    c->w.ops = &stage_ops;
    c->p = params;
    c->v = variant;
    c->cfg = *cfg;
    c->cfg.level = level;
    c->level = level;
    c->wb = variant->word_bits / 8;
    c->L1 = level + 1;
    c->E = level + 1 + params->alpha;
    c->digits = nb_ckks_digits(params, level);
    c->exp_set[0] = c->exp_set[1] = SIZE_MAX;
    c->in_primes = malloc((c->E + 1) * sizeof(uint64_t));
    c->out_primes = malloc((c->E + 1) * sizeof(uint64_t));
    if (!c->in_primes || !c->out_primes) {
        nb_workload_destroy(&c->w);
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "stage workload: out of host memory");
    }
    switch (cfg->stage) {
    case NB_CKKS_STAGE_MODUP:
        c->in_limbs = c->L1;
        c->out_limbs = c->digits * c->E;
        memcpy(c->in_primes, params->q, c->L1 * sizeof(uint64_t));
        break;
    case NB_CKKS_STAGE_MODDOWN:
        c->in_limbs = c->E;
        c->out_limbs = c->L1;
        nb_ckks_basis_ext(params, level, c->in_primes);
        break;
    case NB_CKKS_STAGE_KEYSWITCH:
        c->in_limbs = c->L1;
        c->out_limbs = 2 * c->L1;
        c->key_limbs = nb_ckks_key_limbs(params);
        memcpy(c->in_primes, params->q, c->L1 * sizeof(uint64_t));
        break;
    case NB_CKKS_STAGE_RESCALE:
        c->in_limbs = c->L1;
        c->out_limbs = level + 1 - params->rescale_primes;
        memcpy(c->in_primes, params->q, c->L1 * sizeof(uint64_t));
        break;
    }
    if (c->key_limbs) { /* polynomials over all of Q and P, one after another */
        const size_t per = params->q_count + params->alpha;
        c->key_primes = malloc(c->key_limbs * sizeof(uint64_t));
        if (!c->key_primes) {
            nb_workload_destroy(&c->w);
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "stage workload: out of host memory");
        }
        for (size_t i = 0; i < c->key_limbs; i++)
            c->key_primes[i] = params->primes[i % per];
    }
    c->in_seed = nb_rng_mix(cfg->seed ^ 0xD1B54A32D192ED03ull);
    c->key_seed = nb_rng_mix(cfg->seed ^ 0xA0761D6478BD642Full);
    nb_ckks_ntt_counts(params, cfg->stage, level, &c->fwd, &c->inv);
    /* the case's name without its cache state and mode: what --list, the
     * progress lines and --filter show, so a warning leads back to its row */
    char what[160];
    nb_stage_case_label(what, sizeof what, params, &c->cfg);
    snprintf(c->label, sizeof c->label, "%s %s", variant->name, what);
    c->w.label = c->label;
    c->w.backend = variant->backend;
    c->pool = pool ? pool : &c->own;
    nb_status s = cfg->gpus > 1
                      ? nb_stage_multi_create(&c->mx, params, variant, &c->cfg, cfg->gpus)
                      : nb_stage_pool_pipeline(c->pool, params, variant, stream, &c->ck);
    if (s != NB_OK) {
        nb_workload_destroy(&c->w);
        return s;
    }
    *out = &c->w;
    return NB_OK;
}

nb_status nb_stage_workload_comm_median(nb_workload *w, double *median_s)
{
    stage_ctx *c = w ? w->ctx : NULL;
    if (!c || !c->mx)
        return nb_set_error(NB_ERR_UNSUPPORTED, "exchange times: not a several-GPU stage");
    return nb_stage_multi_comm_median(c->mx, median_s);
}

nb_status nb_stage_workload_comm_bytes(nb_workload *w, double *total, double *per_link)
{
    stage_ctx *c = w ? w->ctx : NULL;
    if (!c || !c->mx)
        return nb_set_error(NB_ERR_UNSUPPORTED, "exchange bytes: not a several-GPU stage");
    nb_ckks_multi_comm_bytes(nb_stage_multi_ckks(c->mx), total, per_link);
    return NB_OK;
}

const char *nb_stage_workload_exchange(const nb_workload *w)
{
    const stage_ctx *c = w ? w->ctx : NULL;
    return c && c->mx ? nb_ckks_multi_exchange(nb_stage_multi_ckks(c->mx)) : NULL;
}

int nb_stage_workload_nccl_version(const nb_workload *w)
{
    const stage_ctx *c = w ? w->ctx : NULL;
    return c && c->mx ? nb_ckks_multi_nccl_version(nb_stage_multi_ckks(c->mx)) : 0;
}

int nb_stage_workload_nccl_tuned(const nb_workload *w)
{
    const stage_ctx *c = w ? w->ctx : NULL;
    return c && c->mx ? nb_ckks_multi_nccl_tuned(nb_stage_multi_ckks(c->mx)) : 0;
}

void nb_stage_workload_ntt_counts(const nb_workload *w, size_t *forward_limbs,
                                  size_t *inverse_limbs)
{
    const stage_ctx *c = w ? w->ctx : NULL;
    if (forward_limbs)
        *forward_limbs = c ? c->fwd : 0;
    if (inverse_limbs)
        *inverse_limbs = c ? c->inv : 0;
}


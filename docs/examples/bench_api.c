/* Benchmarking your own NTT from C, through the library only: register a CPU
 * variant (a textbook radix-2 negacyclic NTT in the library's ordering
 * convention), time it with the NTT tier in a warm and a cold cache, time
 * two CKKS stages built on it with the stage tier, and write every case to a
 * JSON report. Every case is verified before and after timing (against
 * cpu-harvey, itself checked against the GMP reference). Exit 0 when every
 * case is ok, 1 otherwise, 3 when the run cannot start.
 * Usage: bench_api REPORT.json   (docs/api.md shows this file) */
#include <stdio.h>

#include "bench/bench.h"
#include "bench/tiers/stage.h"
#include "ntt/arith.h"

/* The plan is the library's tables: psi^brv(k) in fwd, psi^-brv(k) in inv. */
static nb_status plan_create(void **plan, const nb_ntt_tables *t, void *stream)
{
    (void)stream;
    *plan = (void *)t;
    return NB_OK;
}

static void plan_destroy(void *plan) { (void)plan; }

/* Natural order in, bit-reversed order out, values in [0, q). */
static void forward_one(uint64_t *a, const nb_ntt_tables *t, size_t l)
{
    const size_t n = t->n;
    const uint64_t q = t->q[l], *w = t->fwd + l * n;
    size_t k = 1;
    for (size_t half = n / 2; half >= 1; half /= 2)
        for (size_t start = 0; start < n; start += 2 * half) {
            const uint64_t wk = w[k++];
            for (size_t j = start; j < start + half; j++) {
                uint64_t x = a[j], y = nb_mul_mod(a[j + half], wk, q, t->mu_lo[l], t->mu_hi[l]);
                a[j] = nb_add_mod(x, y, q);
                a[j + half] = nb_sub_mod(x, y, q);
            }
        }
}

/* Bit-reversed order in, natural order out, scaled by N^-1. */
static void inverse_one(uint64_t *a, const nb_ntt_tables *t, size_t l)
{
    const size_t n = t->n;
    const uint64_t q = t->q[l], *w = t->inv + l * n;
    for (size_t half = 1; half < n; half *= 2) {
        const size_t blocks = n / (2 * half);
        for (size_t b = 0; b < blocks; b++) {
            const uint64_t wk = w[blocks + b];
            for (size_t j = 2 * b * half; j < 2 * b * half + half; j++) {
                uint64_t x = a[j], y = a[j + half];
                a[j] = nb_add_mod(x, y, q);
                a[j + half] = nb_mul_mod(nb_sub_mod(x, y, q), wk, q, t->mu_lo[l], t->mu_hi[l]);
            }
        }
    }
    for (size_t j = 0; j < n; j++)
        a[j] = nb_mul_mod(a[j], t->n_inv[l], q, t->mu_lo[l], t->mu_hi[l]);
}

static nb_status forward(void *plan, void *words, size_t first, size_t count, void *stream)
{
    uint64_t *data = (uint64_t *)words;
    (void)stream;
    const nb_ntt_tables *t = plan;
    for (size_t k = 0; k < count; k++)
        forward_one(data + k * t->n, t, first + k);
    return NB_OK;
}

static nb_status inverse(void *plan, void *words, size_t first, size_t count, void *stream)
{
    uint64_t *data = (uint64_t *)words;
    (void)stream;
    const nb_ntt_tables *t = plan;
    for (size_t k = 0; k < count; k++)
        inverse_one(data + k * t->n, t, first + k);
    return NB_OK;
}

static const nb_ntt_variant textbook = {
    .name = "example-textbook",
    .description = "textbook radix-2 negacyclic NTT (docs/examples/bench_api.c)",
    .backend = NB_BACKEND_CPU,
    .min_log_n = 1,
    .max_log_n = 17,
    .word_bits = 64,
    .max_prime_bits = NB_MAX_PRIME_BITS,
    .plan_create = plan_create,
    .plan_destroy = plan_destroy,
    .forward = forward,
    .inverse = inverse,
};

/* Short timing for an example: at least 5 samples and 20 ms per case. */
static void quick_timing(nb_bench_opts *o)
{
    nb_bench_opts_default(o);
    o->min_samples = 5;
    o->min_time_s = 0.02;
    o->max_noise_pct = 5.0;
    o->timeout_s = 2.0;
    o->warmup_time_s = 0.0;
}

/* The NTT tier warm and cold, then the stage tier, into r->report. */
static nb_status run_tiers(nb_tier_run *r)
{
    const nb_cache_state states[] = {NB_CACHE_WARM, NB_CACHE_COLD};
    for (size_t i = 0; i < 2; i++) {
        r->timing.cache = states[i];
        NB_TRY(nb_tier_run_one(nb_tier_find("ntt"), r));
    }
    static const char *const presets[] = {"test-tiny"};
    nb_stage_tier_opts stage;
    nb_stage_tier_opts_default(&stage);
    stage.stages[0] = NB_CKKS_STAGE_KEYSWITCH;
    stage.stages[1] = NB_CKKS_STAGE_RESCALE;
    stage.n_stages = 2;
    stage.presets = presets;
    stage.n_presets = 1;
    stage.micro = 0; /* the NTT tier above already measured the transforms */
    r->tier_opts = &stage;
    r->timing.cache = NB_CACHE_COLD;
    nb_status s = nb_tier_run_one(nb_tier_find("stage"), r);
    r->tier_opts = NULL;
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s REPORT.json\n", argv[0]);
        return 2;
    }
    nb_report *report = NULL;
    nb_env env;
    nb_status s = nb_ntt_variant_register(&textbook);
    if (s == NB_OK)
        s = nb_report_create(&report, "run");
    if (s == NB_OK)
        s = nb_env_collect(&env, 0, 1);
    if (s != NB_OK) {
        fprintf(stderr, "bench_api: %s\n", nb_last_error());
        nb_report_destroy(report);
        return 3;
    }
    nb_report_set_env(report, &env);
    const nb_ntt_variant *variants[] = {&textbook};
    static const unsigned log_n[] = {10}, prime_bits[] = {50};
    static const size_t limbs[] = {1, 4};
    static const nb_mode modes[] = {NB_MODE_PER_LAUNCH};
    nb_tier_run run = {.report = report, .env = &env};
    quick_timing(&run.timing);
    nb_report_set_options(report, &run.timing);
    run.sweep = (nb_sweep){.variants = variants, .n_variants = 1, .log_n = log_n, .n_log_n = 1,
                           .limbs = limbs, .n_limbs = 2, .prime_bits = prime_bits,
                           .n_prime_bits = 1, .directions = 3, .modes = modes, .n_modes = 1,
                           .seed = 2024};
    s = run_tiers(&run);
    if (s == NB_OK)
        s = nb_report_write_file(report, NB_FORMAT_JSON, argv[1]);
    if (s != NB_OK) {
        fprintf(stderr, "bench_api: %s\n", nb_last_error());
        nb_report_destroy(report);
        return 3;
    }
    size_t bad = 0;
    for (size_t i = 0; i < nb_report_case_count(report); i++)
        bad += nb_case_get_status(nb_report_case_at(report, i)) != NB_CASE_OK;
    printf("%zu cases, %zu not ok, report in %s\n", nb_report_case_count(report), bad, argv[1]);
    nb_report_destroy(report);
    return bad ? 1 : 0;
}

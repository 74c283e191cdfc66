/* The CKKS pipelines on 32-bit words (cpu-harvey32 and its scalar path)
 * and the two-prime rescale on both word sizes, against the GMP reference
 * (reference/ckks_ref.h): modUp, modDown, key switch and rescale (floor and
 * round) bit-exact at small N, at every level kind (top, middle, bottom),
 * with 31-, 30-, 25- and 20-bit primes. Inputs are fresh seeded residues
 * generated as 64-bit words and narrowed; outputs are poisoned 32-bit words
 * (0xA5A5A5A5, above every prime below 2^31) widened back for the
 * comparison, so an unwritten word fails. The same on CPU variants that
 * fuse the subtract-and-scale into their forward NTT (the pipelines' fused
 * paths). A 32-bit variant refuses a set with a prime of 32 bits or more. */
#include <stdlib.h>
#include <string.h>

#include "bench/tiers/ntt.h"
#include "ckks/ckks.h"
#include "reference/ckks_ref.h"
#include "reference/reference.h"
#include "testutil.h"

#define POISON32 0xA5A5A5A5u

/* ---- variants that fuse the subtract-and-scale (nb_ntt_sub_scale) ----
 * cpu-harvey-fused and cpu-harvey32-fused: their bases' transforms, with a
 * forward_sub_scale entry that runs the base's forward, then the epilogue
 * in 128-bit integers, so that the pipelines take their fused paths on the
 * CPU and are checked against the reference like any other variant. */
typedef struct {
    const nb_ntt_variant *base;
    void *plan;
    const nb_ntt_tables *t;
} fused_plan;

static const nb_ntt_variant *fused_base[2]; /* 64-bit, 32-bit */

static nb_status fused_create(int which, void **plan, const nb_ntt_tables *t, void *stream)
{
    fused_plan *f = calloc(1, sizeof *f);
    if (!f)
        return NB_ERR_OUT_OF_MEMORY;
    f->base = fused_base[which];
    f->t = t;
    const nb_status s = f->base->plan_create(&f->plan, t, stream);
    if (s != NB_OK)
        free(f);
    else
        *plan = f;
    return s;
}
static nb_status fused_create64(void **plan, const nb_ntt_tables *t, void *stream)
{
    return fused_create(0, plan, t, stream);
}
static nb_status fused_create32(void **plan, const nb_ntt_tables *t, void *stream)
{
    return fused_create(1, plan, t, stream);
}
static void fused_destroy(void *plan)
{
    fused_plan *f = plan;
    if (f)
        f->base->plan_destroy(f->plan);
    free(f);
}
static nb_status fused_forward(void *plan, void *data, size_t first, size_t count, void *s)
{
    fused_plan *f = plan;
    return f->base->forward(f->plan, data, first, count, s);
}
static nb_status fused_inverse(void *plan, void *data, size_t first, size_t count, void *s)
{
    fused_plan *f = plan;
    return f->base->inverse(f->plan, data, first, count, s);
}
static nb_status fused_sub_scale(void *plan, void *data, const nb_ntt_sub_scale *e,
                                 size_t first, size_t count, void *s)
{
    fused_plan *f = plan;
    const size_t n = f->t->n, wb = f->base->word_bits / 8;
    const nb_status st = f->base->forward(f->plan, data, first, count, s);
    if (st != NB_OK)
        return st;
    for (size_t j = 0; j < count; j++) {
        const int part = j >= e->split;
        const size_t k = j - (part ? e->split : 0);
        const uint64_t q = f->t->q[first + j];
        for (size_t i = 0; i < n; i++) {
            const size_t a = j * n + i, b = k * n + i;
            const uint64_t y = wb == 8 ? ((uint64_t *)data)[a] : ((uint32_t *)data)[a];
            const uint64_t x = wb == 8 ? ((const uint64_t *)e->x[part])[b]
                                       : ((const uint32_t *)e->x[part])[b];
            const uint64_t r = (uint64_t)((unsigned __int128)((x + q - y) % q) * e->w[k] % q);
            if (wb == 8)
                ((uint64_t *)e->out[part])[b] = r;
            else
                ((uint32_t *)e->out[part])[b] = (uint32_t)r;
        }
    }
    memset(data, 0x5A, count * n * wb); /* the call's scratch: left unspecified */
    return NB_OK;
}

static nb_ntt_variant fused_variant[2];

/* Registers the two fused variants (once). */
static void register_fused(void)
{
    static const char *const names[2][2] = {{"cpu-harvey", "cpu-harvey-fused"},
                                            {"cpu-harvey32", "cpu-harvey32-fused"}};
    for (int i = 0; i < 2; i++) {
        if (nb_ntt_variant_find(names[i][1]))
            continue;
        fused_base[i] = nb_ntt_variant_find(names[i][0]);
        assert_non_null(fused_base[i]);
        nb_ntt_variant v = *fused_base[i];
        v.name = names[i][1];
        v.description = "a CPU variant with a fused forward epilogue (test)";
        v.plan_create = i ? fused_create32 : fused_create64;
        v.plan_destroy = fused_destroy;
        v.forward = fused_forward;
        v.inverse = fused_inverse;
        v.forward_to = v.inverse_to = NULL;
        v.kernels = NULL;
        v.forward_sub_scale = fused_sub_scale;
        fused_variant[i] = v;
        assert_int_equal(nb_ntt_variant_register(&fused_variant[i]), NB_OK);
    }
}

/* Sets with every prime below 2^31: pairs (rescale drops 2), single
 * primes, one special prime per digit, small primes. */
static const nb_ckks_spec specs[] = {
    {5, 9, 3, 31, 50, 31, 32, 2, 2},  /* 2 base + 4 pairs, alpha 4 */
    {6, 7, 2, 30, 29, 31, 32, 1, 1},  /* single primes, dnum 2 */
    {4, 5, 6, 31, 31, 31, 32, 1, 1},  /* 31-bit everywhere, alpha 1 */
    {5, 6, 2, 20, 20, 25, 32, 1, 1},  /* small primes */
    {8, 13, 3, 31, 51, 31, 32, 2, 2}, /* the twin's shape at N = 256 */
};

typedef struct {
    nb_ckks_params *p;
    nb_ckks *c;
    unsigned w; /* word bits of the variant */
} fixture;

static fixture make(const nb_ckks_spec *spec, const char *variant)
{
    fixture f = {0};
    if (nb_ckks_params_create(&f.p, spec) != NB_OK)
        nb_test_fail("params: %s", nb_last_error());
    const nb_ntt_variant *v = nb_ntt_variant_find(variant);
    assert_non_null(v);
    f.w = v->word_bits;
    if (nb_ckks_create(&f.c, f.p, v, NULL) != NB_OK)
        nb_test_fail("nb_ckks_create(%s): %s", variant, nb_last_error());
    assert_int_equal(nb_ckks_word_bytes(f.c), f.w / 8);
    return f;
}

static void drop(fixture *f)
{
    nb_ckks_destroy(f->c);
    nb_ckks_params_destroy(f->p);
}

/* words of the fixture's size: from 64-bit values, poisoned, back to 64 */
static void *narrow(const fixture *f, const uint64_t *a, size_t words)
{
    void *b = malloc(words * 8);
    assert_non_null(b);
    nb_words_from_u64(b, a, words, f->w);
    return b;
}

static void *poisoned(const fixture *f, size_t words)
{
    void *b = malloc(words * 8);
    assert_non_null(b);
    for (size_t i = 0; i < words; i++)
        if (f->w == 32)
            ((uint32_t *)b)[i] = POISON32;
        else
            ((uint64_t *)b)[i] = NB_TEST_POISON;
    return b;
}

static uint64_t *widen(const fixture *f, const void *b, size_t words)
{
    uint64_t *a = malloc(words * sizeof *a);
    assert_non_null(a);
    nb_words_to_u64(a, b, words, f->w);
    return a;
}

/* NTT form -> coefficient form (in place) with the reference and the
 * library's default roots. */
static void to_coeff(uint64_t *a, const uint64_t *primes, size_t limbs, unsigned log_n)
{
    const size_t n = (size_t)1 << log_n;
    for (size_t l = 0; l < limbs; l++) {
        uint64_t psi;
        assert_int_equal(nb_root_minimal(primes[l], log_n, &psi), NB_OK);
        assert_int_equal(nb_ref_ntt_inverse(a + l * n, log_n, primes[l], psi), NB_OK);
    }
}

/* got (the pipeline's words, NTT form over primes) equals want (coefficient
 * form); every word below its prime. */
static void expect(const fixture *f, const char *what, size_t level, const void *got_w,
                   const uint64_t *want, const uint64_t *primes, size_t limbs)
{
    const size_t n = f->p->n;
    uint64_t *got = widen(f, got_w, limbs * n);
    for (size_t i = 0; i < limbs * n; i++)
        if (got[i] >= primes[i / n])
            nb_test_fail("%s (%u-bit words, level %zu): limb %zu index %zu = %llu not below q "
                         "(unwritten?)",
                         what, f->w, level, i / n, i % n, (unsigned long long)got[i]);
    to_coeff(got, primes, limbs, f->p->log_n);
    for (size_t i = 0; i < limbs * n; i++)
        if (got[i] != want[i])
            nb_test_fail("%s (%u-bit words, level %zu): limb %zu index %zu: want %llu got %llu",
                         what, f->w, level, i / n, i % n, (unsigned long long)want[i],
                         (unsigned long long)got[i]);
    free(got);
}

/* A random poly over primes (NTT form as the pipelines read it), and its
 * coefficient form for the reference. */
static uint64_t *random_poly(const uint64_t *primes, size_t limbs, size_t n, uint64_t **coeff,
                             unsigned log_n)
{
    uint64_t *a = malloc(limbs * n * sizeof *a);
    assert_non_null(a);
    nb_test_fill_residues(a, n, primes, limbs);
    *coeff = malloc(limbs * n * sizeof **coeff);
    assert_non_null(*coeff);
    memcpy(*coeff, a, limbs * n * sizeof *a);
    to_coeff(*coeff, primes, limbs, log_n);
    return a;
}

/* the levels a stage is checked at: top, middle, lowest allowed */
static size_t levels(const nb_ckks_params *p, size_t lowest, size_t lv[3])
{
    size_t k = 0;
    lv[k++] = p->max_level;
    if ((p->max_level + lowest) / 2 > lowest && (p->max_level + lowest) / 2 < p->max_level)
        lv[k++] = (p->max_level + lowest) / 2;
    if (lowest < p->max_level)
        lv[k++] = lowest;
    return k;
}

static void check_modup_moddown(const fixture *f)
{
    const nb_ckks_params *p = f->p;
    const size_t n = p->n, A = p->alpha;
    size_t lv[3], nl = levels(p, 0, lv);
    uint64_t basis[512];
    for (size_t li = 0; li < nl; li++) {
        const size_t l = lv[li], E = l + 1 + A, D = nb_ckks_digits(p, l);
        nb_ckks_basis_ext(p, l, basis);
        uint64_t *coeff = NULL, *a = random_poly(p->q, l + 1, n, &coeff, p->log_n);
        void *in = narrow(f, a, (l + 1) * n), *out = poisoned(f, D * E * n);
        if (nb_ckks_modup_all(f->c, l, out, in, NULL, NULL) != NB_OK)
            nb_test_fail("modUp: %s", nb_last_error());
        uint64_t *want = malloc(E * n * sizeof *want);
        assert_non_null(want);
        for (size_t j = 0; j < D; j++) {
            size_t first, count;
            nb_ckks_digit_range(p, l, j, &first, &count);
            assert_int_equal(nb_ref_modup(want, coeff, n, basis, E, first, count), NB_OK);
            expect(f, "modUp", l, (const char *)out + j * E * n * (f->w / 8), want, basis, E);
        }
        free(want);
        free(a);
        free(coeff);
        free(in);
        free(out);
        /* modDown of a random poly over B_l */
        a = random_poly(basis, E, n, &coeff, p->log_n);
        in = narrow(f, a, E * n);
        out = poisoned(f, (l + 1) * n);
        if (nb_ckks_moddown(f->c, l, out, in, NULL, NULL) != NB_OK)
            nb_test_fail("modDown: %s", nb_last_error());
        want = malloc((l + 1) * n * sizeof *want);
        assert_non_null(want);
        assert_int_equal(nb_ref_moddown(want, coeff, n, p->q, l + 1, p->p, A), NB_OK);
        expect(f, "modDown", l, out, want, p->q, l + 1);
        free(want);
        free(a);
        free(coeff);
        free(in);
        free(out);
    }
}

static void check_rescale(const fixture *f, nb_ckks_rounding mode)
{
    const nb_ckks_params *p = f->p;
    const size_t n = p->n, g = p->rescale_primes;
    size_t lv[3], nl = levels(p, g, lv);
    for (size_t li = 0; li < nl; li++) {
        const size_t l = lv[li];
        uint64_t *coeff = NULL, *a = random_poly(p->q, l + 1, n, &coeff, p->log_n);
        void *in = narrow(f, a, (l + 1) * n), *out = poisoned(f, (l + 1 - g) * n);
        if (nb_ckks_rescale(f->c, l, mode, out, in, NULL, NULL) != NB_OK)
            nb_test_fail("rescale: %s", nb_last_error());
        uint64_t *want = malloc((l + 1 - g) * n * sizeof *want);
        assert_non_null(want);
        assert_int_equal(nb_ref_rescale_by(want, coeff, n, p->q, l + 1, g,
                                           mode == NB_CKKS_RESCALE_ROUND),
                         NB_OK);
        expect(f, mode == NB_CKKS_RESCALE_ROUND ? "rescale (round)" : "rescale (floor)", l, out,
               want, p->q, l + 1 - g);
        free(want);
        free(a);
        free(coeff);
        free(in);
        free(out);
    }
}

/* The key's level-l polys (limbs q_0..q_l and P) in coefficient form. */
static uint64_t *key_at_level(const nb_ckks_params *p, const uint64_t *key, size_t l)
{
    const size_t n = p->n, per = p->q_count + p->alpha, E = l + 1 + p->alpha;
    uint64_t *out = malloc(2 * p->dnum * E * n * sizeof *out), basis[512];
    assert_non_null(out);
    nb_ckks_basis_ext(p, l, basis);
    for (size_t c = 0; c < 2 * p->dnum; c++) {
        memcpy(out + c * E * n, key + c * per * n, (l + 1) * n * sizeof *out);
        memcpy(out + (c * E + l + 1) * n, key + (c * per + p->q_count) * n,
               p->alpha * n * sizeof *out);
        to_coeff(out + c * E * n, basis, E, p->log_n);
    }
    return out;
}

static void check_keyswitch(const fixture *f)
{
    const nb_ckks_params *p = f->p;
    const size_t n = p->n, per = p->q_count + p->alpha, kl = nb_ckks_key_limbs(p);
    uint64_t *key = malloc(kl * n * sizeof *key);
    assert_non_null(key);
    for (size_t c = 0; c < 2 * p->dnum; c++)
        nb_test_fill_residues(key + c * per * n, n, p->primes, per);
    void *key_w = narrow(f, key, kl * n);
    size_t lv[3], nl = levels(p, 0, lv);
    for (size_t li = 0; li < nl; li++) {
        const size_t l = lv[li];
        uint64_t *coeff = NULL, *a = random_poly(p->q, l + 1, n, &coeff, p->log_n);
        void *in = narrow(f, a, (l + 1) * n);
        void *o0 = poisoned(f, (l + 1) * n), *o1 = poisoned(f, (l + 1) * n);
        if (nb_ckks_keyswitch(f->c, l, o0, o1, in, key_w, NULL, NULL) != NB_OK)
            nb_test_fail("key switch: %s", nb_last_error());
        uint64_t *w0 = malloc((l + 1) * n * 8), *w1 = malloc((l + 1) * n * 8);
        assert_true(w0 && w1);
        uint64_t *k = key_at_level(p, key, l);
        assert_int_equal(nb_ref_keyswitch(w0, w1, coeff, k, p->log_n, p->q, l + 1, p->p,
                                          p->alpha, p->alpha),
                         NB_OK);
        expect(f, "key switch out0", l, o0, w0, p->q, l + 1);
        expect(f, "key switch out1", l, o1, w1, p->q, l + 1);
        free(k);
        free(w0);
        free(w1);
        free(a);
        free(coeff);
        free(in);
        free(o0);
        free(o1);
    }
    free(key);
    free(key_w);
}

static void check_all(const char *variant)
{
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        fixture f = make(&specs[s], variant);
        check_modup_moddown(&f);
        check_rescale(&f, NB_CKKS_RESCALE_FLOOR);
        check_rescale(&f, NB_CKKS_RESCALE_ROUND);
        if (f.p->log_n <= 6) /* the reference key switch is O(N^2) per digit */
            check_keyswitch(&f);
        drop(&f);
    }
}

static void test_stages_on_32bit_words_match_reference(void **state)
{
    (void)state;
    check_all("cpu-harvey32");
}

static void test_stages_on_32bit_scalar_path_match_reference(void **state)
{
    (void)state;
    check_all("cpu-harvey32-scalar");
}

/* The fused paths of modDown, the key switch and rescale, on both words. */
static void test_stages_with_a_fused_epilogue_match_reference(void **state)
{
    (void)state;
    check_all("cpu-harvey32-fused");
    check_all("cpu-harvey-fused");
}

static nb_status name_step(void *user, const char *step, int is_ntt, size_t limbs, int inv)
{
    (void)is_ntt, (void)limbs, (void)inv;
    char *names = user;
    strncat(names, step, 255 - strlen(names));
    strncat(names, " ", 255 - strlen(names));
    return NB_OK;
}

/* A fused modDown and rescale end in one "ntt-scalar" step. */
static void test_fused_stages_end_in_one_ntt_scalar_step(void **state)
{
    (void)state;
    fixture f = make(&specs[0], "cpu-harvey32-fused");
    const size_t n = f.p->n, l = f.p->max_level, E = l + 1 + f.p->alpha;
    uint64_t basis[300];
    nb_ckks_basis_ext(f.p, l, basis);
    uint64_t *a = malloc(E * n * 8);
    assert_non_null(a);
    nb_test_fill_residues(a, n, basis, E);
    void *in = narrow(&f, a, E * n), *out = poisoned(&f, E * n);
    char names[256] = "";
    const nb_ckks_hook hook = {name_step, names};
    /* (a "copy" step first: the test variant has no out-of-place entries) */
    assert_int_equal(nb_ckks_moddown(f.c, l, out, in, &hook, NULL), NB_OK);
    assert_string_equal(names, "copy intt conv ntt-scalar ");
    names[0] = 0;
    assert_int_equal(nb_ckks_rescale(f.c, l, NB_CKKS_RESCALE_FLOOR, out, in, &hook, NULL), NB_OK);
    assert_string_equal(names, "copy intt conv ntt-scalar ");
    free(a), free(in), free(out);
    drop(&f);
}

/* The wrapper refuses an epilogue it cannot run safely, before the variant
 * sees it; out == x is a valid call. */
static void test_fused_call_refuses_bad_epilogues(void **state)
{
    (void)state;
    uint64_t q;
    assert_int_equal(nb_primes_generate(6, 30, 1, NULL, 0, &q), NB_OK);
    nb_ntt *t = NULL;
    assert_int_equal(nb_ntt_create(&t, nb_ntt_variant_find("cpu-harvey-fused"), 6, &q, NULL, 1,
                                   NULL),
                     NB_OK);
    assert_int_equal(nb_ntt_has_sub_scale(t), 1);
    uint64_t buf[4 * 64], w = 3, ws = (uint64_t)(((unsigned __int128)3 << 64) / q);
    for (size_t i = 0; i < 4 * 64; i++)
        buf[i] = (i * 7919 + 1) % q;
    uint64_t *data = buf, *x = buf + 64, *out = buf + 128;
    const nb_ntt_sub_scale good = {{out, out}, {x, x}, 1, &w, &ws};
    nb_ntt_sub_scale e = good;
    assert_int_equal(nb_ntt_forward_sub_scale(t, data, NULL, 0, 1, NULL), NB_ERR_INVALID_ARG);
    e.w = NULL;
    assert_int_equal(nb_ntt_forward_sub_scale(t, data, &e, 0, 1, NULL), NB_ERR_INVALID_ARG);
    e = good, e.out[0] = data + 32; /* out overlaps the data */
    assert_int_equal(nb_ntt_forward_sub_scale(t, data, &e, 0, 1, NULL), NB_ERR_INVALID_ARG);
    e = good, e.x[0] = data + 63; /* x overlaps the data */
    assert_int_equal(nb_ntt_forward_sub_scale(t, data, &e, 0, 1, NULL), NB_ERR_INVALID_ARG);
    e = good, e.out[0] = x + 1; /* out overlaps x without equalling it */
    assert_int_equal(nb_ntt_forward_sub_scale(t, data, &e, 0, 1, NULL), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "without equalling"));
    assert_int_equal(nb_ntt_forward_sub_scale(t, data, &good, 0, 2, NULL), NB_ERR_INVALID_ARG);
    nb_ntt_destroy(t);
    /* two parts over different primes cannot share w */
    uint64_t q2[2];
    assert_int_equal(nb_primes_generate(6, 30, 2, NULL, 0, q2), NB_OK);
    assert_int_equal(nb_ntt_create(&t, nb_ntt_variant_find("cpu-harvey-fused"), 6, q2, NULL, 2,
                                   NULL),
                     NB_OK);
    uint64_t big[6 * 64];
    for (size_t i = 0; i < 6 * 64; i++)
        big[i] = (i * 7919 + 1) % q2[0] % q2[1];
    uint64_t w2[1] = {3}, ws2[1] = {(uint64_t)(((unsigned __int128)3 << 64) / q2[0])};
    const nb_ntt_sub_scale two = {{big + 128, big + 192}, {big + 256, big + 320}, 1, w2, ws2};
    assert_int_equal(nb_ntt_forward_sub_scale(t, big, &two, 0, 2, NULL), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "another prime"));
    nb_ntt_destroy(t);
    assert_int_equal(nb_primes_generate(6, 30, 1, NULL, 0, &q), NB_OK);
    assert_int_equal(nb_ntt_create(&t, nb_ntt_variant_find("cpu-harvey-fused"), 6, &q, NULL, 1,
                                   NULL),
                     NB_OK);
    e = good, e.out[0] = x; /* in place on x */
    assert_int_equal(nb_ntt_forward_sub_scale(t, data, &e, 0, 1, NULL), NB_OK);
    nb_ntt_destroy(t);
}

/* The same 31-bit sets (two-prime rescale included) on 64-bit words. */
static void test_stages_of_32bit_sets_on_64bit_words_match_reference(void **state)
{
    (void)state;
    check_all("cpu-harvey");
}

static void test_32bit_variant_refuses_wide_primes(void **state)
{
    (void)state;
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "test-small"), NB_OK);
    nb_ckks *c = (nb_ckks *)0x1;
    assert_int_equal(nb_ckks_create(&c, p, nb_ntt_variant_find("cpu-harvey32"), NULL),
                     NB_ERR_UNSUPPORTED);
    assert_null(c);
    assert_non_null(strstr(nb_last_error(), "below 2^31"));
    nb_ckks_params_destroy(p);
}

/* Rescale needs g primes to drop and one to keep. */
static void test_pair_rescale_rejects_levels_below_two(void **state)
{
    (void)state;
    fixture f = make(&specs[0], "cpu-harvey32");
    uint32_t in[2 * 32], out[2 * 32];
    for (size_t i = 0; i < 64; i++)
        in[i] = 1 + (uint32_t)i;
    assert_int_equal(nb_ckks_rescale(f.c, 1, NB_CKKS_RESCALE_FLOOR, out, in, NULL, NULL),
                     NB_ERR_INVALID_ARG);
    drop(&f);
}

int main(void)
{
    nb_test_seed_init();
    register_fused();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stages_on_32bit_words_match_reference),
        cmocka_unit_test(test_stages_on_32bit_scalar_path_match_reference),
        cmocka_unit_test(test_stages_with_a_fused_epilogue_match_reference),
        cmocka_unit_test(test_fused_stages_end_in_one_ntt_scalar_step),
        cmocka_unit_test(test_fused_call_refuses_bad_epilogues),
        cmocka_unit_test(test_stages_of_32bit_sets_on_64bit_words_match_reference),
        cmocka_unit_test(test_32bit_variant_refuses_wide_primes),
        cmocka_unit_test(test_pair_rescale_rejects_levels_below_two),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

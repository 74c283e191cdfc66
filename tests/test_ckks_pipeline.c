/* CPU CKKS pipelines against the GMP reference (reference/ckks_ref.h):
 * base conversion, modUp, modDown and rescale are bit-exact at small sizes,
 * and the mathematical bounds hold (conversion = x + e*C with 0 <= e < |C|;
 * modDown = floor(x/P) - e with 0 <= e < alpha; rescale = floor / round of
 * x/q_l exactly); every pipeline refuses bad arguments, and its hook sees
 * its steps in order with the NTT counts nb_ckks_ntt_counts gives. The key
 * switch: test_ckks_keyswitch.c. Fresh random inputs each run (seed
 * printed), outputs poisoned first. */
#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "ckks/ckks.h"
#include "reference/ckks_ref.h"
#include "ckksutil.h"

/* ---- base conversion ---- */

static void check_baseconv(unsigned log_n, unsigned from_bits, size_t n_from, unsigned to_bits,
                           size_t n_to)
{
    const size_t n = (size_t)1 << log_n;
    uint64_t from[128], to[128];
    assert_int_equal(nb_primes_generate(log_n, from_bits, n_from, NULL, 0, from), NB_OK);
    assert_int_equal(nb_primes_generate(log_n, to_bits, n_to, from, n_from, to), NB_OK);
    uint64_t *in = alloc_poison(n_from * n), *got = alloc_poison(n_to * n),
             *want = alloc_poison(n_to * n);
    nb_test_fill_residues(in, n, from, n_from);
    nb_baseconv_plan *plan = NULL;
    assert_int_equal(
        nb_baseconv_plan_create(&plan, NB_BACKEND_CPU, log_n, from, n_from, to, n_to, NULL), NB_OK);
    assert_int_equal(nb_baseconv_apply(plan, got, in, NULL), NB_OK);
    assert_int_equal(nb_ref_baseconv(want, in, n, from, n_from, to, n_to), NB_OK);
    expect_equal("baseconv", want, got, n_to, n);

    /* the value property, when B is large enough to hold conv_C(x) exactly */
    mpz_t C, B, bound, x, y, e;
    mpz_inits(C, B, bound, x, y, e, NULL);
    nb_ref_basis_product(C, from, n_from);
    nb_ref_basis_product(B, to, n_to);
    mpz_mul_ui(bound, C, n_from);
    if (mpz_cmp(B, bound) > 0) {
        for (size_t i = 0; i < n; i++) {
            nb_ref_crt_compose(x, in + i, n, from, n_from);
            nb_ref_crt_compose(y, got + i, n, to, n_to);
            mpz_sub(e, y, x); /* must be e*C, 0 <= e < n_from */
            if (!mpz_divisible_p(e, C))
                nb_test_fail("conv value - x not a multiple of C at index %zu", i);
            mpz_divexact(e, e, C);
            if (mpz_sgn(e) < 0 || mpz_cmp_ui(e, n_from) >= 0)
                nb_test_fail("conv value = x + e*C with e=%ld outside [0, %zu) at index %zu",
                             mpz_get_si(e), n_from, i);
        }
    }
    mpz_clears(C, B, bound, x, y, e, NULL);
    nb_baseconv_plan_destroy(plan);
    free(in);
    free(got);
    free(want);
}

static void test_baseconv_matches_reference_and_error_below_k_times_c(void **state)
{
    (void)state;
    check_baseconv(6, 50, 3, 60, 4);   /* B holds 3*C: property checked */
    check_baseconv(8, 60, 6, 61, 8);
    check_baseconv(5, 61, 12, 40, 5);  /* value too big for B: bit-exactness only */
    check_baseconv(4, 62, 1, 62, 3);   /* single source prime, 62-bit primes */
    check_baseconv(4, 62, 100, 62, 20); /* 100 62-bit terms: sums need partial reductions */
}

static void test_baseconv_rejects_bad_bases(void **state)
{
    (void)state;
    nb_baseconv_plan *plan = (nb_baseconv_plan *)0x1;
    const uint64_t good[2] = {65537, 12289}, dup[2] = {65537, 65537}, comp[1] = {65535};
    assert_int_equal(nb_baseconv_plan_create(&plan, NB_BACKEND_CPU, 4, dup, 2, good, 2, NULL),
                     NB_ERR_INVALID_ARG);
    assert_null(plan);
    assert_int_equal(nb_baseconv_plan_create(&plan, NB_BACKEND_CPU, 4, good, 2, comp, 1, NULL),
                     NB_ERR_INVALID_ARG);
    assert_int_equal(nb_baseconv_plan_create(&plan, NB_BACKEND_CPU, 4, good, 0, good, 2, NULL),
                     NB_ERR_INVALID_ARG);
    assert_int_equal(nb_baseconv_plan_create(&plan, NB_BACKEND_CPU, 30, good, 2, good, 2, NULL),
                     NB_ERR_INVALID_ARG);
    assert_int_equal(nb_baseconv_apply(NULL, NULL, NULL, NULL), NB_ERR_INVALID_ARG);
}

/* ---- modUp ---- */

static void check_modup(const char *preset)
{
    fixture f = make(preset, NULL);
    const nb_ckks_params *p = f.p;
    const size_t n = p->n;
    size_t lv[3], nl = pick_levels(p, lv, 0);
    for (size_t li = 0; li < nl; li++) {
        const size_t l = lv[li], E = l + 1 + p->alpha;
        uint64_t basis[300];
        nb_ckks_basis_ext(p, l, basis);
        uint64_t *in = alloc_poison((l + 1) * n);
        nb_test_fill_residues(in, n, p->q, l + 1);
        uint64_t *in_copy = dup_words(in, (l + 1) * n);
        uint64_t *in_coeff = dup_words(in, (l + 1) * n);
        ref_transform(in_coeff, p->q, l + 1, p->log_n, 1);
        const size_t D = nb_ckks_digits(p, l);
        uint64_t *all = alloc_poison(D * E * n);
        if (nb_ckks_modup_all(f.c, l, all, in, NULL, NULL) != NB_OK)
            nb_test_fail("modUp (all digits): %s", nb_last_error());
        expect_equal("modUp of all digits leaves its input unchanged", in_copy, in, l + 1, n);
        for (size_t j = 0; j < D; j++) {
            uint64_t *got = alloc_poison(E * n), *want = alloc_poison(E * n);
            if (nb_ckks_modup(f.c, l, j, got, in, NULL, NULL) != NB_OK)
                nb_test_fail("modUp: %s", nb_last_error());
            expect_equal("modUp leaves its input unchanged", in_copy, in, l + 1, n);
            expect_equal("modUp of all digits = modUp of each digit", got, all + j * E * n, E,
                         n);
            ref_transform(got, basis, E, p->log_n, 1);
            size_t first, count;
            nb_ckks_digit_range(p, l, j, &first, &count);
            assert_int_equal(nb_ref_modup(want, in_coeff, n, basis, E, first, count), NB_OK);
            expect_equal(preset, want, got, E, n);
            free(got);
            free(want);
        }
        free(all);
        free(in);
        free(in_copy);
        free(in_coeff);
    }
    drop(&f);
}

static void test_modup_matches_reference(void **state)
{
    (void)state;
    check_modup("test-tiny");
    check_modup("test-small");
    check_modup("test-medium");
}

/* ---- modDown ---- */

static void check_moddown(const char *preset)
{
    fixture f = make(preset, NULL);
    const nb_ckks_params *p = f.p;
    const size_t n = p->n;
    size_t lv[3], nl = pick_levels(p, lv, 0);
    for (size_t li = 0; li < nl; li++) {
        const size_t l = lv[li], E = l + 1 + p->alpha;
        uint64_t basis[300];
        nb_ckks_basis_ext(p, l, basis);
        uint64_t *in = alloc_poison(E * n), *got = alloc_poison((l + 1) * n),
                 *want = alloc_poison((l + 1) * n), *floor_ = alloc_poison((l + 1) * n);
        nb_test_fill_residues(in, n, basis, E);
        uint64_t *in_copy = dup_words(in, E * n);
        if (nb_ckks_moddown(f.c, l, got, in, NULL, NULL) != NB_OK)
            nb_test_fail("modDown: %s", nb_last_error());
        expect_equal("modDown leaves its input unchanged", in_copy, in, E, n);
        ref_transform(got, p->q, l + 1, p->log_n, 1);
        ref_transform(in, basis, E, p->log_n, 1);
        assert_int_equal(nb_ref_moddown(want, in, n, p->q, l + 1, p->p, p->alpha), NB_OK);
        expect_equal(preset, want, got, l + 1, n);

        /* bound: floor(x/P) - out = e mod Q_l with 0 <= e < alpha */
        assert_int_equal(nb_ref_div_floor(floor_, in, n, p->q, l + 1, p->p, p->alpha), NB_OK);
        mpz_t a, b, Q;
        mpz_inits(a, b, Q, NULL);
        nb_ref_basis_product(Q, p->q, l + 1);
        for (size_t i = 0; i < n; i++) {
            nb_ref_crt_compose(a, floor_ + i, n, p->q, l + 1);
            nb_ref_crt_compose(b, got + i, n, p->q, l + 1);
            mpz_sub(a, a, b);
            mpz_mod(a, a, Q);
            if (mpz_cmp_ui(a, p->alpha) >= 0)
                nb_test_fail("%s level %zu index %zu: floor(x/P) - modDown outside [0, %zu)",
                             preset, l, i, p->alpha);
        }
        mpz_clears(a, b, Q, NULL);
        free(in);
        free(in_copy);
        free(got);
        free(want);
        free(floor_);
    }
    drop(&f);
}

static void test_moddown_matches_reference_and_floor_bound(void **state)
{
    (void)state;
    check_moddown("test-tiny");
    check_moddown("test-small");
    check_moddown("test-medium");
}

/* ---- rescale ---- */

static void check_rescale(const char *preset, nb_ckks_rounding mode)
{
    fixture f = make(preset, NULL);
    const nb_ckks_params *p = f.p;
    const size_t n = p->n;
    size_t lv[3], nl = pick_levels(p, lv, 1);
    for (size_t li = 0; li < nl; li++) {
        const size_t l = lv[li];
        uint64_t *in = alloc_poison((l + 1) * n), *got = alloc_poison(l * n),
                 *want = alloc_poison(l * n);
        nb_test_fill_residues(in, n, p->q, l + 1);
        uint64_t *in_copy = dup_words(in, (l + 1) * n);
        if (nb_ckks_rescale(f.c, l, mode, got, in, NULL, NULL) != NB_OK)
            nb_test_fail("rescale: %s", nb_last_error());
        expect_equal("rescale leaves its input unchanged", in_copy, in, l + 1, n);
        ref_transform(got, p->q, l, p->log_n, 1);
        ref_transform(in, p->q, l + 1, p->log_n, 1);
        assert_int_equal(nb_ref_rescale(want, in, n, p->q, l + 1, mode == NB_CKKS_RESCALE_ROUND),
                         NB_OK);
        expect_equal(preset, want, got, l, n);
        free(in);
        free(in_copy);
        free(got);
        free(want);
    }
    drop(&f);
}

static void test_rescale_floor_is_exact(void **state)
{
    (void)state;
    check_rescale("test-tiny", NB_CKKS_RESCALE_FLOOR);
    check_rescale("test-small", NB_CKKS_RESCALE_FLOOR);
    check_rescale("test-medium", NB_CKKS_RESCALE_FLOOR);
}

static void test_rescale_round_is_exact(void **state)
{
    (void)state;
    check_rescale("test-tiny", NB_CKKS_RESCALE_ROUND);
    check_rescale("test-small", NB_CKKS_RESCALE_ROUND);
    check_rescale("test-medium", NB_CKKS_RESCALE_ROUND);
}

/* Rescale of coefficient-form edge values: x = k*q_l + r for r at the rounding
 * boundary, so floor and round differ by exactly one. */
static void test_rescale_rounding_edges(void **state)
{
    (void)state;
    fixture f = make("test-tiny", NULL);
    const nb_ckks_params *p = f.p;
    const size_t n = p->n, l = p->max_level;
    uint64_t *coeff = alloc_poison((l + 1) * n);
    mpz_t x, ql, Q;
    mpz_inits(x, ql, Q, NULL);
    mpz_set_ui(ql, p->q[l]);
    nb_ref_basis_product(Q, p->q, l + 1);
    for (size_t i = 0; i < n; i++) {
        /* x = (random k) * q_l + r, r in {h-1, h, h+1, 0, q_l-1} (h = floor(q_l/2)) */
        const uint64_t h = p->q[l] / 2;
        const uint64_t rs[5] = {h - 1, h, h + 1, 0, p->q[l] - 1};
        mpz_set_ui(x, nb_test_rand());
        mpz_mul(x, x, ql);
        mpz_add_ui(x, x, rs[i % 5]);
        mpz_mod(x, x, Q);
        nb_ref_crt_decompose(coeff + i, n, x, p->q, l + 1);
    }
    uint64_t *in = dup_words(coeff, (l + 1) * n);
    ref_transform(in, p->q, l + 1, p->log_n, 0);
    for (int mode = 0; mode < 2; mode++) {
        uint64_t *got = alloc_poison(l * n), *want = alloc_poison(l * n);
        assert_int_equal(nb_ckks_rescale(f.c, l, (nb_ckks_rounding)mode, got, in, NULL, NULL),
                         NB_OK);
        ref_transform(got, p->q, l, p->log_n, 1);
        assert_int_equal(nb_ref_rescale(want, coeff, n, p->q, l + 1, mode), NB_OK);
        expect_equal(mode ? "rescale round edges" : "rescale floor edges", want, got, l, n);
        free(got);
        free(want);
    }
    mpz_clears(x, ql, Q, NULL);
    free(coeff);
    free(in);
    drop(&f);
}

/* ---- argument errors ---- */

static void test_pipelines_reject_bad_arguments(void **state)
{
    (void)state;
    fixture f = make("test-tiny", NULL);
    const nb_ckks_params *p = f.p;
    const size_t words = (p->q_count + p->alpha) * p->n;
    uint64_t *a = alloc_poison(words), *b = alloc_poison(words), *c2 = alloc_poison(words);
    uint64_t *key = random_key(p);
    const size_t L = p->max_level;
    assert_int_equal(nb_ckks_modup(f.c, L + 1, 0, a, b, NULL, NULL), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ckks_modup(f.c, L, 9, a, b, NULL, NULL), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ckks_modup(f.c, L, 0, NULL, b, NULL, NULL), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ckks_moddown(f.c, L + 1, a, b, NULL, NULL), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ckks_moddown(f.c, L, a, a, NULL, NULL), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ckks_rescale(f.c, 0, NB_CKKS_RESCALE_FLOOR, a, b, NULL, NULL),
                     NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ckks_rescale(f.c, L, (nb_ckks_rounding)7, a, b, NULL, NULL),
                     NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ckks_keyswitch(f.c, L, a, a, b, key, NULL, NULL), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ckks_keyswitch(f.c, L, a, c2, b, NULL, NULL, NULL), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ckks_keyswitch(NULL, L, a, c2, b, key, NULL, NULL), NB_ERR_INVALID_ARG);
    assert_true(strlen(nb_last_error()) > 0);
    /* outputs that overlap an input or each other without being equal
     * pointers (they returned NB_OK with a wrong result) */
    assert_int_equal(nb_ckks_moddown(f.c, L, a + p->n, a, NULL, NULL), NB_ERR_INVALID_ARG);
    assert_non_null(strstr(nb_last_error(), "overlaps"));
    assert_int_equal(nb_ckks_modup(f.c, L, 0, a, a + L * p->n, NULL, NULL), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ckks_rescale(f.c, L, NB_CKKS_RESCALE_FLOOR, a + 1, a, NULL, NULL),
                     NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ckks_keyswitch(f.c, L, a, a + p->n, b, key, NULL, NULL),
                     NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ckks_inner_product(f.c, L, a, a, b, key, NULL, NULL), NB_ERR_INVALID_ARG);
    nb_ckks *c = (nb_ckks *)0x1;
    assert_int_equal(nb_ckks_create(&c, p, NULL, NULL), NB_ERR_INVALID_ARG);
    assert_null(c);
    nb_ckks_destroy(NULL);
    free(a);
    free(b);
    free(c2);
    free(key);
    drop(&f);
}

/* The hook sees every step in order with the NTT counts of nb_ckks_ntt_counts. */
typedef struct {
    size_t fwd, inv, steps;
    char names[64][16];
} hook_log;

static nb_status log_step(void *user, const char *step, int is_ntt, size_t limbs, int inverse)
{
    hook_log *h = user;
    if (h->steps < 64)
        snprintf(h->names[h->steps], sizeof h->names[0], "%s", step);
    h->steps++;
    if (is_ntt) {
        if (inverse)
            h->inv += limbs;
        else
            h->fwd += limbs;
    }
    return NB_OK;
}

static nb_status failing_step(void *user, const char *step, int is_ntt, size_t limbs,
                              int inverse)
{
    (void)user, (void)step, (void)is_ntt, (void)limbs, (void)inverse;
    return nb_set_error(NB_ERR_TIMEOUT, "hook failure");
}

static void test_hook_counts_match_ntt_counts(void **state)
{
    (void)state;
    fixture f = make("test-small", NULL);
    const nb_ckks_params *p = f.p;
    const size_t n = p->n, L = p->max_level, E = L + 1 + p->alpha;
    uint64_t *in = alloc_poison(E * n), *o0 = alloc_poison(E * n), *o1 = alloc_poison(E * n);
    nb_test_fill_residues(in, n, p->primes, E);
    uint64_t *key = random_key(p);
    hook_log h = {0};
    nb_ckks_hook hook = {log_step, &h};
    assert_int_equal(nb_ckks_keyswitch(f.c, L, o0, o1, in, key, &hook, NULL), NB_OK);
    size_t fw, iv;
    nb_ckks_ntt_counts(p, NB_CKKS_STAGE_KEYSWITCH, L, &fw, &iv);
    assert_int_equal(h.fwd, fw);
    assert_int_equal(h.inv, iv);
    /* at the top level every digit's conversion comes before one NTT call */
    const size_t digits = nb_ckks_digits(p, L);
    assert_true(digits > 1);
    assert_string_equal(h.names[0], "copy");
    assert_string_equal(h.names[1], "intt");
    for (size_t j = 0; j < digits; j++)
        assert_string_equal(h.names[2 + j], "conv");
    assert_string_equal(h.names[2 + digits], "ntt");
    assert_string_equal(h.names[3 + digits], "inner-product");
    memset(&h, 0, sizeof h);
    assert_int_equal(nb_ckks_rescale(f.c, L, NB_CKKS_RESCALE_FLOOR, o0, in, &hook, NULL), NB_OK);
    nb_ckks_ntt_counts(p, NB_CKKS_STAGE_RESCALE, L, &fw, &iv);
    assert_int_equal(h.fwd, fw);
    assert_int_equal(h.inv, iv);
    assert_string_equal(h.names[h.steps - 1], "scalar");
    memset(&h, 0, sizeof h);
    assert_int_equal(nb_ckks_moddown(f.c, L, o0, in, &hook, NULL), NB_OK);
    nb_ckks_ntt_counts(p, NB_CKKS_STAGE_MODDOWN, L, &fw, &iv);
    assert_int_equal(h.fwd, fw);
    assert_int_equal(h.inv, iv);
    nb_ckks_hook bad = {failing_step, NULL};
    assert_int_equal(nb_ckks_moddown(f.c, L, o0, in, &bad, NULL), NB_ERR_TIMEOUT);
    free(in);
    free(o0);
    free(o1);
    free(key);
    drop(&f);
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_baseconv_matches_reference_and_error_below_k_times_c),
        cmocka_unit_test(test_baseconv_rejects_bad_bases),
        cmocka_unit_test(test_modup_matches_reference),
        cmocka_unit_test(test_moddown_matches_reference_and_floor_bound),
        cmocka_unit_test(test_rescale_floor_is_exact),
        cmocka_unit_test(test_rescale_round_is_exact),
        cmocka_unit_test(test_rescale_rounding_edges),
        cmocka_unit_test(test_pipelines_reject_bad_arguments),
        cmocka_unit_test(test_hook_counts_match_ntt_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The CPU key switch against the GMP reference (reference/ckks_ref.h): the
 * inner product against residue products summed with GMP, and the whole key
 * switch bit-exact against nb_ref_keyswitch at several levels, digit counts
 * and prime sizes. Fresh random inputs each run (seed printed), outputs
 * poisoned first. */
#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "ckks/ckks.h"
#include "reference/ckks_ref.h"
#include "ckksutil.h"

/* The key's level-l polys (limbs q_0..q_l and P) in coefficient form, in the
 * reference's layout. */
static uint64_t *key_at_level(const nb_ckks_params *p, const uint64_t *key, size_t l)
{
    const size_t n = p->n, per = p->q_count + p->alpha, E = l + 1 + p->alpha;
    const size_t digits = nb_ckks_digits(p, l);
    uint64_t basis[300];
    nb_ckks_basis_ext(p, l, basis);
    uint64_t *out = alloc_poison(2 * digits * E * n);
    for (size_t poly = 0; poly < 2 * digits; poly++) {
        const uint64_t *src = key + poly * per * n;
        uint64_t *dst = out + poly * E * n;
        memcpy(dst, src, (l + 1) * n * sizeof *dst);
        memcpy(dst + (l + 1) * n, src + p->q_count * n, p->alpha * n * sizeof *dst);
        ref_transform(dst, basis, E, p->log_n, 1);
    }
    return out;
}

static void test_inner_product_matches_residue_products(void **state)
{
    (void)state;
    fixture f = make("test-small", NULL);
    const nb_ckks_params *p = f.p;
    const size_t n = p->n, per = p->q_count + p->alpha;
    size_t lv[3], nl = pick_levels(p, lv, 0);
    uint64_t *key = random_key(p);
    for (size_t li = 0; li < nl; li++) {
        const size_t l = lv[li], E = l + 1 + p->alpha, D = nb_ckks_digits(p, l);
        uint64_t basis[300];
        nb_ckks_basis_ext(p, l, basis);
        uint64_t *ext = alloc_poison(D * E * n);
        for (size_t j = 0; j < D; j++)
            nb_test_fill_residues(ext + j * E * n, n, basis, E);
        uint64_t *a0 = alloc_poison(E * n), *a1 = alloc_poison(E * n);
        assert_int_equal(nb_ckks_inner_product(f.c, l, a0, a1, ext, key, NULL, NULL), NB_OK);
        for (size_t m = 0; m < E; m++) {
            const size_t pm = m <= l ? m : p->q_count + (m - l - 1);
            const uint64_t q = basis[m];
            for (size_t i = 0; i < n; i++) {
                mpz_t s0, s1;
                mpz_inits(s0, s1, NULL);
                for (size_t j = 0; j < D; j++) {
                    const uint64_t x = ext[(j * E + m) * n + i];
                    mpz_t t;
                    mpz_init_set_ui(t, x);
                    mpz_addmul_ui(s0, t, key[((2 * j) * per + pm) * n + i]);
                    mpz_addmul_ui(s1, t, key[((2 * j + 1) * per + pm) * n + i]);
                    mpz_clear(t);
                }
                if (mpz_fdiv_ui(s0, q) != a0[m * n + i] || mpz_fdiv_ui(s1, q) != a1[m * n + i])
                    nb_test_fail("inner product level %zu limb %zu index %zu", l, m, i);
                mpz_clears(s0, s1, NULL);
            }
        }
        free(ext);
        free(a0);
        free(a1);
    }
    free(key);
    drop(&f);
}

static void check_keyswitch(const char *preset, const nb_ckks_spec *spec)
{
    fixture f = make(preset, spec);
    const nb_ckks_params *p = f.p;
    const size_t n = p->n;
    uint64_t *key = random_key(p);
    /* the top level (one NTT call for every digit) and below it (a digit
     * between others: its targets below and above it in separate calls) */
    size_t lv[4], nl = pick_levels(p, lv, 0);
    if (p->max_level > 1)
        lv[nl++] = p->max_level - 1;
    for (size_t li = 0; li < nl; li++) {
        const size_t l = lv[li];
        uint64_t *in = alloc_poison((l + 1) * n);
        nb_test_fill_residues(in, n, p->q, l + 1);
        uint64_t *in_copy = dup_words(in, (l + 1) * n);
        uint64_t *o0 = alloc_poison((l + 1) * n), *o1 = alloc_poison((l + 1) * n);
        uint64_t *w0 = alloc_poison((l + 1) * n), *w1 = alloc_poison((l + 1) * n);
        if (nb_ckks_keyswitch(f.c, l, o0, o1, in, key, NULL, NULL) != NB_OK)
            nb_test_fail("key switch: %s", nb_last_error());
        expect_equal("key switch leaves its input unchanged", in_copy, in, l + 1, n);
        ref_transform(o0, p->q, l + 1, p->log_n, 1);
        ref_transform(o1, p->q, l + 1, p->log_n, 1);
        ref_transform(in, p->q, l + 1, p->log_n, 1);
        uint64_t *kl = key_at_level(p, key, l);
        assert_int_equal(nb_ref_keyswitch(w0, w1, in, kl, p->log_n, p->q, l + 1, p->p, p->alpha,
                                          p->alpha),
                         NB_OK);
        expect_equal("key switch out0", w0, o0, l + 1, n);
        expect_equal("key switch out1", w1, o1, l + 1, n);
        free(kl);
        free(in);
        free(in_copy);
        free(o0);
        free(o1);
        free(w0);
        free(w1);
    }
    free(key);
    drop(&f);
}

static void test_keyswitch_matches_bigint_reference(void **state)
{
    (void)state;
    check_keyswitch("test-tiny", NULL);
    const nb_ckks_spec s1 = {5, 8, 3, 60, 50, 60, 64, 1, 1};  /* alpha 3, 3 digits */
    const nb_ckks_spec s2 = {6, 4, 1, 61, 45, 62, 64, 1, 1};  /* dnum 1: one digit, alpha = L+1 */
    const nb_ckks_spec s3 = {5, 11, 4, 62, 62, 62, 64, 1, 1}; /* 62-bit primes everywhere */
    const nb_ckks_spec s4 = {5, 8, 9, 60, 50, 60, 64, 1, 1};  /* alpha 1, 9 digits: one NTT call
                                                       per digit at the top level too */
    check_keyswitch(NULL, &s1);
    check_keyswitch(NULL, &s2);
    check_keyswitch(NULL, &s3);
    check_keyswitch(NULL, &s4);
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inner_product_matches_residue_products),
        cmocka_unit_test(test_keyswitch_matches_bigint_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

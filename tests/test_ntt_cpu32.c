/* Every registered 32-bit CPU NTT variant, bit-exact against the GMP
 * reference: forward and inverse for log N = 1..17 (within the variant's
 * range), batches mixing primes of 31 bits (the _q31 butterflies), 30 bits
 * and smaller (the Harvey ones), fresh random inputs, poisoned outputs
 * beyond the transformed range, and inverse(forward(a)) = a. */
#include <string.h>

#include "ntt/arith.h"
#include "reference/reference.h"
#include "testutil.h"

/* limbs distinct NTT primes for log_n: sizes cycle through 31, 30, 29 and
 * 20 bits (the largest not yet taken, a bit smaller when none is left). */
static void make_primes(uint64_t *q, size_t limbs, unsigned log_n)
{
    static const unsigned sizes[] = {31, 30, 29, 20};
    for (size_t l = 0; l < limbs; l++) {
        unsigned b = sizes[l % 4];
        while (nb_primes_generate(log_n, b, 1, q, l, &q[l]) != NB_OK) {
            b--;
            assert_true(b >= log_n + 2);
        }
    }
}

/* One batch: forward of limbs [1, L) of an L-limb plan, checked limb by limb
 * against the reference on the widened words; limb 0's words (outside the
 * call) must stay untouched; then the inverse gives the input back. */
static void check_variant(const nb_ntt_variant *v, unsigned log_n, size_t limbs)
{
    const size_t n = (size_t)1 << log_n;
    static uint64_t wide[8 << 17]; /* 8 MiB: not on the stack */
    uint64_t q[8];
    assert_true(limbs <= 8);
    make_primes(q, limbs, log_n);
    nb_ntt *ntt;
    EXPECT_STATUS(nb_ntt_create(&ntt, v, log_n, q, NULL, limbs, NULL), NB_OK);
    assert_int_equal(nb_ntt_word_bits(ntt), 32);
    const nb_ntt_tables *t = nb_ntt_get_tables(ntt);
    uint32_t *a = malloc(limbs * n * sizeof *a), *in = malloc(limbs * n * sizeof *in);
    assert_non_null(a);
    assert_non_null(in);
    nb_test_fill_residues(wide, n, q, limbs);
    for (size_t i = 0; i < limbs * n; i++)
        in[i] = a[i] = (uint32_t)wide[i];
    for (size_t i = 0; i < n; i++)
        a[i] = (uint32_t)NB_TEST_POISON; /* limb 0 is not transformed */
    EXPECT_STATUS(nb_ntt_forward(ntt, a + n, 1, limbs - 1, NULL), NB_OK);
    for (size_t i = 0; i < n; i++)
        if (a[i] != (uint32_t)NB_TEST_POISON)
            nb_test_fail("%s: forward wrote limb 0 (outside the call) at %zu", v->name, i);
    for (size_t l = 1; l < limbs; l++) {
        assert_int_equal(nb_ref_ntt_forward(wide + l * n, log_n, q[l], t->psi[l]), NB_OK);
        for (size_t i = 0; i < n; i++)
            if (a[l * n + i] != wide[l * n + i])
                nb_test_fail("%s forward logn=%u q=%" PRIu64 " limb %zu index %zu: got %" PRIu32
                             ", want %" PRIu64,
                             v->name, log_n, q[l], l, i, a[l * n + i], wide[l * n + i]);
    }
    EXPECT_STATUS(nb_ntt_inverse(ntt, a + n, 1, limbs - 1, NULL), NB_OK);
    for (size_t l = 1; l < limbs; l++) {
        assert_int_equal(nb_ref_ntt_inverse(wide + l * n, log_n, q[l], t->psi[l]), NB_OK);
        for (size_t i = 0; i < n; i++)
            if (a[l * n + i] != in[l * n + i] || wide[l * n + i] != in[l * n + i])
                nb_test_fail("%s inverse logn=%u q=%" PRIu64 " limb %zu index %zu: got %" PRIu32
                             ", want %" PRIu32,
                             v->name, log_n, q[l], l, i, a[l * n + i], in[l * n + i]);
    }
    free(a);
    free(in);
    nb_ntt_destroy(ntt);
}

static void test_32_bit_cpu_variants_equal_the_reference_at_every_size(void **state)
{
    (void)state;
    size_t tested = 0;
    for (size_t i = 0; i < nb_ntt_variant_count(); i++) {
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        if (v->backend != NB_BACKEND_CPU || v->word_bits != 32)
            continue;
        tested++;
        for (unsigned log_n = v->min_log_n; log_n <= v->max_log_n; log_n++)
            check_variant(v, log_n, log_n <= 12 ? 5 : 2);
    }
    assert_true(tested >= 1);
}

static void test_32_bit_plan_refuses_a_prime_of_32_bits_or_more(void **state)
{
    (void)state;
    const nb_ntt_variant *v = nb_ntt_variant_find("cpu-harvey32");
    assert_non_null(v);
    uint64_t q[1];
    assert_int_equal(nb_primes_generate(10, 33, 1, NULL, 0, q), NB_OK);
    nb_ntt *ntt;
    EXPECT_STATUS(nb_ntt_create(&ntt, v, 10, q, NULL, 1, NULL), NB_ERR_UNSUPPORTED);
    assert_null(ntt);
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_32_bit_cpu_variants_equal_the_reference_at_every_size),
        cmocka_unit_test(test_32_bit_plan_refuses_a_prime_of_32_bits_or_more),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

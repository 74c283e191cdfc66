/* Every registered 32-bit CPU NTT variant, bit-exact against the GMP
 * reference on widened copies of its words: cpu-harvey32 (the AVX2 passes on
 * a CPU that has AVX2) and cpu-harvey32-scalar (the scalar passes), so both
 * code paths run on one machine. Forward and inverse for log N = 1..17,
 * batches mixing primes of 31 bits (the _q31 butterflies), 30 bits and
 * smaller (the Harvey ones), minimal and random user-chosen roots; the
 * largest primes below 2^31 and 2^30 with extreme inputs; sub-range calls
 * with poisoned words around the transformed limbs; inverse(forward(a)) = a;
 * the NTT-based negacyclic product against the schoolbook one. Inputs are
 * fresh random residues (never all zeros) from the printed seed. */
#include <string.h>

#include "ntt/arith.h"
#include "ntt/cpu_harvey32.h"
#include "reference/reference.h"
#include "gmputil.h"
#include "testutil.h"

#define GUARD 16 /* poisoned words before and after every buffer */
#define POISON32 ((uint32_t)NB_TEST_POISON)

/* A random primitive 2N-th root of unity mod q (usually not the minimal). */
static uint64_t random_root(uint64_t q, unsigned log_n)
{
    const uint64_t n = 1ull << log_n;
    for (;;) {
        const uint64_t r = gmp_powmod(2 + nb_test_rand_below(q - 2), (q - 1) / (2 * n), q);
        if (gmp_powmod(r, n, q) == q - 1)
            return r;
    }
}

/* limbs distinct NTT primes for log_n: sizes cycle through 31, 30, 20 and 29
 * bits (the largest not yet taken, a bit smaller when none is left), so the
 * first two are the largest primes below 2^31 and 2^30. */
static void make_primes(uint64_t *q, size_t limbs, unsigned log_n)
{
    static const unsigned sizes[] = {31, 30, 20, 29};
    for (size_t l = 0; l < limbs; l++) {
        unsigned b = sizes[l % 4];
        while (nb_primes_generate(log_n, b, 1, q, l, &q[l]) != NB_OK) {
            b--;
            assert_true(b >= log_n + 2);
        }
    }
}

typedef struct {
    const nb_ntt_variant *v;
    nb_ntt *ntt;
    size_t limbs, n;
    unsigned log_n;
    const uint64_t *q, *psi; /* from the plan's tables */
    uint32_t *buf;           /* GUARD + limbs * n + GUARD words */
    uint64_t *wide;          /* limbs * n: the reference's copy */
} setup;

/* A plan over `limbs` primes (given, or make_primes' when q is NULL) with
 * random roots when user_psis, and buffers for one batch. */
static setup make_setup(const nb_ntt_variant *v, unsigned log_n, size_t limbs,
                        const uint64_t *given_q, int user_psis)
{
    uint64_t q[8], psi[8];
    assert_true(limbs <= 8);
    if (given_q)
        memcpy(q, given_q, limbs * sizeof *q);
    else
        make_primes(q, limbs, log_n);
    for (size_t l = 0; l < limbs; l++)
        psi[l] = random_root(q[l], log_n);
    setup s = {v, NULL, limbs, (size_t)1 << log_n, log_n, NULL, NULL, NULL, NULL};
    const nb_status st = nb_ntt_create(&s.ntt, v, log_n, q, user_psis ? psi : NULL, limbs, NULL);
    if (st != NB_OK)
        nb_test_fail("%s: nb_ntt_create(log_n=%u, L=%zu): %s: %s", v->name, log_n, limbs,
                     nb_status_str(st), nb_last_error());
    assert_int_equal(nb_ntt_word_bits(s.ntt), 32);
    const nb_ntt_tables *t = nb_ntt_get_tables(s.ntt);
    s.q = t->q;
    s.psi = t->psi;
    for (size_t l = 0; l < limbs; l++)
        if (user_psis)
            assert_int_equal(t->psi[l], psi[l]);
    s.buf = malloc((2 * GUARD + limbs * s.n) * sizeof *s.buf);
    s.wide = malloc(limbs * s.n * sizeof *s.wide);
    assert_non_null(s.buf);
    assert_non_null(s.wide);
    return s;
}

static void free_setup(setup *s)
{
    free(s->buf);
    free(s->wide);
    nb_ntt_destroy(s->ntt);
}

static uint32_t *limb(const setup *s, size_t l) { return s->buf + GUARD + l * s->n; }

/* Poisons the whole buffer, then copies s->wide's limbs [first, first + count)
 * in (they must be residues below 2^32). */
static void load_range(const setup *s, size_t first, size_t count)
{
    for (size_t i = 0; i < 2 * GUARD + s->limbs * s->n; i++)
        s->buf[i] = POISON32;
    for (size_t i = first * s->n; i < (first + count) * s->n; i++)
        s->buf[GUARD + i] = (uint32_t)s->wide[i];
}

/* Every word outside limbs [first, first + count) must still be poison; every
 * one inside must equal s->wide (and so be below q). */
static void expect_range(const setup *s, const char *what, size_t first, size_t count)
{
    for (size_t i = 0; i < 2 * GUARD + s->limbs * s->n; i++) {
        const size_t w = i - GUARD; /* wraps for the leading guard: outside */
        if (i >= GUARD && w >= first * s->n && w < (first + count) * s->n)
            continue;
        if (s->buf[i] != POISON32)
            nb_test_fail("%s %s: log_n=%u, limbs [%zu, %zu): word %td (guard %d) was written",
                         s->v->name, what, s->log_n, first, first + count,
                         (ptrdiff_t)i - GUARD, GUARD);
    }
    for (size_t l = first; l < first + count; l++)
        for (size_t i = 0; i < s->n; i++) {
            const uint32_t got = limb(s, l)[i];
            const uint64_t want = s->wide[l * s->n + i];
            if (got != want || got >= s->q[l])
                nb_test_fail("%s %s: log_n=%u limb %zu (q=%" PRIu64 ", psi=%" PRIu64
                             ") index %zu: got %" PRIu32 ", want %" PRIu64,
                             s->v->name, what, s->log_n, l, s->q[l], s->psi[l], i, got, want);
        }
}

/* The reference transform of s->wide's limbs [first, first + count). */
static void reference(const setup *s, int inverse, size_t first, size_t count)
{
    for (size_t l = first; l < first + count; l++) {
        uint64_t *a = s->wide + l * s->n;
        const nb_status st = inverse ? nb_ref_ntt_inverse(a, s->log_n, s->q[l], s->psi[l])
                                     : nb_ref_ntt_forward(a, s->log_n, s->q[l], s->psi[l]);
        assert_int_equal(st, NB_OK);
    }
}

/* The variant's transform of limbs [first, first + count) in place. */
static void transform(const setup *s, int inverse, size_t first, size_t count)
{
    uint32_t *a = limb(s, first);
    EXPECT_STATUS(inverse ? nb_ntt_inverse(s->ntt, a, first, count, NULL)
                          : nb_ntt_forward(s->ntt, a, first, count, NULL),
                  NB_OK);
}

/* One direction on random residues over limbs [first, first + count) of the
 * plan, against the reference. */
static void check_direction(const setup *s, int inverse, size_t first, size_t count)
{
    nb_test_fill_residues(s->wide, s->n, s->q, s->limbs);
    load_range(s, first, count);
    transform(s, inverse, first, count);
    reference(s, inverse, first, count);
    expect_range(s, inverse ? "inverse" : "forward", first, count);
}

/* The 32-bit CPU variants; fails unless both paths of cpu-harvey32 are there. */
static size_t cpu32_variants(const nb_ntt_variant **out)
{
    size_t k = 0;
    int fast = 0, scalar = 0;
    for (size_t i = 0; i < nb_ntt_variant_count(); i++) {
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        if (v->backend != NB_BACKEND_CPU || v->word_bits != 32)
            continue;
        assert_true(k < 8);
        out[k++] = v;
        fast |= strcmp(v->name, "cpu-harvey32") == 0;
        scalar |= strcmp(v->name, "cpu-harvey32-scalar") == 0;
    }
    assert_true(fast && scalar);
    return k;
}

/* Limbs per batch: more at small sizes, where the reference is cheap. */
static size_t batch_limbs(unsigned log_n) { return log_n <= 12 ? 6 : 3; }

typedef void (*size_check)(const nb_ntt_variant *v, unsigned log_n, int user_psis);

/* Runs `check` for every 32-bit CPU variant and log N = 1..17, with random
 * roots for every other size. */
static void for_all_sizes(size_check check)
{
    const nb_ntt_variant *vs[8];
    const size_t nv = cpu32_variants(vs);
    for (size_t k = 0; k < nv; k++)
        for (unsigned log_n = vs[k]->min_log_n; log_n <= vs[k]->max_log_n; log_n++)
            check(vs[k], log_n, (int)(log_n & 1));
}

static void check_forward(const nb_ntt_variant *v, unsigned log_n, int user_psis)
{
    setup s = make_setup(v, log_n, batch_limbs(log_n), NULL, user_psis);
    check_direction(&s, 0, 0, s.limbs);
    free_setup(&s);
}

static void check_inverse(const nb_ntt_variant *v, unsigned log_n, int user_psis)
{
    setup s = make_setup(v, log_n, batch_limbs(log_n), NULL, !user_psis);
    check_direction(&s, 1, 0, s.limbs);
    free_setup(&s);
}

static void check_roundtrip(const nb_ntt_variant *v, unsigned log_n, int user_psis)
{
    setup s = make_setup(v, log_n, batch_limbs(log_n), NULL, user_psis);
    nb_test_fill_residues(s.wide, s.n, s.q, s.limbs);
    load_range(&s, 0, s.limbs);
    transform(&s, 0, 0, s.limbs);
    transform(&s, 1, 0, s.limbs);
    expect_range(&s, "inverse(forward(a))", 0, s.limbs);
    transform(&s, 1, 0, s.limbs);
    transform(&s, 0, 0, s.limbs);
    expect_range(&s, "forward(inverse(a))", 0, s.limbs);
    free_setup(&s);
}

static void test_cpu_harvey32_picks_avx2_exactly_when_the_cpu_has_it(void **state)
{
    (void)state;
    const nb_ntt_variant *fast = nb_ntt_variant_find("cpu-harvey32");
    const nb_ntt_variant *scalar = nb_ntt_variant_find("cpu-harvey32-scalar");
    assert_non_null(fast);
    assert_non_null(scalar);
    uint64_t q[2];
    make_primes(q, 2, 10);
    nb_ntt_tables *t;
    assert_int_equal(nb_ntt_tables_create(&t, 10, q, NULL, 2), NB_OK);
    int cpu_avx2 = 0;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    cpu_avx2 = __builtin_cpu_supports("avx2") != 0;
#endif
    printf("# CPU has AVX2: %s\n", cpu_avx2 ? "yes" : "no");
    void *plan;
    assert_int_equal(fast->plan_create(&plan, t, NULL), NB_OK);
    assert_string_equal(nb_cpu_harvey32_plan_kernels(plan), cpu_avx2 ? "avx2" : "scalar");
    fast->plan_destroy(plan);
    assert_int_equal(scalar->plan_create(&plan, t, NULL), NB_OK);
    assert_string_equal(nb_cpu_harvey32_plan_kernels(plan), "scalar");
    scalar->plan_destroy(plan);
    nb_ntt_tables_destroy(t);
}

static void test_forward_matches_reference_bit_exact(void **state)
{
    (void)state;
    for_all_sizes(check_forward);
}

static void test_inverse_matches_reference_bit_exact(void **state)
{
    (void)state;
    for_all_sizes(check_inverse);
}

static void test_roundtrip_is_identity(void **state)
{
    (void)state;
    for_all_sizes(check_roundtrip);
}

static void test_extreme_inputs_at_largest_primes_match_reference(void **state)
{
    (void)state;
    /* the two largest primes below 2^31 and the two below 2^30, with inputs
     * at the top of [0, q) that stress the lazy ranges: all q-1, blocks of
     * q-1 and 0, q-1 and 1 alternating, then random */
    const nb_ntt_variant *vs[8];
    const size_t nv = cpu32_variants(vs);
    for (size_t k = 0; k < nv; k++)
        for (unsigned log_n = 1; log_n <= 17; log_n += (log_n < 12 ? 1 : 5)) {
            uint64_t q[4];
            assert_int_equal(nb_primes_generate(log_n, 31, 2, NULL, 0, q), NB_OK);
            assert_int_equal(nb_primes_generate(log_n, 30, 2, NULL, 0, q + 2), NB_OK);
            setup s = make_setup(vs[k], log_n, 4, q, (int)(log_n & 1));
            for (int pattern = 0; pattern < 4; pattern++)
                for (int dir = 0; dir < 2; dir++) {
                    nb_test_fill_residues(s.wide, s.n, s.q, 4);
                    for (size_t l = 0; l < 4 && pattern < 3; l++)
                        for (size_t i = 0; i < s.n; i++) {
                            const uint64_t top = s.q[l] - 1;
                            s.wide[l * s.n + i] = pattern == 0   ? top
                                                  : pattern == 1 ? ((i / 4) & 1 ? 0 : top)
                                                                 : ((i & 1) ? 1 : top);
                        }
                    load_range(&s, 0, 4);
                    transform(&s, dir, 0, 4);
                    reference(&s, dir, 0, 4);
                    expect_range(&s, dir ? "inverse (extreme input)" : "forward (extreme input)",
                                 0, 4);
                }
            free_setup(&s);
        }
}

static void test_sub_range_transforms_only_the_requested_limbs(void **state)
{
    (void)state;
    /* every (first, count) of a 5-limb plan at two sizes; data points at
     * limb `first`, and the limbs around the range are poison that must stay */
    static const unsigned sizes[] = {4, 11};
    const nb_ntt_variant *vs[8];
    const size_t nv = cpu32_variants(vs);
    for (size_t k = 0; k < nv; k++)
        for (size_t z = 0; z < 2; z++) {
            setup s = make_setup(vs[k], sizes[z], 5, NULL, 1);
            for (size_t first = 0; first < 5; first++)
                for (size_t count = 1; first + count <= 5; count++)
                    for (int dir = 0; dir < 2; dir++)
                        check_direction(&s, dir, first, count);
            free_setup(&s);
        }
}

static void test_ntt_product_equals_schoolbook_product(void **state)
{
    (void)state;
    /* forward both factors, multiply pointwise, inverse: a*b mod (X^N + 1) */
    const nb_ntt_variant *vs[8];
    const size_t nv = cpu32_variants(vs);
    for (size_t k = 0; k < nv; k++)
        for (unsigned log_n = 1; log_n <= 9; log_n++) {
            setup s = make_setup(vs[k], log_n, 4, NULL, (int)(log_n & 1));
            const size_t words = 4 * s.n;
            uint64_t *a = malloc(words * sizeof *a), *b = malloc(words * sizeof *b);
            uint32_t *fb = malloc(words * sizeof *fb);
            assert_non_null(a);
            assert_non_null(b);
            assert_non_null(fb);
            nb_test_fill_residues(a, s.n, s.q, 4);
            nb_test_fill_residues(b, s.n, s.q, 4);
            for (size_t i = 0; i < words; i++)
                fb[i] = (uint32_t)b[i];
            EXPECT_STATUS(nb_ntt_forward(s.ntt, fb, 0, 4, NULL), NB_OK);
            memcpy(s.wide, a, words * sizeof *a);
            load_range(&s, 0, 4);
            transform(&s, 0, 0, 4);
            for (size_t l = 0; l < 4; l++)
                for (size_t i = 0; i < s.n; i++)
                    limb(&s, l)[i] =
                        (uint32_t)gmp_mulmod(limb(&s, l)[i], fb[l * s.n + i], s.q[l]);
            transform(&s, 1, 0, 4);
            for (size_t l = 0; l < 4; l++)
                assert_int_equal(nb_ref_negacyclic_mul(s.wide + l * s.n, a + l * s.n,
                                                       b + l * s.n, log_n, s.q[l]),
                                 NB_OK);
            expect_range(&s, "NTT product vs schoolbook", 0, 4);
            free(a), free(b), free(fb);
            free_setup(&s);
        }
}

static void test_32_bit_plan_refuses_a_prime_of_32_bits_or_more(void **state)
{
    (void)state;
    const nb_ntt_variant *vs[8];
    const size_t nv = cpu32_variants(vs);
    uint64_t q[1];
    assert_int_equal(nb_primes_generate(10, 33, 1, NULL, 0, q), NB_OK);
    for (size_t k = 0; k < nv; k++) {
        nb_ntt *ntt;
        EXPECT_STATUS(nb_ntt_create(&ntt, vs[k], 10, q, NULL, 1, NULL), NB_ERR_UNSUPPORTED);
        assert_null(ntt);
    }
}

int main(void)
{
    nb_test_seed_init();
    if (getenv("NB_TEST_FILTER")) /* run only the tests matching this pattern */
        cmocka_set_test_filter(getenv("NB_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_harvey32_picks_avx2_exactly_when_the_cpu_has_it),
        cmocka_unit_test(test_forward_matches_reference_bit_exact),
        cmocka_unit_test(test_inverse_matches_reference_bit_exact),
        cmocka_unit_test(test_roundtrip_is_identity),
        cmocka_unit_test(test_extreme_inputs_at_largest_primes_match_reference),
        cmocka_unit_test(test_sub_range_transforms_only_the_requested_limbs),
        cmocka_unit_test(test_ntt_product_equals_schoolbook_product),
        cmocka_unit_test(test_32_bit_plan_refuses_a_prime_of_32_bits_or_more),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

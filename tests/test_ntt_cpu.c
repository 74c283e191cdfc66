/* Every registered 64-bit CPU NTT variant, bit-exact against the GMP reference:
 * forward and inverse for log N = 1..17 (within the variant's range), batches
 * of L = 1, 3 and 32 limbs with primes of 20 to 62 bits mixed inside a batch,
 * minimal and random user-chosen roots; inverse(forward(a)) = a; the
 * NTT-based negacyclic product against the schoolbook product (dense for
 * N <= 2^11, sparse second factor up to 2^17); extreme inputs at the largest
 * primes; tiny primes (17 .. 786433) with structured inputs; transforms of a
 * sub-range of a plan's limbs. Every limb of every
 * batch is compared with the reference (no sampling). */
#include <gmp.h>
#include <string.h>

#include "ntt/arith.h"
#include "reference/reference.h"
#include "gmputil.h"
#include "testutil.h"

/* A random primitive 2N-th root of unity mod q (usually not the minimal). */
static uint64_t random_root(uint64_t q, unsigned log_n)
{
    const uint64_t n = 1ull << log_n;
    for (;;) {
        uint64_t r = gmp_powmod(2 + nb_test_rand_below(q - 2), (q - 1) / (2 * n), q);
        if (gmp_powmod(r, n, q) == q - 1)
            return r;
    }
}

/* limbs distinct NTT primes for log_n; limb l gets the largest prime of
 * bits[l] bits not already taken (the size grows when none is left). */
static void make_primes(uint64_t *q, const unsigned *bits, size_t limbs, unsigned log_n)
{
    for (size_t l = 0; l < limbs; l++) {
        unsigned b = bits[l];
        while (nb_primes_generate(log_n, b, 1, q, l, &q[l]) != NB_OK) {
            b++;
            assert_true(b <= NB_MAX_PRIME_BITS);
        }
    }
}

/* Sizes for a batch: L=1 alternates 62 and a size from 20 to 61; L=3 is
 * {62, 61, 20}, the extremes; larger L spreads 20..62 evenly. */
static void batch_bits(unsigned *bits, size_t limbs, unsigned log_n)
{
    if (limbs == 1) {
        bits[0] = (log_n & 1) ? 62 : 20 + (log_n * 5) % 42;
    } else if (limbs == 3) {
        bits[0] = 62, bits[1] = 61, bits[2] = 20;
    } else {
        for (size_t l = 0; l < limbs; l++)
            bits[l] = 20 + (unsigned)((l * 42) / (limbs - 1));
    }
}

typedef struct {
    nb_ntt *ntt;
    size_t limbs, n;
    unsigned log_n;
    const uint64_t *q, *psi; /* from the plan's tables */
} setup;

/* Creates an nb_ntt for the variant; user_psis selects random roots. */
static setup make_setup(const nb_ntt_variant *v, unsigned log_n, size_t limbs, int user_psis)
{
    unsigned bits[64];
    uint64_t q[64], psi[64];
    assert_true(limbs <= 64);
    batch_bits(bits, limbs, log_n);
    make_primes(q, bits, limbs, log_n);
    for (size_t l = 0; l < limbs; l++)
        psi[l] = random_root(q[l], log_n);
    setup s = {NULL, limbs, (size_t)1 << log_n, log_n, NULL, NULL};
    nb_status st = nb_ntt_create(&s.ntt, v, log_n, q, user_psis ? psi : NULL, limbs, NULL);
    if (st != NB_OK)
        nb_test_fail("%s: nb_ntt_create(log_n=%u, L=%zu): %s: %s", v->name, log_n, limbs,
                     nb_status_str(st), nb_last_error());
    const nb_ntt_tables *t = nb_ntt_get_tables(s.ntt);
    assert_non_null(t);
    s.q = t->q;
    s.psi = t->psi;
    for (size_t l = 0; l < limbs; l++) {
        assert_int_equal(t->q[l], q[l]);
        if (user_psis)
            assert_int_equal(t->psi[l], psi[l]);
    }
    return s;
}

static uint64_t *alloc_limbs(const setup *s)
{
    uint64_t *p = malloc(s->limbs * s->n * sizeof *p);
    assert_non_null(p);
    return p;
}

/* Compares got against want limb by limb; reports the first difference. */
static void compare(const char *what, const nb_ntt_variant *v, const setup *s,
                    const uint64_t *got, const uint64_t *want)
{
    for (size_t l = 0; l < s->limbs; l++)
        for (size_t i = 0; i < s->n; i++) {
            const uint64_t g = got[l * s->n + i], w = want[l * s->n + i];
            if (g >= s->q[l] || g != w)
                nb_test_fail("%s %s: log_n=%u L=%zu limb %zu (q=%" PRIu64 ", psi=%" PRIu64
                             ") index %zu: got %" PRIu64 ", want %" PRIu64 "%s",
                             v->name, what, s->log_n, s->limbs, l, s->q[l], s->psi[l], i, g, w,
                             g >= s->q[l] ? " (not reduced)" : "");
        }
}

static void reference_batch(const setup *s, uint64_t *a, int inverse)
{
    for (size_t l = 0; l < s->limbs; l++) {
        nb_status st = inverse ? nb_ref_ntt_inverse(a + l * s->n, s->log_n, s->q[l], s->psi[l])
                               : nb_ref_ntt_forward(a + l * s->n, s->log_n, s->q[l], s->psi[l]);
        assert_int_equal(st, NB_OK);
    }
}

static const size_t batch_sizes[] = {1, 3, 32};

/* 64-bit CPU variants (32-bit ones: test_ntt_cpu32.c) */
static int variant_is_cpu(size_t i)
{
    return nb_ntt_variant_at(i)->backend == NB_BACKEND_CPU && nb_ntt_variant_at(i)->word_bits == 64;
}

static unsigned lo_log(const nb_ntt_variant *v) { return v->min_log_n; }
static unsigned hi_log(const nb_ntt_variant *v) { return v->max_log_n < 17 ? v->max_log_n : 17; }

/* Runs `check` for every CPU variant, log_n and batch size. */
typedef void (*check_fn)(const nb_ntt_variant *v, unsigned log_n, size_t limbs, int user_psis);

static void for_all(check_fn check)
{
    size_t tested = 0;
    for (size_t i = 0; i < nb_ntt_variant_count(); i++) {
        if (!variant_is_cpu(i))
            continue;
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        for (unsigned log_n = lo_log(v); log_n <= hi_log(v); log_n++)
            for (size_t b = 0; b < 3; b++) {
                /* user roots for half the cases, minimal roots for the rest */
                check(v, log_n, batch_sizes[b], (int)((log_n + b) & 1));
                tested++;
            }
    }
    assert_true(tested > 0);
}

/* ---- checks ---- */

static void check_forward(const nb_ntt_variant *v, unsigned log_n, size_t limbs, int user_psis)
{
    setup s = make_setup(v, log_n, limbs, user_psis);
    uint64_t *a = alloc_limbs(&s), *want = alloc_limbs(&s);
    nb_test_fill_residues(a, s.n, s.q, limbs);
    memcpy(want, a, limbs * s.n * sizeof *a);
    assert_int_equal(nb_ntt_forward(s.ntt, a, 0, limbs, NULL), NB_OK);
    reference_batch(&s, want, 0);
    compare("forward", v, &s, a, want);
    free(a);
    free(want);
    nb_ntt_destroy(s.ntt);
}

static void check_inverse(const nb_ntt_variant *v, unsigned log_n, size_t limbs, int user_psis)
{
    setup s = make_setup(v, log_n, limbs, user_psis);
    uint64_t *a = alloc_limbs(&s), *want = alloc_limbs(&s);
    nb_test_fill_residues(a, s.n, s.q, limbs);
    memcpy(want, a, limbs * s.n * sizeof *a);
    assert_int_equal(nb_ntt_inverse(s.ntt, a, 0, limbs, NULL), NB_OK);
    reference_batch(&s, want, 1);
    compare("inverse", v, &s, a, want);
    free(a);
    free(want);
    nb_ntt_destroy(s.ntt);
}

static void check_roundtrip(const nb_ntt_variant *v, unsigned log_n, size_t limbs, int user_psis)
{
    setup s = make_setup(v, log_n, limbs, user_psis);
    uint64_t *a = alloc_limbs(&s), *orig = alloc_limbs(&s);
    nb_test_fill_residues(a, s.n, s.q, limbs);
    memcpy(orig, a, limbs * s.n * sizeof *a);
    assert_int_equal(nb_ntt_forward(s.ntt, a, 0, limbs, NULL), NB_OK);
    assert_int_equal(nb_ntt_inverse(s.ntt, a, 0, limbs, NULL), NB_OK);
    compare("inverse(forward(a))", v, &s, a, orig);
    /* and the other order */
    assert_int_equal(nb_ntt_inverse(s.ntt, a, 0, limbs, NULL), NB_OK);
    assert_int_equal(nb_ntt_forward(s.ntt, a, 0, limbs, NULL), NB_OK);
    compare("forward(inverse(a))", v, &s, a, orig);
    free(a);
    free(orig);
    nb_ntt_destroy(s.ntt);
}

static void test_forward_matches_reference_bit_exact(void **state)
{
    (void)state;
    for_all(check_forward);
}

static void test_inverse_matches_reference_bit_exact(void **state)
{
    (void)state;
    for_all(check_inverse);
}

static void test_roundtrip_is_identity(void **state)
{
    (void)state;
    for_all(check_roundtrip);
}

/* NTT-based product: forward both, multiply pointwise, inverse. */
static void ntt_product(const setup *s, uint64_t *a, uint64_t *b)
{
    assert_int_equal(nb_ntt_forward(s->ntt, a, 0, s->limbs, NULL), NB_OK);
    assert_int_equal(nb_ntt_forward(s->ntt, b, 0, s->limbs, NULL), NB_OK);
    for (size_t l = 0; l < s->limbs; l++)
        for (size_t i = 0; i < s->n; i++)
            a[l * s->n + i] = gmp_mulmod(a[l * s->n + i], b[l * s->n + i], s->q[l]);
    assert_int_equal(nb_ntt_inverse(s->ntt, a, 0, s->limbs, NULL), NB_OK);
}

static void test_ntt_product_equals_schoolbook_product(void **state)
{
    (void)state;
    for (size_t i = 0; i < nb_ntt_variant_count(); i++) {
        if (!variant_is_cpu(i))
            continue;
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        for (unsigned log_n = lo_log(v); log_n <= hi_log(v) && log_n <= 11; log_n++) {
            setup s = make_setup(v, log_n, 3, log_n & 1);
            uint64_t *a = alloc_limbs(&s), *b = alloc_limbs(&s), *want = alloc_limbs(&s);
            nb_test_fill_residues(a, s.n, s.q, 3);
            nb_test_fill_residues(b, s.n, s.q, 3);
            for (size_t l = 0; l < 3; l++)
                assert_int_equal(nb_ref_negacyclic_mul(want + l * s.n, a + l * s.n,
                                                       b + l * s.n, log_n, s.q[l]),
                                 NB_OK);
            ntt_product(&s, a, b);
            compare("NTT product vs schoolbook", v, &s, a, want);
            free(a), free(b), free(want);
            nb_ntt_destroy(s.ntt);
        }
    }
}

static void test_ntt_product_with_sparse_factor_equals_definition(void **state)
{
    (void)state;
    /* b has 4 random non-zero terms, so a*b = sum_j b_j X^j a is cheap to
     * form from the definition (X^N = -1) at every size up to 2^17 */
    for (size_t i = 0; i < nb_ntt_variant_count(); i++) {
        if (!variant_is_cpu(i))
            continue;
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        for (unsigned log_n = lo_log(v); log_n <= hi_log(v); log_n++) {
            setup s = make_setup(v, log_n, 3, (log_n + 1) & 1);
            const size_t n = s.n;
            uint64_t *a = alloc_limbs(&s), *b = alloc_limbs(&s), *want = alloc_limbs(&s);
            nb_test_fill_residues(a, n, s.q, 3);
            memset(b, 0, 3 * n * sizeof *b);
            memset(want, 0, 3 * n * sizeof *want);
            for (int t = 0; t < 4; t++) {
                const size_t j = (size_t)nb_test_rand_below(n);
                for (size_t l = 0; l < 3; l++) {
                    const uint64_t q = s.q[l], c = 1 + nb_test_rand_below(q - 1);
                    b[l * n + j] = nb_add_mod(b[l * n + j], c, q);
                    for (size_t k = 0; k < n; k++) {
                        const uint64_t term = gmp_mulmod(c, a[l * n + k], q);
                        uint64_t *dst = &want[l * n + (k + j) % n];
                        *dst = k + j < n ? nb_add_mod(*dst, term, q) : nb_sub_mod(*dst, term, q);
                    }
                }
            }
            ntt_product(&s, a, b);
            compare("NTT product vs sparse definition", v, &s, a, want);
            free(a), free(b), free(want);
            nb_ntt_destroy(s.ntt);
        }
    }
}

static void test_extreme_inputs_at_largest_primes_match_reference(void **state)
{
    (void)state;
    /* inputs at the top of [0, q) stress the lazy ranges: all q-1, blocks of
     * q-1 and 0, and q-1 / 1 alternating, at the 4 largest primes < 2^62 */
    for (size_t i = 0; i < nb_ntt_variant_count(); i++) {
        if (!variant_is_cpu(i))
            continue;
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        for (unsigned log_n = lo_log(v); log_n <= hi_log(v); log_n += (log_n < 12 ? 1 : 5)) {
            uint64_t q[4];
            const size_t n = (size_t)1 << log_n;
            assert_int_equal(nb_primes_generate(log_n, v->max_prime_bits, 4, NULL, 0, q), NB_OK);
            nb_ntt *ntt;
            assert_int_equal(nb_ntt_create(&ntt, v, log_n, q, NULL, 4, NULL), NB_OK);
            const nb_ntt_tables *t = nb_ntt_get_tables(ntt);
            setup s = {ntt, 4, n, log_n, t->q, t->psi};
            uint64_t *a = alloc_limbs(&s), *want = alloc_limbs(&s);
            for (int pattern = 0; pattern < 3; pattern++) {
                for (size_t l = 0; l < 4; l++)
                    for (size_t k = 0; k < n; k++) {
                        const uint64_t top = q[l] - 1;
                        a[l * n + k] = pattern == 0   ? top
                                       : pattern == 1 ? ((k / 4) & 1 ? 0 : top)
                                                      : ((k & 1) ? 1 : top);
                    }
                for (int dir = 0; dir < 2; dir++) {
                    memcpy(want, a, 4 * n * sizeof *a);
                    uint64_t *got = alloc_limbs(&s);
                    memcpy(got, a, 4 * n * sizeof *a);
                    assert_int_equal(dir ? nb_ntt_inverse(ntt, got, 0, 4, NULL)
                                         : nb_ntt_forward(ntt, got, 0, 4, NULL),
                                     NB_OK);
                    reference_batch(&s, want, dir);
                    compare(dir ? "inverse (extreme input)" : "forward (extreme input)", v, &s,
                            got, want);
                    free(got);
                }
            }
            free(a), free(want);
            nb_ntt_destroy(ntt);
        }
    }
}

static void test_tiny_primes_and_structured_inputs_match_reference(void **state)
{
    (void)state;
    /* primes far below 20 bits (where equal operands and sums equal to q are
     * common) batched together, with zero, constant, monomial, all-(q-1) and
     * small random inputs; forward and inverse against the reference */
    static const uint64_t tiny[] = {17, 97, 257, 7681, 12289, 786433};
    for (size_t vi = 0; vi < nb_ntt_variant_count(); vi++) {
        if (!variant_is_cpu(vi))
            continue;
        const nb_ntt_variant *v = nb_ntt_variant_at(vi);
        for (unsigned log_n = lo_log(v); log_n <= hi_log(v); log_n++) {
            uint64_t q[6];
            size_t L = 0;
            for (size_t i = 0; i < 6; i++)
                if ((tiny[i] - 1) % (2ull << log_n) == 0)
                    q[L++] = tiny[i];
            if (L == 0)
                continue;
            nb_ntt *ntt;
            assert_int_equal(nb_ntt_create(&ntt, v, log_n, q, NULL, L, NULL), NB_OK);
            const nb_ntt_tables *t = nb_ntt_get_tables(ntt);
            const size_t n = (size_t)1 << log_n;
            setup s = {ntt, L, n, log_n, t->q, t->psi};
            uint64_t *a = alloc_limbs(&s), *want = alloc_limbs(&s);
            const int patterns = log_n <= 12 ? 8 : 5; /* 4 structured, then random */
            for (int pattern = 0; pattern < patterns; pattern++) {
                for (int dir = 0; dir < 2; dir++) {
                    for (size_t l = 0; l < L; l++)
                        for (size_t i = 0; i < n; i++)
                            a[l * n + i] = pattern == 0   ? 0
                                           : pattern == 1 ? 3
                                           : pattern == 2 ? (i == n - 1 ? q[l] - 1 : 0)
                                           : pattern == 3 ? q[l] - 1
                                                          : nb_test_rand_below(3);
                    memcpy(want, a, L * n * sizeof *a);
                    assert_int_equal(dir ? nb_ntt_inverse(ntt, a, 0, L, NULL)
                                         : nb_ntt_forward(ntt, a, 0, L, NULL),
                                     NB_OK);
                    reference_batch(&s, want, dir);
                    compare(dir ? "inverse (tiny prime)" : "forward (tiny prime)", v, &s, a,
                            want);
                }
            }
            free(a), free(want);
            nb_ntt_destroy(ntt);
        }
    }
}

static void test_sub_range_transforms_only_the_requested_limbs(void **state)
{
    (void)state;
    for (size_t i = 0; i < nb_ntt_variant_count(); i++) {
        if (!variant_is_cpu(i))
            continue;
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        const unsigned log_n = lo_log(v) > 10 ? lo_log(v) : (hi_log(v) < 10 ? hi_log(v) : 10);
        const size_t L = 6, n = (size_t)1 << log_n;
        setup s = make_setup(v, log_n, L, 1);
        uint64_t *a = alloc_limbs(&s), *orig = alloc_limbs(&s), *want = alloc_limbs(&s);
        /* every (first, count) with first + count <= L */
        for (size_t first = 0; first < L; first++)
            for (size_t count = 1; first + count <= L; count++) {
                for (int dir = 0; dir < 2; dir++) {
                    nb_test_fill_residues(a, n, s.q, L);
                    memcpy(orig, a, L * n * sizeof *a);
                    memcpy(want, a, L * n * sizeof *a);
                    for (size_t l = first; l < first + count; l++)
                        assert_int_equal(dir ? nb_ref_ntt_inverse(want + l * n, log_n, s.q[l],
                                                                  s.psi[l])
                                             : nb_ref_ntt_forward(want + l * n, log_n, s.q[l],
                                                                  s.psi[l]),
                                         NB_OK);
                    /* data points at limb `first` */
                    assert_int_equal(dir ? nb_ntt_inverse(s.ntt, a + first * n, first, count, NULL)
                                         : nb_ntt_forward(s.ntt, a + first * n, first, count, NULL),
                                     NB_OK);
                    compare(dir ? "inverse on a sub-range" : "forward on a sub-range", v, &s, a,
                            want);
                }
            }
        free(a), free(orig), free(want);
        nb_ntt_destroy(s.ntt);
    }
}

static void test_transforms_are_deterministic_and_repeatable(void **state)
{
    (void)state;
    /* the same plan applied twice to the same input gives the same output, and
     * two plans over the same primes agree (no hidden state between calls) */
    for (size_t i = 0; i < nb_ntt_variant_count(); i++) {
        if (!variant_is_cpu(i))
            continue;
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        const unsigned log_n = hi_log(v) < 12 ? hi_log(v) : 12;
        setup s = make_setup(v, log_n, 3, 0);
        nb_ntt *other;
        assert_int_equal(nb_ntt_create(&other, v, log_n, s.q, s.psi, 3, NULL), NB_OK);
        uint64_t *a = alloc_limbs(&s), *b = alloc_limbs(&s), *c = alloc_limbs(&s);
        nb_test_fill_residues(a, s.n, s.q, 3);
        memcpy(b, a, 3 * s.n * sizeof *a);
        memcpy(c, a, 3 * s.n * sizeof *a);
        assert_int_equal(nb_ntt_forward(s.ntt, a, 0, 3, NULL), NB_OK);
        assert_int_equal(nb_ntt_forward(s.ntt, b, 0, 3, NULL), NB_OK);
        assert_int_equal(nb_ntt_forward(other, c, 0, 3, NULL), NB_OK);
        compare("forward, second call", v, &s, b, a);
        compare("forward, second plan", v, &s, c, a);
        free(a), free(b), free(c);
        nb_ntt_destroy(other);
        nb_ntt_destroy(s.ntt);
    }
}

int main(void)
{
    nb_test_seed_init();
    if (getenv("NB_TEST_FILTER")) /* run only the tests matching this pattern */
        cmocka_set_test_filter(getenv("NB_TEST_FILTER"));
    printf("# CPU variants:");
    for (size_t i = 0; i < nb_ntt_variant_count(); i++)
        if (variant_is_cpu(i))
            printf(" %s", nb_ntt_variant_at(i)->name);
    printf("\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_matches_reference_bit_exact),
        cmocka_unit_test(test_inverse_matches_reference_bit_exact),
        cmocka_unit_test(test_roundtrip_is_identity),
        cmocka_unit_test(test_ntt_product_equals_schoolbook_product),
        cmocka_unit_test(test_ntt_product_with_sparse_factor_equals_definition),
        cmocka_unit_test(test_extreme_inputs_at_largest_primes_match_reference),
        cmocka_unit_test(test_tiny_primes_and_structured_inputs_match_reference),
        cmocka_unit_test(test_sub_range_transforms_only_the_requested_limbs),
        cmocka_unit_test(test_transforms_are_deterministic_and_repeatable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

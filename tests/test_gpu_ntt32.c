/* The 32-bit GPU NTT variants (every registered GPU variant with word_bits 32:
 * gpu-radix2-32, gpu-fast32) bit-exact against the GMP reference, on the
 * 32-bit words widened to 64 bits: fresh seeded random inputs (never all
 * zeros), log N 10..17, limb counts 1, 2, 3, 16, 64 and 130 (at small N),
 * primes of 31 bits (the _q31 butterflies), 30 bits and smaller down to 20 (the Harvey
 * ones, which gpu-fast32 runs when every prime of a call is below 2^30), the
 * largest NTT primes below 2^31 and 2^30, forward, inverse and
 * inverse(forward), in place and out of place, sub-range calls (first > 0)
 * whose neighbouring limbs must stay untouched, poisoned guard zones and
 * poisoned out-of-place outputs (every word must be written), and the prime
 * limit, and gpu-fast32's shape bound. Exits 77 (skip) without a CUDA
 * device. */
#include <string.h>

#include "ntt/arith.h"
#include "reference/reference.h"
#include "testutil.h"

#define POISON32 0xA5A5A5A5u /* nb_buffer_fill(0xA5): above every 31-bit residue */

static void *stream;

/* Prime-size cycles: MIXED has a 31-bit prime (gpu-fast32 then runs the _q31
 * butterflies on the whole call), LOW only primes below 2^30 (the Harvey
 * ones); 31 and 30 give the largest NTT primes below 2^31 and 2^30. */
static const unsigned mixed_bits[] = {31, 30, 29, 26};
static const unsigned low_bits[] = {30, 29, 27, 26};
static const unsigned *bit_cycle = mixed_bits;
/* Primes below 2^30 of only two sizes, for plans of many limbs at log N 17. */
static const unsigned two_sizes_bits[] = {30, 29, 30, 29};

/* limbs distinct NTT primes for log_n, sizes cycling through bit_cycle (the
 * largest prime of that size not yet taken; a bit smaller when none is left). */
static void make_primes(uint64_t *q, unsigned log_n, size_t limbs)
{
    for (size_t l = 0; l < limbs; l++) {
        unsigned b = bit_cycle[l % 4];
        while (nb_primes_generate(log_n, b, 1, q, l, &q[l]) != NB_OK) {
            b--;
            assert_true(b >= log_n + 2);
        }
    }
}

/* How a check calls the variant. */
typedef enum { IN_PLACE, OUT_OF_PLACE } call_kind;

/* One direction of one call, on the device: in place on d, or from src into
 * dst (poisoned beforehand). */
static nb_status transform(nb_ntt *g, int inv, call_kind kind, uint32_t *d, uint32_t *dst,
                           size_t first, size_t count)
{
    if (kind == IN_PLACE)
        return inv ? nb_ntt_inverse(g, d, first, count, stream)
                   : nb_ntt_forward(g, d, first, count, stream);
    return inv ? nb_ntt_inverse_to(g, dst, d, first, count, stream)
               : nb_ntt_forward_to(g, dst, d, first, count, stream);
}

/* Variant `name` on a plan of `limbs` primes (bit_cycle), transforming
 * limbs [first, first + count) with one call: forward, inverse and
 * inverse(forward) of fresh inputs, each bit-exact with the GMP reference.
 * Device layout: guard limb | the plan's `limbs` limbs | guard limb; the
 * limbs outside the call and the guards are poisoned and must come back
 * untouched. Out of place: the source (same layout) must stay unchanged and
 * the destination (same layout, poisoned) gets every word of the call. */
static void check(const char *name, unsigned log_n, size_t limbs, size_t first, size_t count,
                  call_kind kind)
{
    const nb_ntt_variant *v = nb_ntt_variant_find(name);
    if (!v)
        nb_test_fail("%s not registered: %s", name, nb_last_error());
    const size_t n = (size_t)1 << log_n, words = count * n, all = (limbs + 2) * n;
    uint64_t *q = malloc(limbs * sizeof *q);
    assert_non_null(q);
    make_primes(q, log_n, limbs);
    nb_ntt *g = NULL;
    if (nb_ntt_create(&g, v, log_n, q, NULL, limbs, stream) != NB_OK)
        nb_test_fail("%s: nb_ntt_create(log_n=%u, L=%zu): %s", name, log_n, limbs,
                     nb_last_error());
    assert_int_equal(nb_ntt_word_bits(g), 32);
    const nb_ntt_tables *t = nb_ntt_get_tables(g);

    nb_buffer *src = NULL, *dst = NULL;
    assert_int_equal(nb_buffer_create(&src, NB_BACKEND_GPU, all * 4), NB_OK);
    assert_int_equal(nb_buffer_create(&dst, NB_BACKEND_GPU, all * 4), NB_OK);
    const size_t at = (1 + first) * n; /* word offset of the call's first limb */
    uint32_t *d = (uint32_t *)nb_buffer_ptr(src) + at, *o = (uint32_t *)nb_buffer_ptr(dst) + at;
    uint64_t *wide = malloc(words * 8), *want = malloc(words * 8);
    uint32_t *a = malloc(words * 4), *got = malloc(all * 4);
    assert_true(wide && want && a && got);

    static const char *const what[] = {"forward", "inverse", "inverse(forward)"};
    for (int dir = 0; dir < 3; dir++) {
        nb_test_fill_residues(wide, n, q + first, count);
        for (size_t i = 0; i < words; i++)
            a[i] = (uint32_t)wide[i];
        memcpy(want, wide, words * 8);
        for (size_t k = 0; dir < 2 && k < count; k++) {
            const size_t l = first + k;
            nb_status s = dir ? nb_ref_ntt_inverse(want + k * n, log_n, q[l], t->psi[l])
                              : nb_ref_ntt_forward(want + k * n, log_n, q[l], t->psi[l]);
            assert_int_equal(s, NB_OK);
        }
        assert_int_equal(nb_buffer_fill(src, 0xA5, stream), NB_OK);
        assert_int_equal(nb_buffer_fill(dst, 0xA5, stream), NB_OK);
        assert_int_equal(nb_buffer_upload(src, at * 4, a, words * 4, stream), NB_OK);
        nb_status s = NB_OK;
        if (dir != 1)
            s = transform(g, 0, kind, d, o, first, count);
        if (s == NB_OK && dir != 0) /* the second step of a round trip runs in place */
            s = dir == 2 && kind == OUT_OF_PLACE ? transform(g, 1, IN_PLACE, o, NULL, first, count)
                                                 : transform(g, 1, kind, d, o, first, count);
        if (s == NB_OK)
            s = nb_stream_sync(stream);
        if (s != NB_OK)
            nb_test_fail("%s %s: transform failed: %s", name, what[dir], nb_last_error());

        /* the output buffer: every word outside the call poisoned, the call's words = want */
        const nb_buffer *out = kind == OUT_OF_PLACE ? dst : src;
        assert_int_equal(nb_buffer_download(out, 0, got, all * 4, stream), NB_OK);
        for (size_t i = 0; i < all; i++)
            if ((i < at || i >= at + words) && got[i] != POISON32)
                nb_test_fail("%s %s log_n=%u L=%zu [%zu,%zu): word %zu outside the call "
                             "overwritten", name, what[dir], log_n, limbs, first,
                             first + count, i);
        for (size_t i = 0; i < words; i++)
            if (got[at + i] != want[i])
                nb_test_fail("%s %s log_n=%u L=%zu [%zu,%zu): limb %zu (q=%" PRIu64
                             ") index %zu: got %" PRIu32 ", want %" PRIu64,
                             name, what[dir], log_n, limbs, first, first + count,
                             first + i / n, q[first + i / n], i % n, got[at + i], want[i]);
        if (kind == OUT_OF_PLACE && dir != 2) { /* the source stays unchanged */
            assert_int_equal(nb_buffer_download(src, at * 4, got, words * 4, stream), NB_OK);
            if (memcmp(got, a, words * 4) != 0)
                nb_test_fail("%s %s out of place: the source was modified", name, what[dir]);
        }
    }
    free(wide);
    free(want);
    free(a);
    free(got);
    nb_buffer_destroy(src);
    nb_buffer_destroy(dst);
    nb_ntt_destroy(g);
    free(q);
}

/* The registered 32-bit GPU variants (at least the two built in). */
static size_t gpu32_variants(const char **names, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < nb_ntt_variant_count(); i++) {
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        if (v->backend == NB_BACKEND_GPU && v->word_bits == 32 && k < max)
            names[k++] = v->name;
    }
    return k;
}

#define MAX_VARIANTS 16
/* Runs the statements given with `name` bound to each registered 32-bit GPU
 * variant. */
#define FOR_EACH_GPU32(...)                                                                 \
    do {                                                                                   \
        const char *names_[MAX_VARIANTS];                                                  \
        const size_t nv_ = gpu32_variants(names_, MAX_VARIANTS);                           \
        for (size_t vi_ = 0; vi_ < nv_; vi_++) {                                           \
            const char *name = names_[vi_];                                                \
            __VA_ARGS__                                                                    \
        }                                                                                  \
    } while (0)

static void test_gpu32_variants_are_registered_with_32_bit_words(void **state)
{
    (void)state;
    static const char *const builtin[] = {"gpu-radix2-32", "gpu-fast32"};
    for (size_t i = 0; i < 2; i++) {
        const nb_ntt_variant *v = nb_ntt_variant_find(builtin[i]);
        if (!v)
            nb_test_fail("%s not registered: %s", builtin[i], nb_last_error());
        assert_int_equal(v->backend, NB_BACKEND_GPU);
        assert_int_equal(v->word_bits, 32);
        assert_int_equal(v->max_prime_bits, NB_MAX_PRIME_BITS_32);
        assert_true(v->min_log_n <= 10 && v->max_log_n >= 17);
    }
    const char *names[MAX_VARIANTS];
    assert_true(gpu32_variants(names, MAX_VARIANTS) >= 2);
}

static void test_gpu32_equals_gmp_at_every_size(void **state)
{
    (void)state;
    FOR_EACH_GPU32({
        for (unsigned log_n = 10; log_n <= 17; log_n++)
            check(name, log_n, 3, 0, 3, IN_PLACE);
    });
}

static void test_gpu32_equals_gmp_for_each_limb_count(void **state)
{
    (void)state;
    static const size_t limbs[] = {1, 2, 16, 64};
    FOR_EACH_GPU32({
        for (size_t i = 0; i < sizeof limbs / sizeof limbs[0]; i++)
            check(name, 16, limbs[i], 0, limbs[i], IN_PLACE);
        check(name, 12, 64, 0, 64, IN_PLACE);
        check(name, 10, 130, 0, 130, IN_PLACE);
        check(name, 17, 2, 0, 2, IN_PLACE);
    });
}

/* Only primes below 2^30: the Harvey butterflies in gpu-fast32. */
static void test_gpu32_primes_below_2_30_equal_gmp(void **state)
{
    (void)state;
    static const size_t limbs[] = {1, 3, 16, 64};
    bit_cycle = low_bits;
    FOR_EACH_GPU32({
        for (unsigned log_n = 10; log_n <= 17; log_n++)
            check(name, log_n, 3, 0, 3, IN_PLACE);
        for (size_t i = 0; i < sizeof limbs / sizeof limbs[0]; i++)
            check(name, 16, limbs[i], 0, limbs[i], IN_PLACE);
    });
    bit_cycle = mixed_bits;
}

/* One-limb plans of the largest NTT prime below 2^31, below 2^30, and a
 * small one (below 2^20). */
static void test_gpu32_edge_primes_equal_gmp(void **state)
{
    (void)state;
    static const unsigned only31[] = {31, 31, 31, 31}, only30[] = {30, 30, 30, 30};
    static const unsigned only20[] = {20, 20, 20, 20};
    FOR_EACH_GPU32({
        for (unsigned log_n = 10; log_n <= 17; log_n += 7) {
            bit_cycle = only31;
            check(name, log_n, 1, 0, 1, IN_PLACE);
            bit_cycle = only30;
            check(name, log_n, 1, 0, 1, IN_PLACE);
            bit_cycle = only20;
            check(name, log_n, 1, 0, 1, IN_PLACE);
        }
    });
    bit_cycle = mixed_bits;
}

/* Calls on limbs [first, first + count) of a larger plan: the twiddles of
 * those limbs, and the neighbouring limbs left untouched; with primes below
 * 2^30 inside the call and a 31-bit one outside, and the reverse. */
static void test_gpu32_sub_range_calls(void **state)
{
    (void)state;
    FOR_EACH_GPU32({
        check(name, 16, 12, 1, 3, IN_PLACE);  /* limbs 1..3: 30, 29, 26 bits */
        check(name, 16, 12, 3, 6, IN_PLACE);  /* limb 4 has 31 bits */
        check(name, 10, 140, 5, 130, IN_PLACE);
        check(name, 13, 20, 7, 1, IN_PLACE);
        check(name, 17, 5, 2, 2, IN_PLACE);
    });
}

static void test_gpu32_out_of_place_calls(void **state)
{
    (void)state;
    FOR_EACH_GPU32({
        check(name, 10, 3, 0, 3, OUT_OF_PLACE);
        check(name, 16, 1, 0, 1, OUT_OF_PLACE);
        check(name, 16, 40, 4, 32, OUT_OF_PLACE);
        check(name, 17, 3, 1, 2, OUT_OF_PLACE);
    });
}

/* gpu-fast32's block shapes (its choice depends on N*L: small, large,
 * above 32 MiB, where inverse calls at log N 17 keep the large shape's
 * cache hints) and the two orders of its second kernel: the per-limb
 * hand-off (large inverse calls of 8 to 16 MiB of words) and the limbs last
 * first (every other large call: whole and a huge sub-range), with both
 * butterfly families. */
static void test_gpu32_fast_every_block_shape(void **state)
{
    (void)state;
    static const unsigned *const cycles[] = {mixed_bits, low_bits};
    for (size_t c = 0; c < 2; c++) {
        bit_cycle = cycles[c];
        check("gpu-fast32", 14, 64, 0, 64, IN_PLACE);  /* 2^20: small shape */
        check("gpu-fast32", 15, 64, 0, 64, IN_PLACE);  /* 2^21: large */
        check("gpu-fast32", 16, 32, 0, 32, IN_PLACE);  /* 2^21 */
        check("gpu-fast32", 16, 48, 0, 48, IN_PLACE);  /* 12 MiB: the inverse hands off */
        check("gpu-fast32", 16, 130, 0, 130, IN_PLACE); /* above 2^23: huge */
        check("gpu-fast32", 17, 40, 0, 40, OUT_OF_PLACE);
        check("gpu-fast32", 17, 70, 3, 67, OUT_OF_PLACE); /* above 2^23: a sub-range */
    }
    bit_cycle = mixed_bits;
}

/* gpu-fast32's calls on either side of its small shape's bound (2^19
 * coefficients, 2^18 from log N 14), with both butterfly families, in place
 * and out of place. */
static void test_gpu32_fast_shape_bound_calls_equal_gmp(void **state)
{
    (void)state;
    static const unsigned *const cycles[] = {mixed_bits, low_bits};
    for (size_t c = 0; c < 2; c++) {
        bit_cycle = cycles[c];
        check("gpu-fast32", 14, 31, 0, 31, IN_PLACE);  /* just below 2^19 */
        check("gpu-fast32", 14, 32, 0, 32, IN_PLACE);  /* 2^19 */
        check("gpu-fast32", 15, 32, 0, 32, IN_PLACE);  /* 2^20 */
        check("gpu-fast32", 16, 7, 0, 7, OUT_OF_PLACE);
        check("gpu-fast32", 16, 8, 0, 8, OUT_OF_PLACE);
        check("gpu-fast32", 13, 32, 0, 32, IN_PLACE); /* 2^18 at log N 13: small */
        check("gpu-fast32", 15, 7, 0, 7, IN_PLACE);   /* just below 2^18 */
        check("gpu-fast32", 15, 8, 0, 8, IN_PLACE);   /* 2^18 from log N 14: large */
        check("gpu-fast32", 17, 2, 0, 2, OUT_OF_PLACE);
    }
    bit_cycle = mixed_bits;
}

/* gpu-fast32's kernel list: two distinct kernels, each launched once and
 * covering all of the call's limbs (its blocks a multiple of the limb
 * count), 4 coefficients per thread below 2^19 coefficients (2^18 from
 * log N 14) and 16 from there up, in both directions and at log N 13 to 17. */
static void test_gpu32_fast_kernel_list_follows_the_shape_bound(void **state)
{
    (void)state;
    const nb_ntt_variant *v = nb_ntt_variant_find("gpu-fast32");
    assert_non_null(v);
    for (unsigned log_n = 13; log_n <= 17; log_n++) {
        const unsigned bound_log = log_n >= 14 ? 18 : 19;
        const size_t at_bound = (size_t)1 << (bound_log - log_n);
        const size_t limbs_of[3] = {at_bound - 1, at_bound, at_bound + 1};
        for (size_t i = 0; i < 3; i++) {
            const size_t limbs = limbs_of[i];
            if (limbs == 0)
                continue;
            uint64_t *q = malloc(limbs * sizeof *q);
            assert_non_null(q);
            bit_cycle = two_sizes_bits; /* one butterfly family: one version of each kernel */
            make_primes(q, log_n, limbs);
            bit_cycle = mixed_bits;
            nb_ntt *g = NULL;
            if (nb_ntt_create(&g, v, log_n, q, NULL, limbs, stream) != NB_OK)
                nb_test_fail("gpu-fast32: nb_ntt_create(log_n=%u, L=%zu): %s", log_n, limbs,
                             nb_last_error());
            const char *want =
                (limbs << log_n) < ((size_t)1 << bound_log) ? "4/thread" : "16/thread";
            for (int inv = 0; inv < 2; inv++) {
                nb_ntt_kernel k[8];
                size_t n = 0;
                if (nb_ntt_kernels(g, inv, 0, limbs, k, 8, &n) != NB_OK)
                    nb_test_fail("gpu-fast32 kernels: %s", nb_last_error());
                assert_int_equal(n, 2);
                assert_string_not_equal(k[0].name, k[1].name);
                for (size_t j = 0; j < n; j++)
                    if (k[j].blocks % limbs != 0 || k[j].launches != 1 ||
                        !strstr(k[j].name, want))
                        nb_test_fail("log_n=%u L=%zu %s: '%s' %u launches of %llu blocks in "
                                     "all, want one launch covering every limb, %s",
                                     log_n, limbs, inv ? "inverse" : "forward", k[j].name,
                                     k[j].launches, k[j].blocks, want);
            }
            nb_ntt_destroy(g);
            free(q);
        }
    }
}

static void test_gpu32_plan_refuses_a_prime_of_32_bits(void **state)
{
    (void)state;
    uint64_t q[1];
    assert_int_equal(nb_primes_generate(12, 32, 1, NULL, 0, q), NB_OK);
    FOR_EACH_GPU32({
        nb_ntt *g = NULL;
        EXPECT_STATUS(nb_ntt_create(&g, nb_ntt_variant_find(name), 12, q, NULL, 1, stream),
                      NB_ERR_UNSUPPORTED);
        assert_null(g);
    });
}

static int setup(void **state)
{
    (void)state;
    return nb_stream_create(&stream) == NB_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    nb_stream_destroy(stream);
    return 0;
}

int main(void)
{
    nb_test_seed_init();
    nb_test_require_gpu_or_skip();
    if (getenv("NB_TEST_FILTER"))
        cmocka_set_test_filter(getenv("NB_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu32_variants_are_registered_with_32_bit_words),
        cmocka_unit_test(test_gpu32_equals_gmp_at_every_size),
        cmocka_unit_test(test_gpu32_equals_gmp_for_each_limb_count),
        cmocka_unit_test(test_gpu32_primes_below_2_30_equal_gmp),
        cmocka_unit_test(test_gpu32_edge_primes_equal_gmp),
        cmocka_unit_test(test_gpu32_sub_range_calls),
        cmocka_unit_test(test_gpu32_out_of_place_calls),
        cmocka_unit_test(test_gpu32_fast_every_block_shape),
        cmocka_unit_test(test_gpu32_fast_shape_bound_calls_equal_gmp),
        cmocka_unit_test(test_gpu32_fast_kernel_list_follows_the_shape_bound),
        cmocka_unit_test(test_gpu32_plan_refuses_a_prime_of_32_bits),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

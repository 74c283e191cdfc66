/* GPU NTT variants (gpu-radix2, gpu-smem, gpu-regs, gpu-fast) against the CPU backend
 * (cpu-harvey, itself checked against the GMP reference in test_ntt) and
 * directly against the GMP reference at small sizes: bit-exact outputs in
 * [0, q) on fresh random inputs, forward and inverse, inverse(forward) = id,
 * log N 10..17 (gpu-radix2 also 1..9), L in {1, 2, 7, 32, 64}, primes from
 * 30 to 62 bits (the largest NTT primes below 2^62 and 2^61 included),
 * sub-range calls (first > 0), out-of-place calls, gpu-fast's per-limb hand-off between
 * its kernels, gpu-fast's two reduction schedules
 * (the usual one, and fewer reductions when all primes of a call are below 2^61), guard
 * zones around the device data (poisoned, must stay untouched), and the size/prime limits
 * of each variant.
 * Exits 77 (skip) without a CUDA device. */
#include <string.h>

#include "ntt/arith.h"
#include "reference/reference.h"
#include "testutil.h"

static const char *const gpu_variants[] = {"gpu-radix2", "gpu-smem", "gpu-regs", "gpu-fast"};
#define N_VARIANTS (sizeof gpu_variants / sizeof gpu_variants[0])

static void *stream;

/* Prime sizes cycled over the limbs; 62 and 61 give the largest NTT primes
 * below 2^62 and 2^61. */
static const unsigned bit_cycle[] = {62, 61, 60, 59, 55, 50, 45, 40, 36, 30};
#define N_BITS (sizeof bit_cycle / sizeof bit_cycle[0])
/* Where the cycle starts: 1 leaves out the 62-bit primes, so that every
 * prime is below 2^61 (gpu-fast then reduces less often). */
static size_t cycle_start;

/* limbs primes for size log_n: limb l gets the (l / n)-th largest NTT prime
 * below 2^bit_cycle[cycle_start + l % n], n = N_BITS - cycle_start (all
 * distinct). */
static void make_primes(uint64_t *q, unsigned log_n, size_t limbs)
{
    uint64_t buf[128];
    const size_t nb = N_BITS - cycle_start;
    const size_t per = (limbs + nb - 1) / nb;
    assert_true(per <= 128);
    for (size_t b = 0; b < nb && b < limbs; b++) {
        const unsigned bits = bit_cycle[cycle_start + b];
        if (nb_primes_generate(log_n, bits, per, NULL, 0, buf) != NB_OK)
            nb_test_fail("nb_primes_generate(%u, %u, %zu): %s", log_n, bits, per,
                         nb_last_error());
        for (size_t l = b, k = 0; l < limbs; l += nb, k++)
            q[l] = buf[k];
    }
}

/* One GPU variant vs cpu-harvey for a plan of `limbs` primes, transforming
 * limbs [first, first + count) with one call. Checks forward (fresh input),
 * inverse (fresh input) and inverse(forward(a)) = a, each output bit-exact
 * with the CPU backend (hence in [0, q)); a poisoned guard limb before and
 * after the device data must come back untouched. */
static void check_variant(const char *name, unsigned log_n, size_t limbs, size_t first,
                          size_t count)
{
    const nb_ntt_variant *gv = nb_ntt_variant_find(name);
    const nb_ntt_variant *cv = nb_ntt_variant_find("cpu-harvey");
    assert_non_null(gv);
    assert_non_null(cv);
    const size_t n = (size_t)1 << log_n, words = count * n;
    uint64_t *q = malloc(limbs * sizeof *q);
    assert_non_null(q);
    make_primes(q, log_n, limbs);

    nb_ntt *g = NULL, *c = NULL;
    if (nb_ntt_create(&g, gv, log_n, q, NULL, limbs, stream) != NB_OK)
        nb_test_fail("%s: nb_ntt_create(log_n=%u, L=%zu): %s", name, log_n, limbs,
                     nb_last_error());
    assert_int_equal(nb_ntt_create(&c, cv, log_n, q, NULL, limbs, NULL), NB_OK);

    /* device layout: guard limb | count limbs | guard limb */
    nb_buffer *dev = NULL;
    assert_int_equal(nb_buffer_create(&dev, NB_BACKEND_GPU, (words + 2 * n) * 8), NB_OK);
    uint64_t *d = (uint64_t *)nb_buffer_ptr(dev) + n;
    uint64_t *a = malloc(words * 8), *want = malloc(words * 8), *got = malloc((words + 2 * n) * 8);
    assert_true(a && want && got);
    const uint64_t *qs = q + first; /* primes of the transformed limbs */

    for (int dir = 0; dir < 3; dir++) { /* 0 forward, 1 inverse, 2 inverse(forward) */
        nb_test_fill_residues(a, n, qs, count);
        memcpy(want, a, words * 8);
        if (dir == 0)
            assert_int_equal(nb_ntt_forward(c, want, first, count, NULL), NB_OK);
        else if (dir == 1)
            assert_int_equal(nb_ntt_inverse(c, want, first, count, NULL), NB_OK);

        assert_int_equal(nb_buffer_fill(dev, 0xA5, stream), NB_OK);
        assert_int_equal(nb_buffer_upload(dev, n * 8, a, words * 8, stream), NB_OK);
        nb_status s = NB_OK;
        if (dir != 1)
            s = nb_ntt_forward(g, d, first, count, stream);
        if (s == NB_OK && dir != 0)
            s = nb_ntt_inverse(g, d, first, count, stream);
        if (s == NB_OK)
            s = nb_stream_sync(stream);
        if (s != NB_OK)
            nb_test_fail("%s: transform failed: %s", name, nb_last_error());
        assert_int_equal(nb_buffer_download(dev, 0, got, (words + 2 * n) * 8, stream), NB_OK);

        static const char *const what[] = {"forward", "inverse", "inverse(forward)"};
        for (size_t i = 0; i < n; i++)
            if (got[i] != NB_TEST_POISON || got[n + words + i] != NB_TEST_POISON)
                nb_test_fail("%s %s log_n=%u: guard word %zu overwritten", name, what[dir],
                             log_n, got[i] != NB_TEST_POISON ? i : n + words + i);
        size_t bad = 0, first_bad = 0;
        for (size_t i = 0; i < words; i++)
            if (got[n + i] != want[i] && bad++ == 0)
                first_bad = i;
        if (bad) {
            const size_t k = first_bad / n, i = first_bad % n;
            nb_test_fail("%s %s log_n=%u L=%zu limbs [%zu,%zu): %zu mismatches, first at limb %zu "
                         "(q=%" PRIu64 ") index %zu: got %" PRIu64 ", want %" PRIu64,
                         name, what[dir], log_n, limbs, first, first + count, bad, first + k,
                         qs[k], i, got[n + first_bad], want[first_bad]);
        }
    }
    free(a);
    free(want);
    free(got);
    nb_buffer_destroy(dev);
    nb_ntt_destroy(g);
    nb_ntt_destroy(c);
    free(q);
}

/* The GMP reference directly (not through the CPU backend): forward and
 * inverse of fresh random inputs, every limb, for the largest primes. */
static void check_against_gmp(const char *name, unsigned log_n, size_t limbs)
{
    const nb_ntt_variant *gv = nb_ntt_variant_find(name);
    assert_non_null(gv);
    const size_t n = (size_t)1 << log_n, words = limbs * n;
    uint64_t *q = malloc(limbs * sizeof *q);
    assert_non_null(q);
    make_primes(q, log_n, limbs);
    nb_ntt *g = NULL;
    if (nb_ntt_create(&g, gv, log_n, q, NULL, limbs, stream) != NB_OK)
        nb_test_fail("%s: nb_ntt_create: %s", name, nb_last_error());
    const nb_ntt_tables *t = nb_ntt_get_tables(g);
    nb_buffer *dev = NULL;
    assert_int_equal(nb_buffer_create(&dev, NB_BACKEND_GPU, words * 8), NB_OK);
    uint64_t *a = malloc(words * 8), *want = malloc(words * 8), *got = malloc(words * 8);
    assert_true(a && want && got);
    for (int inv = 0; inv < 2; inv++) {
        nb_test_fill_residues(a, n, q, limbs);
        memcpy(want, a, words * 8);
        for (size_t l = 0; l < limbs; l++) {
            nb_status s = inv ? nb_ref_ntt_inverse(want + l * n, log_n, q[l], t->psi[l])
                              : nb_ref_ntt_forward(want + l * n, log_n, q[l], t->psi[l]);
            assert_int_equal(s, NB_OK);
        }
        assert_int_equal(nb_buffer_fill(dev, 0xA5, stream), NB_OK);
        assert_int_equal(nb_buffer_upload(dev, 0, a, words * 8, stream), NB_OK);
        uint64_t *d = (uint64_t *)nb_buffer_ptr(dev);
        nb_status s = inv ? nb_ntt_inverse(g, d, 0, limbs, stream)
                          : nb_ntt_forward(g, d, 0, limbs, stream);
        if (s == NB_OK)
            s = nb_stream_sync(stream);
        if (s != NB_OK)
            nb_test_fail("%s: transform failed: %s", name, nb_last_error());
        assert_int_equal(nb_buffer_download(dev, 0, got, words * 8, stream), NB_OK);
        for (size_t i = 0; i < words; i++)
            if (got[i] != want[i])
                nb_test_fail("%s %s log_n=%u vs GMP: limb %zu (q=%" PRIu64 ") index %zu: got "
                             "%" PRIu64 ", want %" PRIu64,
                             name, inv ? "inverse" : "forward", log_n, i / n, q[i / n], i % n,
                             got[i], want[i]);
    }
    free(a);
    free(want);
    free(got);
    nb_buffer_destroy(dev);
    nb_ntt_destroy(g);
    free(q);
}

static void test_gpu_variants_are_registered_as_gpu(void **state)
{
    (void)state;
    for (size_t v = 0; v < N_VARIANTS; v++) {
        const nb_ntt_variant *gv = nb_ntt_variant_find(gpu_variants[v]);
        if (!gv)
            nb_test_fail("%s not registered: %s", gpu_variants[v], nb_last_error());
        assert_int_equal(gv->backend, NB_BACKEND_GPU);
        assert_int_equal(gv->max_prime_bits, NB_MAX_PRIME_BITS);
        assert_true(gv->min_log_n <= 10 && gv->max_log_n >= 17);
    }
}

static void test_gpu_equals_gmp_reference_at_small_sizes(void **state)
{
    (void)state;
    for (size_t v = 0; v < N_VARIANTS; v++) {
        check_against_gmp(gpu_variants[v], 10, 3);
        check_against_gmp(gpu_variants[v], 11, 2);
    }
}

/* Every size of every variant, with a limb count that varies with the size
 * (the full L x log N grid would be slow on the CPU side for no extra cover:
 * limbs are independent in every kernel). */
static void test_gpu_equals_cpu_every_size(void **state)
{
    (void)state;
    static const size_t limbs_for[18] = {0, 3, 2, 7, 1, 3, 2, 7, 1, 2, /* 10.. */ 64, 7, 32, 2,
                                         7, 32, 2, 7};
    for (size_t v = 0; v < N_VARIANTS; v++) {
        const nb_ntt_variant *gv = nb_ntt_variant_find(gpu_variants[v]);
        assert_non_null(gv);
        for (unsigned log_n = gv->min_log_n; log_n <= gv->max_log_n; log_n++)
            check_variant(gpu_variants[v], log_n, limbs_for[log_n], 0, limbs_for[log_n]);
    }
}

/* One-limb calls at every size (CKKS rescale runs them; gpu-fast runs them
 * in its small shape): alone in a plan, and the middle limb of three, so
 * that the kernels' limb offset is used. */
static void test_gpu_one_limb_calls_every_size(void **state)
{
    (void)state;
    for (size_t v = 0; v < N_VARIANTS; v++) {
        const nb_ntt_variant *gv = nb_ntt_variant_find(gpu_variants[v]);
        assert_non_null(gv);
        for (unsigned log_n = gv->min_log_n; log_n <= gv->max_log_n; log_n++) {
            check_variant(gpu_variants[v], log_n, 1, 0, 1);
            check_variant(gpu_variants[v], log_n, 3, 1, 1);
        }
    }
}

/* The benchmark's size, N = 2^16, at limb counts from one to 64. */
static void test_gpu_equals_cpu_at_n_2_16_for_each_limb_count(void **state)
{
    (void)state;
    static const size_t limbs[] = {1, 2, 7, 32, 64};
    for (size_t v = 0; v < N_VARIANTS; v++)
        for (size_t i = 0; i < sizeof limbs / sizeof limbs[0]; i++)
            check_variant(gpu_variants[v], 16, limbs[i], 0, limbs[i]);
}

static void test_gpu_largest_size_with_many_limbs(void **state)
{
    (void)state;
    for (size_t v = 0; v < N_VARIANTS; v++) {
        check_variant(gpu_variants[v], 17, 64, 0, 64);
        check_variant(gpu_variants[v], 10, 1, 0, 1);
    }
}

/* Calls on a sub-range of the plan's limbs use the right primes and tables
 * and touch nothing outside [first, first + count). */
static void test_gpu_sub_range_calls(void **state)
{
    (void)state;
    for (size_t v = 0; v < N_VARIANTS; v++) {
        check_variant(gpu_variants[v], 16, 7, 3, 4);
        check_variant(gpu_variants[v], 12, 32, 31, 1);
        check_variant(gpu_variants[v], 17, 10, 1, 8);
    }
}

/* The same input twice gives the same output (a race would not, in general). */
static void test_gpu_repeated_runs_agree(void **state)
{
    (void)state;
    const unsigned log_n = 16;
    const size_t limbs = 8, n = (size_t)1 << log_n, words = limbs * n;
    uint64_t q[8];
    make_primes(q, log_n, limbs);
    uint64_t *a = malloc(words * 8), *r1 = malloc(words * 8), *r2 = malloc(words * 8);
    assert_true(a && r1 && r2);
    nb_test_fill_residues(a, n, q, limbs);
    nb_buffer *dev = NULL;
    assert_int_equal(nb_buffer_create(&dev, NB_BACKEND_GPU, words * 8), NB_OK);
    uint64_t *d = (uint64_t *)nb_buffer_ptr(dev);
    for (size_t v = 0; v < N_VARIANTS; v++) {
        nb_ntt *g = NULL;
        assert_int_equal(nb_ntt_create(&g, nb_ntt_variant_find(gpu_variants[v]), log_n, q, NULL,
                                       limbs, stream),
                         NB_OK);
        for (int rep = 0; rep < 2; rep++) {
            assert_int_equal(nb_buffer_upload(dev, 0, a, words * 8, stream), NB_OK);
            for (int k = 0; k < 5; k++) { /* forward, inverse, ..., forward */
                assert_int_equal(nb_ntt_forward(g, d, 0, limbs, stream), NB_OK);
                if (k < 4)
                    assert_int_equal(nb_ntt_inverse(g, d, 0, limbs, stream), NB_OK);
            }
            assert_int_equal(nb_buffer_download(dev, 0, rep ? r2 : r1, words * 8, stream), NB_OK);
        }
        if (memcmp(r1, r2, words * 8) != 0)
            nb_test_fail("%s: two runs on the same input differ", gpu_variants[v]);
        nb_ntt_destroy(g);
    }
    nb_buffer_destroy(dev);
    free(a);
    free(r1);
    free(r2);
}

/* Sizes outside a variant's range are refused with NB_ERR_UNSUPPORTED and a
 * message naming the variant; requests outside the library's contract (log N
 * above 17, a 63-bit modulus) with NB_ERR_INVALID_ARG; nothing is created. */
static void test_gpu_out_of_range_requests_are_refused(void **state)
{
    (void)state;
    uint64_t q[1];
    make_primes(q, 10, 1); /* q = 1 mod 2^11: a valid prime for every log_n <= 10 */
    for (size_t v = 0; v < N_VARIANTS; v++) {
        const nb_ntt_variant *gv = nb_ntt_variant_find(gpu_variants[v]);
        nb_ntt *g = (nb_ntt *)gv; /* any non-NULL value: must be reset to NULL */
        if (gv->min_log_n > 1) {
            assert_int_equal(nb_ntt_create(&g, gv, gv->min_log_n - 1, q, NULL, 1, stream),
                             NB_ERR_UNSUPPORTED);
            assert_null(g);
            assert_non_null(strstr(nb_last_error(), gv->name));
        }
        if (gv->max_log_n < NB_MAX_LOG_N) {
            uint64_t big_q[1];
            make_primes(big_q, gv->max_log_n + 1, 1);
            g = (nb_ntt *)gv;
            assert_int_equal(nb_ntt_create(&g, gv, gv->max_log_n + 1, big_q, NULL, 1, stream),
                             NB_ERR_UNSUPPORTED);
            assert_null(g);
        }
        g = (nb_ntt *)gv;
        assert_int_equal(nb_ntt_create(&g, gv, NB_MAX_LOG_N + 1, q, NULL, 1, stream),
                         NB_ERR_INVALID_ARG);
        assert_null(g);
        const uint64_t big = (1ull << 62) + 1; /* 63 bits */
        assert_int_equal(nb_ntt_create(&g, gv, 10, &big, NULL, 1, stream), NB_ERR_INVALID_ARG);
        assert_null(g);
    }
}

/* gpu-fast's large inverse calls above 2^20 coefficients, whose second kernel
 * takes each limb as soon as the first kernel has finished it: at log N
 * 15..17, on sub-ranges, and three calls in a row on one plan with nothing
 * between them (the per-limb counters must be clear again for each call),
 * against the CPU backend making the same calls. */
static void test_gpu_fast_per_limb_handoff(void **state)
{
    (void)state;
    check_variant("gpu-fast", 15, 64, 0, 64);
    check_variant("gpu-fast", 16, 40, 5, 32);
    check_variant("gpu-fast", 17, 20, 3, 16);
    check_variant("gpu-fast", 17, 32, 0, 32);

    const unsigned log_n = 16;
    const size_t limbs = 40, n = (size_t)1 << log_n, words = limbs * n;
    static const size_t firsts[] = {0, 8, 4}, count = 32;
    uint64_t q[40];
    make_primes(q, log_n, limbs);
    nb_ntt *g = NULL, *c = NULL;
    assert_int_equal(nb_ntt_create(&g, nb_ntt_variant_find("gpu-fast"), log_n, q, NULL, limbs,
                                   stream),
                     NB_OK);
    assert_int_equal(nb_ntt_create(&c, nb_ntt_variant_find("cpu-harvey"), log_n, q, NULL, limbs,
                                   NULL),
                     NB_OK);
    uint64_t *want = malloc(words * 8), *got = malloc(words * 8);
    assert_true(want && got);
    nb_test_fill_residues(want, n, q, limbs);
    nb_buffer *dev = NULL;
    assert_int_equal(nb_buffer_create(&dev, NB_BACKEND_GPU, words * 8), NB_OK);
    uint64_t *d = (uint64_t *)nb_buffer_ptr(dev);
    assert_int_equal(nb_buffer_upload(dev, 0, want, words * 8, stream), NB_OK);
    for (size_t k = 0; k < 3; k++) {
        assert_int_equal(nb_ntt_inverse(c, want + firsts[k] * n, firsts[k], count, NULL), NB_OK);
        assert_int_equal(nb_ntt_inverse(g, d + firsts[k] * n, firsts[k], count, stream), NB_OK);
    }
    assert_int_equal(nb_buffer_download(dev, 0, got, words * 8, stream), NB_OK);
    size_t bad = 0;
    for (size_t i = 0; i < words; i++)
        bad += got[i] != want[i];
    if (bad)
        nb_test_fail("gpu-fast: three inverse calls in a row: %zu of %zu words differ", bad,
                     words);
    nb_buffer_destroy(dev);
    nb_ntt_destroy(g);
    nb_ntt_destroy(c);
    free(want);
    free(got);
}

/* gpu-fast picks its block shape per call from N * count (4 coefficients per
 * thread up to 2^18 coefficients, or 2^20 at log N <= 14; 16 above): both
 * shapes must be exact at every size, so every size runs with 1, 3, 4 and 8
 * limbs (at N = 2^17 the first is below the switch, the others above; at
 * N = 2^16 1 and 4 below, 8 above), 1024 limbs at N = 2^10 (2^20 in all), and
 * a sub-range call whose count alone decides the shape. */
static void test_gpu_fast_every_block_shape(void **state)
{
    (void)state;
    static const size_t limbs[] = {1, 3, 4, 8};
    for (unsigned log_n = 10; log_n <= 17; log_n++)
        for (size_t i = 0; i < sizeof limbs / sizeof limbs[0]; i++)
            check_variant("gpu-fast", log_n, limbs[i], 0, limbs[i]);
    check_variant("gpu-fast", 10, 1024, 0, 1024);
    check_variant("gpu-fast", 13, 40, 5, 32);
}

/* Out-of-place calls: limbs [first, first + count) of a device source into a
 * poisoned destination with guard limbs, forward and inverse, bit-exact with
 * the CPU backend's in-place transform; the source comes back unchanged. */
static void check_out_of_place(const char *name, unsigned log_n, size_t limbs, size_t first,
                               size_t count)
{
    const size_t n = (size_t)1 << log_n, words = count * n, bytes = words * 8;
    uint64_t *q = malloc(limbs * sizeof *q);
    assert_non_null(q);
    make_primes(q, log_n, limbs);
    nb_ntt *g = NULL, *c = NULL;
    if (nb_ntt_create(&g, nb_ntt_variant_find(name), log_n, q, NULL, limbs, stream) != NB_OK)
        nb_test_fail("%s: nb_ntt_create(log_n=%u, L=%zu): %s", name, log_n, limbs,
                     nb_last_error());
    assert_int_equal(nb_ntt_create(&c, nb_ntt_variant_find("cpu-harvey"), log_n, q, NULL, limbs,
                                   NULL),
                     NB_OK);
    nb_buffer *dsrc = NULL, *ddst = NULL;
    assert_int_equal(nb_buffer_create(&dsrc, NB_BACKEND_GPU, bytes), NB_OK);
    assert_int_equal(nb_buffer_create(&ddst, NB_BACKEND_GPU, bytes + 2 * n * 8), NB_OK);
    uint64_t *a = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes + 2 * n * 8);
    assert_true(a && want && got);
    for (int inv = 0; inv < 2; inv++) {
        nb_test_fill_residues(a, n, q + first, count);
        memcpy(want, a, bytes);
        assert_int_equal((inv ? nb_ntt_inverse : nb_ntt_forward)(c, want, first, count, NULL),
                         NB_OK);
        assert_int_equal(nb_buffer_upload(dsrc, 0, a, bytes, stream), NB_OK);
        assert_int_equal(nb_buffer_fill(ddst, 0xA5, stream), NB_OK);
        uint64_t *dst = (uint64_t *)nb_buffer_ptr(ddst) + n;
        const uint64_t *src = nb_buffer_ptr(dsrc);
        nb_status st = (inv ? nb_ntt_inverse_to : nb_ntt_forward_to)(g, dst, src, first, count,
                                                                     stream);
        if (st == NB_OK)
            st = nb_stream_sync(stream);
        if (st != NB_OK)
            nb_test_fail("%s out of place: %s", name, nb_last_error());
        assert_int_equal(nb_buffer_download(ddst, 0, got, bytes + 2 * n * 8, stream), NB_OK);
        for (size_t i = 0; i < n; i++)
            if (got[i] != NB_TEST_POISON || got[n + words + i] != NB_TEST_POISON)
                nb_test_fail("%s out of place log_n=%u: guard word overwritten", name, log_n);
        if (memcmp(got + n, want, bytes) != 0)
            nb_test_fail("%s out of place %s log_n=%u L=%zu [%zu,%zu): differs from cpu-harvey",
                         name, inv ? "inverse" : "forward", log_n, limbs, first, first + count);
        assert_int_equal(nb_buffer_download(dsrc, 0, got, bytes, stream), NB_OK);
        if (memcmp(got, a, bytes) != 0)
            nb_test_fail("%s out of place log_n=%u: source changed", name, log_n);
    }
    free(a);
    free(want);
    free(got);
    nb_buffer_destroy(dsrc);
    nb_buffer_destroy(ddst);
    nb_ntt_destroy(g);
    nb_ntt_destroy(c);
    free(q);
}

/* gpu-fast's own out-of-place path in each of its block shapes (one limb,
 * small, large, above 2^22 coefficients, a sub-range), and a variant
 * without one (the wrapper's copy). */
static void test_gpu_out_of_place_calls(void **state)
{
    (void)state;
    check_out_of_place("gpu-fast", 12, 1, 0, 1);
    check_out_of_place("gpu-fast", 16, 1, 0, 1);
    check_out_of_place("gpu-fast", 16, 8, 0, 8);
    check_out_of_place("gpu-fast", 16, 32, 0, 32);
    check_out_of_place("gpu-fast", 17, 40, 3, 37);
    check_out_of_place("gpu-fast", 13, 40, 5, 32);
    check_out_of_place("gpu-regs", 16, 4, 1, 2);
}

/* gpu-fast reduces less often when every prime of the call is below 2^61
 * (forward every second stage, inverse only sums of sums), as usual
 * otherwise: both, in each block shape (one limb, small, large, above 2^22
 * coefficients), forward and inverse, in place and out of place, and
 * sub-ranges of a plan whose 62-bit limbs are outside the call (fewer
 * reductions) or inside it (the usual ones). */
static void test_gpu_fast_both_reduction_schedules(void **state)
{
    (void)state;
    static const size_t limbs[] = {1, 3, 8, 32};
    cycle_start = 1;
    for (unsigned log_n = 10; log_n <= 17; log_n++)
        for (size_t i = 0; i < sizeof limbs / sizeof limbs[0]; i++)
            check_variant("gpu-fast", log_n, limbs[i], 0, limbs[i]);
    check_variant("gpu-fast", 16, 64, 0, 64);
    check_variant("gpu-fast", 17, 40, 0, 40);
    check_out_of_place("gpu-fast", 16, 1, 0, 1);
    check_out_of_place("gpu-fast", 16, 32, 0, 32);
    cycle_start = 0;
    check_variant("gpu-fast", 16, 12, 1, 9);  /* limbs 1..9: no 62-bit prime */
    check_variant("gpu-fast", 16, 12, 2, 10); /* limb 10 has one */
    check_variant("gpu-fast", 14, 1, 0, 1);   /* one 62-bit limb */
}

/* radix2 covers the small sizes too. */
static void test_gpu_radix2_small_sizes(void **state)
{
    (void)state;
    for (unsigned log_n = 1; log_n < 10; log_n++)
        check_variant("gpu-radix2", log_n, 3, 0, 3);
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
        cmocka_unit_test(test_gpu_variants_are_registered_as_gpu),
        cmocka_unit_test(test_gpu_equals_gmp_reference_at_small_sizes),
        cmocka_unit_test(test_gpu_equals_cpu_every_size),
        cmocka_unit_test(test_gpu_one_limb_calls_every_size),
        cmocka_unit_test(test_gpu_equals_cpu_at_n_2_16_for_each_limb_count),
        cmocka_unit_test(test_gpu_largest_size_with_many_limbs),
        cmocka_unit_test(test_gpu_sub_range_calls),
        cmocka_unit_test(test_gpu_repeated_runs_agree),
        cmocka_unit_test(test_gpu_out_of_range_requests_are_refused),
        cmocka_unit_test(test_gpu_out_of_place_calls),
        cmocka_unit_test(test_gpu_radix2_small_sizes),
        cmocka_unit_test(test_gpu_fast_every_block_shape),
        cmocka_unit_test(test_gpu_fast_per_limb_handoff),
        cmocka_unit_test(test_gpu_fast_both_reduction_schedules),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

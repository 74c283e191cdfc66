/* The fused forward epilogue (nb_ntt_forward_sub_scale) of the GPU variants
 * that offer it (gpu-fast, gpu-fast32), against the CPU backend of the same
 * word size (cpu-harvey, cpu-harvey32: each checked against the GMP
 * reference in the cpu suite) and the epilogue computed here in 128-bit
 * integers: out = (x - NTT(t)) w mod q on fresh seeded random t, x and w
 * (never all zeros), at log N 10, 12, 16 and 17, in the block shapes the
 * variants choose (4 per thread, 16 per thread with and without L2 hints),
 * one part and two parts, sub-range calls (first > 0), out equal to x, primes
 * at the largest sizes each word serves and below the lazy bounds. Out of
 * place, every output word is poisoned first and must be written, and x
 * must stay unchanged. Exits 77 (skip) without a CUDA device. */
#include <string.h>

#include "ntt/arith.h"
#include "testutil.h"

static void *stream;

/* limbs distinct NTT primes for log_n of `bits` bits and one bit less, in
 * turn (the largest of each size not yet taken). */
static void make_primes(uint64_t *q, unsigned log_n, size_t limbs, unsigned bits)
{
    for (size_t l = 0; l < limbs; l++) {
        unsigned b = bits - (unsigned)(l % 2);
        while (nb_primes_generate(log_n, b, 1, q, l, &q[l]) != NB_OK) {
            b--;
            assert_true(b >= log_n + 2);
        }
    }
}

/* Words of `bytes`-byte size: element i as 64 bits, or set it. */
static uint64_t word_at(const void *a, size_t i, size_t bytes)
{
    return bytes == 8 ? ((const uint64_t *)a)[i] : ((const uint32_t *)a)[i];
}
static void word_set(void *a, size_t i, size_t bytes, uint64_t v)
{
    if (bytes == 8)
        ((uint64_t *)a)[i] = v;
    else
        ((uint32_t *)a)[i] = (uint32_t)v;
}

/* Fresh residues mod q[l] for `limbs` limbs of n words (one non-zero each). */
static void fill(void *a, size_t n, const uint64_t *q, size_t limbs, size_t bytes)
{
    for (size_t l = 0; l < limbs; l++) {
        for (size_t i = 0; i < n; i++)
            word_set(a, l * n + i, bytes, nb_test_rand_below(q[l]));
        word_set(a, l * n, bytes, 1 + nb_test_rand_below(q[l] - 1));
    }
}

/* One fused call of variant `name` (CPU oracle `cpu`) over limbs [first,
 * first + count) of a plan of `limbs` primes of `bits` bits (in_place: out =
 * x). parts = 2: the plan's primes are its first half twice (as a CKKS
 * key switch's pair over q_0..q_L), the call covers the plan (first = 0)
 * and part 1 starts at the half, so that limb k of either part has the same
 * prime, which the shared w table needs. */
static void check(const char *name, const char *cpu, unsigned log_n, size_t limbs,
                  unsigned bits, size_t first, size_t count, int parts, int in_place)
{
    const nb_ntt_variant *v = nb_ntt_variant_find(name), *cv = nb_ntt_variant_find(cpu);
    assert_true(v && cv && v->forward_sub_scale && cv->word_bits == v->word_bits);
    assert_true(parts == 1 || (first == 0 && count == limbs && limbs % 2 == 0));
    const size_t n = (size_t)1 << log_n, bytes = v->word_bits / 8, words = count * n;
    const size_t split = parts == 2 ? count / 2 : count;
    uint64_t *q = malloc(limbs * sizeof *q), *w = malloc(count * sizeof *w);
    uint64_t *ws = malloc(count * sizeof *ws);
    assert_true(q && w && ws);
    make_primes(q, log_n, parts == 2 ? limbs / 2 : limbs, bits);
    if (parts == 2)
        memcpy(q + limbs / 2, q, limbs / 2 * sizeof *q);
    nb_ntt *g = NULL, *c = NULL;
    if (nb_ntt_create(&g, v, log_n, q, NULL, limbs, stream) != NB_OK)
        nb_test_fail("%s: nb_ntt_create(log_n=%u, L=%zu): %s", name, log_n, limbs,
                     nb_last_error());
    assert_int_equal(nb_ntt_has_sub_scale(g), 1);
    assert_int_equal(nb_ntt_create_on_tables(&c, cv, nb_ntt_get_tables(g), NULL), NB_OK);
    const uint64_t *ql = q + first;
    for (size_t k = 0; k < split; k++) {
        w[k] = 1 + nb_test_rand_below(ql[k] - 1);
        ws[k] = (uint64_t)(((unsigned __int128)w[k] << 64) / ql[k]);
    }
    void *t = malloc(words * bytes), *x = malloc(words * bytes), *got = malloc(words * bytes);
    void *want = malloc(words * bytes), *x_after = malloc(words * bytes);
    assert_true(t && x && got && want && x_after);
    fill(t, n, ql, count, bytes);
    fill(x, n, ql, count, bytes);
    memcpy(want, t, words * bytes);
    assert_int_equal(nb_ntt_forward(c, want, first, count, NULL), NB_OK);
    for (size_t j = 0; j < count; j++) {
        const size_t k = j < split ? j : j - split;
        const uint64_t p = ql[j];
        for (size_t i = 0; i < n; i++) {
            const size_t at = j * n + i;
            const uint64_t d = (word_at(x, at, bytes) + p - word_at(want, at, bytes)) % p;
            word_set(want, at, bytes, (uint64_t)((unsigned __int128)d * w[k] % p));
        }
    }
    nb_buffer *dt = NULL, *dx = NULL, *dout = NULL, *dw = NULL;
    assert_int_equal(nb_buffer_create(&dt, NB_BACKEND_GPU, words * bytes), NB_OK);
    assert_int_equal(nb_buffer_create(&dx, NB_BACKEND_GPU, words * bytes), NB_OK);
    assert_int_equal(nb_buffer_create(&dout, NB_BACKEND_GPU, words * bytes), NB_OK);
    assert_int_equal(nb_buffer_create(&dw, NB_BACKEND_GPU, 2 * split * sizeof(uint64_t)), NB_OK);
    assert_int_equal(nb_buffer_upload(dt, 0, t, words * bytes, stream), NB_OK);
    assert_int_equal(nb_buffer_upload(dx, 0, x, words * bytes, stream), NB_OK);
    assert_int_equal(nb_buffer_fill(dout, 0xA5, stream), NB_OK);
    assert_int_equal(nb_buffer_upload(dw, 0, w, split * 8, stream), NB_OK);
    assert_int_equal(nb_buffer_upload(dw, split * 8, ws, split * 8, stream), NB_OK);
    char *xo = nb_buffer_ptr(dx), *oo = in_place ? xo : nb_buffer_ptr(dout);
    const uint64_t *wd = nb_buffer_ptr(dw);
    const nb_ntt_sub_scale e = {{oo, oo + split * n * bytes},
                                {xo, xo + split * n * bytes},
                                split,
                                wd,
                                wd + split};
    nb_status s = nb_ntt_forward_sub_scale(g, nb_buffer_ptr(dt), &e, first, count, stream);
    if (s == NB_OK)
        s = nb_stream_sync(stream);
    if (s != NB_OK)
        nb_test_fail("%s: fused call failed: %s", name, nb_last_error());
    assert_int_equal(nb_buffer_download(in_place ? dx : dout, 0, got, words * bytes, stream),
                     NB_OK);
    assert_int_equal(nb_buffer_download(dx, 0, x_after, words * bytes, stream), NB_OK);
    assert_int_equal(nb_stream_sync(stream), NB_OK);
    for (size_t i = 0; i < words; i++)
        if (word_at(got, i, bytes) != word_at(want, i, bytes))
            nb_test_fail("%s log_n=%u L=%zu [%zu, +%zu) parts=%d%s: limb %zu (q=%" PRIu64
                         ") index %zu: got %" PRIu64 ", want %" PRIu64,
                         name, log_n, limbs, first, count, parts, in_place ? " in place" : "",
                         first + i / n, ql[i / n], i % n, word_at(got, i, bytes),
                         word_at(want, i, bytes));
    if (!in_place && memcmp(x, x_after, words * bytes))
        nb_test_fail("%s: the epilogue's x changed", name);
    free(t), free(x), free(got), free(want), free(x_after), free(q), free(w), free(ws);
    nb_buffer_destroy(dt), nb_buffer_destroy(dx), nb_buffer_destroy(dout), nb_buffer_destroy(dw);
    nb_ntt_destroy(c);
    nb_ntt_destroy(g);
}

/* The calls of one word size: 4 per thread at log N 10 and 12 (one part,
 * a sub-range; two parts in place), 16 per thread with L2 hints at log N 16
 * (two parts; a sub-range), and without them above 32 MiB at log N 17 (two
 * parts), each with a prime at the word's largest size (`big`) or every
 * prime below its lazy bound (`lazy`). */
static void check_word(const char *name, const char *cpu, unsigned big, unsigned lazy,
                       size_t huge_limbs)
{
    check(name, cpu, 10, 1, big, 0, 1, 1, 0);
    check(name, cpu, 12, 6, big, 2, 3, 1, 0);
    check(name, cpu, 12, 4, lazy, 0, 4, 2, 1);
    check(name, cpu, 16, 16, lazy, 0, 16, 2, 0);
    check(name, cpu, 16, 12, big, 3, 9, 1, 0);
    check(name, cpu, 16, 12, big, 3, 9, 1, 1);
    check(name, cpu, 17, huge_limbs, lazy, 0, huge_limbs, 2, 0);
}

static void test_gpu_fast_epilogue_matches_cpu(void **state)
{
    (void)state;
    check_word("gpu-fast", "cpu-harvey", 62, 60, 34); /* 34 x 2^17 x 8 bytes > 32 MiB */
}

static void test_gpu_fast32_epilogue_matches_cpu(void **state)
{
    (void)state;
    check_word("gpu-fast32", "cpu-harvey32", 31, 30, 66); /* 66 x 2^17 x 4 bytes > 32 MiB */
}

/* The fused call's kernels: the plain forward call's two, the row kernel
 * named for the epilogue. */
static void test_epilogue_kernels_are_the_forward_calls(void **state)
{
    (void)state;
    const char *names[] = {"gpu-fast", "gpu-fast32"};
    for (int i = 0; i < 2; i++) {
        const nb_ntt_variant *v = nb_ntt_variant_find(names[i]);
        uint64_t q[4];
        make_primes(q, 16, 4, v->word_bits == 32 ? 30 : 60);
        nb_ntt *g = NULL;
        assert_int_equal(nb_ntt_create(&g, v, 16, q, NULL, 4, stream), NB_OK);
        nb_ntt_kernel plain[4], fused[4];
        size_t np = 0, nf = 0;
        assert_int_equal(nb_ntt_kernels(g, 0, 0, 4, plain, 4, &np), NB_OK);
        assert_int_equal(nb_ntt_kernels(g, NB_NTT_KERNELS_SUB_SCALE, 0, 4, fused, 4, &nf),
                         NB_OK);
        assert_int_equal(np, 2);
        assert_int_equal(nf, 2);
        assert_string_equal(fused[0].name, plain[0].name);
        assert_non_null(strstr(fused[1].name, plain[1].name));
        assert_non_null(strstr(fused[1].name, "sub-scale"));
        assert_int_equal(fused[1].blocks, plain[1].blocks);
        nb_ntt_destroy(g);
    }
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
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_fast_epilogue_matches_cpu),
        cmocka_unit_test(test_gpu_fast32_epilogue_matches_cpu),
        cmocka_unit_test(test_epilogue_kernels_are_the_forward_calls),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* GPU CKKS pipelines against the CPU pipelines (themselves checked against
 * GMP in test_ckks_pipeline and test_ckks_words): modUp, modDown, key
 * switch and rescale (both roundings) bit-exact for the paper-sized presets
 * and the 32-bit sets, with every GPU NTT variant that supports the set, on
 * its word size (the 64-bit CPU pipeline is the oracle for both: 32-bit
 * data are narrowed on upload and widened on download), plus the GPU base
 * conversion on the partial-reduction and large-shared-memory paths and the
 * 32-bit conversions on the CUDA cores (sets at N = 8).
 * Outputs are poisoned on the device first (0xA5 bytes: above every prime of
 * either word size). Exits 77 (skip) without a device. */
#include <stdlib.h>
#include <string.h>

#include "bench/tiers/ntt.h"
#include "ckks/ckks.h"
#include "ckksutil.h"

static void *stream;
static unsigned word = 64; /* the word size of the GPU side being checked */

static uint64_t *host_alloc(size_t words)
{
    uint64_t *a = malloc(words * sizeof *a);
    assert_non_null(a);
    return a;
}

static nb_buffer *dev_alloc(size_t words)
{
    nb_buffer *b = NULL;
    if (nb_buffer_create(&b, NB_BACKEND_GPU, words * sizeof(uint64_t)) != NB_OK)
        nb_test_fail("device alloc of %zu words: %s", words, nb_last_error());
    assert_int_equal(nb_buffer_fill(b, 0xA5, stream), NB_OK);
    return b;
}

/* h (64-bit words) on the device in `word`-bit words. */
static nb_buffer *dev_from(const uint64_t *h, size_t words)
{
    nb_buffer *b = dev_alloc(words);
    if (word == 32) {
        uint32_t *t = malloc(words * sizeof *t);
        assert_non_null(t);
        nb_words_from_u64(t, h, words, 32);
        assert_int_equal(nb_buffer_upload(b, 0, t, words * sizeof *t, stream), NB_OK);
        assert_int_equal(nb_stream_sync(stream), NB_OK);
        free(t);
    } else {
        assert_int_equal(nb_buffer_upload(b, 0, h, words * sizeof *h, stream), NB_OK);
    }
    return b;
}

/* The first `words` words of a device buffer of `word`-bit words, widened. */
static void download_words(const nb_buffer *got, uint64_t *h, size_t words)
{
    assert_int_equal(nb_buffer_download(got, 0, h, words * (word / 8), stream), NB_OK);
    assert_int_equal(nb_stream_sync(stream), NB_OK);
    nb_words_to_u64(h, h, words, word);
}

static void expect_device_equals(const char *what, const uint64_t *want, const nb_buffer *got,
                                 size_t limbs, size_t n)
{
    uint64_t *h = host_alloc(limbs * n);
    if (nb_stream_sync(stream) != NB_OK)
        nb_test_fail("%s: %s", what, nb_last_error());
    download_words(got, h, limbs * n);
    expect_equal(what, want, h, limbs, n);
    free(h);
}

/* words = 0: either word size; else only variants of that word size */
static int variant_fits(const nb_ntt_variant *v, const nb_ckks_params *p, unsigned words)
{
    if (v->backend != NB_BACKEND_GPU || (words && v->word_bits != words) ||
        p->log_n < v->min_log_n || p->log_n > v->max_log_n)
        return 0;
    for (size_t i = 0; i < p->q_count + p->alpha; i++)
        if (p->primes[i] >> v->max_prime_bits)
            return 0;
    return 1;
}

/* All four stages at levels L and L/2 with one GPU variant. */
static void check_preset_with(const nb_ckks_params *p, nb_ckks *cpu, const nb_ntt_variant *v)
{
    nb_ckks *gpu = NULL;
    word = v->word_bits;
    if (nb_ckks_create(&gpu, p, v, stream) != NB_OK)
        nb_test_fail("%s with %s: %s", p->name, v->name, nb_last_error());
    const size_t n = p->n, A = p->alpha;
    const size_t key_words = nb_ckks_key_limbs(p) * n;
    uint64_t *key = host_alloc(key_words);
    const size_t per = p->q_count + A;
    for (size_t poly = 0; poly < key_words / (per * n); poly++)
        nb_test_fill_residues(key + poly * per * n, n, p->primes, per);
    nb_buffer *dkey = dev_from(key, key_words);
    const size_t g = p->rescale_primes;
    const size_t levels[2] = {p->max_level, p->max_level / 2 >= g ? p->max_level / 2 : g};
    char what[160];
    for (int li = 0; li < 2; li++) {
        const size_t l = levels[li], L1 = l + 1, E = L1 + A;
        uint64_t basis[600];
        nb_ckks_basis_ext(p, l, basis);
        uint64_t *in = host_alloc(E * n);
        nb_test_fill_residues(in, n, basis, E);
        nb_buffer *din = dev_from(in, E * n);
        uint64_t *want0 = host_alloc(E * n), *want1 = host_alloc(E * n);
        nb_buffer *o0 = dev_alloc(E * n), *o1 = dev_alloc(E * n);
        uint64_t *dout0 = nb_buffer_ptr(o0), *dout1 = nb_buffer_ptr(o1);
        const uint64_t *dinp = nb_buffer_ptr(din);

        for (size_t j = 0; j < nb_ckks_digits(p, l); j++) {
            assert_int_equal(nb_ckks_modup(cpu, l, j, want0, in, NULL, NULL), NB_OK);
            assert_int_equal(nb_buffer_fill(o0, 0xA5, stream), NB_OK);
            if (nb_ckks_modup(gpu, l, j, dout0, dinp, NULL, stream) != NB_OK)
                nb_test_fail("GPU modUp: %s", nb_last_error());
            snprintf(what, sizeof what, "%s %s modUp level %zu digit %zu", p->name, v->name, l, j);
            expect_device_equals(what, want0, o0, E, n);
        }

        {
            const size_t D = nb_ckks_digits(p, l);
            uint64_t *all = host_alloc(D * E * n);
            nb_buffer *dall = dev_alloc(D * E * n);
            assert_int_equal(nb_ckks_modup_all(cpu, l, all, in, NULL, NULL), NB_OK);
            if (nb_ckks_modup_all(gpu, l, nb_buffer_ptr(dall), dinp, NULL, stream) != NB_OK)
                nb_test_fail("GPU modUp (all digits): %s", nb_last_error());
            snprintf(what, sizeof what, "%s %s modUp all digits level %zu", p->name, v->name, l);
            expect_device_equals(what, all, dall, D * E, n);
            nb_buffer_destroy(dall);
            free(all);
        }

        assert_int_equal(nb_ckks_moddown(cpu, l, want0, in, NULL, NULL), NB_OK);
        assert_int_equal(nb_buffer_fill(o0, 0xA5, stream), NB_OK);
        if (nb_ckks_moddown(gpu, l, dout0, dinp, NULL, stream) != NB_OK)
            nb_test_fail("GPU modDown: %s", nb_last_error());
        snprintf(what, sizeof what, "%s %s modDown level %zu", p->name, v->name, l);
        expect_device_equals(what, want0, o0, L1, n);

        assert_int_equal(nb_ckks_keyswitch(cpu, l, want0, want1, in, key, NULL, NULL), NB_OK);
        assert_int_equal(nb_buffer_fill(o0, 0xA5, stream), NB_OK);
        assert_int_equal(nb_buffer_fill(o1, 0xA5, stream), NB_OK);
        if (nb_ckks_keyswitch(gpu, l, dout0, dout1, dinp, nb_buffer_ptr(dkey), NULL, stream) !=
            NB_OK)
            nb_test_fail("GPU key switch: %s", nb_last_error());
        snprintf(what, sizeof what, "%s %s key switch out0 level %zu", p->name, v->name, l);
        expect_device_equals(what, want0, o0, L1, n);
        snprintf(what, sizeof what, "%s %s key switch out1 level %zu", p->name, v->name, l);
        expect_device_equals(what, want1, o1, L1, n);

        for (int mode = 0; mode < 2; mode++) {
            assert_int_equal(nb_ckks_rescale(cpu, l, (nb_ckks_rounding)mode, want0, in, NULL,
                                             NULL),
                             NB_OK);
            assert_int_equal(nb_buffer_fill(o0, 0xA5, stream), NB_OK);
            if (nb_ckks_rescale(gpu, l, (nb_ckks_rounding)mode, dout0, dinp, NULL, stream) !=
                NB_OK)
                nb_test_fail("GPU rescale: %s", nb_last_error());
            snprintf(what, sizeof what, "%s %s rescale(%s) level %zu", p->name, v->name,
                     mode ? "round" : "floor", l);
            expect_device_equals(what, want0, o0, l + 1 - g, n);
        }
        /* the device input is unchanged by all of the above */
        snprintf(what, sizeof what, "%s %s input preserved", p->name, v->name);
        expect_device_equals(what, in, din, E, n);
        nb_buffer_destroy(din);
        nb_buffer_destroy(o0);
        nb_buffer_destroy(o1);
        free(in);
        free(want0);
        free(want1);
    }
    nb_buffer_destroy(dkey);
    free(key);
    nb_ckks_destroy(gpu);
}

/* every_variant = 0: only the first fitting GPU variant; words: 0 (any) or
 * the word size of the variants to run. spec used when name is NULL.
 * Returns the number of variants checked. */
static int check_set(const char *name, const nb_ckks_spec *spec, int every_variant,
                     unsigned words)
{
    nb_ckks_params *p = NULL;
    if ((name ? nb_ckks_params_from_preset(&p, name) : nb_ckks_params_create(&p, spec)) != NB_OK)
        nb_test_fail("params: %s", nb_last_error());
    name = p->name;
    nb_ckks *cpu = NULL;
    assert_int_equal(nb_ckks_create(&cpu, p, nb_ntt_variant_find("cpu-harvey"), NULL), NB_OK);
    int ran = 0;
    for (size_t i = 0; i < nb_ntt_variant_count(); i++) {
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        if (!variant_fits(v, p, words))
            continue;
        printf("# %s with %s\n", name, v->name);
        fflush(stdout);
        check_preset_with(p, cpu, v);
        ran++;
        if (!every_variant)
            break;
    }
    if (!ran)
        printf("# %s: no GPU variant supports this set\n", name);
    nb_ckks_destroy(cpu);
    nb_ckks_params_destroy(p);
    return ran;
}

static void check_preset(const char *name, int every_variant, unsigned words)
{
    (void)check_set(name, NULL, every_variant, words);
}

static void test_gpu_pipelines_match_cpu_logn16_every_variant(void **state)
{
    (void)state;
    check_preset("ckks16-l30-d3", 1, 64);
}

static void test_gpu_pipelines_match_cpu_paper_presets(void **state)
{
    (void)state;
    check_preset("test-medium", 1, 64);
    check_preset("100x-16-d3", 0, 64);
    check_preset("100x-17-d3", 0, 64);
    check_preset("100x-16-d45", 0, 64);
    check_preset("cheddar16-boot-w64", 0, 64);
}

/* 32-bit sets with every variant of either word size (the two-prime
 * rescale on 64-bit words too), and the 32-bit conversion kernels a device
 * with sm_80 code runs: the tensor-core one with 1 to 8 eight-prime steps
 * (the presets: 21 and 12 source primes; dnum 2: 40, whose constants exceed
 * 48 KiB; 5 with pairs; dnum 1 at 64 primes: 64 x 64, the most it takes;
 * one source prime at N = 32; N = 16, one warp's tile) and the general one
 * with its table in global memory (dnum 1: 110 x 110 primes, 48 KiB of
 * table). */
static void test_gpu_pipelines_on_32bit_sets_match_cpu(void **state)
{
    (void)state;
    check_preset("ckks16-l30-d3-w32", 1, 0);
    check_preset("cheddar16-boot-w32", 0, 32);
    const nb_ckks_spec wide = {10, 109, 1, 31, 30, 31, 32, 1, 1};
    check_set(NULL, &wide, 0, 32);
    const nb_ckks_spec most = {10, 63, 1, 31, 30, 31, 32, 1, 1};
    check_set(NULL, &most, 0, 32);
    const nb_ckks_spec forty = {10, 79, 2, 31, 30, 31, 32, 1, 1};
    check_set(NULL, &forty, 0, 32);
    const nb_ckks_spec small = {12, 13, 3, 25, 40, 28, 32, 2, 2}; /* small primes, pairs */
    check_set(NULL, &small, 1, 32);
    check_preset("test-tiny-w32", 0, 32); /* N = 16: one partial tile */
    const nb_ckks_spec single = {5, 3, 4, 31, 28, 31, 32, 0, 0}; /* one source prime */
    check_set(NULL, &single, 0, 32);
}

/* The 32-bit conversions on the CUDA cores, which sets of N >= 16 on a
 * device with sm_80 code never reach (the tensor-core kernel takes them):
 * at N = 8, below its 16-coefficient tile, the pipelined kernel (a
 * test-small-w32 shape: up to 14 targets, its constants and two tiles within
 * 48 KiB) and the one-tile-per-block kernel (dnum 2 at 80 primes: 40 source
 * primes x 80 targets, whose pipelined layout exceeds 48 KiB). */
static void test_gpu_32bit_conversions_on_cuda_cores_match_cpu(void **state)
{
    (void)state;
    const nb_ckks_spec pipe = {3, 13, 3, 31, 50, 31, 32, 2, 2};
    assert_int_equal(check_set(NULL, &pipe, 0, 32), 1);
    const nb_ckks_spec tiled = {3, 79, 2, 31, 30, 31, 32, 1, 1};
    assert_int_equal(check_set(NULL, &tiled, 0, 32), 1);
}

/* GPU against CPU base conversion; the GPU input starts `in_off` words into
 * its buffer (1: only 8-byte aligned). */
static void check_baseconv(unsigned log_n, unsigned bits, size_t n_from, size_t n_to,
                           size_t in_off)
{
    const size_t n = (size_t)1 << log_n;
    uint64_t from[256], to[256];
    word = 64; /* the stand-alone plan takes 64-bit words */
    assert_int_equal(nb_primes_generate(log_n, bits, n_from, NULL, 0, from), NB_OK);
    assert_int_equal(nb_primes_generate(log_n, bits, n_to, from, n_from, to), NB_OK);
    uint64_t *in = host_alloc(n_from * n), *want = host_alloc(n_to * n);
    nb_test_fill_residues(in, n, from, n_from);
    nb_baseconv_plan *cp = NULL, *gp = NULL;
    assert_int_equal(
        nb_baseconv_plan_create(&cp, NB_BACKEND_CPU, log_n, from, n_from, to, n_to, NULL), NB_OK);
    assert_int_equal(nb_baseconv_plan_create(&gp, NB_BACKEND_GPU, log_n, from, n_from, to, n_to,
                                             stream),
                     NB_OK);
    assert_int_equal(nb_baseconv_apply(cp, want, in, NULL), NB_OK);
    nb_buffer *din = dev_alloc(in_off + n_from * n), *dout = dev_alloc(n_to * n);
    assert_int_equal(
        nb_buffer_upload(din, in_off * sizeof *in, in, n_from * n * sizeof *in, stream), NB_OK);
    const uint64_t *din_ptr = (const uint64_t *)nb_buffer_ptr(din) + in_off;
    if (nb_baseconv_apply(gp, nb_buffer_ptr(dout), din_ptr, stream) != NB_OK)
        nb_test_fail("GPU baseconv: %s", nb_last_error());
    char what[112];
    snprintf(what, sizeof what, "baseconv logn=%u %u-bit %zu->%zu input offset %zu", log_n, bits,
             n_from, n_to, in_off);
    expect_device_equals(what, want, dout, n_to, n);
    nb_buffer_destroy(din);
    nb_buffer_destroy(dout);
    nb_baseconv_plan_destroy(cp);
    nb_baseconv_plan_destroy(gp);
    free(in);
    free(want);
}

static void test_gpu_baseconv_matches_cpu(void **state)
{
    (void)state;
    check_baseconv(12, 50, 12, 40, 0);
    check_baseconv(16, 62, 11, 31, 0);  /* the ckks16-l30-d3 shape (unrolled, Montgomery) */
    check_baseconv(12, 50, 12, 40, 1);  /* input only 8-byte aligned */
    check_baseconv(10, 62, 100, 20, 0); /* partial reductions in 128 bits */
    check_baseconv(8, 55, 200, 30, 1);  /* 50 KiB of shared memory: above the 48 KiB default */
    check_baseconv(11, 62, 16, 20, 0); /* the most source primes of the unrolled kernel */
    check_baseconv(11, 62, 17, 9, 0);  /* one more: the general kernel */
    check_baseconv(5, 40, 3, 7, 0);     /* N of one tile */
    check_baseconv(9, 45, 1, 37, 0);    /* one source prime; a last group of one target */
    check_baseconv(10, 62, 150, 45, 0); /* table in global memory, partial reductions */
}

int main(void)
{
    nb_test_require_gpu_or_skip();
    nb_test_seed_init();
    if (nb_stream_create(&stream) != NB_OK) {
        printf("cannot create a stream: %s\n", nb_last_error());
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_baseconv_matches_cpu),
        cmocka_unit_test(test_gpu_pipelines_match_cpu_logn16_every_variant),
        cmocka_unit_test(test_gpu_pipelines_match_cpu_paper_presets),
        cmocka_unit_test(test_gpu_pipelines_on_32bit_sets_match_cpu),
        cmocka_unit_test(test_gpu_32bit_conversions_on_cuda_cores_match_cpu),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    nb_stream_destroy(stream);
    return rc;
}

/* Tests of CKKS parameter sets: every preset generates, primes are distinct,
 * NTT-friendly, of the requested sizes, Q and P disjoint; digits cover Q_l;
 * NTT counts follow the pipelines; bad specifications fail cleanly. */
#include <math.h>
#include <string.h>

#include "ckks/ckks.h"
#include "ckks/consts.h"
#include "ntt/arith.h"
#include "testutil.h"

static unsigned bitlen(uint64_t x)
{
    unsigned b = 0;
    while (x) {
        b++;
        x >>= 1;
    }
    return b;
}

static void check_params(const nb_ckks_params *p)
{
    const nb_ckks_spec *s = &p->spec;
    const size_t total = p->q_count + p->alpha;
    assert_int_equal(p->q_count, s->levels + 1);
    assert_int_equal(p->alpha, (s->levels + 1 + s->dnum - 1) / s->dnum);
    assert_int_equal(p->n, (size_t)1 << s->log_n);
    const size_t base = p->q0_count, g = p->rescale_primes;
    assert_true(base >= 1 && (g == 1 || g == 2) && (p->q_count - base) % g == 0);
    for (size_t i = 0; i < total; i++) {
        assert_int_equal(nb_prime_validate(p->primes[i], s->log_n), NB_OK);
        if (p->word_bits == 32 && p->primes[i] >> 31)
            nb_test_fail("prime %zu = %llu is not below 2^31 in a 32-bit set", i,
                         (unsigned long long)p->primes[i]);
        const int pair = g == 2 && i >= base && i < p->q_count;
        unsigned want = i < base ? s->q0_bits : i < p->q_count ? s->q_bits : s->p_bits;
        unsigned got = bitlen(p->primes[i]);
        if (pair && (i - base) % 2 == 0) /* the pair's product has q_bits bits */
            got = bitlen(p->primes[i]) + bitlen(p->primes[i + 1]) -
                  ((unsigned __int128)p->primes[i] * p->primes[i + 1] <
                   (unsigned __int128)1 << (bitlen(p->primes[i]) + bitlen(p->primes[i + 1]) - 1));
        if (pair && (i - base) % 2 == 1)
            continue;
        if (got != want)
            nb_test_fail("prime %zu = %llu has %u bits%s, want %u", i,
                         (unsigned long long)p->primes[i], got, pair ? " (with its pair)" : "",
                         want);
        for (size_t j = 0; j < i; j++)
            if (p->primes[i] == p->primes[j])
                nb_test_fail("primes %zu and %zu are equal (%llu)", j, i,
                             (unsigned long long)p->primes[i]);
    }
    assert_ptr_equal(p->q, p->primes);
    assert_ptr_equal(p->p, p->primes + p->q_count);
}

static void test_every_preset_generates_distinct_ntt_friendly_primes(void **state)
{
    (void)state;
    assert_true(nb_ckks_preset_count() >= 6);
    for (size_t i = 0; i < nb_ckks_preset_count(); i++) {
        const nb_ckks_preset *pr = nb_ckks_preset_at(i);
        assert_non_null(pr);
        assert_non_null(pr->source);
        assert_true(strlen(pr->source) > 10);
        assert_ptr_equal(nb_ckks_preset_find(pr->name), pr);
        nb_ckks_params *p = NULL;
        if (nb_ckks_params_from_preset(&p, pr->name) != NB_OK)
            nb_test_fail("preset %s: %s", pr->name, nb_last_error());
        assert_string_equal(p->name, pr->name);
        check_params(p);
        nb_ckks_params_destroy(p);
    }
    assert_null(nb_ckks_preset_at(nb_ckks_preset_count()));
}

static void test_unknown_preset_is_not_found(void **state)
{
    (void)state;
    nb_ckks_params *p = (nb_ckks_params *)0x1;
    assert_null(nb_ckks_preset_find("no-such-preset"));
    assert_int_equal(nb_ckks_params_from_preset(&p, "no-such-preset"), NB_ERR_NOT_FOUND);
    assert_null(p);
    assert_non_null(strstr(nb_last_error(), "no-such-preset"));
}

static void test_generation_is_deterministic(void **state)
{
    (void)state;
    nb_ckks_params *a = NULL, *b = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&a, "test-small"), NB_OK);
    assert_int_equal(nb_ckks_params_from_preset(&b, "test-small"), NB_OK);
    assert_memory_equal(a->primes, b->primes, (a->q_count + a->alpha) * sizeof(uint64_t));
    nb_ckks_params_destroy(a);
    nb_ckks_params_destroy(b);
}

static void test_equal_q_and_p_sizes_stay_disjoint(void **state)
{
    (void)state;
    /* all primes of one size: Q and P must still share none */
    nb_ckks_spec s = {8, 9, 2, 40, 40, 40, 64, 1, 1};
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_create(&p, &s), NB_OK);
    check_params(p);
    assert_string_equal(p->name, "custom");
    nb_ckks_params_destroy(p);
}

static void test_digits_partition_each_level(void **state)
{
    (void)state;
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "test-small"), NB_OK); /* L=7, dnum=3 */
    assert_int_equal(p->alpha, 3);
    for (size_t l = 0; l <= p->max_level; l++) {
        size_t next = 0, digits = nb_ckks_digits(p, l);
        assert_int_equal(digits, (l + 1 + 2) / 3);
        for (size_t j = 0; j < digits; j++) {
            size_t first, count;
            nb_ckks_digit_range(p, l, j, &first, &count);
            assert_int_equal(first, next);
            assert_true(count >= 1 && count <= p->alpha);
            next = first + count;
        }
        assert_int_equal(next, l + 1);
    }
    uint64_t ext[16];
    nb_ckks_basis_ext(p, 2, ext);
    assert_int_equal(ext[2], p->q[2]);
    assert_int_equal(ext[3], p->p[0]);
    assert_int_equal(nb_ckks_key_limbs(p), 3 * 2 * (8 + 3));
    nb_ckks_params_destroy(p);
}

static void test_ntt_counts_follow_the_pipelines(void **state)
{
    (void)state;
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "100x-17-d3"), NB_OK); /* L=29 dnum=3 */
    assert_int_equal(p->alpha, 10);
    size_t f, i;
    nb_ckks_ntt_counts(p, NB_CKKS_STAGE_MODUP, 29, &f, &i);
    assert_int_equal(i, 30);               /* every Q limb once */
    assert_int_equal(f, 3 * (30 + 10) - 30); /* every new limb of 3 extended polys */
    nb_ckks_ntt_counts(p, NB_CKKS_STAGE_MODDOWN, 29, &f, &i);
    assert_int_equal(i, 10);
    assert_int_equal(f, 30);
    nb_ckks_ntt_counts(p, NB_CKKS_STAGE_KEYSWITCH, 29, &f, &i);
    assert_int_equal(i, 30 + 2 * 10);
    assert_int_equal(f, 90 + 2 * 30);
    nb_ckks_ntt_counts(p, NB_CKKS_STAGE_RESCALE, 29, &f, &i);
    assert_int_equal(i, 1);
    assert_int_equal(f, 29);
    /* a partial last digit: level 20 has digits of 10, 10 and 1 primes */
    nb_ckks_ntt_counts(p, NB_CKKS_STAGE_MODUP, 20, &f, &i);
    assert_int_equal(i, 21);
    assert_int_equal(f, 3 * (21 + 10) - 21);
    nb_ckks_params_destroy(p);
}

static void test_bad_specs_are_rejected(void **state)
{
    (void)state;
    const nb_ckks_spec bad[] = {
        {0, 3, 1, 40, 40, 40, 64, 1, 1},  /* log_n */
        {18, 3, 1, 40, 40, 40, 64, 1, 1}, /* log_n */
        {8, 0, 1, 40, 40, 40, 64, 1, 1},  /* levels */
        {8, 3, 0, 40, 40, 40, 64, 1, 1},  /* dnum */
        {8, 3, 5, 40, 40, 40, 64, 1, 1},  /* dnum > L+1 */
        {8, 3, 1, 63, 40, 40, 64, 1, 1},  /* q0 bits */
        {8, 3, 1, 40, 9, 40, 64, 1, 1},   /* q bits < log_n + 2 */
        {8, 3, 1, 40, 40, 70, 64, 1, 1},  /* p bits */
        {12, 200, 1, 14, 14, 14, 64, 1, 1}, /* too few 14-bit primes = 1 mod 2^13 */
        {8, 3, 1, 40, 30, 30, 32, 1, 1},  /* 32-bit words: q0 bits above 31 */
        {8, 3, 1, 30, 30, 30, 16, 1, 1},  /* word size */
        {8, 4, 1, 30, 50, 30, 32, 2, 3},  /* rescale_primes 3 */
        {8, 4, 1, 30, 50, 30, 32, 5, 1},  /* q0_count > L */
        {8, 5, 1, 30, 50, 30, 32, 1, 2},  /* 5 scaling primes do not pair up */
        {8, 4, 1, 30, 63, 30, 64, 1, 2},  /* a pair's product above 62 bits */
        {16, 121, 3, 31, 51, 31, 32, 2, 2}, /* 60 pairs: too few primes below 2^25.5 */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        nb_ckks_params *p = (nb_ckks_params *)0x1;
        nb_status s = nb_ckks_params_create(&p, &bad[k]);
        if (s != NB_ERR_INVALID_ARG)
            nb_test_fail("bad spec %zu: got %s", k, nb_status_str(s));
        assert_null(p);
        assert_true(strlen(nb_last_error()) > 0);
    }
    assert_int_equal(nb_ckks_params_create(NULL, &bad[0]), NB_ERR_INVALID_ARG);
    nb_ckks_params_destroy(NULL);
}

/* The 32-bit twin keeps what the question needs equal: the same N and
 * dnum, log Q within one 31-bit prime of the 64-bit set's, log P within one
 * of the 64-bit set's primes (alpha = ceil(62/3) = 21 31-bit primes against
 * 11 62-bit ones), and every rescale dropping within one bit below the
 * 64-bit set's q_bits. */
static double log2_product(const uint64_t *q, size_t count)
{
    double b = 0;
    for (size_t i = 0; i < count; i++)
        b += log2((double)q[i]);
    return b;
}

static void test_w32_twin_matches_its_64bit_set(void **state)
{
    (void)state;
    nb_ckks_params *p64 = NULL, *p32 = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p64, "ckks16-l30-d3"), NB_OK);
    assert_int_equal(nb_ckks_params_from_preset(&p32, "ckks16-l30-d3-w32"), NB_OK);
    assert_int_equal(p32->word_bits, 32);
    assert_int_equal(p32->log_n, p64->log_n);
    assert_int_equal(p32->dnum, p64->dnum);
    assert_int_equal(p32->rescale_primes, 2);
    const double q64 = log2_product(p64->q, p64->q_count),
                 q32 = log2_product(p32->q, p32->q_count);
    const double pp64 = log2_product(p64->p, p64->alpha), pp32 = log2_product(p32->p, p32->alpha);
    if (fabs(q64 - q32) > 31 || fabs(pp64 - pp32) > 62)
        nb_test_fail("log Q %.1f vs %.1f (at most 31 apart), log P %.1f vs %.1f (at most 62)",
                     q32, q64, pp32, pp64);
    /* the same number of levels, each dropping about q_bits */
    assert_int_equal((p32->q_count - p32->q0_count) / 2, p64->q_count - 1);
    for (size_t l = p32->q_count - 1; l > p32->q0_count; l -= 2) {
        const double drop = log2_product(p32->q + l - 1, 2);
        if (drop < p64->spec.q_bits - 1 || drop > p64->spec.q_bits)
            nb_test_fail("level %zu drops %.3f bits, want within one below %u", l, drop,
                         p64->spec.q_bits);
    }
    size_t f, i;
    nb_ckks_ntt_counts(p32, NB_CKKS_STAGE_RESCALE, p32->q_count - 1, &f, &i);
    assert_int_equal(i, 2);
    assert_int_equal(f, p32->q_count - 2);
    nb_ckks_params_destroy(p64);
    nb_ckks_params_destroy(p32);
}

/* The Montgomery path of the GPU base conversion: for sums of `count`
 * products x*y (x < max_a, y < b), worst case and random, nb_redc_128 then
 * the planned conditional subtractions give S 2^-64 mod b exactly; the plan
 * refuses sums that can leave nb_redc_128's domain. */
static void check_redc_plan(uint64_t max_a, uint64_t b, size_t count, uint32_t want_steps)
{
    const uint32_t steps = nb_conv_redc_steps(max_a, b, count);
    assert_int_equal(steps, want_steps);
    const uint64_t qn = nb_neg_inv_2_64(b);
    for (int i = 0; i < 2000; i++) {
        unsigned __int128 s = 0; /* i == 0: every x = max_a - 1, y = b - 1 */
        for (size_t k = 0; k < count; k++) {
            const uint64_t x = i ? nb_test_rand_below(max_a) : max_a - 1;
            const uint64_t y = i ? nb_test_rand_below(b) : b - 1;
            s += (unsigned __int128)x * y;
        }
        uint64_t r = nb_redc_128((uint64_t)s, (uint64_t)(s >> 64), b, qn);
        for (int k = (int)steps - 1; k >= 0; k--) {
            assert_true(r < (b << k) * 2); /* nb_csub's domain */
            r = nb_csub(r, b << k);
        }
        /* r 2^64 = S (mod b), r < b */
        assert_true(r < b);
        assert_true(nb_mul_mod_host(r, (uint64_t)(((unsigned __int128)1 << 64) % b), b) ==
                    (uint64_t)(s % b));
    }
}

static void test_conv_redc_plan_is_exact_at_its_bounds(void **state)
{
    (void)state;
    const uint64_t q62 = 4611686018427322369ull, q51 = 2251799813554177ull; /* 62, 51 bits */
    check_redc_plan(q62, q51, 11, 2);        /* modUp/modDown of ckks16-l30-d3: < 2.75 b */
    check_redc_plan(q62, q62, 11, 2);
    check_redc_plan(q62, q62, 12, 2);        /* the most 62 x 62-bit products: r < 4 b */
    check_redc_plan(q51, q62, 16, 1);        /* small sources: r < 2 b */
    check_redc_plan(1ull << 40, 3, 1, 1);    /* the smallest odd modulus */
    assert_int_equal(nb_conv_redc_steps(q62, q62, 0), 0);
    assert_int_equal(nb_conv_redc_steps(~0ull, ~0ull, 2), 0); /* outside the domain */
    assert_int_equal(nb_conv_redc_steps(q62, q62, 13), 0);
    assert_int_equal(nb_conv_redc_steps(q62, q62, 1u << 20), 0);
}

/* The tensor-core table of a conversion from c[0..nf) to b[0..nt) (every
 * prime below 2^31): each packed byte is the byte of T'_(i,a),j =
 * 2^(8a) T_ji mod b_j it stands for, zero past the last source prime or
 * target; each target's record holds its reduction constants; a view of the
 * targets from t0 starts at the group of 8 holding t0, t0 mod 8 of whose
 * targets precede it, and at t0's record. */
static void check_tc_table(const uint64_t *c, size_t nf, const uint64_t *b, size_t nt)
{
    nb_ckks_consts k = {0};
    nb_conv_desc d;
    assert_int_equal(nb_conv_desc_build(&k, &d, c, nf, b, nt, NULL), NB_OK);
    assert_int_equal(d.tc, 1);
    const uint64_t *B = k.blob, *frag = B + d.tc_frag;
    const size_t ks = (nf + 7) / 8;
    for (size_t j = 0; j < (nt + 7) / 8 * 8; j++)
        for (size_t i = 0; i < ks * 8; i++)
            for (unsigned a = 0; a < 4; a++) {
                uint64_t got = 0;
                for (unsigned byte = 0; byte < 4; byte++) {
                    const uint64_t w = frag[((j / 8 * ks + i / 8) * 4 + byte) * 32 + 4 * (j % 8) +
                                            i % 4];
                    const uint32_t reg = (uint32_t)(w >> (32 * (i % 8 / 4)));
                    got |= (uint64_t)((reg >> (8 * a)) & 0xff) << (8 * byte);
                }
                const uint64_t want =
                    i < nf && j < nt
                        ? (uint64_t)(((unsigned __int128)B[d.qhat_mod + j * nf + i] << (8 * a)) %
                                     b[j])
                        : 0;
                if (got != want)
                    nb_test_fail("%zu -> %zu primes: target %zu source %zu byte shift %u: want "
                                 "%llu got %llu",
                                 nf, nt, j, i, a, (unsigned long long)want,
                                 (unsigned long long)got);
            }
    assert_int_equal(d.tc_epi % 2, 0); /* read in 16-byte words */
    assert_int_equal(d.tc_frag % 2, 0);
    for (size_t j = 0; j < nt; j++) {
        const uint64_t *e = B + d.tc_epi + 4 * j, q = b[j];
        const uint64_t r16 = 65536 % q, r32 = nb_mul_mod_host(r16, r16, q);
        assert_int_equal(e[0], q | (((uint64_t)1 << 32) / q) << 32);
        assert_int_equal(e[1], r16 | (uint64_t)(((unsigned __int128)r16 << 32) / q) << 32);
        assert_int_equal(e[2], r32 | nb_mul_mod_host(r32, r32, q) << 32);
        assert_int_equal(e[3], (uint64_t)(((unsigned __int128)r32 << 32) / q));
    }
    const nb_conv_view v = nb_conv_view_at(&d, B, d.n_to);
    assert_ptr_equal(v.tc_frag, frag);
    assert_ptr_equal(v.tc_epi, B + d.tc_epi);
    assert_int_equal(v.tc_first, 0);
    const uint32_t t0s[3] = {3, 8, 11}; /* inside the first group, the second's start, inside it */
    for (int t = 0; t < 3; t++) {
        const nb_conv_view w = nb_conv_view_targets(v, t0s[t], (uint32_t)nt - t0s[t], B);
        assert_ptr_equal(w.tc_frag, frag + t0s[t] / 8 * ks * 128);
        assert_ptr_equal(w.tc_epi, B + d.tc_epi + 4 * t0s[t]);
        assert_int_equal(w.tc_first, t0s[t] % 8);
    }
    free(k.blob);
}

static void test_conv_tc_table_packs_every_scaled_byte(void **state)
{
    (void)state;
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "ckks16-l30-d3-w32"), NB_OK);
    const uint64_t *all = p->primes; /* Q then P: 83 primes below 2^31 */
    check_tc_table(all, 21, all + 21, 62); /* a modUp digit's shape */
    check_tc_table(all + 62, 21, all, 62); /* modDown's */
    check_tc_table(all, 9, all + 9, 13);   /* partial steps and tiles */
    check_tc_table(all, 64, all + 64, 19); /* the most source primes of the kernel */
    nb_ckks_params_destroy(p);
    nb_ckks_consts k = {0}; /* a prime of 2^31 or more: no table */
    nb_conv_desc d;
    const uint64_t wide[2] = {2147483659ull, 4294967311ull}, narrow[1] = {2147483647ull};
    assert_int_equal(nb_conv_desc_build(&k, &d, wide, 2, narrow, 1, NULL), NB_OK);
    assert_int_equal(d.tc, 0);
    assert_null(nb_conv_view_at(&d, k.blob, 1).tc_frag);
    free(k.blob);
}

int main(void)
{
    nb_test_seed_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_preset_generates_distinct_ntt_friendly_primes),
        cmocka_unit_test(test_unknown_preset_is_not_found),
        cmocka_unit_test(test_generation_is_deterministic),
        cmocka_unit_test(test_equal_q_and_p_sizes_stay_disjoint),
        cmocka_unit_test(test_digits_partition_each_level),
        cmocka_unit_test(test_ntt_counts_follow_the_pipelines),
        cmocka_unit_test(test_bad_specs_are_rejected),
        cmocka_unit_test(test_w32_twin_matches_its_64bit_set),
        cmocka_unit_test(test_conv_redc_plan_is_exact_at_its_bounds),
        cmocka_unit_test(test_conv_tc_table_packs_every_scaled_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

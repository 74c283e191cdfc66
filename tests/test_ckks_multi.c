/* The several-GPU pipelines' refusals that need no GPU: a CPU variant, no
 * devices, a device list of the wrong length for the set, and every entry
 * point on a NULL object, each with its status and a message; the default
 * exchanges by device count; modUp's exchange schedule, which is plain C on
 * the partition; and the key switch's packed layout on one device's part,
 * through the CPU inner product and the CPU conversion (the GPU behaviour is
 * test_gpu_multi's). */
#include <string.h>

#include "bench/tiers/ntt.h"
#include "ckks/ckks.h"
#include "ckks/consts.h"
#include "ckks/multi.h"
#include "ckksutil.h"
#include "core/device.h"

static nb_ckks_params *tiny(void)
{
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "test-tiny"), NB_OK);
    return p;
}

static void test_multi_refuses_a_cpu_variant(void **state)
{
    (void)state;
    nb_ckks_params *p = tiny();
    const int dev[1] = {0};
    nb_ckks_multi *m = (nb_ckks_multi *)p; /* overwritten with NULL on failure */
    const nb_status s = nb_ckks_multi_create(&m, p, nb_ntt_variant_find("cpu-harvey"), dev, 1);
    assert_true(s == NB_ERR_UNSUPPORTED || s == NB_ERR_NO_DEVICE);
    assert_null(m);
    assert_true(strlen(nb_last_error()) > 10);
    nb_ckks_params_destroy(p);
}

static void test_multi_refuses_counts_the_set_cannot_split_into(void **state)
{
    (void)state;
    nb_ckks_params *p = tiny(); /* alpha = 2 */
    const nb_ntt_variant *v = nb_ntt_variant_find("gpu-fast");
    if (!v) {
        print_message("built without the GPU variants: nothing to refuse (skip)\n");
        nb_ckks_params_destroy(p);
        return;
    }
    const int dev[3] = {0, 1, 2};
    nb_ckks_multi *m = NULL;
    const nb_status s0 = nb_ckks_multi_create(&m, p, v, dev, 0);
    const nb_status s3 = nb_ckks_multi_create(&m, p, v, dev, 3);
    /* without NCCL's header every call says so; with it, the count is checked first */
    assert_true(s0 == NB_ERR_INVALID_ARG || s0 == NB_ERR_UNSUPPORTED);
    assert_true(s3 == NB_ERR_INVALID_ARG || s3 == NB_ERR_UNSUPPORTED);
    assert_null(m);
    if (nb_gpu_count() == 0) {
        const nb_status s1 = nb_ckks_multi_create(&m, p, v, dev, 1);
        assert_true(s1 == NB_ERR_NO_DEVICE || s1 == NB_ERR_UNSUPPORTED);
        assert_null(m);
    }
    nb_ckks_params_destroy(p);
}

static void test_multi_calls_on_null_fail_cleanly(void **state)
{
    (void)state;
    void *parts[1] = {NULL};
    const void *in[1] = {NULL};
    assert_int_not_equal(nb_ckks_multi_modup_all(NULL, 0, parts, in, NULL, NULL), NB_OK);
    assert_int_not_equal(nb_ckks_multi_moddown(NULL, 0, parts, in, NULL, NULL), NB_OK);
    assert_int_not_equal(nb_ckks_multi_keyswitch(NULL, 0, parts, parts, in, in, NULL, NULL), NB_OK);
    assert_int_not_equal(nb_ckks_multi_rescale(NULL, 1, NB_CKKS_RESCALE_FLOOR, parts, in, NULL,
                                               NULL),
                         NB_OK);
    assert_int_equal(nb_ckks_multi_gpus(NULL), 0);
    assert_int_equal(nb_ckks_multi_device(NULL, 0), -1);
    double total = -1, link = -1;
    nb_ckks_multi_comm_bytes(NULL, &total, &link);
    assert_true(total == 0 && link == 0);
    nb_ckks_multi_comm_bytes(NULL, NULL, NULL);
    assert_null(nb_ckks_multi_exchange(NULL));
    nb_ckks_multi_destroy(NULL);
}

/* The exchanges an object takes when NB_NCCL_EXCHANGE leaves the choice:
 * sends and receives on two devices, on more modDown's as sends and receives
 * and the others as broadcasts (mixed), none on one. */
static void test_default_exchange_by_device_count(void **state)
{
    (void)state;
    assert_null(nb_ckks_exchange_default(0));
    assert_null(nb_ckks_exchange_default(1));
    assert_string_equal(nb_ckks_exchange_default(2), "send-recv");
    for (size_t g = 3; g <= 8; g++)
        assert_string_equal(nb_ckks_exchange_default(g), "mixed");
}

/* Limbs of digit j at level l in [qa, qa + nq). */
static size_t owned(const nb_ckks_params *p, size_t level, size_t j, size_t qa, size_t nq)
{
    size_t first, count;
    nb_ckks_digit_range(p, level, j, &first, &count);
    const size_t a = qa > first ? qa : first;
    const size_t b = qa + nq < first + count ? qa + nq : first + count;
    return b > a ? b - a : 0;
}

/* Every property the pipeline relies on, for one partition at one level. */
static void check_plan(const nb_ckks_params *p, size_t level, size_t G, const size_t *qa,
                       const size_t *nq)
{
    const size_t D = nb_ckks_digits(p, level);
    size_t group[64];
    unsigned char order[8 * 64], recv[8 * 64];
    memset(order, 0xff, sizeof order); /* poisoned: every entry must be written */
    memset(recv, 0xff, sizeof recv);
    const size_t ng = nb_multi_modup_plan(p, level, G, qa, nq, group, order, recv);
    assert_true(ng >= 1 && ng <= D);
    size_t next = 0;
    for (size_t j = 0; j < D; j++) { /* numbered in order of first use */
        assert_true(group[j] <= next && group[j] < ng);
        next = group[j] == next ? next + 1 : next;
    }
    assert_int_equal(next, ng);
    for (size_t g = 0; g < ng; g++)
        for (size_t i = 0; i < G; i++) { /* one range a device per exchange */
            size_t sends = 0;
            for (size_t j = 0; j < D; j++)
                sends += group[j] == g && owned(p, level, j, qa[i], nq[i]) > 0;
            assert_true(sends <= 1);
        }
    for (size_t i = 0; i < G; i++) {
        const unsigned char *od = order + i * D, *rv = recv + i * D;
        unsigned char seen[64] = {0};
        size_t prev_key = 0, prev_j = 0;
        for (size_t k = 0; k < D; k++) {
            const size_t j = od[k];
            assert_true(j < D && !seen[j]);
            seen[j] = 1;
            int gets = 0;
            for (size_t r = 0; r < G; r++)
                gets |= r != i && owned(p, level, j, qa[r], nq[r]) > 0;
            assert_int_equal(rv[j], gets);
            const size_t key = gets ? 1 + group[j] : 0; /* held whole first, then by exchange */
            assert_true(k == 0 || key > prev_key || (key == prev_key && j > prev_j));
            prev_key = key;
            prev_j = j;
        }
    }
}

static void test_modup_plan_on_two_and_four_devices(void **state)
{
    (void)state;
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "ckks16-l30-d3"), NB_OK);
    const size_t L = p->max_level; /* 31 limbs, digits of 11, 11 and 9 */
    assert_int_equal(nb_ckks_digits(p, L), 3);
    size_t group[3];
    unsigned char order[4 * 3], recv[4 * 3];
    const size_t qa2[2] = {0, 16}, nq2[2] = {16, 15};
    assert_int_equal(nb_multi_modup_plan(p, L, 2, qa2, nq2, group, order, recv), 2);
    static const unsigned char order2[6] = {0, 2, 1, 2, 0, 1}, recv2[6] = {0, 1, 1, 1, 1, 0};
    assert_int_equal(group[0], 0);
    assert_int_equal(group[1], 1);
    assert_int_equal(group[2], 0);
    assert_memory_equal(order, order2, 6);
    assert_memory_equal(recv, recv2, 6);
    const size_t qa4[4] = {0, 8, 16, 24}, nq4[4] = {8, 8, 8, 7};
    assert_int_equal(nb_multi_modup_plan(p, L, 4, qa4, nq4, group, order, recv), 2);
    for (size_t i = 0; i < 4; i++) { /* no device holds a digit whole */
        static const unsigned char order4[3] = {0, 2, 1};
        assert_memory_equal(order + 3 * i, order4, 3);
    }
    nb_ckks_params_destroy(p);
}

static void test_modup_plan_holds_on_every_split(void **state)
{
    (void)state;
    static const char *const sets[] = {"ckks16-l30-d3", "test-tiny"};
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t s = 0; s < 2; s++) {
        nb_ckks_params *p = NULL;
        assert_int_equal(nb_ckks_params_from_preset(&p, sets[s]), NB_OK);
        const size_t Q = p->max_level + 1;
        for (size_t G = 1; G <= 8 && G <= Q; G++)
            for (size_t trial = 0; trial < 20; trial++) {
                size_t qa[8], len[8], left = Q; /* a random split of Q into G ranges */
                for (size_t i = 0; i < G; i++) {
                    x = x * 6364136223846793005ull + 1442695040888963407ull;
                    const size_t most = left - (G - 1 - i);
                    len[i] = i + 1 == G ? left : 1 + (size_t)((x >> 33) % most);
                    qa[i] = Q - left;
                    left -= len[i];
                }
                for (size_t level = 0; level < Q; level++) {
                    size_t nq[8]; /* the part of each range at this level */
                    for (size_t i = 0; i < G; i++)
                        nq[i] = qa[i] > level ? 0
                                : qa[i] + len[i] > level + 1 ? level + 1 - qa[i] : len[i];
                    check_plan(p, level, G, qa, nq);
                }
            }
        nb_ckks_params_destroy(p);
    }
}

/* ---- the key switch's packed layout on a part ---- */

static size_t ws(int w32) { return w32 ? 4 : 8; }
static void *limb_at(void *a, size_t limb, size_t n, int w32)
{
    return (char *)a + limb * n * ws(w32);
}
static uint64_t word(const void *a, size_t i, int w32)
{
    return w32 ? ((const uint32_t *)a)[i] : ((const uint64_t *)a)[i];
}
/* a[0..words) in the set's word size, in a new buffer (free() it). */
static void *as_words(const uint64_t *a, size_t words, int w32)
{
    void *b = malloc(words * ws(w32) + 1);
    assert_non_null(b);
    nb_words_from_u64(b, a, words, w32 ? 32 : 64);
    return b;
}
static void *poisoned(size_t words, int w32)
{
    void *b = malloc(words * ws(w32) + 1);
    assert_non_null(b);
    memset(b, 0xa5, words * ws(w32));
    return b;
}

typedef struct whole { /* one level's inputs and the whole basis' inner product */
    const nb_ckks_params *p;
    size_t level, E, D;
    int w32;
    void *ext, *in, *key, *r0, *r1; /* ext unpacked: digit j's poly over B_l at j E */
} whole;

/* The part owning Q limbs [qa, qa + nqt) (nq of them below level + 1) and P
 * limbs [pa, pa + np): its packed targets, its key, its primes and its
 * input, through the CPU inner product with the part's geometry, against
 * the whole basis' result for the same limbs. */
static void check_part(const whole *w, size_t qa, size_t nqt, size_t nq, size_t pa, size_t np)
{
    const nb_ckks_params *p = w->p;
    const nb_ckks_consts *k = p->consts;
    const size_t n = p->n, Q = p->q_count, per = Q + p->alpha, own = nqt + np, D = w->D;
    const size_t L1 = w->level + 1, E = w->E, loc = nq + np;
    const int w32 = w->w32;
    size_t off[65], idx[64 * 64];
    const size_t total = nb_multi_ext_layout(p, w->level, qa, nq, np, off, idx);
    assert_true(D < 65 && total <= D * loc && total <= 64 * 64);
    assert_int_equal(off[0], 0);
    void *ext = poisoned(total * n, w32), *key = poisoned(2 * D * own * n, w32);
    for (size_t j = 0; j < D; j++) {
        size_t lo;
        const size_t mine = nb_multi_digit_owned(p, w->level, j, qa, nq, &lo);
        assert_int_equal(off[j + 1] - off[j], loc - mine);
        for (size_t t = off[j]; t < off[j + 1]; t++) { /* local index -> the whole basis' */
            const size_t i = idx[t], g = i < nq ? qa + i : L1 + pa + (i - nq);
            assert_true(i < loc && !(mine && i >= lo - qa && i < lo - qa + mine));
            memcpy(limb_at(ext, t, n, w32), limb_at(w->ext, j * E + g, n, w32), n * ws(w32));
        }
        for (size_t c = 0; c < 2; c++)
            for (size_t i = 0; i < own; i++) {
                const size_t f = i < nqt ? qa + i : Q + pa + (i - nqt);
                memcpy(limb_at(key, (2 * j + c) * own + i, n, w32),
                       limb_at(w->key, (2 * j + c) * per + f, n, w32), n * ws(w32));
            }
    }
    uint64_t pq[3][128];
    for (size_t i = 0; i < own; i++) {
        const size_t f = i < nqt ? qa + i : Q + pa + (i - nqt);
        pq[0][i] = k->blob[k->prime_q + f];
        pq[1][i] = k->blob[k->prime_mu_lo + f];
        pq[2][i] = k->blob[k->prime_mu_hi + f];
    }
    const nb_ip_geom g = {.n = n, .level = nq - 1, .ext_limbs = loc, .q_count = nqt,
                          .alpha = np, .digits = D, .alpha_digit = p->alpha, .packed = 1,
                          .chunk = k->ip_chunk, .word_bits = p->word_bits, .prime_q = pq[0],
                          .prime_mu_lo = pq[1], .prime_mu_hi = pq[2], .q_first = qa};
    void *a0 = poisoned(loc * n, w32), *a1 = poisoned(loc * n, w32);
    assert_int_equal(nb_cpu_inner_product(&g, a0, a1, limb_at(a1, nq, n, w32), ext,
                                          limb_at(w->in, qa, n, w32), key),
                     NB_OK);
    for (size_t m = 0; m < loc; m++) {
        const size_t gm = m < nq ? qa + m : L1 + pa + (m - nq);
        for (size_t c = 0; c < n; c++)
            if (word(a0, m * n + c, w32) != word(w->r0, gm * n + c, w32) ||
                word(a1, m * n + c, w32) != word(w->r1, gm * n + c, w32))
                fail_msg("level %zu, part Q [%zu, +%zu) P [%zu, +%zu): limb %zu index %zu",
                         w->level, qa, nq, pa, np, m, c);
    }
    free(ext);
    free(key);
    free(a0);
    free(a1);
}

/* A random split of `total` limbs into G ranges of at least one: first and
 * length of each. */
static void random_split(size_t total, size_t G, size_t *first, size_t *len)
{
    size_t left = total;
    for (size_t i = 0; i < G; i++) {
        const size_t most = left - (G - 1 - i);
        len[i] = i + 1 == G ? left : 1 + (size_t)nb_test_rand_below(most);
        first[i] = total - left;
        left -= len[i];
    }
}

static void test_packed_inner_product_on_every_split(void **state)
{
    (void)state;
    static const char *const sets[] = {"test-small", "test-small-w32"};
    for (size_t s = 0; s < 2; s++) {
        nb_ckks_params *p = NULL;
        assert_int_equal(nb_ckks_params_from_preset(&p, sets[s]), NB_OK);
        const nb_ckks_consts *k = p->consts;
        const size_t n = p->n, Q = p->q_count, A = p->alpha, per = Q + A;
        const int w32 = p->word_bits == 32;
        uint64_t *key64 = random_key(p);
        for (size_t level = 0; level < Q; level++) {
            whole w = {.p = p, .level = level, .E = level + 1 + A, .w32 = w32};
            w.D = nb_ckks_digits(p, level);
            const size_t L1 = level + 1, E = w.E, D = w.D;
            uint64_t basis[128], *ext = alloc_poison(D * E * n), *in = alloc_poison(L1 * n);
            nb_ckks_basis_ext(p, level, basis);
            for (size_t j = 0; j < D; j++)
                nb_test_fill_residues(ext + j * E * n, n, basis, E);
            for (size_t m = 0; m < L1; m++) /* a digit's own limbs are the input's */
                memcpy(in + m * n, ext + ((m / A) * E + m) * n, n * sizeof *in);
            w.ext = as_words(ext, D * E * n, w32);
            w.in = as_words(in, L1 * n, w32);
            w.key = as_words(key64, 2 * p->dnum * per * n, w32);
            w.r0 = poisoned(E * n, w32);
            w.r1 = poisoned(E * n, w32);
            const nb_ip_geom g = {.n = n, .level = level, .ext_limbs = E, .q_count = Q,
                                  .alpha = A, .digits = D, .alpha_digit = A,
                                  .chunk = k->ip_chunk, .word_bits = p->word_bits,
                                  .prime_q = k->blob + k->prime_q,
                                  .prime_mu_lo = k->blob + k->prime_mu_lo,
                                  .prime_mu_hi = k->blob + k->prime_mu_hi};
            assert_int_equal(nb_cpu_inner_product(&g, w.r0, w.r1, limb_at(w.r1, L1, n, w32),
                                                  w.ext, NULL, w.key),
                             NB_OK);
            for (size_t G = 1; G <= A && G <= Q; G++)
                for (size_t trial = 0; trial < 4; trial++) {
                    size_t qa[8], len[8], pa[8], np[8];
                    random_split(Q, G, qa, len);
                    random_split(A, G, pa, np);
                    for (size_t i = 0; i < G; i++) {
                        const size_t nq = qa[i] > level ? 0
                                          : qa[i] + len[i] > L1 ? L1 - qa[i] : len[i];
                        check_part(&w, qa[i], len[i], nq, pa[i], np[i]);
                    }
                }
            free(ext);
            free(in);
            free(w.ext);
            free(w.in);
            free(w.key);
            free(w.r0);
            free(w.r1);
        }
        free(key64);
        nb_ckks_params_destroy(p);
    }
}

/* ---- the key switch's packed conversions on a part ---- */

/* The part owning Q limbs [qa, qa + nq) and P limbs [pa, pa + np): every
 * digit of the top level converted through the part's own tables
 * (nb_multi_ext_convs) equals the whole basis' table's conversion of the same
 * random input at the same primes, limb for limb (outputs poisoned), and the
 * shared constants lead the part's blob unchanged. */
static void check_part_convs(const nb_ckks_params *p, size_t qa, size_t nq, size_t pa, size_t np)
{
    const nb_ckks_consts *k = p->consts;
    const size_t n = p->n, Q = p->q_count, top = Q - 1, D = nb_ckks_digits(p, top);
    const int w32 = p->word_bits == 32;
    size_t off[65], idx[64 * 64];
    uint64_t targets[64 * 64];
    const size_t ne = nb_multi_ext_layout(p, top, qa, nq, np, off, idx);
    for (size_t t = 0; t < ne; t++)
        targets[t] = p->primes[idx[t] < nq ? qa + idx[t] : Q + pa + (idx[t] - nq)];
    uint64_t *blob = NULL;
    nb_conv_desc *desc = NULL;
    size_t words = 0;
    assert_int_equal(nb_multi_ext_convs(p, k, off, targets, &blob, &words, &desc), NB_OK);
    assert_true(words > k->words);
    assert_memory_equal(blob, k->blob, k->words * sizeof *blob);
    for (size_t j = 0; j < D; j++) {
        size_t first, count;
        nb_ckks_digit_range(p, top, j, &first, &count);
        const nb_conv_desc *all = &k->modup[top * p->dnum + j], *mine = &desc[j];
        assert_int_equal(mine->n_from, count);
        assert_int_equal(mine->n_to, off[j + 1] - off[j]);
        uint64_t *src64 = malloc(count * n * sizeof *src64);
        assert_non_null(src64);
        nb_test_fill_residues(src64, n, p->primes + first, count);
        void *src = as_words(src64, count * n, w32);
        /* the whole table writes each target at its limb of B_l: Q limbs, then P */
        void *ra = poisoned((Q + p->alpha) * n, w32), *rm = poisoned(mine->n_to * n, w32);
        const nb_conv_view va = nb_conv_view_at(all, k->blob, all->n_to);
        const nb_conv_view vm = nb_conv_view_at(mine, blob, mine->n_to);
        assert_int_equal(nb_cpu_conv(&va, ra, src, n, p->word_bits), NB_OK);
        assert_int_equal(nb_cpu_conv(&vm, rm, src, n, p->word_bits), NB_OK);
        for (size_t t = 0; t < mine->n_to; t++) {
            const size_t i = idx[off[j] + t], g = i < nq ? qa + i : Q + pa + (i - nq);
            for (size_t c = 0; c < n; c++)
                if (word(rm, t * n + c, w32) != word(ra, g * n + c, w32))
                    fail_msg("part Q [%zu, +%zu) P [%zu, +%zu), digit %zu: target %zu index %zu",
                             qa, nq, pa, np, j, t, c);
        }
        free(src64);
        free(src);
        free(ra);
        free(rm);
    }
    free(blob);
    free(desc);
}

static void test_packed_conversions_on_every_split(void **state)
{
    (void)state;
    static const char *const sets[] = {"test-small", "test-small-w32"};
    for (size_t s = 0; s < 2; s++) {
        nb_ckks_params *p = NULL;
        assert_int_equal(nb_ckks_params_from_preset(&p, sets[s]), NB_OK);
        const size_t Q = p->q_count, A = p->alpha;
        for (size_t G = 1; G <= A && G <= Q; G++)
            for (size_t trial = 0; trial < 4; trial++) {
                size_t qa[8], len[8], pa[8], np[8];
                random_split(Q, G, qa, len);
                random_split(A, G, pa, np);
                for (size_t i = 0; i < G; i++)
                    check_part_convs(p, qa[i], len[i], pa[i], np[i]);
            }
        nb_ckks_params_destroy(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multi_refuses_a_cpu_variant),
        cmocka_unit_test(test_multi_refuses_counts_the_set_cannot_split_into),
        cmocka_unit_test(test_multi_calls_on_null_fail_cleanly),
        cmocka_unit_test(test_default_exchange_by_device_count),
        cmocka_unit_test(test_modup_plan_on_two_and_four_devices),
        cmocka_unit_test(test_modup_plan_holds_on_every_split),
        cmocka_unit_test(test_packed_inner_product_on_every_split),
        cmocka_unit_test(test_packed_conversions_on_every_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

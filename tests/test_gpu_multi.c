/* The CKKS stages on several GPUs (nb_ckks_multi) against the CPU pipeline
 * (itself checked against GMP in test_ckks_pipeline and test_ckks_words):
 * modUp of every digit, modDown, key switch and rescale (both roundings) at
 * the top level and a lower one, bit-exact, for every device count from 1
 * to the GPUs present (at most 4 and the set's alpha), on 64-bit and 32-bit
 * sets; the partition covers every limb once. Each part's output is
 * poisoned (0xA5 bytes, above every prime) before each call, and its input
 * is checked unchanged after all of them; a stage-tier case on two GPUs names
 * its NCCL version. Exits 77 (skip) without a device,
 * and says so when the build has no NCCL (then only one device is checked,
 * which needs no exchange). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tiers/ntt.h"
#include "bench/tiers/stage.h"
#include "benchutil.h"
#include "ckks/ckks.h"
#include "reportutil.h"
#include "testutil.h"

#define MAX_G 4

static int gpus;
static int tuner_expected; /* NCCL_TUNER_PLUGIN unset, NB_NCCL_TUNER unset or ll128 at start */

typedef struct parts {
    size_t G;
    nb_buffer *b[MAX_G];
    void *p[MAX_G];
} parts;

/* A part buffer of `limbs(d)` limbs on each device, poisoned. */
static void parts_alloc(parts *x, nb_ckks_multi *m, size_t level, nb_ckks_layout k,
                        size_t copies, size_t limb_bytes)
{
    x->G = nb_ckks_multi_gpus(m);
    for (size_t d = 0; d < x->G; d++) {
        assert_int_equal(nb_gpu_use(nb_ckks_multi_device(m, d)), NB_OK);
        const size_t limbs = copies * nb_ckks_multi_limbs(m, d, level, k);
        if (nb_buffer_create(&x->b[d], NB_BACKEND_GPU, (limbs ? limbs : 1) * limb_bytes) !=
            NB_OK)
            nb_test_fail("part alloc: %s", nb_last_error());
        assert_int_equal(nb_buffer_fill(x->b[d], 0xA5, nb_ckks_multi_stream(m, d)), NB_OK);
        assert_int_equal(nb_stream_sync(nb_ckks_multi_stream(m, d)), NB_OK);
        x->p[d] = nb_buffer_ptr(x->b[d]);
    }
    assert_int_equal(nb_gpu_use(nb_ckks_multi_device(m, 0)), NB_OK);
}

static void parts_poison(parts *x, nb_ckks_multi *m)
{
    for (size_t d = 0; d < x->G; d++) {
        assert_int_equal(nb_gpu_use(nb_ckks_multi_device(m, d)), NB_OK);
        assert_int_equal(nb_buffer_fill(x->b[d], 0xA5, nb_ckks_multi_stream(m, d)), NB_OK);
        assert_int_equal(nb_stream_sync(nb_ckks_multi_stream(m, d)), NB_OK);
    }
    assert_int_equal(nb_gpu_use(nb_ckks_multi_device(m, 0)), NB_OK);
}

static void parts_free(parts *x, nb_ckks_multi *m)
{
    for (size_t d = 0; d < x->G; d++) {
        assert_int_equal(nb_gpu_use(nb_ckks_multi_device(m, d)), NB_OK);
        nb_buffer_destroy(x->b[d]);
    }
    assert_int_equal(nb_gpu_use(nb_ckks_multi_device(m, 0)), NB_OK);
}

/* h (64-bit words) as the variant's words, in place in w (words). */
static void *narrow(void *w, const uint64_t *h, size_t words, unsigned bits)
{
    nb_words_from_u64(w, h, words, bits);
    return w;
}

/* The parts of `copies` consecutive polys of layout k, gathered and widened,
 * against want (64-bit words). */
static void expect_parts(const char *what, nb_ckks_multi *m, size_t level, nb_ckks_layout k,
                         const parts *x, size_t copies, const uint64_t *want, size_t limbs,
                         size_t n, unsigned bits)
{
    uint64_t *got = malloc(copies * limbs * n * sizeof *got);
    assert_non_null(got);
    for (size_t c = 0; c < copies; c++) {
        void *dev[MAX_G];
        for (size_t d = 0; d < x->G; d++)
            dev[d] = (char *)x->p[d] + c * nb_ckks_multi_limbs(m, d, level, k) * n * (bits / 8);
        char *h = (char *)got + c * limbs * n * (bits / 8);
        if (nb_ckks_multi_gather(m, level, k, h, (const void *const *)dev) != NB_OK)
            nb_test_fail("%s: gather: %s", what, nb_last_error());
    }
    nb_words_to_u64(got, got, copies * limbs * n, bits);
    for (size_t i = 0; i < copies * limbs * n; i++)
        if (got[i] != want[i])
            nb_test_fail("%s: limb %zu index %zu: want %llu got %llu", what, i / n, i % n,
                         (unsigned long long)want[i], (unsigned long long)got[i]);
    free(got);
}

static void check_partition(nb_ckks_multi *m, const nb_ckks_params *p)
{
    size_t q_next = 0, p_next = 0;
    for (size_t d = 0; d < nb_ckks_multi_gpus(m); d++) {
        size_t qa, nq, pa, np;
        nb_ckks_multi_part(m, d, &qa, &nq, &pa, &np);
        if (qa != q_next || pa != p_next || nq == 0 || np == 0)
            nb_test_fail("%s: part %zu owns Q [%zu, +%zu) P [%zu, +%zu)", p->name, d, qa, nq, pa,
                         np);
        q_next += nq;
        p_next += np;
    }
    if (q_next != p->q_count || p_next != p->alpha)
        nb_test_fail("%s: the parts cover %zu of %zu Q limbs and %zu of %zu P limbs", p->name,
                     q_next, p->q_count, p_next, p->alpha);
}

/* The bytes the last call's exchanges moved (nb_ckks_multi_comm_bytes), when
 * they are broadcasts or sends and receives (mixed: either, by stage): device
 * d sends each other device
 * its sent[d] limbs of lb bytes; nothing on one GPU. */
static void expect_bytes(const char *what, nb_ckks_multi *m, size_t G, const size_t *sent,
                         size_t lb)
{
    const char *kind = nb_ckks_multi_exchange(m);
    if (G > 1 && (!kind || !strcmp(kind, "copy-engine")))
        return; /* copy-engine all-gathers send whole slots */
    double total = -1, link = -1, want = 0, most = 0;
    nb_ckks_multi_comm_bytes(m, &total, &link);
    for (size_t d = 0; d < G && G > 1; d++) {
        want += (double)(sent[d] * lb * (G - 1));
        most = (double)(sent[d] * lb) > most ? (double)(sent[d] * lb) : most;
    }
    if (total != want || link != most)
        nb_test_fail("%s: exchanges moved %.0f bytes (%.0f on the busiest link), expected %.0f "
                     "(%.0f)", what, total, link, want, most);
}

/* Device d's Q limbs in [lo, hi) of the full layout. */
static size_t owned_q(nb_ckks_multi *m, size_t d, size_t lo, size_t hi)
{
    size_t qf, qc, pf, pc;
    nb_ckks_multi_part(m, d, &qf, &qc, &pf, &pc);
    const size_t a = qf > lo ? qf : lo, b = qf + qc < hi ? qf + qc : hi;
    return b > a ? b - a : 0;
}

static size_t owned_p(nb_ckks_multi *m, size_t d)
{
    size_t qf, qc, pf, pc;
    nb_ckks_multi_part(m, d, &qf, &qc, &pf, &pc);
    return pc;
}

/* Every stage at levels L and L/2 on G devices against the CPU pipeline. */
static void check_on(const nb_ckks_params *p, nb_ckks *cpu, const nb_ntt_variant *v, size_t G)
{
    int devices[MAX_G] = {0, 1, 2, 3};
    nb_ckks_multi *m = NULL;
    const nb_status s = nb_ckks_multi_create(&m, p, v, devices, G);
    if (s == NB_ERR_UNSUPPORTED && G > 1) {
        print_message("skipped %zu GPUs: %s\n", G, nb_last_error());
        return;
    }
    if (s != NB_OK)
        nb_test_fail("%s on %zu GPUs with %s: %s", p->name, G, v->name, nb_last_error());
    check_partition(m, p);
    const unsigned bits = v->word_bits;
    const size_t n = p->n, A = p->alpha, g = p->rescale_primes, per = p->q_count + A;
    const size_t key_limbs = nb_ckks_key_limbs(p), lb = n * (bits / 8);
    uint64_t *key = malloc(key_limbs * n * sizeof *key);
    void *words = malloc(key_limbs * n * sizeof(uint64_t));
    assert_non_null(key);
    assert_non_null(words);
    for (size_t poly = 0; poly < key_limbs / per; poly++)
        nb_test_fill_residues(key + poly * per * n, n, p->primes, per);
    parts dkey;
    parts_alloc(&dkey, m, 0, NB_CKKS_LAYOUT_KEY, 1, lb);
    assert_int_equal(nb_ckks_multi_scatter(m, 0, NB_CKKS_LAYOUT_KEY, dkey.p,
                                           narrow(words, key, key_limbs * n, bits)),
                     NB_OK);
    const size_t levels[2] = {p->max_level, p->max_level / 2 >= g ? p->max_level / 2 : g};
    char what[200];
    for (int li = 0; li < 2; li++) {
        const size_t l = levels[li], L1 = l + 1, E = L1 + A, D = nb_ckks_digits(p, l);
        uint64_t basis[600];
        nb_ckks_basis_ext(p, l, basis);
        uint64_t *in = malloc(E * n * sizeof *in), *want = malloc(D * E * n * sizeof *want);
        assert_non_null(in);
        assert_non_null(want);
        nb_test_fill_residues(in, n, basis, E);
        parts inq, inb, out, out1;
        parts_alloc(&inq, m, l, NB_CKKS_LAYOUT_Q, 1, lb);
        parts_alloc(&inb, m, l, NB_CKKS_LAYOUT_B, 1, lb);
        parts_alloc(&out, m, l, NB_CKKS_LAYOUT_B, D, lb);
        parts_alloc(&out1, m, l, NB_CKKS_LAYOUT_Q, 1, lb);
        assert_int_equal(nb_ckks_multi_scatter(m, l, NB_CKKS_LAYOUT_Q, inq.p,
                                               narrow(words, in, L1 * n, bits)),
                         NB_OK);
        assert_int_equal(nb_ckks_multi_scatter(m, l, NB_CKKS_LAYOUT_B, inb.p,
                                               narrow(words, in, E * n, bits)),
                         NB_OK);
        const void *const *iq = (const void *const *)inq.p, *const *ib = (const void *const *)inb.p;

        assert_int_equal(nb_ckks_modup_all(cpu, l, want, in, NULL, NULL), NB_OK);
        if (nb_ckks_multi_modup_all(m, l, out.p, iq, NULL, NULL) != NB_OK)
            nb_test_fail("modUp on %zu GPUs: %s", G, nb_last_error());
        snprintf(what, sizeof what, "%s %s %zu GPUs modUp level %zu", p->name, v->name, G, l);
        expect_parts(what, m, l, NB_CKKS_LAYOUT_B, &out, D, want, E, n, bits);
        size_t sent_up[MAX_G], sent_down[MAX_G], sent_ks[MAX_G], sent_rs[MAX_G];
        for (size_t d = 0; d < G; d++) {
            sent_up[d] = owned_q(m, d, 0, L1);
            sent_down[d] = owned_p(m, d);
            sent_ks[d] = sent_up[d] + 2 * sent_down[d];
            sent_rs[d] = owned_q(m, d, L1 - g, L1);
        }
        expect_bytes(what, m, G, sent_up, lb);

        parts_poison(&out, m);
        assert_int_equal(nb_ckks_moddown(cpu, l, want, in, NULL, NULL), NB_OK);
        if (nb_ckks_multi_moddown(m, l, out.p, ib, NULL, NULL) != NB_OK)
            nb_test_fail("modDown on %zu GPUs: %s", G, nb_last_error());
        snprintf(what, sizeof what, "%s %s %zu GPUs modDown level %zu", p->name, v->name, G, l);
        expect_parts(what, m, l, NB_CKKS_LAYOUT_Q, &out, 1, want, L1, n, bits);
        expect_bytes(what, m, G, sent_down, lb);

        parts_poison(&out, m);
        parts_poison(&out1, m);
        assert_int_equal(nb_ckks_keyswitch(cpu, l, want, want + L1 * n, in, key, NULL, NULL),
                         NB_OK);
        if (nb_ckks_multi_keyswitch(m, l, out.p, out1.p, iq, (const void *const *)dkey.p, NULL,
                                    NULL) != NB_OK)
            nb_test_fail("key switch on %zu GPUs: %s", G, nb_last_error());
        snprintf(what, sizeof what, "%s %s %zu GPUs key switch out0 level %zu", p->name, v->name,
                 G, l);
        expect_parts(what, m, l, NB_CKKS_LAYOUT_Q, &out, 1, want, L1, n, bits);
        snprintf(what, sizeof what, "%s %s %zu GPUs key switch out1 level %zu", p->name, v->name,
                 G, l);
        expect_parts(what, m, l, NB_CKKS_LAYOUT_Q, &out1, 1, want + L1 * n, L1, n, bits);
        expect_bytes(what, m, G, sent_ks, lb);

        for (int mode = 0; mode < 2; mode++) {
            parts_poison(&out, m);
            assert_int_equal(nb_ckks_rescale(cpu, l, (nb_ckks_rounding)mode, want, in, NULL, NULL),
                             NB_OK);
            if (nb_ckks_multi_rescale(m, l, (nb_ckks_rounding)mode, out.p, iq, NULL, NULL) !=
                NB_OK)
                nb_test_fail("rescale on %zu GPUs: %s", G, nb_last_error());
            snprintf(what, sizeof what, "%s %s %zu GPUs rescale(%s) level %zu", p->name,
                     v->name, G, mode ? "round" : "floor", l);
            expect_parts(what, m, l - g, NB_CKKS_LAYOUT_Q, &out, 1, want, L1 - g, n, bits);
            expect_bytes(what, m, G, sent_rs, lb);
        }
        snprintf(what, sizeof what, "%s %s %zu GPUs inputs preserved", p->name, v->name, G);
        expect_parts(what, m, l, NB_CKKS_LAYOUT_Q, &inq, 1, in, L1, n, bits);
        expect_parts(what, m, l, NB_CKKS_LAYOUT_B, &inb, 1, in, E, n, bits);
        parts_free(&inq, m);
        parts_free(&inb, m);
        parts_free(&out, m);
        parts_free(&out1, m);
        free(in);
        free(want);
    }
    parts_free(&dkey, m);
    free(key);
    free(words);
    nb_ckks_multi_destroy(m);
}

/* G from g_min up to the GPUs present (at most MAX_G and alpha). */
static void check_set_from(const char *name, const char *variant, int every_variant,
                           size_t g_min)
{
    nb_ckks_params *p = NULL;
    if (nb_ckks_params_from_preset(&p, name) != NB_OK)
        nb_test_fail("params: %s", nb_last_error());
    nb_ckks *cpu = NULL;
    assert_int_equal(nb_ckks_create(&cpu, p, nb_ntt_variant_find("cpu-harvey"), NULL), NB_OK);
    const size_t most = p->alpha < MAX_G ? p->alpha : MAX_G;
    for (size_t i = 0; i < nb_ntt_variant_count(); i++) {
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        if (every_variant ? v->backend != NB_BACKEND_GPU || v->word_bits != p->word_bits ||
                                p->log_n < v->min_log_n || p->log_n > v->max_log_n
                          : strcmp(v->name, variant) != 0)
            continue;
        for (size_t G = g_min; G <= most && G <= (size_t)gpus; G++)
            check_on(p, cpu, v, G);
    }
    nb_ckks_destroy(cpu);
    nb_ckks_params_destroy(p);
}

static void check_set(const char *name, const char *variant, int every_variant)
{
    check_set_from(name, variant, every_variant, 1);
}

static void test_multi_stages_match_cpu_64(void **state)
{
    (void)state;
    check_set("test-tiny", NULL, 1);
    check_set("test-small", "gpu-fast", 0);
}

static void test_multi_stages_match_cpu_32(void **state)
{
    (void)state;
    check_set("test-tiny-w32", NULL, 1);
    check_set("test-small-w32", "gpu-fast32", 0);
}

/* The paper-sized twins (log N 16) on two or more GPUs: the shapes where the
 * kernels take their large paths. */
static void test_multi_paper_sets_match_cpu(void **state)
{
    (void)state;
    if (gpus < 2) {
        print_message("one GPU: the paper-sized sets are checked on two or more only (skip)\n");
        return;
    }
    check_set_from("ckks16-l30-d3-w32", "gpu-fast32", 0, 2);
    check_set_from("ckks16-l30-d3", "gpu-fast", 0, 2);
}

/* Each kind NB_NCCL_EXCHANGE names, on two GPUs (where the default is
 * send-recv): the paper-sized sets bit-exact as above with their large
 * exchanges as broadcasts, as sends and receives between the pair, by stage
 * (mixed: modDown's as sends and receives, the rest as broadcasts), or as
 * all-gathers on the copy engines (skipped where NCCL lacks that path), the
 * bytes of the first three checked as above; an unknown value refused. */
static void test_multi_named_exchanges_match_cpu(void **state)
{
    (void)state;
    if (gpus < 2) {
        print_message("one GPU: no exchanges (skip)\n");
        return;
    }
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "ckks16-l30-d3"), NB_OK);
    const nb_ntt_variant *v = nb_ntt_variant_find("gpu-fast");
    const int devices[2] = {0, 1};
    const char *kinds[] = {"broadcast", "send-recv", "mixed", "copy-engine"};
    for (size_t k = 0; k < 4; k++) {
        nb_ckks_multi *m = NULL;
        assert_int_equal(setenv("NB_NCCL_EXCHANGE", kinds[k], 1), 0);
        const nb_status s = nb_ckks_multi_create(&m, p, v, devices, 2);
        if (s == NB_ERR_UNSUPPORTED && !strcmp(kinds[k], "copy-engine")) {
            print_message("copy-engine exchanges: %s (skip)\n", nb_last_error());
            continue;
        }
        if (s != NB_OK)
            nb_test_fail("%s exchanges on 2 GPUs: %s", kinds[k], nb_last_error());
        assert_string_equal(nb_ckks_multi_exchange(m), kinds[k]);
        nb_ckks_multi_destroy(m);
        check_set_from("ckks16-l30-d3-w32", "gpu-fast32", 0, 2);
        check_set_from("ckks16-l30-d3", "gpu-fast", 0, 2);
    }
    nb_ckks_multi *m = NULL;
    assert_int_equal(setenv("NB_NCCL_EXCHANGE", "sideways", 1), 0);
    assert_int_equal(nb_ckks_multi_create(&m, p, v, devices, 2), NB_ERR_INVALID_ARG);
    assert_null(m);
    unsetenv("NB_NCCL_EXCHANGE");
    nb_ckks_params_destroy(p);
}

/* NB_NCCL_TUNER other than ll128 or off: refused before NCCL starts, with a
 * message naming the variable; the caller's value is restored after. */
static void test_multi_refuses_an_unknown_tuner_setting(void **state)
{
    (void)state;
    if (gpus < 2) {
        print_message("one GPU: no NCCL to tune (skip)\n");
        return;
    }
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "test-small"), NB_OK);
    const int devices[2] = {0, 1};
    const char *was = getenv("NB_NCCL_TUNER");
    char keep[64];
    snprintf(keep, sizeof keep, "%s", was ? was : "");
    nb_ckks_multi *m = NULL;
    assert_int_equal(setenv("NB_NCCL_TUNER", "LL128", 1), 0); /* the values are lower case */
    const nb_status s =
        nb_ckks_multi_create(&m, p, nb_ntt_variant_find("gpu-fast"), devices, 2);
    if (was)
        setenv("NB_NCCL_TUNER", keep, 1);
    else
        unsetenv("NB_NCCL_TUNER");
    nb_ckks_params_destroy(p);
    if (s != NB_ERR_INVALID_ARG)
        nb_test_fail("NB_NCCL_TUNER=LL128: status %d, expected NB_ERR_INVALID_ARG (%s)", (int)s,
                     nb_last_error());
    assert_non_null(strstr(nb_last_error(), "NB_NCCL_TUNER='LL128'"));
    assert_null(m);
}

/* A several-GPU case of the stage tier names the NCCL its exchanges ran on
 * (metric nccl_version, NCCL's number: 2.9.0 and later are 20900 and up)
 * and whether nttbench's tuner served it (metric nccl_tuner: 1 unless the
 * environment the test started in named a tuner or turned it off), and its
 * exchanges as the parameter exchange only when NB_NCCL_EXCHANGE named
 * another kind than the default; a one-GPU case, which needs no NCCL, has
 * none of them. */
static void test_multi_stage_case_names_its_nccl(void **state)
{
    (void)state;
    if (gpus < 2) {
        print_message("one GPU: no several-GPU case (skip)\n");
        return;
    }
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "test-small"), NB_OK);
    const nb_bench_opts o = nb_test_quick_opts();
    void *stream = NULL; /* on device 0, where a several-GPU stage is timed */
    assert_int_equal(nb_gpu_use(0), NB_OK);
    assert_int_equal(nb_stream_create(&stream), NB_OK);
    for (size_t G = 1; G <= 2; G++) {
        const nb_stage_config cfg = {NB_CKKS_STAGE_KEYSWITCH, SIZE_MAX, NB_CKKS_RESCALE_FLOOR,
                                     nb_test_rand(), G, 0, 0};
        nb_case *c = NULL;
        assert_int_equal(
            nb_stage_run_case(&c, p, nb_ntt_variant_find("gpu-fast"), &cfg, NULL, &o, 1, stream),
            NB_OK);
        if (nb_case_get_status(c) == NB_CASE_SKIPPED) { /* a build or host without NCCL */
            print_message("gpus=%zu: %s (skip)\n", G, nb_case_get_message(c));
            nb_case_destroy(c);
            continue;
        }
        if (nb_case_get_status(c) != NB_CASE_OK)
            nb_test_fail("gpus=%zu: %s", G, nb_case_get_message(c));
        json_t *m = nb_test_case_json(c);
        assert_true(json_is_object(json_object_get(m, "metrics")));
        json_t *v = json_object_get(json_object_get(m, "metrics"), "nccl_version");
        json_t *t = json_object_get(json_object_get(m, "metrics"), "nccl_tuner");
        if (G == 1) {
            assert_null(v);
            assert_null(t);
        } else {
            if (!json_is_number(v) || json_number_value(v) < 20900)
                nb_test_fail("gpus=2: nccl_version missing or below 20900");
            if (!json_is_number(t) || json_number_value(t) != (tuner_expected ? 1.0 : 0.0))
                nb_test_fail("gpus=2: nccl_tuner missing or not %d", tuner_expected);
            json_t *mt = json_object_get(m, "metrics"), *ct = json_object_get(mt, "comm_ns");
            json_t *cb = json_object_get(mt, "comm_bytes");
            json_t *cl = json_object_get(mt, "comm_link_bytes");
            if (ct && (!json_is_number(cb) || !json_is_number(cl) || json_number_value(cl) <= 0 ||
                       json_number_value(cl) > json_number_value(cb)))
                nb_test_fail("gpus=2: comm_bytes / comm_link_bytes missing or inconsistent");
            const char *env = getenv("NB_NCCL_EXCHANGE");
            const int named = env && *env && strcmp(env, "auto") &&
                              strcmp(env, nb_ckks_exchange_default(2));
            json_t *ex = json_object_get(json_object_get(m, "params"), "exchange");
            if (named ? !json_is_string(ex) || strcmp(json_string_value(ex), env) : ex != NULL)
                nb_test_fail("gpus=2: parameter exchange %s, NB_NCCL_EXCHANGE %s",
                             ex ? json_string_value(ex) : "absent", env ? env : "unset");
        }
        json_decref(m);
    }
    nb_stream_destroy(stream);
    nb_ckks_params_destroy(p);
}

static void test_multi_refuses_bad_device_lists(void **state)
{
    (void)state;
    nb_ckks_params *p = NULL;
    assert_int_equal(nb_ckks_params_from_preset(&p, "test-tiny"), NB_OK);
    const nb_ntt_variant *v = nb_ntt_variant_find("gpu-fast");
    nb_ckks_multi *m = NULL;
    const int twice[2] = {0, 0}, absent[1] = {gpus};
    assert_int_equal(nb_ckks_multi_create(&m, p, v, twice, 2), NB_ERR_INVALID_ARG);
    assert_null(m);
    assert_int_equal(nb_ckks_multi_create(&m, p, v, absent, 1), NB_ERR_NO_DEVICE);
    assert_int_equal(nb_ckks_multi_create(&m, p, v, twice, p->alpha + 1), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_ckks_multi_create(&m, p, nb_ntt_variant_find("cpu-harvey"), twice, 1),
                     NB_ERR_UNSUPPORTED);
    nb_ckks_params_destroy(p);
}

int main(void)
{
    const char *t = getenv("NB_NCCL_TUNER");
    tuner_expected = !getenv("NCCL_TUNER_PLUGIN") && (!t || !*t || !strcmp(t, "ll128"));
    gpus = nb_gpu_count();
    if (gpus < 1) {
        print_message("no GPU: the several-GPU stages are not checked (skip)\n");
        return 77;
    }
    print_message("%d GPU(s): device counts 1..%d checked\n", gpus, gpus < MAX_G ? gpus : MAX_G);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multi_stages_match_cpu_64),
        cmocka_unit_test(test_multi_stages_match_cpu_32),
        cmocka_unit_test(test_multi_paper_sets_match_cpu),
        cmocka_unit_test(test_multi_named_exchanges_match_cpu),
        cmocka_unit_test(test_multi_refuses_an_unknown_tuner_setting),
        cmocka_unit_test(test_multi_stage_case_names_its_nccl),
        cmocka_unit_test(test_multi_refuses_bad_device_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Tests of the word size at the command line: a 32-bit CPU run end to end
 * (JSON word_bits 32 and log_q; CSV, markdown and table carry them), --logq
 * picking the documented L for both word sizes, the default word size (64)
 * unchanged, list and primes showing the word size, verify of cpu-harvey32,
 * transform with a 32-bit variant against the GMP reference, and compare
 * --match word on synthetic files (pairs, tolerance, exit code), plus an old
 * file without word_bits read as 64-bit. The usage errors (exit 2, one line)
 * are rows of tests/test_cli_robust.c. argv[1] = the nttbench executable. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bench/report/compare.h"
#include "cliutil.h"
#include "reportutil.h"
#include "testutil.h"

static const char *quick = "--backend cpu --tier warm --logn 10 --min-time 0.005 "
                           "--max-samples 100 --timeout 2 --warmup 1 --warmup-time 0 --seed 7 -q";

static json_t *case_at(json_t *doc, size_t i)
{
    return json_array_get(json_object_get(doc, "cases"), i);
}

static long long param_int(json_t *c, const char *key)
{
    return json_integer_value(json_object_get(json_object_get(c, "params"), key));
}

static double param_num(json_t *c, const char *key)
{
    return json_number_value(json_object_get(json_object_get(c, "params"), key));
}

static void test_run_32bit_cpu_end_to_end_json(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args, "run --word 32 --limbs 1,3 --format json --output %s/w32.json %s",
             dir, quick);
    assert_int_equal(run(args), 0);
    json_t *j = load_json("w32.json");
    assert_int_equal(json_integer_value(json_object_get(j, "schema_version")), 4);
    size_t n32 = 0;
    for (size_t i = 0; i < json_array_size(json_object_get(j, "cases")); i++) {
        json_t *c = case_at(j, i);
        assert_string_equal(json_string_value(json_object_get(c, "status")), "ok");
        assert_int_equal(param_int(c, "word_bits"), 32);
        assert_int_equal(param_int(c, "prime_bits"), 31); /* the 32-bit default */
        const long long L = param_int(c, "limbs");
        const double lq = param_num(c, "log_q");
        assert_true(lq > 30.0 * (double)L && lq <= 31.0 * (double)L); /* one decimal */
        const double bytes = json_number_value(
            json_object_get(json_object_get(c, "figures"), "coefficient_bytes"));
        assert_true(bytes == 2.0 * 4.0 * 1024 * (double)L);
        assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "cache"),
                                                            "footprint_bytes")),
                         4 * 1024 * L);
        assert_non_null(strstr(json_string_value(json_object_get(c, "label")), " w32 logQ="));
        n32++;
    }
    assert_true(n32 >= 2); /* cpu-harvey32 at L = 1 and 3 (and any other 32-bit CPU variant) */
    json_decref(j);
}

static void test_default_word_is_64_bit_only(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args, "run --limbs 1 --format json --output %s/w64.json %s", dir,
             quick);
    assert_int_equal(run(args), 0);
    json_t *j = load_json("w64.json");
    for (size_t i = 0; i < json_array_size(json_object_get(j, "cases")); i++) {
        assert_int_equal(param_int(case_at(j, i), "word_bits"), 64);
        assert_int_equal(param_int(case_at(j, i), "prime_bits"), 60);
    }
    json_decref(j);
}

/* docs/cli.md: --logq 200 gives L = 3 (180.0) with 60-bit primes and L = 6
 * (186.0) with 31-bit primes; the label shows the L and the log Q. */
static void test_logq_picks_documented_limbs_for_both_words(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args,
             "run --variant cpu-harvey,cpu-harvey32 --logn 16 --logq 200 --format json "
             "--output %s/lq.json --backend cpu --tier warm --min-time 0.001 --min-samples 2 "
             "--max-samples 3 --timeout 2 --warmup 0 --warmup-time 0 --seed 7 -q",
             dir);
    assert_int_equal(run(args), 0);
    json_t *j = load_json("lq.json");
    assert_int_equal(json_array_size(json_object_get(j, "cases")), 2);
    static const long long limbs[] = {3, 6};
    static const double log_q[] = {180.0, 186.0};
    for (size_t i = 0; i < 2; i++) {
        json_t *c = case_at(j, i);
        assert_int_equal(param_int(c, "limbs"), limbs[i]);
        assert_int_equal(param_int(c, "log_q_target"), 200);
        assert_true(fabs(param_num(c, "log_q") - log_q[i]) < 0.05);
        char want[64];
        snprintf(want, sizeof want, "L=%lld q%d w%d logQ=%.1f", limbs[i], i ? 31 : 60,
                 i ? 32 : 64, log_q[i]);
        assert_non_null(strstr(json_string_value(json_object_get(c, "label")), want));
    }
    json_decref(j);
}

static void test_text_formats_carry_word_bits_and_log_q(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args, "run --word 32,64 --limbs 2 --format csv %s", quick);
    assert_int_equal(run(args), 0);
    char *csv = slurp("out.txt");
    assert_non_null(strstr(csv, ",word_bits,log_q,"));
    assert_non_null(strstr(csv, ",2,60,64,"));  /* limbs, prime_bits, word_bits */
    assert_non_null(strstr(csv, ",2,31,32,62.0,")); /* and log_q, one decimal */
    free(csv);
    snprintf(args, sizeof args, "run --word 32,64 --limbs 2 --format md %s", quick);
    assert_int_equal(run(args), 0);
    char *md = slurp("out.txt");
    assert_non_null(strstr(md, "q31 w32 logQ=62.0"));
    assert_non_null(strstr(md, "q60 w64 logQ=120.0"));
    free(md);
}

static void test_list_and_primes_show_word_size(void **state)
{
    (void)state;
    assert_int_equal(run("list"), 0);
    char *t = slurp("out.txt");
    assert_non_null(strstr(t, "word"));
    assert_non_null(strstr(t, "32-bit"));
    assert_non_null(strstr(t, "64-bit"));
    free(t);
    assert_int_equal(run("list --format csv"), 0);
    t = slurp("out.txt");
    assert_non_null(strstr(t, "max_log_n,word_bits,max_prime_bits"));
    assert_non_null(strstr(t, "cpu-harvey32,cpu,1,17,32,31,"));
    free(t);
    assert_int_equal(run("primes --word 32 --count 3 --format json"), 0);
    json_t *j = load_json("out.txt");
    assert_int_equal(json_integer_value(json_object_get(j, "bits")), 31);
    assert_int_equal(json_integer_value(json_object_get(j, "word_bits")), 32);
    json_t *p = json_object_get(j, "primes");
    assert_int_equal(json_array_size(p), 3);
    for (size_t i = 0; i < 3; i++) {
        unsigned long long q = strtoull(
            json_string_value(json_object_get(json_array_get(p, i), "q")), NULL, 10);
        assert_true(q > (1ull << 30) && q < (1ull << 31));
    }
    json_decref(j);
}

static void test_verify_32bit_variant_passes(void **state)
{
    (void)state;
    assert_int_equal(run("verify --variant cpu-harvey32 --logn 4,10 --limbs 1,3 --format json "
                         "--seed 5"),
                     0);
    json_t *j = load_json("out.txt");
    json_t *checks = json_object_get(j, "checks");
    assert_int_equal(json_array_size(checks), 16); /* 2 dirs x 2 logn x 2 limbs x bits 30,31 */
    for (size_t i = 0; i < 16; i++) {
        json_t *c = json_array_get(checks, i);
        assert_string_equal(json_string_value(json_object_get(c, "result")), "pass");
        assert_true(json_integer_value(json_object_get(c, "prime_bits")) <= 31);
    }
    json_decref(j);
    assert_int_equal(run("verify --word 32 --logn 6 --limbs 2 --format csv --seed 5"), 0);
    char *t = slurp("out.txt");
    assert_non_null(strstr(t, "cpu-harvey32,"));
    assert_null(strstr(t, "cpu-harvey,"));
    free(t);
}

static void test_transform_32bit_matches_reference(void **state)
{
    (void)state;
    char path[256], args[1024];
    snprintf(path, sizeof path, "%s/in.txt", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    static const unsigned long long q[] = {2147352577ull, 2146959361ull}; /* 31-bit, N = 16 ok */
    for (size_t i = 0; i < 32; i++)
        fprintf(f, "%llu\n", 1 + nb_test_rand() % (q[i / 16] - 1));
    fclose(f);
    for (int d = 0; d < 2; d++) {
        const char *dir_s = d ? "inverse" : "forward";
        snprintf(args, sizeof args, "transform --variant cpu-harvey32 --direction %s --logn 4 "
                 "--primes 2147352577,2146959361 --in %s/in.txt --out %s/v.txt", dir_s, dir, dir);
        assert_int_equal(run(args), 0);
        snprintf(args, sizeof args, "transform --variant reference --direction %s --logn 4 "
                 "--primes 2147352577,2146959361 --in %s/in.txt --out %s/r.txt", dir_s, dir, dir);
        assert_int_equal(run(args), 0);
        snprintf(args, sizeof args, "check --expected %s/r.txt --actual %s/v.txt", dir, dir);
        assert_int_equal(run(args), 0);
    }
}

/* ------------------------------------------------------- compare --match word */

/* A case of variant v: word_bits (0: absent, an old file), log_q (< 0: absent,
 * primes only), 20 samples whose median is median_ns. */
static json_t *word_case(const char *v, int word_bits, int prime_bits, double log_q,
                         long long log_n, double median_ns)
{
    json_t *samples = json_array(), *primes = json_array();
    for (int i = 0; i < 20; i++)
        json_array_append_new(samples, json_real(median_ns * (1.0 + 0.001 * (i % 5 - 2))));
    json_array_append_new(primes, json_integer((json_int_t)((1ull << prime_bits) - 1)));
    json_t *params = json_pack("{s:s, s:I, s:i, s:i, s:o}", "direction", "forward", "log_n",
                               (json_int_t)log_n, "limbs", 1, "prime_bits", prime_bits, "primes",
                               primes);
    if (word_bits)
        json_object_set_new(params, "word_bits", json_integer(word_bits));
    if (log_q >= 0)
        json_object_set_new(params, "log_q", json_real(log_q));
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:s, s:i, s:{s:f, s:I}, s:{s:b}, s:o}",
                     "tier", "warm", "variant", v, "backend", "cpu", "label", v, "status", "ok",
                     "params", params, "mode", "per-launch", "launches_per_sample", 1, "stats",
                     "median", median_ns, "samples", (json_int_t)20, "stopping",
                     "noise_target_met", 1, "samples_ns", samples);
}

static void write_doc(const char *name, json_t *cases, int version)
{
    json_t *doc = json_pack("{s:s, s:i, s:o}", "schema", "nttbench-report", "schema_version",
                            version, "cases", cases);
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(json_dump_file(doc, path, JSON_COMPACT), 0);
    json_decref(doc);
}

static void test_compare_match_word_pairs_nearest_log_q(void **state)
{
    (void)state;
    /* base: 64-bit cases at log Q 120 and 240 (log N 10) and 240 at log N 12; new:
     * 32-bit cases at 124 and 248 (log N 10), 500 (no partner) and a 64-bit case */
    write_doc("wa.json", json_pack("[o, o, o]", word_case("c64", 64, 60, 120.0, 10, 1000),
                                   word_case("c64", 64, 60, 240.0, 10, 2000),
                                   word_case("c64", 64, 60, 240.0, 12, 9000)), 4);
    write_doc("wb.json", json_pack("[o, o, o, o]", word_case("c32", 32, 31, 248.0, 10, 1000),
                                   word_case("c32", 32, 31, 124.0, 10, 1000),
                                   word_case("c32", 32, 31, 500.0, 10, 1000),
                                   word_case("c64", 64, 60, 120.0, 10, 1000)), 4);
    char pa[256], pb[256];
    snprintf(pa, sizeof pa, "%s/wa.json", dir);
    snprintf(pb, sizeof pb, "%s/wb.json", dir);
    nb_result_file *fa, *fb;
    assert_int_equal(nb_result_file_load(&fa, pa), NB_OK);
    assert_int_equal(nb_result_file_load(&fb, pb), NB_OK);
    nb_compare_opts o;
    nb_compare_opts_default(&o);
    o.match = NB_MATCH_WORD;
    nb_comparison *c = NULL;
    assert_int_equal(nb_compare(fa, fb, &o, &c), NB_OK);
    assert_int_equal(c->n_rows, 2);
    assert_true(c->rows[0].base->log_q == 240.0 && c->rows[0].new_->log_q == 248.0);
    assert_true(c->rows[1].base->log_q == 120.0 && c->rows[1].new_->log_q == 124.0);
    assert_true(fabs(c->rows[0].time.ratio - 0.5) < 0.01); /* 1000 / 2000 ns */
    assert_int_equal(c->rows[0].verdict, NB_VERDICT_FASTER);
    assert_int_equal(c->n_unmatched_new, 1);  /* log Q 500 (not the 64-bit case: no pair) */
    assert_int_equal(c->n_unmatched_base, 1); /* log N 12 */
    nb_comparison_destroy(c);
    nb_result_file_destroy(fa);
    nb_result_file_destroy(fb);
    /* the CLI: exit 0 though a side is slower, the pair named new / base */
    char args[600];
    snprintf(args, sizeof args, "compare %s %s --match word", pb, pa);
    assert_int_equal(run(args), 2); /* base holds no 64-bit partner for new's 32-bit cases */
    assert_one_error_line();
    snprintf(args, sizeof args, "compare %s %s --match word --format json", pa, pb);
    assert_int_equal(run(args), 0);
    json_t *j = load_json("out.txt");
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "method"), "match")),
                        "word");
    json_t *r0 = json_array_get(json_object_get(j, "cases"), 0);
    assert_string_equal(json_string_value(json_object_get(r0, "variant")), "c64");
    assert_string_equal(json_string_value(json_object_get(r0, "new_variant")), "c32");
    json_decref(j);
    snprintf(args, sizeof args, "compare %s %s --match words", pa, pb);
    assert_int_equal(run(args), 2);
    assert_one_error_line();
    /* Guards: --ignore of a field the word key leaves out was taken as if it
     * changed the pairing ("Matched without: limbs") */
    snprintf(args, sizeof args, "compare %s %s --match word --ignore limbs", pa, pb);
    assert_int_equal(run(args), 2);
    assert_error_line_has("--ignore 'limbs': cases are always matched without it under --match "
                          "word");
    /* Guards: files of one word size each matched nothing, with no word of
     * --match word */
    write_doc("only64.json", json_pack("[o]", word_case("c64", 64, 60, 120.0, 10, 2000)), 4);
    write_doc("only32.json", json_pack("[o]", word_case("c32", 32, 31, 124.0, 10, 1000)), 4);
    snprintf(args, sizeof args, "compare %s/only64.json %s/only32.json", dir, dir);
    assert_int_equal(run(args), 2);
    assert_error_line_has("their cases are of different word sizes: --match word pairs each "
                          "32-bit case of NEW with the 64-bit one of its log Q in BASE)");
    snprintf(args, sizeof args, "compare %s/only32.json %s/only64.json", dir, dir);
    assert_int_equal(run(args), 2);
    assert_error_line_has("in BASE; give the 64-bit file first)");
}

/* An old file (version 3, no word_bits or log_q) reads as 64-bit with log Q
 * from its primes, matches a version-4 file by key, and faces 32-bit cases. */
/* Guards: a --logq target that the primes which exist reach was refused
 * because the planner asked for more primes than exist ("asked for 9" of 8
 * 20-bit primes at log N 12, although 8 give 156.7 >= 164 - 10 bits). */
static void test_logq_takes_the_primes_that_exist(void **state)
{
    (void)state;
    assert_int_equal(run("run --list --tier warm --logn 12 --word 32 --variant cpu-harvey32 "
                         "--bits 20 --logq 164,200"),
                     0);
    char *o = slurp("out.txt");
    if (!strstr(o, "warm cpu-harvey32 fwd logn=12 L=8 q20 w32 logQ=156.7 per-launch\n") ||
        !strstr(o, "[will fail: log Q 200 with 20-bit primes at log N 12: only 8 primes"))
        fail_msg("--list: %s", o);
    free(o);
}

static void test_old_file_reads_as_64_bit(void **state)
{
    (void)state;
    write_doc("old.json", json_pack("[o]", word_case("c64", 0, 60, -1, 10, 2000)), 3);
    write_doc("new.json", json_pack("[o, o]", word_case("c64", 64, 60, 60.0, 10, 2000),
                                    word_case("c32", 32, 31, 62.0, 10, 1000)), 4);
    char pa[256], pb[256];
    snprintf(pa, sizeof pa, "%s/old.json", dir);
    snprintf(pb, sizeof pb, "%s/new.json", dir);
    nb_result_file *fa, *fb;
    assert_int_equal(nb_result_file_load(&fa, pa), NB_OK);
    assert_int_equal(nb_result_file_load(&fb, pb), NB_OK);
    const nb_rf_case *old = nb_result_file_case(fa, 0);
    assert_int_equal(old->word_bits, 64);
    assert_true(fabs(old->log_q - 60.0) < 1e-6);
    assert_string_equal(old->key, nb_result_file_case(fb, 0)->key);
    nb_compare_opts o;
    nb_compare_opts_default(&o);
    nb_comparison *c = NULL;
    assert_int_equal(nb_compare(fa, fb, &o, &c), NB_OK);
    assert_int_equal(c->n_rows, 1); /* by key: the 64-bit case */
    nb_comparison_destroy(c);
    o.match = NB_MATCH_WORD;
    assert_int_equal(nb_compare(fa, fb, &o, &c), NB_OK);
    assert_int_equal(c->n_rows, 1);
    assert_string_equal(c->rows[0].new_->variant, "c32");
    nb_comparison_destroy(c);
    nb_result_file_destroy(fa);
    nb_result_file_destroy(fb);
}

/* A timed key switch of SET (log Q LOG_Q; 0: 1592 or 1591.3) on WORD-bit
 * words and GPUS GPUs with a median of US microseconds, added to REP. */
static void add_stage_case_q(nb_report *rep, const char *set, int word, long long gpus, double us,
                             double log_q)
{
    nb_case *c = NULL;
    char label[64];
    snprintf(label, sizeof label, "keyswitch %s gpus=%lld", set, gpus);
    assert_int_equal(nb_case_create(&c, "stage", NB_CACHE_COLD, word == 32 ? "gpu-w32" : "gpu-w64",
                                    NB_BACKEND_GPU, label),
                     NB_OK);
    assert_int_equal(nb_case_param_str(c, "stage", "keyswitch"), NB_OK);
    assert_int_equal(nb_case_param_str(c, "preset", set), NB_OK);
    assert_int_equal(nb_case_param_int(c, "word_bits", word), NB_OK);
    assert_int_equal(nb_case_param_int(c, "gpus", gpus), NB_OK);
    if (log_q == 0)
        log_q = word == 32 ? 1591.3 : 1592.0;
    assert_int_equal(nb_case_param_real(c, "log_q", log_q, 1), NB_OK);
    const double s[3] = {us * 1e-6, us * 1e-6, us * 1e-6}, clk[3] = {1980, 1980, 1980};
    nb_bench_result r = nb_test_result(NB_BACKEND_GPU, 1, s, clk, 3);
    assert_int_equal(nb_case_set_result(c, &r), NB_OK);
    nb_bench_result_free(&r);
    assert_int_equal(nb_report_add_case(rep, c), NB_OK);
}

static void add_stage_case(nb_report *rep, const char *set, int word, long long gpus, double us)
{
    add_stage_case_q(rep, set, word, gpus, us, 0);
}

/* Guards: the run's word-size section paired twins within 31 bits of log Q
 * while compare --match word pairs them within one 64-bit prime (62 bits
 * when no prime size is recorded): test-tiny (130) and test-tiny-w32 (162)
 * were a pair in compare and none in the run's table. One rule now. */
static void test_word_pairs_take_compares_log_q_rule(void **state)
{
    (void)state;
    for (int far = 0; far < 2; far++) {
        nb_report *rep = NULL;
        assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
        add_stage_case_q(rep, "test-tiny", 64, 1, 400, 130.0);
        add_stage_case_q(rep, "test-tiny-w32", 32, 1, 300, far ? 193.0 : 162.0);
        char *t = nb_test_report_text(rep, NB_FORMAT_TABLE);
        if ((strstr(t, "Word sizes at the nearest log Q") == NULL) != far)
            nb_test_fail("log Q 130 and %s: %s", far ? "193 paired" : "162 not paired", t);
        free(t);
        nb_report_destroy(rep);
    }
}

/* Guards: one 64-bit case (log Q 100) was paired with both levels of its
 * 32-bit twin (log Q 87 and 112), printing one log Q for both rows; now the
 * nearer level alone pairs with it, and the row shows both sides' log Q. */
static void test_word_pairs_take_the_nearest_level_once(void **state)
{
    (void)state;
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    add_stage_case_q(rep, "test-tiny", 64, 1, 400, 100.0);
    add_stage_case_q(rep, "test-tiny-w32", 32, 1, 300, 87.0);
    add_stage_case_q(rep, "test-tiny-w32", 32, 1, 500, 112.0);
    char *t = nb_test_report_text(rep, NB_FORMAT_TABLE);
    const char *sec = strstr(t, "Word sizes at the nearest log Q");
    if (!sec || !strstr(sec, "100 / 112") || strstr(sec, "100 / 87") || !strstr(sec, "1.25"))
        nb_test_fail("the pairs of log Q 100 with 87 and 112:\n%s", t);
    free(t);
    nb_report_destroy(rep);
}

/* The word-size section pairs cases on the same number of GPUs: one and two
 * GPUs of each word size give two pairs with their own ratios (300 / 400 and
 * 270 / 300), the second saying it ran on 2 GPUs, in both text formats. */
static void test_word_pairs_match_the_gpu_count(void **state)
{
    (void)state;
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    add_stage_case(rep, "ckks16-l30-d3", 64, 1, 400);
    add_stage_case(rep, "ckks16-l30-d3", 64, 2, 300);
    add_stage_case(rep, "ckks16-l30-d3-w32", 32, 1, 300);
    add_stage_case(rep, "ckks16-l30-d3-w32", 32, 2, 270);
    for (int md = 0; md < 2; md++) {
        char *t = nb_test_report_text(rep, md ? NB_FORMAT_MD : NB_FORMAT_TABLE);
        const char *sec = strstr(t, "Word sizes at the nearest log Q");
        if (!sec)
            nb_test_fail("no word-size section in:\n%s", t);
        const char *one = strstr(sec, "keyswitch "), *two = strstr(sec, "keyswitch, 2 GPUs");
        if (!one || !two || !strstr(one, "0.75") || !strstr(two, "0.90") || strstr(sec, "1.00"))
            nb_test_fail("pairs across GPU counts in:\n%s", sec);
        free(t);
    }
    nb_report_destroy(rep);
}

/* Guards: compare --match word never paired a stage case with its twin (the
 * sets X and X-w32 differ in name and chain), and its message named only the
 * NTT tiers' criteria. */
static void test_compare_match_word_pairs_stage_twins(void **state)
{
    (void)state;
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    add_stage_case(rep, "ckks16-l30-d3", 64, 1, 400);
    add_stage_case(rep, "ckks16-l30-d3-w32", 32, 1, 300);
    add_stage_case(rep, "ckks16-l30-d3-w32", 32, 2, 270); /* no 64-bit case on 2 GPUs */
    char path[256];
    snprintf(path, sizeof path, "%s/stw.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(nb_report_write(rep, NB_FORMAT_JSON, f), NB_OK);
    fclose(f);
    nb_report_destroy(rep);
    nb_result_file *rf;
    assert_int_equal(nb_result_file_load(&rf, path), NB_OK);
    nb_compare_opts o;
    nb_compare_opts_default(&o);
    o.match = NB_MATCH_WORD;
    nb_comparison *c = NULL;
    assert_int_equal(nb_compare(rf, rf, &o, &c), NB_OK);
    assert_int_equal(c->n_rows, 1);
    assert_string_equal(c->rows[0].base->variant, "gpu-w64");
    assert_string_equal(c->rows[0].new_->variant, "gpu-w32");
    assert_true(fabs(c->rows[0].time.ratio - 0.75) < 0.01);
    /* unmatched: the 32-bit case on 2 GPUs alone, not the cases of the other
     * word size on either side (a file compared with itself listed every
     * paired case as unmatched too) */
    assert_int_equal(c->n_unmatched_new, 1);
    assert_int_equal(c->n_unmatched_base, 0);
    nb_comparison_destroy(c);
    nb_result_file_destroy(rf);
}

int main(int argc, char **argv)
{
    nb_test_seed_init();
    if (argc < 2) {
        fprintf(stderr, "usage: %s NTTBENCH\n", argv[0]);
        return 2;
    }
    exe = argv[1];
    if (cli_scratch_create("nb_word_") != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_32bit_cpu_end_to_end_json),
        cmocka_unit_test(test_default_word_is_64_bit_only),
        cmocka_unit_test(test_logq_picks_documented_limbs_for_both_words),
        cmocka_unit_test(test_text_formats_carry_word_bits_and_log_q),
        cmocka_unit_test(test_list_and_primes_show_word_size),
        cmocka_unit_test(test_verify_32bit_variant_passes),
        cmocka_unit_test(test_transform_32bit_matches_reference),
        cmocka_unit_test(test_compare_match_word_pairs_nearest_log_q),
        cmocka_unit_test(test_word_pairs_match_the_gpu_count),
        cmocka_unit_test(test_word_pairs_take_the_nearest_level_once),
        cmocka_unit_test(test_word_pairs_take_compares_log_q_rule),
        cmocka_unit_test(test_compare_match_word_pairs_stage_twins),
        cmocka_unit_test(test_old_file_reads_as_64_bit),
        cmocka_unit_test(test_logq_takes_the_primes_that_exist),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cli_scratch_remove();
    return rc;
}

/* Bad input at the nttbench command line: strict decimal numbers (every
 * numeric option, lists and ranges, the full 64-bit seed range), the text
 * coefficient file syntax (lines of any length, one number per line, the
 * right line number, `check` never calling different files equal), one-line
 * messages naming the thing and the cause, and the plug-in contract on
 * sub-ranges in `verify`. Every rejected input is also written as a row
 * (what, command, exit code, message) to the table file, from which
 * scripts/reliability-table regenerates docs/reliability.md.
 * argv: NTTBENCH SUBRANGE-BROKEN-PLUGIN TABLE-FILE. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/cli/cli.h"
#include "bench/cli/numparse.h"
#include "bench/timing/memfit.h"
#pragma GCC diagnostic ignored "-Wunused-function" /* cliutil.h helpers this file does not use */
#include "testutil.h"
#include "cliutil.h"

static const char *broken_plugin;
static const char *abi_other_plugin; /* built for another plug-in ABI */
#include "clirows.h"

/* ------------------------------------------------------------- numbers */

/* Guards: "010" was read as octal 8; now rejected everywhere, lists included. */
static void test_leading_zero_is_rejected(void **state)
{
    (void)state;
    expect_error("leading zero", (const char *[]){"verify", "--logn", "010", NULL}, 2,
                 "leading zero");
    expect_error("leading zero in a range",
                 (const char *[]){"verify", "--logn", "10:012", NULL}, 2, "--logn");
    expect_error("leading zero in a size", (const char *[]){"run", "--batch", "08", NULL}, 2,
                 "leading zero");
}

/* Guards: base auto-detection accepted 0x10 as 16 and 0x1p-3 as a real. */
static void test_hexadecimal_is_rejected(void **state)
{
    (void)state;
    expect_error("hexadecimal integer", (const char *[]){"verify", "--limbs", "0x3", NULL}, 2,
                 "not a decimal number");
    expect_error("hexadecimal real", (const char *[]){"run", "--min-time", "0x1p-3", NULL}, 2,
                 "not a decimal number");
    expect_error("infinity", (const char *[]){"run", "--timeout", "inf", NULL}, 2,
                 "not a decimal number");
}

/* Guards: leading blanks and signs were skipped by strtoull, so " -1" became
 * 2^64 - 1 as a seed. */
static void test_blank_and_sign_are_rejected(void **state)
{
    (void)state;
    expect_error("blank before a number", (const char *[]){"verify", "--limbs", " 3", NULL}, 2,
                 "not a decimal number");
    expect_error("negative seed behind a blank",
                 (const char *[]){"verify", "--seed", " -1", NULL}, 2, "not a decimal number");
    expect_error("plus sign", (const char *[]){"verify", "--seed", "+5", NULL}, 2,
                 "not a decimal number");
    expect_error("blank before a real", (const char *[]){"run", "--min-time", " 1", NULL}, 2,
                 "not a decimal number");
    expect_error("seed above 2^64 - 1",
                 (const char *[]){"verify", "--seed", "18446744073709551616", NULL}, 2,
                 "out of range");
}

/* Guards: the whole 64-bit range is a valid seed and is used as given. */
static void test_seed_accepts_full_range(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){"verify", "--variant", "cpu-harvey", "--logn", "10",
                                            "--limbs", "1", "--bits", "36", "--direction",
                                            "forward", "--seed", "18446744073709551615", NULL}),
                     0);
    char *o = slurp("out.txt");
    assert_non_null(strstr(o, "seed 18446744073709551615"));
    free(o);
}

/* Guards: the one parser behind every option keeps the list/range syntax. */
static void test_list_syntax_uses_strict_numbers(void **state)
{
    (void)state;
    unsigned long long v[64];
    size_t n;
    assert_int_equal(nb_cli_parse_ulist("12:17", "logn", 1, 17, v, 64, &n), NB_OK);
    assert_true(n == 6 && v[0] == 12 && v[5] == 17);
    assert_int_equal(nb_cli_parse_ulist("10:16:2", "logn", 1, 17, v, 64, &n), NB_OK);
    assert_true(n == 4 && v[3] == 16);
    assert_int_equal(nb_cli_parse_ulist("1,8,32", "limbs", 1, 64, v, 64, &n), NB_OK);
    assert_true(n == 3 && v[1] == 8);
    assert_int_equal(nb_cli_parse_ulist("010", "logn", 1, 17, v, 64, &n), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_cli_parse_ulist("1:0x4", "logn", 1, 17, v, 64, &n), NB_ERR_INVALID_ARG);
    assert_int_equal(nb_cli_parse_ulist("1:4: 1", "logn", 1, 17, v, 64, &n),
                     NB_ERR_INVALID_ARG);
    uint64_t x;
    assert_int_equal(nb_cli_parse_u64("18446744073709551615", "seed", &x), NB_OK);
    assert_true(x == UINT64_MAX);
    assert_int_equal(nb_num_u64("0", &x), NB_NUM_OK);
    assert_int_equal(nb_num_u64("00", &x), NB_NUM_LEADING_ZERO);
    double d;
    assert_int_equal(nb_num_double("0.25", &d), NB_NUM_OK);
    assert_true(d == 0.25);
    assert_int_equal(nb_num_double("1e-3", &d), NB_NUM_OK);
    assert_int_equal(nb_num_double(".5", &d), NB_NUM_SYNTAX);
    assert_int_equal(nb_num_double("nan", &d), NB_NUM_SYNTAX);
    assert_int_equal(nb_num_double("1e999", &d), NB_NUM_OVERFLOW);
}

/* ------------------------------------------------------------- coefficient files */

/* Appends n copies of c, then tail, to the string in buf (capacity cap). */
static void add(char *buf, size_t cap, char c, size_t n, const char *tail)
{
    size_t k = strlen(buf);
    assert_true(k + n + strlen(tail) < cap);
    memset(buf + k, c, n);
    strcpy(buf + k + n, tail);
}

/* Guards: a 256-byte line buffer split a long comment, so its tail was read
 * as a value and `check` called two different files equal. */
static void test_long_comment_tail_is_not_a_value(void **state)
{
    (void)state;
    puts_file("two.txt", "1\n2\n");
    char text[2048] = "1\n#";
    add(text, sizeof text, 'x', 254, "2\n");
    puts_file("one.txt", text);
    int rc = run_v((const char *[]){"check", "--expected", at("two.txt"), "--actual",
                                    at("one.txt"), NULL});
    assert_int_equal(rc, 1);
}

/* Guards: long comments and padded values are accepted as one line each. */
static void test_long_lines_are_one_line(void **state)
{
    (void)state;
    char text[4096] = "# ";
    add(text, sizeof text, 'y', 600, "\n");
    add(text, sizeof text, ' ', 400, "5\t   \n7");
    puts_file("padded.txt", text);
    puts_file("plain.txt", "5\n7\n");
    int rc = run_v((const char *[]){"check", "--expected", at("plain.txt"), "--actual",
                                    at("padded.txt"), NULL});
    assert_int_equal(rc, 0);
    puts_file("crlf.txt", "5\r\n7\r\n");
    rc = run_v((const char *[]){"check", "--expected", at("plain.txt"), "--actual",
                                at("crlf.txt"), NULL});
    assert_int_equal(rc, 0);
}

/* Guards: the line number in a message counts lines, not 255-byte pieces. */
static void test_error_names_the_right_line(void **state)
{
    (void)state;
    char text[2048] = "1\n# ";
    add(text, sizeof text, 'z', 700, "\n2\n3\nx\n");
    puts_file("bad3.txt", text);
    expect_error("bad value after a long comment",
                 (const char *[]){"check", "--expected", at("bad3.txt"), "--actual",
                                  at("bad3.txt"), NULL},
                 2, "bad3.txt:5:");
}

/* Guards: "+3", "\v-1" (read as 2^64 - 1), two numbers on a line, a hex
 * value and a NUL byte (reading stopped there) are all rejected. */
static void test_text_syntax_is_strict(void **state)
{
    (void)state;
    static const struct {
        const char *what, *bytes;
        size_t len;
        const char *needle;
    } bad[] = {
        {"plus sign in a text file", "1\n+3\n", 5, "plus.txt:2:"},
        {"vertical tab and minus in a text file", "\v-1\n", 4, "vtab.txt:1:"},
        {"two numbers on a line", "1 2\n", 4, "two.txt:1:"},
        {"hexadecimal in a text file", "0x10\n", 5, "hex.txt:1:"},
        {"NUL byte in a text file", "1\n2\0 9\n", 7, "nul.txt:2: NUL byte"},
        {"value above 2^64 - 1 in a text file", "18446744073709551616\n", 21, "big.txt:1:"},
    };
    static const char *const names[] = {"plus.txt", "vtab.txt", "two.txt",
                                        "hex.txt",  "nul.txt",  "big.txt"};
    puts_file("ref.txt", "1\n2\n");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        put(names[i], bad[i].bytes, bad[i].len);
        expect_error(bad[i].what,
                     (const char *[]){"check", "--expected", at("ref.txt"), "--actual",
                                      at(names[i]), NULL},
                     2, bad[i].needle);
    }
}

/* Guards: raw files keep their format (little-endian uint64). */
static void test_raw_files_unchanged(void **state)
{
    (void)state;
    const unsigned char raw[16] = {5, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff};
    put("v.bin", (const char *)raw, sizeof raw);
    puts_file("v.txt", "5\n18446744073709551615\n");
    assert_int_equal(run_v((const char *[]){"check", "--expected", at("v.txt"), "--actual",
                                            at("v.bin"), NULL}),
                     0);
    put("odd.bin", (const char *)raw, 12);
    expect_error("raw file not a multiple of 8 bytes",
                 (const char *[]){"check", "--expected", at("v.bin"), "--actual", at("odd.bin"),
                                  NULL},
                 2, "multiple of 8 bytes");
}

/* ------------------------------------------------------------- messages */

/* Guards: no command printed the usage without an error line. */
static void test_missing_command_says_error(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){NULL}), 2);
    char *e = slurp("err.txt");
    assert_string_equal(e, "nttbench: error: no command given (usage: nttbench [global "
                           "options] COMMAND [options]; nttbench --help lists the commands)\n");
    free(e);
    if (table)
        fprintf(table, "no command\t\t2\tno command given (usage: nttbench [global options] "
                       "COMMAND [options]; nttbench --help lists the commands)\n");
}

/* Guards: an unknown global option was called an unknown command. */
static void test_unknown_option_is_an_option(void **state)
{
    (void)state;
    expect_error("unknown global option", (const char *[]){"--bogus", "list", NULL}, 2,
                 "unknown option '--bogus'");
    expect_error("unknown command", (const char *[]){"frobnicate", NULL}, 2,
                 "unknown command 'frobnicate'");
    expect_error("global option without its value", (const char *[]){"--format", NULL}, 2,
                 "--format needs a value");
}

/* Guards: an option whose value was left out took the next option as its
 * value: `run --output --no-progress` wrote the report to a file named
 * "--no-progress" and exited 0, `run --variant --logn 12` blamed the 12. */
static void test_left_out_value_is_not_the_next_option(void **state)
{
    (void)state;
    expect_error("global option's value left out before another option",
                 (const char *[]){"run", "--output", "--no-progress", "--variant", "cpu-harvey",
                                  NULL},
                 2, "option --output needs a value before '--no-progress'");
    expect_error("command option's value left out before another option",
                 (const char *[]){"run", "--variant", "--logn", "12", NULL}, 2,
                 "option --variant needs a value before '--logn'");
    char path[160];
    snprintf(path, sizeof path, "%s/--no-progress", dir);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(access("--no-progress", F_OK), -1);
    /* the value after '=' may start with "--": the filter matches no case */
    const char *args[] = {"run", "--list", "--variant", "cpu-harvey", "--logn", "10", "--limbs",
                          "1", "--filter=--x", NULL};
    assert_int_equal(run_v(args), 2);
    assert_error_line_has("--filter keeps none of the cases");
}

/* Guards: an argument holding a newline gave two stderr lines. */
static void test_newline_in_argument_stays_one_line(void **state)
{
    (void)state;
    expect_error("newline inside an option name",
                 (const char *[]){"verify", "--lo\ngn", "3", NULL}, 2, "--lo\\ngn");
    expect_error("newline inside a value", (const char *[]){"verify", "--seed", "1\n2", NULL}, 2,
                 "'1\\n2'");
}

/* Guards: a CPU + GPU list without a device named "gpu", not the variant. */
static void test_mixed_list_names_the_gpu_variant(void **state)
{
    (void)state;
    expect_gpu_variant_named("GPU variant in the list, no GPU", "verify", NULL);
}

/* Guards: I/O errors name the file and the cause (strerror). */
static void test_io_errors_name_file_and_cause(void **state)
{
    (void)state;
    puts_file("ok.txt", "1\n");
    expect_error("missing input file",
                 (const char *[]){"check", "--expected", at("missing.txt"), "--actual",
                                  at("ok.txt"), NULL},
                 2, "'DIR/missing.txt': No such file or directory");
    expect_error("plug-in that does not exist",
                 (const char *[]){"--plugin", at("nope.so"), "list", NULL}, 3, "nope.so");
}

/* Guards: a plug-in built for another plug-in ABI (or before the ABI mark)
 * was called and could register variants whose struct the library misreads. */
static void test_plugin_of_another_abi_is_refused(void **state)
{
    (void)state;
    if (!abi_other_plugin)
        skip();
    char other[32], mine[48];
    snprintf(other, sizeof other, "plug-in ABI %u,", NB_PLUGIN_ABI_VERSION + 1);
    snprintf(mine, sizeof mine, "loads plug-in ABI %u to %u:", NB_PLUGIN_ABI_OLDEST,
             NB_PLUGIN_ABI_VERSION);
    char copy[256];
    snprintf(copy, sizeof copy, "cp '%s' '%s/libother.so'", abi_other_plugin, dir);
    assert_int_equal(system(copy), 0);
    const char *const args[] = {"--plugin", at("libother.so"), "list", NULL};
    expect_error("plug-in built for another plug-in ABI", args, 3, other);
    char *e = slurp("err.txt");
    assert_non_null(strstr(e, mine));
    free(e);
    char *o = slurp("out.txt");
    assert_null(strstr(o, "abi-other")); /* its nb_plugin_init never ran */
    free(o);
}

/* Guards: a --filter that keeps nothing ran nothing silently (exit 0, an
 * empty report), and a pattern that does not compile was read literally. */
static void test_filter_errors_exit_2(void **state)
{
    (void)state;
    expect_error("--filter that is not a regular expression",
                 (const char *[]){"run", "--filter", "(", NULL}, 2, "--filter '(': ");
    expect_error("--filter that keeps no case",
                 (const char *[]){"run", "--logn", "10", "--filter", "no-such-case", NULL}, 2,
                 "--filter keeps none of the cases");
    expect_error("--filter that keeps no check",
                 (const char *[]){"verify", "--filter", "logn=99", NULL}, 2,
                 "--filter keeps none of the checks");
    expect_error("standard input as a plug-in", (const char *[]){"--plugin", "-", "list", NULL},
                 2, "not from standard input");
}

/* Guards: a failing write (here: file size limit, as on a full disk) named
 * neither the file nor the cause ("write error"). */
static void test_write_error_names_file_and_cause(void **state)
{
    (void)state;
    char text[16384];
    size_t k = 0;
    for (int i = 0; i < 1024; i++)
        k += (size_t)snprintf(text + k, sizeof text - k, "%d\n", 1000 + i);
    puts_file("in.txt", text);
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "trap '' XFSZ; ulimit -f 4; %s transform --variant reference --direction forward "
             "--logn 10 --primes 12289 --in %s/in.txt --out %s/out-big.txt 2>%s/err.txt",
             exe, dir, dir, dir);
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 3);
    char *e = slurp("err.txt");
    hide_dir(e);
    if (!strstr(e, "DIR/out-big.txt") || !strstr(e, "File too large") || count_lines(e) != 1)
        fail_msg("stderr: %s", e);
    e[strlen(e) - 1] = '\0';
    if (table)
        fprintf(table, "output larger than the file size limit\t(ulimit -f 4) transform ... "
                       "--out DIR/out-big.txt\t3\t%s\n",
                e + 17);
    free(e);
}

/* ------------------------------------------------------------- plug-in contract */

static const char *verify_subrange(const char *variant)
{
    static char plug[300];
    snprintf(plug, sizeof plug, "--plugin=%s", broken_plugin);
    const char *args[] = {plug,      "verify", "--variant", variant,   "--logn", "10",
                          "--limbs", "3",      "--bits",    "36",      NULL};
    int rc = run_v(args);
    char *o = slurp("out.txt");
    int ok = rc == 1 && strstr(o, "sub-range limbs [1, 2) of 3") != NULL;
    free(o);
    return ok ? NULL : "not reported as a sub-range failure";
}

/* Guards: a plug-in that ignores `first` was reported verified. */
static void test_verify_catches_ignored_first(void **state)
{
    (void)state;
    const char *why = verify_subrange("broken-ignores-first");
    if (why)
        fail_msg("broken-ignores-first: %s", why);
}

/* Guards: a plug-in that writes limbs after its range was reported verified. */
static void test_verify_catches_write_outside_range(void **state)
{
    (void)state;
    const char *why = verify_subrange("broken-writes-outside");
    if (why)
        fail_msg("broken-writes-outside: %s", why);
}

/* Guards: the sub-range check passes a correct variant (no false alarm). */
static void test_verify_subranges_pass_correct_variant(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){"verify", "--variant", "cpu-harvey", "--logn",
                                            "10,12", "--limbs", "2,3,4", "--bits", "36,62",
                                            NULL}),
                     0);
}

/* ------------------------------------------------------------ impossible sizes */

/* Guards: a case larger than the host's memory (log N 17 x 4096 limbs needs
 * 28 GiB) is refused before anything is allocated, naming the bytes; where
 * the host has that much, an address-space limit stands in for it. */
static void test_case_larger_than_memory_exits_2_at_once(void **state)
{
    (void)state;
    if (nb_host_mem_available() > ((size_t)36 << 30))
        child_as_limit = 4ull << 30;
    table_mask_after = "of host memory, ";
    expect_error("case larger than memory",
                 (const char *[]){"run", "--variant", "cpu-harvey", "--tier", "warm", "--logn",
                                  "17", "--limbs", "4096", "--no-progress", NULL},
                 2, "needs 40.0 GiB (42949672960 bytes) of host memory");
    table_mask_after = NULL;
    child_as_limit = 0;
}

/* Guards: a --level outside what the parameter set allows exits 2. */
static void test_impossible_level_exits_2(void **state)
{
    (void)state;
    expect_error("level above the set's top level",
                 (const char *[]){"run", "--tier", "stage", "--preset", "test-tiny", "--level",
                                  "99", NULL},
                 2, "--level 99 is outside [1, 3] of the set test-tiny");
    expect_error("level below rescale's minimum",
                 (const char *[]){"run", "--tier", "stage", "--preset", "test-tiny", "--stage",
                                  "rescale", "--level", "0", NULL},
                 2, "rescale needs level 1 or more");
}

/* Guards: the word-size options refuse what they cannot mean, at once, in
 * one line: a named variant outside --word, --logq beside --limbs, a word
 * size other than 32 or 64, a 32-bit prime above 31 bits. */
static void test_word_size_usage_errors_exit_2(void **state)
{
    (void)state;
    expect_error("variant outside the --word list",
                 (const char *[]){"run", "--word", "64", "--variant", "cpu-harvey32", NULL}, 2,
                 "variant 'cpu-harvey32' has 32-bit words, not in --word 64");
    expect_error("--logq with --limbs",
                 (const char *[]){"run", "--logq", "200", "--limbs", "4", NULL}, 2,
                 "--logq and --limbs both size the modulus");
    expect_error("word size neither 32 nor 64", (const char *[]){"run", "--word", "48", NULL},
                 2, "--word 48: 32 or 64");
    expect_error("verify: variant outside the --word list",
                 (const char *[]){"verify", "--word", "32", "--variant", "cpu-harvey", NULL}, 2,
                 "variant 'cpu-harvey' has 64-bit words, not in --word 32");
    expect_error("verify: 32-bit variant with 32-bit primes",
                 (const char *[]){"verify", "--variant", "cpu-harvey32", "--bits", "32", NULL},
                 2, "32-bit variants take primes of at most 31 bits");
    expect_error("primes: 32-bit words with 32-bit primes",
                 (const char *[]){"primes", "--word", "32", "--bits", "32", NULL}, 2,
                 "32-bit words take primes of at most 31 bits");
}

/* ------------------------------------------------------------- CKKS stages */

/* Guards: `verify --stage` checks every stage of a CPU variant against GMP. */
static void test_verify_stage_passes_cpu_variant(void **state)
{
    (void)state;
    assert_int_equal(run_v((const char *[]){"--format", "json", "verify", "--stage",
                                            "modup,moddown,keyswitch,rescale", "--preset",
                                            "test-tiny", "--variant", "cpu-harvey", NULL}),
                     0);
    json_t *j = load_json("out.txt");
    assert_string_equal(json_string_value(json_object_get(j, "schema")), "nttbench-verify-stage");
    json_t *checks = json_object_get(j, "checks");
    assert_int_equal(json_array_size(checks), 8); /* 4 stages x levels 3 and 1 */
    size_t i;
    json_t *c;
    json_array_foreach(checks, i, c)
        assert_string_equal(json_string_value(json_object_get(c, "result")), "pass");
    json_decref(j);
}

/* Guards: a variant that is wrong on sub-ranges fails every stage (exit 1). */
static void test_verify_stage_fails_broken_variant(void **state)
{
    (void)state;
    static char plug[300];
    snprintf(plug, sizeof plug, "--plugin=%s", broken_plugin);
    assert_int_equal(run_v((const char *[]){plug, "verify", "--stage", "modup,rescale",
                                            "--preset", "test-tiny", "--variant",
                                            "broken-ignores-first", NULL}),
                     1);
    char *o = slurp("out.txt");
    assert_non_null(strstr(o, "0 passed, 4 failed"));
    free(o);
    expect_error("unknown stage", (const char *[]){"verify", "--stage", "modupp", NULL}, 2,
                 "--stage 'modupp'");
    expect_error("unknown preset",
                 (const char *[]){"verify", "--stage", "modup", "--preset", "nope", NULL}, 2,
                 "no CKKS preset named 'nope'");
}

/* Guards: a run whose only case failed its check before timing (no sample)
 * replaced an earlier result at --output with that failure. */
static void test_run_failing_its_check_keeps_an_earlier_result(void **state)
{
    (void)state;
    FILE *f = fopen(at("earlier.json"), "w");
    assert_non_null(f);
    fputs("{\"an earlier\": \"result\"}\n", f);
    fclose(f);
    static char plug[300];
    snprintf(plug, sizeof plug, "--plugin=%s", broken_plugin);
    assert_int_equal(run_v((const char *[]){plug, "--format", "json", "--output",
                                            at("earlier.json"), "run", "--variant",
                                            "broken-first-value", "--tier", "warm", "--logn",
                                            "10", "--limbs", "1", "--min-time", "0.01",
                                            "--timeout", "0.1", "--no-progress", NULL}),
                     1);
    char *e = slurp("err.txt"), *kept = slurp("earlier.json");
    assert_non_null(strstr(e, "left as it was"));
    assert_string_equal(kept, "{\"an earlier\": \"result\"}\n");
    free(e);
    free(kept);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s NTTBENCH SUBRANGE-PLUGIN [TABLE-FILE [ABI-OTHER-PLUGIN]]\n",
                argv[0]);
        return 2;
    }
    exe = argv[1];
    broken_plugin = argv[2];
    abi_other_plugin = argc > 4 ? argv[4] : NULL;
    if (argc > 3 && !(table = fopen(argv[3], "w"))) {
        fprintf(stderr, "cannot write %s: %s\n", argv[3], strerror(errno));
        return 2;
    }
    if (cli_scratch_create("nb-robust-") != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leading_zero_is_rejected),
        cmocka_unit_test(test_hexadecimal_is_rejected),
        cmocka_unit_test(test_blank_and_sign_are_rejected),
        cmocka_unit_test(test_seed_accepts_full_range),
        cmocka_unit_test(test_list_syntax_uses_strict_numbers),
        cmocka_unit_test(test_long_comment_tail_is_not_a_value),
        cmocka_unit_test(test_long_lines_are_one_line),
        cmocka_unit_test(test_error_names_the_right_line),
        cmocka_unit_test(test_text_syntax_is_strict),
        cmocka_unit_test(test_raw_files_unchanged),
        cmocka_unit_test(test_missing_command_says_error),
        cmocka_unit_test(test_unknown_option_is_an_option),
        cmocka_unit_test(test_left_out_value_is_not_the_next_option),
        cmocka_unit_test(test_newline_in_argument_stays_one_line),
        cmocka_unit_test(test_mixed_list_names_the_gpu_variant),
        cmocka_unit_test(test_io_errors_name_file_and_cause),
        cmocka_unit_test(test_write_error_names_file_and_cause),
        cmocka_unit_test(test_plugin_of_another_abi_is_refused),
        cmocka_unit_test(test_filter_errors_exit_2),
        cmocka_unit_test(test_verify_catches_ignored_first),
        cmocka_unit_test(test_verify_catches_write_outside_range),
        cmocka_unit_test(test_verify_subranges_pass_correct_variant),
        cmocka_unit_test(test_verify_stage_passes_cpu_variant),
        cmocka_unit_test(test_verify_stage_fails_broken_variant),
        cmocka_unit_test(test_run_failing_its_check_keeps_an_earlier_result),
        cmocka_unit_test(test_case_larger_than_memory_exits_2_at_once),
        cmocka_unit_test(test_impossible_level_exits_2),
        cmocka_unit_test(test_word_size_usage_errors_exit_2),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (table)
        fclose(table);
    cli_scratch_remove();
    return failed ? 1 : 0;
}

/* `nttbench transform` and `nttbench check`, for researchers checking their
 * own implementation against ours or the GMP reference, and the choice of
 * coefficient file format (raw or text; readers and the exact text
 * syntax in coeffile.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/cli/cli.h"
#include "bench/cli/coeffile.h"
#include "reference/reference.h"

static int is_text(const char *path, const char *format)
{
    if (format && strcmp(format, "auto") != 0)
        return strcmp(format, "text") == 0;
    const char *dot = strrchr(path, '.');
    return dot && (!strcmp(dot, ".txt") || !strcmp(dot, ".text"));
}

static nb_status check_format(const char *format)
{
    if (!format || !strcmp(format, "raw") || !strcmp(format, "text") || !strcmp(format, "auto"))
        return NB_OK;
    return nb_set_error(NB_ERR_INVALID_ARG, "file format '%s': raw, text or auto", format);
}

nb_status nb_cli_read_coeffs(const char *path, const char *format, size_t max, const char *why,
                             uint64_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    NB_TRY(check_format(format));
    const int std_in = !strcmp(path, "-"); /* standard input, read once like a file */
    FILE *f = std_in ? stdin : fopen(path, "rb");
    if (!f)
        return nb_set_error(NB_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    nb_status s = is_text(path, format) ? nb_coeff_read_text(f, path, max, why, out, n)
                                        : nb_coeff_read_raw(f, path, max, why, out, n);
    if (!std_in)
        fclose(f);
    return s;
}

typedef struct coeff_writer {
    const char *path;
    const uint64_t *v;
    size_t n;
    int text;
} coeff_writer;

static nb_status write_coeffs_cb(void *ctx, FILE *f)
{
    const coeff_writer *w = ctx;
    for (size_t i = 0; i < w->n; i++) {
        if (w->text) {
            fprintf(f, "%" PRIu64 "\n", w->v[i]);
        } else {
            unsigned char b[8];
            for (int k = 0; k < 8; k++)
                b[k] = (unsigned char)(w->v[i] >> (8 * k));
            fwrite(b, 1, 8, f);
        }
    }
    return ferror(f) ? nb_set_error(NB_ERR_IO, "cannot write '%s': %s", w->path,
                                    strerror(errno ? errno : EIO))
                     : NB_OK;
}

/* 1 when writing `path` writes to a terminal: standard output ("-",
 * /dev/stdout) that is one, or a terminal device. */
static int is_terminal(const char *path)
{
    nb_output_kind kind;
    char resolved[PATH_MAX];
    struct stat st;
    if (nb_output_classify(path, &kind, resolved) != NB_OK)
        return 0;
    if (kind == NB_OUTPUT_STDOUT)
        return isatty(STDOUT_FILENO);
    if (kind != NB_OUTPUT_STREAM || stat(resolved, &st) != 0 || !S_ISCHR(st.st_mode))
        return 0;
    const int fd = open(resolved, O_WRONLY | O_NOCTTY | O_NONBLOCK);
    const int tty = fd >= 0 && isatty(fd);
    if (fd >= 0)
        close(fd);
    return tty;
}

nb_status nb_cli_write_coeffs(const char *path, const char *format, const uint64_t *v, size_t n)
{
    NB_TRY(check_format(format));
    coeff_writer w = {path, v, n, is_text(path, format)};
    return nb_write_file_atomic(path, write_coeffs_cb, &w);
}

/* 1 when paths a and b name one file, by device and inode ('-': standard
 * input for a, and for b standard output when b_out, else standard input);
 * *st is then its status. */
static int same_stream(const char *a, const char *b, int b_out, struct stat *st)
{
    struct stat sb;
    const int ga = nb_cli_stat_arg(a, st);
    const int gb = b_out && !strcmp(b, "-") ? fstat(STDOUT_FILENO, &sb) : nb_cli_stat_arg(b, &sb);
    return ga == 0 && gb == 0 && st->st_dev == sb.st_dev && st->st_ino == sb.st_ino;
}

/* ------------------------------------------------------------- transform */

static const nb_cli_option transform_options[] = {
    {"variant", 1, "V      a variant name or 'reference' (GMP)"},
    {"direction", 1, "D      forward | inverse"},
    {"logn", 1, "n      log2 N"},
    {"primes", 1, "LIST   q1,q2,... one per limb"},
    {"psi", 1, "LIST   primitive 2N-th roots, one per prime (minimal roots)"},
    {"in", 1, "FILE   input coefficients"},
    {"out", 1, "FILE   output coefficients"},
    {"in-format", 1, "F      raw | text | auto (auto)"},
    {"out-format", 1, "F      raw | text | auto (auto)"},
    {NULL, 0, NULL},
};

const nb_cli_option *const nb_cli_transform_tables[] = {transform_options, NULL};

static nb_status parse_u64_list(const char *s, const char *flag, uint64_t *out, size_t max,
                                size_t *n)
{
    char *storage, *words[256];
    NB_TRY(nb_cli_parse_words(s, flag, &storage, words, max < 256 ? max : 256, n));
    nb_status st = NB_OK;
    for (size_t i = 0; i < *n && st == NB_OK; i++)
        st = nb_cli_parse_u64(words[i], flag, &out[i]);
    free(storage);
    return st;
}

/* The options of one `transform`. */
typedef struct transform_args {
    const char *variant, *dir, *in, *out, *inf, *outf, *primes_s, *psi_s;
    size_t log_n;
    int have_logn, inverse;
    uint64_t primes[256], psis[256];
    size_t limbs;
} transform_args;

static nb_status parse_transform(int argc, char **argv, transform_args *a)
{
    memset(a, 0, sizeof *a);
    const nb_cli_option *const *tables = nb_cli_transform_tables;
    for (int i = 0; i < argc;) {
        const char *n, *v;
        int r = nb_cli_next_option(argc, argv, &i, tables, &n, &v);
        if (r == 0)
            return nb_set_error(NB_ERR_INVALID_ARG, "transform: unexpected argument '%s'", argv[i]);
        if (r < 0)
            return NB_ERR_INVALID_ARG;
        if (!strcmp(n, "variant")) a->variant = v;
        else if (!strcmp(n, "direction")) a->dir = v;
        else if (!strcmp(n, "in")) a->in = v;
        else if (!strcmp(n, "out")) a->out = v;
        else if (!strcmp(n, "in-format")) a->inf = v;
        else if (!strcmp(n, "out-format")) a->outf = v;
        else if (!strcmp(n, "primes")) a->primes_s = v;
        else if (!strcmp(n, "psi")) a->psi_s = v;
        else if (!strcmp(n, "logn")) {
            NB_TRY(nb_cli_parse_size(v, "logn", NB_MIN_LOG_N, NB_MAX_LOG_N, &a->log_n));
            a->have_logn = 1;
        }
    }
    if (!a->variant || !a->dir || !a->in || !a->out || !a->primes_s || !a->have_logn)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "transform needs --variant, --direction, --logn, --primes, --in and "
                            "--out (nttbench transform --help)");
    if (strcmp(a->dir, "forward") != 0 && strcmp(a->dir, "inverse") != 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "--direction: forward or inverse");
    if (!a->in[0] || !a->out[0])
        return nb_set_error(NB_ERR_INVALID_ARG, "--%s needs a file name ('-': standard %s)",
                            a->in[0] ? "out" : "in", a->in[0] ? "output" : "input");
    a->inverse = !strcmp(a->dir, "inverse");
    NB_TRY(check_format(a->inf));
    NB_TRY(check_format(a->outf));
    if (!is_text(a->out, a->outf) && is_terminal(a->out)) /* as gzip: no binary on a screen */
        return nb_set_error(NB_ERR_INVALID_ARG, "--out %s is a terminal: raw output is binary "
                            "(give --out-format text, or redirect standard output to a file)",
                            a->out);
    struct stat st;
    if (same_stream(a->in, a->out, 1, &st) && !S_ISCHR(st.st_mode))
        return nb_set_error(NB_ERR_INVALID_ARG, "--out '%s' is the input '%s': writing it would "
                            "replace the input (or wait on itself); choose another --out",
                            a->out, a->in);
    return NB_OK;
}

/* Primes and roots of the options, each checked (the minimal root when
 * --psi is absent). */
static nb_status transform_moduli(transform_args *a)
{
    size_t npsi = 0;
    const unsigned log_n = (unsigned)a->log_n;
    NB_TRY(parse_u64_list(a->primes_s, "primes", a->primes, 256, &a->limbs));
    if (a->psi_s)
        NB_TRY(parse_u64_list(a->psi_s, "psi", a->psis, 256, &npsi));
    if (a->psi_s && npsi != a->limbs)
        return nb_set_error(NB_ERR_INVALID_ARG, "--psi needs one root per prime");
    for (size_t l = 0; l < a->limbs; l++) {
        NB_TRY(nb_prime_validate(a->primes[l], log_n));
        if (a->psi_s)
            NB_TRY(nb_root_validate(a->psis[l], a->primes[l], log_n));
        else
            NB_TRY(nb_root_minimal(a->primes[l], log_n, &a->psis[l]));
    }
    return NB_OK;
}

/* The input file: N * L values, each below its limb's prime. */
static nb_status transform_input(const transform_args *a, uint64_t **data, size_t *cnt)
{
    const size_t N = (size_t)1 << a->log_n;
    char why[96];
    snprintf(why, sizeof why, "; N * L = %zu * %zu = %zu expected", N, a->limbs, N * a->limbs);
    nb_status s = nb_cli_read_coeffs(a->in, a->inf, N * a->limbs, why, data, cnt);
    if (s != NB_OK)
        return s == NB_ERR_IO ? NB_ERR_INVALID_ARG : s;
    if (*cnt != N * a->limbs)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "'%s' holds %zu values; N * L = %zu * %zu = %zu expected", a->in,
                            *cnt, N, a->limbs, N * a->limbs);
    for (size_t i = 0; i < *cnt; i++)
        if ((*data)[i] >= a->primes[i / N])
            return nb_set_error(NB_ERR_INVALID_ARG,
                                "input limb %zu index %zu: %" PRIu64 " is not below q = %" PRIu64,
                                i / N, i % N, (*data)[i], a->primes[i / N]);
    return NB_OK;
}

/* Applies the variant (or the GMP reference) to data[0..cnt) in place. */
static nb_status transform_apply(const transform_args *a, uint64_t *data, size_t cnt)
{
    const size_t N = (size_t)1 << a->log_n, L = a->limbs;
    const unsigned log_n = (unsigned)a->log_n;
    nb_status s = NB_OK;
    if (!strcmp(a->variant, "reference")) {
        for (size_t l = 0; l < L && s == NB_OK; l++)
            s = a->inverse ? nb_ref_ntt_inverse(data + l * N, log_n, a->primes[l], a->psis[l])
                           : nb_ref_ntt_forward(data + l * N, log_n, a->primes[l], a->psis[l]);
        return s == NB_OK ? NB_OK
                          : nb_set_error(s, "the GMP reference rejected the parameters");
    }
    const nb_ntt_variant *v = NULL;
    NB_TRY(nb_cli_find_variant(a->variant, &v));
    void *stream = NULL;
    nb_ntt *ntt = NULL;
    nb_buffer *buf = NULL;
    if (v->backend == NB_BACKEND_GPU)
        s = nb_stream_create(&stream);
    if (s == NB_OK)
        s = nb_ntt_create(&ntt, v, log_n, a->primes, a->psis, L, stream);
    /* the data between guards the variant must leave alone (a plug-in writing
     * before its data, wider words or more limbs fails, as in verify) */
    if (s == NB_OK)
        s = nb_cli_words_create(&buf, v, cnt);
    if (s == NB_OK) /* values < q < 2^31 for a 32-bit variant: nb_ntt_create checked q */
        s = nb_cli_upload_words(buf, v, data, cnt, stream);
    nb_cli_guard_hit hit = {0, 0};
    if (s == NB_OK)
        s = nb_cli_words_guard(buf, v, cnt, 0, &hit, stream);
    if (s == NB_OK)
        s = a->inverse ? nb_ntt_inverse(ntt, nb_cli_words_ptr(buf), 0, L, stream)
                       : nb_ntt_forward(ntt, nb_cli_words_ptr(buf), 0, L, stream);
    if (s == NB_OK)
        s = nb_cli_words_guard(buf, v, cnt, 1, &hit, stream);
    char why[256];
    if (s == NB_OK && nb_cli_guard_hit_text(&hit, v, cnt, why, sizeof why))
        s = nb_set_error(NB_ERR_VERIFY, "%s %s", v->name, why);
    if (s == NB_OK)
        s = nb_cli_download_words(buf, v, data, cnt, stream);
    for (size_t i = 0; s == NB_OK && i < cnt; i++) /* a coefficient file holds values < q */
        if (data[i] >= a->primes[i / N])
            s = nb_set_error(NB_ERR_VERIFY, "%s returned %" PRIu64 " at limb %zu index %zu, not "
                             "below q = %" PRIu64 " (an unreduced result is not written)",
                             v->name, data[i], i / N, i % N, a->primes[i / N]);
    nb_buffer_destroy(buf);
    nb_ntt_destroy(ntt);
    nb_stream_destroy(stream);
    return s;
}

int nb_cmd_transform(int argc, char **argv)
{
    transform_args a;
    nb_status s = parse_transform(argc, argv, &a);
    if (s == NB_OK)
        s = transform_moduli(&a);
    if (s != NB_OK)
        return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
    uint64_t *data = NULL;
    size_t cnt = 0;
    s = transform_input(&a, &data, &cnt);
    if (s == NB_OK)
        s = transform_apply(&a, data, cnt);
    if (s == NB_OK)
        s = nb_cli_write_coeffs(a.out, a.outf, data, cnt);
    free(data);
    return s == NB_OK ? 0 : nb_cli_fail(s, nb_last_error());
}

/* ----------------------------------------------------------------- check */

static const nb_cli_option check_options[] = {
    {"expected", 1, "FILE   expected coefficients"},
    {"actual", 1, "FILE   coefficients to check"},
    {"logn", 1, "n      report (limb, index) instead of a flat index"},
    {"max-report", 1, "K      mismatches to print (10)"},
    {"expected-format", 1, "F      raw | text | auto (auto)"},
    {"actual-format", 1, "F      raw | text | auto (auto)"},
    {NULL, 0, NULL},
};

const nb_cli_option *const nb_cli_check_tables[] = {check_options, NULL};

/* The text check printed into memory, copied into the --output file. */
typedef struct mem_text {
    const char *data;
    size_t len;
} mem_text;

static nb_status write_mem_text(void *ctx, FILE *f)
{
    const mem_text *m = ctx;
    if (m->len && fwrite(m->data, 1, m->len, f) != m->len)
        return nb_set_error(NB_ERR_IO, "write error: %s", strerror(errno));
    return NB_OK;
}

/* Compares e[0..ne) with a[0..na) and prints the outcome into `out` (the
 * first max_report mismatches, by (limb, index) when N > 0); *bad receives the
 * mismatch count. Returns 0 when equal, NB_EXIT_VERIFY otherwise. */
static int compare_coeffs(FILE *out, nb_format fmt, const uint64_t *e, size_t ne,
                          const uint64_t *a, size_t na, size_t N, size_t max_report, size_t *bad_out)
{
    const size_t n = ne < na ? ne : na;
    size_t bad = 0;
    json_t *list = fmt == NB_FORMAT_JSON ? json_array() : NULL;
    for (size_t i = 0; i < n; i++) {
        if (e[i] == a[i])
            continue;
        if (bad < max_report) {
            if (list) {
                json_t *m = json_pack("{s:I, s:s, s:s}", "flat_index", (json_int_t)i, "expected",
                                      "", "actual", "");
                char b1[24], b2[24];
                snprintf(b1, sizeof b1, "%" PRIu64, e[i]);
                snprintf(b2, sizeof b2, "%" PRIu64, a[i]);
                json_object_set_new(m, "expected", json_string(b1));
                json_object_set_new(m, "actual", json_string(b2));
                if (N) {
                    json_object_set_new(m, "limb", json_integer((json_int_t)(i / N)));
                    json_object_set_new(m, "index", json_integer((json_int_t)(i % N)));
                }
                json_array_append_new(list, m);
            } else if (N) {
                fprintf(out,
                        "mismatch: limb %zu index %zu: expected %" PRIu64 ", actual %" PRIu64 "\n",
                        i / N, i % N, e[i], a[i]);
            } else {
                fprintf(out, "mismatch: index %zu: expected %" PRIu64 ", actual %" PRIu64 "\n", i,
                        e[i], a[i]);
            }
        }
        bad++;
    }
    int size_differs = ne != na;
    int rc = bad || size_differs ? NB_EXIT_VERIFY : 0;
    if (list) {
        json_t *j = json_pack("{s:s, s:i, s:I, s:I, s:I, s:b, s:o}", "schema", "nttbench-check",
                              "schema_version", 1, "expected_values", (json_int_t)ne,
                              "actual_values", (json_int_t)na, "mismatches", (json_int_t)bad,
                              "equal", rc == 0, "first_mismatches", list);
        json_dumpf(j, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', out);
        json_decref(j);
    } else {
        if (size_differs)
            fprintf(out, "sizes differ: expected has %zu values, actual has %zu\n", ne, na);
        if (N && (ne % N || na % N))
            fprintf(out, "note: a file's size is not a multiple of N = %zu\n", N);
        if (size_differs)
            fprintf(out, "FAIL: sizes differ (%zu expected, %zu actual); %zu of the first %zu "
                         "values differ\n", ne, na, bad, n);
        else
            fprintf(out, "%s: %zu of %zu values differ\n", rc ? "FAIL" : "OK", bad, n);
    }
    *bad_out = bad;
    return rc;
}

int nb_cmd_check(int argc, char **argv, nb_format fmt, const char *output)
{
    const char *exp_p = NULL, *act_p = NULL, *ef = NULL, *af = NULL;
    size_t log_n = 0, max_report = 10;
    int have_logn = 0;
    const nb_cli_option *const *tables = nb_cli_check_tables;
    for (int i = 0; i < argc;) {
        const char *n, *v;
        int r = nb_cli_next_option(argc, argv, &i, tables, &n, &v);
        if (r <= 0) {
            if (r == 0)
                nb_set_error(NB_ERR_INVALID_ARG, "check: unexpected argument '%s'", argv[i]);
            return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
        }
        nb_status st = NB_OK;
        if (!strcmp(n, "expected")) exp_p = v;
        else if (!strcmp(n, "actual")) act_p = v;
        else if (!strcmp(n, "expected-format")) ef = v;
        else if (!strcmp(n, "actual-format")) af = v;
        else if (!strcmp(n, "max-report")) st = nb_cli_parse_size(v, n, 0, 1000000, &max_report);
        else if (!strcmp(n, "logn")) {
            st = nb_cli_parse_size(v, n, NB_MIN_LOG_N, NB_MAX_LOG_N, &log_n);
            have_logn = 1;
        }
        if (st != NB_OK)
            return nb_cli_fail(st, nb_last_error());
    }
    if (!exp_p || !act_p)
        return nb_cli_fail(NB_ERR_INVALID_ARG, "check needs --expected and --actual");
    if (!strcmp(exp_p, "-") && !strcmp(act_p, "-"))
        return nb_cli_fail(NB_ERR_INVALID_ARG, "check reads at most one file from standard "
                                               "input ('-')");
    if (fmt != NB_FORMAT_TABLE && fmt != NB_FORMAT_JSON)
        return nb_cli_fail(NB_ERR_INVALID_ARG, "check writes text or JSON (--format json), not "
                                               "csv or md");
    struct stat st;
    if (same_stream(exp_p, act_p, 0, &st) && !S_ISREG(st.st_mode)) { /* a pipe reads once */
        char msg[600];
        snprintf(msg, sizeof msg, "--expected '%.250s' and --actual '%.250s' are one stream: "
                 "it can be read only once (give two files)", exp_p, act_p);
        return nb_cli_fail(NB_ERR_INVALID_ARG, msg);
    }
    uint64_t *e = NULL, *a = NULL;
    size_t ne = 0, na = 0;
    static const char why[] = " (check reads at most 2^17 x 256, the most transform writes)";
    nb_status s = nb_cli_read_coeffs(exp_p, ef, NB_CLI_COEFF_MAX, why, &e, &ne);
    if (s == NB_OK)
        s = nb_cli_read_coeffs(act_p, af, NB_CLI_COEFF_MAX, why, &a, &na);
    if (s != NB_OK) {
        free(e);
        free(a);
        return nb_cli_fail(s == NB_ERR_IO ? NB_ERR_INVALID_ARG : s, nb_last_error());
    }
    if (ne == 0 && na == 0) { /* a check that compared nothing must not read as a pass */
        free(e);
        free(a);
        nb_set_error(NB_ERR_INVALID_ARG, "%s and %s hold no values: nothing to compare",
                     !strcmp(exp_p, "-") ? "standard input" : exp_p,
                     !strcmp(act_p, "-") ? "standard input" : act_p);
        return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
    }
    char *text = NULL;
    size_t text_len = 0;
    FILE *out = output ? open_memstream(&text, &text_len) : stdout;
    if (!out) {
        free(e);
        free(a);
        return nb_cli_fail(NB_ERR_OUT_OF_MEMORY, "out of memory");
    }
    const size_t N = have_logn ? (size_t)1 << log_n : 0;
    size_t bad = 0;
    const int rc = compare_coeffs(out, fmt, e, ne, a, na, N, max_report, &bad);
    const int size_differs = ne != na;
    free(e);
    free(a);
    if (output) {
        fclose(out);
        mem_text m = {text, text_len};
        nb_status ws = nb_write_file_atomic(output, write_mem_text, &m);
        free(text);
        if (ws != NB_OK)
            return nb_cli_fail(ws, nb_last_error());
    } else if (fflush(stdout) != 0 || ferror(stdout)) { /* the verdict must not be lost */
        char msg[200];
        snprintf(msg, sizeof msg, "cannot write to stdout: %s", strerror(errno ? errno : EIO));
        return nb_cli_fail(NB_ERR_IO, msg);
    }
    if (rc)
        fprintf(stderr, "nttbench: error: the files differ (%zu mismatches%s)\n", bad,
                size_differs ? ", sizes differ" : "");
    return rc;
}

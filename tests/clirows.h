/* Rows of the bad-input table: run nttbench with an argument vector (no
 * shell), assert exactly one "nttbench: error:" line with the expected exit
 * code, and write the row (what, command, exit code, message; the scratch
 * folder written DIR) to `table`, from which scripts/reliability-table builds
 * docs/reliability.md. Also small scratch-file and JSON-edit helpers and a
 * quick base run for the result-file tests.
 * Header-only; include after cliutil.h. */
#ifndef NB_CLIROWS_H
#define NB_CLIROWS_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/cli/cli.h"
#include "cliutil.h"

static FILE *table;
/* When set, a recorded message has everything before this text replaced by
 * "<why no GPU is usable>" (that part depends on the machine's driver). */
static const char *table_mask_before;
/* When set, a recorded message is cut after this text and "<...>" follows
 * (the rest depends on the machine's free memory). */
static const char *table_mask_after;
/* When set ("NAME=value", the variable the test set), a recorded command is
 * shown run with that assignment before it. */
static const char *table_env;
/* The child's OMP_NUM_THREADS ("1": a test runs one thread a process). */
static const char *child_omp_threads = "1";
/* When nonzero, the child runs under this address-space limit (bytes). */
static unsigned long long child_as_limit;

/* Replaces every occurrence of the scratch folder in s by "DIR" (in place). */
static void hide_dir(char *s)
{
    size_t dl = strlen(dir);
    for (char *p = strstr(s, dir); p; p = strstr(p, dir)) {
        memcpy(p, "DIR", 3);
        memmove(p + 3, p + dl, strlen(p + dl) + 1);
    }
}

/* The argument list as a shell would need it, newlines shown as \n. */
static void show_args(char *out, size_t cap, const char *const *args)
{
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; args[i] && k + 8 < cap; i++) {
        const char *a = args[i];
        int quote = !*a || strpbrk(a, " \t\n\v\"'$|") != NULL;
        k += (size_t)snprintf(out + k, cap - k, "%s%s", i ? " " : "", quote ? "'" : "");
        for (const char *p = a; *p && k + 8 < cap; p++)
            k += (size_t)snprintf(out + k, cap - k, *p == '\n'   ? "\\n"
                                                   : *p == '\v' ? "\\v"
                                                                : "%c",
                                  *p);
        if (quote && k + 2 < cap)
            k += (size_t)snprintf(out + k, cap - k, "'");
    }
    hide_dir(out);
}

/* Runs nttbench with args (NULL-terminated, no shell), stdout/stderr to
 * dir/out.txt and dir/err.txt; returns the exit code. */
static int run_v(const char *const *args)
{
    char out[128], err[128];
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    const char *argv[64] = {exe};
    size_t n = 1;
    while (args[n - 1] && n < 63) {
        argv[n] = args[n - 1];
        n++;
    }
    argv[n] = NULL;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(127);
        setenv("OMP_NUM_THREADS", child_omp_threads, 1);
        struct rlimit rl = {child_as_limit, child_as_limit};
        if (child_as_limit && setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(127);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* Number of '\n' in s. */
static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Asserts that err.txt is exactly one "nttbench: error: " line containing
 * `needle` (with the scratch folder written DIR), and records the row. */
static void expect_error(const char *what, const char *const *args, int code, const char *needle)
{
    int rc = run_v(args);
    char *e = slurp("err.txt");
    hide_dir(e);
    if (rc != code || strncmp(e, "nttbench: error: ", 17) != 0 || count_lines(e) != 1 ||
        !strstr(e, needle))
        fail_msg("%s: exit %d (want %d), stderr:\n%s(want one error line containing '%s')", what,
                 rc, code, e, needle);
    char cmd[1024];
    size_t k = table_env ? (size_t)snprintf(cmd, sizeof cmd, "%s nttbench ", table_env) : 0;
    show_args(cmd + k, sizeof cmd - k, args);
    e[strlen(e) - 1] = '\0';
    const char *msg = e + 17, *keep = table_mask_before ? strstr(msg, table_mask_before) : NULL;
    char *cut = table_mask_after ? strstr(e, table_mask_after) : NULL;
    if (cut)
        snprintf(cut + strlen(table_mask_after), 8, "<...>");
    if (table && keep)
        fprintf(table, "%s\t%s\t%d\t<why no GPU is usable>%s\n", what, cmd, rc, keep);
    else if (table)
        fprintf(table, "%s\t%s\t%d\t%s\n", what, cmd, rc, msg);
    free(e);
}

/* Asserts exit `code` and exactly one "nttbench: warning: " line containing
 * `needle` on stderr, and records the row (message "warning: ..."). */
static void expect_warning(const char *what, const char *const *args, int code,
                           const char *needle)
{
    int rc = run_v(args);
    char *e = slurp("err.txt");
    hide_dir(e);
    if (rc != code || strncmp(e, "nttbench: warning: ", 19) != 0 || count_lines(e) != 1 ||
        !strstr(e, needle))
        fail_msg("%s: exit %d (want %d), stderr:\n%s(want one warning line containing '%s')",
                 what, rc, code, e, needle);
    char cmd[1024];
    show_args(cmd, sizeof cmd, args);
    e[strlen(e) - 1] = '\0';
    if (table)
        fprintf(table, "%s\t%s\t%d\t%s\n", what, cmd, rc, e + 10);
    free(e);
}

/* Merges `edit` into the object obj: each key set to its value, or removed
 * where the value is the string "DELETE". */
static inline void merge_edit(json_t *obj, json_t *edit)
{
    const char *k;
    json_t *v;
    json_object_foreach(edit, k, v) {
        if (json_is_string(v) && !strcmp(json_string_value(v), "DELETE"))
            json_object_del(obj, k);
        else
            json_object_set(obj, k, v);
    }
}

/* Writes len bytes to dir/name. */
static void put(const char *name, const char *bytes, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void puts_file(const char *name, const char *text)
{
    put(name, text, strlen(text));
}

/* "DIR/name" with the real folder, in a rotating static buffer. */
static const char *at(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* dir/NAME: dir/base.json with every case changed by `edit` (an object
 * merged into each case; a key whose value is "DELETE" is removed). */
static void derive_cases(const char *name, const char *edit)
{
    json_t *j = load_json("base.json"), *e = json_loads(edit, 0, NULL), *c;
    assert_non_null(e);
    size_t i;
    json_array_foreach(json_object_get(j, "cases"), i, c)
        merge_edit(c, e);
    assert_int_equal(json_dump_file(j, at(name), JSON_INDENT(1) | JSON_PRESERVE_ORDER), 0);
    json_decref(e);
    json_decref(j);
}

/* Group setup: dir/base.json, a quick warm run of cpu-harvey (log N 10, one
 * limb); 0 on success. */
static int make_quick_base(void **state)
{
    (void)state;
    return run_v((const char *[]){"-q", "--format", "json", "--output", at("base.json"), "run",
                                  "--variant", "cpu-harvey", "--tier", "warm", "--logn", "10",
                                  "--limbs", "1", "--min-time", "0.01", "--timeout", "1", NULL});
}

/* `nttbench CMD --variant cpu-harvey,<first GPU variant> EXTRA` without a GPU
 * fails with exit 3 naming that variant (the row is recorded). Skips on a
 * machine with a GPU or a build without GPU variants. */
static void expect_gpu_variant_named(const char *what, const char *cmd, const char *extra)
{
    if (nb_gpu_count() > 0)
        skip();
    const char *gpu_name = NULL;
    for (size_t i = 0; i < nb_ntt_variant_count() && !gpu_name; i++)
        if (nb_ntt_variant_at(i)->backend == NB_BACKEND_GPU)
            gpu_name = nb_ntt_variant_at(i)->name;
    if (!gpu_name)
        skip(); /* a CPU-only build registers no GPU variant */
    char list[128], needle[160];
    snprintf(list, sizeof list, "cpu-harvey,%s", gpu_name);
    snprintf(needle, sizeof needle, "GPU variant '%s'", gpu_name);
    table_mask_before = " (needed for GPU variant";
    const char *args[] = {cmd, "--variant", list, extra, extra ? "10" : NULL, NULL};
    expect_error(what, args, 3, needle);
    table_mask_before = NULL;
}

/* main() of a bad-input test: argv NTTBENCH [TABLE-FILE]; the scratch folder
 * /tmp/<prefix>XXXXXX; the group's tests with an optional setup; the table
 * closed and the scratch folder removed. */
static int cli_rows_main(int argc, char **argv, const char *prefix, const char *group,
                         const struct CMUnitTest *tests, size_t n, CMFixtureFunction setup)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s NTTBENCH [TABLE-FILE]\n", argv[0]);
        return 2;
    }
    exe = argv[1];
    if (argc > 2 && !(table = fopen(argv[2], "w"))) {
        fprintf(stderr, "cannot write %s: %s\n", argv[2], strerror(errno));
        return 2;
    }
    if (cli_scratch_create(prefix) != 0)
        return 2;
    int rc = _cmocka_run_group_tests(group, tests, n, setup, NULL);
    if (table)
        fclose(table);
    cli_scratch_remove();
    return rc;
}

#endif

/* Helpers for tests that drive the nttbench executable: run it with
 * arguments (stdout and stderr to files in a scratch folder), read those
 * files back, parse a JSON report. The test sets `exe` and creates `dir`
 * (mkdtemp) in main(). Header-only. */
#ifndef NB_CLIUTIL_H
#define NB_CLIUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "testutil.h"

static const char *exe; /* the nttbench executable */
static char dir[64];    /* scratch folder */

/* Runs `nttbench ARGS`, stdout to dir/out.txt, stderr to dir/err.txt; exit code. */
static int run(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "OMP_NUM_THREADS=1 %s %s >%s/out.txt 2>%s/err.txt", exe, args, dir,
             dir);
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* Contents of dir/NAME as a NUL-terminated string (free() it). */
static char *slurp(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return nb_test_read_file(path);
}

/* dir/NAME parsed as JSON (json_decref() it); fails the test if it does not parse. */
static json_t *load_json(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (!j)
        fail_msg("%s does not parse: %s (line %d)", path, err.text, err.line);
    return j;
}

/* One line "nttbench: error: ..." on stderr. */
static inline void assert_one_error_line(void)
{
    char *e = slurp("err.txt");
    assert_non_null(strstr(e, "nttbench: error: "));
    char *nl = strchr(e, '\n');
    assert_non_null(nl);
    assert_int_equal(nl[1], '\0');
    free(e);
}

/* One line "nttbench: error: ..." on stderr, containing needle. */
static inline void assert_error_line_has(const char *needle)
{
    assert_one_error_line();
    char *e = slurp("err.txt");
    if (!strstr(e, needle))
        fail_msg("stderr: %s(want '%s' in it)", e, needle);
    free(e);
}

/* Creates the scratch folder `dir` (/tmp/<prefix>XXXXXX); 0 on success. */
static int cli_scratch_create(const char *prefix)
{
    snprintf(dir, sizeof dir, "/tmp/%sXXXXXX", prefix);
    return mkdtemp(dir) ? 0 : -1;
}

/* Removes the scratch folder and everything in it. */
static void cli_scratch_remove(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

#endif

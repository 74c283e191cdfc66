/* nttbench: the command-line entry point. Global options (--plugin, --format,
 * --output, --quiet, --help, --version) may appear anywhere; the first other
 * word is the command. Exit codes: 0 ok, 1 verification failed, 2 bad usage,
 * 3 environment error; every failure prints one line "nttbench: error: ...". */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/cli.h"
#include "bench/cli/paper.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: nttbench [global options] COMMAND [options]\n\n"
            "CKKS-focused NTT benchmarking: honest warm / cold / in-stage timings, verified\n"
            "bit-exact against a GMP reference.\n\n"
            "commands:\n"
            "  run        time tiers x variants x sizes (nttbench run --help)\n"
            "  verify     check variants against the GMP reference, pass/fail table\n"
            "  list       variants (backend, sizes) and presets\n"
            "  env        the environment block of every report\n"
            "  calibrate  copy / L2 bandwidth, launch overhead, hot-vs-cold copy experiment\n"
            "  transform  apply a variant (or the reference) to a coefficient file\n"
            "  check      compare two coefficient files\n"
            "  compare    compare two run reports: ratios, significance, verdicts\n"
            "  report     the methods paragraph and reporting checklist of a run report\n"
            "  primes     NTT-friendly primes and their minimal 2N-th roots\n\n"
            "global options:\n"
            "  --plugin PATH   load a shared object and call its nb_plugin_init() (repeatable)\n"
            "  --format F      table | md | csv | json (table)\n"
            "  --output FILE   write the report to FILE (temporary file + rename)\n"
            "  --quiet         no progress or warnings on stderr\n"
            "  --help, -h      this text; COMMAND --help for a command's options\n"
            "  --version       version and git commit\n\n"
            "Ordering convention: forward NTT takes natural-order input and returns\n"
            "bit-reversed output, entry k = a(psi^(2*brv(k)+1)) mod q; inverse is its exact\n"
            "inverse (scaled by N^-1). Exit codes: 0 ok, 1 verification failed, 2 bad usage,\n"
            "3 environment error (e.g. no device for a GPU variant).\n");
}

static int load_plugin(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
        fprintf(stderr, "nttbench: error: cannot load plug-in '%s': %s\n", path, dlerror());
        return NB_EXIT_ENV;
    }
    void *sym = dlsym(h, NB_PLUGIN_INIT_SYMBOL);
    if (!sym) {
        fprintf(stderr, "nttbench: error: plug-in '%s' exports no %s()\n", path,
                NB_PLUGIN_INIT_SYMBOL);
        return NB_EXIT_ENV;
    }
    nb_plugin_init_fn init;
    *(void **)&init = sym;
    nb_status s = init();
    if (s != NB_OK) {
        fprintf(stderr, "nttbench: error: plug-in '%s' failed to initialise: %s (%s)\n", path,
                nb_last_error(), nb_status_str(s));
        return NB_EXIT_ENV;
    }
    return 0; /* the handle stays open: its variants live in it */
}

static void command_help(const char *cmd)
{
    if (!strcmp(cmd, "run"))
        nb_cli_run_help(stdout);
    else if (!strcmp(cmd, "verify"))
        printf("usage: nttbench verify [--variant LIST] [--backend cpu|gpu|auto] [--logn LIST]\n"
               "                       [--limbs LIST] [--bits LIST] [--direction LIST] "
               "[--seed N]\n\n"
               "Checks each variant against the GMP reference on fresh random inputs\n"
               "(defaults: every variant usable here, --logn 10,13,16 --limbs 1,3 --bits 36,62\n"
               "--direction forward,inverse). Exit 1 if any check fails.\n");
    else if (!strcmp(cmd, "calibrate"))
        printf("usage: nttbench calibrate [--backend cpu|gpu|auto] [timing options]\n\n"
               "Measures copy bandwidth, cache-resident bandwidth and launch overhead, and\n"
               "times a copy hot and after a cache flush over working sets from cache/16 to\n"
               "4x cache. Defaults here: --min-time 0.1 --timeout 5.\n");
    else if (!strcmp(cmd, "transform"))
        printf("usage: nttbench transform --variant V|reference --direction forward|inverse\n"
               "         --logn n --primes q1,q2,... [--psi r1,r2,...] --in FILE --out FILE\n"
               "         [--in-format raw|text|auto] [--out-format raw|text|auto]\n\n"
               "Files hold L limbs of N coefficients, limb-major: raw little-endian uint64, or\n"
               "text (one decimal number per line, limb after limb); 'auto' picks text for\n"
               ".txt/.text names. psi defaults to the minimal primitive 2N-th root of each q.\n"
               "Forward: natural order in, bit-reversed out, entry k = a(psi^(2*brv(k)+1)) mod "
               "q;\ninverse: bit-reversed in, natural out, scaled by N^-1.\n");
    else if (!strcmp(cmd, "check"))
        printf("usage: nttbench check --expected A --actual B [--logn n] [--max-report K]\n"
               "         [--expected-format F] [--actual-format F]\n\n"
               "Compares two coefficient files; prints the first K (10) mismatches as (limb,\n"
               "index, expected, actual) when --logn is given (flat index otherwise) and the\n"
               "count. Exit 1 when they differ.\n");
    else if (!strcmp(cmd, "list"))
        printf("usage: nttbench list\n\nVariants (name, backend, log N range, prime bound) "
               "and presets.\n");
    else if (!strcmp(cmd, "compare"))
        nb_cmd_compare_help(stdout);
    else if (!strcmp(cmd, "report"))
        nb_cmd_report_help(stdout);
    else if (!strcmp(cmd, "primes"))
        nb_cmd_primes_help(stdout);
    else if (!strcmp(cmd, "env"))
        printf("usage: nttbench env\n\nThe environment block every report carries (host, GPU, "
               "clocks, copy bandwidth).\n");
    else
        usage(stdout);
}

int main(int argc, char **argv)
{
    nb_format fmt = NB_FORMAT_TABLE;
    const char *output = NULL;
    int quiet = 0, help = 0, version = 0;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    const char **plugins = calloc((size_t)argc + 1, sizeof *plugins);
    if (!rest || !plugins)
        return nb_cli_fail(NB_ERR_OUT_OF_MEMORY, "out of memory");
    int nrest = 0, nplug = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        size_t klen = 0;
        static const char *const with_value[] = {"--plugin", "--format", "--output"};
        int matched = -1;
        for (int k = 0; k < 3; k++) {
            klen = strlen(with_value[k]);
            if (!strncmp(a, with_value[k], klen) && (a[klen] == '\0' || a[klen] == '=')) {
                matched = k;
                break;
            }
        }
        if (matched >= 0) {
            if (a[klen] == '=') {
                val = a + klen + 1;
            } else if (i + 1 < argc) {
                val = argv[++i];
            } else {
                return nb_cli_fail(NB_ERR_INVALID_ARG, "global option needs a value");
            }
            if (matched == 0) {
                plugins[nplug++] = val;
            } else if (matched == 1) {
                if (nb_format_parse(val, &fmt) != NB_OK)
                    return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
            } else {
                if (!*val)
                    return nb_cli_fail(NB_ERR_INVALID_ARG, "--output needs a file name");
                output = val;
            }
            continue;
        }
        if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            quiet = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            help = 1;
        else if (!strcmp(a, "--version"))
            version = 1;
        else
            rest[nrest++] = argv[i];
    }
    if (version) {
        nb_env e;
        nb_env_collect(&e, 0, 0);
        printf("nttbench %s (%s)\n", e.version, e.git_commit);
        return 0;
    }
    if (nrest == 0) {
        usage(help ? stdout : stderr);
        return help ? 0 : NB_EXIT_USAGE;
    }
    const char *cmd = rest[0];
    if (help || !strcmp(cmd, "help")) {
        command_help(!strcmp(cmd, "help") ? (nrest > 1 ? rest[1] : "") : cmd);
        return 0;
    }
    for (int i = 0; i < nplug; i++) {
        int rc = load_plugin(plugins[i]);
        if (rc)
            return rc;
    }
    int sub_argc = nrest - 1;
    char **sub = rest + 1;
    int rc;
    if (!strcmp(cmd, "run"))
        rc = nb_cmd_run(sub_argc, sub, argv, argc, fmt, output, quiet);
    else if (!strcmp(cmd, "verify"))
        rc = nb_cmd_verify(sub_argc, sub, fmt, output, quiet);
    else if (!strcmp(cmd, "list"))
        rc = nb_cmd_list(sub_argc, sub, fmt, output);
    else if (!strcmp(cmd, "env"))
        rc = nb_cmd_env(sub_argc, sub, fmt, output);
    else if (!strcmp(cmd, "calibrate"))
        rc = nb_cmd_calibrate(sub_argc, sub, fmt, output, quiet);
    else if (!strcmp(cmd, "transform"))
        rc = nb_cmd_transform(sub_argc, sub);
    else if (!strcmp(cmd, "check"))
        rc = nb_cmd_check(sub_argc, sub, fmt);
    else if (!strcmp(cmd, "compare"))
        rc = nb_cmd_compare(sub_argc, sub, fmt, output);
    else if (!strcmp(cmd, "report"))
        rc = nb_cmd_report(sub_argc, sub, fmt, output);
    else if (!strcmp(cmd, "primes"))
        rc = nb_cmd_primes(sub_argc, sub, fmt, output);
    else {
        char msg[160];
        snprintf(msg, sizeof msg, "unknown command '%s' (see nttbench --help)", cmd);
        rc = nb_cli_fail(NB_ERR_INVALID_ARG, msg);
    }
    free(rest);
    free(plugins);
    return rc;
}

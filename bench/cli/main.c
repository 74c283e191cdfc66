/* nttbench: the command-line entry point. Global options (--plugin, --format,
 * --output, --quiet, --help, --version / -V) may appear anywhere but as the
 * value of a command's option; the first other word is the command. Exit
 * codes: 0 ok, 1 verification failed, 2 bad usage, 3 environment error;
 * every failure prints one line "nttbench: error: ...". */
#include <ctype.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/cli/cli.h"
#include "bench/cli/paper.h"
#include "bench/timing/env.h"
#include "ckks/ckks.h"
#include "core/version.h"

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
            "  calibrate  copy / L2 bandwidth, launch and pass-boundary costs, hot-vs-cold copy\n"
            "  transform  apply a variant (or the reference) to a coefficient file\n"
            "  check      compare two coefficient files\n"
            "  compare    compare two run reports: ratios, significance, verdicts\n"
            "  report     the methods paragraph and reporting checklist of a run report\n"
            "  primes     NTT-friendly primes and their minimal 2N-th roots\n\n"
            "global options:\n"
            "  --plugin PATH   load a shared object and call its nb_plugin_init() (repeatable)\n"
            "  --format F      table | md | csv | json (table)\n"
            "  --output FILE   write the report to FILE (a regular file is replaced atomically)\n"
            "  --quiet, -q     no progress or warnings on stderr\n"
            "  --help, -h      this text; COMMAND --help for a command's options\n"
            "  --version, -V   version, git commit and plug-in ABI\n\n"
            "Ordering convention: forward NTT takes natural-order input and returns\n"
            "bit-reversed output, entry k = a(psi^(2*brv(k)+1)) mod q; inverse is its exact\n"
            "inverse (scaled by N^-1). Exit codes: 0 ok, 1 verification failed, 2 bad usage,\n"
            "3 environment error (e.g. no device for a GPU variant), 130 / 143 a run\n"
            "interrupted by SIGINT / SIGTERM (the report keeps the cases run so far).\n");
}

/* A plug-in that cannot be used (missing, not loadable, built for another
 * plug-in ABI, failing its init) is an environment error, exit 3; `-` (which
 * reads standard input where a file is read) and an empty name are bad usage
 * here, exit 2. */
static int load_plugin(const char *path)
{
    if (!strcmp(path, "-"))
        return nb_cli_fail(NB_ERR_INVALID_ARG, "--plugin '-': a plug-in is loaded from a shared "
                                               "object file, not from standard input");
    if (!*path)
        return nb_cli_fail(NB_ERR_INVALID_ARG, "--plugin needs a file name");
    /* a path, as every file the CLI reads: a bare name is a file in the current
     * folder, not a library for the dynamic linker to search for */
    char here[PATH_MAX];
    if (!strchr(path, '/') && snprintf(here, sizeof here, "./%s", path) < (int)sizeof here)
        path = here;
    nb_status s = nb_plugin_load(path);
    if (s == NB_OK)
        return 0;
    return nb_cli_fail(s == NB_ERR_INVALID_ARG ? s : NB_ERR_IO, nb_last_error());
}

/* Dispatches the command word; rest[0] is the command, the rest its options. */
static int dispatch(int nrest, char **rest, int argc, char **argv, nb_format fmt,
                    int format_given, const char *output, int quiet)
{
    const char *cmd = rest[0];
    int sub_argc = nrest - 1;
    char **sub = rest + 1;
    if (!strcmp(cmd, "run"))
        return nb_cmd_run(sub_argc, sub, argv, argc, fmt, output, quiet);
    if (!strcmp(cmd, "verify"))
        return nb_cmd_verify(sub_argc, sub, fmt, output, quiet);
    if (!strcmp(cmd, "list"))
        return nb_cmd_list(sub_argc, sub, fmt, output);
    if (!strcmp(cmd, "env"))
        return nb_cmd_env(sub_argc, sub, fmt, output);
    if (!strcmp(cmd, "calibrate"))
        return nb_cmd_calibrate(sub_argc, sub, fmt, output, quiet);
    if (!strcmp(cmd, "transform") && output) /* it would be silently unused */
        return nb_cli_fail(NB_ERR_INVALID_ARG, "transform writes its coefficients to --out "
                                               "FILE; the global --output has no use there");
    if (!strcmp(cmd, "transform") && format_given)
        return nb_cli_fail(NB_ERR_INVALID_ARG, "transform writes coefficient files "
                                               "(--out-format raw, text or auto); the global "
                                               "--format has no use there");
    if (!strcmp(cmd, "transform"))
        return nb_cmd_transform(sub_argc, sub);
    if (!strcmp(cmd, "check"))
        return nb_cmd_check(sub_argc, sub, fmt, output);
    if (!strcmp(cmd, "compare"))
        return nb_cmd_compare(sub_argc, sub, fmt, output, quiet);
    if (!strcmp(cmd, "report"))
        return nb_cmd_report(sub_argc, sub, fmt, output, quiet);
    if (!strcmp(cmd, "primes"))
        return nb_cmd_primes(sub_argc, sub, fmt, output, quiet);
    char msg[300];
    snprintf(msg, sizeof msg, "unknown %s '%.200s' (see nttbench --help)",
             cmd[0] == '-' ? "option" : "command", cmd);
    return nb_cli_fail(NB_ERR_INVALID_ARG, msg);
}

static void command_help(const char *cmd)
{
    if (!strcmp(cmd, "run"))
        nb_cli_run_help(stdout);
    else if (!strcmp(cmd, "verify"))
        printf("usage: nttbench verify [--variant LIST] [--backend cpu|gpu|auto] [--logn LIST]\n"
               "                       [--limbs LIST] [--bits LIST] [--word 32,64] "
               "[--direction LIST]\n"
               "                       [--seed N] [--filter REGEX]...\n\n"
               "Checks each variant against the GMP reference on fresh random inputs\n"
               "(defaults: every variant of the --word sizes, 64 unless given, GPU ones listed\n"
               "as skipped without a device; --logn 10,13,16 --limbs 1,3 --bits 36,62, 30,31\n"
               "for 32-bit variants; --direction forward,inverse). With two or more limbs,\n"
               "each check also transforms a sub-range of the limbs and checks the others\n"
               "are untouched.\n"
               "--filter keeps the checks whose name (\"cpu-harvey forward logn=10 L=3 q36\")\n"
               "matches the regular expression (repeatable: any).\n\n"
               "       nttbench verify --stage modup,moddown,keyswitch,rescale [--preset LIST]\n"
               "                       [--variant LIST] [--backend B] [--level LIST] [--seed N]\n"
               "                       [--filter REGEX]...\n\n"
               "Checks the CKKS stages of each variant against the GMP reference (default\n"
               "preset test-small; key-switch rows need log N <= 8, e.g. test-tiny).\n"
               "Exit 1 if any check fails, 2 if every check was skipped (nothing checked).\n");
    else if (!strcmp(cmd, "calibrate")) {
        printf("usage: nttbench calibrate [--backend cpu|gpu|auto] [timing options]\n\n"
               "Measures copy bandwidth, cache-resident bandwidth and launch overhead, on\n"
               "the GPU what a kernel boundary (two dependent kernels) and a grid-wide\n"
               "barrier cost, and times a copy hot and after a cache flush over working\n"
               "sets from cache/16 to 4x cache. Defaults here: --min-time 0.1 --timeout 5.\n"
               "\ntiming options (NVBench names; the defaults shown are run's, calibrate's\n"
               "own --min-time and --timeout are above):\n");
        nb_cli_print_options(stdout, nb_cli_timing_options);
    }
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
               "count. Exit 1 when they differ, 2 when neither holds a value.\n");
    else if (!strcmp(cmd, "list"))
        printf("usage: nttbench list\n\nVariants (name, backend, log N range, word size, prime "
               "bound) and presets.\n");
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

/* The usage error of a global option given a second time: the last one
 * would silently win (two --output: one report lost). */
static int twice(const char *option, const char *first, const char *second)
{
    char msg[700];
    snprintf(msg, sizeof msg, "%s given twice ('%.250s', then '%.250s'): give it once", option,
             first, second);
    return nb_cli_fail(NB_ERR_INVALID_ARG, msg);
}

/* 1 when argument a of command cmd is one of its options that takes a value
 * given as the next argument ("--filter -V": the value is "-V"). */
static int command_value_option(const char *cmd, const char *a)
{
    static const struct {
        const char *cmd;
        const nb_cli_option *const *tables[2];
    } commands[] = {
        {"run", {nb_cli_run_tables, NULL}},
        {"verify", {nb_cli_verify_tables, nb_cli_verify_stage_tables}},
        {"calibrate", {nb_cli_calibrate_tables, NULL}},
        {"transform", {nb_cli_transform_tables, NULL}},
        {"check", {nb_cli_check_tables, NULL}},
        {"compare", {nb_cli_compare_tables, NULL}},
        {"report", {nb_cli_report_tables, NULL}},
        {"primes", {nb_cli_primes_tables, NULL}},
    };
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++)
        if (!strcmp(cmd, commands[c].cmd))
            for (int t = 0; t < 2 && commands[c].tables[t]; t++)
                if (nb_cli_takes_value(commands[c].tables[t], a))
                    return 1;
    return 0;
}

/* 1 when paths a and b name one file (by device and inode, however
 * spelled), or are the same string. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!strcmp(a, b))
        return 1;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Parses the global options out of argv; the other words go to rest[]
 * (command first). A command's option that takes a value keeps the next
 * argument as that value, whatever it is spelled like. *flags: 1 --quiet,
 * 2 --help, 4 --version, 8 --format given. Returns -1 to go on, else the
 * exit code. */
static int parse_globals(int argc, char **argv, char **rest, int *nrest, const char **plugins,
                         int *nplug, nb_format *fmt, const char **output, int *flags)
{
    const char *format_given = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        size_t klen = 0;
        if (*nrest > 0 && i + 1 < argc && command_value_option(rest[0], a)) {
            rest[(*nrest)++] = argv[i++];
            rest[(*nrest)++] = argv[i];
            continue;
        }
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
                if (nb_cli_looks_like_option(with_value[matched] + 2, argv[i + 1]))
                    return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
                val = argv[++i];
            } else {
                char msg[64];
                snprintf(msg, sizeof msg, "option %s needs a value", with_value[matched]);
                return nb_cli_fail(NB_ERR_INVALID_ARG, msg);
            }
            if (matched == 0) {
                for (int k = 0; k < *nplug; k++)
                    if (same_file(plugins[k], val))
                        return twice("--plugin", plugins[k], val);
                plugins[(*nplug)++] = val;
            } else if (matched == 1) {
                if (format_given)
                    return twice("--format", format_given, val);
                format_given = val;
                *flags |= 8;
                if (nb_format_parse(val, fmt) != NB_OK)
                    return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
            } else {
                if (!*val)
                    return nb_cli_fail(NB_ERR_INVALID_ARG, "--output needs a file name");
                if (*output)
                    return twice("--output", *output, val);
                *output = val;
            }
            continue;
        }
        if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            *flags |= 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            *flags |= 2;
        else if (!strcmp(a, "--version") || !strcmp(a, "-V"))
            *flags |= 4;
        else
            rest[(*nrest)++] = argv[i];
    }
    return -1;
}

/* The exit code when `path`, the value of option `flag`, names a plug-in the
 * command loads: writing it would replace the plug-in; -1 otherwise. */
static int output_is_plugin(const char *flag, const char *path, int nplug, const char **plugins)
{
    for (int i = 0; i < nplug; i++)
        if (same_file(plugins[i], path)) {
            char msg[700];
            snprintf(msg, sizeof msg, "%s '%.250s' is the plug-in '%.250s': writing it would "
                     "replace the plug-in; choose another %s", flag, path, plugins[i], flag);
            return nb_cli_fail(NB_ERR_INVALID_ARG, msg);
        }
    return -1;
}

/* `transform --out FILE` (or --out=FILE) naming a loaded plug-in: as
 * output_is_plugin; -1 for other commands and files. */
static int transform_out_is_plugin(int nrest, char **rest, int nplug, const char **plugins)
{
    if (nrest < 1 || strcmp(rest[0], "transform") != 0)
        return -1;
    for (int i = 1; i < nrest; i++) {
        const char *a = rest[i];
        const char *v = !strcmp(a, "--out") && i + 1 < nrest ? rest[i + 1]
                        : !strncmp(a, "--out=", 6)           ? a + 6
                                                             : NULL;
        const int rc = v ? output_is_plugin("--out", v, nplug, plugins) : -1;
        if (rc >= 0)
            return rc;
    }
    return -1;
}

/* The exit code when --output names a regular file that the command also
 * reads (an operand or an option's value, --name=value included, '-' being
 * whatever standard input is) or a plug-in it loads: writing it would
 * replace an input; -1 otherwise. */
static int output_is_input(const char *output, int nrest, char **rest, int nplug,
                           const char **plugins)
{
    struct stat out, in;
    if (stat(output, &out) != 0 || !S_ISREG(out.st_mode))
        return -1;
    int rc = output_is_plugin("--output", output, nplug, plugins);
    if (rc >= 0)
        return rc;
    for (int i = 1; i < nrest; i++) {
        const char *a = rest[i], *eq = strchr(a, '=');
        const char *path = a[0] == '-' && a[1] == '-' && eq ? eq + 1 : a;
        const int got = nb_cli_stat_arg(path, &in); /* '-': stdin */
        if (got == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
            char msg[700];
            snprintf(msg, sizeof msg, "--output '%.250s' is also an input of %s ('%.250s'): "
                     "writing it would replace that file; choose another --output", output,
                     rest[0], a);
            return nb_cli_fail(NB_ERR_INVALID_ARG, msg);
        }
    }
    return -1;
}

/* The lock of the claimed output and the temporary an atomic write of it
 * uses (nb_write_file_atomic: the resolved path + ".tmp." + the process id),
 * removed when SIGINT or SIGTERM ends a command that does not handle them
 * itself (`run` does, and restores this handler after its sweep); then the
 * signal's default action. */
static char claimed_lock[PATH_MAX], claimed_tmp[PATH_MAX + 32];

static void on_signal_release_lock(int sig)
{
    unlink(claimed_tmp); /* async-signal-safe */
    unlink(claimed_lock);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: in a variant's code,
 * most likely a plug-in's, or in nttbench) ends the process as its default
 * action would, after one line on stderr and the claimed output's lock and
 * temporary removed. Installed only over the default action (a sanitizer's
 * handler stays). Async-signal-safe calls only. */
static void on_fault(int sig)
{
    static const char head[] = "nttbench: error: crashed with ";
    static const char tail[] = " (a fault in a variant's code or in nttbench: `nttbench verify "
                               "--variant NAME` checks one variant alone)\n";
    const char *name = sig == SIGSEGV   ? "SIGSEGV"
                       : sig == SIGBUS  ? "SIGBUS"
                       : sig == SIGFPE  ? "SIGFPE"
                       : sig == SIGILL  ? "SIGILL"
                                        : "SIGABRT";
    ssize_t w = write(STDERR_FILENO, head, sizeof head - 1);
    w = write(STDERR_FILENO, name, strlen(name));
    w = write(STDERR_FILENO, tail, sizeof tail - 1);
    (void)w;
    if (claimed_lock[0]) {
        unlink(claimed_tmp);
        unlink(claimed_lock);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void report_faults(void)
{
    const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old, sa;
        sigaction(sigs[i], NULL, &old);
        if (old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fault;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(sigs[i], &sa, NULL);
    }
}

static void release_lock_on_signals(const nb_output_claim *claim)
{
    const char *lock = nb_output_claim_lock_path(claim);
    const size_t len = lock ? strlen(lock) : 0;
    if (len <= 5 || len >= sizeof claimed_lock)
        return;
    memcpy(claimed_lock, lock, len + 1);
    snprintf(claimed_tmp, sizeof claimed_tmp, "%.*s.tmp.%ld", (int)(len - 5), lock,
             (long)getpid());
    const int sigs[] = {SIGINT, SIGTERM};
    for (int i = 0; i < 2; i++) {
        struct sigaction old, sa;
        sigaction(sigs[i], NULL, &old);
        if (old.sa_handler == SIG_IGN) /* a background job's signal stays ignored */
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal_release_lock;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

/* NB_ERR_INVALID_ARG, with a message, for an OMP_NUM_THREADS above
 * NB_CLI_MAX_OMP_THREADS in any of its entries, which the OpenMP runtime would
 * try to allocate (an absurd count ended the process with the runtime's
 * out-of-memory message and exit 1); else NB_OK. Other values are the
 * runtime's to read or ignore, and the environment block records what it
 * took. */
#define NB_CLI_MAX_OMP_THREADS 4096
static nb_status omp_threads_check(void)
{
    const char *e = getenv("OMP_NUM_THREADS");
    for (const char *p = e; p && *p;) {
        while (*p == ' ' || *p == ',')
            p++;
        if (!isdigit((unsigned char)*p))
            break; /* not a count ("-1", "abc"): the runtime's to refuse */
        char *end;
        const unsigned long long v = strtoull(p, &end, 10);
        if (v > NB_CLI_MAX_OMP_THREADS || end - p > 12)
            return nb_set_error(NB_ERR_INVALID_ARG, "OMP_NUM_THREADS='%.40s': at most %d "
                                "threads a level", e, NB_CLI_MAX_OMP_THREADS);
        p = end;
    }
    return NB_OK;
}

/* Everything after the global options; rest/plugins are owned by main. */
static int run_main(int argc, char **argv, char **rest, const char **plugins)
{
    nb_format fmt = NB_FORMAT_TABLE;
    const char *output = NULL;
    int nrest = 0, nplug = 0, flags = 0;
    int rc = parse_globals(argc, argv, rest, &nrest, plugins, &nplug, &fmt, &output, &flags);
    if (rc >= 0)
        return rc;
    const int quiet = flags & 1, help = flags & 2;
    if (flags & 4) {
        printf("nttbench %s (commit %s, plug-in ABI %u)\n", nb_version(), nb_git_commit(),
               nb_plugin_abi());
        return 0;
    }
    if (nrest == 0) {
        if (help) {
            usage(stdout);
            return 0;
        }
        return nb_cli_fail(NB_ERR_INVALID_ARG,
                           "no command given (usage: nttbench [global options] COMMAND "
                           "[options]; nttbench --help lists the commands)");
    }
    const char *cmd = rest[0];
    if (help || !strcmp(cmd, "help")) {
        command_help(!strcmp(cmd, "help") ? (nrest > 1 ? rest[1] : "") : cmd);
        return 0;
    }
    /* the environment's settings, whichever command reads them */
    size_t llc;
    if (nb_host_llc_env(&llc) != NB_OK || nb_ckks_check_env() != NB_OK ||
        omp_threads_check() != NB_OK)
        return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
    if ((rc = transform_out_is_plugin(nrest, rest, nplug, plugins)) >= 0)
        return rc;
    nb_output_claim *claim = NULL;
    if (output) {
        char resolved[PATH_MAX];
        nb_output_kind kind;
        if (nb_output_classify(output, &kind, resolved) != NB_OK)
            return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
        if ((rc = output_is_input(output, nrest, rest, nplug, plugins)) >= 0)
            return rc;
        /* writable and not written by another run: known before anything runs */
        if (nb_output_claim_take(&claim, output) != NB_OK)
            return nb_cli_fail(NB_ERR_IO, nb_last_error());
        release_lock_on_signals(claim);
    }
    rc = 0;
    for (int i = 0; i < nplug && !rc; i++)
        rc = load_plugin(plugins[i]);
    if (!rc)
        rc = dispatch(nrest, rest, argc, argv, fmt, flags & 8, output, quiet);
    nb_output_claim_release(claim);
    return rc;
}

/* The OpenMP policy of CPU timing, unless the user set it: idle workers sleep
 * (OMP_WAIT_POLICY=passive), threads stay near their parent
 * (OMP_PROC_BIND=close), one thread per online CPU (OMP_NUM_THREADS). The
 * OpenMP runtime reads these once, when it is loaded, so a missing one is set
 * and the program executes itself again (once: NTTBENCH_OMP_POLICY marks it).
 * If that fails the run goes on under the inherited policy, which the
 * environment block records. */
static void omp_policy(char **argv)
{
    if (getenv("NTTBENCH_OMP_POLICY"))
        return;
    int missing = 0;
    char threads[24];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(threads, sizeof threads, "%ld", cpus > 0 ? cpus : 1);
    const char *const vars[][2] = {{"OMP_WAIT_POLICY", "passive"},
                                   {"OMP_PROC_BIND", "close"},
                                   {"OMP_NUM_THREADS", threads}};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (!getenv(vars[i][0])) {
            setenv(vars[i][0], vars[i][1], 1);
            missing = 1;
        }
    setenv("NTTBENCH_OMP_POLICY", "1", 1);
    if (missing)
        execv("/proc/self/exe", argv);
}

int main(int argc, char **argv)
{
    omp_policy(argv);
    /* beyond the file-size limit a write fails with EFBIG, which the writers
     * report (one line, exit 3, the temporary removed), instead of a kill */
    signal(SIGXFSZ, SIG_IGN);
    report_faults();
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    const char **plugins = calloc((size_t)argc + 1, sizeof *plugins);
    int rc = rest && plugins ? run_main(argc, argv, rest, plugins)
                             : nb_cli_fail(NB_ERR_OUT_OF_MEMORY, "out of memory");
    free(rest);
    free(plugins);
    return rc;
}

/* `run --profile`: after each GPU case (the NTT tier's, and the stage tier's
 * on one GPU) is timed, ncu runs this same executable on a command line that
 * selects exactly that case (run's options again, the same seed, the hidden
 * --profile-case NAME), whose target runs one call of it between profiler
 * start and stop (nb_bench_profile_call); ncu's CSV becomes the case's
 * profile. The settings and the isolation are documented in
 * docs/methodology.md, "Profiler pass". */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/cli/cli.h"

/* One line on stderr, "nttbench: warning: --profile: ...", unless quiet. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void say(const nb_cli_profiler *p, const char *fmt, ...)
{
    if (p->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("nttbench: warning: --profile: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* The profile callback of the tiers (bench/tiers/tiers.h). */
static nb_status profile_one(void *ctx, const char *name, nb_cache_state cache, nb_profile *out)
{
    nb_cli_profiler *p = ctx;
    p->argv[p->cache_at] = cache == NB_CACHE_WARM ? "none" : "all";
    p->argv[p->name_at] = (char *)name;
    nb_status s = nb_ncu_run(p->argv, p->run->profile_timeout_s, p->run->timing.interrupt, out);
    if (s != NB_OK) {
        say(p, "%s: %s; the case keeps its timing, without a profile", name, nb_last_error());
        return s;
    }
    snprintf(out->version, sizeof out->version, "%s", p->version);
    out->clocks_locked = 1;
    out->caches_flushed = cache != NB_CACHE_WARM;
    return NB_OK;
}

/* The pass's command line: ncu and its settings, then the target (this
 * executable, quiet, its report discarded, the plug-ins again) with run's
 * options; the case name and the cache control are filled per case. */
static nb_status build_argv(nb_cli_profiler *p, int full_argc, char **full_argv, int argc,
                            char **argv)
{
    const int max = 40 + full_argc + argc;
    p->argv = calloc((size_t)max, sizeof *p->argv);
    if (!p->argv)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    char **a = p->argv;
    int n = 0;
    a[n++] = p->ncu;
    const char *const ncu_opts[] = {"--csv", "--page", "raw", "--print-units", "base",
                                    "--profile-from-start", "off", "--clock-control", "base",
                                    "--metrics", nb_ncu_metrics, "--cache-control"};
    for (size_t i = 0; i < sizeof ncu_opts / sizeof ncu_opts[0]; i++)
        a[n++] = (char *)ncu_opts[i];
    p->cache_at = n++;
    a[n++] = p->exe;
    const char *const target[] = {"--quiet", "--format", "json", "--output", "/dev/null"};
    for (size_t i = 0; i < sizeof target / sizeof target[0]; i++)
        a[n++] = (char *)target[i];
    for (int i = 1; i < full_argc; i++)
        if (!strcmp(full_argv[i], "--plugin") && i + 1 < full_argc) {
            a[n++] = full_argv[i];
            a[n++] = full_argv[++i];
        } else if (!strncmp(full_argv[i], "--plugin=", 9)) {
            a[n++] = full_argv[i];
        }
    a[n++] = "run";
    n += nb_cli_run_target_args(argc, argv, a + n, max - n - 6);
    snprintf(p->seed, sizeof p->seed, "%" PRIu64, p->run->seed);
    a[n++] = "--seed";
    a[n++] = p->seed;
    a[n++] = "--profile-case";
    p->name_at = n++;
    a[n] = NULL;
    p->argc = n;
    return NB_OK;
}

void nb_cli_profile_setup(nb_cli_profiler *p, const nb_cli_run *run,
                          const nb_ntt_variant *const *vars, size_t nv, int full_argc,
                          char **full_argv, int argc, char **argv, int quiet)
{
    memset(p, 0, sizeof *p);
    p->run = run;
    p->quiet = quiet;
    if (!run->profile || run->profile_case || run->list)
        return;
    if (nb_ncu_find(p->ncu, sizeof p->ncu) != NB_OK) {
        say(p, "%s; timing without a profiler pass", nb_last_error());
        return;
    }
    int any_cpu = 0, any_gpu = 0, several = 0;
    for (size_t i = 0; i < nv; i++) {
        any_cpu |= vars[i]->backend == NB_BACKEND_CPU;
        any_gpu |= vars[i]->backend == NB_BACKEND_GPU;
    }
    for (size_t i = 0; i < run->n_tiers; i++)
        if (!strcmp(run->tiers[i].tier->name, "stage")) {
            const nb_stage_tier_opts *so = nb_cli_stage_opts((nb_cli_run *)run);
            for (size_t g = 0; so && g < so->n_gpus; g++)
                several |= so->gpus[g] > 1;
        }
    if (any_cpu || !any_gpu)
        say(p, "profiling applies to GPU cases only: the CPU cases are timed without a profiler "
               "pass");
    if (!any_gpu)
        return;
    if (several)
        say(p, "stage cases on several GPUs are timed without a profiler pass (a profiler "
               "serialises kernels; the one-GPU cases have one)");
    const ssize_t len = readlink("/proc/self/exe", p->exe, sizeof p->exe - 1);
    if (len <= 0) {
        say(p, "cannot find this executable (/proc/self/exe); timing without a profiler pass");
        return;
    }
    p->exe[len] = '\0';
    if (nb_ncu_version(p->ncu, run->profile_timeout_s, p->version, sizeof p->version) != NB_OK ||
        build_argv(p, full_argc, full_argv, argc, argv) != NB_OK) {
        say(p, "%s; timing without a profiler pass", nb_last_error());
        nb_cli_profile_free(p);
    }
}

void nb_cli_profile_attach(nb_cli_profiler *p, nb_tier_run *tr)
{
    tr->profile_call = p->run && p->run->profile_case != NULL;
    if (p->argv) {
        tr->profile = profile_one;
        tr->profile_ctx = p;
    }
}

void nb_cli_profile_free(nb_cli_profiler *p)
{
    if (p) {
        free(p->argv);
        p->argv = NULL;
    }
}

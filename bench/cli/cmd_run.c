/* `nttbench run`: option parsing (sweep axes, tiers and cache states, timing
 * options, tier-specific options), defaults that make a short sensible
 * benchmark, and the loop over tiers x cache states through the library's
 * tier table (bench/tiers/tiers.h). */
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/cli/cli.h"

/* Timing options shared by run and calibrate. */
const nb_cli_option nb_cli_timing_options[] = {
    {"min-samples", 1, "N      samples at least (10)"},
    {"min-time", 1, "S      accumulated measured time at least, seconds (0.5)"},
    {"max-noise", 1, "PCT    stop once the relative std. deviation is below, % (0.5)"},
    {"timeout", 1, "S      stop sampling after this wall time, flagged (15)"},
    {"max-samples", 1, "N      stop after this many samples, flagged (100000)"},
    {"warmup", 1, "N      warm-up samples at least (3)"},
    {"warmup-time", 1, "S      warm-up wall time at least (0.05)"},
    {"throttle-threshold", 1, "PCT    discard samples below this % of the default SM clock (75)"},
    {"throttle-recovery", 1, "S      back-off after a throttled sample (0.05)"},
    {"blocking-timeout", 1, "S      the blocking kernel gives up after (10)"},
    {NULL, 0, NULL},
};

static const nb_cli_option run_options[] = {
    {"tier", 1, "LIST   ntt,stage; warm and cold name the ntt tier in that cache state "
                "(warm,cold)"},
    {"cache", 1, "LIST   warm,cold: cache states of the tiers named ntt or stage "
                 "(ntt warm,cold; stage cold)"},
    {"variant", 1, "LIST   variants by name (all of the backend; see 'nttbench list')"},
    {"backend", 1, "B      cpu | gpu | auto: GPU variants when a device is present (auto)"},
    {"logn", 1, "LIST   log2 N: 12:17, 10:16:2 or 12,14 (16)"},
    {"limbs", 1, "LIST   RNS limbs L per transform (GPU 1,8,32; CPU 1,8)"},
    {"bits", 1, "LIST   prime sizes in bits, q < 2^bits (60)"},
    {"direction", 1, "LIST   forward,inverse (forward)"},
    {"mode", 1, "LIST   per-launch,batch,graph (per-launch)"},
    {"batch", 1, "K      launches per sample in batch and graph modes (10)"},
    {"cold", 1, "M      flush | rotate | both: what a cold cache state does (both)"},
    {"sets", 1, "K      buffer sets to rotate through (automatic: >= 3x the cache)"},
    {"l2-persist", 1, "F      warm cache: pin the input in L2, access-policy hit ratio F"},
    {"seed", 1, "N      input seed (time-based; recorded per case)"},
    {"progress", 0, "       progress lines on stderr from the start"},
    {"no-progress", 0, "       no progress lines"},
    {NULL, 0, NULL},
};

/* Sets one timing option; 1 if `name` is one. */
int nb_cli_timing_set(nb_bench_opts *t, const char *name, const char *v, nb_status *st)
{
    *st = NB_OK;
    if (!strcmp(name, "min-samples"))
        *st = nb_cli_parse_size(v, name, 1, 100000000, &t->min_samples);
    else if (!strcmp(name, "min-time"))
        *st = nb_cli_parse_double(v, name, 0, 3600, &t->min_time_s);
    else if (!strcmp(name, "max-noise"))
        *st = nb_cli_parse_double(v, name, 0, 1000, &t->max_noise_pct);
    else if (!strcmp(name, "timeout"))
        *st = nb_cli_parse_double(v, name, 1e-3, 86400, &t->timeout_s);
    else if (!strcmp(name, "max-samples"))
        *st = nb_cli_parse_size(v, name, 1, 100000000, &t->max_samples);
    else if (!strcmp(name, "warmup"))
        *st = nb_cli_parse_size(v, name, 0, 1000000, &t->warmup_samples);
    else if (!strcmp(name, "warmup-time"))
        *st = nb_cli_parse_double(v, name, 0, 3600, &t->warmup_time_s);
    else if (!strcmp(name, "throttle-threshold"))
        *st = nb_cli_parse_double(v, name, 0, 100, &t->throttle_threshold_pct);
    else if (!strcmp(name, "throttle-recovery"))
        *st = nb_cli_parse_double(v, name, 0, 10, &t->throttle_recovery_s);
    else if (!strcmp(name, "blocking-timeout"))
        *st = nb_cli_parse_double(v, name, 1e-3, 600, &t->blocking_timeout_s);
    else
        return 0;
    return 1;
}

void nb_cli_run_free(nb_cli_run *run)
{
    if (!run)
        return;
    free(run->variant_storage);
    run->variant_storage = NULL;
    nb_cli_stage_free(run);
}

#define STATE(s) (1u << (s))

/* --tier: "warm" and "cold" name the ntt tier in that cache state (as they
 * always have), other words name a tier of the table. */
static nb_status parse_tiers(nb_cli_run *run, const char *v)
{
    char *storage, *words[8];
    size_t n;
    NB_TRY(nb_cli_parse_words(v, "tier", &storage, words, 8, &n));
    nb_status st = NB_OK;
    run->n_tiers = 0;
    for (size_t i = 0; i < n && st == NB_OK; i++) {
        int warm = !strcmp(words[i], "warm"), cold = !strcmp(words[i], "cold");
        const nb_tier *t = nb_tier_find(warm || cold ? "ntt" : words[i]);
        if (!t) {
            st = NB_ERR_INVALID_ARG;
            break;
        }
        unsigned states = warm ? STATE(NB_CACHE_WARM) : cold ? STATE(NB_CACHE_COLD) : 0;
        size_t k = 0;
        while (k < run->n_tiers && run->tiers[k].tier != t)
            k++;
        if (k == run->n_tiers)
            run->tiers[run->n_tiers++] = (nb_cli_tier){t, states};
        else if (!states || !run->tiers[k].states)
            run->tiers[k].states = 0; /* the tier by name: --cache or its defaults */
        else
            run->tiers[k].states |= states;
    }
    free(storage);
    return st;
}

/* --cache: warm and/or cold (cold = the --cold state). */
static nb_status parse_caches(nb_cli_run *run, const char *v)
{
    char *storage, *words[4];
    size_t n;
    NB_TRY(nb_cli_parse_words(v, "cache", &storage, words, 4, &n));
    nb_status st = NB_OK;
    run->cache_states = 0;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(words[i], "warm"))
            run->cache_states |= STATE(NB_CACHE_WARM);
        else if (!strcmp(words[i], "cold"))
            run->cache_states |= STATE(NB_CACHE_COLD);
        else
            st = nb_set_error(NB_ERR_INVALID_ARG, "--cache '%s': warm or cold", words[i]);
    }
    free(storage);
    return st;
}

/* --mode: a list of modes, duplicates dropped. */
static nb_status parse_modes(nb_cli_run *run, const char *v)
{
    nb_status st;
    char *storage, *words[8];
    size_t n;
    NB_TRY(nb_cli_parse_words(v, "mode", &storage, words, 8, &n));
    run->n_modes = 0;
    for (size_t i = 0; i < n; i++) {
        nb_mode m;
        st = nb_mode_parse(words[i], &m);
        if (st != NB_OK) {
            free(storage);
            return st;
        }
        size_t k = 0;
        while (k < run->n_modes && run->modes[k] != m)
            k++;
        if (k == run->n_modes)
            run->modes[run->n_modes++] = m;
    }
    free(storage);
    return NB_OK;
}

static nb_status set_run_option(nb_cli_run *run, const char *name, const char *v)
{
    nb_status st;
    if (nb_cli_timing_set(&run->timing, name, v, &st))
        return st;
    if (!strcmp(name, "tier"))
        return parse_tiers(run, v);
    if (!strcmp(name, "cache"))
        return parse_caches(run, v);
    if (!strcmp(name, "variant")) {
        free(run->variant_storage);
        return nb_cli_parse_words(v, name, &run->variant_storage, run->variants, NB_CLI_MAX_LIST,
                                  &run->n_variants);
    }
    if (!strcmp(name, "backend")) {
        if (!strcmp(v, "cpu"))
            run->backend = NB_CLI_CPU;
        else if (!strcmp(v, "gpu"))
            run->backend = NB_CLI_GPU;
        else if (!strcmp(v, "auto"))
            run->backend = NB_CLI_AUTO;
        else
            return nb_set_error(NB_ERR_INVALID_ARG, "--backend '%s': cpu, gpu or auto", v);
        return NB_OK;
    }
    if (!strcmp(name, "logn")) {
        run->given_logn = 1;
        return nb_cli_parse_ulist(v, name, NB_MIN_LOG_N, NB_MAX_LOG_N, run->logn, NB_CLI_MAX_LIST,
                                  &run->n_logn);
    }
    if (!strcmp(name, "limbs")) {
        run->given_limbs = 1;
        return nb_cli_parse_ulist(v, name, 1, 4096, run->limbs, NB_CLI_MAX_LIST, &run->n_limbs);
    }
    if (!strcmp(name, "bits"))
        return nb_cli_parse_ulist(v, name, 20, 62, run->bits, NB_CLI_MAX_LIST, &run->n_bits);
    if (!strcmp(name, "direction"))
        return nb_cli_parse_directions(v, &run->directions);
    if (!strcmp(name, "mode"))
        return parse_modes(run, v);
    if (!strcmp(name, "batch"))
        return nb_cli_parse_size(v, name, 1, 100000, &run->timing.batch);
    if (!strcmp(name, "cold"))
        return nb_cold_parse(v, &run->timing.cache);
    if (!strcmp(name, "sets"))
        return nb_cli_parse_size(v, name, 1, (size_t)1 << 22, &run->timing.rotate_sets);
    if (!strcmp(name, "l2-persist"))
        return nb_cli_parse_double(v, name, 0, 1, &run->timing.l2_persist);
    if (!strcmp(name, "seed")) {
        run->seed_given = 1;
        return nb_cli_parse_u64(v, name, &run->seed);
    }
    if (!strcmp(name, "progress")) {
        run->progress = 1;
        return NB_OK;
    }
    if (!strcmp(name, "no-progress")) {
        run->progress = 0;
        return NB_OK;
    }
    return nb_cli_stage_set(run, name, v);
}

unsigned nb_cli_tier_states(const nb_cli_run *run, const nb_cli_tier *t)
{
    if (t->states)
        return t->states;
    return run->cache_states ? run->cache_states : t->tier->default_states;
}

int nb_cli_run_parse(int argc, char **argv, nb_cli_run *run)
{
    memset(run, 0, sizeof *run);
    nb_bench_opts_default(&run->timing);
    run->timing.cache = NB_CACHE_COLD;
    run->tiers[0] = (nb_cli_tier){nb_tier_find("ntt"), STATE(NB_CACHE_WARM) | STATE(NB_CACHE_COLD)};
    run->n_tiers = 1;
    run->backend = NB_CLI_AUTO;
    run->bits[0] = 60;
    run->n_bits = 1;
    run->directions = 1;
    run->modes[0] = NB_MODE_PER_LAUNCH;
    run->n_modes = 1;
    run->progress = -1;
    run->seed = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull;
    const nb_cli_option *const tables[] = {run_options, nb_cli_timing_options,
                                           nb_cli_stage_options, NULL};
    for (int i = 0; i < argc;) {
        const char *name, *value;
        int r = nb_cli_next_option(argc, argv, &i, tables, &name, &value);
        if (r < 0)
            return NB_EXIT_USAGE;
        if (r == 0) {
            nb_set_error(NB_ERR_INVALID_ARG, "run: unexpected argument '%s'", argv[i]);
            return NB_EXIT_USAGE;
        }
        if (set_run_option(run, name, value) != NB_OK)
            return NB_EXIT_USAGE;
    }
    for (size_t i = 0; i < run->n_tiers; i++)
        if (run->timing.l2_persist >= 0 &&
            (nb_cli_tier_states(run, &run->tiers[i]) & ~STATE(NB_CACHE_WARM)))
            return nb_set_error(NB_ERR_INVALID_ARG,
                                "--l2-persist pins data in L2: use it with a warm cache only "
                                "(--tier warm, or --cache warm)"),
                   NB_EXIT_USAGE;
    /* per-tier option checks happen when the tier runs (it knows its flags) */
    nb_bench_opts probe = run->timing;
    probe.l2_persist = -1;
    if (nb_bench_opts_check(&probe) != NB_OK)
        return NB_EXIT_USAGE;
    return 0;
}

void nb_cli_run_help(FILE *f)
{
    fprintf(f, "usage: nttbench run [options]\n\n"
               "Sweeps tiers x variants x directions x log N x limbs x prime bits x modes.\n"
               "Every case is verified before timing (a wrong result is reported, never timed)\n"
               "and again after the last sample.\n\nsweep options:\n");
    nb_cli_print_options(f, run_options);
    fprintf(f, "\ntiming options (NVBench names and defaults):\n");
    nb_cli_print_options(f, nb_cli_timing_options);
    if (nb_cli_stage_options[0].name) {
        fprintf(f, "\nstage tier options:\n");
        nb_cli_print_options(f, nb_cli_stage_options);
    }
    fprintf(f, "\nWithout options: --tier warm,cold on the GPU variants (--logn 16 --limbs "
               "1,8,32)\nwhen a device is present, else on the CPU variants (--logn 16 "
               "--limbs 1,8).\n"
               "What is timed (--tier ntt, stage) and the cache state (--cache warm, cold;\n"
               "--cold says what cold does) are separate choices: --tier stage --cache warm\n"
               "times the stages with a warm cache.\n");
}

/* Resolves --backend auto: GPU if a device is present and a GPU variant exists. */
static nb_cli_backend resolve_backend(const nb_cli_run *run)
{
    if (run->backend != NB_CLI_AUTO)
        return run->backend;
    if (run->n_variants)
        return NB_CLI_AUTO; /* explicit variants decide */
    if (nb_gpu_count() > 0)
        for (size_t i = 0; i < nb_ntt_variant_count(); i++)
            if (nb_ntt_variant_at(i)->backend == NB_BACKEND_GPU)
                return NB_CLI_GPU;
    return NB_CLI_CPU;
}

nb_status nb_cli_run_variants(const nb_cli_run *run, const nb_ntt_variant **out, size_t max,
                              size_t *n)
{
    *n = 0;
    nb_cli_backend b = resolve_backend(run);
    if (run->n_variants) {
        for (size_t i = 0; i < run->n_variants; i++) {
            const nb_ntt_variant *v = nb_ntt_variant_find(run->variants[i]);
            if (!v)
                return NB_ERR_NOT_FOUND;
            if (b != NB_CLI_AUTO && (int)v->backend != (int)b)
                return nb_set_error(NB_ERR_INVALID_ARG, "variant '%s' runs on the %s, not --backend %s",
                                    v->name, nb_backend_name(v->backend),
                                    b == NB_CLI_GPU ? "gpu" : "cpu");
            if (*n < max)
                out[(*n)++] = v;
        }
        return NB_OK;
    }
    for (size_t i = 0; i < nb_ntt_variant_count() && *n < max; i++) {
        const nb_ntt_variant *v = nb_ntt_variant_at(i);
        if ((int)v->backend == (int)b)
            out[(*n)++] = v;
    }
    if (*n == 0)
        return nb_set_error(NB_ERR_NOT_FOUND, "no %s variant is registered",
                            b == NB_CLI_GPU ? "GPU" : "CPU");
    return NB_OK;
}

void nb_cli_log(void *ctx, const char *msg)
{
    const int *quiet = ctx;
    if (!quiet || !*quiet)
        fprintf(stderr, "nttbench: warning: %s\n", msg);
}

void nb_cli_progress(nb_cli_ctx *ctx, const nb_cli_run *run, const char *what, const char *result)
{
    ctx->case_no++;
    if (ctx->quiet || run->progress == 0)
        return;
    if (run->progress < 0 && nb_now_s() - ctx->start_s < 3.0)
        return;
    fprintf(stderr, "[%zu] %s  %s\n", ctx->case_no, what, result ? result : "");
}

/* After each case: the progress line, and the report file rewritten with
 * every case so far (an interrupted or killed sweep keeps them). Rewrites are
 * spaced so that they take at most a sixth of the run's time (a large report
 * is not rewritten after every short case). A failed rewrite is left to the
 * final write to report. */
static void progress_cb(void *c, const char *what, const char *result)
{
    nb_cli_ctx *ctx = c;
    nb_cli_progress(ctx, ctx->run, what, result);
    const double now = nb_now_s();
    if (!ctx->output || now - ctx->written_s < 5.0 * ctx->write_cost_s)
        return;
    (void)nb_report_write_file(ctx->report, ctx->fmt, ctx->output);
    ctx->written_s = nb_now_s();
    ctx->write_cost_s = ctx->written_s - now;
}

/* The signal that interrupted the sweep (SIGINT, SIGTERM), 0 while none. */
static volatile sig_atomic_t interrupt_signal;

/* Only records the signal (async-signal-safe); the sample loop and the sweep
 * read it. SA_RESETHAND: a second signal ends the process at once. */
static void on_interrupt(int sig)
{
    interrupt_signal = sig;
}

static void catch_interrupts(struct sigaction *old_int, struct sigaction *old_term)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_RESETHAND;
    interrupt_signal = 0;
    /* a signal the parent set to be ignored (a background job, nohup) stays ignored */
    sigaction(SIGINT, NULL, old_int);
    sigaction(SIGTERM, NULL, old_term);
    if (old_int->sa_handler != SIG_IGN)
        sigaction(SIGINT, &sa, NULL);
    if (old_term->sa_handler != SIG_IGN)
        sigaction(SIGTERM, &sa, NULL);
}

/* Every tier x cache state through the library's table, on the variants
 * resolved once. */
static nb_status run_tiers(nb_cli_run *run, nb_cli_ctx *ctx, const nb_ntt_variant *const *vars,
                           size_t nv)
{
    unsigned logn[NB_CLI_MAX_LIST], bits[NB_CLI_MAX_LIST];
    size_t limbs[NB_CLI_MAX_LIST];
    for (size_t i = 0; i < run->n_logn; i++)
        logn[i] = (unsigned)run->logn[i];
    for (size_t i = 0; i < run->n_limbs; i++)
        limbs[i] = (size_t)run->limbs[i];
    for (size_t i = 0; i < run->n_bits; i++)
        bits[i] = (unsigned)run->bits[i];
    nb_tier_run tr = {.report = ctx->report, .env = &ctx->env, .stream = ctx->stream,
                      .timing = run->timing, .progress = progress_cb, .progress_ctx = ctx};
    tr.sweep = (nb_sweep){vars, nv, logn, run->n_logn, limbs, run->n_limbs, bits, run->n_bits,
                          run->directions, run->modes, run->n_modes, run->seed};
    for (size_t i = 0; i < run->n_tiers; i++) {
        const nb_tier *t = run->tiers[i].tier;
        const unsigned states = nb_cli_tier_states(run, &run->tiers[i]);
        tr.tier_opts = strcmp(t->name, "stage") == 0 ? (const void *)nb_cli_stage_opts(run) : NULL;
        for (int c = NB_CACHE_WARM; c <= NB_CACHE_COLD; c++) {
            if (!(states & STATE(c)))
                continue;
            tr.timing.cache = c == NB_CACHE_WARM ? NB_CACHE_WARM : run->timing.cache;
            if (c != NB_CACHE_WARM)
                tr.timing.l2_persist = -1;
            else
                tr.timing.l2_persist = run->timing.l2_persist;
            NB_TRY(nb_tier_run_one(t, &tr));
        }
    }
    return NB_OK;
}

/* Resolves the variants (once) and the backend-dependent defaults; an exit
 * code when the run cannot start, else 0. */
static int resolve_run(nb_cli_run *run, const nb_ntt_variant **vars, size_t *nv, int *need_gpu)
{
    /* --backend gpu without a usable device is an environment error, whatever is registered */
    nb_status s;
    if (run->backend == NB_CLI_GPU && (s = nb_gpu_require()) != NB_OK) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s (--backend gpu)", nb_last_error());
        return nb_cli_fail(NB_ERR_NO_DEVICE, msg);
    }
    s = nb_cli_run_variants(run, vars, NB_CLI_MAX_LIST, nv);
    if (s != NB_OK)
        return nb_cli_fail(s, nb_last_error());
    int any_cpu = 0;
    *need_gpu = 0;
    for (size_t i = 0; i < *nv; i++) {
        *need_gpu |= vars[i]->backend == NB_BACKEND_GPU;
        any_cpu |= vars[i]->backend == NB_BACKEND_CPU;
    }
    if (*need_gpu && nb_gpu_require() != NB_OK)
        return nb_cli_fail_no_gpu(vars, *nv);
    if (!run->given_logn) {
        run->logn[0] = 16;
        run->n_logn = 1;
    }
    if (!run->given_limbs) {
        static const unsigned long long gpu_l[] = {1, 8, 32}, cpu_l[] = {1, 8};
        const unsigned long long *l = *need_gpu && !any_cpu ? gpu_l : cpu_l;
        run->n_limbs = *need_gpu && !any_cpu ? 3 : 2;
        memcpy(run->limbs, l, run->n_limbs * sizeof *l);
    }
    return 0;
}

/* Writes the report (what finished, also after an error or a signal) and
 * turns the outcome into the exit code: 128 + the signal when interrupted
 * (130 SIGINT, 143 SIGTERM), then the sweep's error, then failed cases. */
static int finish_run(nb_cli_ctx *ctx, nb_status s, nb_format fmt, const char *output, int quiet)
{
    char err[600] = "";
    if (s != NB_OK)
        snprintf(err, sizeof err, "%s", nb_last_error());
    const int sig = interrupt_signal;
    nb_report_set_interrupted(ctx->report, sig != 0);
    nb_status ws = ctx->report && (s == NB_OK || nb_report_case_count(ctx->report))
                       ? nb_report_write_file(ctx->report, fmt, output ? output : "-")
                       : NB_OK;
    if (sig) {
        char msg[200];
        snprintf(msg, sizeof msg, "interrupted by %s: the report holds the %zu case(s) run so far",
                 sig == SIGINT ? "SIGINT" : "SIGTERM", nb_report_case_count(ctx->report));
        nb_cli_fail(NB_ERR_IO, ws == NB_OK ? msg : nb_last_error());
        return 128 + sig;
    }
    if (s != NB_OK)
        return nb_cli_fail(s, err);
    if (ws != NB_OK)
        return nb_cli_fail(ws, nb_last_error());
    if (ctx->output && fmt != NB_FORMAT_TABLE && !quiet)
        nb_report_write(ctx->report, NB_FORMAT_TABLE, stdout); /* the short table too */
    size_t fails = 0, errors = 0;
    for (size_t i = 0; i < nb_report_case_count(ctx->report); i++) {
        nb_case_status cs = nb_case_get_status(nb_report_case_at(ctx->report, i));
        fails += cs == NB_CASE_VERIFY_FAILED;
        errors += cs == NB_CASE_ERROR;
    }
    if (fails) {
        fprintf(stderr, "nttbench: error: %zu case(s) failed verification (see the report)\n",
                fails);
        return NB_EXIT_VERIFY;
    }
    if (errors) {
        fprintf(stderr, "nttbench: error: %zu case(s) could not run (see the report)\n", errors);
        return NB_EXIT_ENV;
    }
    return 0;
}

int nb_cmd_run(int argc, char **argv, char **full_argv, int full_argc, nb_format fmt,
               const char *output, int quiet)
{
    nb_cli_run run;
    if (nb_cli_run_parse(argc, argv, &run) != 0) {
        nb_cli_run_free(&run);
        return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
    }
    const nb_ntt_variant *vars[NB_CLI_MAX_LIST];
    size_t nv = 0;
    int need_gpu = 0, rc = resolve_run(&run, vars, &nv, &need_gpu);
    if (rc != 0) {
        nb_cli_run_free(&run);
        return rc;
    }
    run.timing.log = nb_cli_log;
    run.timing.log_ctx = &quiet;
    run.timing.interrupt = &interrupt_signal;

    nb_cli_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.quiet = quiet;
    ctx.run = &run;
    ctx.start_s = nb_now_s();
    ctx.fmt = fmt;
    char resolved[PATH_MAX];
    nb_output_kind kind;
    if (output && nb_output_classify(output, &kind, resolved) == NB_OK &&
        (kind == NB_OUTPUT_REGULAR || kind == NB_OUTPUT_NEW))
        ctx.output = output;
    struct sigaction old_int, old_term;
    catch_interrupts(&old_int, &old_term);
    nb_status s = nb_report_create(&ctx.report, "run");
    if (s == NB_OK)
        s = nb_report_set_argv(ctx.report, full_argc, full_argv);
    if (s == NB_OK)
        s = nb_env_collect(&ctx.env, need_gpu, 1);
    if (s == NB_OK && need_gpu)
        s = nb_stream_create(&ctx.stream);
    if (s == NB_OK) {
        nb_report_set_env(ctx.report, &ctx.env);
        nb_report_set_options(ctx.report, &run.timing);
        nb_nvtx_push("nttbench run");
        s = run_tiers(&run, &ctx, vars, nv);
        nb_nvtx_pop();
    }
    rc = finish_run(&ctx, s, fmt, output, quiet);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    nb_stream_destroy(ctx.stream);
    nb_report_destroy(ctx.report);
    nb_cli_run_free(&run);
    return rc;
}

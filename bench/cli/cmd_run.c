/* `nttbench run`: resolves the backend and the variants once, plans the
 * cases (run_list.c; --list stops there), then loops over tiers x cache
 * states through the library's tier table (bench/tiers/tiers.h), with
 * progress lines, interruption (SIGINT, SIGTERM) and the report written as
 * cases finish. Its options are parsed in run_args.c, --profile's pass is
 * run_profile.c's. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench/cli/cli.h"

/* Resolves --backend auto: GPU if a device is present and a GPU variant of
 * a chosen word size exists. */
static nb_cli_backend resolve_backend(const nb_cli_run *run, unsigned words)
{
    if (run->backend != NB_CLI_AUTO)
        return run->backend;
    if (run->n_variants)
        return NB_CLI_AUTO; /* explicit variants decide */
    if (nb_gpu_count() > 0)
        for (size_t i = 0; i < nb_ntt_variant_count(); i++) {
            const nb_ntt_variant *v = nb_ntt_variant_at(i);
            if (v->backend == NB_BACKEND_GPU && (words & NB_CLI_WORD(v->word_bits)))
                return NB_CLI_GPU;
        }
    return NB_CLI_CPU;
}

nb_status nb_cli_run_variants(const nb_cli_run *run, const nb_ntt_variant **out, size_t max,
                              size_t *n)
{
    *n = 0;
    /* without --word, also the word sizes of the CKKS sets given */
    const unsigned words = run->given_word ? run->words : run->words | nb_cli_stage_words(run);
    nb_cli_backend b = resolve_backend(run, words);
    if (run->n_variants) {
        for (size_t i = 0; i < run->n_variants; i++) {
            const nb_ntt_variant *v = NULL;
            NB_TRY(nb_cli_find_variant(run->variants[i], &v));
            if (run->given_word)
                NB_TRY(nb_cli_check_word(v, run->words));
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
        if ((int)v->backend == (int)b && (words & NB_CLI_WORD(v->word_bits)))
            out[(*n)++] = v;
    }
    if (*n == 0 && b == NB_CLI_GPU && nb_gpu_require() != NB_OK) /* a build without CUDA */
        return nb_set_error(NB_ERR_NO_DEVICE, "%s (--backend gpu)", nb_last_error());
    if (*n == 0)
        return nb_set_error(NB_ERR_NOT_FOUND, "no %s%s variant is registered",
                            words == NB_CLI_WORD(32)   ? "32-bit "
                            : words == NB_CLI_WORD(64) ? "64-bit "
                                                            : "",
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
    char eta[48] = "";
    if (ctx->case_total)
        nb_cli_eta(eta, sizeof eta, nb_now_s() - ctx->start_s, ctx->case_no, ctx->case_total);
    if (ctx->case_total && ctx->case_no <= ctx->case_total)
        fprintf(stderr, "[%zu/%zu] %s  %s%s\n", ctx->case_no, ctx->case_total, what,
                result ? result : "", eta);
    else
        fprintf(stderr, "[%zu] %s  %s\n", ctx->case_no, what, result ? result : "");
}

/* 1 when some case of r finished timing (ok, or failed its check after
 * timing): a report worth replacing an earlier file with. */
static int report_timed(const nb_report *r)
{
    const size_t n = r ? nb_report_case_count(r) : 0;
    for (size_t i = 0; i < n; i++) {
        const nb_case *c = nb_report_case_at(r, i);
        const nb_case_status cs = nb_case_get_status(c);
        /* a case that failed its check before timing holds no samples; one
         * interrupted while sampling is not a result either */
        if (cs == NB_CASE_OK || (cs == NB_CASE_VERIFY_FAILED && nb_case_sample_count(c) > 0))
            return 1;
    }
    return 0;
}

/* After each case: the progress line, and the report file rewritten with
 * every case so far (an interrupted or killed sweep keeps them). A rewrite
 * serialises only the cases new since the last (the JSON writer keeps each
 * case's text), and rewrites are spaced at least a second apart and so that
 * they take at most a fiftieth of the run's time; an interrupt still ends in
 * a full write, so only a killed run loses the cases since the last one. A
 * failed rewrite is left to the final write to report. No rewrite before a
 * case was timed: a run that times nothing leaves an earlier file alone. */
static void progress_cb(void *c, const char *what, const char *result)
{
    nb_cli_ctx *ctx = c;
    nb_cli_progress(ctx, ctx->run, what, result);
    const double now = nb_now_s();
    if (!ctx->output || now - ctx->written_s < fmax(1.0, 49.0 * ctx->write_cost_s) ||
        !(ctx->timed = ctx->timed || report_timed(ctx->report)))
        return;
    nb_report_set_wall_time(ctx->report, now - ctx->start_s);
    (void)nb_report_write_file(ctx->report, ctx->fmt, ctx->output);
    ctx->written_s = nb_now_s();
    ctx->write_cost_s = ctx->written_s - now;
}

/* The signal that interrupted the sweep (SIGINT, SIGTERM), 0 while none,
 * the second of the monotonic clock it came at, and the handlers before the
 * sweep's. */
static volatile sig_atomic_t interrupt_signal, interrupt_sec;
static struct sigaction before_int, before_term;

/* Seconds an interrupted sweep has to reach its report: a variant that
 * never returns from a call would otherwise keep the process alive. */
#define INTERRUPT_GRACE_S 10
#define STR_(x) #x
#define STR(x) STR_(x)

/* Ends the process through the handler that was there before the sweep's
 * (which removes the output's lock), as signal `sig` would have. */
static void end_by(int sig)
{
    sigaction(sig, sig == SIGINT ? &before_int : &before_term, NULL);
    raise(sig);
}

/* Records the first signal (the sample loop and the sweep read it) and arms
 * the grace period (on_grace). The same signal again within about a second
 * is the same interruption (`timeout` signals the process, then its process
 * group); a later one ends the process at once. Async-signal-safe calls
 * only. */
static void on_interrupt(int sig)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!interrupt_signal) {
        interrupt_sec = (sig_atomic_t)now.tv_sec;
        interrupt_signal = sig;
        alarm(INTERRUPT_GRACE_S);
        return;
    }
    if (sig == interrupt_signal && now.tv_sec - interrupt_sec <= 1)
        return;
    end_by(sig);
}

/* The grace period ran out: one line, then the end the signal asked for. */
static void on_grace(int sig)
{
    (void)sig;
    static const char msg[] = "nttbench: error: interrupted, and the call under way did not "
                              "return within " STR(INTERRUPT_GRACE_S) " s (a variant that never "
                              "returns?): ending without the report; a file at --output holds "
                              "its last rewrite\n";
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
    end_by(interrupt_signal);
}

static void catch_interrupts(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    interrupt_signal = 0;
    struct sigaction grace = sa;
    grace.sa_handler = on_grace;
    sigaction(SIGALRM, &grace, NULL);
    /* a signal the parent set to be ignored (a background job, nohup) stays ignored */
    sigaction(SIGINT, NULL, &before_int);
    sigaction(SIGTERM, NULL, &before_term);
    if (before_int.sa_handler != SIG_IGN)
        sigaction(SIGINT, &sa, NULL);
    if (before_term.sa_handler != SIG_IGN)
        sigaction(SIGTERM, &sa, NULL);
}

/* The sweep of the command line in `tr` (variants resolved once), tier after
 * tier, each in its cache states. Plan-only (tr->plan_only, tr->select =
 * nb_cli_plan_case): counts[] receives the cases of each tier x state the
 * filter keeps. Otherwise the cases run; counts[] (from the plan) keeps the
 * progress count right past cases that end without a progress call. */
static nb_status sweep(nb_cli_run *run, nb_cli_ctx *ctx, nb_tier_run *tr, size_t *counts)
{
    nb_cli_plan *plan = tr->plan_only ? tr->select_ctx : NULL;
    for (size_t i = 0; i < run->n_tiers; i++) {
        const nb_tier *t = run->tiers[i].tier;
        const unsigned states = nb_cli_tier_states(run, &run->tiers[i]);
        tr->tier_opts = strcmp(t->name, "stage") == 0 ? (const void *)nb_cli_stage_opts(run)
                                                      : NULL;
        for (int c = NB_CACHE_WARM; c <= NB_CACHE_COLD; c++) {
            if (!(states & NB_CLI_STATE(c)))
                continue;
            tr->timing.cache = c == NB_CACHE_WARM ? NB_CACHE_WARM : run->timing.cache;
            tr->timing.l2_persist = c == NB_CACHE_WARM ? run->timing.l2_persist : -1;
            size_t *count = &counts[i * 2 + (c != NB_CACHE_WARM)];
            if (plan) {
                const size_t before = plan->cases;
                plan->stage = tr->tier_opts != NULL;
                NB_TRY(nb_tier_run_one(t, tr));
                *count = plan->cases - before;
                continue;
            }
            const size_t end = ctx->case_no + *count;
            NB_TRY(nb_tier_run_one(t, tr));
            if (ctx->case_no < end) /* cases skipped without a progress call */
                ctx->case_no = end;
        }
    }
    return NB_OK;
}

/* The tier run of the command line: the sweep's axes from the options. */
static nb_tier_run tier_run(nb_cli_run *run, nb_cli_ctx *ctx, const nb_ntt_variant *const *vars,
                            size_t nv, unsigned *logn, unsigned *bits, unsigned *log_q,
                            size_t *limbs)
{
    static const unsigned bits32[] = {31};
    for (size_t i = 0; i < run->n_logn; i++)
        logn[i] = (unsigned)run->logn[i];
    for (size_t i = 0; i < run->n_limbs; i++)
        limbs[i] = (size_t)run->limbs[i];
    for (size_t i = 0; i < run->n_bits; i++)
        bits[i] = (unsigned)run->bits[i];
    for (size_t i = 0; i < run->n_log_q; i++)
        log_q[i] = (unsigned)run->log_q[i];
    nb_tier_run tr = {.report = ctx->report, .env = &ctx->env, .stream = ctx->stream,
                      .timing = run->timing, .progress = progress_cb, .progress_ctx = ctx,
                      .select = nb_cli_keep_case, .select_ctx = run};
    tr.sweep = (nb_sweep){vars, nv, logn, run->n_logn, limbs, run->n_limbs, bits, run->n_bits,
                          run->directions, run->modes, run->n_modes, run->seed,
                          run->given_bits ? NULL : bits32, run->given_bits ? 0 : 1,
                          log_q, run->n_log_q};
    return tr;
}

/* The plan pass: every case the options and --filter select, counted per
 * tier x state into counts[] and, with `list`, printed there with the time
 * estimate. NB_ERR_INVALID_ARG when --filter leaves no case. */
static nb_status plan_cases(nb_cli_run *run, nb_cli_ctx *ctx, const nb_ntt_variant *const *vars,
                            size_t nv, size_t *counts, FILE *list, size_t *total)
{
    unsigned logn[NB_CLI_MAX_LIST], bits[NB_CLI_MAX_LIST], log_q[NB_CLI_MAX_LIST];
    size_t limbs[NB_CLI_MAX_LIST];
    nb_tier_run tr = tier_run(run, ctx, vars, nv, logn, bits, log_q, limbs);
    nb_cli_plan plan = {.run = run, .list = list};
    char no_gpu[400];
    int gpu = 0;
    for (size_t i = 0; i < nv; i++)
        gpu |= vars[i]->backend == NB_BACKEND_GPU;
    if (list && gpu && nb_gpu_require() != NB_OK) { /* a preview on a machine without one */
        snprintf(no_gpu, sizeof no_gpu, "%.380s", nb_last_error());
        plan.no_gpu = no_gpu;
    }
    tr.plan_only = 1;
    tr.select = nb_cli_plan_case;
    tr.select_ctx = &plan;
    NB_TRY(sweep(run, ctx, &tr, counts));
    *total = plan.cases;
    if (plan.cases == 0 && run->filter.n)
        return nb_set_error(NB_ERR_INVALID_ARG, "--filter keeps none of the cases (nttbench "
                            "run --list without --filter shows their names)");
    if (list)
        nb_cli_plan_print_total(&plan, list);
    return NB_OK;
}

/* --list: the plan pass printed into the output (a file, or stdout). */
typedef struct list_job {
    nb_cli_run *run;
    const nb_ntt_variant *const *vars;
    size_t nv;
} list_job;

static nb_status write_list(void *c, FILE *f)
{
    const list_job *job = c;
    size_t counts[16] = {0}, total = 0;
    nb_cli_ctx none;
    memset(&none, 0, sizeof none);
    return plan_cases(job->run, &none, job->vars, job->nv, counts, f, &total);
}

/* Every tier x cache state through the library's table, on the variants
 * resolved once: the plan pass, then the cases it counted. */
static nb_status run_tiers(nb_cli_run *run, nb_cli_ctx *ctx, const nb_ntt_variant *const *vars,
                           size_t nv)
{
    size_t counts[16] = {0};
    NB_TRY(plan_cases(run, ctx, vars, nv, counts, NULL, &ctx->case_total));
    nb_report_set_planned(ctx->report, ctx->case_total);
    unsigned logn[NB_CLI_MAX_LIST], bits[NB_CLI_MAX_LIST], log_q[NB_CLI_MAX_LIST];
    size_t limbs[NB_CLI_MAX_LIST];
    nb_tier_run tr = tier_run(run, ctx, vars, nv, logn, bits, log_q, limbs);
    nb_cli_profile_attach(ctx->profiler, &tr);
    return sweep(run, ctx, &tr, counts);
}

/* Resolves the variants (once) and the backend-dependent defaults; an exit
 * code when the run cannot start, else 0. */
static int resolve_run(nb_cli_run *run, const nb_ntt_variant **vars, size_t *nv, int *need_gpu,
                       int quiet)
{
    /* --backend gpu without a usable device is an environment error, whatever is registered */
    nb_status s;
    if (run->backend == NB_CLI_GPU && !run->list && (s = nb_gpu_require()) != NB_OK) {
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
    if (*need_gpu && !run->list && nb_gpu_require() != NB_OK) /* --list previews them */
        return nb_cli_fail_no_gpu(vars, *nv);
    /* GPU options with CPU variants the command line chose are refused; with
     * those --backend auto took for want of a GPU (the machine, not the
     * command line) a --gpus count above 1 is said to shape nothing */
    const int cpu_chosen = !*need_gpu && (run->backend == NB_CLI_CPU || run->n_variants > 0);
    if (cpu_chosen && run->given_gpu_sampling) {
        char msg[200];
        snprintf(msg, sizeof msg, "--%s shapes how GPU samples are taken, and this run's "
                 "variants run on the CPU (leave --%s out)", run->given_gpu_sampling,
                 run->given_gpu_sampling);
        return nb_cli_fail(NB_ERR_INVALID_ARG, msg);
    }
    const nb_stage_tier_opts *so = nb_cli_stage_opts(run);
    for (size_t i = 0; !*need_gpu && so && i < so->n_gpus; i++)
        if (so->gpus[i] > 1) {
            char msg[200];
            if (!cpu_chosen) {
                snprintf(msg, sizeof msg, "--gpus %zu splits a GPU case's limbs across GPUs, "
                         "and no GPU is usable here: the CPU variants run their cases once",
                         so->gpus[i]);
                nb_cli_log(&quiet, msg);
                break;
            }
            snprintf(msg, sizeof msg, "--gpus %zu splits a GPU case's limbs across GPUs, and "
                     "this run's variants run on the CPU (leave --gpus out)", so->gpus[i]);
            return nb_cli_fail(NB_ERR_INVALID_ARG, msg);
        }
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

/* nb_cli_fail with `kept` (empty, or why --output was left as it was)
 * after the message. */
static int fail_kept(nb_status code, const char *msg, const char *kept)
{
    char line[1100];
    snprintf(line, sizeof line, "%.600s%s", msg, kept);
    return nb_cli_fail(code, line);
}

/* Writes the report (what finished, also after an error or a signal) and
 * turns the outcome into the exit code: 128 + the signal when interrupted
 * (130 SIGINT, 143 SIGTERM), then the sweep's error, then failed cases. A
 * run that timed no case leaves an existing regular file at --output as it
 * was (a failed run never replaces an earlier result). */
static int finish_run(nb_cli_ctx *ctx, nb_status s, nb_format fmt, const char *output, int quiet)
{
    char err[600] = "", kept[400] = "";
    if (s != NB_OK)
        snprintf(err, sizeof err, "%s", nb_last_error());
    const int sig = interrupt_signal;
    alarm(0); /* the sweep returned: its report is written whatever it takes */
    nb_report_set_interrupted(ctx->report, sig != 0);
    nb_report_set_complete(ctx->report, s == NB_OK && !sig); /* the sweep reached its end */
    if (ctx->report)
        nb_report_set_wall_time(ctx->report, nb_now_s() - ctx->start_s);
    struct stat st;
    if (output && !report_timed(ctx->report) && stat(output, &st) == 0 && S_ISREG(st.st_mode))
        snprintf(kept, sizeof kept, "; no case finished timing, so '%.300s' was left as it was",
                 output);
    nb_status ws = !kept[0] && ctx->report && (s == NB_OK || nb_report_case_count(ctx->report))
                       ? nb_report_write_file(ctx->report, fmt, output ? output : "-")
                       : NB_OK;
    if (sig) {
        char msg[200];
        snprintf(msg, sizeof msg, "interrupted by %s: the report holds the %zu case(s) run so far",
                 sig == SIGINT ? "SIGINT" : "SIGTERM", nb_report_case_count(ctx->report));
        if (kept[0])
            snprintf(msg, sizeof msg, "interrupted by %s", sig == SIGINT ? "SIGINT" : "SIGTERM");
        fail_kept(NB_ERR_IO, ws == NB_OK ? msg : nb_last_error(), kept);
        return 128 + sig;
    }
    if (s != NB_OK)
        return fail_kept(s, err, kept);
    /* the short table too; also when the file could not be written, so that
     * the results are not lost with it */
    if (ctx->output && fmt != NB_FORMAT_TABLE && (!quiet || ws != NB_OK))
        nb_report_write(ctx->report, NB_FORMAT_TABLE, stdout);
    if (ws != NB_OK)
        return nb_cli_fail(ws, nb_last_error());
    size_t fails = 0, errors = 0, impossible = 0, skipped = 0;
    const size_t n = nb_report_case_count(ctx->report);
    const char *why = "";
    for (size_t i = 0; i < n; i++) {
        const nb_case *c = nb_report_case_at(ctx->report, i);
        nb_case_status cs = nb_case_get_status(c);
        fails += cs == NB_CASE_VERIFY_FAILED;
        errors += cs == NB_CASE_ERROR;
        if (cs == NB_CASE_ERROR && nb_case_get_cause(c) == NB_ERR_INVALID_ARG && !impossible++)
            why = nb_case_get_message(c);
        if (cs == NB_CASE_SKIPPED && !skipped++ && !impossible)
            why = nb_case_get_message(c);
    }
    if (n && skipped == n) { /* nothing was timed: the options ask for what cannot run here */
        char msg[600];
        snprintf(msg, sizeof msg, "every case was skipped (%.500s)", why);
        return fail_kept(NB_ERR_INVALID_ARG, msg, kept);
    }
    if (!fails && errors && impossible == errors) /* the parameters, not the machine */
        return fail_kept(NB_ERR_INVALID_ARG,
                         impossible == 1 ? why : "cases cannot run here (see the report)", kept);
    if (fails) {
        char msg[100];
        snprintf(msg, sizeof msg, "%zu case(s) failed verification%s", fails,
                 kept[0] ? "" : " (see the report)");
        fail_kept(NB_ERR_VERIFY, msg, kept);
        return NB_EXIT_VERIFY;
    }
    if (errors) {
        char msg[100];
        snprintf(msg, sizeof msg, "%zu case(s) could not run%s", errors,
                 kept[0] ? "" : " (see the report)");
        fail_kept(NB_ERR_IO, msg, kept);
        return NB_EXIT_ENV;
    }
    return 0;
}

/* The ceilings the GPU cases' bounds use: the defaults for the run's GPU,
 * with --calibration's values over them (a warning when that file was
 * measured on another GPU); nothing for a run without a GPU. */
static nb_status set_ceilings(nb_cli_ctx *ctx, const nb_cli_run *run)
{
    const nb_env *e = &ctx->env;
    if (!e->has_gpu)
        return NB_OK;
    nb_ceilings c;
    nb_ceilings_default(&c, e->gpu_copy_Bps, e->sm_count, e->default_sm_mhz);
    if (run->calibration) {
        nb_ceilings_overlay(&c, &run->calibrated);
        if (c.calibration_gpu[0] && strcmp(c.calibration_gpu, e->gpu_name) && !ctx->quiet)
            fprintf(stderr, "nttbench: warning: --calibration %s was measured on %s, this run "
                            "is on %s: its ceilings may not hold here\n",
                    run->calibration, c.calibration_gpu, e->gpu_name);
    }
    nb_report_set_ceilings(ctx->report, &c);
    return NB_OK;
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
    int need_gpu = 0, rc = resolve_run(&run, vars, &nv, &need_gpu, quiet);
    if (rc != 0) {
        nb_cli_run_free(&run);
        return rc;
    }
    run.timing.log = nb_cli_log;
    run.timing.log_ctx = &quiet;
    run.timing.interrupt = &interrupt_signal;
    if (run.list) { /* the cases and the estimate; nothing is built or measured */
        /* a preview of a real command line: its --output is the run's, never the list's */
        if (output && !quiet)
            fprintf(stderr, "nttbench: note: --list prints to standard output; --output '%s' "
                            "is left for the run itself\n", output);
        list_job job = {&run, vars, nv};
        nb_status s = nb_write_file_atomic("-", write_list, &job);
        nb_cli_run_free(&run);
        return s == NB_OK ? 0 : nb_cli_fail(s, nb_last_error());
    }

    nb_cli_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.quiet = quiet;
    ctx.run = &run;
    nb_cli_profiler profiler;
    nb_cli_profile_setup(&profiler, &run, vars, nv, full_argc, full_argv, argc, argv, quiet);
    ctx.profiler = &profiler;
    ctx.start_s = nb_now_s();
    ctx.fmt = fmt;
    if (nb_cli_output_is_file(output))
        ctx.output = output;
    catch_interrupts();
    nb_status s = nb_report_create(&ctx.report, "run");
    if (s == NB_OK)
        s = nb_report_set_argv(ctx.report, full_argc, full_argv);
    if (s == NB_OK)
        s = nb_env_collect(&ctx.env, need_gpu, 1);
    /* --backend auto looked for a GPU and took the CPU: the report says why */
    if (s == NB_OK && !need_gpu && run.backend == NB_CLI_AUTO && !run.n_variants)
        snprintf(ctx.env.gpu_none_reason, sizeof ctx.env.gpu_none_reason, "%s",
                 nb_gpu_require() != NB_OK ? nb_last_error()
                                           : "no GPU variant of the chosen word sizes");
    if (s == NB_OK && need_gpu)
        s = nb_stream_create(&ctx.stream);
    if (s == NB_OK)
        s = set_ceilings(&ctx, &run);
    if (s == NB_OK) {
        nb_report_set_env(ctx.report, &ctx.env);
        nb_report_set_options(ctx.report, &run.timing);
        nb_nvtx_push("nttbench run");
        s = run_tiers(&run, &ctx, vars, nv);
        nb_nvtx_pop();
    }
    rc = finish_run(&ctx, s, fmt, output, quiet);
    sigaction(SIGINT, &before_int, NULL);
    sigaction(SIGTERM, &before_term, NULL);
    nb_stream_destroy(ctx.stream);
    nb_report_destroy(ctx.report);
    nb_cli_profile_free(&profiler);
    nb_cli_run_free(&run);
    return rc;
}

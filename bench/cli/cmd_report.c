/* `nttbench report RESULTS.json [--format md]`: the methods paragraph a
 * paper's evaluation section needs and the reporting checklist of
 * docs/methodology.md, filled in from a run report: what was timed, the
 * timer and blocking kernel, the cache state with flush bytes and rotation
 * sets, the stopping rule and the noise reached, samples, SM clocks seen. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/cli.h"
#include "bench/cli/paper.h"
#include "bench/report/compare.h"

void nb_cmd_report_help(FILE *f)
{
    fprintf(f, "usage: nttbench report RESULTS.json [--calibration FILE] [--format table|md]\n\n"
               "Prints the methods paragraph of a run (device, software, what was timed, timer,\n"
               "cache state, stopping rule and noise reached, samples, SM clocks), what bounds\n"
               "each GPU NTT case (compute, memory, launch or latency, against the ceilings the\n"
               "run recorded, or those of --calibration FILE from nttbench calibrate) and the\n"
               "reporting checklist, filled in from the report file ('-': standard input).\n");
}

/* Comma-joined distinct values. */
typedef struct strset {
    char s[256];
} strset;

static void add(strset *set, const char *v)
{
    if (!v || !*v)
        return;
    size_t len = strlen(v), n = strlen(set->s);
    for (const char *p = set->s; (p = strstr(p, v)); p += len)
        if ((p == set->s || p[-2] == ',') && (p[len] == ',' || p[len] == '\0'))
            return;
    if (n + len + 3 < sizeof set->s)
        snprintf(set->s + n, sizeof set->s - n, "%s%s", n ? ", " : "", v);
}

/* The set as a phrase: "a", "a and b", "a, b and c". */
static void spoken(const strset *set, char *buf, size_t n)
{
    snprintf(buf, n, "%s", set->s);
    char *last = strrchr(buf, ',');
    if (last && strlen(buf) + 4 < n) {
        memmove(last + 4, last + 1, strlen(last + 1) + 1);
        memcpy(last, " and", 4);
    }
}

static void add_int(strset *set, const json_t *v)
{
    char b[32];
    if (json_is_integer(v)) {
        snprintf(b, sizeof b, "%lld", (long long)json_integer_value(v));
        add(set, b);
    } else if (json_is_string(v)) {
        add(set, json_string_value(v));
    }
}

typedef struct range {
    double lo, hi, sum;
    size_t n;
} range;

static void see(range *r, double v)
{
    if (!isfinite(v))
        return;
    if (!r->n || v < r->lo)
        r->lo = v;
    if (!r->n || v > r->hi)
        r->hi = v;
    r->sum += v;
    r->n++;
}

typedef struct summary {
    strset tiers, variants, backends, modes, logn, limbs, bits, dirs, presets, stages, caches;
    strset levels, dnum, words, logq_targets;
    range samples, noise, flush_mib, sets, clock, lps, logq;
    size_t cases, timed, converged, stable, capped, timeouts, throttled, verified, blocked;
    size_t check_failed;  /* cases that failed their check before timing: not timed */
    size_t failed_after;  /* timed cases that failed the check after timing */
    size_t errored;       /* cases that erred */
    size_t noise_met, reservoir, contended;
    size_t own_oracle;    /* timed cases of the oracle's own variant (cpu-harvey) */
} summary;

static void summarise_case(summary *s, const nb_rf_case *c)
{
    const json_t *j = c->json, *p = json_object_get(j, "params");
    s->cases++;
    add(&s->tiers, c->tier);
    add(&s->variants, c->variant);
    add(&s->backends, c->backend);
    add_int(&s->logn, json_object_get(p, "log_n"));
    add_int(&s->limbs, json_object_get(p, "limbs"));
    add_int(&s->bits, json_object_get(p, "prime_bits"));
    char word[8];
    snprintf(word, sizeof word, "%u", c->word_bits);
    add(&s->words, word);
    add_int(&s->logq_targets, json_object_get(p, "log_q_target"));
    see(&s->logq, c->log_q);
    add_int(&s->dirs, json_object_get(p, "direction"));
    add_int(&s->presets, json_object_get(p, "preset"));
    add_int(&s->stages, json_object_get(p, "stage"));
    add_int(&s->levels, json_object_get(p, "level"));
    add_int(&s->dnum, json_object_get(p, "dnum"));
    const int failed = !strcmp(c->status, "verify-failed");
    s->check_failed += failed && !c->has_stats;
    s->failed_after += failed && c->has_stats;
    s->errored += !strcmp(c->status, "error");
    if (!c->has_stats)
        return;
    s->timed++;
    add(&s->modes, c->mode);
    see(&s->lps, (double)c->launches_per_sample);
    see(&s->samples, (double)c->n_recorded_samples);
    see(&s->noise, c->noise_pct);
    see(&s->clock, c->median_clock_mhz);
    s->noise_met += c->noise_target_met;
    s->reservoir += c->samples_reservoir;
    s->contended += c->contended;
    s->converged += !strcmp(c->stop_reason, "converged");
    s->stable += !strcmp(c->stop_reason, "noise-stable");
    s->capped += !strcmp(c->stop_reason, "max-samples");
    s->timeouts += !strcmp(c->stop_reason, "timeout");
    const json_t *stop = json_object_get(j, "stopping"), *cache = json_object_get(j, "cache");
    const json_t *thr = json_object_get(stop, "throttled_discarded");
    s->throttled += json_is_integer(thr) ? (size_t)json_integer_value(thr) : 0;
    s->blocked += json_is_true(json_object_get(j, "blocking_kernel"));
    const json_t *ver = json_object_get(j, "verification");
    const char *vb = json_string_value(json_object_get(ver, "before"));
    const char *va = json_string_value(json_object_get(ver, "after"));
    s->verified += vb && va && !strcmp(vb, "pass") && !strcmp(va, "pass");
    s->own_oracle += !strcmp(c->variant, "cpu-harvey");
    char desc[96];
    const json_t *sets = json_object_get(cache, "sets");
    int flush = json_is_true(json_object_get(cache, "flush"));
    long long k = json_is_integer(sets) ? (long long)json_integer_value(sets) : 1;
    snprintf(desc, sizeof desc, "%s%s%s", c->tier, flush ? " flush" : "",
             k > 1 ? " rotate" : "");
    add(&s->caches, desc);
    if (flush)
        see(&s->flush_mib, json_number_value(json_object_get(cache, "flush_bytes")) / 1048576.0);
    if (k > 1)
        see(&s->sets, (double)k);
}

static const char *jstr(const json_t *root, const char *path, const char *dflt)
{
    const json_t *v = nb_json_path(root, path);
    return json_is_string(v) ? json_string_value(v) : dflt;
}

static double jnum(const json_t *root, const char *path)
{
    const json_t *v = nb_json_path(root, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void command_line(const json_t *root, char *buf, size_t n)
{
    const json_t *a = json_object_get(root, "command_line");
    size_t u = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < json_array_size(a) && u < n; i++) {
        const char *w = json_string_value(json_array_get(a, i));
        const char *base = i == 0 && w && strrchr(w, '/') ? strrchr(w, '/') + 1 : w;
        u += (size_t)snprintf(buf + u, n - u, "%s%s", i ? " " : "", base ? base : "");
    }
}

static void device_text(const json_t *env, char *buf, size_t n)
{
    if (json_is_object(nb_json_path(env, "gpu")))
        snprintf(buf, n, "%s (compute capability %s, %.0f SMs, %.0f MiB L2, default SM clock "
                         "%.0f MHz, memory clock %.0f MHz, ECC %s; driver %s, CUDA runtime %s)",
                 jstr(env, "gpu.name", "unknown GPU"), jstr(env, "gpu.compute_capability", "?"),
                 jnum(env, "gpu.sm_count"), jnum(env, "gpu.l2_bytes") / 1048576.0,
                 jnum(env, "gpu.default_sm_clock_mhz"), jnum(env, "gpu.memory_clock_mhz"),
                 jstr(env, "gpu.ecc", "unknown"), jstr(env, "gpu.nvml_driver", "unknown"),
                 jstr(env, "gpu.cuda_runtime", "unknown"));
    else
        snprintf(buf, n, "%s (%.0f cores, %.0f OpenMP thread%s, %.0f MiB last-level cache%s)",
                 jstr(env, "host.cpu", "unknown CPU"), jnum(env, "host.cores"),
                 jnum(env, "host.omp_threads"), jnum(env, "host.omp_threads") == 1 ? "" : "s",
                 jnum(env, "host.llc_bytes") / 1048576.0,
                 strcmp(jstr(env, "host.llc_source", ""), "NB_HOST_LLC_BYTES")
                     ? ""
                     : " as NB_HOST_LLC_BYTES set it, not the one the host reports: cold "
                       "cases flushed and rotated past that size");
}

static void timer_text(const summary *s, char *buf, size_t n)
{
    int gpu = strstr(s->backends.s, "gpu") != NULL, cpu = strstr(s->backends.s, "cpu") != NULL;
    size_t u = (size_t)snprintf(buf, n, "%s%s%s; timing mode %s, ",
                                gpu ? "CUDA events on the workload's stream" : "",
                                gpu && cpu ? "; CPU: " : "",
                                cpu ? "CLOCK_MONOTONIC around the call" : "",
                                s->modes.s[0] ? s->modes.s : "-");
    if (u < n)
        u += (size_t)(s->lps.lo == s->lps.hi
                          ? snprintf(buf + u, n - u, "%.0f launch%s per sample", s->lps.lo,
                                     s->lps.lo == 1 ? "" : "es")
                          : snprintf(buf + u, n - u, "%.0f..%.0f launches per sample",
                                     s->lps.lo, s->lps.hi));
    if (s->blocked && u < n)
        snprintf(buf + u, n - u, "; %zu of %zu timed cases behind a blocking kernel (it holds "
                 "the stream until start event, launch and stop event are queued, so host "
                 "launch latency is excluded)", s->blocked, s->timed);
}

static void cache_text(const summary *s, char *buf, size_t n)
{
    size_t u = (size_t)snprintf(buf, n, "%s", s->caches.s[0] ? s->caches.s : "-");
    if (s->flush_mib.n && u < n)
        u += (size_t)snprintf(buf + u, n - u, "; flush: %.0f MiB read and written before "
                              "every sample", s->flush_mib.hi);
    if (s->sets.n && u < n)
        snprintf(buf + u, n - u, "; rotation through %.0f..%.0f buffer sets (at least 3x the "
                 "cache between two uses of a set)", s->sets.lo, s->sets.hi);
}

static void stop_text(const json_t *opt, const summary *s, char *buf, size_t n)
{
    char noise[96] = "noise unknown (one sample a case)"; /* no case had two samples */
    if (s->noise.n)
        snprintf(noise, sizeof noise, "noise %.2f..%.2f %% (mean %.2f %%)%s", s->noise.lo,
                 s->noise.hi, s->noise.sum / (double)s->noise.n,
                 s->noise.n < s->timed ? ", unknown in the cases of one sample" : "");
    snprintf(buf, n, "at least %.0f samples and %.3g s of measured time, then until the "
                     "relative standard deviation is at most %.3g %% or its estimate is stable; "
                     "timeout %.3g s, at most %.0f samples, %.0f warm-up samples. Reached: %zu "
                     "converged, %zu noise-stable, %zu at the sample cap, %zu at the timeout; "
                     "noise target met in %zu of %zu cases; %s",
             jnum(opt, "min_samples"), jnum(opt, "min_time_s"), jnum(opt, "max_noise_pct"),
             jnum(opt, "timeout_s"), jnum(opt, "max_samples"), jnum(opt, "warmup_samples"),
             s->converged, s->stable, s->capped, s->timeouts, s->noise_met, s->timed, noise);
}

static void clock_text(const json_t *env, const summary *s, char *buf, size_t n)
{
    if (!s->clock.n)
        snprintf(buf, n, "not measured (CPU run)");
    else
        snprintf(buf, n, "median SM clock per case %.0f..%.0f MHz (default %.0f MHz); %zu "
                         "samples discarded as throttled",
                 s->clock.lo, s->clock.hi, jnum(env, "gpu.default_sm_clock_mhz"), s->throttled);
}

static void sizes_text(const summary *s, char *buf, size_t n)
{
    const struct {
        const char *name;
        const strset *v;
    } parts[] = {{"log N", &s->logn},        {"limbs", &s->limbs},   {"prime bits", &s->bits},
                 {"word bits", &s->words},   {"log Q targets", &s->logq_targets},
                 {"direction", &s->dirs},    {"preset", &s->presets}, {"stage", &s->stages},
                 {"level", &s->levels},      {"dnum", &s->dnum}};
    size_t u = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof parts / sizeof parts[0] && u < n; i++)
        if (parts[i].v->s[0])
            u += (size_t)snprintf(buf + u, n - u, "%s%s %s", u ? "; " : "", parts[i].name,
                                  parts[i].v->s);
    if (s->logq.n && u < n) /* the modulus each case's primes make */
        snprintf(buf + u, n - u, "%slog Q %.0f..%.0f bits", u ? "; " : "", s->logq.lo,
                 s->logq.hi);
}

typedef struct report_ctx {
    const nb_result_file *rf;
    int md;
    const nb_ceilings *ceilings; /* --calibration (NULL: the file's) */
} report_ctx;

static void item(FILE *f, int md, int ok, const char *name, const char *value)
{
    fprintf(f, md ? "- [%c] **%s**: %s\n" : "  [%c] %s: %s\n", ok ? 'x' : ' ', name, value);
}

/* environment.build as one phrase ("gcc 12.2.0, buildtype=release -O3,
 * CUDA sm_90 compute_80, OpenMP on"); "not recorded" without it. */
static void build_text(const json_t *env, char *buf, size_t n)
{
    const json_t *b = nb_json_path(env, "build");
    if (!json_is_object(b)) {
        snprintf(buf, n, "not recorded in this file");
        return;
    }
    char archs[256] = "";
    size_t u = 0, i;
    const json_t *a;
    json_array_foreach(json_object_get(b, "cuda_architectures"), i, a)
        if (json_is_string(a) && u < sizeof archs)
            u += (size_t)snprintf(archs + u, sizeof archs - u, "%s%s", u ? " " : "",
                                  json_string_value(a));
    snprintf(buf, n, "%s, %s, CUDA %s, OpenMP %s", jstr(b, "compiler", "unknown compiler"),
             jstr(b, "flags", "unknown flags"), archs[0] ? archs : "none",
             json_is_true(json_object_get(b, "openmp")) ? "on" : "off");
}

static nb_status write_report(void *ctx, FILE *f)
{
    const report_ctx *r = ctx;
    const json_t *root = nb_result_file_json(r->rf), *env = nb_result_file_env(r->rf);
    const json_t *opt = nb_result_file_options(r->rf);
    summary s;
    memset(&s, 0, sizeof s);
    for (size_t i = 0; i < nb_result_file_case_count(r->rf); i++)
        summarise_case(&s, nb_result_file_case(r->rf, i));
    char dev[512], timer[1024], cache[1024], stop[1024], clk[256], cmd[2048], sizes[2048];
    char tiers[300], variants[300], host[300] = "";
    spoken(&s.tiers, tiers, sizeof tiers);
    spoken(&s.variants, variants, sizeof variants);
    if (json_is_object(nb_json_path(env, "gpu"))) /* a CPU run's device is the host */
        snprintf(host, sizeof host, ", host %s", jstr(env, "host.cpu", "unknown"));
    device_text(env, dev, sizeof dev);
    timer_text(&s, timer, sizeof timer);
    cache_text(&s, cache, sizeof cache);
    stop_text(opt, &s, stop, sizeof stop);
    clock_text(env, &s, clk, sizeof clk);
    command_line(root, cmd, sizeof cmd);
    sizes_text(&s, sizes, sizeof sizes);
    fprintf(f, r->md ? "## Methods\n\n" : "Methods\n\n");
    fprintf(f, "We timed the %s tier%s of %s with nttbench %s (commit %s) on %s%s, on %s. "
               "Sizes: %s. Timer: %s. Cache state: %s. Stopping rule: %s. Samples per case: "
               "%.0f..%.0f. SM clocks: %s. Every timed case was checked bit-exact before and "
               "after timing against nttbench's CPU oracle (the cpu-harvey NTT, and for CKKS "
               "stages the CPU pipeline over it, which its test suite checks bit-exact against "
               "a GMP reference) (%zu of %zu passed). We report the "
               "median with its distribution-free 95 %% confidence interval.\n\n",
            tiers, strchr(s.tiers.s, ',') ? "s" : "", variants,
            jstr(env, "nttbench_version", "?"), jstr(env, "git_commit", "unknown"), dev, host,
            jstr(env, "timestamp_utc", "an unknown date"),
            sizes, timer, cache, stop, s.samples.lo, s.samples.hi, clk, s.verified, s.timed);
    int one = s.check_failed == 1;
    if (s.check_failed)
        fprintf(f, "Not timed: %zu case%s failed %s check against the oracle before timing, so "
                   "%s result%s wrong (status `verify-failed` in the file).\n\n",
                s.check_failed, one ? "" : "s", one ? "its" : "their", one ? "its" : "their",
                one ? " is" : "s are");
    one = s.failed_after == 1;
    if (s.failed_after)
        fprintf(f, "%zu timed case%s failed the check after timing: %s of wrong output "
                   "(status `verify-failed` in the file).\n\n",
                s.failed_after, one ? "" : "s", one ? "its time is" : "their times are");
    if (s.errored)
        fprintf(f, "%zu case%s erred (status `error` in the file).\n\n", s.errored,
                s.errored == 1 ? "" : "s");
    const nb_rf_completeness done = nb_result_file_completeness(r->rf, NULL, 0);
    const json_t *planned = json_object_get(root, "cases_planned");
    if (done == NB_RF_INTERRUPTED || done == NB_RF_INCOMPLETE) {
        fprintf(f, "%s: the file holds %zu case%s", done == NB_RF_INTERRUPTED
                ? "The sweep was interrupted by a signal" : "The sweep had not finished when the "
                "file was written", s.cases, s.cases == 1 ? "" : "s");
        if (json_is_integer(planned))
            fprintf(f, " of the %lld planned", (long long)json_integer_value(planned));
        fprintf(f, ".\n\n");
    } else if (done == NB_RF_SHORT) {
        fprintf(f, "The file holds %zu of the %lld planned cases although its sweep finished: "
                   "cases were removed from it after the run.\n\n",
                s.cases, (long long)json_integer_value(planned));
    }
    if (s.contended)
        fprintf(f, "The host was contended during %zu of the %zu timed cases (other processes, "
                   "steal time or preemption: the case's `contended` flag and reason): their "
                   "times are upper bounds on what the code needs on a quiet host, not its "
                   "speed.\n\n",
                s.contended, s.timed);
    if (s.reservoir)
        fprintf(f, "The file stores a seeded reservoir sample of the samples of %zu case%s "
                   "(the statistics above use every sample).\n\n",
                s.reservoir, s.reservoir > 1 ? "s" : "");
    int calibrated = 0;
    const int bounds = nb_cli_report_bounds(f, r->rf, r->ceilings, r->md, &calibrated);
    fprintf(f, r->md ? "Command: `%s`\n\n## Reporting checklist\n\n" : "Command: %s\n\n"
                                                                       "Reporting checklist\n",
            cmd);
    const int gpu = json_is_object(nb_json_path(env, "gpu"));
    item(f, r->md, env != NULL, "device, driver and toolkit", dev);
    item(f, r->md, !gpu || s.clock.n, "SM clocks seen and throttling", clk);
    item(f, r->md, !gpu || strcmp(jstr(env, "gpu.ecc", "unavailable"), "unavailable"), "ECC",
         jstr(env, "gpu.ecc", "not applicable (CPU)"));
    item(f, r->md, s.timed > 0, "timer and what a sample includes", timer);
    item(f, r->md, s.caches.s[0] != 0, "cache state, flush bytes, rotation sets", cache);
    item(f, r->md, s.logn.s[0] != 0, "problem sizes and primes", sizes);
    item(f, r->md, opt != NULL, "stopping rule and noise reached", stop);
    item(f, r->md, s.timed > 0, "statistic", "median with distribution-free 95 % CI");
    char ver[400];
    int k = snprintf(ver, sizeof ver, "%zu of %zu timed cases passed before and after timing",
                     s.verified, s.timed);
    if (s.check_failed && k > 0 && (size_t)k < sizeof ver)
        snprintf(ver + k, sizeof ver - (size_t)k, "; %zu case%s failed %s check before timing "
                 "and %s not timed", s.check_failed, s.check_failed == 1 ? "" : "s",
                 s.check_failed == 1 ? "its" : "their", s.check_failed == 1 ? "was" : "were");
    if (s.own_oracle && k > 0 && (size_t)k < sizeof ver) /* k: the text's length so far */
        snprintf(ver + strlen(ver), sizeof ver - strlen(ver), "; %zu of them cpu-harvey's, the "
                 "oracle itself: checked against GMP by the test suite, here only against "
                 "another call", s.own_oracle);
    item(f, r->md, s.timed > 0 && s.verified == s.timed && !s.check_failed,
         "verification against the CPU oracle (GMP-checked)", ver);
    char build[768];
    build_text(env, build, sizeof build);
    item(f, r->md, json_is_object(nb_json_path(env, "build")), "compiler and build options",
         build);
    item(f, r->md, cmd[0] != 0, "software version, commit, command line", cmd);
    if (bounds)
        item(f, r->md, calibrated, "bound of each GPU case against measured ceilings",
             calibrated ? "copy bandwidth, butterfly ceiling and launch cost measured"
                        : "some ceilings are defaults: pass --calibration (nttbench calibrate)");
    return NB_OK;
}

/* NB_ERR_INVALID_ARG naming the cases' statuses when no case was timed: a
 * methods paragraph would describe samples, noise and checks that do not
 * exist. */
static nb_status some_case_timed(const nb_result_file *rf, const char *path)
{
    strset statuses;
    memset(&statuses, 0, sizeof statuses);
    const size_t n = nb_result_file_case_count(rf);
    for (size_t i = 0; i < n; i++) {
        const nb_rf_case *c = nb_result_file_case(rf, i);
        if (c->has_stats)
            return NB_OK;
        add(&statuses, c->status);
    }
    return nb_set_error(NB_ERR_INVALID_ARG, "%s: none of its %zu case%s was timed (%s): nothing "
                        "to report", path, n, n == 1 ? "" : "s", statuses.s);
}

static const nb_cli_option report_options[] = {
    {"calibration", 1, "FILE   ceilings from nttbench calibrate"}, {NULL, 0, NULL}};

const nb_cli_option *const nb_cli_report_tables[] = {report_options, NULL};

int nb_cmd_report(int argc, char **argv, nb_format fmt, const char *output, int quiet)
{
    const nb_cli_option *const *tables = nb_cli_report_tables;
    nb_ceilings calib;
    const char *file = NULL, *calibration = NULL;
    for (int i = 0; i < argc;) {
        const char *n, *v;
        const int r = nb_cli_next_option(argc, argv, &i, tables, &n, &v);
        if (r < 0) /* an unknown option, a missing value, --calibration twice */
            return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
        if (r > 0) {
            calibration = v;
            continue;
        }
        if (file) {
            char msg[600];
            snprintf(msg, sizeof msg, "report reads one result file ('%.250s', then '%.250s')",
                     file, argv[i]);
            return nb_cli_fail(NB_ERR_INVALID_ARG, msg);
        }
        file = argv[i++]; /* "-": standard input */
    }
    if (!file)
        return nb_cli_fail(NB_ERR_INVALID_ARG, "report needs one result file: nttbench report "
                                               "RESULTS.json [--calibration FILE] [--format md]");
    if (calibration && !strcmp(calibration, "-") && !strcmp(file, "-"))
        return nb_cli_fail(NB_ERR_INVALID_ARG, "report reads one file from standard input "
                                               "('-'): the results or the calibration");
    if (calibration) {
        nb_ceilings_default(&calib, 0, 0, 0);
        if (nb_ceilings_load(&calib, calibration) != NB_OK)
            return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
    }
    if (fmt != NB_FORMAT_TABLE && fmt != NB_FORMAT_MD)
        return nb_cli_fail(NB_ERR_INVALID_ARG, "report writes text or markdown (--format md)");
    nb_result_file *rf = NULL;
    nb_status s = nb_result_file_load(&rf, file);
    if (s == NB_OK && nb_result_file_case_count(rf) == 0)
        s = nb_set_error(NB_ERR_INVALID_ARG, "%s: no cases: nothing to report", file);
    if (s == NB_OK)
        s = some_case_timed(rf, file);
    if (s != NB_OK) {
        nb_result_file_destroy(rf);
        return nb_cli_fail(NB_ERR_INVALID_ARG, nb_last_error());
    }
    nb_cli_warn_incomplete(rf, quiet);
    report_ctx c = {rf, fmt == NB_FORMAT_MD, calibration ? &calib : NULL};
    s = nb_write_file_atomic(output ? output : "-", write_report, &c);
    nb_result_file_destroy(rf);
    return s == NB_OK ? 0 : nb_cli_fail(NB_ERR_IO, nb_last_error());
}

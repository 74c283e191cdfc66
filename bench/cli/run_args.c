/* The options of `nttbench run`: sweep axes, tiers and cache states, the
 * timing options it shares with calibrate, tier-specific options, their
 * defaults (a short sensible benchmark) and the help text. */
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
    {"batch-samples", 1, "K      GPU: at most K samples, each with its own events, queued behind\n"
                         "                         one blocking kernel and read after one\n"
                         "                         synchronisation (1: one at a time; batches\n"
                         "                         shift warm medians, see docs/methodology.md)"},
    {"queue-ahead", 1, "0|1    GPU NTT cases, samples one at a time: queue the next sample,\n"
                       "                         held by its own blocking kernel, while one runs\n"
                       "                         (1), or only after it was read (0, the loop of 0.4)"},
    {NULL, 0, NULL},
};

static const nb_cli_option run_options[] = {
    {"tier", 1, "LIST   ntt,stage; warm and cold name the ntt tier in that cache state "
                "(warm,cold)"},
    {"cache", 1, "LIST   warm,cold: cache states of the tiers named ntt or stage "
                 "(ntt warm,cold; stage cold)"},
    {"variant", 1, "LIST   variants by name (all of the backend and word size; see "
                   "'nttbench list')"},
    {"word", 1, "LIST   32,64: word sizes of the variants chosen without --variant (64)"},
    {"backend", 1, "B      cpu | gpu | auto: GPU variants when a device is present (auto)"},
    {"logn", 1, "LIST   log2 N: 12:17, 10:16:2 or 12,14 (16)"},
    {"limbs", 1, "LIST   RNS limbs L per transform (GPU 1,8,32; CPU 1,8)"},
    {"logq", 1, "LIST   moduli in bits instead of --limbs: per case the smallest L whose\n"
                "                         primes' product Q has log2 Q >= BITS - bits/2"},
    {"bits", 1, "LIST   prime sizes in bits, q < 2^bits (60 for 64-bit words, 31 for 32-bit)"},
    {"direction", 1, "LIST   forward,inverse (forward)"},
    {"mode", 1, "LIST   per-launch,batch,graph (per-launch)"},
    {"batch", 1, "K      launches per sample in batch and graph modes (10)"},
    {"cold", 1, "M      flush | rotate | both: what a cold cache state does (both)"},
    {"sets", 1, "K      buffer sets to rotate through (automatic: >= 3x the cache)"},
    {"l2-persist", 1, "F      warm cache: pin the input in L2, access-policy hit ratio F"},
    {"seed", 1, "N      input seed (time-based; recorded per case)"},
    {"calibration", 1, "FILE   GPU ceilings of the bounds from `nttbench calibrate --format json`\n"
                       "                         (default: the run's copy bandwidth, documented\n"
                       "                         butterfly and launch defaults)"},
    {"filter", 1, "REGEX  keep the cases whose name (--list shows it) matches; repeatable:\n"
                  "                         a case is kept when any matches"},
    {"list", 0, "       print the cases this command line would run, their count and a\n"
                "                         time estimate; run nothing"},
    {"dry-run", 0, "       the same as --list"},
    {"profile", 0, "       after each GPU case (NTT; stage on one GPU), one call of it\n"
                   "                         under Nsight Compute ($NB_NCU, else ncu on PATH,\n"
                   "                         else /usr/local/cuda/bin): per-kernel DRAM, L2,\n"
                   "                         issue slots, pipes, stalls"},
    {"profile-timeout", 1, "S      the most one case's profiler pass may take, seconds (60)"},
    {"progress", 0, "       progress lines on stderr from the start"},
    {"no-progress", 0, "       no progress lines"},
    {NULL, 0, NULL},
};

/* Not in the help: the target of a profiler pass (run_profile.c). */
static const nb_cli_option target_options[] = {
    {"profile-case", 1, "NAME   run this case only, one call under the profiler"},
    {NULL, 0, NULL},
};

const nb_cli_option *const nb_cli_run_tables[] = {run_options, nb_cli_timing_options,
                                                  nb_cli_stage_options, target_options, NULL};

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
    else if (!strcmp(name, "batch-samples"))
        *st = nb_cli_parse_size(v, name, 1, NB_BATCH_SAMPLES_MAX, &t->batch_samples);
    else if (!strcmp(name, "queue-ahead"))
        *st = nb_cli_parse_size(v, name, 0, 1, &t->queue_ahead);
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
    nb_cli_filter_free(&run->filter);
    nb_cli_stage_free(run);
}


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
        unsigned states = warm ? NB_CLI_STATE(NB_CACHE_WARM) : cold ? NB_CLI_STATE(NB_CACHE_COLD) : 0;
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
            run->cache_states |= NB_CLI_STATE(NB_CACHE_WARM);
        else if (!strcmp(words[i], "cold"))
            run->cache_states |= NB_CLI_STATE(NB_CACHE_COLD);
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
    if (!strcmp(name, "batch-samples") || !strcmp(name, "queue-ahead"))
        run->given_gpu_sampling = name;
    if (nb_cli_timing_set(&run->timing, name, v, &st))
        return st;
    if (!strcmp(name, "tier"))
        return parse_tiers(run, v);
    if (!strcmp(name, "cache"))
        return parse_caches(run, v);
    if (!strcmp(name, "variant")) {
        free(run->variant_storage);
        return nb_cli_parse_names(v, name, &run->variant_storage, run->variants, NB_CLI_MAX_LIST,
                                  &run->n_variants);
    }
    if (!strcmp(name, "backend")) {
        return nb_cli_parse_backend(v, &run->backend);
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
    if (!strcmp(name, "logq"))
        return nb_cli_parse_ulist(v, name, 1, 4096 * 62, run->log_q, NB_CLI_MAX_LIST,
                                  &run->n_log_q);
    if (!strcmp(name, "word")) {
        run->given_word = 1;
        return nb_cli_parse_words_bits(v, &run->words);
    }
    if (!strcmp(name, "bits")) {
        run->given_bits = 1;
        return nb_cli_parse_ulist(v, name, 20, 62, run->bits, NB_CLI_MAX_LIST, &run->n_bits);
    }
    if (!strcmp(name, "direction")) {
        run->given_direction = 1;
        return nb_cli_parse_directions(v, &run->directions);
    }
    if (!strcmp(name, "mode"))
        return parse_modes(run, v);
    if (!strcmp(name, "batch")) {
        run->given_batch = v;
        return nb_cli_parse_size(v, name, 1, 100000, &run->timing.batch);
    }
    if (!strcmp(name, "cold")) {
        run->given_cold = v;
        return nb_cold_parse(v, &run->timing.cache);
    }
    if (!strcmp(name, "sets")) {
        run->given_sets = v;
        return nb_cli_parse_size(v, name, 1, (size_t)1 << 22, &run->timing.rotate_sets);
    }
    if (!strcmp(name, "l2-persist"))
        return nb_cli_parse_double(v, name, 0, 1, &run->timing.l2_persist);
    if (!strcmp(name, "seed")) {
        run->seed_given = 1;
        return nb_cli_parse_u64(v, name, &run->seed);
    }
    if (!strcmp(name, "filter"))
        return nb_cli_filter_add(&run->filter, v);
    if (!strcmp(name, "calibration")) { /* read now, once: a bad file is a usage error */
        nb_ceilings_default(&run->calibrated, 0, 0, 0);
        run->calibration = v;
        return nb_ceilings_load(&run->calibrated, v);
    }
    if (!strcmp(name, "list") || !strcmp(name, "dry-run")) {
        run->list = 1;
        return NB_OK;
    }
    if (!strcmp(name, "progress") || !strcmp(name, "no-progress")) {
        const int on = !strcmp(name, "progress");
        if (run->progress == !on) /* the last would silently win */
            return nb_set_error(NB_ERR_INVALID_ARG, "--progress and --no-progress contradict "
                                "each other: give one");
        run->progress = on;
        return NB_OK;
    }
    if (!strcmp(name, "profile")) {
        run->profile = 1;
        return NB_OK;
    }
    if (!strcmp(name, "profile-timeout")) {
        run->given_profile_timeout = 1;
        return nb_cli_parse_double(v, name, 1, 3600, &run->profile_timeout_s);
    }
    if (!strcmp(name, "profile-case")) {
        run->profile_case = v;
        return NB_OK;
    }
    return nb_cli_stage_set(run, name, v);
}

int nb_cli_run_target_args(int argc, char **argv, char **out, int max)
{
    static const char *const dropped[] = {"profile", "profile-timeout", "filter", "seed",
                                          "list", "dry-run", "progress", "no-progress", NULL};
    const nb_cli_option *const *tables = nb_cli_run_tables;
    int n = 0;
    for (int i = 0; i < argc;) {
        const int from = i;
        const char *name = NULL, *value;
        if (nb_cli_next_option(argc, argv, &i, tables, &name, &value) <= 0)
            break; /* nb_cli_run_parse accepted these words: not reached */
        int drop = 0;
        for (size_t k = 0; dropped[k]; k++)
            drop |= !strcmp(name, dropped[k]);
        for (int k = from; k < i && !drop && n < max; k++)
            out[n++] = argv[k];
    }
    return n;
}

unsigned nb_cli_tier_states(const nb_cli_run *run, const nb_cli_tier *t)
{
    if (t->states)
        return t->states;
    return run->cache_states ? run->cache_states : t->tier->default_states;
}

/* An option of the NTT tiers in a run that times only the stage tier, whose
 * sets fix N, the primes and both directions: it would be ignored, and the
 * run taken for what it did not measure. --logn sizes a custom set
 * (--levels), so it stays there. */
static nb_status check_ntt_options_used(const nb_cli_run *run)
{
    for (size_t i = 0; i < run->n_tiers; i++)
        if (strcmp(run->tiers[i].tier->name, "stage"))
            return NB_OK;
    const nb_stage_tier_opts *so = nb_cli_stage_opts((nb_cli_run *)run);
    const char *given = run->given_limbs       ? "limbs"
                        : run->n_log_q         ? "logq"
                        : run->given_bits      ? "bits"
                        : run->given_direction ? "direction"
                        : run->given_logn && !(so && so->custom) ? "logn"
                                                                 : NULL;
    if (!given)
        return NB_OK;
    return nb_set_error(NB_ERR_INVALID_ARG, "--%s is an option of the NTT tiers, which this run "
                        "does not time: the stage tier's parameter sets fix N, the primes and "
                        "the directions (add --tier ntt, or leave --%s out%s)", given, given,
                        !strcmp(given, "logn") ? "; with --levels it sizes a custom set" : "");
}

/* --cache that no tier uses: every --tier entry names its cache state itself
 * (warm, cold), and differently, e.g. --tier warm --cache cold. */
static nb_status check_cache_used(const nb_cli_run *run)
{
    unsigned named = 0;
    for (size_t i = 0; i < run->n_tiers; i++) {
        if (!run->tiers[i].states)
            return NB_OK; /* this tier takes --cache */
        named |= run->tiers[i].states;
    }
    if (!run->cache_states || run->cache_states == named)
        return NB_OK;
    const unsigned w = NB_CLI_STATE(NB_CACHE_WARM), c = NB_CLI_STATE(NB_CACHE_COLD);
    const char *given = run->cache_states == (w | c) ? "warm,cold"
                        : run->cache_states == w   ? "warm" : "cold";
    const char *tiers = named == (w | c) ? "warm,cold" : named == w ? "warm" : "cold";
    return nb_set_error(NB_ERR_INVALID_ARG, "--cache %s contradicts --tier %s, which names the "
                        "NTT tier's cache state already (write --tier ntt --cache %s)", given,
                        tiers, given);
}

/* An option that shapes what no case of the run does, which would be
 * ignored: --cold or --sets without a cold cache state, --batch without the
 * batch or graph mode, --profile-timeout without --profile. */
static nb_status check_state_options_used(const nb_cli_run *run)
{
    unsigned states = 0;
    for (size_t i = 0; i < run->n_tiers; i++)
        states |= nb_cli_tier_states(run, &run->tiers[i]);
    int takes_cache = 0; /* a tier (ntt, stage) whose cache states --cache gives */
    for (size_t i = 0; i < run->n_tiers; i++)
        takes_cache |= !run->tiers[i].states;
    const char *cold = run->given_cold ? "cold" : run->given_sets ? "sets" : NULL;
    if (cold && !(states & NB_CLI_STATE(NB_CACHE_COLD)))
        return nb_set_error(NB_ERR_INVALID_ARG, "--%s %s shapes the cold cache state, which this "
                            "run does not time (add %s, or leave --%s out)", cold,
                            run->given_cold ? run->given_cold : run->given_sets,
                            takes_cache ? "cold to --cache" : "--tier cold", cold);
    int batched = 0;
    for (size_t i = 0; i < run->n_modes; i++)
        batched |= run->modes[i] != NB_MODE_PER_LAUNCH;
    if (run->given_batch && !batched)
        return nb_set_error(NB_ERR_INVALID_ARG, "--batch %s counts the launches of a sample in "
                            "the batch and graph modes, which this run does not time (add --mode "
                            "batch or graph, or leave --batch out)", run->given_batch);
    if (run->given_profile_timeout && !run->profile)
        return nb_set_error(NB_ERR_INVALID_ARG, "--profile-timeout bounds the profiler pass of "
                            "--profile, which this run does not make (add --profile, or leave "
                            "--profile-timeout out)");
    return NB_OK;
}

int nb_cli_run_parse(int argc, char **argv, nb_cli_run *run)
{
    memset(run, 0, sizeof *run);
    nb_bench_opts_default(&run->timing);
    run->timing.cache = NB_CACHE_COLD;
    run->tiers[0] = (nb_cli_tier){nb_tier_find("ntt"), NB_CLI_STATE(NB_CACHE_WARM) | NB_CLI_STATE(NB_CACHE_COLD)};
    run->n_tiers = 1;
    run->backend = NB_CLI_AUTO;
    run->words = NB_CLI_WORD(64);
    run->bits[0] = 60;
    run->n_bits = 1;
    run->directions = 1;
    run->modes[0] = NB_MODE_PER_LAUNCH;
    run->n_modes = 1;
    run->progress = -1;
    run->profile_timeout_s = 60;
    run->seed = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull;
    const nb_cli_option *const *tables = nb_cli_run_tables;
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
    if (run->n_log_q && run->given_limbs)
        return nb_set_error(NB_ERR_INVALID_ARG, "--logq and --limbs both size the modulus: "
                                                "give one of them"),
               NB_EXIT_USAGE;
    for (size_t i = 0; i < run->n_tiers; i++)
        if (run->timing.l2_persist >= 0 &&
            (nb_cli_tier_states(run, &run->tiers[i]) & ~NB_CLI_STATE(NB_CACHE_WARM)))
            return nb_set_error(NB_ERR_INVALID_ARG,
                                "--l2-persist pins data in L2: use it with a warm cache only "
                                "(--tier warm, or --cache warm)"),
                   NB_EXIT_USAGE;
    if (check_cache_used(run) != NB_OK || nb_cli_stage_check(run) != NB_OK ||
        check_ntt_options_used(run) != NB_OK || check_state_options_used(run) != NB_OK)
        return NB_EXIT_USAGE;
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
               "--limbs 1,8), 64-bit variants only (--word 64); --word 32,64 adds the\n"
               "32-bit ones, whose primes default to 31 bits (--bits 60 for 64-bit words).\n"
               "--logq BITS picks L per case: the smallest L whose primes' product Q has\n"
               "log2 Q >= BITS - bits/2 (never half a prime under BITS);\n"
               "each case's label shows that L and its log Q.\n"
               "A case's name, as --list prints it and --filter matches it: its cache state,\n"
               "variant and label, then its mode (\"cold cpu-harvey fwd logn=16 L=8 q60 w64\n"
               "logQ=480.0 per-launch\", \"cold cpu-harvey keyswitch test-medium l=15 per-launch\").\n"
               "What is timed (--tier ntt, stage) and the cache state (--cache warm, cold;\n"
               "--cold says what cold does) are separate choices: --tier stage --cache warm\n"
               "times the stages with a warm cache.\n");
}

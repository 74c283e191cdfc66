/* The stage tier's options of `nttbench run` (--stage, --preset, --level,
 * custom sets from --levels/--dnum/--qbits/--pbits with the run's --logn,
 * --rounding, --gpus, --breakdown-passes, --no-micro, --trace), parsed into
 * the library's nb_stage_tier_opts, and the preset list of `nttbench list`.
 * The sweep itself is the library's (bench/tiers/stage_sweep.c). */
#include <stdlib.h>
#include <string.h>

#include "bench/cli/cli.h"
#include "ntt/arith.h"

const nb_cli_option nb_cli_stage_options[] = {
    {"stage", 1, "LIST   modup,moddown,keyswitch,rescale (all four)"},
    {"preset", 1, "LIST   CKKS parameter sets, see 'nttbench list' (GPU ckks16-l30-d3; "
                  "CPU test-medium)"},
    {"level", 1, "LIST   levels the stages run at (the set's top level L)"},
    {"levels", 1, "L      custom set: L+1 ciphertext primes, N from --logn (instead of presets)"},
    {"dnum", 1, "D      custom set: gadget digits (3)"},
    {"qbits", 1, "B      custom set: bits of the scaling primes (51)"},
    {"q0bits", 1, "B      custom set: bits of q_0 (the --pbits value)"},
    {"pbits", 1, "B      custom set: bits of the special primes (62)"},
    {"rounding", 1, "R      rescale: floor | round (floor)"},
    {"gpus", 1, "LIST   GPU counts of the GPU cases: limbs split across GPUs 0..N-1 (1)"},
    {"breakdown-passes", 1, "N      marked launches of the breakdown pass (max(min-samples, 20))"},
    {"no-micro", 0, "       skip the warm/cold NTT micro-benchmarks the stages are compared to"},
    {"trace", 0, "       GPU: trace the kernels of one more marked launch with CUPTI (per step: "
                 "kernel time, busy, gaps, overlap)"},
    {NULL, 0, NULL},
};

typedef struct stage_cli {
    nb_stage_tier_opts o;
    char *preset_storage;
    char *presets[NB_CLI_MAX_LIST];
    size_t levels[NB_CLI_MAX_LIST];
    size_t gpus[NB_CLI_MAX_LIST];
    const char *custom_option; /* the first custom-set option given (--dnum, ...), or NULL */
    const char *first_option;  /* the first stage option given, or NULL */
    int given_rounding;        /* --rounding was given */
} stage_cli;

static stage_cli *opts_of(nb_cli_run *run)
{
    if (!run->stage) {
        stage_cli *c = calloc(1, sizeof *c);
        if (!c)
            return NULL;
        nb_stage_tier_opts_default(&c->o);
        run->stage = c;
    }
    return run->stage;
}

void nb_cli_stage_free(nb_cli_run *run)
{
    if (!run || !run->stage)
        return;
    stage_cli *c = run->stage;
    free(c->preset_storage);
    free(c);
    run->stage = NULL;
}

/* The width of the longest preset name (the table's first column). */
static int name_width(void)
{
    size_t w = 4;
    for (size_t i = 0; i < nb_ckks_preset_count(); i++) {
        const size_t n = strlen(nb_ckks_preset_at(i)->name);
        w = n > w ? n : w;
    }
    return (int)w;
}

/* A list of --NAME values in [lo, hi] (nb_cli_parse_ulist's syntax, at most
 * NB_CLI_MAX_LIST, repeats dropped, order kept) into out[0..*n). */
static nb_status parse_size_list(const char *v, const char *name, unsigned long long lo,
                                 unsigned long long hi, size_t *out, size_t *n)
{
    unsigned long long x[NB_CLI_MAX_LIST];
    NB_TRY(nb_cli_parse_ulist(v, name, lo, hi, x, NB_CLI_MAX_LIST, n));
    for (size_t i = 0; i < *n; i++)
        out[i] = (size_t)x[i];
    return NB_OK;
}

nb_status nb_cli_stage_check(nb_cli_run *run)
{
    const stage_cli *c = run->stage;
    int stage_tier = 0;
    for (size_t i = 0; i < run->n_tiers; i++)
        stage_tier |= !strcmp(run->tiers[i].tier->name, "stage");
    if (c && c->first_option && !stage_tier)
        return nb_set_error(NB_ERR_INVALID_ARG, "--%s is an option of the stage tier, which "
                            "this run does not time (add --tier stage, or leave --%s out)",
                            c->first_option, c->first_option);
    int rescale = c && c->o.n_stages == 0; /* every stage by default */
    for (size_t i = 0; c && i < c->o.n_stages; i++)
        rescale |= c->o.stages[i] == NB_CKKS_STAGE_RESCALE;
    if (c && c->given_rounding && !rescale)
        return nb_set_error(NB_ERR_INVALID_ARG, "--rounding shapes rescale, which this run does "
                            "not time (add rescale to --stage, or leave --rounding out)");
    if (!c || !c->custom_option)
        return NB_OK;
    if (c->o.n_presets)
        return nb_set_error(NB_ERR_INVALID_ARG, "--%s builds a custom parameter set and "
                            "--preset names fixed ones: give one or the other (a preset cannot "
                            "be changed; run twice for both)", c->custom_option);
    if (!c->o.custom)
        return nb_set_error(NB_ERR_INVALID_ARG, "--%s belongs to a custom parameter set: give "
                            "--levels L too (or --preset NAME for a fixed set)",
                            c->custom_option);
    return NB_OK;
}

unsigned nb_cli_stage_words(const nb_cli_run *run)
{
    const stage_cli *c = run->stage;
    unsigned words = 0;
    for (size_t i = 0; c && i < c->o.n_presets; i++) {
        const nb_ckks_preset *pr = nb_ckks_preset_find(c->presets[i]);
        if (pr)
            words |= NB_CLI_WORD(pr->spec.word_bits == 32 ? 32 : 64);
    }
    return words;
}

const nb_stage_tier_opts *nb_cli_stage_opts(nb_cli_run *run)
{
    stage_cli *c = opts_of(run);
    return c ? &c->o : NULL;
}

nb_status nb_cli_parse_stages(const char *list, nb_ckks_stage out[4], size_t *n)
{
    char *store = NULL, *words[NB_CLI_MAX_LIST];
    size_t k = 0;
    *n = 0;
    NB_TRY(nb_cli_parse_names(list, "stage", &store, words, NB_CLI_MAX_LIST, &k));
    nb_status s = NB_OK;
    for (size_t i = 0; i < k && s == NB_OK; i++) {
        nb_ckks_stage one;
        if (nb_stage_parse(words[i], &one) != NB_OK || i >= 4) /* past 4: not a new name */
            s = nb_set_error(NB_ERR_INVALID_ARG,
                             "--stage '%s': modup, moddown, keyswitch or rescale", words[i]);
        else
            out[i] = one;
    }
    free(store);
    *n = s == NB_OK ? k : 0; /* four names at most once the repeats are gone */
    return s;
}

nb_status nb_cli_stage_set(nb_cli_run *run, const char *name, const char *v)
{
    stage_cli *c = opts_of(run);
    if (!c)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of host memory");
    nb_stage_tier_opts *o = &c->o;
    if (!c->first_option)
        c->first_option = name;
    if (!strcmp(name, "stage"))
        return nb_cli_parse_stages(v, o->stages, &o->n_stages);
    if (!strcmp(name, "preset")) {
        free(c->preset_storage);
        c->preset_storage = NULL;
        o->n_presets = 0;
        NB_TRY(nb_cli_parse_names(v, name, &c->preset_storage, c->presets, NB_CLI_MAX_LIST,
                                  &o->n_presets));
        o->presets = (const char *const *)c->presets;
        for (size_t i = 0; i < o->n_presets; i++)
            if (!nb_ckks_preset_find(c->presets[i]))
                return nb_set_error(NB_ERR_INVALID_ARG,
                                    "--preset: no CKKS preset named '%s' (see 'nttbench list')",
                                    c->presets[i]);
        return NB_OK;
    }
    if (!strcmp(name, "level")) {
        NB_TRY(parse_size_list(v, name, 0, 255, c->levels, &o->n_levels));
        o->levels = c->levels;
        return NB_OK;
    }
    static const char *const custom[] = {"levels", "dnum", "qbits", "pbits", "q0bits"};
    for (size_t i = 0; i < sizeof custom / sizeof custom[0]; i++)
        if (!strcmp(name, custom[i]) && !c->custom_option)
            c->custom_option = custom[i];
    if (!strcmp(name, "levels")) {
        o->custom = 1;
        return nb_cli_parse_size(v, name, 1, 255, &o->custom_levels);
    }
    if (!strcmp(name, "dnum"))
        return nb_cli_parse_size(v, name, 1, 64, &o->dnum);
    if (!strcmp(name, "qbits"))
        return nb_cli_parse_size(v, name, 3, NB_MAX_PRIME_BITS, &o->q_bits);
    if (!strcmp(name, "pbits"))
        return nb_cli_parse_size(v, name, 3, NB_MAX_PRIME_BITS, &o->p_bits);
    if (!strcmp(name, "q0bits"))
        return nb_cli_parse_size(v, name, 3, NB_MAX_PRIME_BITS, &o->q0_bits);
    if (!strcmp(name, "rounding")) {
        c->given_rounding = 1;
        if (!strcmp(v, "floor"))
            o->rounding = NB_CKKS_RESCALE_FLOOR;
        else if (!strcmp(v, "round"))
            o->rounding = NB_CKKS_RESCALE_ROUND;
        else
            return nb_set_error(NB_ERR_INVALID_ARG, "--rounding '%s': floor or round", v);
        return NB_OK;
    }
    if (!strcmp(name, "gpus")) {
        NB_TRY(parse_size_list(v, name, 1, 64, c->gpus, &o->n_gpus));
        o->gpus = c->gpus;
        return NB_OK;
    }
    if (!strcmp(name, "breakdown-passes"))
        return nb_cli_parse_size(v, name, 1, 100000, &o->passes);
    if (!strcmp(name, "no-micro")) {
        o->micro = 0;
        return NB_OK;
    }
    if (!strcmp(name, "trace")) {
        o->trace = 1;
        return NB_OK;
    }
    return nb_set_error(NB_ERR_INVALID_ARG, "run: unknown option --%s", name);
}

/* "62/51/62", or for a base of several primes and levels of prime pairs
 * "2x31/pairs of 51/31" (the bits of each q_0 prime, of a level's prime or
 * pair's product, and of each special prime). */
static void preset_bits(const nb_ckks_spec *s, char *out, size_t n)
{
    char q0[16];
    if (s->q0_count > 1)
        snprintf(q0, sizeof q0, "%ux%u", s->q0_count, s->q0_bits);
    else
        snprintf(q0, sizeof q0, "%u", s->q0_bits);
    snprintf(out, n, "%s/%s%u/%u", q0, s->rescale_primes > 1 ? "pairs of " : "", s->q_bits,
             s->p_bits);
}

void nb_cli_stage_list_text(FILE *f, int md)
{
    if (md) {
        fprintf(f, "\n### CKKS presets (stage tier)\n\n"
                   "| preset | word | log N | L | dnum | alpha | q0/q/p bits | source |\n"
                   "|---|---|---|---|---|---|---|---|\n");
    } else {
        fprintf(f, "\nCKKS presets (stage tier: --preset NAME):\n");
        fprintf(f, "  %-*s %4s %5s %4s %5s %6s %20s  %s\n", name_width(), "name", "word", "logN",
                "L", "dnum", "alpha", "q0/q/p bits", "source");
    }
    for (size_t i = 0; i < nb_ckks_preset_count(); i++) {
        const nb_ckks_preset *p = nb_ckks_preset_at(i);
        const nb_ckks_spec *s = &p->spec;
        const unsigned alpha = (s->levels + 1 + s->dnum - 1) / s->dnum;
        const unsigned word = s->word_bits ? s->word_bits : 64;
        char bits[48];
        preset_bits(s, bits, sizeof bits);
        if (md)
            fprintf(f, "| %s | %u | %u | %u | %u | %u | %s | %s |\n", p->name, word, s->log_n,
                    s->levels, s->dnum, alpha, bits, p->source);
        else
            fprintf(f, "  %-*s %4u %5u %4u %5u %6u %20s  %s\n", name_width(), p->name, word,
                    s->log_n, s->levels, s->dnum, alpha, bits, p->source);
    }
}

json_t *nb_cli_stage_list_json(void)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < nb_ckks_preset_count(); i++) {
        const nb_ckks_preset *p = nb_ckks_preset_at(i);
        const nb_ckks_spec *s = &p->spec;
        json_array_append_new(
            a, json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "name",
                         p->name, "description", p->source, "word_bits",
                         (int)(s->word_bits ? s->word_bits : 64), "log_n", (int)s->log_n,
                         "levels", (int)s->levels, "dnum", (int)s->dnum, "alpha",
                         (int)((s->levels + 1 + s->dnum - 1) / s->dnum), "q0_bits",
                         (int)s->q0_bits, "q0_count", (int)(s->q0_count ? s->q0_count : 1),
                         "q_bits", (int)s->q_bits, "rescale_primes",
                         (int)(s->rescale_primes ? s->rescale_primes : 1), "p_bits",
                         (int)s->p_bits));
    }
    return a;
}

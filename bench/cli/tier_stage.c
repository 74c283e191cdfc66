/* The stage tier of `nttbench run` (issue 5; replaces the stub the CLI shipped with) --
 * its options (--stage, --preset, --level, custom sets from --levels/--dnum/
 * --qbits/--pbits with the run's --logn, --rounding, --breakdown-passes,
 * --no-micro), the sweep presets x variants x levels x stages x modes through
 * nb_stage_run_case (bench/stage.h), and the preset list of `nttbench list`. */
#include <stdlib.h>
#include <string.h>

#include "bench/cli/cli.h"
#include "bench/stage.h"
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
    {"breakdown-passes", 1, "N      marked launches of the breakdown pass (max(min-samples, 20))"},
    {"no-micro", 0, "       skip the warm/cold NTT micro-benchmarks the stages are compared to"},
    {NULL, 0, NULL},
};

typedef struct stage_opts {
    nb_ckks_stage stages[4];
    size_t n_stages;
    char *preset_storage;
    char *presets[NB_CLI_MAX_LIST];
    size_t n_presets;
    unsigned long long level[NB_CLI_MAX_LIST];
    size_t n_level;
    int custom;
    size_t levels, dnum, qbits, q0bits, pbits;
    int q0_given;
    nb_ckks_rounding rounding;
    size_t passes;
    int micro;
} stage_opts;

static stage_opts *opts_of(nb_cli_run *run)
{
    if (!run->stage) {
        stage_opts *o = calloc(1, sizeof *o);
        if (!o)
            return NULL;
        for (int i = 0; i < 4; i++)
            o->stages[i] = (nb_ckks_stage)i;
        o->n_stages = 4;
        o->dnum = 3;
        o->qbits = 51;
        o->pbits = 62;
        o->micro = 1;
        run->stage = o;
    }
    return run->stage;
}

void nb_cli_stage_free(nb_cli_run *run)
{
    if (!run || !run->stage)
        return;
    stage_opts *o = run->stage;
    free(o->preset_storage);
    free(o);
    run->stage = NULL;
}

nb_status nb_cli_stage_set(nb_cli_run *run, const char *name, const char *v)
{
    stage_opts *o = opts_of(run);
    if (!o)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of host memory");
    if (!strcmp(name, "stage"))
        return nb_stage_parse_list(v, o->stages, 4, &o->n_stages);
    if (!strcmp(name, "preset")) {
        free(o->preset_storage);
        o->preset_storage = NULL;
        NB_TRY(nb_cli_parse_words(v, name, &o->preset_storage, o->presets, NB_CLI_MAX_LIST,
                                  &o->n_presets));
        for (size_t i = 0; i < o->n_presets; i++)
            if (!nb_ckks_preset_find(o->presets[i]))
                return nb_set_error(NB_ERR_INVALID_ARG,
                                    "--preset: no CKKS preset named '%s' (see 'nttbench list')",
                                    o->presets[i]);
        return NB_OK;
    }
    if (!strcmp(name, "level"))
        return nb_cli_parse_ulist(v, name, 0, 255, o->level, NB_CLI_MAX_LIST, &o->n_level);
    if (!strcmp(name, "levels")) {
        o->custom = 1;
        return nb_cli_parse_size(v, name, 1, 255, &o->levels);
    }
    if (!strcmp(name, "dnum"))
        return nb_cli_parse_size(v, name, 1, 64, &o->dnum);
    if (!strcmp(name, "qbits"))
        return nb_cli_parse_size(v, name, 3, NB_MAX_PRIME_BITS, &o->qbits);
    if (!strcmp(name, "pbits"))
        return nb_cli_parse_size(v, name, 3, NB_MAX_PRIME_BITS, &o->pbits);
    if (!strcmp(name, "q0bits")) {
        o->q0_given = 1;
        return nb_cli_parse_size(v, name, 3, NB_MAX_PRIME_BITS, &o->q0bits);
    }
    if (!strcmp(name, "rounding")) {
        if (!strcmp(v, "floor"))
            o->rounding = NB_CKKS_RESCALE_FLOOR;
        else if (!strcmp(v, "round"))
            o->rounding = NB_CKKS_RESCALE_ROUND;
        else
            return nb_set_error(NB_ERR_INVALID_ARG, "--rounding '%s': floor or round", v);
        return NB_OK;
    }
    if (!strcmp(name, "breakdown-passes"))
        return nb_cli_parse_size(v, name, 1, 100000, &o->passes);
    if (!strcmp(name, "no-micro")) {
        o->micro = 0;
        return NB_OK;
    }
    return nb_set_error(NB_ERR_INVALID_ARG, "run: unknown option --%s", name);
}

/* 1 if the variant can transform every prime of the set. */
static int variant_fits(const nb_ntt_variant *v, const nb_ckks_params *p, char *why, size_t len)
{
    if (p->log_n < v->min_log_n || p->log_n > v->max_log_n) {
        snprintf(why, len, "log_n=%u outside [%u, %u] of variant '%s'", p->log_n, v->min_log_n,
                 v->max_log_n, v->name);
        return 0;
    }
    const unsigned bits[3] = {p->spec.q0_bits, p->spec.q_bits, p->spec.p_bits};
    for (int i = 0; i < 3; i++)
        if (bits[i] > v->max_prime_bits) {
            snprintf(why, len, "%u-bit primes exceed the %u bits of variant '%s'", bits[i],
                     v->max_prime_bits, v->name);
            return 0;
        }
    return 1;
}

static nb_status add_skipped(nb_cli_ctx *ctx, const nb_ntt_variant *v, const char *label,
                             const char *why)
{
    nb_case *c = NULL;
    NB_TRY(nb_case_create(&c, NB_TIER_STAGE, v->name, v->backend, label));
    nb_case_set_status(c, NB_CASE_SKIPPED, why);
    return nb_report_add_case(ctx->report, c);
}

/* All cases of one parameter set. */
static nb_status run_params(nb_cli_run *run, nb_cli_ctx *ctx, const stage_opts *o,
                            const nb_ckks_params *p, const nb_ntt_variant *const *vars,
                            size_t nv)
{
    unsigned long long levels[NB_CLI_MAX_LIST];
    size_t nl = o->n_level;
    if (nl)
        memcpy(levels, o->level, nl * sizeof *levels);
    else {
        levels[0] = p->max_level;
        nl = 1;
    }
    for (size_t vi = 0; vi < nv; vi++) {
        const nb_ntt_variant *v = vars[vi];
        char why[200], label[160];
        if (!variant_fits(v, p, why, sizeof why)) {
            snprintf(label, sizeof label, "stage %s", p->name);
            NB_TRY(add_skipped(ctx, v, label, why));
            continue;
        }
        void *stream = v->backend == NB_BACKEND_GPU ? ctx->stream : NULL;
        for (size_t li = 0; li < nl; li++) {
            const size_t level = (size_t)levels[li];
            if (level > p->max_level) {
                snprintf(label, sizeof label, "stage %s l=%zu", p->name, level);
                snprintf(why, sizeof why, "level %zu > L=%zu of %s", level, p->max_level,
                         p->name);
                NB_TRY(add_skipped(ctx, v, label, why));
                continue;
            }
            nb_stage_micro micro;
            const nb_stage_micro *mp = NULL;
            if (o->micro) {
                nb_bench_opts mo = run->timing;
                mo.mode = run->modes[0];
                NB_TRY(nb_stage_micro_measure(&micro, p, v, level, &mo, stream));
                mp = &micro;
            }
            for (size_t si = 0; si < o->n_stages; si++) {
                nb_stage_config cfg = {o->stages[si], level, o->rounding,
                                       run->seed + 0x9E37ull * (si + 1)};
                for (size_t mi = 0; mi < run->n_modes; mi++) {
                    nb_bench_opts to = run->timing;
                    to.mode = run->modes[mi];
                    snprintf(label, sizeof label, "stage %s %s l=%zu %s",
                             nb_stage_name(cfg.stage), p->name, level, nb_mode_name(to.mode));
                    if (v->backend == NB_BACKEND_CPU && to.mode == NB_MODE_GRAPH) {
                        NB_TRY(add_skipped(ctx, v, label, "graph mode needs a GPU variant"));
                        continue;
                    }
                    nb_case *c = NULL;
                    NB_TRY(nb_stage_run_case(&c, p, v, &cfg, mp, &to, o->passes, stream));
                    nb_case_param_str(c, "mode", nb_mode_name(to.mode));
                    nb_case_param_int(c, "seed", (long long)cfg.seed);
                    char res[96];
                    snprintf(res, sizeof res, "%s", nb_case_status_name(nb_case_get_status(c)));
                    char what[256];
                    snprintf(what, sizeof what, "%s %s", v->name, label);
                    NB_TRY(nb_report_add_case(ctx->report, c));
                    nb_cli_progress(ctx, run, what, res);
                }
            }
        }
    }
    return NB_OK;
}

nb_status nb_cli_stage_run(nb_cli_run *run, nb_cli_ctx *ctx)
{
    stage_opts *o = opts_of(run);
    if (!o)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of host memory");
    const nb_ntt_variant *vars[NB_CLI_MAX_LIST];
    size_t nv = 0;
    NB_TRY(nb_cli_run_variants(run, vars, NB_CLI_MAX_LIST, &nv));
    int gpu = 0;
    for (size_t i = 0; i < nv; i++)
        gpu |= vars[i]->backend == NB_BACKEND_GPU;

    if (o->custom) {
        for (size_t k = 0; k < run->n_logn; k++) {
            nb_ckks_spec spec = {(unsigned)run->logn[k], (unsigned)o->levels, (unsigned)o->dnum,
                                 (unsigned)(o->q0_given ? o->q0bits : o->pbits),
                                 (unsigned)o->qbits, (unsigned)o->pbits};
            nb_ckks_params *p = NULL;
            NB_TRY(nb_ckks_params_create(&p, &spec));
            snprintf(p->name, sizeof p->name, "custom-%u-%zu-%zu", spec.log_n, o->levels,
                     o->dnum);
            nb_status s = run_params(run, ctx, o, p, vars, nv);
            nb_ckks_params_destroy(p);
            NB_TRY(s);
        }
    }
    if (o->n_presets || !o->custom) {
        const char *defaults[1] = {gpu ? "ckks16-l30-d3" : "test-medium"};
        const size_t np = o->n_presets ? o->n_presets : 1;
        for (size_t k = 0; k < np; k++) {
            const char *name = o->n_presets ? o->presets[k] : defaults[0];
            nb_ckks_params *p = NULL;
            NB_TRY(nb_ckks_params_from_preset(&p, name));
            nb_status s = run_params(run, ctx, o, p, vars, nv);
            nb_ckks_params_destroy(p);
            NB_TRY(s);
        }
    }
    return NB_OK;
}

void nb_cli_stage_list_text(FILE *f, int md)
{
    if (md) {
        fprintf(f, "\n### CKKS presets (stage tier)\n\n"
                   "| preset | log N | L | dnum | alpha | q0/q/p bits | source |\n"
                   "|---|---|---|---|---|---|---|\n");
    } else {
        fprintf(f, "\nCKKS presets (stage tier: --preset NAME):\n");
        fprintf(f, "  %-14s %5s %4s %5s %6s %12s  %s\n", "name", "logN", "L", "dnum", "alpha",
                "q0/q/p bits", "source");
    }
    for (size_t i = 0; i < nb_ckks_preset_count(); i++) {
        const nb_ckks_preset *p = nb_ckks_preset_at(i);
        const nb_ckks_spec *s = &p->spec;
        const unsigned alpha = (s->levels + 1 + s->dnum - 1) / s->dnum;
        char bits[32];
        snprintf(bits, sizeof bits, "%u/%u/%u", s->q0_bits, s->q_bits, s->p_bits);
        if (md)
            fprintf(f, "| %s | %u | %u | %u | %u | %s | %s |\n", p->name, s->log_n, s->levels,
                    s->dnum, alpha, bits, p->source);
        else
            fprintf(f, "  %-14s %5u %4u %5u %6u %12s  %s\n", p->name, s->log_n, s->levels,
                    s->dnum, alpha, bits, p->source);
    }
}

json_t *nb_cli_stage_list_json(void)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < nb_ckks_preset_count(); i++) {
        const nb_ckks_preset *p = nb_ckks_preset_at(i);
        const nb_ckks_spec *s = &p->spec;
        json_array_append_new(
            a, json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "name", p->name,
                         "description", p->source, "log_n", (int)s->log_n, "levels",
                         (int)s->levels, "dnum", (int)s->dnum, "alpha",
                         (int)((s->levels + 1 + s->dnum - 1) / s->dnum), "q0_bits",
                         (int)s->q0_bits, "q_bits", (int)s->q_bits, "p_bits", (int)s->p_bits));
    }
    return a;
}

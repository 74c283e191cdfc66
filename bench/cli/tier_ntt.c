/* The warm and cold NTT tiers of `nttbench run`: one case per tier x variant
 * x direction x log N x limbs x prime bits x mode, each timed by the shared
 * core (nb_bench_run) on an NTT workload and reported with its figures. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/cli/cli.h"

static nb_case_status status_of(nb_status s)
{
    if (s == NB_ERR_VERIFY)
        return NB_CASE_VERIFY_FAILED;
    if (s == NB_ERR_UNSUPPORTED)
        return NB_CASE_SKIPPED;
    return NB_CASE_ERROR;
}

static nb_status one_case(nb_cli_run *run, nb_cli_ctx *ctx, nb_tier tier,
                          const nb_ntt_variant *v, int inverse, unsigned log_n, size_t limbs,
                          unsigned bits, nb_mode mode)
{
    char label[160];
    snprintf(label, sizeof label, "%s logn=%u L=%zu q%u", inverse ? "inv" : "fwd", log_n, limbs,
             bits);
    nb_case *c = NULL;
    NB_TRY(nb_case_create(&c, tier, v->name, v->backend, label));
    nb_case_param_str(c, "direction", inverse ? "inverse" : "forward");
    nb_case_param_int(c, "log_n", log_n);
    nb_case_param_int(c, "n", 1ll << log_n);
    nb_case_param_int(c, "limbs", (long long)limbs);
    nb_case_param_int(c, "prime_bits", bits);
    nb_case_param_int(c, "seed", (long long)(run->seed & 0x7FFFFFFFFFFFFFFFull));

    char what[256];
    snprintf(what, sizeof what, "%s %s %s %s", nb_tier_name(tier), v->name, label,
             nb_mode_name(mode));
    if (log_n < v->min_log_n || log_n > v->max_log_n) {
        char msg[128];
        snprintf(msg, sizeof msg, "log_n=%u outside the variant's range [%u, %u]", log_n,
                 v->min_log_n, v->max_log_n);
        nb_case_set_status(c, NB_CASE_SKIPPED, msg);
        nb_cli_progress(ctx, run, what, "skipped");
        return nb_report_add_case(ctx->report, c);
    }
    if (bits > v->max_prime_bits) {
        char msg[128];
        snprintf(msg, sizeof msg, "%u-bit primes above the variant's %u", bits, v->max_prime_bits);
        nb_case_set_status(c, NB_CASE_SKIPPED, msg);
        nb_cli_progress(ctx, run, what, "skipped");
        return nb_report_add_case(ctx->report, c);
    }
    if (mode == NB_MODE_GRAPH && v->backend == NB_BACKEND_CPU) {
        nb_case_set_status(c, NB_CASE_SKIPPED, "graph mode needs a GPU variant");
        nb_cli_progress(ctx, run, what, "skipped");
        return nb_report_add_case(ctx->report, c);
    }
    void *stream = v->backend == NB_BACKEND_GPU ? ctx->stream : NULL;
    nb_workload *w = NULL;
    nb_status s = nb_ntt_workload_create(&w, v, log_n, limbs, bits, inverse, run->seed, stream);
    if (s == NB_OK) {
        const nb_ntt_tables *t = nb_ntt_workload_tables(w);
        nb_case_param_u64_list(c, "primes", t->q, t->limbs);
        nb_case_param_u64_list(c, "psi", t->psi, t->limbs);
        nb_bench_opts o = run->timing;
        o.tier = tier;
        o.mode = mode;
        if (tier != NB_TIER_WARM)
            o.l2_persist = -1;
        nb_bench_result r;
        nb_nvtx_push(what);
        s = nb_bench_run(w, stream, &o, &r);
        nb_nvtx_pop();
        const char *msg = s == NB_OK ? (r.message[0] ? r.message : NULL) : nb_last_error();
        char msgbuf[512];
        if (msg) {
            snprintf(msgbuf, sizeof msgbuf, "%s", msg);
            msg = msgbuf;
        }
        nb_case_set_result(c, &r);
        if (r.n_samples) {
            nb_ntt_figures f;
            double copy = v->backend == NB_BACKEND_GPU ? ctx->env.gpu_copy_Bps
                                                       : ctx->env.host_copy_Bps;
            double peak = v->backend == NB_BACKEND_GPU ? ctx->env.peak_Bps : 0.0;
            nb_ntt_figures_compute(log_n, limbs, r.stats.median, copy, peak, &f);
            nb_case_set_figures(c, &f);
        }
        nb_case_set_status(c, s == NB_OK ? NB_CASE_OK : status_of(s), msg);
        char res[96];
        if (s == NB_OK)
            snprintf(res, sizeof res, "%.3f us (%zu samples, %s)", r.stats.median * 1e6,
                     r.n_samples, nb_stop_reason_name(r.stop));
        else
            snprintf(res, sizeof res, "%s", nb_case_status_name(status_of(s)));
        nb_cli_progress(ctx, run, what, res);
        nb_bench_result_free(&r);
    } else {
        nb_case_set_status(c, status_of(s), nb_last_error());
        nb_cli_progress(ctx, run, what, nb_case_status_name(status_of(s)));
    }
    nb_ntt_workload_destroy(w);
    /* an environment failure (no device, CUDA error) stops the sweep */
    if (s == NB_ERR_NO_DEVICE || s == NB_ERR_CUDA || s == NB_ERR_OUT_OF_MEMORY) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", nb_last_error());
        nb_report_add_case(ctx->report, c);
        return nb_set_error(s, "%s", msg);
    }
    return nb_report_add_case(ctx->report, c);
}

nb_status nb_cli_tier_ntt(nb_cli_run *run, nb_cli_ctx *ctx)
{
    const nb_ntt_variant *vars[NB_CLI_MAX_LIST];
    size_t nv = 0;
    NB_TRY(nb_cli_run_variants(run, vars, NB_CLI_MAX_LIST, &nv));
    static const nb_tier tiers[] = {NB_TIER_WARM, NB_TIER_COLD};
    for (size_t ti = 0; ti < 2; ti++) {
        if (!(run->tiers & (1 << tiers[ti])))
            continue;
        char range[64];
        snprintf(range, sizeof range, "tier %s", nb_tier_name(tiers[ti]));
        nb_nvtx_push(range);
        for (size_t vi = 0; vi < nv; vi++)
            for (int dir = 0; dir < 2; dir++) {
                if (!(run->directions & (1 << dir)))
                    continue;
                for (size_t a = 0; a < run->n_logn; a++)
                    for (size_t b = 0; b < run->n_limbs; b++)
                        for (size_t c = 0; c < run->n_bits; c++)
                            for (size_t m = 0; m < run->n_modes; m++) {
                                nb_status s = one_case(run, ctx, tiers[ti], vars[vi], dir,
                                                       (unsigned)run->logn[a],
                                                       (size_t)run->limbs[b],
                                                       (unsigned)run->bits[c], run->modes[m]);
                                if (s != NB_OK) {
                                    nb_nvtx_pop();
                                    return s;
                                }
                            }
            }
        nb_nvtx_pop();
    }
    return NB_OK;
}

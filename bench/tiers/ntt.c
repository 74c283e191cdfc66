/* The NTT tier: one case per variant x direction x log N x limbs (or log Q)
 * x prime bits x mode under the caller's cache state, each an NTT workload in
 * the variant's word size timed by the core (nb_bench_run) and reported with
 * its figures (bandwidth model of docs/methodology.md), its word size and log
 * Q, and with a profiler pass its kernels' figures. The report's tier word
 * is "warm" or "cold", as in version 1 of the JSON schema. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/timing/memfit.h"
#include "bench/tiers/ntt.h"
#include "bench/tiers/tiers.h"

typedef struct ntt_case {
    const nb_ntt_variant *v;
    int inverse;
    unsigned log_n;
    size_t limbs;       /* 0 until resolved from log_q_target */
    unsigned bits;
    nb_mode mode;
    unsigned log_q_target; /* --logq: the modulus asked for (0: limbs given) */
    double log_q;          /* log2 of the product of the case's primes (NAN unknown) */
    char no_primes[200];   /* limbs given: why their primes do not exist ("" when they do) */
} ntt_case;

/* Why the variant cannot run the case (NULL when it can). */
static const char *skip_reason(const ntt_case *k, char *buf, size_t len)
{
    const nb_ntt_variant *v = k->v;
    if (k->log_n < v->min_log_n || k->log_n > v->max_log_n)
        snprintf(buf, len, "log_n=%u outside the variant's range [%u, %u]", k->log_n,
                 v->min_log_n, v->max_log_n);
    else if (k->bits > v->max_prime_bits)
        snprintf(buf, len, "%u-bit primes above the variant's %u", k->bits, v->max_prime_bits);
    else if (k->mode == NB_MODE_GRAPH && v->backend == NB_BACKEND_CPU)
        snprintf(buf, len, "graph mode needs a GPU variant");
    else
        return NULL;
    return buf;
}

static nb_status add_params(nb_case *c, const ntt_case *k, uint64_t seed)
{
    NB_TRY(nb_case_param_str(c, "direction", k->inverse ? "inverse" : "forward"));
    NB_TRY(nb_case_param_int(c, "log_n", k->log_n));
    NB_TRY(nb_case_param_int(c, "n", 1ll << k->log_n));
    if (k->limbs) /* 0: a --logq target no limb count reaches */
        NB_TRY(nb_case_param_int(c, "limbs", (long long)k->limbs));
    NB_TRY(nb_case_param_int(c, "prime_bits", k->bits));
    NB_TRY(nb_case_param_int(c, "word_bits", k->v->word_bits));
    if (isfinite(k->log_q))
        NB_TRY(nb_case_param_real(c, "log_q", k->log_q, 1));
    if (k->log_q_target)
        NB_TRY(nb_case_param_int(c, "log_q_target", k->log_q_target));
    char exact[24]; /* every 64-bit seed exactly: a decimal string */
    snprintf(exact, sizeof exact, "%" PRIu64, seed);
    return nb_case_param_str(c, "seed", exact);
}

/* Records in c the kernels a GPU variant's verified call launched, or that
 * it does not report them and why (never fails the case). */
static nb_status record_kernels(nb_workload *w, nb_case *c)
{
    nb_ntt_kernel k[NB_CASE_MAX_KERNELS];
    size_t n = 0;
    nb_status s = nb_ntt_workload_kernels(w, k, NB_CASE_MAX_KERNELS, &n);
    if (s == NB_OK)
        return nb_case_set_kernels(c, k, n < NB_CASE_MAX_KERNELS ? n : NB_CASE_MAX_KERNELS,
                                   NULL);
    char why[200];
    snprintf(why, sizeof why, "%s", nb_last_error());
    return nb_case_set_kernels(c, NULL, 0, why);
}

/* Times the workload into the case; the progress text into res. */
static nb_status measure(const nb_tier_run *r, const ntt_case *k, nb_workload *w, nb_case *c,
                         const char *what, char *res, size_t res_len)
{
    const nb_ntt_tables *t = nb_ntt_workload_tables(w);
    NB_TRY(nb_case_param_u64_list(c, "primes", t->q, t->limbs));
    NB_TRY(nb_case_param_u64_list(c, "psi", t->psi, t->limbs));
    nb_bench_opts o = r->timing;
    o.mode = k->mode;
    void *stream = k->v->backend == NB_BACKEND_GPU ? r->stream : NULL;
    nb_bench_result br;
    nb_nvtx_push(what);
    nb_status s = nb_bench_run(w, stream, &o, &br);
    nb_nvtx_pop();
    char msg[512] = "";
    snprintf(msg, sizeof msg, "%s", s == NB_OK ? br.message : nb_last_error());
    nb_status cs = nb_case_set_result(c, &br);
    if (cs == NB_OK && br.n_samples) {
        nb_ntt_figures f;
        const nb_env *e = r->env;
        int gpu = k->v->backend == NB_BACKEND_GPU;
        double copy = !e ? 0.0 : gpu ? e->gpu_copy_Bps : e->host_copy_Bps;
        nb_ntt_figures_compute(k->log_n, k->limbs, k->v->word_bits, br.stats.median, copy,
                               e && gpu ? e->peak_Bps : 0.0, &f);
        nb_case_set_figures(c, &f);
        if (k->v->backend == NB_BACKEND_GPU)
            cs = record_kernels(w, c);
    }
    nb_case_set_status(c, s == NB_OK ? NB_CASE_OK : nb_tier_case_status(s), msg[0] ? msg : NULL);
    nb_case_set_cause(c, s);
    if (s == NB_OK)
        snprintf(res, res_len, "%.3f us (%zu samples, %s)", br.stats.median * 1e6, br.n_samples,
                 nb_stop_reason_name(br.stop));
    else
        snprintf(res, res_len, "%s", nb_case_status_name(nb_tier_case_status(s)));
    nb_bench_result_free(&br);
    if (cs != NB_OK)
        return cs;
    return s == NB_OK ? NB_OK : nb_set_error(s, "%s", msg);
}

/* The profiler pass's target: one call of the case (nb_bench_profile_call). */
static nb_status profile_target(const nb_tier_run *r, nb_workload *w, nb_case *c, char *res,
                                size_t res_len)
{
    nb_bench_opts o = r->timing;
    o.mode = NB_MODE_PER_LAUNCH;
    nb_status s = nb_bench_profile_call(w, r->stream, &o);
    nb_case_set_status(c, s == NB_OK ? NB_CASE_OK : nb_tier_case_status(s),
                       s == NB_OK ? "one call profiled" : nb_last_error());
    nb_case_set_cause(c, s);
    snprintf(res, res_len, "%s",
             s == NB_OK ? "profiled" : nb_case_status_name(nb_tier_case_status(s)));
    return s;
}

/* NB_ERR_INVALID_ARG (naming the sizes) when the case cannot fit before
 * anything is allocated. With W = N x limbs 64-bit words and D the data set
 * in the variant's words (W, or W/2 for 32-bit words): the twiddle tables
 * (4W: forward, inverse and their Shoup values) and the staging of inputs and
 * oracle outputs (4W: set 0's input and expected output kept, a staging and
 * a download buffer; plus D for 32-bit words) on the host, one data set and
 * the guard after the sets (2D) on the variant's side, and the tables again
 * on a GPU. Rotation sets are checked by the core once the cache plan knows
 * their number. */
/* The host and device bytes a case needs before its buffer sets: tables,
 * staging and one set (what `fits` checks and `run --list` reports). */
static void case_bytes(const ntt_case *k, double *host, double *device)
{
    const double w = 8.0 * (double)((size_t)1 << k->log_n) * (double)k->limbs;
    const double d = k->v->word_bits == 32 ? w / 2 : w;
    const double staging = k->v->word_bits == 32 ? 4 * w + d : 4 * w;
    const int gpu = k->v->backend == NB_BACKEND_GPU;
    *host = gpu ? 4 * w + staging : 4 * w + staging + 2 * d;
    *device = gpu ? 4 * w + 2 * d : 0;
}

static nb_status fits(const ntt_case *k, const char *label)
{
    double host, device;
    case_bytes(k, &host, &device);
    char what[200];
    snprintf(what, sizeof what, "%s %s", k->v->name, label);
    return nb_memory_fit(what, host, device);
}

/* Resolves the case's limb count (from its log Q target) and its log Q;
 * with the limbs given, NB_OK with log_q NAN and no_primes set when their
 * primes cannot be made (the workload then fails the same way). */
static nb_status resolve_limbs(ntt_case *k)
{
    k->log_q = NAN;
    if (k->log_q_target) {
        double actual;
        NB_TRY(nb_ntt_limbs_for_log_q(k->log_n, k->bits, k->log_q_target,
                                      NB_NTT_WORKLOAD_MAX_LIMBS, &k->limbs, &actual));
        k->log_q = actual;
        return NB_OK;
    }
    if (k->limbs == 0 || k->limbs > NB_NTT_WORKLOAD_MAX_LIMBS) { /* the build refuses it too */
        snprintf(k->no_primes, sizeof k->no_primes, "limbs=%zu outside [1, %d]", k->limbs,
                 NB_NTT_WORKLOAD_MAX_LIMBS);
        return NB_OK;
    }
    uint64_t *q = malloc(k->limbs * sizeof *q);
    if (q && nb_primes_generate(k->log_n, k->bits, k->limbs, NULL, 0, q) == NB_OK)
        k->log_q = nb_log_q(q, k->limbs);
    else if (q) /* the case's build will fail the same way: --list says so */
        snprintf(k->no_primes, sizeof k->no_primes, "%s", nb_last_error());
    free(q);
    return NB_OK;
}

static nb_status one_case(const nb_tier_run *r, ntt_case *k)
{
    const int warm = r->timing.cache == NB_CACHE_WARM;
    char label[160], what[256], why[160], res[96] = "";
    nb_status ls = resolve_limbs(k);
    char lq[32] = "";
    if (isfinite(k->log_q))
        snprintf(lq, sizeof lq, " logQ=%.1f", k->log_q);
    if (ls != NB_OK)
        snprintf(label, sizeof label, "%s logn=%u logQ~%u q%u w%u", k->inverse ? "inv" : "fwd",
                 k->log_n, k->log_q_target, k->bits, k->v->word_bits);
    else
        snprintf(label, sizeof label, "%s logn=%u L=%zu q%u w%u%s", k->inverse ? "inv" : "fwd",
                 k->log_n, k->limbs, k->bits, k->v->word_bits, lq);
    nb_case_name(what, sizeof what, warm, k->v->name, label, nb_mode_name(k->mode));
    char fail[300];
    snprintf(fail, sizeof fail, "%s", ls == NB_OK ? "" : nb_last_error());
    nb_case_plan plan = {what, k->v, r->timing.cache,
                         (double)((size_t)1 << k->log_n) * (double)k->limbs *
                             (k->v->word_bits == 32 ? 4.0 : 8.0),
                         1, ls == NB_OK && skip_reason(k, why, sizeof why) != NULL, 0, 0,
                         ls != NB_OK ? fail : k->no_primes[0] ? k->no_primes : NULL};
    if (ls == NB_OK)
        case_bytes(k, &plan.host_bytes, &plan.device_bytes);
    if (!nb_tier_select(r, &plan))
        return NB_OK;
    if (ls != NB_OK) /* the selection may have set messages of its own */
        nb_set_error(ls, "%s", fail);
    const double t0 = nb_now_s();
    nb_case *c = NULL;
    NB_TRY(nb_case_create(&c, warm ? "warm" : "cold", r->timing.cache, k->v->name,
                          k->v->backend, label));
    nb_status s = add_params(c, k, r->sweep.seed); /* a case that cannot be built too */
    if (s == NB_OK)
        s = ls;
    if (s == NB_OK && skip_reason(k, why, sizeof why)) {
        nb_case_set_status(c, NB_CASE_SKIPPED, why);
        NB_TRY(nb_report_add_case(r->report, c));
        nb_tier_progress(r, what, "skipped");
        return NB_OK;
    }
    nb_workload *w = NULL;
    if (s == NB_OK)
        s = fits(k, label);
    if (s == NB_OK)
        s = nb_ntt_workload_create(&w, k->v, k->log_n, k->limbs, k->bits, k->inverse,
                                   r->sweep.seed,
                                   k->v->backend == NB_BACKEND_GPU ? r->stream : NULL);
    if (s == NB_OK && r->profile_call) {
        s = profile_target(r, w, c, res, sizeof res);
    } else if (s == NB_OK) {
        s = measure(r, k, w, c, what, res, sizeof res);
    } else {
        nb_case_set_status(c, nb_tier_case_status(s), nb_last_error());
        nb_case_set_cause(c, s);
        snprintf(res, sizeof res, "%s", nb_case_status_name(nb_tier_case_status(s)));
    }
    nb_workload_destroy(w);
    if (s == NB_OK)
        nb_tier_profile(r, k->v->backend, c, what);
    nb_case_set_wall_time(c, nb_now_s() - t0);
    /* a failed case (memory, CUDA, verification) is a row; the sweep goes on */
    NB_TRY(nb_report_add_case(r->report, c));
    nb_tier_progress(r, what, res);
    return NB_OK;
}

/* 1 while the sweep may start another case: no error, no interrupt. */
static int go_on(const nb_tier_run *r, nb_status s)
{
    return s == NB_OK && !nb_bench_interrupted(&r->timing);
}

/* The limb count of each --logq target at one log N and prime size into
 * limbs[0..n_log_q) (0 where the target cannot be built), once per sweep
 * position rather than once per pair of targets. */
static void targets_limbs(const nb_sweep *sw, unsigned log_n, unsigned bits, size_t *limbs)
{
    double q;
    for (size_t b = 0; b < sw->n_log_q; b++)
        if (nb_ntt_limbs_for_log_q(log_n, bits, sw->log_q[b], NB_NTT_WORKLOAD_MAX_LIMBS,
                                   &limbs[b], &q) != NB_OK)
            limbs[b] = 0;
}

/* 1 when --logq target b resolves to the limb count of an earlier target of
 * the list (limbs: targets_limbs'): the same case, which runs once. */
static int same_limbs_as_earlier(const size_t *limbs, size_t b)
{
    for (size_t a = 0; a < b && limbs[b]; a++)
        if (limbs[a] == limbs[b])
            return 1;
    return 0;
}

nb_status nb_tier_ntt_run(const nb_tier_run *r)
{
    const nb_sweep *sw = &r->sweep;
    char range[64];
    snprintf(range, sizeof range, "tier %s",
             r->timing.cache == NB_CACHE_WARM ? "warm" : "cold");
    nb_nvtx_push(range);
    nb_status s = NB_OK;
    const size_t n_sizes = sw->n_log_q ? sw->n_log_q : sw->n_limbs;
    size_t *tl = NULL; /* per log N and prime size, the --logq targets' limb counts */
    for (size_t vi = 0; vi < sw->n_variants && go_on(r, s); vi++) {
        const nb_ntt_variant *v = sw->variants[vi];
        const int w32 = v->word_bits == 32 && sw->n_prime_bits_32;
        const unsigned *bits = w32 ? sw->prime_bits_32 : sw->prime_bits;
        const size_t n_bits = w32 ? sw->n_prime_bits_32 : sw->n_prime_bits;
        if (sw->n_log_q) {
            free(tl);
            tl = malloc(sw->n_log_n * n_bits * sw->n_log_q * sizeof *tl);
            if (!tl) {
                s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "NTT tier: out of host memory");
                break;
            }
            for (size_t a = 0; a < sw->n_log_n; a++)
                for (size_t c = 0; c < n_bits; c++)
                    targets_limbs(sw, sw->log_n[a], bits[c], tl + (a * n_bits + c) * sw->n_log_q);
        }
        for (int dir = 0; dir < 2 && go_on(r, s); dir++) {
            if (!(sw->directions & (1 << dir)))
                continue;
            for (size_t a = 0; a < sw->n_log_n && go_on(r, s); a++)
                for (size_t b = 0; b < n_sizes && go_on(r, s); b++)
                    for (size_t c = 0; c < n_bits && go_on(r, s); c++) {
                        if (sw->n_log_q &&
                            same_limbs_as_earlier(tl + (a * n_bits + c) * sw->n_log_q, b))
                            continue;
                        for (size_t m = 0; m < sw->n_modes && go_on(r, s); m++) {
                            ntt_case k = {v, dir, sw->log_n[a],
                                          sw->n_log_q ? 0 : sw->limbs[b], bits[c],
                                          sw->modes[m], sw->n_log_q ? sw->log_q[b] : 0, NAN,
                                          ""};
                            s = one_case(r, &k);
                        }
                    }
        }
    }
    free(tl);
    nb_nvtx_pop();
    return s;
}

void nb_ntt_figures_compute(unsigned log_n, size_t limbs, unsigned word_bits, double median_s,
                            double copy_Bps, double peak_Bps, nb_ntt_figures *f)
{
    const double n = ldexp(1.0, (int)log_n);
    const double word = word_bits == 32 ? 4.0 : 8.0;
    memset(f, 0, sizeof *f);
    f->coefficient_bytes = 2.0 * word * n * (double)limbs;
    f->twiddle_bytes = 2.0 * word * n * (double)limbs;
    const double ok = median_s > 0 && isfinite(median_s);
    f->bandwidth_Bps = ok ? f->coefficient_bytes / median_s : NAN;
    f->bandwidth_with_twiddles_Bps =
        ok ? (f->coefficient_bytes + f->twiddle_bytes) / median_s : NAN;
    f->frac_copy = ok && copy_Bps > 0 ? f->bandwidth_Bps / copy_Bps : NAN;
    f->frac_peak = ok && peak_Bps > 0 ? f->bandwidth_Bps / peak_Bps : NAN;
    f->butterflies_per_s = ok ? n / 2.0 * (double)log_n * (double)limbs / median_s : NAN;
}


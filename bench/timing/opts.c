/* Options of the sample loop: defaults (NVBench's names and values), range
 * checks with messages naming the flag, and the names of modes, cache states
 * (the --cold words). */
#include <math.h>
#include <string.h>
#include <time.h>

#include "bench/timing/options.h"

void nb_bench_opts_default(nb_bench_opts *o)
{
    memset(o, 0, sizeof *o);
    o->cache = NB_CACHE_WARM;
    o->mode = NB_MODE_PER_LAUNCH;
    o->batch = 10;
    o->min_samples = 10;
    o->min_time_s = 0.5;
    o->max_noise_pct = 0.5;
    o->timeout_s = 15.0;
    o->max_samples = 100000;
    o->warmup_samples = 3;
    o->warmup_time_s = 0.05;
    o->throttle_threshold_pct = 75.0;
    o->throttle_recovery_s = 0.05;
    o->blocking_timeout_s = 10.0;
    o->batch_samples = 1; /* batches shift warm medians: docs/methodology.md */
    o->queue_ahead = 1;
    o->rotate_sets = 0;
    o->rotate_factor = 3.0;
    o->l2_persist = -1.0;
    o->nvtx = 1;
}

nb_status nb_bench_opts_check(const nb_bench_opts *o)
{
    if (!o)
        return nb_set_error(NB_ERR_INVALID_ARG, "timing options: NULL");
    if (o->cache < NB_CACHE_WARM || o->cache > NB_CACHE_COLD)
        return nb_set_error(NB_ERR_INVALID_ARG, "unknown cache state %d", (int)o->cache);
    if (o->mode < NB_MODE_PER_LAUNCH || o->mode > NB_MODE_GRAPH)
        return nb_set_error(NB_ERR_INVALID_ARG, "unknown mode %d", (int)o->mode);
    if (o->batch < 1 || o->batch > 100000)
        return nb_set_error(NB_ERR_INVALID_ARG, "--batch must be in [1, 100000] (got %zu)",
                            o->batch);
    if (o->min_samples < 1)
        return nb_set_error(NB_ERR_INVALID_ARG, "--min-samples must be >= 1");
    if (o->max_samples < o->min_samples)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "--max-samples (%zu) must be >= --min-samples (%zu)", o->max_samples,
                            o->min_samples);
    if (!(o->min_time_s >= 0.0) || !isfinite(o->min_time_s))
        return nb_set_error(NB_ERR_INVALID_ARG, "--min-time must be >= 0 seconds");
    if (!(o->max_noise_pct >= 0.0))
        return nb_set_error(NB_ERR_INVALID_ARG, "--max-noise must be >= 0 (percent)");
    if (!(o->timeout_s > 0.0) || !isfinite(o->timeout_s))
        return nb_set_error(NB_ERR_INVALID_ARG, "--timeout must be > 0 seconds");
    if (!(o->warmup_time_s >= 0.0) || !isfinite(o->warmup_time_s))
        return nb_set_error(NB_ERR_INVALID_ARG, "--warmup-time must be >= 0 seconds");
    if (!(o->throttle_threshold_pct >= 0.0 && o->throttle_threshold_pct <= 100.0))
        return nb_set_error(NB_ERR_INVALID_ARG, "--throttle-threshold must be in [0, 100] (%%)");
    if (!(o->throttle_recovery_s >= 0.0 && o->throttle_recovery_s <= 10.0))
        return nb_set_error(NB_ERR_INVALID_ARG, "--throttle-recovery must be in [0, 10] seconds");
    if (!(o->blocking_timeout_s > 0.0 && o->blocking_timeout_s <= 600.0))
        return nb_set_error(NB_ERR_INVALID_ARG, "--blocking-timeout must be in (0, 600] seconds");
    if (o->batch_samples < 1 || o->batch_samples > NB_BATCH_SAMPLES_MAX)
        return nb_set_error(NB_ERR_INVALID_ARG, "--batch-samples must be in [1, %d] (got %zu)",
                            NB_BATCH_SAMPLES_MAX, o->batch_samples);
    if (o->queue_ahead > 1)
        return nb_set_error(NB_ERR_INVALID_ARG, "--queue-ahead must be 0 or 1 (got %zu)",
                            o->queue_ahead);
    if (!(o->rotate_factor >= 1.0 && o->rotate_factor <= 1e6)) /* sets are a size_t count */
        return nb_set_error(NB_ERR_INVALID_ARG, "rotation factor must be in [1, 1e6]");
    if (isnan(o->l2_persist) || (o->l2_persist >= 0.0 && o->l2_persist > 1.0))
        return nb_set_error(NB_ERR_INVALID_ARG, "--l2-persist must be a fraction in [0, 1]");
    if (o->l2_persist >= 0.0 && o->cache != NB_CACHE_WARM)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "--l2-persist pins data in L2: it applies to a warm cache only");
    return NB_OK;
}

double nb_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *const mode_names[] = {"per-launch", "batch", "graph"};

const char *nb_mode_name(nb_mode m)
{
    return (unsigned)m < 3 ? mode_names[m] : "unknown";
}

const char *nb_cache_state_name(nb_cache_state c)
{
    return c == NB_CACHE_WARM ? "warm" : nb_cold_name(c);
}

const char *nb_cold_name(nb_cold_method c)
{
    switch (c) {
    case NB_COLD_FLUSH: return "flush";
    case NB_COLD_ROTATE: return "rotate";
    case NB_COLD_BOTH: return "both";
    case NB_CACHE_WARM: break;
    }
    return "unknown";
}

nb_status nb_mode_parse(const char *s, nb_mode *out)
{
    if (!out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_mode_parse: NULL result");
    for (int i = 0; s && i < 3; i++)
        if (strcmp(s, mode_names[i]) == 0) {
            *out = (nb_mode)i;
            return NB_OK;
        }
    return nb_set_error(NB_ERR_INVALID_ARG, "unknown mode '%s' (per-launch, batch, graph)",
                        s ? s : "(null)");
}

nb_status nb_cold_parse(const char *s, nb_cold_method *out)
{
    static const struct {
        const char *name;
        nb_cold_method c;
    } names[] = {{"flush", NB_COLD_FLUSH}, {"rotate", NB_COLD_ROTATE}, {"both", NB_COLD_BOTH}};
    if (!out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_cold_parse: NULL result");
    for (size_t i = 0; s && i < 3; i++)
        if (strcmp(s, names[i].name) == 0) {
            *out = names[i].c;
            return NB_OK;
        }
    return nb_set_error(NB_ERR_INVALID_ARG, "unknown cold method '%s' (flush, rotate, both)",
                        s ? s : "(null)");
}

int nb_bench_interrupted(const nb_bench_opts *o)
{
    return o && o->interrupt && *o->interrupt != 0;
}

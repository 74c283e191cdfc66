/* Internal to the timing core (tests include it): statistics of a sample
 * vector and the stopping rule, both pure functions of their inputs. */
#ifndef NB_BENCH_STATS_H
#define NB_BENCH_STATS_H

#include "bench/timing/run.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Statistics of x[0..n); n >= 1, every x finite. The input is not modified. */
nb_status nb_stats_compute(const double *x, size_t n, nb_stats *out);

/* Median of v[0..n), n >= 1 (the mean of the two middle values when n is
 * even); sorts v in place. */
double nb_median_inplace(double *v, size_t n);

#define NB_NOISE_WINDOW 512

/* The stopping rule, kept online (Welford mean/variance). Pure: the caller
 * passes sample times and the wall clock, so it is tested with a fake clock. */
typedef struct nb_stop_rule {
    size_t min_samples, max_samples;
    double min_time_s, max_noise_pct, timeout_s;
    double start_s;          /* wall clock at the first sample */
    size_t n;                /* accepted samples */
    double mean, m2, total_s;
    double noise_hist[NB_NOISE_WINDOW]; /* recent noise estimates (ring) */
    size_t hist_len, hist_pos;
} nb_stop_rule;

void nb_stop_rule_init(nb_stop_rule *r, const nb_bench_opts *o, double start_s);
/* Adds one accepted sample: `sample_s` (time per launch) feeds the noise
 * estimate, `measured_s` (the sample's whole measured time: K launches in
 * batch/graph modes) counts towards min-time. */
void nb_stop_rule_add(nb_stop_rule *r, double sample_s, double measured_s);
/* Current relative standard deviation in percent (infinity when n < 2). */
double nb_stop_rule_noise_pct(const nb_stop_rule *r);
/* 1 (and *why) when sampling should stop at wall time `now_s`:
 *   n >= max_samples                                   -> max-samples
 *   now_s - start_s >= timeout_s                       -> timeout
 *   n >= min_samples and total >= min_time and
 *     noise <= max_noise                               -> converged
 *     or, checked every 64 samples once >= 64 noise estimates exist, the recent
 *     estimates' relative standard deviation < 5 %     -> noise-stable */
int nb_stop_rule_done(const nb_stop_rule *r, double now_s, nb_stop_reason *why);

/* Samples to take before the rule is next worth checking, >= 1: never past
 * max-samples nor past the next multiple of 64 (where noise-stable is
 * checked), and while min-samples or min-time is not met, at most the
 * samples both need (min-time's at the mean measured time per sample so
 * far). Once both are met, converged may fire after any sample: a batch of
 * this size then passes that point by at most 63 samples, all of them kept. */
size_t nb_stop_rule_until_check(const nb_stop_rule *r);

/* Queue entries one batch may hold behind the blocking kernel, and the GPU
 * time one batch aims at (the stopping rule and the timeout are checked
 * between batches). */
#define NB_BATCH_QUEUE_OPS 512
#define NB_BATCH_TARGET_S 5e-3

/* Samples in the next GPU batch, in [1, k_max]: at most `until_check`
 * (nb_stop_rule_until_check, or the warm-up's remaining count), at most
 * NB_BATCH_QUEUE_OPS / ops_per_sample (the stream operations one sample
 * queues: its events, flush and launches; 0 = unknown, which gives 1), and
 * at most NB_BATCH_TARGET_S / est_sample_s of estimated wall time per sample
 * (<= 0 or not finite = no estimate yet, which gives 1). */
size_t nb_batch_size(size_t k_max, size_t until_check, size_t ops_per_sample,
                     double est_sample_s);

#ifdef __cplusplus
}
#endif
#endif

/* Helpers shared by the bench tests: timing options short enough for unit
 * tests on the real clock (a few milliseconds per case). */
#ifndef NB_TEST_BENCHUTIL_H
#define NB_TEST_BENCHUTIL_H

#include "bench/bench.h"

/* Defaults with 2 ms of samples, a 2 s timeout, one warm-up sample, at most
 * 200 samples and no NVTX. */
static inline nb_bench_opts nb_test_quick_opts(void)
{
    nb_bench_opts o;
    nb_bench_opts_default(&o);
    o.min_time_s = 0.002;
    o.timeout_s = 2.0;
    o.warmup_samples = 1;
    o.warmup_time_s = 0;
    o.max_samples = 200;
    o.nvtx = 0;
    return o;
}

#endif

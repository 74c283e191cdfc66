/* How long `run --output` takes to rewrite a large JSON report: a report of
 * 336 finished GPU cases of 3 400 samples each (the H100 sweep of
 * docs/results.md, "The wall time of a GPU sweep", averages 3 413), written
 * to the file named on the command line three times, each write's time
 * printed. The first write serialises every case; the later ones reuse the
 * cases' kept texts, as a sweep's rewrites do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s REPORT.json\n", argv[0]);
        return 2;
    }
    enum { CASES = 336, SAMPLES = 3400 };
    nb_report *rep = NULL;
    nb_env e;
    nb_bench_opts o;
    if (nb_report_create(&rep, "run") != NB_OK || nb_env_collect(&e, 0, 0) != NB_OK) {
        fprintf(stderr, "%s\n", nb_last_error());
        return 1;
    }
    nb_report_set_env(rep, &e);
    nb_bench_opts_default(&o);
    nb_report_set_options(rep, &o);
    for (int k = 0; k < CASES; k++) {
        nb_case *c = NULL;
        nb_bench_result r;
        memset(&r, 0, sizeof r);
        r.backend = NB_BACKEND_GPU;
        r.launches_per_sample = 1;
        r.n_samples = SAMPLES;
        r.sample_s = malloc(SAMPLES * sizeof *r.sample_s);
        r.sample_clock_mhz = malloc(SAMPLES * sizeof *r.sample_clock_mhz);
        if (!r.sample_s || !r.sample_clock_mhz ||
            nb_case_create(&c, k % 2 ? "cold" : "warm", k % 2 ? NB_CACHE_COLD : NB_CACHE_WARM,
                           "gpu-fast", NB_BACKEND_GPU, "fwd logn=16 L=8 q60 w64") != NB_OK) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        for (int i = 0; i < SAMPLES; i++) {
            r.sample_s[i] = 12e-6 + 1e-9 * (double)((i * 37 + k) % 101);
            r.sample_clock_mhz[i] = 1980;
        }
        r.stats.n = SAMPLES; /* a few figures: the writer's cost is the samples */
        r.stats.median = r.stats.mean = r.stats.p10 = r.stats.p90 = 12.05e-6;
        r.stats.min = 12e-6;
        r.stats.max = 12.1e-6;
        if (nb_case_param_int(c, "log_n", 16) != NB_OK || nb_case_set_result(c, &r) != NB_OK) {
            fprintf(stderr, "%s\n", nb_last_error());
            return 1;
        }
        nb_bench_result_free(&r);
        nb_case_set_status(c, NB_CASE_OK, NULL);
        nb_case_set_wall_time(c, 0.3);
        if (nb_report_add_case(rep, c) != NB_OK) {
            fprintf(stderr, "%s\n", nb_last_error());
            return 1;
        }
    }
    for (int w = 1; w <= 3; w++) {
        const double t0 = now_s();
        if (nb_report_write_file(rep, NB_FORMAT_JSON, argv[1]) != NB_OK) {
            fprintf(stderr, "%s\n", nb_last_error());
            return 1;
        }
        printf("write %d: %.3f s\n", w, now_s() - t0);
    }
    nb_report_destroy(rep);
    return 0;
}

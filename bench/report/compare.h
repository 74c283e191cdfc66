/* The comparison of `nttbench run` result files, one run or several repeated
 * runs per side: cases matched by tier, variant, backend, mode, cache state
 * and parameters (the seed excepted); per matched case both medians, the
 * ratio new/base with an interval that covers the run-to-run variance (the
 * spread of repeated runs, or an assumed run-to-run noise when each side has
 * one run) as well as the within-run one, the within-run test on the samples
 * (Hodges-Lehmann on log times, Moses interval, two-sided Mann-Whitney U),
 * the same on cycles (time x SM clock, so a clock change is told apart from a
 * code change), contention, and a verdict; environment and option
 * differences; unmatched cases. Writers for table, markdown, CSV and JSON. */
#ifndef NB_COMPARE_H
#define NB_COMPARE_H

#include <stdio.h>

#include "bench/report/result_file.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nb_verdict {
    NB_VERDICT_SAME = 0,     /* no change beyond the threshold */
    NB_VERDICT_FASTER,       /* significantly faster, by more than the threshold */
    NB_VERDICT_SLOWER,       /* significantly slower, by more than the threshold */
    NB_VERDICT_CLOCK,        /* the time changed, the cycles did not: an SM clock change */
    NB_VERDICT_NOISY,        /* inconclusive and a noise target was not met */
    NB_VERDICT_CONTENDED,    /* not judged: a run of either side was contended (--strict
                              * judges it) */
    NB_VERDICT_INSUFFICIENT  /* too few stored samples, or a case that did not run */
} nb_verdict;
#define NB_VERDICT_COUNT 7

const char *nb_verdict_name(nb_verdict v);

/* How cases pair up. */
typedef enum nb_compare_match {
    NB_MATCH_SAME = 0, /* the same case: tier, variant, backend, mode, cache state, params */
    NB_MATCH_WORD      /* each 32-bit case of new with the 64-bit case of base of the same
                          tier, backend, mode, cache state and parameters (direction, log N,
                          ...) whose log Q is nearest, at most one prime's bits away (the
                          larger prime_bits of the two): 32- against 64-bit words */
} nb_compare_match;

/* The assumed run-to-run noise: the standard deviation of one run's log
 * median around the code's true time (per cent), by backend, and how many
 * degrees of freedom it weighs against the spread of repeated runs. The GPU
 * value is above what repeated H100 runs showed (docs/methodology.md,
 * "Comparing runs"); the CPU value is an assumption for a quiet host. */
#define NB_RUN_NOISE_GPU_PCT 1.0
#define NB_RUN_NOISE_CPU_PCT 2.0
#define NB_RUN_NOISE_PRIOR_DF 4.0
/* Repeated runs whose variance is above the assumed noise's at this p-value
 * (a one-sided chi-square test) are pooled without the assumed noise. */
#define NB_RUN_NOISE_CONFLICT_P 0.001

typedef struct nb_compare_opts {
    double threshold_pct; /* practical threshold: changes within +-threshold are "same" (1) */
    double alpha;         /* significance level of the tests (0.01) */
    double level;         /* confidence level of the ratio interval (0.95) */
    size_t min_samples;   /* fewer stored samples on a side: insufficient data (5) */
    nb_compare_match match; /* NB_MATCH_SAME */
    double run_noise_pct; /* assumed run-to-run noise (%, see above); < 0: the backend's
                           * default; 0: none (the interval is within-run only unless a
                           * side has repeated runs) */
    int strict;           /* 1: judge contended cases like the others (0) */
    /* The fields the files' keys were told to leave out (nb_result_file_ignore:
     * parameter names, "variant"), named in the output; NULL-terminated, or
     * NULL when none. Matching reads the keys, not this list. */
    const char *const *ignored;
    /* Optional: the cases that take part (NULL: all). A case of either file
     * it answers 0 for is neither matched nor listed as unmatched. */
    int (*keep)(void *ctx, const nb_rf_case *c);
    void *keep_ctx;
} nb_compare_opts;

void nb_compare_opts_default(nb_compare_opts *o);

/* Which variance a row's interval and p-value cover. */
typedef enum nb_variance_source {
    NB_VARIANCE_WITHIN = 0, /* the samples of one run per side only (run noise 0) */
    NB_VARIANCE_FLOOR,      /* the samples plus the assumed run-to-run noise (one run a side) */
    NB_VARIANCE_RUNS        /* the spread of the repeated runs' medians, pooled with the
                             * assumed noise */
} nb_variance_source;

const char *nb_variance_source_name(nb_variance_source s);

/* One test (times or cycles) of a matched case. */
typedef struct nb_compare_test {
    int done;            /* 0 when the data for it is missing */
    double ratio;        /* new / base (ratio of medians if !done) */
    double lo, hi;       /* confidence interval of the ratio (NaN if !done) */
    double p;            /* two-sided p-value (NaN if !done) */
    nb_verdict verdict;
} nb_compare_test;

typedef struct nb_compare_row {
    const nb_rf_case *base, *new_;   /* the case in the first file of each side */
    const nb_rf_case **base_run, **new_run; /* the case in each file of a side that holds
                                      * it, [0] = base / new_ (owned by the comparison) */
    size_t n_base_run, n_new_run;
    size_t base_runs, new_runs;      /* the runs the tests used (timed, status ok) */
    double base_median_ns, new_median_ns; /* of the first runs */
    nb_variance_source source;       /* what the time and cycle intervals cover */
    double run_noise_pct;            /* the assumed run-to-run noise used (%) */
    double run_sd_pct;               /* the standard deviation of one run's log median
                                      * the interval used (%), NaN for NB_VARIANCE_WITHIN */
    double df;                       /* degrees of freedom of the interval's quantile
                                      * (INFINITY: normal) */
    int contended;                   /* bit 0: a base run, bit 1: a new run was contended */
    nb_compare_test within;          /* the samples of the first runs: Hodges-Lehmann
                                      * ratio, Moses interval, Mann-Whitney p */
    nb_compare_test time;            /* the test the verdict rests on */
    nb_compare_test cycles;
    nb_clock_source cycle_source; /* the weaker of the two sides' clock sources */
    double base_clock_mhz, new_clock_mhz; /* median SM clock of each side (NaN if none) */
    nb_verdict verdict;
    char note[320];
} nb_compare_row;

typedef struct nb_env_diff {
    char field[64];  /* "environment.gpu.name", "options.min_time_s" */
    char base[128];
    char new_[128];  /* compact JSON of the values ("-" when absent) */
} nb_env_diff;

typedef struct nb_comparison {
    const nb_result_file *base, *new_; /* the first file of each side */
    const nb_result_file **base_files, **new_files; /* every file of each side */
    size_t n_base_files, n_new_files;
    const nb_rf_case **run_cases;     /* storage of the rows' base_run / new_run */
    nb_compare_opts opts;
    nb_compare_row *rows;
    size_t n_rows;
    const nb_rf_case **unmatched_base, **unmatched_new;
    size_t n_unmatched_base, n_unmatched_new;
    nb_env_diff *env_diffs;
    size_t n_env_diffs;
    size_t counts[NB_VERDICT_COUNT];
    /* Repeated runs of one side whose environment or timing options differ
     * from the side's first run ("base run 2: environment.host.cpu", "new run
     * 3: options.sets"; base = the first run's value, new_ = that run's): they
     * are pooled as one experiment. */
    nb_env_diff *run_diffs;
    size_t n_run_diffs;
} nb_comparison;

/* Matches and tests every case of one run per side. Cases with the same key
 * are paired in order of appearance. Errors: no case matches
 * (NB_ERR_INVALID_ARG, message naming both files), invalid options,
 * allocation failure. The files must outlive the comparison. */
nb_status nb_compare(const nb_result_file *base, const nb_result_file *new_,
                     const nb_compare_opts *opts, nb_comparison **out);

/* The same with repeated runs: n_base >= 1 files of the base code and n_new
 * >= 1 of the new one. Cases pair up between base[0] and new_[0]; each other
 * file of a side contributes its case of the same key (the k-th of equal keys
 * for the k-th), when it has one. */
nb_status nb_compare_runs(const nb_result_file *const *base, size_t n_base,
                          const nb_result_file *const *new_, size_t n_new,
                          const nb_compare_opts *opts, nb_comparison **out);
void nb_comparison_destroy(nb_comparison *c);

/* The matched cases that ran in base's first run (status ok) and failed their
 * check or erred in new's (status verify-failed or error): wrong or broken
 * now, whatever their time. */
size_t nb_comparison_broken(const nb_comparison *c);
/* 1 when some case is slower beyond the threshold, or broken
 * (nb_comparison_broken): the CLI's exit code 1; a contended case is never
 * slower (unless strict, when it was judged); always 0 under NB_MATCH_WORD (a
 * word-size comparison is no regression). */
int nb_comparison_regressed(const nb_comparison *c);

/* Writes the comparison: fmt "table", "md", "csv" or "json". */
nb_status nb_comparison_write(const nb_comparison *c, const char *fmt, FILE *f);


#ifdef __cplusplus
}
#endif
#endif

/* The comparison of two `nttbench run` result files: cases matched by tier,
 * variant, backend, mode, cache state and parameters (the seed excepted); per
 * matched case both medians, the ratio new/base with its confidence interval
 * (Hodges-Lehmann on log times, Moses interval), two-sided Mann-Whitney U
 * p-values on the times and on the cycles (time x SM clock, so a clock change
 * is told apart from a code change), and a verdict; environment and option
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
    NB_VERDICT_INSUFFICIENT  /* too few stored samples, or a case that did not run */
} nb_verdict;
#define NB_VERDICT_COUNT 6

const char *nb_verdict_name(nb_verdict v);

/* How cases pair up. */
typedef enum nb_compare_match {
    NB_MATCH_SAME = 0, /* the same case: tier, variant, backend, mode, cache state, params */
    NB_MATCH_WORD      /* each 32-bit case of new with the 64-bit case of base of the same
                          tier, backend, mode, cache state and parameters (direction, log N,
                          ...) whose log Q is nearest, at most one prime's bits away (the
                          larger prime_bits of the two): 32- against 64-bit words */
} nb_compare_match;

typedef struct nb_compare_opts {
    double threshold_pct; /* practical threshold: changes within +-threshold are "same" (1) */
    double alpha;         /* significance level of the U test (0.01) */
    double level;         /* confidence level of the ratio interval (0.95) */
    size_t min_samples;   /* fewer stored samples on a side: insufficient data (5) */
    nb_compare_match match; /* NB_MATCH_SAME */
    /* Optional: the cases that take part (NULL: all). A case of either file
     * it answers 0 for is neither matched nor listed as unmatched. */
    int (*keep)(void *ctx, const nb_rf_case *c);
    void *keep_ctx;
} nb_compare_opts;

void nb_compare_opts_default(nb_compare_opts *o);

/* One test (times or cycles) of a matched case. */
typedef struct nb_compare_test {
    int done;            /* 0 when the data for it is missing */
    double ratio;        /* new / base (Hodges-Lehmann on logs; ratio of medians if !done) */
    double lo, hi;       /* confidence interval of the ratio (NaN if !done) */
    double p;            /* two-sided Mann-Whitney p-value (NaN if !done) */
    nb_verdict verdict;
} nb_compare_test;

typedef struct nb_compare_row {
    const nb_rf_case *base, *new_;
    double base_median_ns, new_median_ns;
    nb_compare_test time;
    nb_compare_test cycles;
    nb_clock_source cycle_source; /* the weaker of the two sides' clock sources */
    double base_clock_mhz, new_clock_mhz; /* median SM clock of each side (NaN if none) */
    nb_verdict verdict;
    char note[200];
} nb_compare_row;

typedef struct nb_env_diff {
    char field[64];  /* "environment.gpu.name", "options.min_time_s" */
    char base[128];
    char new_[128];  /* compact JSON of the values ("-" when absent) */
} nb_env_diff;

typedef struct nb_comparison {
    const nb_result_file *base, *new_;
    nb_compare_opts opts;
    nb_compare_row *rows;
    size_t n_rows;
    const nb_rf_case **unmatched_base, **unmatched_new;
    size_t n_unmatched_base, n_unmatched_new;
    nb_env_diff *env_diffs;
    size_t n_env_diffs;
    size_t counts[NB_VERDICT_COUNT];
} nb_comparison;

/* Matches and tests every case. Cases with the same key are paired in order
 * of appearance. Errors: no case matches (NB_ERR_INVALID_ARG, message naming
 * both files), invalid options, allocation failure. */
nb_status nb_compare(const nb_result_file *base, const nb_result_file *new_,
                     const nb_compare_opts *opts, nb_comparison **out);
void nb_comparison_destroy(nb_comparison *c);

/* 1 when some case is slower beyond the threshold (the CLI's exit code 1);
 * always 0 under NB_MATCH_WORD (a word-size comparison is no regression). */
int nb_comparison_regressed(const nb_comparison *c);

/* Writes the comparison: fmt "table", "md", "csv" or "json". */
nb_status nb_comparison_write(const nb_comparison *c, const char *fmt, FILE *f);


#ifdef __cplusplus
}
#endif
#endif

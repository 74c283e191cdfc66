/* The commands that work on result files and parameters rather than on a
 * device: `compare` (two runs), `report` (the methods paragraph of a run) and
 * `primes` (NTT-friendly primes and their minimal roots). Each returns the
 * process exit code (0 ok, 1 regression for compare, 2 bad usage or input,
 * 3 I/O failure) and prints one "nttbench: error: ..." line on failure. */
#ifndef NB_CLI_PAPER_H
#define NB_CLI_PAPER_H

#include "bench/bench.h"
#include "bench/report/result_file.h"

/* One "nttbench: warning: ..." line on stderr (unless quiet) when a result
 * file is incomplete or interrupted (nb_result_file_completeness). */
void nb_cli_warn_incomplete(const nb_result_file *f, int quiet);

/* The bounds section of `report` (report_bounds.c): the ceilings (`override`
 * when non-NULL, else the file's, else the defaults for its GPU), the rule,
 * the count per class and each GPU NTT case with its fractions and kernels.
 * *calibrated: every ceiling measured (calibration or the run). 0 and
 * nothing written when the file has no GPU NTT case to classify. */
int nb_cli_report_bounds(FILE *f, const nb_result_file *rf, const nb_ceilings *override, int md,
                         int *calibrated);

int nb_cmd_compare(int argc, char **argv, nb_format fmt, const char *output, int quiet);
int nb_cmd_report(int argc, char **argv, nb_format fmt, const char *output, int quiet);
int nb_cmd_primes(int argc, char **argv, nb_format fmt, const char *output, int quiet);

void nb_cmd_compare_help(FILE *f);
void nb_cmd_report_help(FILE *f);
void nb_cmd_primes_help(FILE *f);

#endif

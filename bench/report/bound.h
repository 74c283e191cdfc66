/* Shared by the report writers and the `report` command (not installed):
 * the text forms of a bound, a kernel and the ceilings, and the bound of a
 * case read back from a run report's JSON (the classification itself and
 * the ceilings are public: bench/report/report.h). */
#ifndef NB_BOUND_H
#define NB_BOUND_H

#include <stddef.h>

#include <jansson.h>

#include "bench/report/report.h"

/* "72 % bfly, 31 % copy, 9 % launch: compute-bound" ("-" for a fraction
 * that is unknown); refined by a profiler pass: "72 % bfly, 31 % copy, 9 %
 * launch (compute-bound); profiler DRAM 35 %, issue slots 64 %: compute-bound". */
void nb_bound_text(const nb_bound *b, char *buf, size_t n);

/* "rows 2^8-point, 16/thread: 128 threads, regs 96, local 0 B, smem 0+33024 B,
 * occ 38 % (6 blocks/SM), 1 launch, 1024 blocks". */
void nb_kernel_text(const nb_ntt_kernel *k, char *buf, size_t n);

/* The ceilings and where each comes from, one line. */
void nb_ceilings_text(const nb_ceilings *c, char *buf, size_t n);

/* The ceilings of a run report (its top-level object): its "ceilings" block
 * when present, else the defaults for its GPU (environment.gpu: measured
 * copy bandwidth, SMs, default clock). 0 when the report has neither (a CPU
 * run). */
int nb_ceilings_from_report_json(const json_t *root, nb_ceilings *c);

/* Up to `max` kernels of a case's "kernels" array into out; their number. */
size_t nb_kernels_from_json(const json_t *case_json, nb_ntt_kernel *out, size_t max);

/* The bound of a case object of a run report: 1 (and *out) for a timed GPU
 * NTT case (backend "gpu", params log_n and limbs, stats.median) or a
 * timed one-GPU stage case (tier "stage", params log_n, the metrics of
 * nb_stage_floors), its word size from params.word_bits (64 when absent)
 * and its kernel launches from its "kernels" (1 when absent), refined by its
 * "profile" when it has one; 0 otherwise. */
int nb_bound_of_case_json(const json_t *case_json, const nb_ceilings *c, nb_bound *out);

#endif

/* Internal to bench/report/: the case and report structures the writers
 * read, the helpers they share (JSON builders, CSV field quoting, the text
 * cells of the table and markdown writers) and the per-row judgement that
 * compare.c calls. */
#ifndef NB_BENCH_REPORT_INTERNAL_H
#define NB_BENCH_REPORT_INTERNAL_H

#include <jansson.h>
#include <stdio.h>

#include "bench/report/report.h"

typedef enum { P_INT, P_STR, P_U64S, P_REAL } param_type;

typedef struct param {
    char key[48];
    param_type type;
    long long i;   /* P_INT: the value; P_REAL: its decimals */
    double r;      /* P_REAL: the value, rounded to i decimals */
    char *s;
    uint64_t *list;
    size_t n;
} param;

typedef struct metric {
    char key[48];
    double v;
} metric;

struct nb_case {
    char tier[16];
    nb_cache_state cache;
    char variant[64];
    nb_backend backend;
    char label[160];
    param *params;
    size_t n_params;
    metric *metrics;
    size_t n_metrics;
    nb_case_status status;
    nb_status cause;      /* behind an error case; NB_OK when not set */
    char message[512];
    int has_result, has_figures, has_breakdown;
    nb_bench_result result;
    nb_ntt_figures fig;
    nb_breakdown *bd;
    int kernels_state; /* 0 not recorded, 1 reported (kernels), 2 not reported (kernels_why) */
    nb_ntt_kernel kernels[NB_CASE_MAX_KERNELS];
    size_t n_kernels;
    char kernels_why[200];
    int trace_state; /* 0 not asked for, 1 recorded (trace), 2 not recorded (trace_why) */
    nb_trace *trace;
    char trace_why[400];
    int has_profile;
    nb_profile profile;
    double wall_s; /* the case from its build to its row (NAN: not recorded) */
    char *json_text; /* its element of a JSON report's "cases" (json_doc.c), once written */
    size_t json_len;
};

struct nb_report {
    char kind[32];
    json_t *argv;
    int has_env, has_opts, has_ceilings;
    nb_env env;
    nb_bench_opts opts;
    nb_ceilings ceilings;
    nb_case **cases;
    size_t n, cap;
    int interrupted; /* the sweep stopped early on a signal */
    int complete;    /* -1 unknown (not written), 0 the sweep is still running, 1 done */
    size_t cases_planned; /* 0 = unknown */
    double wall_s;        /* the run so far (NAN: not recorded) */
    int json_have_ceilings;   /* the ceilings the cases' JSON texts were made with */
    nb_ceilings json_ceilings;
};

/* report.c: a case's parameter by key (NULL when absent) and metric by key
 * (NAN when absent), for the writers that read single figures. */
const param *nb_case_param_find(const nb_case *c, const char *key);
double nb_case_metric_find(const nb_case *c, const char *key);

/* json_value.c: v as a JSON real, null when not finite */
json_t *nb_json_real(double v);
/* json.c */
json_t *nb_opts_to_json(const nb_bench_opts *o);
json_t *nb_nvml_to_json(const nb_nvml_snapshot *s);
json_t *nb_env_to_json(const nb_env *e);
nb_status nb_report_write_json(const nb_report *r, FILE *f);
/* A case's object, its `bound` judged against ceil (NULL: none), and the
 * ceilings' object (json_doc.c writes the document). */
json_t *nb_case_to_json(const nb_case *c, const nb_ceilings *ceil);
json_t *nb_ceilings_to_json(const nb_ceilings *c);
/* The build's object: compiler, flags, CUDA architectures, OpenMP. */
json_t *nb_build_to_json(void);
/* trace_json.c: the `trace` object of a case (times relative to origin_ns) */
json_t *nb_trace_to_json(const nb_trace *t);
/* k of the indices 0..n-1 chosen uniformly by reservoir sampling (Algorithm
 * R, generator seeded with `seed`), ascending; min(n, k) of them. Allocated
 * (caller frees); NULL when out of memory. */
size_t *nb_report_reservoir(size_t n, size_t k, uint64_t seed);

/* csv.c: s as one CSV field (RFC 4180: quoted when it holds a comma, quote
 * or line break, quotes doubled). */
void nb_csv_write_field(FILE *f, const char *s);
nb_status nb_report_write_csv(const nb_report *r, FILE *f);

/* text.c: the columns of the table and markdown writers */
enum { NB_TEXT_COLS = 13 };
extern const char *const nb_text_col_names[NB_TEXT_COLS];
/* 1 for the right-aligned (numeric) columns */
int nb_text_col_numeric(int k);
/* cells[i][k] for every case (caller frees *out). */
nb_status nb_text_cells(const nb_report *r, char (**out)[NB_TEXT_COLS][200]);
void nb_text_fmt_time(char *buf, size_t n, double s);
/* text_value.c: a fraction as a percentage with `decimals` decimals ("72 %",
 * "72.4 %"), "-" when not finite. */
void nb_text_fmt_pct(char *buf, size_t n, double frac, int decimals);
/* The breakdown sections after the table (md: markdown tables). */
void nb_text_write_breakdowns(const nb_report *r, FILE *f, int md);
/* report.c: for a sweep still running (or killed) or interrupted, one closing
 * line with the cases so far and the planned count; nothing when complete or
 * when the report never recorded its plan. */
void nb_report_write_completion(const nb_report *r, FILE *f, int md);
/* The per-NTT comparison of the stage cases (warm, cold, in-stage ns per
 * limb-transform and the in-stage ratios); nothing without stage metrics. */
void nb_text_write_stage_ntt(const nb_report *r, FILE *f, int md);
/* words.c: stage cases on 32-bit words beside their 64-bit twins (the
 * same stage at the nearest log Q), when the report holds such pairs. */
void nb_text_write_word_pairs(const nb_report *r, FILE *f, int md);
/* The largest log Q difference at which a 32-bit case pairs with a 64-bit
 * one (this section, `compare --match word`): one prime's bits, the larger
 * of the two cases' prime_bits, where a value that is not finite or not
 * positive counts as unrecorded; 62 when neither records one. */
double nb_word_pair_tolerance(double prime_bits_a, double prime_bits_b);
/* env_write.c: the environment and command line opening a table or
 * markdown report; nothing when the report has no environment. */
void nb_env_write_block(const nb_report *r, FILE *f, int md);
/* table.c, markdown.c */
nb_status nb_report_write_table(const nb_report *r, FILE *f);
nb_status nb_report_write_markdown(const nb_report *r, FILE *f);

/* bound_write.c: the ceilings the report's GPU NTT cases are classified
 * against (set, else the defaults for its GPU); 0 when there are none (no
 * GPU in the environment and none set). */
int nb_report_ceilings(const nb_report *r, nb_ceilings *c);
/* 1 and *b for a timed GPU NTT case (its figures, its kernels' launches) or
 * a timed one-GPU stage case (nb_stage_floors), refined by its profiler
 * pass when it has one (nb_bound_refine). */
int nb_case_bound(const nb_case *c, const nb_ceilings *ceil, nb_bound *b);
/* The section after the table: each GPU case's bound and kernels. */
void nb_text_write_bounds(const nb_report *r, FILE *f, int md);
/* overhead.c: where the run's time went (nb_report_overhead), after the
 * table; nothing without a timed case. */
void nb_text_write_overhead(const nb_report *r, FILE *f, int md);
/* trace_write.c: the "Kernel trace" section of each traced case (per step:
 * event time, kernel time, busy, gaps, overlap, kernels), and one line per
 * distinct reason a trace was not recorded; nothing when no case asked. */
void nb_text_write_traces(const nb_report *r, FILE *f, int md);

/* compare.c: a JSON value as text in buf (n bytes, cut to fit): a string
 * as is, "-" for NULL, anything else as compact JSON. */
void nb_json_text(const json_t *v, char *buf, size_t n);

/* For an unmatched case x of one side of a comparison, why, from the other
 * side's first file `other` and its unmatched cases spare[0..n_spare):
 * " (the case of new with this label differs: params.x 1 -> 2; --ignore with
 * those fields pairs them)" for a spare case of the same tier, variant and
 * label; else, with `nearest`, " (the nearest case of new, LABEL, differs:
 * ...)" for the spare case of the same tier that o's filter keeps and that
 * differs in the fewest fields, up to three (each key parsed: for the error of
 * a comparison and short lists); else the first case of `other` with the same
 * tier, variant and label, matched or not, without the hint; else "". The
 * hint comes only when every field that differs is a parameter or the
 * variant (compare.c). */
struct nb_rf_case;
struct nb_result_file;
struct nb_compare_opts;
void nb_compare_why_unmatched(const struct nb_rf_case *x, const struct nb_result_file *other,
                              const struct nb_rf_case *const *spare, size_t n_spare,
                              int x_is_base, const struct nb_compare_opts *o, int nearest,
                              char *buf, size_t cap);
/* compare_case.c: the tests and verdict of one matched row whose base, new_,
 * base_run and new_run are set; n_base_files / n_new_files: the runs of each
 * side (for the note when a run lacks the case). Errors: allocation failure,
 * samples the rank statistics refuse. */
struct nb_compare_row;
struct nb_compare_opts;
nb_status nb_compare_judge_row(struct nb_compare_row *r, const struct nb_compare_opts *o,
                               size_t n_base_files, size_t n_new_files);

#endif

/* Reading `nttbench run` result files (schema "nttbench-report", versions 1-4,
 * docs/cli.md): every case with its matching key, median, stored samples and
 * per-sample SM clocks (or the case's recorded clock when those are absent),
 * plus the environment and options blocks for the report and compare
 * commands. A malformed or wrong-schema file is refused with NB_ERR_IO
 * (unreadable, not JSON, compressed) or NB_ERR_INVALID_ARG (wrong schema or
 * field types), and a one-line message naming the file and the cause. */
#ifndef NB_RESULT_FILE_H
#define NB_RESULT_FILE_H

#include <stddef.h>

#include <jansson.h>

#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NB_RESULT_SCHEMA "nttbench-report"
#define NB_RESULT_SCHEMA_MAX_VERSION 4
/* The largest time a file may hold (1e15 ns, 11.6 days): a median or sample
 * beyond it, or not above 0, is refused as damaged. */
#define NB_RF_MAX_TIME_NS 1e15
/* The largest SM clock a file may record, MHz: beyond it a clock is damage. */
#define NB_RF_MAX_CLOCK_MHZ 1e5

/* Where a case's cycle counts come from. */
typedef enum nb_clock_source {
    NB_CLOCK_NONE = 0,   /* no SM clock known (CPU cases) */
    NB_CLOCK_RECORDED,   /* one clock for the case: NVML before/after, else the default */
    NB_CLOCK_PER_SAMPLE  /* sample_sm_clock_mhz: one clock per sample */
} nb_clock_source;

const char *nb_clock_source_name(nb_clock_source s);

/* One case of a result file; strings and arrays are owned by the file. */
typedef struct nb_rf_case {
    const char *tier, *variant, *backend, *label, *status, *mode;
    const char *key;             /* matching key: tier, variant, backend, mode x K, cache
                                  * state and every parameter but the seed, word_bits and
                                  * log_q */
    const char *word_key;        /* the key without the variant and the modulus's make-up
                                  * (limbs, prime_bits, primes, psi, log_q_target): what
                                  * compare --match word pairs across word sizes */
    unsigned prime_bits;         /* params.prime_bits (0 when absent) */
    size_t launches_per_sample;
    unsigned word_bits;          /* params.word_bits: 64 or 32 (64 when absent: before v4) */
    double log_q;                /* params.log_q, else log2 of the product of params.primes,
                                  * else NaN */
    int has_stats;               /* stats present (something was timed) */
    double median_ns;            /* stats.median, NaN without stats */
    double noise_pct;            /* stats.noise_pct, NaN without stats */
    int noise_target_met;        /* stopping.noise_target_met (0 when absent) */
    const char *stop_reason;     /* stopping.reason or "" */
    int contended;               /* "contended": true (the host interfered; CPU cases) */
    const char *contention_reason; /* contention.reason, or "" */
    const double *samples_ns;    /* samples_ns, n_samples of them (may be 0) */
    size_t n_samples;
    size_t n_recorded_samples;   /* stats.samples (> n_samples when the writer capped) */
    int samples_reservoir;       /* samples_selection "reservoir": samples_ns is a seeded
                                  * reservoir sample of the n_recorded_samples accepted */
    nb_clock_source clock_source;
    const double *clock_mhz;     /* per sample when clock_source == NB_CLOCK_PER_SAMPLE */
    double recorded_clock_mhz;   /* the case's single clock, NaN when unknown */
    double median_clock_mhz;     /* median of the per-sample clocks, else the recorded one */
    const json_t *json;          /* the case object (borrowed) */
} nb_rf_case;

typedef struct nb_result_file nb_result_file;

/* Reads and validates `path`. On failure *out is NULL and the message names
 * the file ("base.json: ..."). */
nb_status nb_result_file_load(nb_result_file **out, const char *path);
void nb_result_file_destroy(nb_result_file *f);

/* From now on, matches the cases of f without the parameters named in
 * `params` (NULL-terminated, or NULL; on top of those a key always leaves
 * out) and, when `variant` is 1, the key without the variant (the word key
 * never has it): key and word_key are recomputed, nothing else of a stage
 * case's key changes (compare --ignore). Other fields are unchanged; two
 * cases of f may then share a key. */
nb_status nb_result_file_ignore(nb_result_file *f, const char *const *params, int variant);
/* 1 when no key ever holds the parameter `name` (the seed, word_bits,
 * log_q); with word 1, when no word key does (also the variant, the
 * modulus's make-up and a stage set's chain). */
int nb_result_file_key_leaves_out(const char *name, int word);
/* The matching key of case object c (malloc'd; NULL when out of memory):
 * with word 0 nb_rf_case.key (the variant in it when with_variant is 1), with
 * word 1 the word key (never the variant); the parameters named in `also`
 * (NULL-terminated, or NULL) are left out on top of what a key leaves out. */
char *nb_rf_case_key(const json_t *c, const char *const *also, int word, int with_variant);
/* 1 when a case of f has the parameter `name` (params.NAME), else 0. */
int nb_result_file_has_param(const nb_result_file *f, const char *name);

const char *nb_result_file_path(const nb_result_file *f);
size_t nb_result_file_case_count(const nb_result_file *f);
const nb_rf_case *nb_result_file_case(const nb_result_file *f, size_t i);
/* The whole document, its "environment" and "options" objects (NULL when
 * null or absent); borrowed. */
const json_t *nb_result_file_json(const nb_result_file *f);
const json_t *nb_result_file_env(const nb_result_file *f);
const json_t *nb_result_file_options(const nb_result_file *f);

/* Whether a file holds every case its run planned. */
typedef enum nb_rf_completeness {
    NB_RF_COMPLETE = 0, /* "complete": true, not interrupted */
    NB_RF_UNKNOWN,      /* no "complete" field (files from before it), not interrupted */
    NB_RF_INCOMPLETE,   /* "complete": false: written while its run was still going
                         * (still running, or killed) */
    NB_RF_INTERRUPTED,  /* "interrupted": true: a signal stopped the sweep early */
    NB_RF_SHORT         /* complete or unknown, but fewer cases than its "cases_planned":
                         * cases were removed from the file after its run */
} nb_rf_completeness;

/* The file's completeness; for NB_RF_INCOMPLETE, NB_RF_INTERRUPTED and
 * NB_RF_SHORT `why` (n bytes) gets one line naming the file, what happened
 * and the case counts ("" otherwise). */
nb_rf_completeness nb_result_file_completeness(const nb_result_file *f, char *why, size_t n);

/* Value at a dotted path ("gpu.name", "host.cpu") under obj, or NULL. */
const json_t *nb_json_path(const json_t *obj, const char *path);

#ifdef __cplusplus
}
#endif
#endif

/* The report model (cases collected into a report with the environment and
 * the options) and its writers: one per format (json.c, table.c,
 * markdown.c, csv.c) behind nb_report_write, and the atomic file writer. */
#ifndef NB_BENCH_REPORT_H
#define NB_BENCH_REPORT_H

#include <stdio.h>

#include "bench/timing/env.h"
#include "bench/timing/trace.h"
#include "bench/timing/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Figures of one NTT case (docs/methodology.md, "Bandwidth model"). */
typedef struct nb_ntt_figures {
    double coefficient_bytes;   /* 2 * W * N * L (W = 8 or 4 bytes, the variant's word): each
                                   coefficient read and written once */
    double twiddle_bytes;       /* 2 * W * N * L: the table and its Shoup companions, read once */
    double bandwidth_Bps;       /* coefficient_bytes / median */
    double bandwidth_with_twiddles_Bps; /* (coefficient + twiddle bytes) / median */
    double frac_copy;           /* bandwidth_Bps / measured copy bandwidth (NAN unknown) */
    double frac_peak;           /* bandwidth_Bps / theoretical peak (NAN unknown) */
    double butterflies_per_s;   /* N/2 * log N * L / median */
} nb_ntt_figures;


/* Where a ceiling of nb_ceilings comes from. */
typedef enum nb_ceiling_source {
    NB_CEILING_NONE = 0,    /* unknown: the fractions against it are NaN */
    NB_CEILING_RUN,         /* measured by the run itself (its environment's copy bandwidth) */
    NB_CEILING_CALIBRATION, /* a `nttbench calibrate` file */
    NB_CEILING_DEFAULT      /* the documented defaults (docs/methodology.md, "Bounds") */
} nb_ceiling_source;

const char *nb_ceiling_source_name(nb_ceiling_source s); /* "none", "run", ... */

/* The device's ceilings a GPU NTT case is classified against. */
typedef struct nb_ceilings {
    double copy_Bps;            /* device copy bandwidth, bytes read + written per second */
    double butterflies_per_s;   /* butterfly ceiling on 64-bit words */
    double butterflies32_per_s; /* butterfly ceiling on 32-bit words */
    double launch_ns;           /* one empty kernel's device time, as a per-launch sample sees it */
    double boundary_ns;         /* what each further kernel of a call adds */
    nb_ceiling_source copy_source, butterfly_source, launch_source;
    char calibration[256];      /* the calibration file read ("" none) */
    char calibration_gpu[128];  /* the GPU it was made on ("" unknown) */
} nb_ceilings;

/* A case is bound by a ceiling when it reaches at least this fraction of
 * it, and the most of the three; below it for all three, latency-bound. */
#define NB_BOUND_THRESHOLD 0.5

typedef enum nb_bound_class {
    NB_BOUND_UNKNOWN = 0, /* no ceiling known, or no time */
    NB_BOUND_COMPUTE,     /* the butterfly ceiling */
    NB_BOUND_MEMORY,      /* the copy bandwidth */
    NB_BOUND_LAUNCH,      /* the cost of launching the call's kernels */
    NB_BOUND_LATENCY      /* below the threshold of every ceiling */
} nb_bound_class;

const char *nb_bound_class_name(nb_bound_class c); /* "compute-bound", ..., "unknown" */

/* A case against the ceilings: each fraction is the floor that ceiling sets
 * (bytes / copy bandwidth, butterflies / butterfly ceiling, the launch
 * floor) over the measured time, NaN when the ceiling is unknown. */
typedef struct nb_bound {
    double copy_floor_s, butterfly_floor_s, launch_floor_s;
    double frac_copy, frac_butterfly, frac_launch;
    unsigned kernel_launches; /* kernels launched by the call (1 when not reported) */
    nb_bound_class cls;
    /* After nb_bound_refine: the profiler's DRAM throughput and issue-slot
     * use (fractions of peak; NAN without a profile) and the class the
     * timing alone gave (cls is then the refined one). */
    double profile_dram, profile_issue;
    int refined;
    nb_bound_class timing_cls;
} nb_bound;

/* Classifies one case: median_s the measured time per call, `bytes` the
 * coefficient bytes (read and written once), `butterflies` N/2 log N L,
 * word_bits 64 or 32 (which butterfly ceiling), kernel_launches (0 read as
 * 1) for the launch floor launch_ns + (launches - 1) x boundary_ns. The
 * class is the ceiling with the largest fraction when that fraction is at
 * least NB_BOUND_THRESHOLD, else NB_BOUND_LATENCY; NB_BOUND_UNKNOWN when
 * median_s is not a positive time or no fraction is known (a NULL c: no
 * ceiling known; a NULL out: nothing written). Pure. */
void nb_bound_classify(double median_s, double bytes, double butterflies, unsigned word_bits,
                       unsigned kernel_launches, const nb_ceilings *c, nb_bound *out);

/* The floors' inputs of a one-GPU stage case (bench/tiers/stage.h's
 * metrics): bytes = bytes_per_launch (its input, its output and, for a key
 * switch, the key, each once), butterflies = N/2 log N x (fwd_limbs +
 * inv_limbs), the NTTs' butterflies only (the conversions' and the inner
 * product's multiply-adds are not counted: the compute fraction is a lower
 * bound, and the profiler's issue-slot figure is what tells compute-bound).
 * 1 and both set, or 0 when an input is missing (NaN) or out of range. Pure. */
int nb_stage_floors(unsigned log_n, double fwd_limbs, double inv_limbs, double bytes_per_launch,
                    double *bytes, double *butterflies);

/* A profiler's figure is taken as a bound at this fraction of its peak. */
#define NB_BOUND_PROFILE_THRESHOLD 0.6

/* Refines a classified bound with a profiler pass's time-weighted DRAM
 * throughput and issue-slot use (fractions of peak, NAN unknown): unless
 * the timing made it launch-bound (the profiler times kernels, not the gaps
 * between them), the class becomes memory-bound when DRAM is the larger of
 * the two and at least NB_BOUND_PROFILE_THRESHOLD, compute-bound when issue
 * is, else latency-bound. Nothing changes when either figure is unknown or
 * the class is unknown, and nothing is written to a NULL b. Pure. */
void nb_bound_refine(nb_bound *b, double dram_frac, double issue_frac);

/* The defaults for a device of sm_count SMs at sm_clock_mhz: copy_Bps as
 * given (the run's own measurement, source "run"; <= 0: unknown), the
 * butterfly ceilings of the H100 calibration (877.1 G/s on 64-bit words,
 * 2648.2 G/s on 32-bit words, 132 SMs at 1980 MHz) scaled by SMs x clock
 * (unknown when either is <= 0), its launch cost (3136 ns, 800 ns per further
 * kernel); sources "default". A NULL c is left alone. */
void nb_ceilings_default(nb_ceilings *c, double copy_Bps, int sm_count, double sm_clock_mhz);

/* Overrides the ceilings a `nttbench calibrate` JSON file (schema
 * "nttbench-calibration", GPU backend) holds: copy_bandwidth_Bps,
 * butterflies_per_s, butterflies32_per_s, launch_device_ns and
 * kernel_boundary_pdl_ns (the boundary is their difference), source
 * "calibration"; the rest of *c is kept. NB_ERR_IO (unreadable, not JSON) or
 * NB_ERR_INVALID_ARG (another schema, a CPU calibration, a value not a
 * positive number), with a message naming the file. */
nb_status nb_ceilings_load(nb_ceilings *c, const char *path);
/* path "-" reads standard input (to its end). */

/* Sets in *dst what src took from a calibration (each ceiling whose source
 * is NB_CEILING_CALIBRATION and, for the butterflies, each word size's
 * positive value; the file and GPU names); the rest of *dst is kept.
 * Nothing happens when either is NULL. */
void nb_ceilings_overlay(nb_ceilings *dst, const nb_ceilings *src);

typedef enum nb_format {
    NB_FORMAT_TABLE = 0, /* aligned text for a terminal */
    NB_FORMAT_MD = 1,    /* GitHub markdown table */
    NB_FORMAT_CSV = 2,   /* one row per case, RFC 4180 quoting */
    NB_FORMAT_JSON = 3   /* everything, every sample (docs/cli.md, schema) */
} nb_format;

const char *nb_format_name(nb_format f);
nb_status nb_format_parse(const char *s, nb_format *out);

#define NB_REPORT_SCHEMA "nttbench-report"
/* 4: every case's params carry "word_bits" (64 or 32) and "log_q" (log2 of
 * the product of its primes, one decimal); 3: seeds are decimal strings and
 * a run can be "interrupted"; 2: every
 * case has "cache_state" (warm, flush, rotate, both) and its "cache" plan a
 * "state"; "tier" keeps its version-1 words ("warm"/"cold" for the NTT tier,
 * "stage"); docs/cli.md. */
#define NB_REPORT_SCHEMA_VERSION 4
/* A case's JSON keeps at most this many samples ("samples_stored"): beyond
 * it a reservoir seeded from the case seed ("samples_selection"); the
 * statistics use every accepted sample. */
#define NB_REPORT_MAX_STORED_SAMPLES 10000

typedef enum nb_case_status {
    NB_CASE_OK = 0,
    NB_CASE_VERIFY_FAILED, /* wrong result: reported, never timed (or caught after timing) */
    NB_CASE_ERROR,         /* the case could not run (message says why) */
    NB_CASE_SKIPPED,       /* not applicable (size outside the variant's range, ...) */
    NB_CASE_INTERRUPTED    /* sampling stopped by an interrupt: statistics of the samples
                              taken, verified after them */
} nb_case_status;

const char *nb_case_status_name(nb_case_status s);

/* One row of a report: what was measured (tier, cache state, variant,
 * parameters) and the
 * result. Parameters are ordered key/value pairs ("direction"="forward",
 * "log_n"=16, "limbs"=8 ...); metrics are extra named numbers ("per_ntt_ns"). */
typedef struct nb_case nb_case;

/* `tier` is the report's tier word ("warm", "cold", "stage"...; at most 15
 * characters), `cache` the state the case ran in. */
nb_status nb_case_create(nb_case **out, const char *tier, nb_cache_state cache,
                         const char *variant, nb_backend backend, const char *label);
void nb_case_destroy(nb_case *c);
nb_status nb_case_param_int(nb_case *c, const char *key, long long value);
nb_status nb_case_param_str(nb_case *c, const char *key, const char *value);
/* Values up to 2^63 - 1 (JSON integers); NB_ERR_INVALID_ARG beyond. */
nb_status nb_case_param_u64_list(nb_case *c, const char *key, const uint64_t *v, size_t n);
/* A real parameter kept and written with `decimals` (0..9) decimals ("log_q"). */
nb_status nb_case_param_real(nb_case *c, const char *key, double value, int decimals);
nb_status nb_case_metric(nb_case *c, const char *key, double value);
/* Status and a one-line message (copied; NULL = none). */
void nb_case_set_status(nb_case *c, nb_case_status s, const char *message);
/* Copies r (samples included; a NULL sample_clock_mhz reads as every clock
 * unknown); NB_ERR_INVALID_ARG for samples counted without their array. */
nb_status nb_case_set_result(nb_case *c, const nb_bench_result *r);
void nb_case_set_figures(nb_case *c, const nb_ntt_figures *f);
/* Copies b; NB_ERR_OUT_OF_MEMORY (case unchanged) when the copy cannot be made. */
nb_status nb_case_set_breakdown(nb_case *c, const nb_breakdown *b);
/* The kernels a GPU case's call launched, with their resources (copied; at
 * most NB_CASE_MAX_KERNELS kept), or with k NULL that they were not reported
 * and why (`why`, copied: "the variant does not report its kernels"). */
#define NB_CASE_MAX_KERNELS 24
nb_status nb_case_set_kernels(nb_case *c, const nb_ntt_kernel *k, size_t n, const char *why);
/* The kernel trace of the case's marked launch (copied, activities, marks and
 * per-device figures included), or with t NULL that it was not recorded and why
 * (`why`, copied: "built without CUPTI"). NB_ERR_OUT_OF_MEMORY (case unchanged). */
nb_status nb_case_set_trace(nb_case *c, const nb_trace *t, const char *why);
/* A profiler pass of the case's call (copied). */
void nb_case_set_profile(nb_case *c, const nb_profile *p);
nb_case_status nb_case_get_status(const nb_case *c);
/* The samples the case's result holds: 0 when it was not timed (a case that
 * failed its check before timing, an error, a skipped case). */
size_t nb_case_sample_count(const nb_case *c);
/* The nb_status behind an error case (NB_ERR_INVALID_ARG: the parameters cannot
 * run here, e.g. they do not fit in memory); NB_OK when not set. */
void nb_case_set_cause(nb_case *c, nb_status cause);
nb_status nb_case_get_cause(const nb_case *c);
const char *nb_case_get_message(const nb_case *c); /* "" when none */

/* The name a case is listed and selected by (`nttbench run --list`,
 * `--filter` of run and compare): "<warm|cold> <variant> <label>", then
 * " <mode>" unless the label already ends with the mode's name (a stage
 * case's does): "warm cpu-harvey fwd logn=16 L=8 q60 w64 logQ=480.0
 * per-launch". `warm` is 1 for a warm cache state, 0 for any cold one;
 * `mode` may be NULL. Truncated to fit buf (n >= 1). */
void nb_case_name(char *buf, size_t n, int warm, const char *variant, const char *label,
                  const char *mode);

typedef struct nb_report nb_report;

/* `kind`: "run", "verify", ... (the "command" field of the JSON). */
nb_status nb_report_create(nb_report **out, const char *kind);
void nb_report_destroy(nb_report *r);
nb_status nb_report_set_argv(nb_report *r, int argc, char *const *argv);
/* Marks the report as cut short (a signal stopped the sweep). */
void nb_report_set_interrupted(nb_report *r, int interrupted);
/* A sweep written as it runs: `cases_planned` cases are planned (0 =
 * unknown), and from now on the JSON says "complete": false (its last key)
 * until nb_report_set_complete(r, 1) after the sweep's last case. A report
 * that never calls either has neither field ("completeness unknown"). */
void nb_report_set_planned(nb_report *r, size_t cases_planned);
void nb_report_set_complete(nb_report *r, int complete);
void nb_report_set_env(nb_report *r, const nb_env *e);
void nb_report_set_options(nb_report *r, const nb_bench_opts *o);
/* The ceilings its GPU NTT cases are classified against (copied). Without
 * them the writers use nb_ceilings_default for the report's GPU. */
void nb_report_set_ceilings(nb_report *r, const nb_ceilings *c);
/* Takes ownership of c (also on failure). */
nb_status nb_report_add_case(nb_report *r, nb_case *c);
size_t nb_report_case_count(const nb_report *r);
const nb_case *nb_report_case_at(const nb_report *r, size_t i);

/* The run's wall time so far, the environment probe and the case list
 * included (the writers give where it went: nb_report_overhead). */
void nb_report_set_wall_time(nb_report *r, double wall_s);
/* The case's wall time from its build (plans, tables, inputs) to its row. */
void nb_case_set_wall_time(nb_case *c, double wall_s);

/* Where a run's time went, summed over its timed cases (those with a
 * result). Each case's own figures are its result's (setup_s, verify_s,
 * warmup_s, wall_s of the sampling phase, run_s) and its wall time (its
 * result's run_s when not recorded). NAN where the run's wall time was not
 * recorded; 0 sums without a timed case. */
typedef struct nb_overhead {
    size_t cases;              /* timed cases */
    size_t samples, syncs;     /* accepted samples; batches of the sampling phases */
    double wall_s;             /* the run (nb_report_set_wall_time) */
    double cases_s;            /* the timed cases, build to row */
    double measured_s;         /* the samples' measured time */
    double sampling_s;         /* the sampling phases' wall time */
    double outside_s;          /* cases_s - sampling_s */
    double outside_per_case_s; /* outside_s / cases */
    double setup_s;            /* buffer sets drawn and copied in, flush scratch */
    double verify_s;           /* the checks before and after timing */
    double warmup_s;           /* the warm-ups */
    double build_s;            /* the rest of the cases: plans, tables, oracle, row */
    double between_s;          /* wall_s - cases_s: environment, case list, reports, cases
                                  not timed */
} nb_overhead;
/* Fills *o from r's cases (all zero for a NULL r; nothing for a NULL o). */
void nb_report_overhead(const nb_report *r, nb_overhead *o);

/* Writes the report to `f` in format `fmt`. */
nb_status nb_report_write(const nb_report *r, nb_format fmt, FILE *f);

/* Where an output path leads (nb_output_classify). */
typedef enum nb_output_kind {
    NB_OUTPUT_STDOUT,  /* "-", /dev/stdout, /dev/fd/1: the stdout stream */
    NB_OUTPUT_REGULAR, /* an existing regular file (after following symlinks) */
    NB_OUTPUT_NEW,     /* nothing there yet, its folder exists */
    NB_OUTPUT_STREAM   /* a device, FIFO or socket, or any path under /dev or /proc */
} nb_output_kind;

/* Classifies `path` before anything is written; `resolved` (PATH_MAX bytes)
 * receives the path written to (symlinks followed; "-" for stdout).
 * NB_ERR_INVALID_ARG for a directory, a missing folder or a link loop. */
nb_status nb_output_classify(const char *path, nb_output_kind *kind, char *resolved);

/* Writes through `fn` into `path`. A regular file or a new path gets
 * `path` + ".tmp.<pid>", flushed, fsynced and renamed over it (a reader never
 * sees a truncated file; no temporary is left behind, signals included); a
 * symlink is followed and its target replaced, the link kept; a device, FIFO
 * or /dev path is written through; "-" = stdout; a directory is refused. */
typedef nb_status (*nb_writer_fn)(void *ctx, FILE *f);
nb_status nb_write_file_atomic(const char *path, nb_writer_fn fn, void *ctx);

/* Claims an output path before a command spends time on what it will write:
 * for a regular file or a new path, checks that nb_write_file_atomic can
 * write it (an existing file is writable, a file can be created in its
 * folder) and takes an advisory lock, flock on `resolved path` + ".lock"
 * holding this process id, so that a second writer of the same path is
 * refused instead of replacing the first one's file. *out is NULL for stdout,
 * devices and FIFOs (nothing is claimed). NB_ERR_IO with one line naming the
 * path: not writable, or held by another process (its id). */
typedef struct nb_output_claim nb_output_claim;
nb_status nb_output_claim_take(nb_output_claim **out, const char *path);
/* The lock file's path of a claim (`resolved path` + ".lock"; NULL for
 * NULL); valid until the claim is released. */
const char *nb_output_claim_lock_path(const nb_output_claim *c);
/* Releases the lock and removes the lock file; accepts NULL. */
void nb_output_claim_release(nb_output_claim *c);

/* nb_report_write into a file, atomically ("-" = stdout). */
nb_status nb_report_write_file(const nb_report *r, nb_format fmt, const char *path);

/* The environment alone (nttbench env): table, md, csv (key,value) or JSON
 * (schema "nttbench-env", schema_version 1, then the block's fields). */
nb_status nb_env_write(const nb_env *e, nb_format fmt, FILE *f);

#ifdef __cplusplus
}
#endif
#endif

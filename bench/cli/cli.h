/* Internal interface of the nttbench command-line tool: argument parsing
 * helpers (lists, ranges, numbers, --direction), the options of `run` (tiers
 * and cache states), the stage tier's options and the commands. Only the CLI
 * prints and exits; everything it measures goes through the library's tier
 * table (bench/tiers/tiers.h).
 *
 * Exit codes: 0 success, 1 a verification failed, 2 bad usage, 3 environment
 * error (no device for a GPU variant, CUDA/IO failure, plug-in failure). */
#ifndef NB_CLI_H
#define NB_CLI_H

#include <jansson.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/bench.h"
#include "bench/tiers/stage.h"

#define NB_EXIT_OK 0
#define NB_EXIT_VERIFY 1
#define NB_EXIT_USAGE 2
#define NB_EXIT_ENV 3

#define NB_CLI_MAX_LIST 64

/* ------------------------------------------------------------- parsing */

/* Unsigned list: "12:17" (inclusive range), "10:16:2" (step), "1,8,32", or a
 * mix "10:12,16". Each value in [lo, hi]; at most `max` values; duplicates
 * removed, order kept. NB_ERR_INVALID_ARG with a message naming `flag`. */
nb_status nb_cli_parse_ulist(const char *s, const char *flag, unsigned long long lo,
                             unsigned long long hi, unsigned long long *out, size_t max,
                             size_t *n);
/* Comma-separated words into out[] (pointers into a copy kept in *storage,
 * which the caller frees). Empty items are an error. */
nb_status nb_cli_parse_words(const char *s, const char *flag, char **storage, char **out,
                             size_t max, size_t *n);
/* nb_cli_parse_words without repeats, order kept: a variant or preset named
 * twice runs once, as a repeated --logn value does. */
nb_status nb_cli_parse_names(const char *s, const char *flag, char **storage, char **out,
                             size_t max, size_t *n);
/* Numbers with range checks. Every numeric option goes through these: strict
 * decimal only (bench/cli/numparse.h): the whole string, no sign, blanks,
 * base prefix or leading zero. */
nb_status nb_cli_parse_double(const char *s, const char *flag, double lo, double hi,
                              double *out);
nb_status nb_cli_parse_size(const char *s, const char *flag, unsigned long long lo,
                            unsigned long long hi, size_t *out);
/* --direction of run and verify: "forward", "inverse" (or fwd, inv), a
 * comma list of both, or "both"; *out = bit 0 forward | bit 1 inverse. */
nb_status nb_cli_parse_directions(const char *s, int *out);
/* 64-bit unsigned, the full range 0 .. 2^64 - 1. */
nb_status nb_cli_parse_u64(const char *s, const char *flag, uint64_t *out);

/* One option of a command: "--name VALUE" / "--name=VALUE" (takes_value) or
 * "--name" (flag). */
typedef struct nb_cli_option {
    const char *name; /* without the leading "--" */
    int takes_value;
    const char *help; /* "VALUE  what it does (default)" */
} nb_cli_option;

/* Iterates argv[*i]: returns 1 and sets *name / *value for an option of
 * `table` (value from "=..." or the next argument), 0 at a positional
 * argument (left alone), -1 on an unknown option, a missing value (the next
 * argument is one that nb_cli_looks_like_option: the value was left out, and
 * taking the option after it as the value would misread both), or an
 * option taking a value that argv[0..*i) already gave (message set: a second
 * --variant would silently replace the first). *i is advanced past what was
 * consumed. argv[0] must be the command's first argument. */
int nb_cli_next_option(int argc, char **argv, int *i, const nb_cli_option *const *tables,
                       const char **name, const char **value);

/* After nb_cli_next_option refused argument a: when a names no option of
 * `tables` but one of the `other` tables (another mode of the command), the
 * message becomes "--NAME <why>"; NB_ERR_INVALID_ARG either way. */
nb_status nb_cli_other_mode(const char *a, const nb_cli_option *const *tables,
                            const nb_cli_option *const *other, const char *why);

/* Prints an option table as help. */
void nb_cli_print_options(FILE *f, const nb_cli_option *table);

/* The option tables each command's parser reads (NULL-terminated; verify
 * --stage reads nb_cli_verify_stage_tables). */
extern const nb_cli_option *const nb_cli_run_tables[], *const nb_cli_verify_tables[],
    *const nb_cli_verify_stage_tables[], *const nb_cli_calibrate_tables[],
    *const nb_cli_transform_tables[], *const nb_cli_check_tables[],
    *const nb_cli_compare_tables[], *const nb_cli_report_tables[], *const nb_cli_primes_tables[];
/* The timing options run and calibrate share (bench/cli/run_args.c). */
extern const nb_cli_option nb_cli_timing_options[];

/* 1 when argument a is "--name" without "=VALUE" and names an option of
 * `tables` that takes a value (so the next argument is that value), else 0. */
int nb_cli_takes_value(const nb_cli_option *const *tables, const char *a);

/* stat() of a file argument, '-' being whatever standard input is (fstat);
 * 0 on success, as stat. */
struct stat;
int nb_cli_stat_arg(const char *path, struct stat *st);

/* Whether argument a, read as the value of option --opt, is a long option
 * ("--" and a name, not "--" alone): then the value was left out (a value
 * that starts with "--" is written --opt=VALUE, a file ./--name). Sets the
 * message "option --opt needs a value before 'a' (...)" when it is. */
int nb_cli_looks_like_option(const char *opt, const char *a);

/* ------------------------------------------------------------- selection */

#define NB_CLI_MAX_FILTERS 16

/* --filter REGEX (repeatable) of run, verify and compare (filter.c): POSIX
 * extended regular expressions, matched anywhere in a case's name. */
typedef struct nb_cli_filter {
    regex_t re[NB_CLI_MAX_FILTERS];
    size_t n;
} nb_cli_filter;

/* Compiles one more pattern; NB_ERR_INVALID_ARG naming it and why otherwise. */
nb_status nb_cli_filter_add(nb_cli_filter *f, const char *pattern);
/* 1 when no pattern is given or any of them matches `name`, else 0. */
int nb_cli_filter_match(const nb_cli_filter *f, const char *name);
void nb_cli_filter_free(nb_cli_filter *f);

/* ------------------------------------------------------------- the run */

typedef enum nb_cli_backend { NB_CLI_AUTO = -1, NB_CLI_CPU = 0, NB_CLI_GPU = 1 } nb_cli_backend;
/* --backend of every command: "cpu", "gpu" or "auto"; NB_ERR_INVALID_ARG naming the value otherwise. */
nb_status nb_cli_parse_backend(const char *v, nb_cli_backend *out);

/* One tier of a run and the cache states it runs in (bit (1 << state) each;
 * 0 = the states --cache names, else the tier's defaults). */
typedef struct nb_cli_tier {
    const nb_tier *tier;
    unsigned states;
} nb_cli_tier;

typedef struct nb_cli_run {
    nb_bench_opts timing;           /* timing.cache: the cold state (--cold, default both) */
    nb_cli_tier tiers[8];           /* --tier, in order (default: ntt warm, ntt cold) */
    size_t n_tiers;
    unsigned cache_states;          /* --cache: bit (1 << state) each; 0 = not given */
    nb_cli_backend backend;
    char *variant_storage;
    char *variants[NB_CLI_MAX_LIST];/* explicit --variant list; n_variants = 0: all of backend */
    size_t n_variants;
    unsigned long long logn[NB_CLI_MAX_LIST];
    size_t n_logn;
    unsigned long long limbs[NB_CLI_MAX_LIST];
    size_t n_limbs;
    unsigned long long bits[NB_CLI_MAX_LIST];
    size_t n_bits;
    int directions;                 /* bit 0 forward, bit 1 inverse */
    nb_mode modes[3];
    size_t n_modes;
    uint64_t seed;
    int seed_given;
    int progress;                   /* -1 auto (after 3 s), 0 never, 1 always */
    int given_logn, given_limbs;    /* the user chose them (else defaults per backend) */
    int given_bits, given_word;     /* --bits, --word given (else defaults per word size) */
    int given_direction;            /* --direction given */
    const char *given_cold, *given_sets, *given_batch; /* their values, when given */
    unsigned words;                 /* --word: NB_CLI_WORD(64) | NB_CLI_WORD(32) (default 64) */
    unsigned long long log_q[NB_CLI_MAX_LIST]; /* --logq targets (replace --limbs) */
    size_t n_log_q;
    void *stage;                    /* the stage tier's own parsed options (tier_stage.c) */
    nb_cli_filter filter;           /* --filter: the cases kept (all when none) */
    int list;                       /* --list / --dry-run: print the cases, run nothing */
    const char *calibration;        /* --calibration FILE (NULL: the default ceilings) */
    nb_ceilings calibrated;         /* what FILE sets, read once when parsed ('-' too) */
    int profile;                    /* --profile: an ncu pass after each GPU NTT case */
    double profile_timeout_s;       /* --profile-timeout (60) */
    int given_profile_timeout;      /* --profile-timeout was given */
    const char *given_gpu_sampling; /* "batch-samples" or "queue-ahead" when given, else NULL */
    const char *profile_case;       /* internal: the one case a profiler pass's target runs */
} nb_cli_run;

/* The bit of a word size (64 or 32) in nb_cli_run.words and verify's set. */
#define NB_CLI_WORD(bits) ((bits) == 32 ? 2u : 1u)
/* --word LIST of run and verify: "64", "32" or both; *out = NB_CLI_WORD bits. */
nb_status nb_cli_parse_words_bits(const char *s, unsigned *out);
/* NB_ERR_INVALID_ARG naming the variant when its word size is not in `words`
 * (an explicit --word list), else NB_OK. */
nb_status nb_cli_check_word(const nb_ntt_variant *v, unsigned words);

/* The registered variant `name` in *v: NB_OK; else NB_ERR_NO_DEVICE for a GPU
 * built-in this build lacks (no CUDA), NB_ERR_NOT_FOUND otherwise, the
 * message set. */
nb_status nb_cli_find_variant(const char *name, const nb_ntt_variant **v);

/* The plan pass of `run` (run_list.c): the select callback of a plan-only
 * sweep (nb_tier_run.plan_only) counts the cases --filter keeps and sums
 * their time estimate; with `list` set it also prints each one's name. */
typedef struct nb_cli_plan {
    const struct nb_cli_run *run;
    FILE *list;              /* --list: one name per line here; NULL: count only */
    int stage;               /* the tier being planned is the stage tier */
    size_t cases, skipped;   /* kept (skipped rows included), of which skipped */
    size_t unfit;            /* cases that would not fit the host's or the GPU's memory */
    size_t fails;            /* cases known to end as error rows before they are built */
    double lo_s, hi_s;       /* the timed runs: expected (--min-time and each sample's
                                cost beside it), at --timeout */
    double outside_s;        /* outside the samples, estimated */
    int any_cpu;             /* a CPU case: the environment probe measures the host */
    int any_gpu;             /* a GPU case: its samples have events beside them */
    const char *no_gpu;      /* --list without a usable GPU: why its GPU cases will fail */
} nb_cli_plan;
int nb_cli_plan_case(void *ctx, const nb_case_plan *c);
/* "N cases (K skipped), estimated ... to ...: ..." and a newline. */
void nb_cli_plan_print_total(const nb_cli_plan *p, FILE *f);
/* The select callback of the real sweep: --filter (ctx: the nb_cli_run). */
int nb_cli_keep_case(void *ctx, const nb_case_plan *c);

/* What a run shares while it executes. */
typedef struct nb_cli_ctx {
    nb_report *report;
    nb_env env;
    void *stream;        /* a GPU stream when the run uses GPU variants, else NULL */
    int quiet;
    double start_s;
    size_t case_no;      /* cases done so far (progress) */
    size_t case_total;   /* cases planned (progress; 0 = unknown) */
    const struct nb_cli_run *run;
    const char *output;  /* rewritten after each case when a file (regular or new), else NULL */
    nb_format fmt;
    double written_s, write_cost_s; /* when the file was last rewritten, and how long it took */
    int timed;           /* some case was timed: the file may be rewritten (cmd_run.c) */
    struct nb_cli_profiler *profiler; /* --profile's pass, or the target's mode */
} nb_cli_ctx;

/* The variants a run uses (explicit list or all of the resolved backend);
 * called once per run. */
nb_status nb_cli_run_variants(const nb_cli_run *run, const nb_ntt_variant **out, size_t max,
                              size_t *n);

/* 1 when `output` names a file to be written (a regular file or a new path),
 * not stdout, a device or a FIFO: the commands that write a non-table format
 * there also print their short table on stdout. 0 for NULL. */
int nb_cli_output_is_file(const char *output);

/* cmd_info.c: the host environment as a titled block (table or markdown) opening the
 * output of `verify`, then the title of the checks that follow. */
nb_status nb_cli_write_env_heading(nb_format fmt, FILE *f);

/* " (~1m05s left)": the time left after k of `total` items took `elapsed_s`,
 * at the mean pace so far; "" when k is 0 or beyond total. */
void nb_cli_eta(char *buf, size_t n, double elapsed_s, size_t k, size_t total);

/* Progress line on stderr ("[3/12] warm cpu-harvey fwd logn=12 ... 12.3 us (~20s left)") when
 * the sweep has run for more than 3 s (or --progress), never with --quiet. */
void nb_cli_progress(nb_cli_ctx *ctx, const nb_cli_run *run, const char *what,
                     const char *result);

/* Library warnings -> stderr ("nttbench: warning: ...") unless quiet. */
void nb_cli_log(void *ctx, const char *msg);

/* Parses the options of `run` into *run (defaults first). 0 on success; on
 * bad usage prints nothing, sets the message and returns NB_EXIT_USAGE. */
int nb_cli_run_parse(int argc, char **argv, nb_cli_run *run);
void nb_cli_run_free(nb_cli_run *run);
/* The words of argv (run's options, as nb_cli_run_parse took them) that a
 * profiler pass's target repeats, into out[] (at most max; their count):
 * every option but --profile, --profile-timeout, --filter, --seed, --list,
 * --dry-run, --progress and --no-progress. */
int nb_cli_run_target_args(int argc, char **argv, char **out, int max);

/* --profile (run_profile.c): nb_cli_profile_setup finds ncu and reads its
 * version, and says on one line why there will be no pass (no ncu, no GPU
 * variant) or what it does not cover (CPU cases, the stage tier).
 * `full_argv` is the process's command line (its --plugin options are
 * repeated), `argc`/`argv` run's options. nb_cli_profile_attach sets a
 * sweep's profile callback when there will be a pass, and its
 * profile_call for the target of one (--profile-case). *p must outlive the
 * sweep; nb_cli_profile_free releases it. */
typedef struct nb_cli_profiler {
    char ncu[4096], exe[4096], version[32], seed[24];
    const nb_cli_run *run;
    int quiet;
    char **argv; /* the pass's command line (NULL: no pass): ncu's options, the target's */
    int argc, name_at, cache_at; /* where the case name and --cache-control value go */
} nb_cli_profiler;
void nb_cli_profile_setup(nb_cli_profiler *p, const nb_cli_run *run,
                          const nb_ntt_variant *const *vars, size_t nv, int full_argc,
                          char **full_argv, int argc, char **argv, int quiet);
void nb_cli_profile_attach(nb_cli_profiler *p, nb_tier_run *tr);
void nb_cli_profile_free(nb_cli_profiler *p);

/* The cache states tier entry t runs in (its own, --cache, or its defaults). */
unsigned nb_cli_tier_states(const nb_cli_run *run, const nb_cli_tier *t);
/* The bit of one cache state in a set of states. */
#define NB_CLI_STATE(s) (1u << (s))
void nb_cli_run_help(FILE *f);

/* ------------------------------------------------------------- stage options */

/* The stage tier's `run` options (tier_stage.c): parsed into run->stage (an
 * nb_stage_tier_opts with its storage) and the preset list of `nttbench list`. */
extern const nb_cli_option nb_cli_stage_options[];
nb_status nb_cli_stage_set(nb_cli_run *run, const char *name, const char *value);
/* After parsing: a stage option in a run without the stage tier, --rounding
 * without rescale among the stages, or a custom set's options (--levels,
 * --dnum, ...) together with --preset or without --levels, are bad usage
 * (NB_ERR_INVALID_ARG). */
nb_status nb_cli_stage_check(nb_cli_run *run);
/* The parsed options for nb_tier_run.tier_opts (defaults when none given). */
const nb_stage_tier_opts *nb_cli_stage_opts(nb_cli_run *run);
/* The word sizes (NB_CLI_WORD bits) of the sets given with --preset, 0 if
 * none: variants chosen without --word include them. */
unsigned nb_cli_stage_words(const nb_cli_run *run);
/* Presets for `nttbench list`: a text section (markdown when md) and a JSON
 * array of {"name", "description", ...} objects (new reference). */
void nb_cli_stage_list_text(FILE *f, int md);
json_t *nb_cli_stage_list_json(void);
void nb_cli_stage_free(nb_cli_run *run);
/* --stage LIST (`run` and `verify`): names of modup, moddown, keyswitch and
 * rescale, each kept once in the order first given; an empty item or an
 * unknown name is bad usage naming --stage. */
nb_status nb_cli_parse_stages(const char *list, nb_ckks_stage out[4], size_t *n);

/* ------------------------------------------------------------- commands */

int nb_cmd_env(int argc, char **argv, nb_format fmt, const char *output);
int nb_cmd_list(int argc, char **argv, nb_format fmt, const char *output);
int nb_cmd_verify(int argc, char **argv, nb_format fmt, const char *output, int quiet);
/* `verify --stage LIST`: CKKS stages against the GMP reference (cmd_verify_stage.c). */
int nb_cmd_verify_stage(int argc, char **argv, nb_format fmt, const char *output, int quiet);
int nb_cmd_calibrate(int argc, char **argv, nb_format fmt, const char *output, int quiet);
int nb_cmd_run(int argc, char **argv, char **full_argv, int full_argc, nb_format fmt,
               const char *output, int quiet);
int nb_cmd_transform(int argc, char **argv);
int nb_cmd_check(int argc, char **argv, nb_format fmt, const char *output);

/* Bytes of one value of the variant's data: 8, or 4 for 32-bit words. */
size_t nb_cli_word_bytes(const nb_ntt_variant *v);
/* A buffer of n words of the variant (verify, transform) between two guards:
 * NB_CLI_LEAD_BYTES before the words (a multiple of the 256-byte alignment
 * they keep) and 8 bytes a word after them. nb_cli_words_ptr is the first
 * word's address. nb_cli_words_guard sets both guards (check 0) or checks
 * them (check 1: hit->side -1 when a byte before the words changed, 1 after
 * them, 0 neither; hit->byte how far from the words); nb_cli_guard_hit_text
 * words a hit as one clause and returns whether there was one. */
#define NB_CLI_LEAD_BYTES 256
typedef struct nb_cli_guard_hit {
    int side;
    size_t byte;
} nb_cli_guard_hit;
nb_status nb_cli_words_create(nb_buffer **out, const nb_ntt_variant *v, size_t n);
void *nb_cli_words_ptr(const nb_buffer *buf);
nb_status nb_cli_words_guard(nb_buffer *buf, const nb_ntt_variant *v, size_t n, int check,
                             nb_cli_guard_hit *hit, void *stream);
int nb_cli_guard_hit_text(const nb_cli_guard_hit *hit, const nb_ntt_variant *v, size_t n,
                          char *out, size_t len);
/* n values a[] (each below 2^word_bits) into the words of a buffer of
 * nb_cli_words_create in the variant's word size (a[] is narrowed in place
 * for the copy and restored), and back from it (widened into a[]); on
 * `stream` for a GPU buffer. */
nb_status nb_cli_upload_words(nb_buffer *buf, const nb_ntt_variant *v, uint64_t *a, size_t n,
                              void *stream);
nb_status nb_cli_download_words(nb_buffer *buf, const nb_ntt_variant *v, uint64_t *a, size_t n,
                                void *stream);

/* Prints "nttbench: error: <msg>" as one line (control characters in msg,
 * e.g. a newline inside an argument, are written as \n, \t or \xHH) and
 * returns the exit code for status s (1 verify, 2 usage, 3 environment). */
int nb_cli_fail(nb_status s, const char *msg);
/* Exit code of a status: NB_OK 0, VERIFY 1, INVALID_ARG/NOT_FOUND/UNSUPPORTED 2,
 * everything else 3. */
int nb_cli_exit_code(nb_status s);
/* No usable GPU for `vars`: prints the reason naming the first GPU variant
 * (or --backend gpu when none is) and returns the environment exit code. */
int nb_cli_fail_no_gpu(const nb_ntt_variant *const *vars, size_t nv);

/* Coefficient files (raw little-endian uint64, limb-major, or text: one
 * decimal number per line, limb after limb). Format "raw", "text" or "auto"
 * (by extension: .txt / .text = text, else raw). A read takes at most `max`
 * values (`why` follows the count in the message of a file with more). */
nb_status nb_cli_read_coeffs(const char *path, const char *format, size_t max, const char *why,
                             uint64_t **out, size_t *n);
/* The most values `check` reads from a file: N * L of the largest transform
 * (2^NB_MAX_LOG_N coefficients of 256 limbs). */
#define NB_CLI_COEFF_MAX ((size_t)256 << NB_MAX_LOG_N)
nb_status nb_cli_write_coeffs(const char *path, const char *format, const uint64_t *v,
                              size_t n);

#endif

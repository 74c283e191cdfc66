/* ckks/ module header: RNS-CKKS parameter sets (presets and custom), their
 * precomputed constants, and the stage pipelines that surround the NTT
 * (fast base conversion, modUp, key-switch inner product, modDown, full key
 * switch, rescale) on the CPU and the GPU.
 *
 * Every NTT a pipeline performs goes through the variant interface
 * (nb_ntt_forward / nb_ntt_inverse of the nb_ntt built from the variant
 * passed to nb_ckks_create), so swapping the variant swaps the NTT inside
 * every stage. docs/ckks.md describes the parameter sets, the algorithms,
 * the data layouts and the error bounds.
 *
 * Bases. A set has N = 2^log_n, the ciphertext basis Q = {q_0, ..., q_L}
 * (the base: q0_count primes of q0_bits; then the scaling primes of q_bits,
 * or, when rescale drops g = 2 primes, pairs whose product has about q_bits
 * bits) and the special basis P = {p_0, ..., p_(alpha-1)} of p_bits,
 * alpha = ceil((L+1)/dnum). Levels count primes: level l has l+1 limbs, and
 * rescale from level l drops the top g primes (to level l-g).
 * All L+1+alpha primes are distinct, NTT-friendly (q = 1 mod 2N) and
 * generated deterministically by nb_primes_generate (largest first).
 * At level l (0 <= l <= L) the ciphertext basis is Q_l = {q_0..q_l}; the
 * extended basis is B_l = Q_l u P. Digit j of level l holds the primes
 * q_i with j*alpha <= i < min((j+1)*alpha, l+1); level l has
 * ceil((l+1)/alpha) digits.
 *
 * Layouts (all polynomials limb-major, N coefficients per limb, limbs
 * contiguous, each residue in [0, q)):
 *   poly over Q_l : l+1 limbs q_0..q_l.
 *   poly over B_l : l+1+alpha limbs q_0..q_l, p_0..p_(alpha-1).
 *   key-switch key: dnum digits x 2 components, each a poly over B_L
 *                   (L+1+alpha limbs), digit j component k at limb offset
 *                   (2j + k) * (L+1+alpha); nb_ckks_key_limbs() gives the
 *                   total. Level l < L uses limbs q_0..q_l and the P limbs.
 * Pointers passed to the pipelines are host memory for a CPU variant and
 * device memory for a GPU variant, of words of the variant's size (64-bit
 * or 32-bit, nb_ntt_variant.word_bits; a 32-bit variant needs every prime of
 * the set below 2^31). Outputs never alias inputs. Inputs are never
 * modified. */
#ifndef NB_CKKS_H
#define NB_CKKS_H

#include <stddef.h>
#include <stdint.h>

#include "ntt/ntt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Parameter sets                                                            */

/* What defines a set. The primes follow from these numbers alone. */
typedef struct nb_ckks_spec {
    unsigned log_n;   /* N = 2^log_n, in [NB_MIN_LOG_N, NB_MAX_LOG_N]          */
    unsigned levels;  /* L >= 1: Q has L+1 primes                              */
    unsigned dnum;    /* gadget digits, 1 <= dnum <= min(L+1, 64)              */
    unsigned q0_bits; /* bits of q_0                                           */
    unsigned q_bits;  /* bits of the scaling primes q_1..q_L                   */
    unsigned p_bits;  /* bits of the special primes                            */
    /* The fields below may be left 0 (the defaults in brackets). */
    unsigned word_bits;      /* [64] the word the set is made for; 32: every prime
                                below 2^31                                         */
    unsigned q0_count;       /* [1] primes of q0_bits at the base of Q            */
    unsigned rescale_primes; /* [1] primes rescale drops per level, 1 or 2; with 2
                                the scaling primes come in pairs whose product is
                                the largest below 2^q_bits the primes allow       */
} nb_ckks_spec;

/* A named set with the paper or library configuration it reproduces. */
typedef struct nb_ckks_preset {
    const char *name;
    nb_ckks_spec spec;
    const char *source; /* where the configuration comes from (one line) */
} nb_ckks_preset;

/* The built-in presets (docs/ckks.md, "Presets"). */
size_t nb_ckks_preset_count(void);
const nb_ckks_preset *nb_ckks_preset_at(size_t i); /* NULL past the end */
/* NULL and NB_ERR_NOT_FOUND in nb_last_error() if no preset has that name. */
const nb_ckks_preset *nb_ckks_preset_find(const char *name);

/* A generated parameter set: read-only after nb_ckks_params_create. */
typedef struct nb_ckks_params {
    nb_ckks_spec spec;
    char name[48];     /* preset name, or "custom" */
    unsigned log_n;
    size_t n;          /* 2^log_n */
    size_t max_level;  /* L */
    size_t q_count;    /* L + 1 */
    size_t alpha;      /* |P| = ceil((L+1)/dnum) */
    size_t dnum;
    unsigned word_bits;    /* spec.word_bits, 64 when 0 */
    size_t q0_count;       /* spec.q0_count, at least 1 */
    size_t rescale_primes; /* g: spec.rescale_primes, at least 1 */
    uint64_t *primes;  /* [q_count + alpha]: q_0..q_L, then p_0..p_(alpha-1) */
    const uint64_t *q; /* = primes           */
    const uint64_t *p; /* = primes + q_count */
    void *consts;      /* private: precomputed constants (ckks/consts.h) */
} nb_ckks_params;

/* Generates the primes and precomputes every constant of every level: the
 * base-conversion tables of each (level, digit) and of P -> Q_l, P^-1 mod q_i,
 * q_l^-1 mod q_i and floor(q_l/2) mod q_i. Errors (NB_ERR_INVALID_ARG, with
 * the reason): log_n out of range, levels outside [1, 255], dnum outside
 * [1, min(L+1, 64)], bit sizes outside [log_n + 2, 62] (31 for 32-bit
 * words), q0_count outside [1, L], rescale_primes outside [1, 2], L+1 -
 * q0_count not a multiple of rescale_primes, a pair's product above 62
 * bits, or too few primes of a size. */
nb_status nb_ckks_params_create(nb_ckks_params **out, const nb_ckks_spec *spec);
/* Same, from a preset name (NB_ERR_NOT_FOUND if unknown). */
nb_status nb_ckks_params_from_preset(nb_ckks_params **out, const char *name);
void nb_ckks_params_destroy(nb_ckks_params *p);

/* Number of digits at level l: ceil((l+1)/alpha) (0 for a NULL p). */
size_t nb_ckks_digits(const nb_ckks_params *p, size_t level);
/* First Q index and prime count of digit `digit` at level l (a NULL p: 0 and
 * 0; a NULL first or count is not written). */
void nb_ckks_digit_range(const nb_ckks_params *p, size_t level, size_t digit, size_t *first,
                         size_t *count);
/* Limbs of a key-switch key: dnum * 2 * (L+1+alpha) (0 for a NULL p). */
size_t nb_ckks_key_limbs(const nb_ckks_params *p);
/* Primes of B_l in layout order (q_0..q_l, p_0..p_(alpha-1)) into out[l+1+alpha].
 * Domain: level <= p->max_level; outside it (or with p or out NULL) nothing
 * is written. */
void nb_ckks_basis_ext(const nb_ckks_params *p, size_t level, uint64_t *out);

/* ------------------------------------------------------------------------ */
/* Fast base conversion (stand-alone plan; the pipelines use their own)     */

/* Conv_{C->B}: for input x given by residues x_i mod c_i (coefficient form),
 *   y_j = sum_i [x_i * chat_i^-1]_{c_i} * chat_i  mod b_j,
 * chat_i = C / c_i. As an integer the sum equals x + e*C with 0 <= e < |C|.
 * The primes of C must be distinct, as must those of B; every prime below
 * 2^62. */
typedef struct nb_baseconv_plan nb_baseconv_plan;

/* GPU: the table is uploaded on `stream` (the call returns once the copy
 * has completed); CPU: stream is ignored. */
nb_status nb_baseconv_plan_create(nb_baseconv_plan **out, nb_backend backend, unsigned log_n,
                                  const uint64_t *from, size_t n_from, const uint64_t *to,
                                  size_t n_to, void *stream);
void nb_baseconv_plan_destroy(nb_baseconv_plan *plan);
/* out: n_to limbs, in: n_from limbs (host or device memory, per the plan's
 * backend; GPU: asynchronous on `stream`). */
nb_status nb_baseconv_apply(const nb_baseconv_plan *plan, uint64_t *out, const uint64_t *in,
                            void *stream);

/* ------------------------------------------------------------------------ */
/* Stage pipelines                                                           */

/* Optional observer of the steps of a pipeline, called after each step has
 * been enqueued (GPU) or run (CPU). step: "intt", "ntt", "conv",
 * "inner-product", "scalar", "copy" or "ntt-scalar" (an NTT whose last
 * kernel also subtracts and scales: nb_ntt_forward_sub_scale, in place of an
 * "ntt" and a "scalar" step); is_ntt = 1 for NTT steps with
 * ntt_limbs limb-transforms (inverse = 1 for iNTT). A non-NB_OK return
 * aborts the pipeline with that status. The stage tier uses it to record
 * events between steps; pass NULL for no observer. */
typedef nb_status (*nb_ckks_step_fn)(void *user, const char *step, int is_ntt,
                                     size_t ntt_limbs, int inverse);
typedef struct nb_ckks_hook {
    nb_ckks_step_fn fn;
    void *user;
} nb_ckks_hook;

typedef enum nb_ckks_rounding {
    NB_CKKS_RESCALE_FLOOR = 0, /* default: floor(x / q_l) exactly            */
    NB_CKKS_RESCALE_ROUND = 1  /* round(x / q_l) = floor((x + floor(q_l/2)) / q_l) */
} nb_ckks_rounding;

/* Pipelines of one parameter set with one NTT variant: the nb_ntt over all
 * L+1+alpha primes, the constants (uploaded once for a GPU variant) and
 * every scratch buffer the pipelines need for any level, so nothing is
 * allocated on a timed path. The params must outlive it. A GPU variant
 * needs a device (NB_ERR_NO_DEVICE otherwise). Not thread-safe: one
 * pipeline call at a time per nb_ckks (the scratch is shared). */
typedef struct nb_ckks nb_ckks;

nb_status nb_ckks_create(nb_ckks **out, const nb_ckks_params *params,
                         const nb_ntt_variant *variant, void *stream);
void nb_ckks_destroy(nb_ckks *c);
const nb_ckks_params *nb_ckks_get_params(const nb_ckks *c);
nb_backend nb_ckks_backend(const nb_ckks *c);
nb_ntt *nb_ckks_get_ntt(nb_ckks *c);

/* modUp of digit `digit` at level l: in = poly over Q_l (NTT form), out =
 * poly over B_l (NTT form) whose digit limbs equal the input's and whose
 * other limbs are Conv_{digit -> B_l \ digit} of the digit:
 * iNTT(digit limbs) -> conversion -> NTT(new limbs). */
nb_status nb_ckks_modup(nb_ckks *c, size_t level, size_t digit, void *out, const void *in,
                        const nb_ckks_hook *hook, void *stream);

/* modUp of every digit of level l: digit j's poly over B_l (as nb_ckks_modup
 * computes it) at out + j * (l+1+alpha) * N. One copy and one iNTT of all
 * l+1 input limbs serve every digit, then per digit the conversion and the
 * NTT of its new limbs. */
nb_status nb_ckks_modup_all(nb_ckks *c, size_t level, void *out, const void *in,
                            const nb_ckks_hook *hook, void *stream);

/* modDown at level l: in = poly over B_l (NTT form), out = poly over Q_l
 * (NTT form) = (a - Conv_{P->Q_l}([a]_P)) * P^-1: iNTT of the P limbs,
 * conversion, NTT of the l+1 new limbs, then the scalar step. For a of
 * integer value x in [0, Q_l P): out = floor(x / P) - e mod Q_l with
 * 0 <= e < alpha. */
nb_status nb_ckks_moddown(nb_ckks *c, size_t level, void *out, const void *in,
                          const nb_ckks_hook *hook, void *stream);

/* Key-switch inner product at level l: for digit polys ext[j] (over B_l,
 * NTT form, j < digits(l), at ext + j * (l+1+alpha) * N),
 *   acc_k = sum_j ext[j] * key[j][k]  (k = 0, 1), over B_l, NTT form. */
nb_status nb_ckks_inner_product(nb_ckks *c, size_t level, void *acc0, void *acc1,
                                const void *ext, const void *key,
                                const nb_ckks_hook *hook, void *stream);

/* Full hybrid key switch of d (poly over Q_l, NTT form) with key `key`:
 * modUp of every digit (nb_ckks_modup_all, the digits' own limbs read from
 * `in` by the inner product instead of being copied), inner product, modDown
 * of both accumulators (their P limbs transformed in place).
 * out0, out1: polys over Q_l (NTT form). */
nb_status nb_ckks_keyswitch(nb_ckks *c, size_t level, void *out0, void *out1,
                            const void *in, const void *key, const nb_ckks_hook *hook,
                            void *stream);

/* Rescale from level l >= g (g = rescale_primes): in = poly over Q_l (NTT
 * form), out = poly over Q_(l-g) (NTT form) = floor(x / D) (or the
 * rounding) of the input's integer value x in [0, Q_l), D = q_(l-g+1)..q_l
 * the dropped primes' product: iNTT of the g top limbs, x mod D composed
 * exactly (Garner's formula for g = 2) and brought to each q_i (i <= l-g)
 * and NTT'd, then (a_i - t_i) * D^-1 mod q_i. */
nb_status nb_ckks_rescale(nb_ckks *c, size_t level, nb_ckks_rounding rounding, void *out,
                          const void *in, const nb_ckks_hook *hook, void *stream);

/* Bytes of one word of data for this nb_ckks (its variant's word size). */
size_t nb_ckks_word_bytes(const nb_ckks *c);

/* ------------------------------------------------------------------------ */
/* Several GPUs of one host (docs/ckks.md, "Several GPUs")                   */

/* The pipelines above with the limbs of Q and of P partitioned across G GPUs
 * of one host: device d owns the contiguous Q limbs [q_first, q_first +
 * q_count) and P limbs [p_first, p_first + p_count) of nb_ckks_multi_part
 * (the limbs split as evenly as contiguous ranges allow; 1 <= G <= min(L+1,
 * alpha)). NTTs and elementwise steps run on the owner of each limb; the
 * exchanges move coefficient-form limbs with NCCL (each an all-gather of
 * uneven parts: one group of G broadcasts, or of sends and receives between
 * every pair, nb_ckks_multi_exchange): modUp gathers
 * the l+1 Q limbs of the input, modDown the P limbs of its polynomials,
 * rescale the dropped limbs. Results equal the one-GPU pipeline's bit for
 * bit. Each exchange runs on a communication stream of each device, so it
 * overlaps compute queued after it: modUp gathers digit j+1 while it converts
 * and transforms digit j, modDown gathers the second polynomial's P limbs
 * while it converts the first's. G = 1 takes the same code path (no
 * exchange). Needs a GPU variant and
 * NCCL (NB_ERR_UNSUPPORTED otherwise, saying why).
 *
 * Device d's part of a polynomial ("local layout") holds its limbs in order:
 *   poly over Q_l : its Q limbs below l+1;
 *   poly over B_l : those, then its P limbs;
 *   modUp output  : digit after digit, each a local poly over B_l;
 *   key-switch key: digit j component k at local limb (2j + k) * (q_count +
 *                   p_count) (its Q limbs of every level, then its P limbs).
 * Every call takes one pointer per device (device memory of that GPU), is
 * asynchronous to the host, and is ordered after the work already queued on
 * `stream` (a stream of the first device, or NULL for the object's own) and
 * before the work queued on it afterwards: each device's stream waits for
 * `stream`, and `stream` waits for every device at the end. A hook's marks
 * are taken on `stream` after every device finished the step; its steps are
 * those of the one-GPU pipeline plus "comm" (waiting for an exchange: the
 * communication not covered by compute). */
typedef struct nb_ckks_multi nb_ckks_multi;

/* devices[0..gpus): CUDA device ordinals, distinct. */
nb_status nb_ckks_multi_create(nb_ckks_multi **out, const nb_ckks_params *params,
                               const nb_ntt_variant *variant, const int *devices, size_t gpus);
void nb_ckks_multi_destroy(nb_ckks_multi *m);
size_t nb_ckks_multi_gpus(const nb_ckks_multi *m);
/* The CUDA device ordinal of part d, and the object's stream on it. */
int nb_ckks_multi_device(const nb_ckks_multi *m, size_t d);
void *nb_ckks_multi_stream(const nb_ckks_multi *m, size_t d);
void nb_ckks_multi_part(const nb_ckks_multi *m, size_t d, size_t *q_first, size_t *q_count,
                        size_t *p_first, size_t *p_count);
/* With `on`, each exchange of the following calls is bracketed by events on
 * the first device's communication stream; nb_ckks_multi_comm_seconds then
 * waits for the last call's exchanges and returns their summed durations as
 * that device saw them (a broadcast's duration includes waiting for its
 * peers). Off by default (the events cost a little). */
void nb_ckks_multi_time_exchanges(nb_ckks_multi *m, int on);
nb_status nb_ckks_multi_comm_seconds(nb_ckks_multi *m, double *seconds);
/* The bytes the last call's exchanges moved: *total, received by all devices
 * together; *per_link, the most one device sent to one other device. Each
 * exchange sends a device's limbs to every other device (a broadcast its
 * part, a copy-engine all-gather its whole slot): these are the payloads
 * NCCL is asked to deliver, not the route it takes (a ring may forward a
 * device's limbs through another). 0 with one GPU or without an object. */
void nb_ckks_multi_comm_bytes(const nb_ckks_multi *m, double *total, double *per_link);
/* NCCL's version (e.g. 22809), 0 if unknown. */
int nb_ckks_multi_nccl_version(const nb_ckks_multi *m);
/* 1 if NCCL started the object's communicators with nttbench's tuner (LL128
 * for broadcasts of a megabyte or more, where NCCL enables it: docs/ckks.md,
 * "NCCL's protocol"), 0 if with NCCL's own choice or the caller's tuner
 * (NCCL_TUNER_PLUGIN, NB_NCCL_TUNER=off), with one GPU or without an object. */
int nb_ckks_multi_nccl_tuned(const nb_ckks_multi *m);
/* How the exchanges run, chosen at creation from NB_NCCL_EXCHANGE (docs/ckks.md,
 * "Several GPUs"): "broadcast" (NCCL broadcasts, on the SMs), "send-recv"
 * (exchanges of at least NB_CKKS_CE_MIN_BYTES a device as NCCL sends and
 * receives between every pair of devices, smaller ones as broadcasts),
 * "mixed" (modDown's exchanges as send-recv, modUp's and rescale's as
 * broadcasts) or "copy-engine" (exchanges of that size as all-gathers that
 * NCCL 2.28 or later runs on the copy engines, smaller ones as broadcasts);
 * unset, empty or "auto": nb_ckks_exchange_default. NULL without an object
 * or with one GPU. */
const char *nb_ckks_multi_exchange(const nb_ckks_multi *m);
/* The kind an object of `gpus` devices takes when NB_NCCL_EXCHANGE leaves the
 * choice: "send-recv" on two devices, "mixed" on more; NULL for fewer than
 * two. (An object falls back to broadcasts where NCCL lacks ncclSend.) */
const char *nb_ckks_exchange_default(size_t gpus);
/* NB_NCCL_EXCHANGE (auto, broadcast, send-recv, mixed, copy-engine) and
 * NB_NCCL_TUNER (ll128, off) name values nttbench knows, unset or empty
 * included; NB_ERR_INVALID_ARG with one line naming the variable otherwise.
 * Needs neither NCCL nor a GPU, so a misspelt setting is refused on any
 * machine; whether this NCCL offers the kind is decided at creation. */
nb_status nb_ckks_check_env(void);
#define NB_CKKS_CE_MIN_BYTES (1u << 20)

/* What a pointer holds, for the copies between a whole host polynomial
 * (nb_ckks_create's layouts, the variant's words) and the devices' parts. */
typedef enum nb_ckks_layout {
    NB_CKKS_LAYOUT_Q = 0,  /* poly over Q_l               */
    NB_CKKS_LAYOUT_B = 1,  /* poly over B_l               */
    NB_CKKS_LAYOUT_KEY = 2 /* key-switch key (level unused) */
} nb_ckks_layout;
/* Limbs of part d of a polynomial of that layout at level l. */
size_t nb_ckks_multi_limbs(const nb_ckks_multi *m, size_t d, size_t level, nb_ckks_layout k);
/* host -> parts (scatter) and parts -> host (gather); synchronous. */
nb_status nb_ckks_multi_scatter(nb_ckks_multi *m, size_t level, nb_ckks_layout k,
                                void *const *parts, const void *host);
nb_status nb_ckks_multi_gather(nb_ckks_multi *m, size_t level, nb_ckks_layout k, void *host,
                               const void *const *parts);

/* As nb_ckks_modup_all, nb_ckks_moddown, nb_ckks_keyswitch and
 * nb_ckks_rescale, on the parts. */
nb_status nb_ckks_multi_modup_all(nb_ckks_multi *m, size_t level, void *const *out,
                                  const void *const *in, const nb_ckks_hook *hook, void *stream);
nb_status nb_ckks_multi_moddown(nb_ckks_multi *m, size_t level, void *const *out,
                                const void *const *in, const nb_ckks_hook *hook, void *stream);
nb_status nb_ckks_multi_keyswitch(nb_ckks_multi *m, size_t level, void *const *out0,
                                  void *const *out1, const void *const *in,
                                  const void *const *key, const nb_ckks_hook *hook,
                                  void *stream);
nb_status nb_ckks_multi_rescale(nb_ckks_multi *m, size_t level, nb_ckks_rounding rounding,
                                void *const *out, const void *const *in,
                                const nb_ckks_hook *hook, void *stream);

/* Limb-transforms a stage performs at level l (forward and inverse). */
typedef enum nb_ckks_stage {
    NB_CKKS_STAGE_MODUP = 0,    /* modUp of every digit of the level */
    NB_CKKS_STAGE_MODDOWN = 1,  /* modDown of one poly               */
    NB_CKKS_STAGE_KEYSWITCH = 2,
    NB_CKKS_STAGE_RESCALE = 3
} nb_ckks_stage;
/* Domain: level <= p->max_level, and for rescale level >= p->rescale_primes;
 * outside it, or for an unknown stage, both counts are 0. */
void nb_ckks_ntt_counts(const nb_ckks_params *p, nb_ckks_stage stage, size_t level,
                        size_t *forward_limbs, size_t *inverse_limbs);

#ifdef __cplusplus
}
#endif
#endif

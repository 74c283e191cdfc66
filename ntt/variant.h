/* The NTT variant interface: every NTT in nttbench (CPU, GPU, built in or
 * plugged in by a researcher) is an nb_ntt_variant, found by name in one
 * registry. docs/variants.md shows how to add one. */
#ifndef NB_VARIANT_H
#define NB_VARIANT_H

#include <stddef.h>
#include <stdint.h>

#include "core/backend.h"
#include "core/status.h"
#include "ntt/tables.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One kernel a GPU variant launches in a call and what the device says of
 * it: the variant's optional `kernels` entry fills these, each with
 * nb_ntt_kernel_describe (ntt/kernel_info.h) from the kernel's function and
 * launch shape. */
typedef struct nb_ntt_kernel {
    char name[64];             /* the variant's name for it ("rows 2^8-point, 16/thread") */
    unsigned block_threads;    /* threads per block */
    unsigned launches;         /* launches of it in the call */
    unsigned long long blocks; /* blocks of those launches together */
    size_t smem_dynamic;       /* dynamic shared memory per block, bytes */
    size_t smem_static;        /* static shared memory per block, bytes */
    size_t local_bytes;        /* local memory per thread, bytes: spilled registers and
                                  local arrays (cudaFuncAttributes.localSizeBytes) */
    int regs;                  /* registers per thread */
    int blocks_per_sm;         /* resident blocks per SM at this block size and shared memory
                                  (cudaOccupancyMaxActiveBlocksPerMultiprocessor) */
    double occupancy;          /* theoretical: blocks_per_sm x warps per block over the SM's
                                  resident-warp limit, in [0, 1] */
} nb_ntt_kernel;

/* The epilogue of a fused forward call (the variant's forward_sub_scale):
 * limb j of the call (j in [0, count)) ends as
 *     out = (x - NTT(t)) * w mod q  in [0, q),
 * q the limb's prime, t the call's data. Limbs j < split form part 0, the
 * others part 1 (split >= count: one part); limb j of part p is at
 * out[p] + k N and x[p] + k N (words of word_bits bits, x in [0, q)) and is
 * scaled by w[k] in [0, q), w_shoup[k] = floor(w[k] 2^64 / q) (a 32-bit
 * variant uses its high word), with k = j - (p ? split : 0); so in two
 * parts limb k of each part has the same prime (a key switch's pair over
 * q_0..q_l twice). A CKKS modDown or rescale ends with exactly this step.
 * out[p] equals x[p] or does not overlap it; neither overlaps the call's
 * data. Pointers are host memory for CPU variants, device memory for GPU
 * variants. */
typedef struct nb_ntt_sub_scale {
    void *out[2];
    const void *x[2];
    size_t split;
    const uint64_t *w, *w_shoup;
} nb_ntt_sub_scale;

/* The `inverse` argument of `kernels` for the kernels forward_sub_scale
 * launches (0 and 1: forward and inverse). */
#define NB_NTT_KERNELS_SUB_SCALE 2

/* One NTT implementation. Every field is required but the out-of-place
 * pair, `kernels` and `forward_sub_scale` at the end (optional; NULL when
 * absent).
 *
 * Word size: `word_bits` is 64 or 32. Data is an array of words of that size
 * (uint64_t or uint32_t), passed as void *; a 32-bit variant serves primes
 * below 2^31 at most (max_prime_bits <= NB_MAX_PRIME_BITS_32), a 64-bit one
 * below 2^62. Both read the same nb_ntt_tables (a 32-bit Shoup companion is
 * the high word of the table's 64-bit one: nb_shoup32_from64).
 *
 * Data layout: a batch of limbs, limb l holding N coefficients reduced mod
 * tables->q[l], limbs contiguous (limb l at word l*N of data). Transforms are in
 * place; inputs are in [0, q) and outputs must be in [0, q). Ordering follows
 * nb_ntt_tables (forward: natural in, bit-reversed out; inverse: the reverse,
 * scaled by N^-1).
 *
 * `data` is host memory for CPU variants and device memory for GPU variants;
 * `stream` is a cudaStream_t (NULL = legacy default stream is NOT allowed for
 * timed work; callers pass their stream) for GPU variants and is ignored by
 * CPU variants. GPU entry points must be asynchronous on `stream`: no
 * allocation, no synchronization, every launch checked.
 *
 * The wrapper (nb_ntt_*) validates arguments before calling a variant, so a
 * variant may assume: plan non-NULL, data non-NULL, count >= 1,
 * first + count <= tables->limbs, tables->log_n in [min_log_n, max_log_n]. */
typedef struct nb_ntt_variant {
    const char *name;        /* unique, e.g. "cpu-harvey"; letters, digits and - _ . + */
    const char *description; /* one line */
    nb_backend backend;
    unsigned min_log_n, max_log_n; /* supported transform sizes */
    unsigned word_bits;            /* storage word: 64 or 32 */
    unsigned max_prime_bits;       /* largest supported q: q < 2^max_prime_bits */

    /* Builds a plan over the primes of `tables` (which outlive the plan):
     * uploads twiddles, allocates any scratch for up to tables->limbs limbs.
     * Calls may use that scratch, so calls on one plan must not overlap:
     * callers issue them on one stream, or order them across streams. */
    nb_status (*plan_create)(void **plan, const nb_ntt_tables *tables, void *stream);
    void (*plan_destroy)(void *plan); /* accepts NULL */

    /* Transform limbs [first, first + count) of the plan's primes; `data`
     * (words of word_bits bits) points at limb `first`. */
    nb_status (*forward)(void *plan, void *data, size_t first, size_t count, void *stream);
    nb_status (*inverse)(void *plan, void *data, size_t first, size_t count, void *stream);

    /* Optional (NULL: nb_ntt_forward_to / nb_ntt_inverse_to copy src to dst
     * on `stream`, then call the in-place entry): the same transforms read
     * from `src` and written to `dst`, both at limb `first`, distinct and
     * not overlapping (the wrapper checks); src is left unchanged. */
    nb_status (*forward_to)(void *plan, void *dst, const void *src, size_t first,
                            size_t count, void *stream);
    nb_status (*inverse_to)(void *plan, void *dst, const void *src, size_t first,
                            size_t count, void *stream);

    /* Optional, GPU variants (plug-in ABI 2; NULL: the variant does not
     * report its kernels): the kernels that forward (inverse = 0) or inverse
     * over limbs [first, first + count) launches, in launch order, each once
     * with its launch count: up to `max` of them into out, their number into
     * *n (which may exceed max). Launches nothing, leaves the plan unchanged;
     * the plan's device must be current. */
    nb_status (*kernels)(void *plan, int inverse, size_t first, size_t count,
                         nb_ntt_kernel *out, size_t max, size_t *n);

    /* Optional (plug-in ABI 3; NULL: callers run forward, then the epilogue
     * as a pass of their own): the forward transform of limbs [first,
     * first + count) of `data` whose output is the epilogue `e` (above)
     * instead of the transform: written to e->out, `data` left unspecified
     * (the call's scratch). With `kernels`, that entry answers
     * inverse = NB_NTT_KERNELS_SUB_SCALE with this call's kernels. */
    nb_status (*forward_sub_scale)(void *plan, void *data, const nb_ntt_sub_scale *e,
                                   size_t first, size_t count, void *stream);
} nb_ntt_variant;

/* Adds a variant to the registry (the pointer is kept: the struct must live
 * for the rest of the program). Fails on a missing field, an inconsistent
 * size range, a name with anything but letters, digits and - _ . +, or a
 * name already taken. Not thread-safe: register at start-up. */
nb_status nb_ntt_variant_register(const nb_ntt_variant *v);

/* The checks of nb_ntt_variant_register but the registry's own (the name
 * taken, the registry full): NB_OK for a variant whose fields are whole and
 * consistent, else NB_ERR_INVALID_ARG naming the field. nb_ntt_create runs
 * it on every variant, registered or not. */
nb_status nb_ntt_variant_check(const nb_ntt_variant *v);

/* Looks a variant up by name; NULL (and a message) if absent. */
const nb_ntt_variant *nb_ntt_variant_find(const char *name);

/* Registered variants, built-ins first, in registration order. */
size_t nb_ntt_variant_count(void);
const nb_ntt_variant *nb_ntt_variant_at(size_t i);

/* Entry point a plug-in shared object exports: it registers its variants.
 * nb_plugin_load calls it after dlopen() (`nttbench --plugin ./libmine.so`). */
typedef nb_status (*nb_plugin_init_fn)(void);
#define NB_PLUGIN_INIT_SYMBOL "nb_plugin_init"

/* The plug-in ABI: what a plug-in compiled against these headers assumes of
 * the library (the layout and meaning of nb_ntt_variant and nb_ntt_tables,
 * the contract of the four functions, nb_plugin_init). Raised whenever any
 * of it changes; independent of the library's version (core/version.h).
 * 2 added `kernels` at the end of nb_ntt_variant, 3 `forward_sub_scale`.
 * The loader also takes plug-ins of the older ABIs down to
 * NB_PLUGIN_ABI_OLDEST whose struct is a prefix of this one (ABI 1:
 * everything before `kernels`; ABI 2: before `forward_sub_scale`): their
 * variants are registered as copies with the later fields NULL. */
#define NB_PLUGIN_ABI_VERSION 3
#define NB_PLUGIN_ABI_OLDEST 1
#define NB_PLUGIN_ABI_SYMBOL "nb_plugin_abi_version"

/* Defined by each plug-in, with NB_PLUGIN_ABI_EXPORT: the ABI it was
 * compiled for. Never defined by the library. */
extern const unsigned nb_plugin_abi_version;

/* Written once at file scope in a plug-in (`NB_PLUGIN_ABI_EXPORT;`), in C or
 * C++ / CUDA: exports nb_plugin_abi_version = NB_PLUGIN_ABI_VERSION of the
 * headers it is built with. */
#define NB_PLUGIN_ABI_EXPORT                                                             \
    __attribute__((visibility("default"))) const unsigned nb_plugin_abi_version =        \
        NB_PLUGIN_ABI_VERSION

/* Loads a plug-in: dlopen(path), checks that it exports nb_plugin_abi_version
 * in [NB_PLUGIN_ABI_OLDEST, NB_PLUGIN_ABI_VERSION], then calls its
 * nb_plugin_init() (the object stays loaded: its variants live in it; those
 * of an older ABI are registered as full-size copies, so
 * nb_ntt_variant_find returns the copy). NB_ERR_IO when it cannot be opened,
 * lacks an entry point or its init fails; NB_ERR_UNSUPPORTED when it was
 * built for another ABI (the one-line message names both versions; nothing
 * of it has run). */
nb_status nb_plugin_load(const char *path);

/* NB_PLUGIN_ABI_VERSION of the headers the library was built with: the
 * newest ABI nb_plugin_load accepts (the oldest: NB_PLUGIN_ABI_OLDEST). */
unsigned nb_plugin_abi(void);

#ifdef __cplusplus
}
#endif
#endif

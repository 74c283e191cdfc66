/* ntt/ module header: arithmetic-free public API of the NTT library.
 * An nb_ntt bundles a variant, its tables and its plan. */
#ifndef NB_NTT_H
#define NB_NTT_H

#include <stddef.h>
#include <stdint.h>

#include "core/device.h"
#include "ntt/primes.h"
#include "core/status.h"
#include "ntt/tables.h"
#include "ntt/variant.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_ntt nb_ntt;

/* Builds tables for primes[0..limbs) (psis NULL = minimal roots) and the
 * variant's plan. Fails with a message if log_n is outside the variant's
 * range, a prime exceeds the variant's max_prime_bits or is not NTT-friendly,
 * or (GPU variants) no device is present. */
nb_status nb_ntt_create(nb_ntt **out, const nb_ntt_variant *variant, unsigned log_n,
                        const uint64_t *primes, const uint64_t *psis, size_t limbs,
                        void *stream);
/* A second transform over tables another nb_ntt (or nb_ntt_tables_create)
 * built, e.g. a CPU oracle beside a GPU variant: no prime is validated again
 * and no table rebuilt. `tables` is borrowed and must outlive the result. */
nb_status nb_ntt_create_on_tables(nb_ntt **out, const nb_ntt_variant *variant,
                                  const nb_ntt_tables *tables, void *stream);
void nb_ntt_destroy(nb_ntt *ntt);

/* In-place forward/inverse transform of limbs [first, first + count); data
 * points at limb `first` (host or device memory, per the variant's backend)
 * and holds words of nb_ntt_word_bits(ntt) bits: uint64_t for a 64-bit
 * variant, uint32_t for a 32-bit one, each in [0, q) on input and output. */
nb_status nb_ntt_forward(nb_ntt *ntt, void *data, size_t first, size_t count, void *stream);
nb_status nb_ntt_inverse(nb_ntt *ntt, void *data, size_t first, size_t count, void *stream);
/* The same transforms out of place: limbs [first, first + count) read from
 * src, written to dst (both at limb `first`), src unchanged. dst == src is the
 * in-place call; otherwise the two ranges must not overlap. A variant without
 * out-of-place entries gets a copy then its in-place transform (both on
 * stream). */
nb_status nb_ntt_forward_to(nb_ntt *ntt, void *dst, const void *src, size_t first,
                            size_t count, void *stream);
nb_status nb_ntt_inverse_to(nb_ntt *ntt, void *dst, const void *src, size_t first,
                            size_t count, void *stream);
/* The forward transform of limbs [first, first + count) of `data` with the
 * epilogue `e` (nb_ntt_sub_scale, ntt/variant.h): each limb's output goes
 * to e->out as (x - NTT(data)) * w mod q, and `data` is left unspecified.
 * NB_ERR_UNSUPPORTED (message) when the variant has no fused entry
 * (nb_ntt_has_sub_scale = 0: run nb_ntt_forward and the epilogue as a pass
 * of your own); NB_ERR_INVALID_ARG for a NULL pointer, a range outside the
 * plan, an out or x that overlaps data, an out that overlaps its x without
 * equalling it, or two parts whose limbs k have different primes. */
nb_status nb_ntt_forward_sub_scale(nb_ntt *ntt, void *data, const nb_ntt_sub_scale *e,
                                   size_t first, size_t count, void *stream);
/* 1 if the variant fuses the epilogue into its forward transform, else 0. */
int nb_ntt_has_sub_scale(const nb_ntt *ntt);
/* The kernels a forward (inverse = 0) or inverse call over limbs [first,
 * first + count) launches, with their registers, local and shared memory,
 * block size and theoretical occupancy (nb_ntt_kernel, ntt/variant.h): up to
 * `max` into out, their number into *n (may exceed max); inverse =
 * NB_NTT_KERNELS_SUB_SCALE: those of nb_ntt_forward_sub_scale (variants with
 * the fused entry only). Launches nothing.
 * NB_ERR_UNSUPPORTED (message) when the variant does not report its kernels
 * (CPU variants, plug-ins without the entry); NB_ERR_INVALID_ARG for a range
 * outside the plan. */
nb_status nb_ntt_kernels(const nb_ntt *ntt, int inverse, size_t first, size_t count,
                         nb_ntt_kernel *out, size_t max, size_t *n);
/* 1 if the variant transforms out of place itself (no copy), else 0. */
int nb_ntt_out_of_place(const nb_ntt *ntt);
/* The word size of the data the transforms take: 64 or 32 (0 for NULL). */
unsigned nb_ntt_word_bits(const nb_ntt *ntt);

const nb_ntt_tables *nb_ntt_get_tables(const nb_ntt *ntt);
const nb_ntt_variant *nb_ntt_get_variant(const nb_ntt *ntt);

#ifdef __cplusplus
}
#endif
#endif

/* Internal to the cpu-harvey32 variants: the pass functions the limb drivers
 * (ntt/cpu_harvey32.c) call, their AVX2 versions (ntt/cpu_harvey32_avx2.c,
 * x86 only, called only where the CPU has AVX2), and the hook the tests use
 * to see which set a plan picked.
 *
 * Every pass works on one limb `a` of N 32-bit words mod an odd prime
 * q < 2^31 with the limb's twiddles w[] and their 32-bit Shoup companions
 * ws[] (the nb_ntt_tables layout: forward stage with m groups uses w[m + i],
 * inverse stage with h groups uses w[h + i]). A pass picks the butterfly
 * family of ntt/arith.h by q: the Harvey butterflies below 2^30 (forward
 * values in [0, 4q), inverse in [0, 2q)), the _q31 ones above ([0, 2q) both
 * ways). The AVX2 versions compute exactly what the scalar ones do, eight
 * words at a time, and take every pass the limb drivers issue for
 * N >= 2^NB_HARVEY32_AVX2_MIN_LOG_N (the transforms below that run the scalar
 * passes only). */
#ifndef NB_CPU_HARVEY32_H
#define NB_CPU_HARVEY32_H

#include <stddef.h>
#include <stdint.h>

/* One or two forward (Cooley-Tukey) stages: stage m (pairs t apart, twiddle
 * w[m + i] for group i), and for the radix-4 pass stage 2m after it. Inputs
 * in the family's lazy range; outputs too, or in [0, q) when `last`. */
typedef void nb_harvey32_fwd_pass(uint32_t *a, const uint32_t *w, const uint32_t *ws,
                                  uint32_t q, size_t m, size_t t, int last);
/* One inverse (Gentleman-Sande) stage, h groups with pairs t apart (twiddle
 * w[h + i]; the drivers issue it with t = 1 only), or two: stage h then
 * stage h/2 (pairs 2t apart, twiddles w[h + 2i], w[h + 2i + 1], then
 * w[h/2 + i]). Inputs and outputs in [0, 2q). */
typedef void nb_harvey32_inv_pass(uint32_t *a, const uint32_t *w, const uint32_t *ws,
                                  uint32_t q, size_t h, size_t t);
/* The last inverse stage (pairs t = N/2 apart) with the N^-1 scaling fused:
 * x' = (x + y) N^-1, y' = (x - y) psi^-(N/2) N^-1, inputs in [0, 2q),
 * outputs in [0, q). */
typedef void nb_harvey32_inv_last(uint32_t *a, uint32_t q, size_t t, uint32_t ninv,
                                  uint32_t ninv_s, uint32_t ninv_w, uint32_t ninv_ws);

#if defined(__x86_64__) || defined(__i386__)
#define NB_HARVEY32_HAVE_AVX2 1
#define NB_HARVEY32_AVX2_MIN_LOG_N 5u /* eight groups of four words */
nb_harvey32_fwd_pass nb_harvey32_avx2_forward_radix2;
nb_harvey32_fwd_pass nb_harvey32_avx2_forward_radix4;
nb_harvey32_inv_pass nb_harvey32_avx2_inverse_radix2;
nb_harvey32_inv_pass nb_harvey32_avx2_inverse_radix4;
nb_harvey32_inv_last nb_harvey32_avx2_inverse_last;
#else
#define NB_HARVEY32_HAVE_AVX2 0
#endif

/* The pass set a cpu-harvey32 plan runs: "avx2" or "scalar". `plan` must come
 * from the plan_create of nb_variant_cpu_harvey32 or _scalar. */
const char *nb_cpu_harvey32_plan_kernels(const void *plan);

#endif

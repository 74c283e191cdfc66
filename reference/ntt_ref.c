/* Reference negacyclic NTT, written from the definition.
 *
 * With omega = psi^2 (a primitive N-th root of unity),
 *   a(psi^(2j+1)) = sum_i a_i psi^i omega^(ij),
 * i.e. the negacyclic transform is the cyclic DFT of the "twisted" vector
 * b_i = a_i psi^i. The forward transform twists, runs a textbook recursive
 * radix-2 decimation-in-time DFT (natural order in and out), and then stores
 * the value for point j = brv(k) at position k. The inverse undoes each step:
 * un-permutes, runs the same DFT with omega^-1, scales by N^-1 and untwists by
 * psi^-i. All products are exact GMP products reduced by GMP (ref_internal.h).
 * This structure deliberately differs from the library's merged
 * Cooley-Tukey/Gentleman-Sande butterflies and shares no code with it. */
#include <stdlib.h>
#include <string.h>

#include "reference/ref_internal.h"
#include "reference/reference.h"

uint32_t nb_ref_bitrev(uint32_t x, unsigned bits)
{
    uint32_t r = 0;
    for (unsigned i = 0; i < bits; i++)
        if (x & ((uint32_t)1 << i))
            r |= (uint32_t)1 << (bits - 1 - i);
    return r;
}

int nb_ref_params_valid(unsigned log_n, uint64_t q, uint64_t psi)
{
    if (log_n < NB_REF_MIN_LOG_N || log_n > NB_REF_MAX_LOG_N)
        return 0;
    if (q < 3 || (q >> NB_REF_MAX_PRIME_BITS) != 0)
        return 0;
    const uint64_t two_n = (uint64_t)2 << log_n;
    if (q % two_n != 1)
        return 0;
    mpz_t z;
    mpz_init_set_ui(z, q);
    int prime = mpz_probab_prime_p(z, 40) != 0;
    mpz_clear(z);
    if (!prime)
        return 0;
    if (psi == 0 || psi >= q)
        return 0;
    /* psi^N = -1 makes the order of psi divide 2N but not N: exactly 2N. */
    return ref_powmod(psi, two_n / 2, q) == q - 1;
}

static int inputs_reduced(const uint64_t *a, size_t n, uint64_t q)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] >= q)
            return 0;
    return 1;
}

/* out[j] = sum_{i<n} in[i*stride] * w^(i*j) mod q for j < n, where
 * w = omega^step has order exactly n (n a power of two) and pw[k] = omega^k
 * for k < N/2 (so pw[j*step] = w^j). Textbook recursion: the even- and
 * odd-indexed halves are transformed with w^2 (step doubled), then
 *   out[j] = E[j] + w^j O[j],  out[j + n/2] = E[j] - w^j O[j]
 * because w^(n/2) = -1. */
static void dft(const uint64_t *in, size_t stride, size_t n, const uint64_t *pw, size_t step,
                uint64_t q, uint64_t *out)
{
    if (n == 1) {
        out[0] = in[0];
        return;
    }
    const size_t h = n / 2;
    dft(in, 2 * stride, h, pw, 2 * step, q, out);              /* E -> out[0, h) */
    dft(in + stride, 2 * stride, h, pw, 2 * step, q, out + h); /* O -> out[h, n) */
    for (size_t j = 0; j < h; j++) {
        const uint64_t e = out[j], o = ref_mulmod(pw[j * step], out[j + h], q);
        out[j] = ref_addmod(e, o, q);
        out[j + h] = ref_submod(e, o, q);
    }
}

/* Cyclic DFT of length n = 2^log_n with the primitive n-th root omega:
 * out[j] = sum_i in[i] omega^(ij). Returns 0 on allocation failure. */
static int cyclic_dft(const uint64_t *in, size_t n, uint64_t omega, uint64_t q, uint64_t *out)
{
    uint64_t *pw = malloc((n / 2 + 1) * sizeof *pw);
    if (!pw)
        return 0;
    pw[0] = 1;
    for (size_t k = 1; k < n / 2; k++)
        pw[k] = ref_mulmod(pw[k - 1], omega, q);
    dft(in, 1, n, pw, 1, q, out);
    free(pw);
    return 1;
}

static nb_status check(const uint64_t *a, unsigned log_n, uint64_t q, uint64_t psi)
{
    if (!a || !nb_ref_params_valid(log_n, q, psi))
        return NB_ERR_INVALID_ARG;
    if (!inputs_reduced(a, (size_t)1 << log_n, q))
        return NB_ERR_INVALID_ARG;
    return NB_OK;
}

nb_status nb_ref_ntt_forward(uint64_t *a, unsigned log_n, uint64_t q, uint64_t psi)
{
    nb_status s = check(a, log_n, q, psi);
    if (s != NB_OK)
        return s;
    const size_t n = (size_t)1 << log_n;
    uint64_t *b = malloc(n * sizeof *b), *y = malloc(n * sizeof *y);
    if (!b || !y) {
        free(b);
        free(y);
        return NB_ERR_OUT_OF_MEMORY;
    }
    uint64_t psi_i = 1; /* psi^i */
    for (size_t i = 0; i < n; i++) {
        b[i] = ref_mulmod(a[i], psi_i, q);
        psi_i = ref_mulmod(psi_i, psi, q);
    }
    /* y[j] = sum_i b_i psi^(2ij) = a(psi^(2j+1)) */
    if (!cyclic_dft(b, n, ref_mulmod(psi, psi, q), q, y)) {
        free(b);
        free(y);
        return NB_ERR_OUT_OF_MEMORY;
    }
    for (size_t k = 0; k < n; k++)
        a[k] = y[nb_ref_bitrev((uint32_t)k, log_n)];
    free(b);
    free(y);
    return NB_OK;
}

nb_status nb_ref_ntt_inverse(uint64_t *a, unsigned log_n, uint64_t q, uint64_t psi)
{
    nb_status s = check(a, log_n, q, psi);
    if (s != NB_OK)
        return s;
    const size_t n = (size_t)1 << log_n;
    uint64_t *y = malloc(n * sizeof *y), *b = malloc(n * sizeof *b);
    if (!b || !y) {
        free(b);
        free(y);
        return NB_ERR_OUT_OF_MEMORY;
    }
    for (size_t k = 0; k < n; k++)
        y[nb_ref_bitrev((uint32_t)k, log_n)] = a[k];
    /* sum_j y_j omega^(-ij) = N b_i for the twisted b_i = a_i psi^i */
    const uint64_t psi_inv = ref_invmod(psi, q);
    if (!cyclic_dft(y, n, ref_mulmod(psi_inv, psi_inv, q), q, b)) {
        free(b);
        free(y);
        return NB_ERR_OUT_OF_MEMORY;
    }
    const uint64_t n_inv = ref_invmod(n % q, q);
    uint64_t psi_mi = n_inv; /* N^-1 psi^-i */
    for (size_t i = 0; i < n; i++) {
        a[i] = ref_mulmod(b[i], psi_mi, q);
        psi_mi = ref_mulmod(psi_mi, psi_inv, q);
    }
    free(b);
    free(y);
    return NB_OK;
}

/* Horner evaluation of a at x. */
static uint64_t eval_at(const uint64_t *a, size_t n, uint64_t q, uint64_t x)
{
    uint64_t r = 0;
    for (size_t i = n; i-- > 0;)
        r = ref_addmod(ref_mulmod(r, x, q), a[i], q);
    return r;
}

uint64_t nb_ref_ntt_eval_point(const uint64_t *a, unsigned log_n, uint64_t q, uint64_t psi,
                               size_t k)
{
    if (check(a, log_n, q, psi) != NB_OK || k >= ((size_t)1 << log_n))
        return UINT64_MAX;
    const uint64_t e = 2 * (uint64_t)nb_ref_bitrev((uint32_t)k, log_n) + 1;
    return eval_at(a, (size_t)1 << log_n, q, ref_powmod(psi, e, q));
}

nb_status nb_ref_ntt_forward_direct(uint64_t *a, unsigned log_n, uint64_t q, uint64_t psi)
{
    nb_status s = check(a, log_n, q, psi);
    if (s != NB_OK)
        return s;
    const size_t n = (size_t)1 << log_n;
    uint64_t *out = malloc(n * sizeof *out);
    if (!out)
        return NB_ERR_OUT_OF_MEMORY;
    for (size_t k = 0; k < n; k++) {
        const uint64_t e = 2 * (uint64_t)nb_ref_bitrev((uint32_t)k, log_n) + 1;
        out[k] = eval_at(a, n, q, ref_powmod(psi, e, q));
    }
    memcpy(a, out, n * sizeof *out);
    free(out);
    return NB_OK;
}

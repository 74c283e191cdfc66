/* Reference negacyclic polynomial product by schoolbook multiplication:
 * X^N = -1, so a_i b_j X^(i+j) lands on X^(i+j-N) with a minus sign when
 * i + j >= N. Sums are accumulated exactly in mpz and reduced once. */
#include <stdlib.h>

#include "reference/ref_internal.h"
#include "reference/reference.h"

static int overlaps(const uint64_t *x, const uint64_t *y, size_t n)
{
    uintptr_t a = (uintptr_t)x, b = (uintptr_t)y, bytes = n * sizeof(uint64_t);
    return a < b + bytes && b < a + bytes;
}

nb_status nb_ref_negacyclic_mul(uint64_t *out, const uint64_t *a, const uint64_t *b,
                                unsigned log_n, uint64_t q)
{
    if (!out || !a || !b || log_n < NB_REF_MIN_LOG_N || log_n > NB_REF_MAX_LOG_N || q < 2)
        return NB_ERR_INVALID_ARG;
    const size_t n = (size_t)1 << log_n;
    if (overlaps(out, a, n) || overlaps(out, b, n))
        return NB_ERR_INVALID_ARG;
    for (size_t i = 0; i < n; i++)
        if (a[i] >= q || b[i] >= q)
            return NB_ERR_INVALID_ARG;
    mpz_t *acc = malloc(n * sizeof *acc);
    if (!acc)
        return NB_ERR_OUT_OF_MEMORY;
    for (size_t k = 0; k < n; k++)
        mpz_init(acc[k]);
    mpz_t ai;
    mpz_init(ai);
    for (size_t i = 0; i < n; i++) {
        mpz_set_ui(ai, a[i]);
        for (size_t j = 0; j < n; j++) {
            if (i + j < n)
                mpz_addmul_ui(acc[i + j], ai, b[j]);
            else
                mpz_submul_ui(acc[i + j - n], ai, b[j]);
        }
    }
    for (size_t k = 0; k < n; k++) {
        out[k] = mpz_fdiv_ui(acc[k], q); /* floor remainder: in [0, q) */
        mpz_clear(acc[k]);
    }
    mpz_clear(ai);
    free(acc);
    return NB_OK;
}

/* Twiddle-table construction (host). */
#include "ntt/tables.h"

#include <stdlib.h>

#include "ntt/arith.h"
#include "ntt/primes.h"

void nb_ntt_tables_destroy(nb_ntt_tables *t)
{
    if (!t)
        return;
    free(t->q);
    free(t->psi);
    free(t->mu_lo);
    free(t->mu_hi);
    free(t->n_inv);
    free(t->n_inv_shoup);
    free(t->fwd);
    free(t->fwd_shoup);
    free(t->inv);
    free(t->inv_shoup);
    free(t);
}

nb_status nb_ntt_tables_create(nb_ntt_tables **out, unsigned log_n, const uint64_t *primes,
                               const uint64_t *psis, size_t limbs)
{
    if (out)
        *out = NULL; /* on every failure */
    if (!out || !primes)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ntt_tables_create: NULL argument");
    if (limbs == 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ntt_tables_create: zero limbs");
    for (size_t l = 0; l < limbs; l++)
        NB_TRY(nb_prime_validate(primes[l], log_n)); /* log_n range included */
    return nb_ntt_tables_build(out, log_n, primes, psis, limbs);
}

nb_status nb_ntt_tables_build(nb_ntt_tables **out, unsigned log_n, const uint64_t *primes,
                              const uint64_t *psis, size_t limbs)
{
    *out = NULL;
    if (psis)
        for (size_t l = 0; l < limbs; l++)
            NB_TRY(nb_root_check(psis[l], primes[l], log_n));
    const size_t n = (size_t)1 << log_n;
    nb_ntt_tables *t = calloc(1, sizeof *t);
    if (!t)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "tables: out of host memory");
    t->log_n = log_n;
    t->n = n;
    t->limbs = limbs;
    t->q = malloc(limbs * sizeof(uint64_t));
    t->psi = malloc(limbs * sizeof(uint64_t));
    t->mu_lo = malloc(limbs * sizeof(uint64_t));
    t->mu_hi = malloc(limbs * sizeof(uint64_t));
    t->n_inv = malloc(limbs * sizeof(uint64_t));
    t->n_inv_shoup = malloc(limbs * sizeof(uint64_t));
    t->fwd = malloc(limbs * n * sizeof(uint64_t));
    t->fwd_shoup = malloc(limbs * n * sizeof(uint64_t));
    t->inv = malloc(limbs * n * sizeof(uint64_t));
    t->inv_shoup = malloc(limbs * n * sizeof(uint64_t));
    if (!t->q || !t->psi || !t->mu_lo || !t->mu_hi || !t->n_inv || !t->n_inv_shoup ||
        !t->fwd || !t->fwd_shoup || !t->inv || !t->inv_shoup) {
        nb_ntt_tables_destroy(t);
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "tables: out of host memory (%zu limbs, N=%zu)",
                            limbs, n);
    }
    for (size_t l = 0; l < limbs; l++) {
        const uint64_t q = primes[l];
        uint64_t psi;
        if (psis) {
            psi = psis[l];
        } else {
            nb_status s = nb_root_find_minimal(q, log_n, &psi);
            if (s != NB_OK) {
                nb_ntt_tables_destroy(t);
                return s;
            }
        }
        const uint64_t psi_inv = nb_inv_mod(psi, q);
        t->q[l] = q;
        t->psi[l] = psi;
        nb_barrett_precompute(q, &t->mu_lo[l], &t->mu_hi[l]);
        t->n_inv[l] = nb_inv_mod(n % q, q);
        t->n_inv_shoup[l] = nb_shoup_precompute(t->n_inv[l], q);
        uint64_t *fw = t->fwd + l * n, *fws = t->fwd_shoup + l * n;
        uint64_t *iv = t->inv + l * n, *ivs = t->inv_shoup + l * n;
        uint64_t p = 1, pi = 1;
        for (size_t i = 0; i < n; i++) { /* p = psi^i, pi = psi^-i */
            const uint32_t r = nb_bitrev((uint32_t)i, log_n);
            fw[r] = p;
            iv[r] = pi;
            p = nb_mul_mod_host(p, psi, q);
            pi = nb_mul_mod_host(pi, psi_inv, q);
        }
        for (size_t i = 0; i < n; i++) {
            fws[i] = nb_shoup_precompute(fw[i], q);
            ivs[i] = nb_shoup_precompute(iv[i], q);
        }
    }
    *out = t;
    return NB_OK;
}

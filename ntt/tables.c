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
    uint64_t no_root = 0; /* a prime without a root: its error is made again below */
    /* limbs in parallel (large plans hold millions of entries); powers by
     * Shoup products and companions through mu: no division per entry */
#pragma omp parallel for schedule(dynamic, 1) if (limbs > 1 && n * limbs >= 65536)
    for (size_t l = 0; l < limbs; l++) {
        const uint64_t q = primes[l];
        uint64_t psi = 0;
        if (psis) {
            psi = psis[l];
        } else if (nb_root_find_minimal(q, log_n, &psi) != NB_OK) {
#pragma omp critical
            no_root = no_root ? no_root : q;
            continue;
        }
        const uint64_t psi_inv = nb_inv_mod(psi, q);
        t->q[l] = q;
        t->psi[l] = psi;
        nb_barrett_precompute(q, &t->mu_lo[l], &t->mu_hi[l]);
        const uint64_t ml = t->mu_lo[l], mh = t->mu_hi[l];
        t->n_inv[l] = nb_inv_mod(n % q, q);
        t->n_inv_shoup[l] = nb_shoup_precompute(t->n_inv[l], q);
        uint64_t *fw = t->fwd + l * n, *fws = t->fwd_shoup + l * n;
        uint64_t *iv = t->inv + l * n, *ivs = t->inv_shoup + l * n;
        /* bit-reversed order directly, in sequential passes: for r < 2^k,
         * rev(r + 2^k) = rev(r) + 2^(log_n-1-k), so T[r + 2^k] = T[r] c_k with
         * c_k = psi^(2^(log_n-1-k)) (psi^-1 for the inverse table) */
        fw[0] = iv[0] = 1;
        uint64_t c = psi, ci = psi_inv; /* psi^(2^j), j = log_n-1-k, from j = 0 up */
        uint64_t cs[32], cis[32], cv[32], civ[32];
        for (unsigned j = 0; j < log_n; j++) {
            cv[j] = c;
            civ[j] = ci;
            cs[j] = nb_shoup_precompute(c, q);
            cis[j] = nb_shoup_precompute(ci, q);
            c = nb_mul_mod_host(c, c, q);
            ci = nb_mul_mod_host(ci, ci, q);
        }
        for (unsigned k = 0; k < log_n; k++) {
            const size_t half = (size_t)1 << k;
            const unsigned j = log_n - 1 - k;
            for (size_t r = 0; r < half; r++) {
                fw[r + half] = nb_mul_shoup(fw[r], cv[j], cs[j], q);
                iv[r + half] = nb_mul_shoup(iv[r], civ[j], cis[j], q);
            }
        }
        for (size_t i = 0; i < n; i++) {
            fws[i] = nb_shoup_precompute_mu(fw[i], q, ml, mh);
            ivs[i] = nb_shoup_precompute_mu(iv[i], q, ml, mh);
        }
    }
    if (no_root) { /* the message in this thread: worker threads have their own */
        uint64_t psi;
        nb_status s = nb_root_find_minimal(no_root, log_n, &psi);
        nb_ntt_tables_destroy(t);
        return s != NB_OK ? s : nb_set_error(NB_ERR_INTERNAL, "tables: root search disagreed");
    }
    *out = t;
    return NB_OK;
}

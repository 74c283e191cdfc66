/* Prime generation, primality and primitive roots (host arithmetic only). */
#include "ntt/primes.h"

#include "ntt/arith.h"

uint64_t nb_pow_mod(uint64_t a, uint64_t e, uint64_t q)
{
    if (q == 0)
        return 0;
    uint64_t r = 1 % q;
    a %= q;
    while (e) {
        if (e & 1)
            r = nb_mul_mod_host(r, a, q);
        a = nb_mul_mod_host(a, a, q);
        e >>= 1;
    }
    return r;
}

uint64_t nb_inv_mod(uint64_t a, uint64_t q) { return nb_pow_mod(a, q - 2, q); }

uint32_t nb_bitrev(uint32_t x, unsigned bits)
{
    uint32_t r = 0;
    for (unsigned i = 0; i < bits; i++) {
        r = (r << 1) | (x & 1);
        x >>= 1;
    }
    return r;
}

int nb_is_prime(uint64_t n)
{
    static const uint64_t small[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
    if (n < 2)
        return 0;
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
        if (n == small[i])
            return 1;
        if (n % small[i] == 0)
            return 0;
    }
    uint64_t d = n - 1;
    unsigned s = 0;
    while (!(d & 1)) {
        d >>= 1;
        s++;
    }
    /* These 12 bases decide primality for every n < 3.3e24. */
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
        uint64_t x = nb_pow_mod(small[i], d, n);
        if (x == 1 || x == n - 1)
            continue;
        int composite = 1;
        for (unsigned r = 1; r < s; r++) {
            x = nb_mul_mod_host(x, x, n);
            if (x == n - 1) {
                composite = 0;
                break;
            }
        }
        if (composite)
            return 0;
    }
    return 1;
}

static int in_list(uint64_t v, const uint64_t *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (list && list[i] == v)
            return 1;
    return 0;
}

nb_status nb_primes_generate(unsigned log_n, unsigned bits, size_t count,
                             const uint64_t *skip, size_t n_skip, uint64_t *out)
{
    size_t found = 0;
    NB_TRY(nb_primes_generate_upto(log_n, bits, count, skip, n_skip, out, &found));
    if (found < count)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "only %zu prime%s q < 2^%u with q = 1 mod 2^%u and exactly %u bits "
                            "%s available (asked for %zu)",
                            found, found == 1 ? "" : "s", bits, log_n + 1, bits,
                            found == 1 ? "is" : "are", count);
    return NB_OK;
}

nb_status nb_primes_generate_upto(unsigned log_n, unsigned bits, size_t count,
                                  const uint64_t *skip, size_t n_skip, uint64_t *out,
                                  size_t *found_out)
{
    if (!found_out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_primes_generate_upto: NULL count");
    *found_out = 0;
    if (log_n < NB_MIN_LOG_N || log_n > NB_MAX_LOG_N)
        return nb_set_error(NB_ERR_INVALID_ARG, "log_n=%u outside [%u, %u]", log_n,
                            NB_MIN_LOG_N, NB_MAX_LOG_N);
    if (bits < NB_MIN_PRIME_BITS || bits > NB_MAX_PRIME_BITS)
        return nb_set_error(NB_ERR_INVALID_ARG, "prime bits=%u outside [%u, %u]", bits,
                            NB_MIN_PRIME_BITS, NB_MAX_PRIME_BITS);
    if (count == 0 || !out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_primes_generate: count must be > 0 "
                                                "and out non-NULL");
    if (n_skip && !skip)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_primes_generate: skip is NULL");
    const uint64_t m = 2ull << log_n; /* 2N */
    const uint64_t limit = 1ull << bits;
    /* largest candidate < 2^bits with cand = 1 mod 2N */
    if (limit <= m + 1)
        return NB_OK; /* no candidate */
    uint64_t cand = ((limit - 2) / m) * m + 1;
    const uint64_t floor = limit >> 1; /* exactly `bits` bits: q > 2^(bits-1) */
    size_t found = 0;
    while (found < count && cand > m && cand > floor) {
        if (nb_is_prime(cand) && !in_list(cand, skip, n_skip) && !in_list(cand, out, found))
            out[found++] = cand;
        cand -= m;
    }
    *found_out = found;
    return NB_OK;
}

nb_status nb_prime_validate(uint64_t q, unsigned log_n)
{
    if (log_n < NB_MIN_LOG_N || log_n > NB_MAX_LOG_N)
        return nb_set_error(NB_ERR_INVALID_ARG, "log_n=%u outside [%u, %u]", log_n,
                            NB_MIN_LOG_N, NB_MAX_LOG_N);
    if (q >> NB_MAX_PRIME_BITS)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "q=%llu is not below 2^%u (the lazy butterflies need 4q < 2^64)",
                            (unsigned long long)q, NB_MAX_PRIME_BITS);
    if (!nb_is_prime(q))
        return nb_set_error(NB_ERR_INVALID_ARG, "q=%llu is not prime", (unsigned long long)q);
    if (q % (2ull << log_n) != 1)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "q=%llu is not NTT-friendly for log_n=%u: q mod 2N = %llu, need 1",
                            (unsigned long long)q, log_n,
                            (unsigned long long)(q % (2ull << log_n)));
    return NB_OK;
}

nb_status nb_root_check(uint64_t psi, uint64_t q, unsigned log_n)
{
    if (psi == 0 || psi >= q)
        return nb_set_error(NB_ERR_INVALID_ARG, "psi=%llu is not in [1, q)",
                            (unsigned long long)psi);
    if (nb_pow_mod(psi, 1ull << log_n, q) != q - 1)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "psi=%llu is not a primitive 2N-th root of unity mod %llu "
                            "(psi^N != -1) for log_n=%u",
                            (unsigned long long)psi, (unsigned long long)q, log_n);
    return NB_OK;
}

nb_status nb_root_validate(uint64_t psi, uint64_t q, unsigned log_n)
{
    NB_TRY(nb_prime_validate(q, log_n));
    return nb_root_check(psi, q, log_n);
}

nb_status nb_root_minimal(uint64_t q, unsigned log_n, uint64_t *psi)
{
    if (!psi)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_root_minimal: psi is NULL");
    NB_TRY(nb_prime_validate(q, log_n));
    return nb_root_find_minimal(q, log_n, psi);
}

nb_status nb_root_find_minimal(uint64_t q, unsigned log_n, uint64_t *psi)
{
    const uint64_t n = 1ull << log_n;
    const uint64_t cofactor = (q - 1) / (2 * n);
    /* Find one primitive 2N-th root: x^((q-1)/2N) has order exactly 2N iff
     * its N-th power is -1. Half of all x qualify (the non-residues). */
    uint64_t root = 0;
    for (uint64_t x = 2; x < q; x++) {
        uint64_t r = nb_pow_mod(x, cofactor, q);
        if (nb_pow_mod(r, n, q) == q - 1) {
            root = r;
            break;
        }
    }
    if (!root)
        return nb_set_error(NB_ERR_INTERNAL, "no primitive 2N-th root found mod %llu",
                            (unsigned long long)q);
    /* The primitive 2N-th roots are root^k for odd k; take the smallest. */
    uint64_t best = root, sq = nb_mul_mod_host(root, root, q), cur = root;
    for (uint64_t k = 1; k < n; k++) {
        cur = nb_mul_mod_host(cur, sq, q);
        if (cur < best)
            best = cur;
    }
    *psi = best;
    return NB_OK;
}

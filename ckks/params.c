/* CKKS parameter sets: the preset table (each with its source), prime
 * generation with disjoint Q and P, and the precomputation of every
 * base-conversion and scalar constant of every level (host arithmetic). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckks/consts.h"
#include "ntt/arith.h"
#include "ntt/primes.h"

/* Sources: docs/ckks.md ("Presets") gives the full references. The 100x
 * sets reproduce the parameters of scale-snu/ckks-gpu-core (the released
 * GPU core of Jung et al., "Over 100x Faster Bootstrapping in Fully
 * Homomorphic Encryption through Memory-centric Optimization with GPUs",
 * TCHES 2021), include/public/Test.h: q_0 and P of 62 bits, scaling primes
 * of 51 bits, alpha = (L+1)/dnum. */
static const nb_ckks_preset presets[] = {
    {"test-tiny", {4, 3, 2, 40, 30, 40, 64, 1, 1},
     "test set: N=16, L=3, dnum=2 (the GMP schoolbook key switch runs in milliseconds)"},
    {"test-small", {10, 7, 3, 50, 40, 50, 64, 1, 1},
     "test set: N=2^10, L=7, dnum=3 (partial last digit), CI-sized"},
    {"test-medium", {12, 15, 4, 60, 45, 60, 64, 1, 1},
     "test set: N=2^12, L=15, dnum=4, 60-bit q_0/P and 45-bit scaling primes"},
    {"test-tiny-w32", {4, 5, 2, 31, 50, 31, 32, 2, 2},
     "test set on 32-bit words: N=16, two 31-bit base primes, two levels of a prime pair "
     "(product just below 2^50), dnum=2 (the GMP schoolbook key switch runs in milliseconds)"},
    {"test-small-w32", {10, 13, 3, 31, 50, 31, 32, 2, 2},
     "test set on 32-bit words: N=2^10, two 31-bit base primes, six levels of a prime pair, "
     "dnum=3 (alpha=5, a partial last digit), CI-sized"},
    {"ckks16-l30-d3", {16, 30, 3, 62, 51, 62, 64, 1, 1},
     "comparison point of GPU CKKS papers: logN 16, L=30, dnum=3 (alpha=11), with the 100x "
     "prime sizes (62-bit q_0 and P, 51-bit scaling primes)"},
    {"100x-16-d3", {16, 44, 3, 62, 51, 62, 64, 1, 1},
     "100x (Jung et al., TCHES 2021) PARAM_SMALL_DNUM of scale-snu/ckks-gpu-core: logN 16, "
     "L=44, dnum=3 (alpha=15); its ModUp/ModDown/KeySwitch were timed on a V100"},
    {"100x-16-d45", {16, 44, 45, 62, 51, 62, 64, 1, 1},
     "100x (Jung et al., TCHES 2021) PARAM_LARGE_DNUM of scale-snu/ckks-gpu-core: logN 16, "
     "L=44, dnum=45 (alpha=1: one special prime, the SEAL-style decomposition)"},
    {"100x-17-d3", {17, 29, 3, 62, 51, 62, 64, 1, 1},
     "100x (Jung et al., TCHES 2021) SPECIAL_PARAM of scale-snu/ckks-gpu-core: logN 17, "
     "L=29, dnum=3 (alpha=10), bootstrapping-sized ring"},
    {"ckks16-l30-d3-w32", {16, 61, 3, 31, 51, 31, 32, 2, 2},
     "the 32-bit twin of ckks16-l30-d3: logN 16, dnum 3, every prime below 2^31; q_0 is two "
     "31-bit primes, each of the 30 levels a pair of primes whose product is just below 2^51 "
     "(rescale drops the pair), P is 21 31-bit primes (alpha=21)"},
    {"cheddar16-boot-w32", {16, 46, 4, 25, 30, 31, 32, 4, 1},
     "Cheddar (Choi, Kim and Ahn, ASPLOS 2026, arXiv:2407.13055), logN 16 bootstrapping set at scale 2^40 on "
     "32-bit words: Q = 4 25-bit terminal + 43 30-bit main primes, P = 12 31-bit primes "
     "(dnum 4 gives alpha=12)"},
    {"cheddar16-boot-w64", {16, 25, 4, 50, 40, 56, 64, 1, 1},
     "Cheddar (Choi, Kim and Ahn, ASPLOS 2026, arXiv:2407.13055), logN 16 bootstrapping set at scale 2^40 on "
     "64-bit words: Q = one 50-bit + 25 40-bit primes, P = 7 56-bit primes (dnum 4 gives "
     "alpha=7)"},
};

size_t nb_ckks_preset_count(void) { return sizeof presets / sizeof presets[0]; }

const nb_ckks_preset *nb_ckks_preset_at(size_t i)
{
    return i < nb_ckks_preset_count() ? &presets[i] : NULL;
}

const nb_ckks_preset *nb_ckks_preset_find(const char *name)
{
    if (!name) {
        nb_set_error(NB_ERR_INVALID_ARG, "preset name is NULL");
        return NULL;
    }
    for (size_t i = 0; i < nb_ckks_preset_count(); i++)
        if (strcmp(presets[i].name, name) == 0)
            return &presets[i];
    nb_set_error(NB_ERR_NOT_FOUND, "no CKKS preset named '%s' (see `nttbench list`)", name);
    return NULL;
}

/* ---- constants blob ---- */

static nb_status reserve(nb_ckks_consts *k, size_t words, size_t *off)
{
    if (k->words + words > k->cap) {
        size_t cap = k->cap ? k->cap : 1024;
        while (cap < k->words + words)
            cap *= 2;
        uint64_t *b = realloc(k->blob, cap * sizeof *b);
        if (!b)
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "CKKS constants: out of host memory");
        k->blob = b;
        k->cap = cap;
    }
    *off = k->words;
    memset(k->blob + k->words, 0, words * sizeof(uint64_t));
    k->words += words;
    return NB_OK;
}

uint32_t nb_conv_chunk(uint64_t max_a, uint64_t max_b)
{
    /* need: (max_b - 1) + chunk * (max_a - 1) * (max_b - 1) <= 2^128 - 1 */
    unsigned __int128 prod = (unsigned __int128)(max_a - 1) * (max_b - 1);
    if (prod == 0)
        return 1u << 20;
    unsigned __int128 room = ~(unsigned __int128)0 - (max_b - 1);
    unsigned __int128 c = room / prod;
    if (c > (1u << 20))
        c = 1u << 20;
    return c ? (uint32_t)c : 1;
}

uint32_t nb_conv_redc_steps(uint64_t max_a, uint64_t max_b, size_t count)
{
    if (count == 0 || max_a == 0 || max_b < 3)
        return 0;
    /* S <= count (max_a - 1)(b - 1); domain: S + (2^64 - 1) b < 2^128 */
    const unsigned __int128 prod = (unsigned __int128)(max_a - 1) * (max_b - 1);
    const unsigned __int128 top = ~(unsigned __int128)0 - (unsigned __int128)(~0ull) * max_b;
    if (prod && count > top / prod)
        return 0;
    /* r < S / 2^64 + b < (count (max_a - 1) / 2^64 + 1) b */
    const uint64_t m = (uint64_t)(((unsigned __int128)count * (max_a - 1)) >> 64) + 2;
    uint32_t steps = 1;
    while (steps < 63 && ((uint64_t)1 << steps) < m)
        steps++;
    if (((uint64_t)1 << steps) < m)
        return 0;
    return (max_b >> (64 - steps)) ? 0 : steps; /* max_b 2^(steps-1) < 2^63 */
}

nb_status nb_conv_desc_build(nb_ckks_consts *k, nb_conv_desc *d, const uint64_t *c,
                             size_t n_from, const uint64_t *b, size_t n_to,
                             const uint32_t *out_limb)
{
    d->n_from = (uint32_t)n_from;
    d->n_to = (uint32_t)n_to;
    NB_TRY(reserve(k, n_from, &d->from_q));
    NB_TRY(reserve(k, n_from, &d->qhat_inv));
    NB_TRY(reserve(k, n_from, &d->qhat_inv_shoup));
    NB_TRY(reserve(k, n_to, &d->to_q));
    NB_TRY(reserve(k, n_to, &d->to_mu_lo));
    NB_TRY(reserve(k, n_to, &d->to_mu_hi));
    NB_TRY(reserve(k, n_to, &d->out_limb));
    NB_TRY(reserve(k, n_to * n_from, &d->qhat_mod));
    NB_TRY(reserve(k, n_to * n_from, &d->qhat_mont));
    NB_TRY(reserve(k, n_to, &d->to_neg_inv));
    NB_TRY(reserve(k, n_to, &d->to_r32));
    NB_TRY(reserve(k, n_to, &d->to_r64));
    NB_TRY(reserve(k, n_to, &d->to_r32_shoup));
    NB_TRY(reserve(k, n_to, &d->to_one_shoup));
    d->tc = 1;
    for (size_t i = 0; i < n_from + n_to; i++)
        d->tc &= !((i < n_from ? c[i] : b[i - n_from]) >> NB_MAX_PRIME_BITS_32);
    d->tc_frag = d->tc_epi = 0;
    if (d->tc) { /* even offsets: read in 16-byte words */
        NB_TRY(reserve(k, (k->words & 1) + nb_conv_tc_words(n_from, n_to), &d->tc_frag));
        d->tc_frag += d->tc_frag & 1;
        NB_TRY(reserve(k, (k->words & 1) + 4 * n_to, &d->tc_epi));
        d->tc_epi += d->tc_epi & 1;
    }
    uint64_t *B = k->blob; /* stable from here on: no more reserve() below */
    uint64_t max_c = 0, max_b = 0;
    for (size_t i = 0; i < n_from; i++) {
        uint64_t hat = 1; /* prod_{m != i} c_m mod c_i */
        for (size_t m = 0; m < n_from; m++)
            if (m != i)
                hat = nb_mul_mod_host(hat, c[m] % c[i], c[i]);
        uint64_t inv = nb_inv_mod(hat, c[i]);
        B[d->from_q + i] = c[i];
        B[d->qhat_inv + i] = inv;
        B[d->qhat_inv_shoup + i] = nb_shoup_precompute(inv, c[i]);
        if (c[i] > max_c)
            max_c = c[i];
    }
    for (size_t j = 0; j < n_to; j++) {
        uint64_t lo, hi;
        nb_barrett_precompute(b[j], &lo, &hi);
        B[d->to_q + j] = b[j];
        B[d->to_mu_lo + j] = lo;
        B[d->to_mu_hi + j] = hi;
        B[d->out_limb + j] = out_limb ? out_limb[j] : j;
        B[d->to_neg_inv + j] = nb_neg_inv_2_64(b[j]);
        if (!(b[j] >> NB_MAX_PRIME_BITS_32)) {
            const uint64_t r32 = ((uint64_t)1 << 32) % b[j];
            B[d->to_r32 + j] = r32;
            B[d->to_r64 + j] = nb_mul_mod_host(r32, r32, b[j]);
            B[d->to_r32_shoup + j] = nb_shoup32_precompute((uint32_t)r32, (uint32_t)b[j]);
            B[d->to_one_shoup + j] = ((uint64_t)1 << 32) / b[j];
        }
        if (b[j] > max_b)
            max_b = b[j];
        const uint64_t r64 = (uint64_t)(((unsigned __int128)1 << 64) % b[j]); /* 2^64 mod b_j */
        for (size_t i = 0; i < n_from; i++) {
            uint64_t hat = 1;
            for (size_t m = 0; m < n_from; m++)
                if (m != i)
                    hat = nb_mul_mod_host(hat, c[m] % b[j], b[j]);
            B[d->qhat_mod + j * n_from + i] = hat;
            B[d->qhat_mont + j * n_from + i] = nb_mul_mod_host(hat, r64, b[j]);
        }
    }
    if (d->tc)
        nb_conv_tc_fill(B + d->tc_frag, B + d->tc_epi, B + d->qhat_mod, b, n_from, n_to);
    d->chunk = nb_conv_chunk(max_c, max_b);
    /* odd targets only (Montgomery) */
    int odd = 1;
    for (size_t j = 0; j < n_to; j++)
        odd &= (int)(b[j] & 1);
    d->redc_steps = odd && n_to ? nb_conv_redc_steps(max_c, max_b, n_from) : 0;
    return NB_OK;
}

/* ---- parameter sets ---- */

/* The spec with its defaults filled in (word 64, one base prime, one
 * prime dropped per rescale). */
static nb_ckks_spec normalized(const nb_ckks_spec *s)
{
    nb_ckks_spec n = *s;
    if (!n.word_bits)
        n.word_bits = 64;
    if (!n.q0_count)
        n.q0_count = 1;
    if (!n.rescale_primes)
        n.rescale_primes = 1;
    return n;
}

static nb_status check_spec(const nb_ckks_spec *s)
{
    if (s->log_n < NB_MIN_LOG_N || s->log_n > NB_MAX_LOG_N)
        return nb_set_error(NB_ERR_INVALID_ARG, "CKKS: log_n=%u outside [%u, %u]", s->log_n,
                            NB_MIN_LOG_N, NB_MAX_LOG_N);
    if (s->levels < 1 || s->levels > 255)
        return nb_set_error(NB_ERR_INVALID_ARG, "CKKS: levels=%u outside [1, 255]", s->levels);
    if (s->dnum < 1 || s->dnum > s->levels + 1 || s->dnum > 64)
        return nb_set_error(NB_ERR_INVALID_ARG, "CKKS: dnum=%u outside [1, min(L+1=%u, 64)]",
                            s->dnum, s->levels + 1);
    if (s->word_bits != 64 && s->word_bits != 32)
        return nb_set_error(NB_ERR_INVALID_ARG, "CKKS: word_bits=%u (32 or 64)", s->word_bits);
    if (s->q0_count > s->levels)
        return nb_set_error(NB_ERR_INVALID_ARG, "CKKS: q0_count=%u outside [1, L=%u]",
                            s->q0_count, s->levels);
    if (s->rescale_primes > 2)
        return nb_set_error(NB_ERR_INVALID_ARG, "CKKS: rescale_primes=%u (1 or 2)",
                            s->rescale_primes);
    if ((s->levels + 1 - s->q0_count) % s->rescale_primes)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "CKKS: %u scaling primes do not come in groups of %u",
                            s->levels + 1 - s->q0_count, s->rescale_primes);
    const unsigned lo = s->log_n + 2, hi = s->word_bits == 32 ? NB_MAX_PRIME_BITS_32
                                                                : NB_MAX_PRIME_BITS;
    /* a pair's product: both primes below 2^hi, the product below 2^63 */
    const unsigned q_hi = s->rescale_primes == 2 ? (2 * hi < 62 ? 2 * hi : 62) : hi;
    const unsigned q_lo = s->rescale_primes == 2 ? 2 * lo : lo;
    const unsigned bits[3] = {s->q0_bits, s->q_bits, s->p_bits};
    const unsigned los[3] = {lo, q_lo, lo}, his[3] = {hi, q_hi, hi};
    const char *what[3] = {"q0 bits", s->rescale_primes == 2 ? "q bits (of a pair)" : "q bits",
                           "p bits"};
    for (int i = 0; i < 3; i++)
        if (bits[i] < los[i] || bits[i] > his[i])
            return nb_set_error(NB_ERR_INVALID_ARG, "CKKS: %s=%u outside [%u, %u]%s", what[i],
                                bits[i], los[i], his[i],
                                s->word_bits == 32 ? " for 32-bit words" : "");
    return NB_OK;
}

static void consts_free(nb_ckks_consts *k)
{
    if (!k)
        return;
    free(k->blob);
    free(k->modup);
    free(k);
}

void nb_ckks_params_destroy(nb_ckks_params *p)
{
    if (!p)
        return;
    consts_free(p->consts);
    free(p->primes);
    free(p);
}

size_t nb_ckks_digits(const nb_ckks_params *p, size_t level)
{
    return p && p->alpha ? (level + 1 + p->alpha - 1) / p->alpha : 0;
}

void nb_ckks_digit_range(const nb_ckks_params *p, size_t level, size_t digit, size_t *first,
                         size_t *count)
{
    size_t f = p ? digit * p->alpha : 0, e = p ? f + p->alpha : 0;
    if (e > level + 1)
        e = level + 1;
    if (first)
        *first = f;
    if (count)
        *count = e > f ? e - f : 0;
}

size_t nb_ckks_key_limbs(const nb_ckks_params *p)
{
    return p ? p->dnum * 2 * (p->q_count + p->alpha) : 0;
}

void nb_ckks_basis_ext(const nb_ckks_params *p, size_t level, uint64_t *out)
{
    if (!p || !out || level > p->max_level)
        return;
    for (size_t i = 0; i <= level; i++)
        out[i] = p->q[i];
    for (size_t k = 0; k < p->alpha; k++)
        out[level + 1 + k] = p->p[k];
}

/* modUp tables: level l, digit j converts the digit's primes to B_l minus
 * the digit (k->modup[l * dnum + j]). */
static nb_status build_modup(const nb_ckks_params *p, nb_ckks_consts *k)
{
    const size_t Q = p->q_count, A = p->alpha, total = Q + A;
    k->modup = calloc(Q * p->dnum, sizeof *k->modup);
    uint64_t *to = malloc(total * sizeof *to);
    uint32_t *limb = malloc(total * sizeof *limb);
    if (!k->modup || !to || !limb) {
        free(to);
        free(limb);
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "CKKS constants: out of host memory");
    }
    nb_status s = NB_OK;
    for (size_t l = 0; l < Q && s == NB_OK; l++) {
        size_t digits = nb_ckks_digits(p, l);
        for (size_t j = 0; j < digits && s == NB_OK; j++) {
            size_t first, count, nt = 0;
            nb_ckks_digit_range(p, l, j, &first, &count);
            for (size_t i = 0; i <= l; i++)
                if (i < first || i >= first + count) {
                    to[nt] = p->q[i];
                    limb[nt++] = (uint32_t)i;
                }
            for (size_t a = 0; a < A; a++) {
                to[nt] = p->p[a];
                limb[nt++] = (uint32_t)(l + 1 + a);
            }
            s = nb_conv_desc_build(k, &k->modup[l * p->dnum + j], p->q + first, count, to, nt,
                                   limb);
        }
    }
    free(to);
    free(limb);
    return s;
}

static nb_status build_consts(nb_ckks_params *p)
{
    nb_ckks_consts *k = calloc(1, sizeof *k);
    if (!k)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "CKKS constants: out of host memory");
    p->consts = k;
    const size_t Q = p->q_count, A = p->alpha, total = Q + A;

    NB_TRY(reserve(k, total, &k->prime_q));
    NB_TRY(reserve(k, total, &k->prime_mu_lo));
    NB_TRY(reserve(k, total, &k->prime_mu_hi));
    uint64_t max_prime = 0;
    for (size_t i = 0; i < total; i++) {
        uint64_t lo, hi;
        nb_barrett_precompute(p->primes[i], &lo, &hi);
        k->blob[k->prime_q + i] = p->primes[i];
        k->blob[k->prime_mu_lo + i] = lo;
        k->blob[k->prime_mu_hi + i] = hi;
        if (p->primes[i] > max_prime)
            max_prime = p->primes[i];
    }
    k->ip_chunk = nb_conv_chunk(max_prime, max_prime);
    NB_TRY(reserve(k, total, &k->prime_r32));
    NB_TRY(reserve(k, total, &k->prime_r32_shoup));
    NB_TRY(reserve(k, total, &k->prime_one_shoup));
    for (size_t i = 0; i < total; i++) {
        const uint64_t q = p->primes[i];
        if (q >> NB_MAX_PRIME_BITS_32)
            continue;
        const uint64_t r32 = ((uint64_t)1 << 32) % q;
        k->blob[k->prime_r32 + i] = r32;
        k->blob[k->prime_r32_shoup + i] = nb_shoup32_precompute((uint32_t)r32, (uint32_t)q);
        k->blob[k->prime_one_shoup + i] = ((uint64_t)1 << 32) / q;
    }
    NB_TRY(reserve(k, total, &k->identity));
    for (size_t i = 0; i < total; i++)
        k->blob[k->identity + i] = i;

    NB_TRY(build_modup(p, k));

    /* modDown: P -> Q_L, and P^-1 mod q_i */
    NB_TRY(nb_conv_desc_build(k, &k->moddown, p->p, A, p->q, Q, NULL));
    NB_TRY(reserve(k, Q, &k->p_inv));
    NB_TRY(reserve(k, Q, &k->p_inv_shoup));
    for (size_t i = 0; i < Q; i++) {
        uint64_t P = 1;
        for (size_t a = 0; a < A; a++)
            P = nb_mul_mod_host(P, p->p[a] % p->q[i], p->q[i]);
        uint64_t inv = nb_inv_mod(P, p->q[i]);
        k->blob[k->p_inv + i] = inv;
        k->blob[k->p_inv_shoup + i] = nb_shoup_precompute(inv, p->q[i]);
    }

    /* rescale from level l >= g: D_l = q_(l-g+1)..q_l; D_l^-1 and floor(D_l/2)
     * mod q_i (i <= l-g); g = 2: q_(l-1)^-1 mod q_l for Garner's formula */
    const size_t g = p->rescale_primes;
    NB_TRY(reserve(k, Q * Q, &k->ql_inv));
    NB_TRY(reserve(k, Q * Q, &k->ql_inv_shoup));
    NB_TRY(reserve(k, Q * Q, &k->ql_half));
    NB_TRY(reserve(k, Q, &k->garner));
    NB_TRY(reserve(k, Q, &k->garner_shoup));
    for (size_t l = g; l < Q; l++) {
        const unsigned __int128 D = g == 2 ? (unsigned __int128)p->q[l - 1] * p->q[l] : p->q[l];
        const uint64_t half = (uint64_t)(D >> 1);
        for (size_t i = 0; i + g <= l; i++) {
            const uint64_t qi = p->q[i];
            uint64_t inv = nb_inv_mod((uint64_t)(D % qi), qi);
            k->blob[k->ql_inv + l * Q + i] = inv;
            k->blob[k->ql_inv_shoup + l * Q + i] = nb_shoup_precompute(inv, qi);
            k->blob[k->ql_half + l * Q + i] = half % qi;
        }
        if (g == 2) {
            const uint64_t inv = nb_inv_mod(p->q[l - 1] % p->q[l], p->q[l]);
            k->blob[k->garner + l] = inv;
            k->blob[k->garner_shoup + l] = nb_shoup_precompute(inv, p->q[l]);
        }
    }
    return NB_OK;
}

/* The largest prime q <= bound with q = 1 mod 2N that is in neither
 * list; 0 if there is none. */
static uint64_t largest_prime_at_most(unsigned log_n, uint64_t bound, const uint64_t *a,
                                      size_t na, const uint64_t *b, size_t nb)
{
    const uint64_t m = 2ull << log_n;
    for (uint64_t c = bound < m + 1 ? 0 : ((bound - 1) / m) * m + 1; c > m; c -= m) {
        int used = 0;
        for (size_t i = 0; i < na && !used; i++)
            used = a[i] == c;
        for (size_t i = 0; i < nb && !used; i++)
            used = b[i] == c;
        if (!used && nb_is_prime(c))
            return c;
    }
    return 0;
}

/* `pairs` pairs of scaling primes into out[0..2 pairs): pair i is (s_i,
 * t_i), s_i the i-th largest free prime <= 2^(bits/2) and t_i the largest
 * free prime <= 2^bits / s_i, so that every product is just below 2^bits;
 * none in skip[0..n_skip). */
static nb_status generate_pairs(unsigned log_n, unsigned bits, size_t pairs, const uint64_t *skip,
                                size_t n_skip, uint64_t *out)
{
    const uint64_t top = 1ull << bits;
    uint64_t s_bound = (uint64_t)1 << (bits / 2);
    if (bits & 1) /* floor(2^(bits/2)) for odd bits: 2^((bits-1)/2) * sqrt(2) */
        s_bound = (uint64_t)((double)s_bound * 1.4142135623730951);
    for (size_t i = 0; i < pairs; i++) {
        const uint64_t s = largest_prime_at_most(log_n, s_bound, skip, n_skip, out, 2 * i);
        if (!s)
            return nb_set_error(NB_ERR_INVALID_ARG,
                                "CKKS: only %zu pairs of primes = 1 mod 2^%u with a product "
                                "below 2^%u are available (asked for %zu)",
                                i, log_n + 1, bits, pairs);
        out[2 * i] = s;
        const uint64_t t = largest_prime_at_most(log_n, (top - 1) / s, skip, n_skip, out, 2 * i + 1);
        if (!t)
            return nb_set_error(NB_ERR_INVALID_ARG,
                                "CKKS: no prime partner below 2^%u / %llu for a pair (log_n %u)",
                                bits, (unsigned long long)s, log_n);
        out[2 * i + 1] = t;
        s_bound = s - 1;
    }
    return NB_OK;
}

/* Every prime of the set: the base, the scaling primes (or pairs), then P,
 * each skipping all chosen so far; 32-bit sets are checked below 2^31. */
static nb_status generate_primes(nb_ckks_params *p)
{
    const nb_ckks_spec *sp = &p->spec;
    const size_t Q = p->q_count, b = p->q0_count;
    NB_TRY(nb_primes_generate(p->log_n, sp->q0_bits, b, NULL, 0, p->primes));
    if (p->rescale_primes == 2)
        NB_TRY(generate_pairs(p->log_n, sp->q_bits, (Q - b) / 2, p->primes, b, p->primes + b));
    else if (Q > b)
        NB_TRY(nb_primes_generate(p->log_n, sp->q_bits, Q - b, p->primes, b, p->primes + b));
    NB_TRY(nb_primes_generate(p->log_n, sp->p_bits, p->alpha, p->primes, Q, p->primes + Q));
    for (size_t i = 0; p->word_bits == 32 && i < Q + p->alpha; i++)
        if (p->primes[i] >> NB_MAX_PRIME_BITS_32)
            return nb_set_error(NB_ERR_INVALID_ARG, "CKKS: prime %llu is not below 2^31",
                                (unsigned long long)p->primes[i]);
    return NB_OK;
}

nb_status nb_ckks_params_create(nb_ckks_params **out, const nb_ckks_spec *spec_in)
{
    if (out)
        *out = NULL;
    if (!out || !spec_in)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ckks_params_create: NULL argument");
    const nb_ckks_spec sp = normalized(spec_in);
    const nb_ckks_spec *spec = &sp;
    NB_TRY(check_spec(spec));
    nb_ckks_params *p = calloc(1, sizeof *p);
    if (!p)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "CKKS params: out of host memory");
    p->spec = *spec;
    strcpy(p->name, "custom");
    p->log_n = spec->log_n;
    p->n = (size_t)1 << spec->log_n;
    p->max_level = spec->levels;
    p->q_count = (size_t)spec->levels + 1;
    p->dnum = spec->dnum;
    p->word_bits = spec->word_bits;
    p->q0_count = spec->q0_count;
    p->rescale_primes = spec->rescale_primes;
    p->alpha = (p->q_count + p->dnum - 1) / p->dnum;
    const size_t total = p->q_count + p->alpha;
    p->primes = calloc(total, sizeof *p->primes);
    nb_status s = p->primes ? NB_OK
                            : nb_set_error(NB_ERR_OUT_OF_MEMORY, "CKKS params: out of host memory");
    if (s == NB_OK)
        s = generate_primes(p);
    if (s == NB_OK) {
        p->q = p->primes;
        p->p = p->primes + p->q_count;
        s = build_consts(p);
    }
    if (s != NB_OK) {
        nb_ckks_params_destroy(p);
        return s;
    }
    *out = p;
    return NB_OK;
}

nb_status nb_ckks_params_from_preset(nb_ckks_params **out, const char *name)
{
    if (out)
        *out = NULL;
    if (!out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ckks_params_from_preset: NULL argument");
    const nb_ckks_preset *pr = nb_ckks_preset_find(name);
    if (!pr)
        return NB_ERR_NOT_FOUND;
    NB_TRY(nb_ckks_params_create(out, &pr->spec));
    snprintf((*out)->name, sizeof (*out)->name, "%s", pr->name);
    return NB_OK;
}

void nb_ckks_ntt_counts(const nb_ckks_params *p, nb_ckks_stage stage, size_t level,
                        size_t *forward_limbs, size_t *inverse_limbs)
{
    size_t f = 0, i = 0;
    const size_t ext = p ? level + 1 + p->alpha : 0;
    const int in_domain = p && level <= p->max_level &&
                          (stage != NB_CKKS_STAGE_RESCALE || level >= p->rescale_primes);
    switch (in_domain ? stage : (nb_ckks_stage)-1) {
    case NB_CKKS_STAGE_MODUP:
    case NB_CKKS_STAGE_KEYSWITCH: {
        size_t digits = nb_ckks_digits(p, level);
        for (size_t j = 0; j < digits; j++) {
            size_t first, count;
            nb_ckks_digit_range(p, level, j, &first, &count);
            i += count;
            f += ext - count;
        }
        if (stage == NB_CKKS_STAGE_KEYSWITCH) {
            i += 2 * p->alpha;
            f += 2 * (level + 1);
        }
        break;
    }
    case NB_CKKS_STAGE_MODDOWN:
        i = p->alpha;
        f = level + 1;
        break;
    case NB_CKKS_STAGE_RESCALE:
        i = p->rescale_primes;
        f = level + 1 - p->rescale_primes;
        break;
    }
    if (forward_limbs)
        *forward_limbs = f;
    if (inverse_limbs)
        *inverse_limbs = i;
}

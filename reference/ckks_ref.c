/* GMP reference of the CKKS stages (base conversion, modUp, modDown,
 * rescale, key switch), each computed from its definition on big integers:
 * CRT composition, the conversion formula evaluated exactly, exact division,
 * and (key switch) the negacyclic product by the schoolbook formula. */
#include <stdlib.h>

#include "reference/ckks_ref.h"
#include "reference/reference.h"

/* chat_i = C / c_i and [chat_i^-1]_{c_i} for one basis. */
typedef struct {
    size_t k;
    mpz_t *hat;
    unsigned long *hat_inv;
} conv_basis;

static int conv_basis_init(conv_basis *b, const uint64_t *c, size_t k)
{
    b->k = k;
    b->hat = malloc(k * sizeof *b->hat);
    b->hat_inv = malloc(k * sizeof *b->hat_inv);
    if (!b->hat || !b->hat_inv) {
        free(b->hat);
        free(b->hat_inv);
        return 0;
    }
    mpz_t C, ci, inv;
    mpz_inits(C, ci, inv, NULL);
    nb_ref_basis_product(C, c, k);
    for (size_t i = 0; i < k; i++) {
        mpz_init(b->hat[i]);
        mpz_set_ui(ci, c[i]);
        mpz_divexact(b->hat[i], C, ci);
        mpz_invert(inv, b->hat[i], ci);
        b->hat_inv[i] = mpz_get_ui(inv);
    }
    mpz_clears(C, ci, inv, NULL);
    return 1;
}

static void conv_basis_clear(conv_basis *b)
{
    for (size_t i = 0; i < b->k; i++)
        mpz_clear(b->hat[i]);
    free(b->hat);
    free(b->hat_inv);
}

/* y = sum_i [x_i * hat_inv_i]_{c_i} * hat_i */
static void conv_eval(mpz_t y, const conv_basis *b, const uint64_t *res, size_t stride,
                      const uint64_t *c, mpz_t tmp)
{
    mpz_set_ui(y, 0);
    for (size_t i = 0; i < b->k; i++) {
        mpz_set_ui(tmp, res[i * stride] % c[i]);
        mpz_mul_ui(tmp, tmp, b->hat_inv[i]);
        mpz_fdiv_r_ui(tmp, tmp, c[i]);
        mpz_addmul(y, tmp, b->hat[i]);
    }
}

void nb_ref_conv_value(mpz_t y, const uint64_t *residues, size_t stride, const uint64_t *from,
                       size_t n_from)
{
    conv_basis b;
    mpz_t tmp;
    if (!conv_basis_init(&b, from, n_from)) {
        mpz_set_si(y, -1);
        return;
    }
    mpz_init(tmp);
    conv_eval(y, &b, residues, stride, from, tmp);
    mpz_clear(tmp);
    conv_basis_clear(&b);
}

nb_status nb_ref_baseconv(uint64_t *out, const uint64_t *in, size_t n, const uint64_t *from,
                          size_t n_from, const uint64_t *to, size_t n_to)
{
    if (!out || !in || !from || !to || n == 0 || n_from == 0 || n_to == 0)
        return NB_ERR_INVALID_ARG;
    conv_basis b;
    if (!conv_basis_init(&b, from, n_from))
        return NB_ERR_OUT_OF_MEMORY;
    mpz_t y, tmp;
    mpz_inits(y, tmp, NULL);
    for (size_t c = 0; c < n; c++) {
        conv_eval(y, &b, in + c, n, from, tmp);
        for (size_t j = 0; j < n_to; j++)
            out[j * n + c] = mpz_fdiv_ui(y, to[j]);
    }
    mpz_clears(y, tmp, NULL);
    conv_basis_clear(&b);
    return NB_OK;
}

nb_status nb_ref_modup(uint64_t *out, const uint64_t *in, size_t n, const uint64_t *basis,
                       size_t total, size_t first, size_t count)
{
    if (!out || !in || !basis || count == 0 || first + count > total)
        return NB_ERR_INVALID_ARG;
    const size_t n_to = total - count;
    uint64_t *to = malloc(n_to * sizeof *to);
    uint64_t *tmp = malloc(n_to * n * sizeof *tmp);
    size_t *pos = malloc(n_to * sizeof *pos);
    if (!to || !tmp || !pos) {
        free(to);
        free(tmp);
        free(pos);
        return NB_ERR_OUT_OF_MEMORY;
    }
    size_t t = 0;
    for (size_t i = 0; i < total; i++)
        if (i < first || i >= first + count) {
            to[t] = basis[i];
            pos[t++] = i;
        }
    nb_status s = nb_ref_baseconv(tmp, in + first * n, n, basis + first, count, to, n_to);
    if (s == NB_OK) {
        for (size_t i = first; i < first + count; i++)
            for (size_t c = 0; c < n; c++)
                out[i * n + c] = in[i * n + c];
        for (size_t j = 0; j < n_to; j++)
            for (size_t c = 0; c < n; c++)
                out[pos[j] * n + c] = tmp[j * n + c];
    }
    free(to);
    free(tmp);
    free(pos);
    return s;
}

/* The basis Q u P as one array. */
static uint64_t *join(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    uint64_t *r = malloc((na + nb) * sizeof *r);
    if (!r)
        return NULL;
    for (size_t i = 0; i < na; i++)
        r[i] = a[i];
    for (size_t i = 0; i < nb; i++)
        r[na + i] = b[i];
    return r;
}

/* Shared by modDown (exact = 0) and floor division (exact = 1). */
static nb_status div_by_p(uint64_t *out, const uint64_t *in, size_t n, const uint64_t *qs,
                          size_t q_count, const uint64_t *ps, size_t p_count, int exact)
{
    if (!out || !in || !qs || !ps || n == 0 || q_count == 0 || p_count == 0)
        return NB_ERR_INVALID_ARG;
    uint64_t *all = join(qs, q_count, ps, p_count);
    if (!all)
        return NB_ERR_OUT_OF_MEMORY;
    conv_basis b;
    if (!conv_basis_init(&b, ps, p_count)) {
        free(all);
        return NB_ERR_OUT_OF_MEMORY;
    }
    mpz_t x, v, P, tmp;
    mpz_inits(x, v, P, tmp, NULL);
    nb_ref_basis_product(P, ps, p_count);
    for (size_t c = 0; c < n; c++) {
        nb_ref_crt_compose(x, in + c, n, all, q_count + p_count);
        if (exact) {
            mpz_fdiv_q(x, x, P);
        } else {
            conv_eval(v, &b, in + q_count * n + c, n, ps, tmp);
            mpz_sub(x, x, v);
            mpz_divexact(x, x, P);
        }
        nb_ref_crt_decompose(out + c, n, x, qs, q_count);
    }
    mpz_clears(x, v, P, tmp, NULL);
    conv_basis_clear(&b);
    free(all);
    return NB_OK;
}

nb_status nb_ref_moddown(uint64_t *out, const uint64_t *in, size_t n, const uint64_t *qs,
                         size_t q_count, const uint64_t *ps, size_t p_count)
{
    return div_by_p(out, in, n, qs, q_count, ps, p_count, 0);
}

nb_status nb_ref_div_floor(uint64_t *out, const uint64_t *in, size_t n, const uint64_t *qs,
                           size_t q_count, const uint64_t *ps, size_t p_count)
{
    return div_by_p(out, in, n, qs, q_count, ps, p_count, 1);
}

nb_status nb_ref_rescale(uint64_t *out, const uint64_t *in, size_t n, const uint64_t *qs,
                         size_t count, int round)
{
    return nb_ref_rescale_by(out, in, n, qs, count, 1, round);
}

nb_status nb_ref_rescale_by(uint64_t *out, const uint64_t *in, size_t n, const uint64_t *qs,
                            size_t count, size_t drop, int round)
{
    if (!out || !in || !qs || n == 0 || drop < 1 || count <= drop)
        return NB_ERR_INVALID_ARG;
    mpz_t x, D, half;
    mpz_inits(x, D, half, NULL);
    nb_ref_basis_product(D, qs + count - drop, drop);
    mpz_fdiv_q_2exp(half, D, 1);
    for (size_t c = 0; c < n; c++) {
        nb_ref_crt_compose(x, in + c, n, qs, count);
        if (round)
            mpz_add(x, x, half);
        mpz_fdiv_q(x, x, D);
        nb_ref_crt_decompose(out + c, n, x, qs, count - drop);
    }
    mpz_clears(x, D, half, NULL);
    return NB_OK;
}

/* acc += a * b mod (X^N + 1), coefficientwise in mpz (no reduction). */
static void negacyclic_addmul(mpz_t *acc, mpz_t *a, mpz_t *b, size_t n, mpz_t tmp)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            mpz_mul(tmp, a[i], b[j]);
            if (i + j < n)
                mpz_add(acc[i + j], acc[i + j], tmp);
            else
                mpz_sub(acc[i + j - n], acc[i + j - n], tmp);
        }
}

static mpz_t *mpz_vec(size_t n)
{
    mpz_t *v = malloc(n * sizeof *v);
    if (v)
        for (size_t i = 0; i < n; i++)
            mpz_init(v[i]);
    return v;
}

static void mpz_vec_free(mpz_t *v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        mpz_clear(v[i]);
    free(v);
}

nb_status nb_ref_keyswitch(uint64_t *out0, uint64_t *out1, const uint64_t *in,
                           const uint64_t *key, unsigned log_n, const uint64_t *qs,
                           size_t q_count, const uint64_t *ps, size_t p_count, size_t alpha)
{
    if (!out0 || !out1 || !in || !key || !qs || !ps || q_count == 0 || p_count == 0 ||
        alpha == 0 || log_n < 1 || log_n > 10)
        return NB_ERR_INVALID_ARG;
    const size_t n = (size_t)1 << log_n, ext = q_count + p_count;
    const size_t digits = (q_count + alpha - 1) / alpha;
    uint64_t *all = join(qs, q_count, ps, p_count);
    mpz_t *y = mpz_vec(n), *kp = mpz_vec(n), *acc[2] = {mpz_vec(n), mpz_vec(n)};
    uint64_t *accr = malloc(ext * n * sizeof *accr);
    if (!all || !y || !kp || !acc[0] || !acc[1] || !accr) {
        free(all);
        free(accr);
        mpz_vec_free(y, n);
        mpz_vec_free(kp, n);
        mpz_vec_free(acc[0], n);
        mpz_vec_free(acc[1], n);
        return NB_ERR_OUT_OF_MEMORY;
    }
    mpz_t QP, tmp;
    mpz_inits(QP, tmp, NULL);
    nb_ref_basis_product(QP, all, ext);
    nb_status s = NB_OK;
    for (size_t j = 0; j < digits; j++) {
        const size_t first = j * alpha;
        const size_t count = first + alpha <= q_count ? alpha : q_count - first;
        for (size_t c = 0; c < n; c++)
            nb_ref_conv_value(y[c], in + first * n + c, n, qs + first, count);
        for (size_t k = 0; k < 2; k++) {
            const uint64_t *kk = key + (2 * j + k) * ext * n;
            for (size_t c = 0; c < n; c++)
                nb_ref_crt_compose(kp[c], kk + c, n, all, ext);
            negacyclic_addmul(acc[k], y, kp, n, tmp);
        }
    }
    for (size_t k = 0; k < 2 && s == NB_OK; k++) {
        for (size_t c = 0; c < n; c++) {
            mpz_mod(acc[k][c], acc[k][c], QP);
            nb_ref_crt_decompose(accr + c, n, acc[k][c], all, ext);
        }
        s = nb_ref_moddown(k ? out1 : out0, accr, n, qs, q_count, ps, p_count);
    }
    mpz_clears(QP, tmp, NULL);
    free(all);
    free(accr);
    mpz_vec_free(y, n);
    mpz_vec_free(kp, n);
    mpz_vec_free(acc[0], n);
    mpz_vec_free(acc[1], n);
    return s;
}

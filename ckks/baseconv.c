/* Stand-alone fast base conversion plans (nb_baseconv_plan): one table
 * C -> B, uploaded once for the GPU backend. The pipelines build their own
 * tables in params.c and call the same kernels. */
#include <stdlib.h>

#include "ckks/consts.h"
#include "ntt/arith.h"
#include "core/device.h"
#include "ntt/primes.h"

struct nb_baseconv_plan {
    nb_backend backend;
    size_t n;
    nb_ckks_consts k; /* blob holding the one table */
    nb_conv_desc d;
    nb_buffer *dev;   /* GPU copy of the blob */
    nb_conv_view view;
};

void nb_baseconv_plan_destroy(nb_baseconv_plan *plan)
{
    if (!plan)
        return;
    nb_buffer_destroy(plan->dev);
    free(plan->k.blob);
    free(plan);
}

static nb_status check_primes(const uint64_t *v, size_t count, const char *what)
{
    for (size_t i = 0; i < count; i++) {
        if (v[i] < 3 || (v[i] >> NB_MAX_PRIME_BITS) || !nb_is_prime(v[i]))
            return nb_set_error(NB_ERR_INVALID_ARG,
                                "base conversion: %s[%zu]=%llu is not a prime in [3, 2^%u)",
                                what, i, (unsigned long long)v[i], NB_MAX_PRIME_BITS);
        for (size_t j = 0; j < i; j++)
            if (v[j] == v[i])
                return nb_set_error(NB_ERR_INVALID_ARG,
                                    "base conversion: %s has the prime %llu twice", what,
                                    (unsigned long long)v[i]);
    }
    return NB_OK;
}

nb_status nb_baseconv_plan_create(nb_baseconv_plan **out, nb_backend backend, unsigned log_n,
                                  const uint64_t *from, size_t n_from, const uint64_t *to,
                                  size_t n_to, void *stream)
{
    if (out)
        *out = NULL;
    if (!out || !from || !to)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_baseconv_plan_create: NULL argument");
    if (backend != NB_BACKEND_CPU && backend != NB_BACKEND_GPU)
        return nb_set_error(NB_ERR_INVALID_ARG, "base conversion: unknown backend %d",
                            (int)backend);
    if (log_n < NB_MIN_LOG_N || log_n > NB_MAX_LOG_N)
        return nb_set_error(NB_ERR_INVALID_ARG, "base conversion: log_n=%u outside [%u, %u]",
                            log_n, NB_MIN_LOG_N, NB_MAX_LOG_N);
    if (n_from == 0 || n_from > 256 || n_to == 0)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "base conversion: need 1..256 source primes and >= 1 target "
                            "(got %zu -> %zu)",
                            n_from, n_to);
    NB_TRY(check_primes(from, n_from, "from"));
    NB_TRY(check_primes(to, n_to, "to"));
    nb_baseconv_plan *p = calloc(1, sizeof *p);
    if (!p)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "base conversion: out of host memory");
    p->backend = backend;
    p->n = (size_t)1 << log_n;
    nb_status s = nb_conv_desc_build(&p->k, &p->d, from, n_from, to, n_to, NULL);
    const uint64_t *base = p->k.blob;
    if (s == NB_OK && backend == NB_BACKEND_GPU) {
        s = nb_buffer_create(&p->dev, NB_BACKEND_GPU, p->k.words * sizeof(uint64_t));
        if (s == NB_OK)
            s = nb_buffer_upload(p->dev, 0, p->k.blob, p->k.words * sizeof(uint64_t), stream);
        base = nb_buffer_ptr(p->dev);
#ifdef NB_HAVE_CUDA
        if (s == NB_OK)
            s = nb_gpu_conv_reserve(n_from);
#endif
    }
    if (s != NB_OK) {
        nb_baseconv_plan_destroy(p);
        return s;
    }
    p->view = nb_conv_view_at(&p->d, base, p->d.n_to);
    *out = p;
    return NB_OK;
}

nb_status nb_baseconv_apply(const nb_baseconv_plan *plan, uint64_t *out, const uint64_t *in,
                            void *stream)
{
    if (!plan || !out || !in)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_baseconv_apply: NULL argument");
    if (plan->backend == NB_BACKEND_CPU)
        return nb_cpu_conv(&plan->view, out, in, plan->n, 64);
#ifdef NB_HAVE_CUDA
    const nb_polys io = {{out, NULL}, {in, NULL}, {NULL, NULL}, 1, 64};
    return nb_gpu_conv(&plan->view, &io, plan->n, stream);
#else
    (void)stream;
    return nb_gpu_require();
#endif
}

nb_bring_args nb_bring_args_at(const nb_ckks_params *p, const uint64_t *base, size_t level,
                               int round, size_t first, size_t count, unsigned word_bits)
{
    const nb_ckks_consts *k = p->consts;
    const size_t Q = p->q_count, g = p->rescale_primes;
    const uint64_t *B = k->blob; /* host copy of the scalars */
    nb_bring_args a = {
        .drop = (unsigned)g,
        .d0 = p->q[level + 1 - g],
        .d1 = p->q[level],
        .q = base + k->prime_q + first,
        .mu_lo = base + k->prime_mu_lo + first,
        .mu_hi = base + k->prime_mu_hi + first,
        .h = round ? base + k->ql_half + level * Q + first : NULL,
        .r32 = base + k->prime_r32 + first,
        .r32_shoup = base + k->prime_r32_shoup + first,
        .one_shoup = base + k->prime_one_shoup + first,
        .count = count,
        .n = p->n,
        .word_bits = word_bits,
    };
    const unsigned __int128 D = g == 2 ? (unsigned __int128)a.d0 * a.d1 : a.d0;
    a.D = (uint64_t)D;
    a.H = a.D >> 1;
    if (g == 2) {
        a.d1_mu_lo = B[k->prime_mu_lo + level];
        a.d1_mu_hi = B[k->prime_mu_hi + level];
        a.inv = B[k->garner + level];
        a.inv_shoup = B[k->garner_shoup + level];
    }
    return a;
}

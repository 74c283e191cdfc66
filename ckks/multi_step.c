/* What every step of the several-GPU pipelines shares (ckks/multi.h): the
 * join of the devices' compute streams into one, the end-of-step mark, a
 * part's iNTT into a buffer and a conversion onto a part's own targets. */
#include <stdint.h>

#include "ckks/multi.h"

#ifdef NB_MULTI_GPU
#include "core/cuda_check.h"

/* `stream` waits for every device's stream. */
nb_status nb_multi_join_into(nb_ckks_multi *m, void *stream)
{
    cudaStream_t s = stream ? (cudaStream_t)stream : m->d[0].stream;
    for (size_t i = 0; i < m->G; i++) {
        if (m->d[i].stream == s)
            continue;
        NB_TRY(nb_multi_use(&m->d[i]));
        NB_CUDA_TRY(cudaEventRecord(m->d[i].ev_done, m->d[i].stream));
        NB_TRY(nb_multi_use(&m->d[0]));
        NB_CUDA_TRY(cudaStreamWaitEvent(s, m->d[i].ev_done, 0));
    }
    return nb_multi_use(&m->d[0]);
}

/* The end of a step on every device, marked on `stream` when a hook asks. */
nb_status nb_multi_step(nb_ckks_multi *m, const nb_ckks_hook *h, void *stream, const char *name,
                        int is_ntt, size_t limbs, int inverse)
{
    if (!h || !h->fn)
        return NB_OK;
    NB_TRY(nb_multi_join_into(m, stream));
    return h->fn(h->user, name, is_ntt, limbs, inverse);
}

/* dst = iNTT of owned limbs [first, first + count) (plan indices) of src. */
nb_status nb_multi_inverse_into(nb_ckks_multi *m, part *d, void *dst, const void *src,
                                size_t first, size_t count)
{
    if (!count)
        return NB_OK;
    if (m->oop)
        return nb_ntt_inverse_to(d->ntt, dst, src, first, count, d->stream);
    NB_TRY(nb_gpu_copy(dst, src, count * m->limb_bytes, d->stream));
    return nb_ntt_inverse(d->ntt, dst, first, count, d->stream);
}

nb_status nb_multi_conv_on(const nb_ckks_multi *m, const part *d, cudaStream_t s,
                           const nb_conv_desc *desc, size_t t0, size_t count, const nb_polys *io)
{
    if (!count)
        return NB_OK;
    const nb_conv_view v = nb_conv_view_at(desc, d->base, desc->n_to);
    const nb_conv_view sub =
        nb_conv_view_targets(v, (uint32_t)t0, (uint32_t)count, d->base + m->k->identity);
    return nb_gpu_conv(&sub, io, m->p->n, s);
}
#endif

/* The exchanges of the several-GPU pipelines (ckks/multi.h): NCCL broadcasts,
 * sends and receives between every pair of devices, both by stage (mixed), or
 * all-gathers that NCCL runs on the copy engines (NB_NCCL_EXCHANGE,
 * docs/ckks.md "Several GPUs"),
 * and the bytes they moved
 * (nb_ckks_multi_comm_bytes, ckks/ckks.h). */
#include <stdint.h>

#include "ckks/multi.h"

#ifdef NB_MULTI_GPU
#include "core/cuda_check.h"

/* One NCCL group of broadcasts: limbs [off_r, off_r + cnt_r) of buf from each
 * device r with cnt_r > 0 to every device, in place. */
static nb_status broadcasts(nb_ckks_multi *m, void *const *buf, const size_t *off,
                            const size_t *cnt, ncclDataType_t type)
{
    NB_TRY(nb_nccl_check(m->nccl, m->nccl->group_start(), "ncclGroupStart"));
    nb_status s = NB_OK;
    for (size_t r = 0; r < m->G && s == NB_OK; r++) {
        if (!cnt[r])
            continue;
        m->sent[r] += cnt[r] * m->limb_bytes;
        for (size_t i = 0; i < m->G && s == NB_OK; i++) {
            void *p = nb_multi_at(m, buf[i], off[r]);
            s = nb_nccl_check(m->nccl,
                              m->nccl->broadcast(p, p, cnt[r] * m->p->n, type, (int)r,
                                                 m->d[i].comm, m->d[i].comm_stream),
                              "ncclBroadcast");
        }
    }
    const nb_status e = nb_nccl_check(m->nccl, m->nccl->group_end(), "ncclGroupEnd");
    return s != NB_OK ? s : e;
}

/* The same exchange as one NCCL group of point-to-point transfers: device i
 * sends its cnt_i limbs at off_i to every other device and receives each
 * other device r's cnt_r limbs into off_r of its own buf (disjoint ranges,
 * so in place), every pair's two directions at once. */
static nb_status send_recv(nb_ckks_multi *m, void *const *buf, const size_t *off,
                           const size_t *cnt, ncclDataType_t type)
{
    NB_TRY(nb_nccl_check(m->nccl, m->nccl->group_start(), "ncclGroupStart"));
    nb_status s = NB_OK;
    for (size_t i = 0; i < m->G && s == NB_OK; i++) {
        const part *d = &m->d[i];
        m->sent[i] += cnt[i] * m->limb_bytes;
        for (size_t r = 0; r < m->G && s == NB_OK; r++) {
            if (r == i)
                continue;
            if (cnt[i])
                s = nb_nccl_check(m->nccl,
                                  m->nccl->send(nb_multi_at(m, buf[i], off[i]), cnt[i] * m->p->n,
                                                type, (int)r, d->comm, d->comm_stream),
                                  "ncclSend");
            if (cnt[r] && s == NB_OK)
                s = nb_nccl_check(m->nccl,
                                  m->nccl->recv(nb_multi_at(m, buf[i], off[r]), cnt[r] * m->p->n,
                                                type, (int)r, d->comm, d->comm_stream),
                                  "ncclRecv");
        }
    }
    const nb_status e = nb_nccl_check(m->nccl, m->nccl->group_end(), "ncclGroupEnd");
    return s != NB_OK ? s : e;
}

/* The same exchange as one all-gather on the copy engines: each device's
 * cnt_i limbs copied into its slot of its stage (slot i at i c, c = max
 * cnt_r > 0; the rest of a slot is sent but never read), the slots gathered
 * in place into every device's stage (send and receive both in the
 * registered window, as NCCL's copy-engine path asks), then the cnt_r limbs
 * of every other device's slot copied to off_r of buf. Everything on the
 * communication streams. */
static nb_status all_gather(nb_ckks_multi *m, void *const *buf, const size_t *off,
                            const size_t *cnt, size_t c, ncclDataType_t type)
{
    if (c > m->slot)
        return nb_set_error(NB_ERR_INTERNAL, "several GPUs: an exchange of %zu limbs a device "
                                             "(stage slots of %zu)", c, m->slot);
    const void *send[NB_MULTI_MAX];
    for (size_t i = 0; i < m->G; i++) {
        part *d = &m->d[i];
        m->sent[i] += c * m->limb_bytes; /* the whole slot */
        NB_TRY(nb_multi_use(d));
        void *own = nb_multi_at(m, d->stage, i * c);
        send[i] = own;
        if (cnt[i])
            NB_CUDA_TRY(cudaMemcpyAsync(own, nb_multi_at(m, buf[i], off[i]),
                                        cnt[i] * m->limb_bytes, cudaMemcpyDeviceToDevice,
                                        d->comm_stream));
    }
    NB_TRY(nb_nccl_check(m->nccl, m->nccl->group_start(), "ncclGroupStart"));
    nb_status s = NB_OK;
    for (size_t i = 0; i < m->G && s == NB_OK; i++)
        s = nb_nccl_check(m->nccl,
                          m->nccl->all_gather(send[i], m->d[i].stage, c * m->p->n, type,
                                              m->d[i].comm, m->d[i].comm_stream),
                          "ncclAllGather");
    const nb_status e = nb_nccl_check(m->nccl, m->nccl->group_end(), "ncclGroupEnd");
    NB_TRY(s != NB_OK ? s : e);
    for (size_t i = 0; i < m->G; i++) {
        part *d = &m->d[i];
        NB_TRY(nb_multi_use(d));
        for (size_t r = 0; r < m->G; r++)
            if (r != i && cnt[r])
                NB_CUDA_TRY(cudaMemcpyAsync(nb_multi_at(m, buf[i], off[r]),
                                            nb_multi_at(m, d->stage, r * c), cnt[r] * m->limb_bytes,
                                            cudaMemcpyDeviceToDevice, d->comm_stream));
    }
    return NB_OK;
}

/* ckks/multi.h. The compute streams go on with whatever the caller queues
 * next until they wait for ev_got[k]. With m->timed, events on the first
 * device's communication stream bracket the exchange, its copies included
 * (nb_ckks_multi_comm_seconds). */
nb_status nb_multi_exchange_start(nb_ckks_multi *m, void *const *buf, const size_t *off,
                                  const size_t *cnt, size_t k, int after_compute, int moddown)
{
    if (m->G == 1)
        return NB_OK;
    if (k >= NB_MULTI_TIMED)
        return nb_set_error(NB_ERR_INTERNAL, "several GPUs: exchange %zu of one call", k);
    for (size_t i = 0; i < m->G && after_compute; i++) {
        part *d = &m->d[i];
        NB_TRY(nb_multi_use(d));
        NB_CUDA_TRY(cudaEventRecord(d->ev_ready, d->stream));
        NB_CUDA_TRY(cudaStreamWaitEvent(d->comm_stream, d->ev_ready, 0));
    }
    const int timed = m->timed && m->n_timed < NB_MULTI_TIMED;
    if (timed) {
        NB_TRY(nb_multi_use(&m->d[0]));
        NB_CUDA_TRY(cudaEventRecord(m->ev_t[2 * m->n_timed], m->d[0].comm_stream));
    }
    const ncclDataType_t type = m->word_bits == 32 ? ncclUint32 : ncclUint64;
    size_t most = 0;
    for (size_t r = 0; r < m->G; r++)
        most = cnt[r] > most ? cnt[r] : most;
    const int large = most * m->limb_bytes >= NB_CKKS_CE_MIN_BYTES;
    const nb_nccl_exchange kind = m->exchange != NB_NCCL_MIXED ? m->exchange
                                  : moddown                    ? NB_NCCL_SEND_RECV
                                                               : NB_NCCL_BROADCAST;
    if (large && kind == NB_NCCL_COPY_ENGINE)
        NB_TRY(all_gather(m, buf, off, cnt, most, type));
    else if (large && kind == NB_NCCL_SEND_RECV)
        NB_TRY(send_recv(m, buf, off, cnt, type));
    else
        NB_TRY(broadcasts(m, buf, off, cnt, type));
    if (timed) {
        NB_TRY(nb_multi_use(&m->d[0]));
        NB_CUDA_TRY(cudaEventRecord(m->ev_t[2 * m->n_timed + 1], m->d[0].comm_stream));
        m->n_timed++;
    }
    for (size_t i = 0; i < m->G; i++) {
        part *d = &m->d[i];
        NB_TRY(nb_multi_use(d));
        NB_CUDA_TRY(cudaEventRecord(d->ev_got[k], d->comm_stream));
    }
    return NB_OK;
}

void nb_ckks_multi_comm_bytes(const nb_ckks_multi *m, double *total, double *per_link)
{
    double t = 0, most = 0;
    for (size_t r = 0; m && m->G > 1 && r < m->G; r++) {
        t += (double)m->sent[r] * (double)(m->G - 1);
        most = (double)m->sent[r] > most ? (double)m->sent[r] : most;
    }
    if (total)
        *total = t;
    if (per_link)
        *per_link = most;
}
#else
void nb_ckks_multi_comm_bytes(const nb_ckks_multi *m, double *total, double *per_link)
{
    (void)m;
    if (total)
        *total = 0;
    if (per_link)
        *per_link = 0;
}
#endif

/* Creating and destroying the several-GPU pipelines (nb_ckks_multi): the
 * partition of the limbs, each device's plan, constants, scratch and stream,
 * the NCCL communicators, and the copies between a whole host polynomial and
 * the devices' parts. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ckks/multi.h"

nb_status nb_multi_unsupported(void)
{
#ifdef NB_HAVE_CUDA
    return nb_set_error(NB_ERR_UNSUPPORTED, "several GPUs need NCCL's header at build time, "
                                            "and this build had none (docs/ckks.md, \"Several "
                                            "GPUs\")");
#else
    return nb_set_error(NB_ERR_NO_DEVICE, "several GPUs: built without CUDA");
#endif
}

const char *nb_ckks_exchange_default(size_t gpus)
{
    return gpus < 2 ? NULL : nb_multi_exchange_name(nb_multi_exchange_rule(gpus));
}

#ifdef NB_MULTI_GPU
#include "core/cuda_check.h"

int nb_multi_caller_device(void)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError();
        dev = 0;
    }
    return dev;
}

nb_status nb_multi_restore(int device, nb_status s)
{
    const cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess && s == NB_OK)
        return nb_set_error(NB_ERR_CUDA, "several GPUs: restoring device %d: %s", device,
                            cudaGetErrorString(e));
    return s;
}

nb_status nb_multi_use(const part *d)
{
    NB_CUDA_TRY(cudaSetDevice(d->device));
    return NB_OK;
}

static void part_free(part *d)
{
    free(d->ext_conv);
    if (nb_multi_use(d) != NB_OK)
        return;
    nb_ntt_destroy(d->ntt);
    nb_ntt_destroy(d->ntt_side);
    nb_ntt_destroy(d->ntt_qq);
    nb_ntt_destroy(d->ntt_ext);
    nb_buffer_destroy(d->consts);
    nb_buffer_destroy(d->scratch);
    cudaEvent_t ev[4] = {d->ev_fork, d->ev_done, d->ev_ready, d->ev_side};
    for (int i = 0; i < 4; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    for (int i = 0; i < NB_MULTI_TIMED; i++)
        if (d->ev_got[i])
            cudaEventDestroy(d->ev_got[i]);
    if (d->stream)
        cudaStreamDestroy(d->stream);
    if (d->side)
        cudaStreamDestroy(d->side);
    if (d->comm_stream)
        cudaStreamDestroy(d->comm_stream);
}

#ifdef NB_NCCL_HAS_CE
/* The copy-engine exchanges' windows (deregistered together, as they were
 * registered) and their memory. */
static void stage_free(nb_ckks_multi *m)
{
    const nb_nccl_api *api = m->nccl;
    if (api->group_start() == ncclSuccess) {
        for (size_t i = 0; i < m->G; i++)
            if (m->d[i].win && nb_multi_use(&m->d[i]) == NB_OK)
                api->window_deregister(m->d[i].comm, (ncclWindow_t)m->d[i].win);
        api->group_end();
    }
    for (size_t i = 0; i < m->G; i++) {
        if (m->d[i].stage && nb_multi_use(&m->d[i]) == NB_OK)
            api->mem_free(m->d[i].stage);
        m->d[i].stage = NULL;
        m->d[i].win = NULL;
    }
}
#endif

void nb_ckks_multi_destroy(nb_ckks_multi *m)
{
    if (!m)
        return;
    const int caller = nb_multi_caller_device();
    if (m->d && nb_multi_use(&m->d[0]) == NB_OK)
        for (size_t k = 0; k < 2 * NB_MULTI_TIMED; k++)
            if (m->ev_t[k])
                cudaEventDestroy(m->ev_t[k]);
#ifdef NB_NCCL_HAS_CE
    if (m->d && m->nccl && m->exchange == NB_NCCL_COPY_ENGINE)
        stage_free(m);
#endif
    for (size_t i = 0; m->d && i < m->G; i++) {
        if (m->d[i].comm && m->nccl)
            m->nccl->comm_destroy(m->d[i].comm);
        part_free(&m->d[i]);
    }
    free(m->d);
    free(m);
    (void)nb_multi_restore(caller, NB_OK);
}

/* Part d's plan, constants and scratch on its device. */
static nb_status part_create(nb_ckks_multi *m, part *d, const nb_ntt_variant *variant)
{
    const nb_ckks_params *p = m->p;
    const size_t Q = p->q_count, A = p->alpha, own = d->nq + d->np;
    NB_TRY(nb_multi_use(d));
    NB_CUDA_TRY(cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking));
    NB_CUDA_TRY(cudaStreamCreateWithFlags(&d->side, cudaStreamNonBlocking));
    NB_CUDA_TRY(cudaStreamCreateWithFlags(&d->comm_stream, cudaStreamNonBlocking));
    cudaEvent_t *ev[4] = {&d->ev_fork, &d->ev_done, &d->ev_ready, &d->ev_side};
    for (int i = 0; i < 4; i++)
        NB_CUDA_TRY(cudaEventCreateWithFlags(ev[i], cudaEventDisableTiming));
    for (int i = 0; i < NB_MULTI_TIMED; i++)
        NB_CUDA_TRY(cudaEventCreateWithFlags(&d->ev_got[i], cudaEventDisableTiming));
    /* host: the owned primes and their Barrett constants in plan order */
    const size_t extra = 3 * own;
    uint64_t *h = malloc((own + extra) * sizeof *h);
    if (!h)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "nb_ckks_multi_create: out of host memory");
    for (size_t i = 0; i < own; i++) {
        const size_t full = i < d->nq ? d->qa + i : Q + d->pa + (i - d->nq);
        h[i] = p->primes[full];
        h[own + i] = m->k->blob[m->k->prime_q + full];
        h[2 * own + i] = m->k->blob[m->k->prime_mu_lo + full];
        h[3 * own + i] = m->k->blob[m->k->prime_mu_hi + full];
    }
    nb_status s = nb_ntt_create(&d->ntt, variant, p->log_n, h, NULL, own, d->stream);
    if (s == NB_OK && m->G > 1)
        s = nb_ntt_create(&d->ntt_side, variant, p->log_n, h, NULL, own, d->stream);
    /* the Q primes twice, then the packed layout's primes (ix: its plan
     * indices; the layout holds at most every owned limb for every digit) */
    const size_t most = nb_ckks_digits(p, Q - 1) * own;
    uint64_t *qq = malloc((2 * d->nq + most) * sizeof *qq + most * sizeof(size_t));
    if (!qq)
        s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "nb_ckks_multi_create: out of host memory");
    uint64_t *xp = qq ? qq + 2 * d->nq : NULL;
    size_t *ix = qq ? (size_t *)(xp + most) : NULL;
    const size_t ne = qq ? nb_multi_ext_layout(p, Q - 1, d->qa, d->nq, d->np, d->ext_off, ix) : 0;
    for (size_t i = 0; qq && i < 2 * d->nq; i++)
        qq[i] = p->primes[d->qa + i % d->nq];
    for (size_t k = 0; k < ne; k++)
        xp[k] = h[ix[k]];
    if (s == NB_OK)
        s = nb_ntt_create(&d->ntt_qq, variant, p->log_n, qq, NULL, 2 * d->nq, d->stream);
    if (s == NB_OK && ne <= NB_CKKS_EXT_PLAN_MAX_FACTOR * own)
        s = nb_ntt_create(&d->ntt_ext, variant, p->log_n, xp, NULL, ne, d->stream);
    uint64_t *blob = NULL; /* the shared constants, with the packed layout's conversions */
    size_t words = m->k->words;
    if (s == NB_OK && d->ntt_ext)
        s = nb_multi_ext_convs(p, m->k, d->ext_off, xp, &blob, &words, &d->ext_conv);
    free(qq);
    if (s == NB_OK)
        s = nb_buffer_create(&d->consts, NB_BACKEND_GPU, (words + extra) * sizeof(uint64_t));
    if (s == NB_OK)
        s = nb_buffer_upload(d->consts, 0, blob ? blob : m->k->blob, words * sizeof(uint64_t),
                             d->stream);
    if (s == NB_OK)
        s = nb_buffer_upload(d->consts, words * sizeof(uint64_t), h + own,
                             extra * sizeof(uint64_t), d->stream);
    if (s == NB_OK)
        s = nb_stream_sync(d->stream); /* h and blob are freed below */
    free(h);
    free(blob);
    NB_TRY(s);
    d->base = nb_buffer_ptr(d->consts);
    d->local_q = d->base + words;
    d->local_mu_lo = d->local_q + own;
    d->local_mu_hi = d->local_mu_lo + own;
    NB_TRY(nb_gpu_conv_reserve(A));
    const size_t limbs = Q + 2 * A + 2 + p->dnum * own + 2 * own + 2 * d->nq;
    NB_TRY(nb_buffer_create(&d->scratch, NB_BACKEND_GPU, limbs * m->limb_bytes));
    char *w = nb_buffer_ptr(d->scratch);
    d->gq = w;
    d->gp = w += Q * m->limb_bytes;
    d->gr = w += 2 * A * m->limb_bytes;
    d->ext = w += 2 * m->limb_bytes;
    d->acc[0] = w += p->dnum * own * m->limb_bytes;
    d->acc[1] = w += own * m->limb_bytes;
    d->t[0] = w += own * m->limb_bytes;
    d->t[1] = w + d->nq * m->limb_bytes;
    return NB_OK;
}

#ifdef NB_NCCL_HAS_CE
/* A one-word all-gather per device, each from its own host thread: NCCL
 * sets its copy-engine collectives up at the first one, a step every rank
 * must take at once, which one thread queuing the ranks in turn would wait
 * for forever. */
typedef struct ce_first {
    nb_ckks_multi *m;
    size_t i;
    nb_status s;
} ce_first;

static void *ce_first_run(void *arg)
{
    ce_first *a = arg;
    part *d = &a->m->d[a->i];
    const nb_nccl_api *api = a->m->nccl;
    a->s = nb_multi_use(d);
    if (a->s == NB_OK)
        a->s = nb_nccl_check(api,
                             api->all_gather((char *)d->stage + a->i * sizeof(uint32_t), d->stage,
                                             1, ncclUint32, d->comm, d->comm_stream),
                             "ncclAllGather (the first)");
    if (a->s == NB_OK && cudaStreamSynchronize(d->comm_stream) != cudaSuccess)
        a->s = nb_set_error(NB_ERR_CUDA, "several GPUs: the first all-gather on device %d: %s",
                            d->device, cudaGetErrorString(cudaGetLastError()));
    return NULL;
}

static nb_status ce_first_all(nb_ckks_multi *m)
{
    ce_first a[NB_MULTI_MAX];
    pthread_t t[NB_MULTI_MAX];
    size_t started = 0;
    nb_status s = NB_OK;
    for (size_t i = 0; i < m->G; i++) {
        a[i] = (ce_first){m, i, NB_OK};
        if (pthread_create(&t[i], NULL, ce_first_run, &a[i])) {
            s = nb_set_error(NB_ERR_INTERNAL, "several GPUs: no thread for device %zu", i);
            break;
        }
        started++;
    }
    for (size_t i = 0; i < started; i++) {
        pthread_join(t[i], NULL);
        if (s == NB_OK && a[i].s != NB_OK)
            s = a[i].s;
    }
    return s;
}

/* Communicators whose all-gathers run on the copy engines (zero-CTA policy),
 * and on each device a stage of G slots, one per device, each as large as
 * the largest part (Q or P limbs), registered as a symmetric window. */
static nb_status copy_engine_init(nb_ckks_multi *m)
{
    const nb_nccl_api *api = m->nccl;
    const size_t G = m->G;
    ncclUniqueId id;
    NB_TRY(nb_nccl_check(api, api->get_unique_id(&id), "ncclGetUniqueId"));
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    cfg.CTAPolicy = NCCL_CTA_POLICY_ZERO;
    NB_TRY(nb_nccl_check(api, api->group_start(), "ncclGroupStart"));
    nb_status s = NB_OK;
    for (size_t i = 0; i < G && s == NB_OK; i++) {
        s = nb_multi_use(&m->d[i]);
        if (s == NB_OK)
            s = nb_nccl_check(api,
                              api->comm_init_rank_config(&m->d[i].comm, (int)G, id, (int)i, &cfg),
                              "ncclCommInitRankConfig");
    }
    const nb_status e = nb_nccl_check(api, api->group_end(), "ncclGroupEnd");
    NB_TRY(s != NB_OK ? s : e);
    m->slot = 0;
    for (size_t i = 0; i < G; i++) {
        m->slot = m->d[i].nq > m->slot ? m->d[i].nq : m->slot;
        m->slot = m->d[i].np > m->slot ? m->d[i].np : m->slot;
    }
    const size_t bytes = G * m->slot * m->limb_bytes;
    for (size_t i = 0; i < G; i++) {
        NB_TRY(nb_multi_use(&m->d[i]));
        NB_TRY(nb_nccl_check(api, api->mem_alloc(&m->d[i].stage, bytes), "ncclMemAlloc"));
        /* a gather sends whole slots, of which an exchange writes its limbs only */
        NB_CUDA_TRY(cudaMemset(m->d[i].stage, 0, bytes));
        NB_CUDA_TRY(cudaDeviceSynchronize());
    }
    NB_TRY(nb_nccl_check(api, api->group_start(), "ncclGroupStart"));
    for (size_t i = 0; i < G && s == NB_OK; i++) {
        ncclWindow_t w = NULL;
        s = nb_multi_use(&m->d[i]);
        if (s == NB_OK)
            s = nb_nccl_check(api,
                              api->window_register(m->d[i].comm, m->d[i].stage, bytes, &w,
                                                   NCCL_WIN_COLL_SYMMETRIC),
                              "ncclCommWindowRegister");
        m->d[i].win = w;
    }
    const nb_status e2 = nb_nccl_check(api, api->group_end(), "ncclGroupEnd");
    NB_TRY(s != NB_OK ? s : e2);
    NB_TRY(ce_first_all(m));
    return nb_multi_use(&m->d[0]);
}
#endif

static nb_status create(nb_ckks_multi *m, const nb_ntt_variant *variant, const int *devices)
{
    const size_t Q = m->p->q_count, A = m->p->alpha, G = m->G;
    for (size_t i = 0; i < G; i++) {
        part *d = &m->d[i];
        d->device = devices[i];
        d->qa = i * Q / G;
        d->nq = (i + 1) * Q / G - d->qa;
        d->pa = i * A / G;
        d->np = (i + 1) * A / G - d->pa;
        NB_TRY(part_create(m, d, variant));
    }
    m->oop = nb_ntt_out_of_place(m->d[0].ntt);
    NB_TRY(nb_multi_use(&m->d[0]));
    for (size_t k = 0; k < 2 * NB_MULTI_TIMED; k++)
        NB_CUDA_TRY(cudaEventCreate(&m->ev_t[k]));
    if (G == 1)
        return NB_OK;
    NB_TRY(nb_nccl_tuner_check_env());
    m->nccl = nb_nccl_load();
    if (!m->nccl)
        return NB_ERR_UNSUPPORTED; /* the loader's message stands */
    NB_TRY(nb_nccl_exchange_kind(m->nccl, nb_multi_exchange_rule(G), &m->exchange));
    const unsigned long tuner_inits = nb_nccl_tuner_inits();
#ifdef NB_NCCL_HAS_CE
    if (m->exchange == NB_NCCL_COPY_ENGINE) {
        NB_TRY(copy_engine_init(m));
        m->tuned = nb_nccl_tuner_inits() > tuner_inits;
        return NB_OK;
    }
#endif
    ncclComm_t comms[NB_MULTI_MAX];
    NB_TRY(nb_nccl_check(m->nccl, m->nccl->comm_init_all(comms, (int)G, devices),
                         "ncclCommInitAll"));
    for (size_t i = 0; i < G; i++)
        m->d[i].comm = comms[i];
    m->tuned = nb_nccl_tuner_inits() > tuner_inits;
    return nb_multi_use(&m->d[0]);
}

nb_status nb_ckks_multi_create(nb_ckks_multi **out, const nb_ckks_params *params,
                               const nb_ntt_variant *variant, const int *devices, size_t gpus)
{
    if (out)
        *out = NULL;
    if (!out || !params || !variant || !devices)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ckks_multi_create: NULL argument");
    if (variant->backend != NB_BACKEND_GPU)
        return nb_set_error(NB_ERR_UNSUPPORTED, "several GPUs: variant '%s' is not a GPU variant",
                            variant->name);
    const size_t most = params->alpha < params->q_count ? params->alpha : params->q_count;
    if (gpus < 1 || gpus > most || gpus > NB_MULTI_MAX)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "several GPUs: %zu devices for set '%s', which splits into at most "
                            "%zu (each device owns at least one limb of Q and one of P)",
                            gpus, params->name, most < NB_MULTI_MAX ? most : NB_MULTI_MAX);
    const int have = nb_gpu_count();
    for (size_t i = 0; i < gpus; i++) {
        if (devices[i] < 0 || devices[i] >= have)
            return nb_set_error(NB_ERR_NO_DEVICE, "several GPUs: device %d requested, %d present",
                                devices[i], have);
        for (size_t j = 0; j < i; j++)
            if (devices[j] == devices[i])
                return nb_set_error(NB_ERR_INVALID_ARG, "several GPUs: device %d given twice",
                                    devices[i]);
    }
    NB_TRY(nb_ckks_check_words(params, variant));
    const int caller = nb_multi_caller_device();
    nb_ckks_multi *m = calloc(1, sizeof *m);
    if (m)
        m->d = calloc(gpus, sizeof *m->d);
    if (!m || !m->d) {
        free(m);
        return nb_multi_restore(
            caller, nb_set_error(NB_ERR_OUT_OF_MEMORY, "nb_ckks_multi_create: out of host memory"));
    }
    m->p = params;
    m->k = params->consts;
    m->word_bits = variant->word_bits;
    m->limb_bytes = params->n * (variant->word_bits / 8);
    m->G = gpus;
    nb_status s = create(m, variant, devices);
    if (s != NB_OK) {
        nb_ckks_multi_destroy(m);
        return nb_multi_restore(caller, s);
    }
    *out = m;
    return nb_multi_restore(caller, NB_OK);
}

size_t nb_ckks_multi_gpus(const nb_ckks_multi *m) { return m ? m->G : 0; }

void nb_ckks_multi_time_exchanges(nb_ckks_multi *m, int on)
{
    if (m)
        m->timed = on != 0;
}

nb_status nb_ckks_multi_comm_seconds(nb_ckks_multi *m, double *seconds)
{
    if (!m || !seconds)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ckks_multi_comm_seconds: NULL argument");
    *seconds = 0;
    const int caller = nb_multi_caller_device();
    nb_status s = nb_multi_use(&m->d[0]);
    cudaError_t e = s == NB_OK ? cudaStreamSynchronize(m->d[0].comm_stream) : cudaSuccess;
    for (size_t k = 0; s == NB_OK && e == cudaSuccess && k < m->n_timed; k++) {
        float ms = 0;
        e = cudaEventElapsedTime(&ms, m->ev_t[2 * k], m->ev_t[2 * k + 1]);
        *seconds += ms * 1e-3;
    }
    if (s == NB_OK && e != cudaSuccess)
        s = nb_set_error(NB_ERR_CUDA, "several GPUs: exchange times: %s", cudaGetErrorString(e));
    return nb_multi_restore(caller, s);
}

int nb_ckks_multi_device(const nb_ckks_multi *m, size_t d)
{
    return m && d < m->G ? m->d[d].device : -1;
}

void *nb_ckks_multi_stream(const nb_ckks_multi *m, size_t d)
{
    return m && d < m->G ? (void *)m->d[d].stream : NULL;
}

int nb_ckks_multi_nccl_version(const nb_ckks_multi *m)
{
    int v = 0;
    if (m && m->nccl && m->nccl->get_version(&v) != ncclSuccess)
        v = 0;
    return v;
}

int nb_ckks_multi_nccl_tuned(const nb_ckks_multi *m) { return m && m->tuned; }

const char *nb_ckks_multi_exchange(const nb_ckks_multi *m)
{
    if (!m || m->G < 2)
        return NULL;
    return nb_multi_exchange_name(m->exchange);
}

void nb_ckks_multi_part(const nb_ckks_multi *m, size_t d, size_t *q_first, size_t *q_count,
                        size_t *p_first, size_t *p_count)
{
    const part *x = m && d < m->G ? &m->d[d] : NULL;
    *q_first = x ? x->qa : 0;
    *q_count = x ? x->nq : 0;
    *p_first = x ? x->pa : 0;
    *p_count = x ? x->np : 0;
}

size_t nb_ckks_multi_limbs(const nb_ckks_multi *m, size_t d, size_t level, nb_ckks_layout k)
{
    if (!m || d >= m->G)
        return 0;
    const part *x = &m->d[d];
    switch (k) {
    case NB_CKKS_LAYOUT_Q:
        return nb_multi_nq_at(x, level);
    case NB_CKKS_LAYOUT_B:
        return nb_multi_nq_at(x, level) + x->np;
    case NB_CKKS_LAYOUT_KEY:
        return 2 * m->p->dnum * (x->nq + x->np);
    }
    return 0;
}

/* The host limb of local limb `i` of part x (layout k at level l). */
static size_t host_limb(const nb_ckks_multi *m, const part *x, size_t level, nb_ckks_layout k,
                        size_t i)
{
    const size_t nq = nb_multi_nq_at(x, level), E = m->p->q_count + m->p->alpha;
    if (k == NB_CKKS_LAYOUT_KEY) {
        const size_t own = x->nq + x->np, poly = i / own, j = i % own;
        return poly * E + (j < x->nq ? x->qa + j : m->p->q_count + x->pa + (j - x->nq));
    }
    return i < nq ? x->qa + i : level + 1 + x->pa + (i - nq);
}

/* Limb by limb between host and parts; to_parts selects the direction. */
static nb_status copy_parts(nb_ckks_multi *m, size_t level, nb_ckks_layout k, void *host,
                            void *const *parts, int to_parts)
{
    if (!m || !host || !parts)
        return nb_set_error(NB_ERR_INVALID_ARG, "several GPUs: NULL argument to a copy");
    if (level > m->p->max_level || (unsigned)k > NB_CKKS_LAYOUT_KEY)
        return nb_set_error(NB_ERR_INVALID_ARG, "several GPUs: level %zu or layout %d out of range",
                            level, (int)k);
    const size_t lb = m->limb_bytes;
    const int caller = nb_multi_caller_device();
    nb_status s = NB_OK;
    for (size_t d = 0; d < m->G && s == NB_OK; d++) {
        const part *x = &m->d[d];
        s = nb_multi_use(x);
        const size_t limbs = nb_ckks_multi_limbs(m, d, level, k);
        cudaError_t e = cudaSuccess;
        for (size_t i = 0; s == NB_OK && e == cudaSuccess && i < limbs; i++) {
            char *h = (char *)host + host_limb(m, x, level, k, i) * lb;
            char *p = (char *)parts[d] + i * lb;
            e = to_parts ? cudaMemcpyAsync(p, h, lb, cudaMemcpyHostToDevice, x->stream)
                         : cudaMemcpyAsync(h, p, lb, cudaMemcpyDeviceToHost, x->stream);
        }
        if (s == NB_OK && e == cudaSuccess)
            e = cudaStreamSynchronize(x->stream);
        if (s == NB_OK && e != cudaSuccess)
            s = nb_set_error(NB_ERR_CUDA, "several GPUs: copying part %zu: %s", d,
                             cudaGetErrorString(e));
    }
    return nb_multi_restore(caller, s);
}

nb_status nb_ckks_multi_scatter(nb_ckks_multi *m, size_t level, nb_ckks_layout k,
                                void *const *parts, const void *host)
{
    return copy_parts(m, level, k, (void *)(uintptr_t)host, parts, 1);
}

nb_status nb_ckks_multi_gather(nb_ckks_multi *m, size_t level, nb_ckks_layout k, void *host,
                               const void *const *parts)
{
    return copy_parts(m, level, k, host, (void *const *)(uintptr_t)parts, 0);
}

#else /* no NCCL (or no CUDA) in the build */

nb_status nb_ckks_multi_create(nb_ckks_multi **out, const nb_ckks_params *params,
                               const nb_ntt_variant *variant, const int *devices, size_t gpus)
{
    (void)params, (void)variant, (void)devices, (void)gpus;
    if (out)
        *out = NULL;
    return nb_multi_unsupported();
}
void nb_ckks_multi_destroy(nb_ckks_multi *m) { (void)m; }
size_t nb_ckks_multi_gpus(const nb_ckks_multi *m) { (void)m; return 0; }
void nb_ckks_multi_time_exchanges(nb_ckks_multi *m, int on) { (void)m, (void)on; }
nb_status nb_ckks_multi_comm_seconds(nb_ckks_multi *m, double *seconds)
{
    (void)m;
    if (seconds)
        *seconds = 0;
    return nb_multi_unsupported();
}
int nb_ckks_multi_device(const nb_ckks_multi *m, size_t d) { (void)m, (void)d; return -1; }
void *nb_ckks_multi_stream(const nb_ckks_multi *m, size_t d) { (void)m, (void)d; return NULL; }
int nb_ckks_multi_nccl_version(const nb_ckks_multi *m) { (void)m; return 0; }
int nb_ckks_multi_nccl_tuned(const nb_ckks_multi *m) { (void)m; return 0; }
const char *nb_ckks_multi_exchange(const nb_ckks_multi *m) { (void)m; return NULL; }
void nb_ckks_multi_part(const nb_ckks_multi *m, size_t d, size_t *q_first, size_t *q_count,
                        size_t *p_first, size_t *p_count)
{
    (void)m, (void)d;
    *q_first = *q_count = *p_first = *p_count = 0;
}
size_t nb_ckks_multi_limbs(const nb_ckks_multi *m, size_t d, size_t level, nb_ckks_layout k)
{
    (void)m, (void)d, (void)level, (void)k;
    return 0;
}
nb_status nb_ckks_multi_scatter(nb_ckks_multi *m, size_t level, nb_ckks_layout k,
                                void *const *parts, const void *host)
{
    (void)m, (void)level, (void)k, (void)parts, (void)host;
    return nb_multi_unsupported();
}
nb_status nb_ckks_multi_gather(nb_ckks_multi *m, size_t level, nb_ckks_layout k, void *host,
                               const void *const *parts)
{
    (void)m, (void)level, (void)k, (void)parts, (void)host;
    return nb_multi_unsupported();
}
#endif

/* The stage workload on several GPUs (bench/tiers/stage_multi.h): the
 * buffer sets as parts on every device, and the stage call through the
 * several-GPU pipelines of ckks/. */
#include <stdlib.h>
#include <string.h>

#include "bench/tiers/stage_multi.h"
#include "bench/timing/env.h"
#include "core/device.h"

#ifdef NB_HAVE_CUDA
#include "core/cuda_check.h"
#endif

#define MAX_GPUS 64
#define MAX_COMM 4096 /* marked launches whose exchange time is kept */

struct nb_stage_multi {
    nb_ckks_multi *m;
    const nb_ckks_params *p;
    nb_stage_config cfg;
    size_t G, level, sets, limb_bytes, digits;
    nb_ckks_layout in_layout, out_layout;
    size_t in_limbs[MAX_GPUS], out_limbs[MAX_GPUS], key_limbs[MAX_GPUS]; /* per set */
    nb_buffer *in[MAX_GPUS], *out[MAX_GPUS], *key[MAX_GPUS];
    nb_buffer *evict[MAX_GPUS]; /* twice the device's L2 (device 0: the core's own) */
#ifdef NB_HAVE_CUDA
    cudaEvent_t evicted[MAX_GPUS]; /* recorded after the device's eviction (not device 0) */
#endif
    double comm_s[MAX_COMM];    /* exchange time of each marked launch */
    size_t n_comm;
    int pending;                /* a marked launch's exchange time not read yet */
};

/* Limbs per set of part d: input, output, key. */
static void limbs_of(const nb_stage_multi *x, size_t d, size_t *in, size_t *out, size_t *key)
{
    const size_t l = x->level, g = x->p->rescale_primes;
    *key = 0;
    switch (x->cfg.stage) {
    case NB_CKKS_STAGE_MODUP:
        *in = nb_ckks_multi_limbs(x->m, d, l, NB_CKKS_LAYOUT_Q);
        *out = x->digits * nb_ckks_multi_limbs(x->m, d, l, NB_CKKS_LAYOUT_B);
        break;
    case NB_CKKS_STAGE_MODDOWN:
        *in = nb_ckks_multi_limbs(x->m, d, l, NB_CKKS_LAYOUT_B);
        *out = nb_ckks_multi_limbs(x->m, d, l, NB_CKKS_LAYOUT_Q);
        break;
    case NB_CKKS_STAGE_KEYSWITCH:
        *in = nb_ckks_multi_limbs(x->m, d, l, NB_CKKS_LAYOUT_Q);
        *out = 2 * *in;
        *key = nb_ckks_multi_limbs(x->m, d, l, NB_CKKS_LAYOUT_KEY);
        break;
    case NB_CKKS_STAGE_RESCALE:
        *in = nb_ckks_multi_limbs(x->m, d, l, NB_CKKS_LAYOUT_Q);
        *out = nb_ckks_multi_limbs(x->m, d, l - g, NB_CKKS_LAYOUT_Q);
        break;
    }
}

nb_status nb_stage_multi_create(nb_stage_multi **out, const nb_ckks_params *p,
                                const nb_ntt_variant *v, const nb_stage_config *cfg,
                                size_t gpus)
{
    *out = NULL;
    if (gpus < 1 || gpus > MAX_GPUS)
        return nb_set_error(NB_ERR_INVALID_ARG, "--gpus %zu: 1 to %d", gpus, MAX_GPUS);
    if (nb_gpu_count() < (int)gpus)
        return nb_set_error(NB_ERR_UNSUPPORTED, "%zu GPUs asked for, %d present", gpus,
                            nb_gpu_count());
    nb_stage_multi *x = calloc(1, sizeof *x);
    if (!x)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "stage workload: out of host memory");
    int devices[MAX_GPUS];
    for (size_t i = 0; i < gpus; i++)
        devices[i] = (int)i;
    nb_status s = nb_ckks_multi_create(&x->m, p, v, devices, gpus);
    if (s != NB_OK) {
        free(x);
        return s;
    }
    x->p = p;
    x->cfg = *cfg;
    x->G = gpus;
    x->level = cfg->level;
    x->digits = nb_ckks_digits(p, cfg->level);
    x->limb_bytes = p->n * (v->word_bits / 8);
    x->in_layout = cfg->stage == NB_CKKS_STAGE_MODDOWN ? NB_CKKS_LAYOUT_B : NB_CKKS_LAYOUT_Q;
    x->out_layout = cfg->stage == NB_CKKS_STAGE_MODUP ? NB_CKKS_LAYOUT_B : NB_CKKS_LAYOUT_Q;
    for (size_t d = 0; d < gpus; d++)
        limbs_of(x, d, &x->in_limbs[d], &x->out_limbs[d], &x->key_limbs[d]);
    *out = x;
    return NB_OK;
}

void nb_stage_multi_teardown(nb_stage_multi *x)
{
    if (!x)
        return;
    for (size_t d = 0; d < x->G; d++) {
        if (nb_gpu_use(nb_ckks_multi_device(x->m, d)) != NB_OK)
            continue;
        nb_buffer_destroy(x->in[d]);
        nb_buffer_destroy(x->out[d]);
        nb_buffer_destroy(x->key[d]);
        nb_buffer_destroy(x->evict[d]);
        x->in[d] = x->out[d] = x->key[d] = x->evict[d] = NULL;
#ifdef NB_HAVE_CUDA
        if (x->evicted[d])
            cudaEventDestroy(x->evicted[d]);
        x->evicted[d] = NULL;
#endif
    }
    x->sets = 0;
    (void)nb_gpu_use(nb_ckks_multi_device(x->m, 0));
}

void nb_stage_multi_destroy(nb_stage_multi *x)
{
    if (!x)
        return;
    nb_stage_multi_teardown(x);
    nb_ckks_multi_destroy(x->m);
    free(x);
}

static nb_status alloc(nb_buffer **b, size_t bytes)
{
    return nb_buffer_create(b, NB_BACKEND_GPU, bytes ? bytes : 1);
}

nb_status nb_stage_multi_setup(nb_stage_multi *x, size_t sets)
{
    nb_stage_multi_teardown(x);
    for (size_t d = 0; d < x->G; d++) {
        void *st = nb_ckks_multi_stream(x->m, d);
        NB_TRY(nb_gpu_use(nb_ckks_multi_device(x->m, d)));
        NB_TRY(alloc(&x->in[d], sets * x->in_limbs[d] * x->limb_bytes));
        NB_TRY(alloc(&x->out[d], sets * x->out_limbs[d] * x->limb_bytes));
        if (x->key_limbs[d])
            NB_TRY(alloc(&x->key[d], sets * x->key_limbs[d] * x->limb_bytes));
        NB_TRY(nb_buffer_fill(x->out[d], 0xA5, st));
        if (d > 0) {
            size_t l2 = 0;
            NB_TRY(nb_cache_bytes(NB_BACKEND_GPU, &l2));
            NB_TRY(alloc(&x->evict[d], 2 * l2));
#ifdef NB_HAVE_CUDA
            NB_CUDA_TRY(cudaEventCreateWithFlags(&x->evicted[d], cudaEventDisableTiming));
#endif
        }
        NB_TRY(nb_stream_sync(st));
    }
    x->sets = sets;
    return nb_gpu_use(nb_ckks_multi_device(x->m, 0));
}

/* Part pointers of set `set` of the buffers b (limbs per set per device). */
static void at_set(const nb_stage_multi *x, nb_buffer *const *b, const size_t *limbs,
                   size_t set, void **out)
{
    for (size_t d = 0; d < x->G; d++)
        out[d] = b[d] ? (char *)nb_buffer_ptr(b[d]) + set * limbs[d] * x->limb_bytes : NULL;
}

static nb_status check_set(const nb_stage_multi *x, size_t set)
{
    if (set >= x->sets)
        return nb_set_error(NB_ERR_INVALID_ARG, "stage workload: set %zu of %zu", set, x->sets);
    return NB_OK;
}

nb_status nb_stage_multi_upload(nb_stage_multi *x, size_t set, const void *in, const void *key)
{
    NB_TRY(check_set(x, set));
    void *parts[MAX_GPUS];
    if (in) {
        at_set(x, x->in, x->in_limbs, set, parts);
        NB_TRY(nb_ckks_multi_scatter(x->m, x->level, x->in_layout, parts, in));
    }
    if (!key || !x->key_limbs[0])
        return NB_OK;
    at_set(x, x->key, x->key_limbs, set, parts);
    return nb_ckks_multi_scatter(x->m, x->level, NB_CKKS_LAYOUT_KEY, parts, key);
}

nb_status nb_stage_multi_download(nb_stage_multi *x, size_t set, void *out)
{
    NB_TRY(check_set(x, set));
    void *parts[MAX_GPUS];
    at_set(x, x->out, x->out_limbs, set, parts);
    const size_t l = x->cfg.stage == NB_CKKS_STAGE_RESCALE ? x->level - x->p->rescale_primes
                                                           : x->level;
    /* modUp: digit after digit; key switch: both outputs */
    const size_t copies = x->cfg.stage == NB_CKKS_STAGE_MODUP       ? x->digits
                          : x->cfg.stage == NB_CKKS_STAGE_KEYSWITCH ? 2
                                                                    : 1;
    const size_t whole = (x->out_layout == NB_CKKS_LAYOUT_B ? l + 1 + x->p->alpha : l + 1);
    for (size_t c = 0; c < copies; c++) {
        void *pc[MAX_GPUS];
        for (size_t d = 0; d < x->G; d++)
            pc[d] = (char *)parts[d] + c * (x->out_limbs[d] / copies) * x->limb_bytes;
        NB_TRY(nb_ckks_multi_gather(x->m, l, x->out_layout,
                                    (char *)out + c * whole * x->limb_bytes,
                                    (const void *const *)pc));
    }
    return NB_OK;
}

static nb_status read_comm(nb_stage_multi *x)
{
    double s = 0;
    x->pending = 0;
    NB_TRY(nb_ckks_multi_comm_seconds(x->m, &s));
    if (x->n_comm < MAX_COMM)
        x->comm_s[x->n_comm++] = s;
    return NB_OK;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

const nb_ckks_multi *nb_stage_multi_ckks(const nb_stage_multi *x)
{
    return x ? x->m : NULL;
}

nb_status nb_stage_multi_comm_median(nb_stage_multi *x, double *median_s)
{
    if (x->pending)
        NB_TRY(read_comm(x));
    *median_s = 0;
    if (!x->n_comm)
        return NB_OK;
    qsort(x->comm_s, x->n_comm, sizeof x->comm_s[0], cmp_double);
    const size_t n = x->n_comm;
    *median_s = n % 2 ? x->comm_s[n / 2] : 0.5 * (x->comm_s[n / 2 - 1] + x->comm_s[n / 2]);
    x->n_comm = 0;
    return NB_OK;
}

nb_status nb_stage_multi_launch(nb_stage_multi *x, size_t set, const nb_ckks_hook *hook,
                                void *stream)
{
    NB_TRY(check_set(x, set));
    if (x->pending) /* the core waited for the previous marked launch */
        NB_TRY(read_comm(x));
    nb_ckks_multi_time_exchanges(x->m, hook != NULL);
    x->pending = hook != NULL;
    void *in[MAX_GPUS], *out[MAX_GPUS], *key[MAX_GPUS], *out1[MAX_GPUS];
    at_set(x, x->in, x->in_limbs, set, in);
    at_set(x, x->out, x->out_limbs, set, out);
    at_set(x, x->key, x->key_limbs, set, key);
    const void *const *ci = (const void *const *)in;
    const size_t l = x->level;
    switch (x->cfg.stage) {
    case NB_CKKS_STAGE_MODUP:
        return nb_ckks_multi_modup_all(x->m, l, out, ci, hook, stream);
    case NB_CKKS_STAGE_MODDOWN:
        return nb_ckks_multi_moddown(x->m, l, out, ci, hook, stream);
    case NB_CKKS_STAGE_KEYSWITCH:
        for (size_t d = 0; d < x->G; d++)
            out1[d] = (char *)out[d] + (x->out_limbs[d] / 2) * x->limb_bytes;
        return nb_ckks_multi_keyswitch(x->m, l, out, out1, ci, (const void *const *)key, hook,
                                       stream);
    case NB_CKKS_STAGE_RESCALE:
        return nb_ckks_multi_rescale(x->m, l, x->cfg.rounding, out, ci, hook, stream);
    }
    return nb_set_error(NB_ERR_INVALID_ARG, "unknown stage %d", (int)x->cfg.stage);
}

/* What `stream` queues next (a sample's blocking kernel and start event)
 * waits on the GPU for every other device's eviction. */
nb_status nb_stage_multi_evict(nb_stage_multi *x, void *stream)
{
#ifdef NB_HAVE_CUDA
    for (size_t d = 1; d < x->G; d++) {
        void *st = nb_ckks_multi_stream(x->m, d);
        NB_TRY(nb_gpu_use(nb_ckks_multi_device(x->m, d)));
        NB_TRY(nb_buffer_fill(x->evict[d], (int)(d & 0xff), st));
        NB_CUDA_TRY(cudaEventRecord(x->evicted[d], (cudaStream_t)st));
    }
    NB_TRY(nb_gpu_use(nb_ckks_multi_device(x->m, 0)));
    for (size_t d = 1; d < x->G; d++)
        NB_CUDA_TRY(cudaStreamWaitEvent((cudaStream_t)stream, x->evicted[d], 0));
    return NB_OK;
#else
    (void)stream; /* unreachable: nb_ckks_multi_create fails without CUDA */
    return nb_gpu_use(nb_ckks_multi_device(x->m, 0));
#endif
}

size_t nb_stage_multi_set_bytes(const nb_stage_multi *x)
{
    size_t limbs = 0;
    for (size_t d = 0; d < x->G; d++)
        limbs += x->in_limbs[d] + x->out_limbs[d] + x->key_limbs[d];
    return limbs * x->limb_bytes;
}

/* The workloads of calibrate: a memory copy (device copy kernel or memcpy,
 * verified by comparison), an empty launch (launch overhead), and on the GPU
 * the two ways a multi-pass kernel design synchronizes its passes: a kernel
 * boundary (two dependent empty kernels) and a grid-wide barrier. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/timing/internal.h"
#include "bench/tiers/calibrate.h"

#ifdef NB_HAVE_CUDA
#include "core/cuda_check.h"
#endif

/* What a simple workload launches; all but the copy move no data. */
typedef enum { SIMPLE_COPY, SIMPLE_EMPTY, SIMPLE_BOUNDARY, SIMPLE_GRID_BARRIER } simple_kind;

typedef struct simple_ctx {
    nb_workload w;
    char label[96];
    simple_kind kind;
    size_t bytes;
    size_t sets;
    nb_buffer *src, *dst;
    unsigned char *h_src, *h_dst;
} simple_ctx;

static void simple_teardown(void *ctx)
{
    simple_ctx *c = ctx;
    nb_buffer_destroy(c->src);
    nb_buffer_destroy(c->dst);
    free(c->h_src);
    free(c->h_dst);
    c->src = c->dst = NULL;
    c->h_src = c->h_dst = NULL;
    c->sets = 0;
}

static nb_status simple_setup(void *ctx, size_t sets, void *stream)
{
    simple_ctx *c = ctx;
    simple_teardown(c);
    c->sets = sets;
    if (c->kind != SIMPLE_COPY)
        return NB_OK;
    if (c->bytes > SIZE_MAX / sets)
        return nb_set_error(NB_ERR_INVALID_ARG, "copy: too many bytes");
    NB_TRY(nb_buffer_create(&c->src, c->w.backend, sets * c->bytes));
    NB_TRY(nb_buffer_create(&c->dst, c->w.backend, sets * c->bytes));
    NB_TRY(nb_buffer_fill(c->src, 0x5A, stream));
    NB_TRY(nb_buffer_fill(c->dst, 0xA5, stream));
    return nb_stream_sync(c->w.backend == NB_BACKEND_GPU ? stream : NULL);
}

static size_t simple_bytes(const void *ctx)
{
    const simple_ctx *c = ctx;
    return c->kind != SIMPLE_COPY ? 1 : 2 * c->bytes;
}

static nb_status simple_launch(void *ctx, size_t set, void *stream)
{
    simple_ctx *c = ctx;
    if (c->w.backend == NB_BACKEND_GPU) {
#ifdef NB_HAVE_CUDA
        if (c->kind == SIMPLE_EMPTY)
            return nb_gpu_empty_launch(stream);
        if (c->kind == SIMPLE_BOUNDARY)
            return nb_gpu_boundary_launch(stream);
        if (c->kind == SIMPLE_GRID_BARRIER)
            return nb_gpu_grid_barrier_launch(stream);
        return nb_gpu_copy_launch((char *)nb_buffer_ptr(c->dst) + set * c->bytes,
                                  (const char *)nb_buffer_ptr(c->src) + set * c->bytes, c->bytes,
                                  stream);
#else
        (void)stream;
        return nb_set_error(NB_ERR_NO_DEVICE, "built without CUDA");
#endif
    }
    if (c->kind == SIMPLE_COPY)
        memcpy((char *)nb_buffer_ptr(c->dst) + set * c->bytes,
               (const char *)nb_buffer_ptr(c->src) + set * c->bytes, c->bytes);
    return NB_OK;
}

static nb_status simple_prepare(void *ctx, size_t set, void *stream)
{
    simple_ctx *c = ctx;
    (void)set;
    if (c->kind != SIMPLE_COPY)
        return NB_OK;
    /* poison the destination so verify sees a fresh copy */
    NB_TRY(nb_buffer_fill(c->dst, 0xA5, stream));
    return NB_OK;
}

static nb_status simple_verify(void *ctx, size_t set, void *stream)
{
    simple_ctx *c = ctx;
    if (c->kind != SIMPLE_COPY)
        return NB_OK;
    if (!c->h_src) {
        c->h_src = malloc(c->bytes);
        c->h_dst = malloc(c->bytes);
        if (!c->h_src || !c->h_dst)
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "copy verify: out of host memory");
    }
    NB_TRY(nb_buffer_download(c->src, set * c->bytes, c->h_src, c->bytes, stream));
    NB_TRY(nb_buffer_download(c->dst, set * c->bytes, c->h_dst, c->bytes, stream));
    if (memcmp(c->h_src, c->h_dst, c->bytes) == 0)
        return NB_OK;
    for (size_t i = 0; i < c->bytes; i++)
        if (c->h_src[i] != c->h_dst[i])
            return nb_set_error(NB_ERR_VERIFY, "%s: byte %zu of set %zu: got 0x%02x, expected "
                                               "0x%02x",
                                c->label, i, set, c->h_dst[i], c->h_src[i]);
    return NB_OK;
}

static void simple_destroy(void *ctx)
{
    simple_teardown(ctx);
    free(ctx);
}

static const nb_workload_ops simple_ops = {
    .setup = simple_setup,
    .bytes_per_launch = simple_bytes,
    .prepare = simple_prepare,
    .launch = simple_launch,
    .verify = simple_verify,
    .teardown = simple_teardown,
    .destroy = simple_destroy,
};

static const char *const kind_label[] = {"", "empty %s launch", "%s kernel boundary",
                                         "%s grid barrier"};

static nb_status simple_create(nb_workload **out, nb_backend backend, size_t bytes,
                               simple_kind kind)
{
    if (!out)
        return nb_set_error(NB_ERR_INVALID_ARG, "NULL argument");
    *out = NULL;
    if (backend != NB_BACKEND_CPU && backend != NB_BACKEND_GPU)
        return nb_set_error(NB_ERR_INVALID_ARG, "calibration workload: unknown backend %d",
                            (int)backend);
    if (backend == NB_BACKEND_GPU)
        NB_TRY(nb_gpu_require());
    if (kind == SIMPLE_COPY && (bytes < 16 || bytes % 16))
        return nb_set_error(NB_ERR_INVALID_ARG, "copy of %zu bytes: need a multiple of 16", bytes);
    simple_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of host memory");
    c->kind = kind;
    c->bytes = bytes;
    if (c->kind != SIMPLE_COPY)
        snprintf(c->label, sizeof c->label, kind_label[kind], nb_backend_name(backend));
    else
        snprintf(c->label, sizeof c->label, "%s copy %.4g MB", nb_backend_name(backend),
                 bytes / 1e6);
    c->w.label = c->label;
    c->w.backend = backend;
    c->w.ops = &simple_ops;
    c->w.ctx = c;
    *out = &c->w;
    return NB_OK;
}

nb_status nb_copy_workload_create(nb_workload **out, nb_backend backend, size_t bytes)
{
    return simple_create(out, backend, bytes, SIMPLE_COPY);
}

nb_status nb_empty_workload_create(nb_workload **out, nb_backend backend)
{
    return simple_create(out, backend, 0, SIMPLE_EMPTY);
}

/* kind on the GPU if the device runs it (supported), else unsupported = 1 and
 * no workload. */
static nb_status sync_create(nb_workload **out, simple_kind kind, int *unsupported)
{
    if (!out || !unsupported)
        return nb_set_error(NB_ERR_INVALID_ARG, "NULL argument");
    *unsupported = 1;
    *out = NULL;
#ifdef NB_HAVE_CUDA
    NB_TRY(nb_gpu_require());
    int boundary = 0, barrier = 0;
    NB_TRY(nb_gpu_sync_features(&boundary, &barrier));
    if (!(kind == SIMPLE_BOUNDARY ? boundary : barrier))
        return NB_OK;
    *unsupported = 0;
    return simple_create(out, NB_BACKEND_GPU, 0, kind);
#else
    (void)kind;
    return nb_set_error(NB_ERR_NO_DEVICE, "built without CUDA");
#endif
}

nb_status nb_boundary_workload_create(nb_workload **out, int *unsupported)
{
    return sync_create(out, SIMPLE_BOUNDARY, unsupported);
}

nb_status nb_grid_barrier_workload_create(nb_workload **out, int *unsupported)
{
    return sync_create(out, SIMPLE_GRID_BARRIER, unsupported);
}

/* Device discovery, streams and buffers over the CUDA runtime C API (or host
 * memory only when built without CUDA). */
#include "core/device.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef NB_HAVE_CUDA
#include <dlfcn.h>

#include "core/cuda_check.h"
#endif

struct nb_buffer {
    nb_backend where;
    size_t bytes;
    void *ptr;
};

int nb_cuda_compiled(void)
{
#ifdef NB_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

int nb_gpu_count(void)
{
#ifdef NB_HAVE_CUDA
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
#else
    return 0;
#endif
}

#ifdef NB_HAVE_CUDA
/* 1 if the NVIDIA driver's user-space library can be loaded. */
static int driver_library_loadable(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!h)
        return 0;
    dlclose(h);
    return 1;
}

/* The reason behind a failed cudaGetDeviceCount: the runtime reports a
 * missing driver as an insufficient one, so the driver library is looked for
 * first. */
static nb_status no_device(cudaError_t e)
{
    if (e == cudaErrorInsufficientDriver && !driver_library_loadable())
        return nb_set_error(NB_ERR_NO_DEVICE, "no NVIDIA driver found (libcuda.so.1 cannot be "
                                              "loaded)");
    if (e == cudaErrorInsufficientDriver) {
        int drv = 0, rt = 0;
        (void)cudaDriverGetVersion(&drv);
        (void)cudaRuntimeGetVersion(&rt);
        return nb_set_error(NB_ERR_NO_DEVICE,
                            "the NVIDIA driver supports CUDA %d.%d, older than the runtime "
                            "%d.%d this build uses",
                            drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
    }
    if (e == cudaErrorNoDevice)
        return nb_set_error(NB_ERR_NO_DEVICE, "no CUDA device present (the NVIDIA driver sees "
                                              "no GPU)");
    return nb_set_error(NB_ERR_NO_DEVICE, "no usable CUDA device: %s", cudaGetErrorString(e));
}
#endif

nb_status nb_gpu_use(int device)
{
    const int n = nb_gpu_count();
    if (device < 0 || device >= n)
        return nb_set_error(NB_ERR_NO_DEVICE, "GPU %d requested, %d present", device, n);
#ifdef NB_HAVE_CUDA
    NB_CUDA_TRY(cudaSetDevice(device));
#endif
    return NB_OK;
}

nb_status nb_gpu_require(void)
{
#ifdef NB_HAVE_CUDA
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return no_device(e);
    }
    if (n == 0)
        return nb_set_error(NB_ERR_NO_DEVICE, "no CUDA device present");
    return NB_OK;
#else
    return nb_set_error(NB_ERR_NO_DEVICE, "nttbench was built without CUDA (-Dcuda=disabled)");
#endif
}

nb_status nb_gpu_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    if (!free_bytes || !total_bytes)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_gpu_mem_info: NULL argument");
    *free_bytes = *total_bytes = 0;
    NB_TRY(nb_gpu_require());
#ifdef NB_HAVE_CUDA
    NB_CUDA_TRY(cudaMemGetInfo(free_bytes, total_bytes));
#endif
    return NB_OK;
}

nb_status nb_stream_create(void **stream)
{
    if (!stream)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_stream_create: NULL argument");
    *stream = NULL;
    NB_TRY(nb_gpu_require());
#ifdef NB_HAVE_CUDA
    cudaStream_t s;
    NB_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    *stream = s;
#endif
    return NB_OK;
}

void nb_stream_destroy(void *stream)
{
#ifdef NB_HAVE_CUDA
    if (stream)
        cudaStreamDestroy((cudaStream_t)stream);
#else
    (void)stream;
#endif
}

nb_status nb_stream_sync(void *stream)
{
#ifdef NB_HAVE_CUDA
    if (stream)
        NB_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)stream));
#else
    (void)stream;
#endif
    return NB_OK;
}

nb_status nb_buffer_create(nb_buffer **out, nb_backend where, size_t bytes)
{
    if (!out)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_buffer_create: NULL argument");
    *out = NULL;
    if (bytes == 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_buffer_create: zero bytes");
    if (bytes > SIZE_MAX - 63) /* rounded up to whole 64-byte lines below */
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes", bytes);
    if (where != NB_BACKEND_CPU && where != NB_BACKEND_GPU)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_buffer_create: unknown backend %d", (int)where);
    nb_buffer *b = calloc(1, sizeof *b);
    if (!b)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "nb_buffer_create: out of host memory");
    b->where = where;
    b->bytes = bytes;
    if (where == NB_BACKEND_CPU) {
        size_t rounded = (bytes + 63) & ~(size_t)63;
        b->ptr = aligned_alloc(64, rounded);
        if (!b->ptr) {
            free(b);
            return nb_set_error(NB_ERR_OUT_OF_MEMORY, "cannot allocate %zu host bytes", bytes);
        }
    } else {
#ifdef NB_HAVE_CUDA
        nb_status s = nb_gpu_require();
        cudaError_t e = s == NB_OK ? cudaMalloc(&b->ptr, bytes) : cudaSuccess;
        if (s != NB_OK || e != cudaSuccess) {
            free(b);
            if (s != NB_OK)
                return s;
            (void)cudaGetLastError();
            return nb_set_error(nb_cuda_status(e), "cannot allocate %zu device bytes: %s", bytes,
                                cudaGetErrorString(e));
        }
#else
        free(b);
        return nb_gpu_require();
#endif
    }
    *out = b;
    return NB_OK;
}

void nb_buffer_destroy(nb_buffer *b)
{
    if (!b)
        return;
    if (b->where == NB_BACKEND_CPU)
        free(b->ptr);
#ifdef NB_HAVE_CUDA
    else
        cudaFree(b->ptr);
#endif
    free(b);
}

void *nb_buffer_ptr(const nb_buffer *b) { return b ? b->ptr : NULL; }
size_t nb_buffer_bytes(const nb_buffer *b) { return b ? b->bytes : 0; }
nb_backend nb_buffer_backend(const nb_buffer *b) { return b ? b->where : NB_BACKEND_CPU; }

/* NB_OK when [offset, offset + bytes) lies in b and p is given; the message
 * names `what`, the caller. */
static nb_status check_range(const nb_buffer *b, size_t offset, const void *p, size_t bytes,
                             const char *what)
{
    if (!b || !p)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: NULL argument", what);
    if (offset > b->bytes || bytes > b->bytes - offset)
        return nb_set_error(NB_ERR_INVALID_ARG, "%s: [%zu, +%zu) outside a buffer of %zu bytes",
                            what, offset, bytes, b->bytes);
    return NB_OK;
}

/* Copies bytes between host memory and buffer b (to_device: host -> b) and
 * waits for the copy on `stream`; for a host buffer, a plain memcpy. */
static nb_status copy_sync(const nb_buffer *b, int to_device, void *dst, const void *src,
                           size_t bytes, void *stream)
{
    if (b->where == NB_BACKEND_CPU) {
        memcpy(dst, src, bytes);
        return NB_OK;
    }
#ifdef NB_HAVE_CUDA
    NB_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes,
                                to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                                (cudaStream_t)stream));
    NB_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)stream));
    return NB_OK;
#else
    (void)to_device, (void)stream;
    return nb_gpu_require();
#endif
}

nb_status nb_buffer_upload(nb_buffer *b, size_t offset, const void *host, size_t bytes,
                           void *stream)
{
    NB_TRY(check_range(b, offset, host, bytes, "buffer copy"));
    return copy_sync(b, 1, (char *)b->ptr + offset, host, bytes, stream);
}

nb_status nb_buffer_download(const nb_buffer *b, size_t offset, void *host, size_t bytes,
                             void *stream)
{
    NB_TRY(check_range(b, offset, host, bytes, "buffer copy"));
    return copy_sync(b, 0, host, (const char *)b->ptr + offset, bytes, stream);
}

nb_status nb_buffer_guard_set(nb_buffer *b, size_t offset, size_t bytes, void *stream)
{
    NB_TRY(check_range(b, offset, "", bytes, "nb_buffer_guard_set"));
    unsigned char *h = malloc(bytes ? bytes : 1);
    if (!h)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "nb_buffer_guard_set: out of host memory");
    memset(h, NB_BUFFER_GUARD_BYTE, bytes);
    nb_status s = nb_buffer_upload(b, offset, h, bytes, stream);
    free(h);
    return s;
}

nb_status nb_buffer_guard_check(const nb_buffer *b, size_t offset, size_t bytes, size_t *changed,
                                void *stream)
{
    NB_TRY(check_range(b, offset, "", bytes, "nb_buffer_guard_check"));
    unsigned char *h = malloc(bytes ? bytes : 1);
    if (!h || !changed) {
        free(h);
        return nb_set_error(h ? NB_ERR_INVALID_ARG : NB_ERR_OUT_OF_MEMORY,
                            "nb_buffer_guard_check: %s", h ? "NULL result" : "out of host memory");
    }
    nb_status s = nb_buffer_download(b, offset, h, bytes, stream);
    size_t at = 0;
    while (s == NB_OK && at < bytes && h[at] == NB_BUFFER_GUARD_BYTE)
        at++;
    *changed = at;
    free(h);
    return s;
}

nb_status nb_buffer_fill(nb_buffer *b, int byte, void *stream)
{
    if (!b)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_buffer_fill: NULL buffer");
    if (b->where == NB_BACKEND_CPU) {
        memset(b->ptr, byte, b->bytes);
        return NB_OK;
    }
#ifdef NB_HAVE_CUDA
    NB_CUDA_TRY(cudaMemsetAsync(b->ptr, byte, b->bytes, (cudaStream_t)stream));
    return NB_OK;
#else
    (void)stream;
    return nb_gpu_require();
#endif
}

nb_status nb_buffer_copy(nb_buffer *dst, size_t dst_off, const nb_buffer *src, size_t src_off,
                         size_t bytes, void *stream)
{
    if (!dst || !src)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_buffer_copy: NULL buffer");
    NB_TRY(check_range(dst, dst_off, dst->ptr, bytes, "buffer copy"));
    NB_TRY(check_range(src, src_off, src->ptr, bytes, "buffer copy"));
    if (dst->where == NB_BACKEND_CPU && src->where == NB_BACKEND_CPU) {
        memmove((char *)dst->ptr + dst_off, (const char *)src->ptr + src_off, bytes);
        return NB_OK;
    }
#ifdef NB_HAVE_CUDA
    NB_CUDA_TRY(cudaMemcpyAsync((char *)dst->ptr + dst_off, (const char *)src->ptr + src_off,
                                bytes, cudaMemcpyDefault, (cudaStream_t)stream));
    return NB_OK;
#else
    (void)stream;
    return nb_gpu_require();
#endif
}

nb_status nb_mem_copy(nb_backend where, void *dst, const void *src, size_t bytes, void *stream)
{
    if (bytes && (!dst || !src))
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_mem_copy: NULL pointer");
    const uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    if (bytes && (d < s ? s - d < bytes : d - s < bytes))
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_mem_copy: the two regions overlap");
    if (where != NB_BACKEND_CPU && where != NB_BACKEND_GPU)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_mem_copy: unknown backend %d", (int)where);
    if (where == NB_BACKEND_CPU) {
        memcpy(dst, src, bytes);
        return NB_OK;
    }
#ifdef NB_HAVE_CUDA
    NB_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream));
    return NB_OK;
#else
    (void)stream;
    return nb_gpu_require();
#endif
}

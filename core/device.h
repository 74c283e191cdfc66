/* Device discovery, streams and buffer objects. Plain C over the CUDA runtime
 * API; in a build without CUDA every GPU request fails with NB_ERR_NO_DEVICE.
 * Host buffers (NB_BACKEND_CPU) are 64-byte aligned heap memory, so the same
 * code paths serve both backends. */
#ifndef NB_DEVICE_H
#define NB_DEVICE_H

#include <stddef.h>

#include "core/status.h"
#include "core/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if this build has CUDA support compiled in. */
int nb_cuda_compiled(void);

/* Number of usable CUDA devices (0 without CUDA, driver, or device). */
int nb_gpu_count(void);

/* Makes CUDA device `device` (0 <= device < nb_gpu_count()) the calling
 * thread's current one: buffers and streams created afterwards live there.
 * NB_ERR_NO_DEVICE outside that range. */
nb_status nb_gpu_use(int device);

/* NB_OK if a GPU is usable, else NB_ERR_NO_DEVICE with the reason. */
nb_status nb_gpu_require(void);

/* Free and total bytes of the current device (cudaMemGetInfo);
 * NB_ERR_NO_DEVICE without one. */
nb_status nb_gpu_mem_info(size_t *free_bytes, size_t *total_bytes);

/* Streams (cudaStream_t behind void*). nb_stream_destroy accepts NULL. */
nb_status nb_stream_create(void **stream);
void nb_stream_destroy(void *stream);
nb_status nb_stream_sync(void *stream);

typedef struct nb_buffer nb_buffer;

/* A buffer of `bytes` on the host (CPU) or the current device (GPU). */
nb_status nb_buffer_create(nb_buffer **out, nb_backend where, size_t bytes);
void nb_buffer_destroy(nb_buffer *b);
void *nb_buffer_ptr(const nb_buffer *b);
size_t nb_buffer_bytes(const nb_buffer *b);
nb_backend nb_buffer_backend(const nb_buffer *b);

/* Copies host memory into the buffer (offset in bytes). Synchronous: returns
 * after the copy completed on `stream`. */
nb_status nb_buffer_upload(nb_buffer *b, size_t offset, const void *host, size_t bytes,
                           void *stream);
/* Copies from the buffer into host memory; synchronous on `stream`. */
nb_status nb_buffer_download(const nb_buffer *b, size_t offset, void *host, size_t bytes,
                             void *stream);
/* Fills bytes with `byte` (e.g. 0xA5 as a poison pattern); async on stream. */
nb_status nb_buffer_fill(nb_buffer *b, int byte, void *stream);
/* A guard after the data a callee may write (a variant, a plug-in): bytes
 * [offset, offset + bytes) of b set to NB_BUFFER_GUARD_BYTE (synchronous on
 * `stream`), and later checked: *changed = the index of the first of them
 * that no longer holds it, or `bytes` when none changed. */
#define NB_BUFFER_GUARD_BYTE 0xA5
nb_status nb_buffer_guard_set(nb_buffer *b, size_t offset, size_t bytes, void *stream);
nb_status nb_buffer_guard_check(const nb_buffer *b, size_t offset, size_t bytes, size_t *changed,
                                void *stream);
/* The likely cause of a variant's write past a guard, as a question for a
 * message: wider words than it declares (word_bits 32), else more limbs
 * than the count it was given. */
static inline const char *nb_buffer_guard_hint(unsigned word_bits)
{
    return word_bits == 32 ? "does it write wider words than its word_bits, 32?"
                           : "does it transform more limbs than the count it is given?";
}
/* Device-to-device (or host-to-host) copy between buffers; async on stream. */
nb_status nb_buffer_copy(nb_buffer *dst, size_t dst_off, const nb_buffer *src, size_t src_off,
                         size_t bytes, void *stream);
/* Copies `bytes` between two non-overlapping regions of `where`'s memory
 * (host: at once; GPU: async on stream); NB_ERR_INVALID_ARG when they
 * overlap. */
nb_status nb_mem_copy(nb_backend where, void *dst, const void *src, size_t bytes, void *stream);

#ifdef __cplusplus
}
#endif
#endif

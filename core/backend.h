/* Where data lives and code runs: the host (CPU) or a CUDA device (GPU).
 * Shared by buffers (core/device.h), NTT variants (ntt/variant.h) and every
 * layer above. */
#ifndef NB_BACKEND_H
#define NB_BACKEND_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nb_backend { NB_BACKEND_CPU = 0, NB_BACKEND_GPU = 1 } nb_backend;

/* "cpu" or "gpu"; any value other than NB_BACKEND_GPU reads "cpu". */
const char *nb_backend_name(nb_backend b);

#ifdef __cplusplus
}
#endif
#endif

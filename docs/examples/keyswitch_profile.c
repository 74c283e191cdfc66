/* One cold key switch through the public API, between cudaProfilerStart
 * and cudaProfilerStop, so that a profiler started with its capture off
 * (Nsight Compute: --profile-from-start off) records exactly that call's
 * kernels. Usage: keyswitch_profile [PRESET [VARIANT [keyswitch|rescale]]]
 * (default ckks16-l30-d3 gpu-fast keyswitch; rescale: one floor rescale of
 * the same input instead), a GPU variant of the set's word size. Inputs
 * and key are seeded uniform residues; three warm-up key switches, then the
 * L2 is evicted by filling 512 MiB, then the profiled call (the driver's
 * cuProfilerStart/Stop: the library links its own CUDA runtime).
 * docs/methodology.md ("The stage breakdown and Nsight Compute") uses it. */
#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>
#include <cudaProfiler.h>

#include "nttbench.h"

#define FLUSH_BYTES ((size_t)512 << 20) /* several times any L2 */

static int fail(const char *what)
{
    fprintf(stderr, "keyswitch_profile: %s: %s\n", what, nb_last_error());
    return 1;
}

/* limbs limbs of uniform residues into b, limb i mod primes[i % per], per
 * = the key's limbs per polynomial (q_count + alpha) or the input's; words
 * of wb bytes. */
static nb_status upload_residues(nb_buffer *b, const uint64_t *primes, size_t per, size_t limbs,
                                 size_t n, size_t wb, void *stream)
{
    uint64_t *h = malloc(limbs * n * sizeof *h);
    if (!h)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of host memory");
    nb_rng r;
    nb_rng_seed(&r, 2026);
    for (size_t i = 0; i < limbs; i++)
        nb_rng_fill_residues(&r, h + i * n, n, primes[i % per]);
    nb_words_from_u64(h, h, limbs * n, (unsigned)(8 * wb)); /* in place */
    nb_status s = nb_buffer_upload(b, 0, h, limbs * n * wb, stream);
    if (s == NB_OK)
        s = nb_stream_sync(stream);
    free(h);
    return s;
}

/* One key switch (or rescale, floor) at the top level; out1: out's second
 * polynomial, `half` bytes in. */
static nb_status stage(nb_ckks *c, int rescale, char *out, size_t half, nb_buffer *in,
                       nb_buffer *key, void *stream)
{
    const size_t top = nb_ckks_get_params(c)->max_level;
    if (rescale)
        return nb_ckks_rescale(c, top, NB_CKKS_RESCALE_FLOOR, out, nb_buffer_ptr(in), NULL,
                               stream);
    return nb_ckks_keyswitch(c, top, out, out + half, nb_buffer_ptr(in), nb_buffer_ptr(key), NULL,
                             stream);
}

int main(int argc, char **argv)
{
    const char *preset = argc > 1 ? argv[1] : "ckks16-l30-d3";
    const char *name = argc > 2 ? argv[2] : "gpu-fast";
    const int rescale = argc > 3 && argv[3][0] == 'r';
    const nb_ntt_variant *v = nb_ntt_variant_find(name);
    if (!v)
        return fail(name);
    void *stream = NULL;
    nb_ckks_params *p = NULL;
    nb_ckks *c = NULL;
    if (nb_stream_create(&stream) != NB_OK)
        return fail("stream");
    if (nb_ckks_params_from_preset(&p, preset) != NB_OK)
        return fail(preset);
    if (nb_ckks_create(&c, p, v, stream) != NB_OK)
        return fail("nb_ckks_create");
    const size_t n = p->n, wb = nb_ckks_word_bytes(c), L1 = p->q_count;
    const size_t key_bytes = nb_ckks_key_limbs(p) * n * wb;
    nb_buffer *in = NULL, *out = NULL, *key = NULL, *flush = NULL;
    if (nb_buffer_create(&in, NB_BACKEND_GPU, L1 * n * wb) != NB_OK ||
        nb_buffer_create(&out, NB_BACKEND_GPU, 2 * L1 * n * wb) != NB_OK ||
        nb_buffer_create(&key, NB_BACKEND_GPU, key_bytes) != NB_OK ||
        nb_buffer_create(&flush, NB_BACKEND_GPU, FLUSH_BYTES) != NB_OK)
        return fail("device buffers");
    if (upload_residues(in, p->q, L1, L1, n, wb, stream) != NB_OK ||
        upload_residues(key, p->primes, L1 + p->alpha, nb_ckks_key_limbs(p), n, wb, stream) != NB_OK)
        return fail("inputs");
    char *o = nb_buffer_ptr(out);
    for (int i = 0; i < 3; i++)
        if (stage(c, rescale, o, L1 * n * wb, in, key, stream) != NB_OK)
            return fail("warm-up call");
    if (nb_buffer_fill(flush, 0x5A, stream) != NB_OK || nb_stream_sync(stream) != NB_OK)
        return fail("flush");
    if (cuProfilerStart() != CUDA_SUCCESS)
        fprintf(stderr, "keyswitch_profile: cuProfilerStart failed (no profiler attached?)\n");
    nb_status s = stage(c, rescale, o, L1 * n * wb, in, key, stream);
    if (s == NB_OK)
        s = nb_stream_sync(stream);
    cuProfilerStop();
    if (s != NB_OK)
        return fail("profiled key switch");
    printf("keyswitch_profile: one %s of %s with %s at level %zu\n",
           rescale ? "rescale" : "key switch", preset, name, p->max_level);
    nb_buffer_destroy(in);
    nb_buffer_destroy(out);
    nb_buffer_destroy(key);
    nb_buffer_destroy(flush);
    nb_ckks_destroy(c);
    nb_ckks_params_destroy(p);
    nb_stream_destroy(stream);
    return 0;
}

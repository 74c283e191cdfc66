/* The butterfly-ceiling workload of calibrate (GPU only): how many forward
 * NTT butterflies per second the device runs when they are all it does.
 * Every thread keeps its pairs in registers through `BFLY_ROUNDS` rounds of
 * the lazy forward butterflies of ntt/arith.h (nb_gpu_butterfly_launch; on
 * 32-bit words the Harvey nb_ct_butterfly32 with a 30-bit prime,
 * nb_gpu_butterfly32_launch), so no load, exchange or store stands between
 * them: no NTT kernel built on this arithmetic runs its butterflies faster on
 * the same device. A launch reads its inputs and writes fresh outputs over
 * poison; verify checks that every output was written and in range, and
 * recomputes a sample of threads on the host with the same arithmetic. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/timing/internal.h"
#include "bench/tiers/calibrate.h"
#include "bench/tiers/ntt.h"
#include "core/rng.h"
#include "ntt/arith.h"
#include "ntt/primes.h"

#ifdef NB_HAVE_CUDA
#define BFLY_ROUNDS 256u   /* rounds of two butterflies per pair and launch */
#define BFLY_LOG_N 16u     /* the prime is an NTT prime for this size */
#define BFLY_BITS 60u      /* ... of this many bits (64-bit words) */
#define BFLY_BITS32 30u    /* ... on 32-bit words (the Harvey family: q < 2^30) */
#define BFLY_SAMPLE 509u   /* verify recomputes every 509th thread and the last */

typedef struct bfly_ctx {
    nb_workload w;
    unsigned word_bits;    /* 64 or 32 */
    uint64_t q, tw[4];     /* w0, ws0, w1, ws1 (Shoup values of the word size) */
    uint64_t seed;         /* of the inputs and twiddles, named in a failure */
    size_t threads, words; /* words = threads * NB_BFLY_PAIRS * 2 */
    nb_buffer *in, *out, *twb;
    uint64_t *h_in, *h_out; /* widened (the device holds words of word_bits) */
} bfly_ctx;

static size_t word_bytes(const bfly_ctx *c) { return c->word_bits / 8; }

/* The bound of every output (lazy ranges: [0, 6q) or [0, 4q)). */
static uint64_t out_bound(const bfly_ctx *c) { return (c->word_bits == 32 ? 4 : 6) * c->q; }

static void bfly_teardown(void *ctx)
{
    bfly_ctx *c = ctx;
    nb_buffer_destroy(c->in);
    nb_buffer_destroy(c->out);
    nb_buffer_destroy(c->twb);
    free(c->h_in);
    free(c->h_out);
    c->in = c->out = c->twb = NULL;
    c->h_in = c->h_out = NULL;
}

/* One set whatever `sets` is: a launch's inputs are a few MB and are never
 * overwritten. Inputs uniform in [0, q), two random twiddles. */
static nb_status bfly_setup(void *ctx, size_t sets, void *stream)
{
    bfly_ctx *c = ctx;
    (void)sets;
    bfly_teardown(c);
    const size_t bytes = c->words * word_bytes(c);
    c->h_in = malloc(c->words * sizeof(uint64_t));
    c->h_out = malloc(c->words * sizeof(uint64_t));
    if (!c->h_in || !c->h_out)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "%s: out of host memory", c->w.label);
    nb_rng r;
    c->seed = (uint64_t)time(NULL) ^ 0x6a09e667f3bcc909ull;
    nb_rng_seed(&r, c->seed);
    nb_rng_fill_residues(&r, c->h_in, c->words, c->q);
    for (int i = 0; i < 2; i++) {
        c->tw[2 * i] = 1 + nb_rng_below(&r, c->q - 1);
        c->tw[2 * i + 1] = nb_shoup_precompute(c->tw[2 * i], c->q);
        if (c->word_bits == 32)
            c->tw[2 * i + 1] = nb_shoup32_from64(c->tw[2 * i + 1]);
    }
    uint64_t tw[4];
    memcpy(tw, c->tw, sizeof tw);
    NB_TRY(nb_buffer_create(&c->in, NB_BACKEND_GPU, bytes));
    NB_TRY(nb_buffer_create(&c->out, NB_BACKEND_GPU, bytes));
    NB_TRY(nb_buffer_create(&c->twb, NB_BACKEND_GPU, 4 * word_bytes(c)));
    nb_words_from_u64(c->h_out, c->h_in, c->words, c->word_bits); /* h_out: staging */
    nb_words_from_u64(tw, tw, 4, c->word_bits);
    NB_TRY(nb_buffer_upload(c->in, 0, c->h_out, bytes, stream));
    NB_TRY(nb_buffer_upload(c->twb, 0, tw, 4 * word_bytes(c), stream));
    return nb_stream_sync(stream);
}

static size_t bfly_bytes(const void *ctx)
{
    const bfly_ctx *c = ctx;
    return 2 * c->words * word_bytes(c);
}

static nb_status bfly_prepare(void *ctx, size_t set, void *stream)
{
    bfly_ctx *c = ctx;
    (void)set; /* poison above every output's bound: 0xA5.. > 6q, 0xFF.. >= 4q */
    return nb_buffer_fill(c->out, c->word_bits == 32 ? 0xFF : 0xA5, stream);
}

static nb_status bfly_launch(void *ctx, size_t set, void *stream)
{
    bfly_ctx *c = ctx;
    (void)set;
    if (c->word_bits == 32)
        return nb_gpu_butterfly32_launch(nb_buffer_ptr(c->out), nb_buffer_ptr(c->in),
                                         nb_buffer_ptr(c->twb), (uint32_t)c->q, BFLY_ROUNDS,
                                         stream);
    return nb_gpu_butterfly_launch(nb_buffer_ptr(c->out), nb_buffer_ptr(c->in),
                                   nb_buffer_ptr(c->twb), c->q, BFLY_ROUNDS, stream);
}

/* Thread t's pairs after BFLY_ROUNDS rounds, on the host, into h[2 P]. */
static void bfly_expect(const bfly_ctx *c, size_t t, uint64_t *h)
{
    memcpy(h, c->h_in + t * NB_BFLY_PAIRS * 2, NB_BFLY_PAIRS * 2 * sizeof *h);
    for (int i = 0; i < NB_BFLY_PAIRS; i++) {
        const uint64_t w = c->tw[2 * (i & 1)], ws = c->tw[2 * (i & 1) + 1];
        uint32_t x = (uint32_t)h[2 * i], y = (uint32_t)h[2 * i + 1];
        for (unsigned r = 0; r < BFLY_ROUNDS; r++)
            if (c->word_bits == 32) {
                nb_ct_butterfly32(&x, &y, (uint32_t)w, (uint32_t)ws, (uint32_t)c->q);
                nb_ct_butterfly32(&x, &y, (uint32_t)w, (uint32_t)ws, (uint32_t)c->q);
            } else {
                nb_ct_butterfly_6q(&h[2 * i], &h[2 * i + 1], w, ws, c->q);
                nb_ct_butterfly_8q(&h[2 * i], &h[2 * i + 1], w, ws, c->q);
            }
        if (c->word_bits == 32) {
            h[2 * i] = x;
            h[2 * i + 1] = y;
        }
    }
}

/* NB_OK if thread t's outputs are what the host computes from its inputs. */
static nb_status bfly_check_thread(const bfly_ctx *c, size_t t)
{
    uint64_t h[NB_BFLY_PAIRS * 2];
    bfly_expect(c, t, h);
    const uint64_t *got = c->h_out + t * NB_BFLY_PAIRS * 2;
    for (int i = 0; i < NB_BFLY_PAIRS * 2; i++)
        if (h[i] != got[i])
            return nb_set_error(NB_ERR_VERIFY,
                                "%s: thread %zu word %d: got %llu, expected %llu (q %llu, "
                                "seed %llu)",
                                c->w.label, t, i, (unsigned long long)got[i],
                                (unsigned long long)h[i], (unsigned long long)c->q,
                                (unsigned long long)c->seed);
    return NB_OK;
}

static nb_status bfly_verify(void *ctx, size_t set, void *stream)
{
    bfly_ctx *c = ctx;
    (void)set;
    NB_TRY(nb_buffer_download(c->out, 0, c->h_out, c->words * word_bytes(c), stream));
    nb_words_to_u64(c->h_out, c->h_out, c->words, c->word_bits);
    for (size_t i = 0; i < c->words; i++) /* the poison is above the range */
        if (c->h_out[i] >= out_bound(c))
            return nb_set_error(NB_ERR_VERIFY, "%s: word %zu is %llu, not below %dq (unwritten?)",
                                c->w.label, i, (unsigned long long)c->h_out[i],
                                c->word_bits == 32 ? 4 : 6);
    for (size_t t = 0; t < c->threads; t += BFLY_SAMPLE)
        NB_TRY(bfly_check_thread(c, t));
    return bfly_check_thread(c, c->threads - 1);
}

static void bfly_destroy(void *ctx)
{
    bfly_teardown(ctx);
    free(ctx);
}

static const nb_workload_ops bfly_ops = {
    .setup = bfly_setup,
    .bytes_per_launch = bfly_bytes,
    .prepare = bfly_prepare,
    .launch = bfly_launch,
    .verify = bfly_verify,
    .teardown = bfly_teardown,
    .destroy = bfly_destroy,
};

#endif

nb_status nb_butterfly_workload_create(nb_workload **out, unsigned word_bits, double *per_launch)
{
    if (!out || !per_launch || (word_bits != 32 && word_bits != 64))
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_butterfly_workload_create: bad argument");
    *out = NULL;
#ifndef NB_HAVE_CUDA
    return nb_set_error(NB_ERR_NO_DEVICE, "built without CUDA");
#else
    NB_TRY(nb_gpu_require());
    bfly_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of host memory");
    c->word_bits = word_bits;
    nb_status s = nb_primes_generate(BFLY_LOG_N, word_bits == 32 ? BFLY_BITS32 : BFLY_BITS, 1,
                                     NULL, 0, &c->q);
    if (s == NB_OK)
        s = nb_gpu_butterfly_threads(&c->threads);
    if (s != NB_OK) {
        free(c);
        return s;
    }
    c->words = c->threads * NB_BFLY_PAIRS * 2;
    c->w.label = word_bits == 32 ? "gpu butterfly ceiling (32-bit words)"
                                 : "gpu butterfly ceiling";
    c->w.backend = NB_BACKEND_GPU;
    c->w.ops = &bfly_ops;
    c->w.ctx = c;
    *per_launch = (double)c->threads * NB_BFLY_PAIRS * 2 * BFLY_ROUNDS;
    *out = &c->w;
    return NB_OK;
#endif
}

/* gpu-smem: the two-kernel shared-memory NTT of the "100x" bootstrapping
 * work (Jung et al., TCHES 2021), for log N in [10, 17].
 *
 * The N coefficients of a limb are viewed as an N1 x N2 matrix (row-major,
 * N1 = 2^k1 rows, N2 = 2^k2 columns, k1 = floor(log N / 2), k2 = log N - k1).
 * The butterfly stages on the high k1 index bits only mix elements of one
 * column, those on the low k2 bits only elements of one row, so:
 *   column kernel: a block loads C whole columns (a tile of N1 x C
 *                  coefficients, rows of C contiguous words) into shared
 *                  memory, runs the k1 column stages there (a barrier between
 *                  stages, each thread a few radix-2 butterflies per stage)
 *                  and writes the tile back once;
 *   row kernel:    the same with R whole rows (contiguous) and the k2 row stages.
 * Forward (Cooley-Tukey, natural -> bit-reversed): column kernel, then row
 * kernel. Inverse (Gentleman-Sande, bit-reversed -> natural, scaled by N^-1):
 * row kernel, then column kernel. Each coefficient is read and written twice
 * in global memory per transform; twiddles are read from global memory (the
 * same nb_ntt_tables layout as the CPU backend, twiddle of the butterfly on
 * index bit B of element pair (e, e + 2^B) is w[2^(logN-1-B) + (e >> (B+1))]).
 * Harvey lazy butterflies; values between kernels are in [0, 4q) (forward) or
 * [0, 2q) (inverse); outputs in [0, q). */
#include "ntt/builtin.h"
#include "ntt/gpu_common.cuh"
#include "ntt/kernel_info.h"

#define SMEM_THREADS 256
#define SMEM_TILE_LOG 12 /* 4096 coefficients = 32 KiB of shared memory per block */
#define SMEM_MIN_LOG_N 10
#define SMEM_MAX_LOG_N 17

typedef struct {
    unsigned log_n, k1, k2;
    unsigned log_c, log_r; /* columns per column-kernel block, rows per row-kernel block */
    nb_gpu_tables tw;      /* device copy of the tables */
} smem_plan;

/* One butterfly on tile elements x (lower index) and y at global index bit B
 * of the limb; `top` marks the last inverse stage (B = log N - 1) and `last`
 * the last forward stage (B = 0). */
__device__ __forceinline__ void smem_butterfly(uint64_t *x, uint64_t *y, const uint64_t *w,
                                               const uint64_t *ws, size_t tw,
                                               const nb_gpu_limb &c, bool inverse, bool top,
                                               bool last)
{
    if (!inverse) {
        nb_ct_butterfly(x, y, w[tw], ws[tw], c.q);
        if (last) {
            *x = nb_reduce_4q(*x, c.q);
            *y = nb_reduce_4q(*y, c.q);
        }
    } else if (top) {
        const uint64_t u = *x, v = *y, two_q = c.q << 1;
        *x = nb_mul_shoup(u + v, c.n_inv, c.n_inv_shoup, c.q);
        *y = nb_mul_shoup(u - v + two_q, c.last_w, c.last_w_shoup, c.q);
    } else {
        nb_gs_butterfly(x, y, w[tw], ws[tw], c.q);
    }
}

/* Column kernel: block (blockIdx.x, limb blockIdx.y) owns columns
 * [blockIdx.x * C, +C) of the limb; tile[r * C + c] holds row r, column c.
 * Runs the stages on the k1 high index bits (bits k2 .. log N - 1). */
__global__ void __launch_bounds__(SMEM_THREADS)
smem_columns(uint64_t *data, const uint64_t *w, const uint64_t *ws, const nb_gpu_limb *limbs,
             size_t first, unsigned log_n, unsigned k1, unsigned log_c, int inverse)
{
    extern __shared__ uint64_t tile[];
    const unsigned k2 = log_n - k1;
    const size_t l = first + blockIdx.y;
    const nb_gpu_limb c = limbs[l];
    uint64_t *a = data + ((size_t)blockIdx.y << log_n);
    const uint32_t col0 = blockIdx.x << log_c, cmask = (1u << log_c) - 1;
    const uint32_t tile_n = 1u << (k1 + log_c);
    const size_t tw0 = (size_t)l << log_n;

    for (uint32_t i = threadIdx.x; i < tile_n; i += blockDim.x)
        tile[i] = a[((size_t)(i >> log_c) << k2) + col0 + (i & cmask)];
    __syncthreads();

    for (unsigned st = 0; st < k1; st++) {
        const unsigned b = inverse ? st : k1 - 1 - st; /* bit of the row index */
        const unsigned B = b + k2;                      /* bit of the limb index */
        for (uint32_t f = threadIdx.x; f < tile_n / 2; f += blockDim.x) {
            const uint32_t col = f & cmask, j = f >> log_c;
            const uint32_t r0 = ((j >> b) << (b + 1)) | (j & ((1u << b) - 1));
            const uint32_t r1 = r0 | (1u << b);
            const size_t tw = tw0 + ((size_t)1 << (log_n - 1 - B)) + (r0 >> (b + 1));
            smem_butterfly(&tile[(r0 << log_c) + col], &tile[(r1 << log_c) + col], w, ws, tw,
                           c, inverse, B == log_n - 1, false);
        }
        __syncthreads();
    }

    for (uint32_t i = threadIdx.x; i < tile_n; i += blockDim.x)
        a[((size_t)(i >> log_c) << k2) + col0 + (i & cmask)] = tile[i];
}

/* Row kernel: block (blockIdx.x, limb blockIdx.y) owns rows
 * [blockIdx.x * R, +R), a contiguous run of R * N2 coefficients; runs the
 * stages on the k2 low index bits. */
__global__ void __launch_bounds__(SMEM_THREADS)
smem_rows(uint64_t *data, const uint64_t *w, const uint64_t *ws, const nb_gpu_limb *limbs,
          size_t first, unsigned log_n, unsigned k2, unsigned log_r, int inverse)
{
    extern __shared__ uint64_t tile[];
    const size_t l = first + blockIdx.y;
    const nb_gpu_limb c = limbs[l];
    const uint32_t base = blockIdx.x << (log_r + k2); /* first coefficient of the tile */
    uint64_t *a = data + ((size_t)blockIdx.y << log_n) + base;
    const uint32_t tile_n = 1u << (log_r + k2);
    const size_t tw0 = (size_t)l << log_n;

    for (uint32_t i = threadIdx.x; i < tile_n; i += blockDim.x)
        tile[i] = a[i];
    __syncthreads();

    for (unsigned st = 0; st < k2; st++) {
        const unsigned b = inverse ? st : k2 - 1 - st;
        for (uint32_t f = threadIdx.x; f < tile_n / 2; f += blockDim.x) {
            const uint32_t e0 = ((f >> b) << (b + 1)) | (f & ((1u << b) - 1));
            const uint32_t e1 = e0 | (1u << b);
            const size_t tw = tw0 + ((size_t)1 << (log_n - 1 - b)) + ((base + e0) >> (b + 1));
            smem_butterfly(&tile[e0], &tile[e1], w, ws, tw, c, inverse, b == log_n - 1,
                           !inverse && b == 0);
        }
        __syncthreads();
    }

    for (uint32_t i = threadIdx.x; i < tile_n; i += blockDim.x)
        a[i] = tile[i];
}

static void plan_destroy(void *plan)
{
    smem_plan *p = (smem_plan *)plan;
    if (p)
        nb_gpu_tables_free(&p->tw);
    free(p);
}

static nb_status plan_create(void **out, const nb_ntt_tables *t, void *stream)
{
    smem_plan *p;
    NB_TRY(nb_gpu_plan_alloc((void **)&p, sizeof *p, "gpu-smem"));
    p->log_n = t->log_n;
    p->k1 = t->log_n / 2;
    p->k2 = t->log_n - p->k1;
    /* tiles of at most 2^SMEM_TILE_LOG coefficients, never wider than the matrix */
    p->log_c = SMEM_TILE_LOG - p->k1 < p->k2 ? SMEM_TILE_LOG - p->k1 : p->k2;
    p->log_r = SMEM_TILE_LOG - p->k2 < p->k1 ? SMEM_TILE_LOG - p->k2 : p->k1;
    nb_status st = nb_gpu_tables_upload(&p->tw, t, (cudaStream_t)stream);
    if (st != NB_OK) {
        plan_destroy(p);
        return st;
    }
    *out = p;
    return NB_OK;
}

/* Launches the column or row kernel over limbs [first, first + count), in
 * chunks of at most 65535 limbs (the grid's y limit). */
static nb_status launch(const smem_plan *p, bool columns, bool inverse, uint64_t *data,
                        size_t first, size_t count, cudaStream_t s)
{
    const uint64_t *w = inverse ? p->tw.inv : p->tw.fwd;
    const uint64_t *ws = inverse ? p->tw.inv_shoup : p->tw.fwd_shoup;
    for (size_t done = 0; done < count; done += 65535) {
        const unsigned chunk = (unsigned)(count - done < 65535 ? count - done : 65535);
        uint64_t *d = data + (done << p->log_n);
        if (columns) {
            const dim3 grid(1u << (p->k2 - p->log_c), chunk);
            const size_t smem = sizeof(uint64_t) << (p->k1 + p->log_c);
            smem_columns<<<grid, SMEM_THREADS, smem, s>>>(d, w, ws, p->tw.limbs, first + done,
                                                          p->log_n, p->k1, p->log_c, inverse);
        } else {
            const dim3 grid(1u << (p->k1 - p->log_r), chunk);
            const size_t smem = sizeof(uint64_t) << (p->k2 + p->log_r);
            smem_rows<<<grid, SMEM_THREADS, smem, s>>>(d, w, ws, p->tw.limbs, first + done,
                                                       p->log_n, p->k2, p->log_r, inverse);
        }
        NB_CUDA_LAUNCH_CHECK();
    }
    return NB_OK;
}

/* The kernels of a call (ntt/variant.h): forward columns then rows, inverse
 * rows then columns, each launched once per chunk of 65535 limbs. */
static nb_status kernels(void *plan, int inverse, size_t first, size_t count, nb_ntt_kernel *out,
                         size_t max, size_t *n)
{
    (void)first;
    const smem_plan *p = (const smem_plan *)plan;
    const unsigned chunks = (unsigned)((count + 65534) / 65535);
    *n = 2;
    for (size_t i = 0; i < 2 && i < max; i++) {
        const bool columns = (i == 0) != (inverse != 0);
        const unsigned per_limb = columns ? 1u << (p->k2 - p->log_c) : 1u << (p->k1 - p->log_r);
        const size_t smem = sizeof(uint64_t)
                            << (columns ? p->k1 + p->log_c : p->k2 + p->log_r);
        char name[64];
        snprintf(name, sizeof name, "%s (%u stages)", columns ? "columns" : "rows",
                 columns ? p->k1 : p->k2);
        NB_TRY(nb_ntt_kernel_describe(&out[i], name,
                                      columns ? (const void *)smem_columns
                                              : (const void *)smem_rows,
                                      SMEM_THREADS, smem,
                                      (unsigned long long)per_limb * count, chunks));
    }
    return NB_OK;
}

static nb_status forward(void *plan, void *words, size_t first, size_t count, void *stream)
{
    uint64_t *data = (uint64_t *)words;
    const smem_plan *p = (const smem_plan *)plan;
    cudaStream_t s = (cudaStream_t)stream;
    NB_TRY(launch(p, true, false, data, first, count, s));
    return launch(p, false, false, data, first, count, s);
}

static nb_status inverse(void *plan, void *words, size_t first, size_t count, void *stream)
{
    uint64_t *data = (uint64_t *)words;
    const smem_plan *p = (const smem_plan *)plan;
    cudaStream_t s = (cudaStream_t)stream;
    NB_TRY(launch(p, false, true, data, first, count, s));
    return launch(p, true, true, data, first, count, s);
}

extern "C" const nb_ntt_variant nb_variant_gpu_smem = {
    /* .name = */ "gpu-smem",
    /* .description = */ "GPU two-kernel shared-memory NTT (Jung et al. TCHES 2021): column "
                         "tile then row tile, stages in shared memory",
    /* .backend = */ NB_BACKEND_GPU,
    /* .min_log_n = */ SMEM_MIN_LOG_N,
    /* .max_log_n = */ SMEM_MAX_LOG_N,
    /* .word_bits = */ 64,
    /* .max_prime_bits = */ NB_MAX_PRIME_BITS,
    /* .plan_create = */ plan_create,
    /* .plan_destroy = */ plan_destroy,
    /* .forward = */ forward,
    /* .inverse = */ inverse,
    /* .forward_to = */ NULL, /* out of place: a copy, then in place */
    /* .inverse_to = */ NULL,
    /* .kernels = */ kernels,
    /* .forward_sub_scale = */ NULL,
};

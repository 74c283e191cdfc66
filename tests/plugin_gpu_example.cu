/* A GPU variant registered from outside the library, the way docs/variants.md
 * tells a researcher to ship one: a .cu file with a plan and forward/inverse,
 * built as a shared module and loaded by `nttbench --plugin PATH`, which calls
 * its exported nb_plugin_init(). Only public headers are used.
 *
 * example-gpu-dft evaluates the definition directly, one thread per output:
 *   forward  A[k] = sum_i a[i] x_k^i,  x_k = psi^(2 brv(k) + 1)
 *   inverse  a[i] = N^-1 psi^-i sum_j A[brv(j)] (psi^-2i)^j
 * O(N^2) work, so it is limited to log N <= 12: a slow, obviously correct GPU
 * baseline whose results the suite verifies like any other variant's. */
#include <cuda_runtime.h>
#include <stdlib.h>

#include "ntt/arith.h"
#include "core/cuda_check.h"
#include "ntt/kernel_info.h"
#include "ntt/variant.h"

namespace {

struct limb_consts {
    uint64_t q, mu_lo, mu_hi;
    uint64_t psi, psi_inv, n_inv;
};

struct dft_plan {
    unsigned log_n;
    size_t limbs;
    limb_consts *consts; /* device, [limbs] */
    uint64_t *scratch;   /* device, [limbs * N]: the transforms are out of place */
};

__device__ uint64_t pow_mod(uint64_t b, uint64_t e, const limb_consts &c)
{
    uint64_t r = 1;
    while (e) {
        if (e & 1)
            r = nb_mul_mod(r, b, c.q, c.mu_lo, c.mu_hi);
        b = nb_mul_mod(b, b, c.q, c.mu_lo, c.mu_hi);
        e >>= 1;
    }
    return r;
}

__device__ unsigned bitrev(unsigned x, unsigned bits) { return __brev(x) >> (32 - bits); }

/* grid: (ceil(N / block), count); limb `first + blockIdx.y` */
__global__ void dft_forward(const uint64_t *in, uint64_t *out, const limb_consts *consts,
                            unsigned log_n, size_t first)
{
    const size_t n = (size_t)1 << log_n;
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const limb_consts c = consts[first + blockIdx.y];
    const uint64_t *a = in + blockIdx.y * n;
    const uint64_t x = pow_mod(c.psi, 2 * (uint64_t)bitrev((unsigned)k, log_n) + 1, c);
    uint64_t acc = 0, pw = 1;
    for (size_t i = 0; i < n; i++) {
        acc = nb_add_mod(acc, nb_mul_mod(a[i], pw, c.q, c.mu_lo, c.mu_hi), c.q);
        pw = nb_mul_mod(pw, x, c.q, c.mu_lo, c.mu_hi);
    }
    out[blockIdx.y * n + k] = acc;
}

__global__ void dft_inverse(const uint64_t *in, uint64_t *out, const limb_consts *consts,
                            unsigned log_n, size_t first)
{
    const size_t n = (size_t)1 << log_n;
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const limb_consts c = consts[first + blockIdx.y];
    const uint64_t *A = in + blockIdx.y * n;
    const uint64_t z = pow_mod(c.psi_inv, 2 * (uint64_t)i, c);
    uint64_t acc = 0, pw = 1;
    for (size_t j = 0; j < n; j++) {
        acc = nb_add_mod(acc, nb_mul_mod(A[bitrev((unsigned)j, log_n)], pw, c.q, c.mu_lo, c.mu_hi),
                         c.q);
        pw = nb_mul_mod(pw, z, c.q, c.mu_lo, c.mu_hi);
    }
    const uint64_t scale = nb_mul_mod(pow_mod(c.psi_inv, i, c), c.n_inv, c.q, c.mu_lo, c.mu_hi);
    out[blockIdx.y * n + i] = nb_mul_mod(acc, scale, c.q, c.mu_lo, c.mu_hi);
}

void plan_destroy(void *plan)
{
    dft_plan *p = (dft_plan *)plan;
    if (!p)
        return;
    cudaFree(p->consts);
    cudaFree(p->scratch);
    free(p);
}

nb_status plan_create(void **out, const nb_ntt_tables *t, void *stream)
{
    limb_consts *host = (limb_consts *)calloc(t->limbs, sizeof *host);
    dft_plan *p = (dft_plan *)calloc(1, sizeof *p);
    if (!host || !p) {
        free(host);
        free(p);
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "example-gpu-dft: out of host memory");
    }
    p->log_n = t->log_n;
    p->limbs = t->limbs;
    for (size_t l = 0; l < t->limbs; l++) {
        host[l].q = t->q[l];
        host[l].mu_lo = t->mu_lo[l];
        host[l].mu_hi = t->mu_hi[l];
        host[l].psi = t->psi[l];
        host[l].psi_inv = t->inv[l * t->n + t->n / 2]; /* inv[brv(1)] = psi^-1 */
        host[l].n_inv = t->n_inv[l];
    }
    cudaStream_t s = (cudaStream_t)stream;
    cudaError_t e = cudaMalloc(&p->consts, t->limbs * sizeof *host);
    if (e == cudaSuccess)
        e = cudaMalloc(&p->scratch, t->limbs * t->n * sizeof(uint64_t));
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(p->consts, host, t->limbs * sizeof *host, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s);
    free(host);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        plan_destroy(p);
        return nb_set_error(nb_cuda_status(e), "example-gpu-dft: plan: %s", cudaGetErrorString(e));
    }
    *out = p;
    return NB_OK;
}

nb_status transform(void *plan, void *words, size_t first, size_t count, void *stream,
                    int inverse)
{
    uint64_t *data = (uint64_t *)words;
    const dft_plan *p = (const dft_plan *)plan;
    const size_t n = (size_t)1 << p->log_n;
    cudaStream_t s = (cudaStream_t)stream;
    const unsigned block = n < 256 ? (unsigned)n : 256;
    const dim3 grid((unsigned)((n + block - 1) / block), (unsigned)count);
    if (inverse)
        dft_inverse<<<grid, block, 0, s>>>(data, p->scratch, p->consts, p->log_n, first);
    else
        dft_forward<<<grid, block, 0, s>>>(data, p->scratch, p->consts, p->log_n, first);
    NB_CUDA_LAUNCH_CHECK();
    NB_CUDA_TRY(cudaMemcpyAsync(data, p->scratch, count * n * sizeof(uint64_t),
                                cudaMemcpyDeviceToDevice, s));
    return NB_OK;
}

/* The kernels of a call (ntt/variant.h's optional entry): one evaluation
 * kernel, then a device copy (not a kernel) from the scratch. The
 * attributes come from this plug-in's own CUDA runtime (ntt/kernel_info.h). */
nb_status kernels(void *plan, int inverse, size_t first, size_t count, nb_ntt_kernel *out,
                  size_t max, size_t *n)
{
    (void)first;
    const dft_plan *p = (const dft_plan *)plan;
    const size_t len = (size_t)1 << p->log_n;
    const unsigned block = len < 256 ? (unsigned)len : 256;
    *n = 1;
    if (max == 0)
        return NB_OK;
    return nb_ntt_kernel_describe(out, inverse ? "dft_inverse" : "dft_forward",
                                  inverse ? (const void *)dft_inverse : (const void *)dft_forward,
                                  block, 0, (unsigned long long)((len + block - 1) / block) * count,
                                  1);
}

nb_status forward(void *plan, void *words, size_t first, size_t count, void *stream)
{
    uint64_t *data = (uint64_t *)words;
    return transform(plan, data, first, count, stream, 0);
}

nb_status inverse(void *plan, void *words, size_t first, size_t count, void *stream)
{
    uint64_t *data = (uint64_t *)words;
    return transform(plan, data, first, count, stream, 1);
}

const nb_ntt_variant example_gpu_dft = {
    "example-gpu-dft",
    "plug-in example: direct evaluation of the definition on the GPU, one thread per output",
    NB_BACKEND_GPU,
    1,
    12,
    64,
    NB_MAX_PRIME_BITS,
    plan_create,
    plan_destroy,
    forward,
    inverse,
    NULL, /* no out-of-place forward: nb_ntt_forward_to copies, then transforms in place */
    NULL, /* likewise for the inverse */
    kernels,
    NULL, /* no fused epilogue: the CKKS stages run the forward, then their own pass */
};

} // namespace

NB_PLUGIN_ABI_EXPORT;

extern "C" nb_status nb_plugin_init(void) { return nb_ntt_variant_register(&example_gpu_dft); }

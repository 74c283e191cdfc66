// The timing core's own GPU kernels: the blocking kernel that holds a stream
// while a sample is queued, the per-SM clock probe, the L2 flush, the
// counter-based inputs of rotated buffer sets, and the copy / empty /
// kernel-boundary / grid-barrier / butterfly kernels of calibrate. C interface
// (bench/timing/internal.h).
// Launch geometry is looked up per device (the current device of the calling
// thread), so a process may time on any device.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "bench/timing/internal.h"
#include "core/cuda_check.h"
#include "core/rng.h"
#include "ntt/arith.h"

namespace {

__device__ __forceinline__ unsigned long long global_timer_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ unsigned sm_id()
{
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

// flags[0]: release (written by the host); flags[1]: set here on timeout.
__global__ void blocker_kernel(volatile int *flags, unsigned long long timeout_ns)
{
    const unsigned long long t0 = global_timer_ns();
    while (flags[0] == 0) {
        if (global_timer_ns() - t0 > timeout_ns) {
            flags[1] = 1;
            __threadfence_system();
            return;
        }
        __nanosleep(500);
    }
}

// One block per SM (the dynamic shared memory request allows only one):
// thread 0 stores its SM's cycle counter and the global nanosecond timer.
__global__ void probe_kernel(unsigned long long *out)
{
    extern __shared__ unsigned char probe_smem[];
    if (threadIdx.x == 0) {
        const unsigned id = sm_id();
        const unsigned long long c = clock64();
        const unsigned long long t = global_timer_ns();
        out[2 * id] = c;
        out[2 * id + 1] = t;
        probe_smem[0] = 0;
    }
}

// Writes every 16-byte word: whole lines, so nothing is read from DRAM, and
// the L2 ends full of the scratch's dirty lines, as a read-modify-write pass
// would leave it.
__global__ void flush_kernel(uint4 *p, size_t n, unsigned v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = make_uint4(v, v, v, v);
}

// Counter-based residues (nb_gpu_fill_residues).
template <typename W>
__global__ void fill_residues_kernel(W *dst, uint64_t first, uint64_t last, uint64_t words,
                                     unsigned log_n, const uint64_t *q, uint64_t key)
{
    for (uint64_t g = first + blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; g < last;
         g += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t w = g % words, l = w >> log_n;
        uint64_t v = nb_rng_residue_at(key, g, q[l]);
        if (v == 0 && (w & ((1ull << log_n) - 1)) == 0 && q[l] > 1)
            v = 1;
        dst[g] = (W)v;
    }
}

__global__ void copy_kernel(uint4 *__restrict__ dst, const uint4 *__restrict__ src, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

__global__ void empty_kernel() {}

// The first of two dependent empty kernels: lets the second be scheduled.
__global__ void boundary_first_kernel()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// The second: waits for the first's completion and memory, as a second pass
// of a two-kernel transform does before reading the first's output.
__global__ void boundary_second_kernel()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// One grid-wide barrier (a cooperative launch), as a one-kernel transform
// would put between its passes.
__global__ void grid_barrier_kernel() { cooperative_groups::this_grid().sync(); }

constexpr unsigned sync_threads = 128; // per block of the boundary and barrier kernels

// The butterfly ceiling (nb_gpu_butterfly_launch): blocks of 128 threads, six
// per SM (the residency of the NTT kernels' large shape, 80 registers).
constexpr unsigned bfly_threads = 128, bfly_blocks_per_sm = 6;
static_assert(NB_BFLY_PAIRS % 2 == 0, "pairs alternate between the two twiddles");

// One round of a pair: the 64-bit lazy Shoup butterflies (6q, then 8q), or
// the 32-bit Harvey one twice (nb_gpu_butterfly32_launch; values in [0, 4q)).
struct bfly64 {
    static __device__ __forceinline__ void round(uint64_t *x, uint64_t *y, uint64_t w,
                                                 uint64_t s, uint64_t q)
    {
        nb_ct_butterfly_6q(x, y, w, s, q);
        nb_ct_butterfly_8q(x, y, w, s, q);
    }
};
struct bfly32 {
    static __device__ __forceinline__ void round(uint32_t *x, uint32_t *y, uint32_t w,
                                                 uint32_t s, uint32_t q)
    {
        nb_ct_butterfly32(x, y, w, s, q);
        nb_ct_butterfly32(x, y, w, s, q);
    }
};

template <typename W, typename B>
__global__ void __launch_bounds__(bfly_threads, bfly_blocks_per_sm)
butterfly_kernel(W *__restrict__ out, const W *__restrict__ in, const W *__restrict__ tw, W q,
                 unsigned rounds)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    W x[NB_BFLY_PAIRS], y[NB_BFLY_PAIRS];
    for (int i = 0; i < NB_BFLY_PAIRS; i++) {
        x[i] = in[(t * NB_BFLY_PAIRS + i) * 2];
        y[i] = in[(t * NB_BFLY_PAIRS + i) * 2 + 1];
    }
    const W w0 = tw[0], s0 = tw[1], w1 = tw[2], s1 = tw[3];
#pragma unroll 1
    for (unsigned r = 0; r < rounds; r++) {
#pragma unroll
        for (int i = 0; i < NB_BFLY_PAIRS; i++)
            B::round(&x[i], &y[i], i & 1 ? w1 : w0, i & 1 ? s1 : s0, q);
    }
    for (int i = 0; i < NB_BFLY_PAIRS; i++) {
        out[(t * NB_BFLY_PAIRS + i) * 2] = x[i];
        out[(t * NB_BFLY_PAIRS + i) * 2 + 1] = y[i];
    }
}

struct dev_info {
    int ready;
    int sms;
    int pdl;  // programmatic dependent launch (compute capability >= 9.0)
    int coop; // cooperative launch
    size_t probe_smem;
};

constexpr int max_devices = 64;
dev_info infos[max_devices];

// Geometry of the calling thread's current device (filled on first use).
nb_status ensure_info(const dev_info **out)
{
    int dev = 0;
    NB_CUDA_TRY(cudaGetDevice(&dev));
    if (dev < 0 || dev >= max_devices)
        return nb_set_error(NB_ERR_UNSUPPORTED, "device %d: at most %d devices", dev,
                            max_devices);
    dev_info *info = &infos[dev];
    if (!info->ready) {
        int sms = 0, per_sm = 0, optin = 0, major = 0, coop = 0;
        NB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        NB_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
        NB_CUDA_TRY(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
        NB_CUDA_TRY(
            cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
        NB_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        size_t want = (size_t)per_sm / 2 + 1024;
        if (want > (size_t)optin)
            want = (size_t)optin;
        NB_CUDA_TRY(cudaFuncSetAttribute(probe_kernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)want));
        info->sms = sms;
        info->pdl = major >= 9;
        info->coop = coop;
        info->probe_smem = want;
        info->ready = 1;
    }
    *out = info;
    return NB_OK;
}

unsigned grid_for(const dev_info *info, size_t n, unsigned threads)
{
    size_t blocks = (n + threads - 1) / threads;
    size_t cap = (size_t)(info->sms > 0 ? info->sms : 1) * 8;
    if (blocks > cap)
        blocks = cap;
    return blocks ? (unsigned)blocks : 1u;
}

} // namespace

extern "C" nb_status nb_gpu_blocker_launch(volatile int *flags_dev, unsigned long long timeout_ns,
                                           void *stream)
{
    blocker_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(flags_dev, timeout_ns);
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

extern "C" nb_status nb_gpu_probe_launch(unsigned long long *out_dev, int blocks, void *stream)
{
    const dev_info *info = nullptr;
    NB_TRY(ensure_info(&info));
    probe_kernel<<<blocks, 32, info->probe_smem, (cudaStream_t)stream>>>(out_dev);
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

extern "C" nb_status nb_gpu_flush_launch(void *buf, size_t bytes, void *stream)
{
    const dev_info *info = nullptr;
    NB_TRY(ensure_info(&info));
    size_t n = bytes / sizeof(uint4);
    static unsigned round = 0;
    const unsigned v = __atomic_add_fetch(&round, 1u, __ATOMIC_RELAXED);
    flush_kernel<<<grid_for(info, n, 256), 256, 0, (cudaStream_t)stream>>>((uint4 *)buf, n, v);
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

extern "C" nb_status nb_gpu_fill_residues(void *dst, unsigned word_bits, uint64_t first,
                                          uint64_t count, unsigned log_n, size_t limbs,
                                          const uint64_t *q, uint64_t key, void *stream)
{
    const dev_info *info = nullptr;
    NB_TRY(ensure_info(&info));
    if ((word_bits != 32 && word_bits != 64) || log_n > 40 || limbs == 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "fill: %u-bit words, log N %u, %zu limbs",
                            word_bits, log_n, limbs);
    const uint64_t words = (uint64_t)limbs << log_n;
    const unsigned grid = grid_for(info, count, 256);
    cudaStream_t s = (cudaStream_t)stream;
    if (word_bits == 64)
        fill_residues_kernel<<<grid, 256, 0, s>>>((uint64_t *)dst, first, first + count, words,
                                                  log_n, q, key);
    else
        fill_residues_kernel<<<grid, 256, 0, s>>>((uint32_t *)dst, first, first + count, words,
                                                  log_n, q, key);
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

extern "C" nb_status nb_gpu_copy_launch(void *dst, const void *src, size_t bytes, void *stream)
{
    const dev_info *info = nullptr;
    NB_TRY(ensure_info(&info));
    if (bytes % sizeof(uint4) || (size_t)dst % 16 || (size_t)src % 16)
        return nb_set_error(NB_ERR_INVALID_ARG, "copy kernel: bytes and pointers must be 16-aligned");
    size_t n = bytes / sizeof(uint4);
    copy_kernel<<<grid_for(info, n, 256), 256, 0, (cudaStream_t)stream>>>((uint4 *)dst,
                                                                  (const uint4 *)src, n);
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

extern "C" nb_status nb_gpu_empty_launch(void *stream)
{
    empty_kernel<<<1, 32, 0, (cudaStream_t)stream>>>();
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

extern "C" nb_status nb_gpu_butterfly_threads(size_t *threads)
{
    const dev_info *info = nullptr;
    NB_TRY(ensure_info(&info));
    *threads = (size_t)info->sms * bfly_blocks_per_sm * bfly_threads;
    return NB_OK;
}

// Launches the butterfly kernel of word type W with round B on the
// ceiling's grid.
template <typename W, typename B>
static nb_status launch_butterflies(W *out, const W *in, const W *tw, W q, unsigned rounds,
                                    void *stream)
{
    const dev_info *info = nullptr;
    NB_TRY(ensure_info(&info));
    butterfly_kernel<W, B>
        <<<info->sms * bfly_blocks_per_sm, bfly_threads, 0, (cudaStream_t)stream>>>(out, in, tw,
                                                                                    q, rounds);
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

extern "C" nb_status nb_gpu_butterfly_launch(uint64_t *out, const uint64_t *in,
                                             const uint64_t *tw, uint64_t q, unsigned rounds,
                                             void *stream)
{
    return launch_butterflies<uint64_t, bfly64>(out, in, tw, q, rounds, stream);
}

extern "C" nb_status nb_gpu_butterfly32_launch(uint32_t *out, const uint32_t *in,
                                               const uint32_t *tw, uint32_t q, unsigned rounds,
                                               void *stream)
{
    return launch_butterflies<uint32_t, bfly32>(out, in, tw, q, rounds, stream);
}

extern "C" unsigned nb_gpu_barrier_blocks_per_sm = 1;

// Launches kernel k (no arguments) as `per_sm` 128-thread blocks per SM on
// `stream` with the single launch attribute `attr`. A launch the device
// refuses for its size (a cooperative grid larger than what is resident at
// once, e.g. in an MPS partition of fewer SMs) is NB_ERR_UNSUPPORTED, and
// CUDA's last error is cleared so that the next check does not see it.
static nb_status launch_per_sm(const dev_info *info, void (*k)(), const cudaLaunchAttribute &attr,
                               unsigned per_sm, void *stream)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)info->sms * per_sm);
    cfg.blockDim = dim3(sync_threads);
    cfg.stream = (cudaStream_t)stream;
    cudaLaunchAttribute a[1] = {attr};
    cfg.attrs = a;
    cfg.numAttrs = 1;
    const cudaError_t e = cudaLaunchKernelEx(&cfg, k);
    if (e == cudaErrorCooperativeLaunchTooLarge) {
        (void)cudaGetLastError();
        return nb_set_error(NB_ERR_UNSUPPORTED,
                            "grid barrier: the device refused a cooperative launch of %u "
                            "blocks (%s)",
                            cfg.gridDim.x, cudaGetErrorString(e));
    }
    NB_CUDA_TRY(e);
    NB_CUDA_LAUNCH_CHECK();
    return NB_OK;
}

static nb_status grid_barrier_launch(const dev_info *info, void *stream)
{
    if (!info->coop)
        return nb_set_error(NB_ERR_UNSUPPORTED,
                            "grid barrier: no cooperative launch on this device");
    cudaLaunchAttribute attr = {};
    attr.id = cudaLaunchAttributeCooperative;
    attr.val.cooperative = 1;
    return launch_per_sm(info, grid_barrier_kernel, attr, nb_gpu_barrier_blocks_per_sm, stream);
}

// *runs = 1 if one grid-barrier launch, on a stream of its own, ran to
// completion; 0 if the device refused it (NB_ERR_UNSUPPORTED).
static nb_status grid_barrier_runs(const dev_info *info, int *runs)
{
    *runs = 0;
    cudaStream_t s;
    NB_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    nb_status st = grid_barrier_launch(info, s);
    const cudaError_t e = st == NB_OK ? cudaStreamSynchronize(s) : cudaSuccess;
    cudaStreamDestroy(s);
    if (st == NB_ERR_UNSUPPORTED)
        return NB_OK;
    NB_TRY(st);
    NB_CUDA_TRY(e);
    *runs = 1;
    return NB_OK;
}

extern "C" nb_status nb_gpu_sync_features(int *boundary, int *grid_barrier)
{
    const dev_info *info = nullptr;
    NB_TRY(ensure_info(&info));
    *boundary = info->pdl;
    return grid_barrier_runs(info, grid_barrier);
}

extern "C" nb_status nb_gpu_boundary_launch(void *stream)
{
    const dev_info *info = nullptr;
    NB_TRY(ensure_info(&info));
    if (!info->pdl)
        return nb_set_error(NB_ERR_UNSUPPORTED,
                            "kernel boundary: programmatic dependent launch needs sm_90");
    boundary_first_kernel<<<info->sms, sync_threads, 0, (cudaStream_t)stream>>>();
    NB_CUDA_LAUNCH_CHECK();
    cudaLaunchAttribute attr = {};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    return launch_per_sm(info, boundary_second_kernel, attr, 1, stream);
}

extern "C" nb_status nb_gpu_grid_barrier_launch(void *stream)
{
    const dev_info *info = nullptr;
    NB_TRY(ensure_info(&info));
    return grid_barrier_launch(info, stream);
}

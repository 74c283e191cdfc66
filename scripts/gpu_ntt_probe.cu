/* gpu_ntt_probe: a small standalone timing program used to tune the GPU NTT
 * variants (not the suite's benchmark: official numbers come from
 * `nttbench run`). For each variant and limb count it verifies forward and
 * inverse bit-exact against cpu-harvey, then times forward and inverse with
 * CUDA events, warm (same buffer, L2 hot) and cold (a 256 MiB scratch write
 * between samples evicts the 50 MiB L2, twiddles included). Each sample is
 * queued behind a ~40 us spin kernel so the events bracket device work only,
 * not launch latency. Prints medians and the coefficient-bytes model.
 *
 * Build (after meson has built libnttbench in $B):
 *   nvcc -O3 -std=c++17 -arch=sm_90 -I. scripts/gpu_ntt_probe.cu \
 *        scripts/gpu_ntt_probe_alt.cu scripts/gpu_ntt_probe_alt2.cu scripts/gpu_ntt_probe_alt3.cu \
 *        -o probe -L$B -lnttbench \
 *        -Xlinker -rpath=$B
 * Run: ./probe [--logn 16] [--bits 60] [--limbs 1,8,32,64] [--samples 200]
 *              [--variant gpu-regs,...] [--check-only 1] */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "ntt/ntt.h"

/* renamed builds of gpu-regs with other options (gpu_ntt_probe_alt*.cu) */
extern "C" const nb_ntt_variant probe_variant_gpu_regs_alt, probe_variant_gpu_regs_nopdl,
    probe_variant_gpu_regs_r64;

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(3);                                                                       \
        }                                                                                  \
    } while (0)
#define NK(x)                                                                              \
    do {                                                                                   \
        nb_status s_ = (x);                                                                \
        if (s_ != NB_OK) {                                                                 \
            fprintf(stderr, "%s:%d %s: %s (%s)\n", __FILE__, __LINE__, #x, nb_status_str(s_), \
                    nb_last_error());                                                      \
            exit(3);                                                                       \
        }                                                                                  \
    } while (0)

__global__ void spin(long long cycles)
{
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

__global__ void scribble(uint4 *p, size_t n, unsigned v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = make_uint4(v, v + 1, v + 2, (unsigned)i);
}

static uint64_t rng = 0x12345678abcdefull;
static uint64_t next_rand()
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static std::vector<std::string> split(const char *s)
{
    std::vector<std::string> out;
    std::string cur;
    for (const char *p = s;; p++) {
        if (*p == ',' || !*p) {
            if (!cur.empty())
                out.push_back(cur);
            cur.clear();
            if (!*p)
                break;
        } else {
            cur += *p;
        }
    }
    return out;
}

static double median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

int main(int argc, char **argv)
{
    unsigned log_n = 16, bits = 60;
    int samples = 200, check_only = 0;
    std::vector<std::string> variants = {"gpu-radix2", "gpu-smem", "gpu-regs", "gpu-regs-alt"};
    std::vector<size_t> limbs_list = {1, 8, 32, 64};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--logn"))
            log_n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--bits"))
            bits = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--check-only")) /* verify only (for sanitizers, ncu) */
            check_only = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--samples"))
            samples = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--variant"))
            variants = split(argv[i + 1]);
        else if (!strcmp(argv[i], "--limbs")) {
            limbs_list.clear();
            for (auto &s : split(argv[i + 1]))
                limbs_list.push_back(strtoul(s.c_str(), NULL, 10));
        }
    }
    NK(nb_ntt_variant_register(&probe_variant_gpu_regs_alt));
    NK(nb_ntt_variant_register(&probe_variant_gpu_regs_nopdl));
    NK(nb_ntt_variant_register(&probe_variant_gpu_regs_r64));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const long long spin_cycles = (long long)clock_khz * 40 / 1000; /* ~40 us */

    /* scratch for L2 eviction and copy bandwidth: 256 MiB */
    const size_t scratch_bytes = (size_t)256 << 20;
    uint4 *scratch, *scratch2;
    CK(cudaMalloc(&scratch, scratch_bytes));
    CK(cudaMalloc(&scratch2, scratch_bytes));
    std::vector<float> cp;
    for (int i = 0; i < 20; i++) {
        CK(cudaEventRecord(e0, st));
        CK(cudaMemcpyAsync(scratch2, scratch, scratch_bytes, cudaMemcpyDeviceToDevice, st));
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        cp.push_back(ms);
    }
    const double copy_bw = 2.0 * scratch_bytes / (median(cp) * 1e-3); /* read + write */
    printf("# device %s, %d SMs, L2 %d MiB, SM clock %d MHz; copy bandwidth (256 MiB D2D, "
           "read+write) %.0f GB/s\n",
           prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, clock_khz / 1000,
           copy_bw / 1e9);
    printf("# log_n=%u bits=%u samples=%d; times are medians in us (probe, CUDA events)\n", log_n,
           bits, samples);
    printf("%-14s %4s %4s | %9s %9s | %9s %9s | %s\n", "variant", "L", "dir", "warm_us",
           "cold_us", "warm_%bw", "cold_%bw", "cold floor_us(bytes)");

    const size_t n = (size_t)1 << log_n;
    const nb_ntt_variant *cpu = nb_ntt_variant_find("cpu-harvey");
    for (const auto &vname : variants) {
        const nb_ntt_variant *v = nb_ntt_variant_find(vname.c_str());
        if (!v) {
            printf("%-14s not found\n", vname.c_str());
            continue;
        }
        for (size_t L : limbs_list) {
            std::vector<uint64_t> q(L);
            NK(nb_primes_generate(log_n, bits, L, NULL, 0, q.data()));
            nb_ntt *g, *c;
            NK(nb_ntt_create(&g, v, log_n, q.data(), NULL, L, st));
            NK(nb_ntt_create(&c, cpu, log_n, q.data(), NULL, L, NULL));
            const size_t words = L * n;
            std::vector<uint64_t> a(words), want(words), got(words);
            for (size_t i = 0; i < words; i++)
                a[i] = next_rand() % q[i / n];
            uint64_t *d;
            CK(cudaMalloc(&d, words * 8));
            /* verify: forward then inverse, bit-exact with the CPU backend */
            bool ok = true;
            for (int dir = 0; dir < 2 && ok; dir++) {
                want = a;
                NK(dir ? nb_ntt_inverse(c, want.data(), 0, L, NULL)
                       : nb_ntt_forward(c, want.data(), 0, L, NULL));
                CK(cudaMemcpyAsync(d, a.data(), words * 8, cudaMemcpyHostToDevice, st));
                NK(dir ? nb_ntt_inverse(g, d, 0, L, st) : nb_ntt_forward(g, d, 0, L, st));
                CK(cudaMemcpyAsync(got.data(), d, words * 8, cudaMemcpyDeviceToHost, st));
                CK(cudaStreamSynchronize(st));
                if (got != want) {
                    printf("%-14s %4zu %4s VERIFY FAILED\n", vname.c_str(), L, dir ? "inv" : "fwd");
                    ok = false;
                }
            }
            if (ok && check_only)
                printf("%-14s %4zu verified forward and inverse\n", vname.c_str(), L);
            CK(cudaMemcpyAsync(d, a.data(), words * 8, cudaMemcpyHostToDevice, st));
            for (int dir = 0; dir < 2 && ok && !check_only; dir++) {
                double med[2];
                for (int cold = 0; cold < 2; cold++) {
                    std::vector<float> t;
                    for (int s = 0; s < samples + 3; s++) {
                        if (cold)
                            scribble<<<4 * prop.multiProcessorCount, 512, 0, st>>>(
                                scratch, scratch_bytes / 16, (unsigned)s);
                        spin<<<1, 1, 0, st>>>(spin_cycles);
                        CK(cudaEventRecord(e0, st));
                        NK(dir ? nb_ntt_inverse(g, d, 0, L, st) : nb_ntt_forward(g, d, 0, L, st));
                        CK(cudaEventRecord(e1, st));
                        CK(cudaEventSynchronize(e1));
                        float ms;
                        CK(cudaEventElapsedTime(&ms, e0, e1));
                        if (s >= 3)
                            t.push_back(ms * 1000.f);
                    }
                    med[cold] = median(t);
                }
                const double bytes = 2.0 * 8 * words;
                printf("%-14s %4zu %4s | %9.2f %9.2f | %8.1f%% %8.1f%% | %.2f\n", vname.c_str(), L,
                       dir ? "inv" : "fwd", med[0], med[1], 100 * bytes / (med[0] * 1e-6) / copy_bw,
                       100 * bytes / (med[1] * 1e-6) / copy_bw, bytes / copy_bw * 1e6);
                fflush(stdout);
            }
            CK(cudaFree(d));
            nb_ntt_destroy(g);
            nb_ntt_destroy(c);
        }
    }
    CK(cudaFree(scratch));
    CK(cudaFree(scratch2));
    return 0;
}

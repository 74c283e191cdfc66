/* The cache planner (a cache state in, a launch schedule out): how many
 * buffer sets to rotate through, whether to flush, which set each launch
 * uses, and a check, by simulating that exact schedule, that no launch can
 * find its data still in the cache. Also the cache sizes it plans against. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/timing/internal.h"
#include "bench/timing/plan.h"

#ifdef NB_HAVE_CUDA
#include "core/cuda_check.h"
#endif

#define MAX_SETS ((size_t)1 << 22)

size_t nb_cache_plan_set(const nb_cache_plan *p, size_t sample, size_t k)
{
    switch (p->mode) {
    case NB_MODE_PER_LAUNCH: return sample % p->sets;
    case NB_MODE_BATCH: return (sample * p->launches + k) % p->sets;
    case NB_MODE_GRAPH: return ((sample % p->graphs) * p->launches + k) % p->sets;
    }
    return 0;
}

/* Fenwick tree over launch positions: a 1 at the position of each set's most
 * recent use, so "distinct sets used strictly between t0 and t1" is a range sum. */
static void bit_add(int *bit, size_t n, size_t i, int v)
{
    for (i++; i <= n; i += i & (~i + 1))
        bit[i - 1] += v;
}

static long bit_prefix(const int *bit, size_t i) /* sum over [0, i) */
{
    long s = 0;
    for (; i > 0; i -= i & (~i + 1))
        s += bit[i - 1];
    return s;
}

static size_t gcd(size_t a, size_t b)
{
    while (b) {
        size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

nb_status nb_cache_plan_check(nb_cache_plan *p)
{
    if (!p || p->sets == 0 || p->launches == 0 || p->graphs == 0 || p->footprint == 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "cache plan: empty plan");
    size_t cycle; /* samples after which the schedule repeats */
    switch (p->mode) {
    case NB_MODE_PER_LAUNCH: cycle = p->sets; break;
    case NB_MODE_BATCH: cycle = p->sets / gcd(p->sets, p->launches); break;
    default: cycle = p->graphs; break;
    }
    const size_t samples = 2 * cycle + 1;
    const size_t total = samples * p->launches;
    if (total > ((size_t)1 << 26))
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "cache plan: %zu sets x %zu launches is too large to schedule",
                            p->sets, p->launches);
    int *bit = calloc(total, sizeof *bit);
    size_t *last = malloc(p->sets * sizeof *last);
    if (!bit || !last) {
        free(bit);
        free(last);
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "cache plan: out of memory");
    }
    const size_t never = (size_t)-1;
    for (size_t s = 0; s < p->sets; s++)
        last[s] = never;
    double reuse = INFINITY, first_reuse = INFINITY;
    size_t bad_sample = 0, bad_k = 0;
    double bad_bytes = INFINITY;
    size_t t = 0;
    for (size_t i = 0; i < samples; i++) {
        const size_t sample_start = t;
        for (size_t k = 0; k < p->launches; k++, t++) {
            size_t s = nb_cache_plan_set(p, i, k);
            size_t t0 = last[s];
            /* the data is cold if never used, or last used before a flush */
            int cold = t0 == never || (p->flush && t0 < sample_start);
            if (!cold) {
                long distinct = bit_prefix(bit, t) - bit_prefix(bit, t0 + 1);
                double bytes = (double)(distinct + 1) * (double)p->footprint;
                if (bytes < reuse)
                    reuse = bytes;
                if (k == 0 && bytes < first_reuse)
                    first_reuse = bytes;
                if (bytes < bad_bytes) {
                    bad_bytes = bytes;
                    bad_sample = i;
                    bad_k = k;
                }
            }
            if (t0 != never)
                bit_add(bit, total, t0, -1);
            bit_add(bit, total, t, +1);
            last[s] = t;
        }
    }
    free(bit);
    free(last);
    p->reuse_bytes = reuse;
    p->first_reuse_bytes = first_reuse;
    if (p->cache == NB_CACHE_WARM)
        return NB_OK;
    if (bad_bytes < (double)p->cache_bytes)
        return nb_set_error(
            NB_ERR_INVALID_ARG,
            "cold plan is not cold: launch %zu of sample %zu (%s mode, %zu sets, %zu graphs%s) "
            "reuses data after only %.3g MB were touched, less than the %.3g MB cache; use more "
            "sets (--sets) or --cold rotate/both",
            bad_k + 1, bad_sample, nb_mode_name(p->mode), p->sets, p->graphs,
            p->flush ? ", flushed per sample" : "", bad_bytes / 1e6, p->cache_bytes / 1e6);
    return NB_OK;
}

nb_status nb_cache_plan_make(nb_cache_plan *p, nb_cache_state cache, nb_mode mode,
                             size_t batch, size_t footprint, size_t cache_bytes,
                             size_t requested_sets, double factor)
{
    if (!p)
        return nb_set_error(NB_ERR_INVALID_ARG, "cache plan: NULL argument");
    memset(p, 0, sizeof *p);
    if (footprint == 0 || cache_bytes == 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "cache plan: zero footprint or cache size");
    if (mode != NB_MODE_PER_LAUNCH && batch == 0)
        return nb_set_error(NB_ERR_INVALID_ARG, "cache plan: --batch must be >= 1");
    if (cache < NB_CACHE_WARM || cache > NB_CACHE_COLD)
        return nb_set_error(NB_ERR_INVALID_ARG, "cache plan: unknown cache state %d", (int)cache);
    if (!(factor >= 1.0))
        return nb_set_error(NB_ERR_INVALID_ARG, "cache plan: rotation factor must be >= 1");
    p->cache = cache;
    p->mode = mode;
    p->launches = mode == NB_MODE_PER_LAUNCH ? 1 : batch;
    p->footprint = footprint;
    p->cache_bytes = cache_bytes;
    p->sets = 1;
    p->graphs = 1;
    if (cache != NB_CACHE_WARM) {
        p->flush = (cache & NB_CACHE_EVICTED) != 0;
        if (cache & NB_CACHE_ROTATED) {
            if (requested_sets)
                p->sets = requested_sets;
            else
                p->sets = (size_t)ceil(factor * (double)cache_bytes / (double)footprint);
            if (p->sets < 1)
                p->sets = 1;
        }
        if (mode == NB_MODE_GRAPH && p->sets > 1) {
            p->sets = (p->sets + p->launches - 1) / p->launches * p->launches;
            p->graphs = p->sets / p->launches;
        }
        if (p->sets > MAX_SETS)
            return nb_set_error(NB_ERR_INVALID_ARG,
                                "cache plan: %zu buffer sets of %zu bytes exceed the limit %zu",
                                p->sets, footprint, MAX_SETS);
    }
    p->allocated_bytes = (double)p->sets * (double)footprint;
    return nb_cache_plan_check(p);
}

/* ------------------------------------------------------------ cache sizes */

static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return 0;
    if (*end == 'K' || *end == 'k')
        v <<= 10;
    else if (*end == 'M' || *end == 'm')
        v <<= 20;
    else if (*end == 'G' || *end == 'g')
        v <<= 30;
    return (size_t)v;
}

/* Largest unified/data cache level visible to cpu0 in sysfs; 0 if none. */
static size_t llc_sysfs(void)
{
    size_t best = 0;
    int best_level = 0;
    for (int i = 0; i < 16; i++) {
        char path[128], buf[64];
        int level = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f)
            break;
        if (fscanf(f, "%d", &level) != 1)
            level = 0;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        f = fopen(path, "r");
        if (!f || !fgets(buf, sizeof buf, f)) {
            if (f)
                fclose(f);
            continue;
        }
        fclose(f);
        if (strncmp(buf, "Instruction", 11) == 0)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        f = fopen(path, "r");
        if (!f || !fgets(buf, sizeof buf, f)) {
            if (f)
                fclose(f);
            continue;
        }
        fclose(f);
        size_t sz = parse_size(buf);
        if (level > best_level && sz > 0) {
            best_level = level;
            best = sz;
        }
    }
    return best;
}

nb_status nb_host_llc_env(size_t *bytes)
{
    if (!bytes)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_host_llc_env: NULL argument");
    const char *e = getenv("NB_HOST_LLC_BYTES");
    *bytes = 0;
    if (!e || !*e)
        return NB_OK;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(e, &end, 10);
    const int leading_zero = e[0] == '0' && end > e + 1;
    int shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (end == e || !isdigit((unsigned char)e[0]) || leading_zero || *end || errno ||
        v > ((1ull << 40) >> shift) || (v << shift) < (1ull << 20))
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "NB_HOST_LLC_BYTES='%s': expected the host's last-level cache "
                            "size in bytes, with an optional K, M or G suffix, from 1M to 1024G "
                            "(no leading zero)",
                            e);
    *bytes = (size_t)(v << shift);
    return NB_OK;
}

size_t nb_host_llc_bytes(const char **source)
{
    size_t b = 0;
    if (nb_host_llc_env(&b) == NB_OK && b) {
        if (source)
            *source = "NB_HOST_LLC_BYTES";
        return b;
    }
    return nb_host_llc_detected(source);
}

size_t nb_host_llc_detected(const char **source)
{
    size_t b = llc_sysfs();
    if (b) {
        if (source)
            *source = "sysfs";
        return b;
    }
#ifdef _SC_LEVEL3_CACHE_SIZE
    long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (v <= 0)
        v = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (v > 0) {
        if (source)
            *source = "sysconf";
        return (size_t)v;
    }
#endif
    if (source)
        *source = "assumed";
    return (size_t)32 << 20;
}

nb_status nb_cache_bytes(nb_backend backend, size_t *bytes)
{
    if (!bytes)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_cache_bytes: NULL argument");
    if (backend != NB_BACKEND_CPU && backend != NB_BACKEND_GPU)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_cache_bytes: unknown backend %d", (int)backend);
    if (backend == NB_BACKEND_CPU) {
        NB_TRY(nb_host_llc_env(bytes));
        *bytes = nb_host_llc_bytes(NULL);
        return NB_OK;
    }
    NB_TRY(nb_gpu_require());
#ifdef NB_HAVE_CUDA
    int dev = 0, l2 = 0;
    NB_CUDA_TRY(cudaGetDevice(&dev));
    NB_CUDA_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    if (l2 <= 0)
        return nb_set_error(NB_ERR_CUDA, "device reports no L2 cache size");
    *bytes = (size_t)l2;
    return NB_OK;
#else
    return nb_set_error(NB_ERR_NO_DEVICE, "built without CUDA");
#endif
}

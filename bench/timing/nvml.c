/* NVML, loaded at run time (dlopen libnvidia-ml.so.1) so that nttbench needs
 * neither NVML headers nor the library: when it is absent every field says
 * "unavailable" and nothing fails. Declares the few NVML entry points it uses
 * with their documented C signatures. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "bench/timing/internal.h"

#ifdef NB_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

typedef int nvml_ret;
typedef struct nvml_device_st *nvml_device;

#define NVML_SUCCESS 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_TEMPERATURE_GPU 0

static struct {
    int tried, ok;
    char why[96];
    void *lib;
    nvml_ret (*init)(void);
    nvml_ret (*by_index)(unsigned, nvml_device *);
    nvml_ret (*by_pci)(const char *, nvml_device *);
    nvml_ret (*clock)(nvml_device, int, unsigned *);
    nvml_ret (*reasons)(nvml_device, unsigned long long *);
    nvml_ret (*temp)(nvml_device, int, unsigned *);
    nvml_ret (*power)(nvml_device, unsigned *);
    nvml_ret (*driver)(char *, unsigned);
    nvml_ret (*ecc)(nvml_device, int *, int *);
    nvml_ret (*count)(unsigned *);
    nvml_ret (*name)(nvml_device, char *, unsigned);
    nvml_ret (*p2p)(nvml_device, nvml_device, int, int *);
    nvml_ret (*ancestor)(nvml_device, nvml_device, int *);
    nvml_ret (*link_state)(nvml_device, unsigned, int *);
    const char *(*err)(nvml_ret);
} nv;

static void *sym(const char *name)
{
    return dlsym(nv.lib, name);
}

static int nvml_open(void)
{
    if (nv.tried)
        return nv.ok;
    nv.tried = 1;
    nv.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nv.lib) {
        snprintf(nv.why, sizeof nv.why, "unavailable: libnvidia-ml.so.1 not found");
        return 0;
    }
    *(void **)&nv.init = sym("nvmlInit_v2");
    *(void **)&nv.by_index = sym("nvmlDeviceGetHandleByIndex_v2");
    *(void **)&nv.by_pci = sym("nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&nv.clock = sym("nvmlDeviceGetClockInfo");
    *(void **)&nv.reasons = sym("nvmlDeviceGetCurrentClocksEventReasons");
    if (!nv.reasons)
        *(void **)&nv.reasons = sym("nvmlDeviceGetCurrentClocksThrottleReasons");
    *(void **)&nv.temp = sym("nvmlDeviceGetTemperature");
    *(void **)&nv.power = sym("nvmlDeviceGetPowerUsage");
    *(void **)&nv.driver = sym("nvmlSystemGetDriverVersion");
    *(void **)&nv.ecc = sym("nvmlDeviceGetEccMode");
    *(void **)&nv.err = sym("nvmlErrorString");
    *(void **)&nv.count = sym("nvmlDeviceGetCount_v2");
    *(void **)&nv.name = sym("nvmlDeviceGetName");
    *(void **)&nv.p2p = sym("nvmlDeviceGetP2PStatus");
    *(void **)&nv.ancestor = sym("nvmlDeviceGetTopologyCommonAncestor");
    *(void **)&nv.link_state = sym("nvmlDeviceGetNvLinkState");
    if (!nv.init || !nv.by_index || !nv.clock) {
        snprintf(nv.why, sizeof nv.why, "unavailable: libnvidia-ml lacks required symbols");
        return 0;
    }
    nvml_ret r = nv.init();
    if (r != NVML_SUCCESS) {
        snprintf(nv.why, sizeof nv.why, "unavailable: nvmlInit failed (%s)",
                 nv.err ? nv.err(r) : "?");
        return 0;
    }
    nv.ok = 1;
    return 1;
}

/* The NVML handle of the calling thread's current CUDA device (matched by
 * PCI bus id), else of NVML's device 0; 0 (and *why) when there is none. */
static int current_device(nvml_device *dev, const char **why)
{
    if (!nvml_open()) {
        *why = nv.why;
        return 0;
    }
#ifdef NB_HAVE_CUDA
    char bus[64];
    int cuda_dev = 0;
    int found = nv.by_pci && cudaGetDevice(&cuda_dev) == cudaSuccess &&
                cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_dev) == cudaSuccess &&
                nv.by_pci(bus, dev) == NVML_SUCCESS;
    (void)cudaGetLastError();
    if (found)
        return 1;
#endif
    if (nv.by_index(0, dev) != NVML_SUCCESS) {
        *why = "unavailable: NVML sees no device";
        return 0;
    }
    return 1;
}

static void decode_reasons(unsigned long long r, char *buf, size_t n)
{
    static const struct {
        unsigned long long bit;
        const char *name;
    } names[] = {{0x1ull, "idle"},
                 {0x2ull, "applications-clocks"},
                 {0x4ull, "sw-power-cap"},
                 {0x8ull, "hw-slowdown"},
                 {0x10ull, "sync-boost"},
                 {0x20ull, "sw-thermal"},
                 {0x40ull, "hw-thermal"},
                 {0x80ull, "hw-power-brake"},
                 {0x100ull, "display-clocks"}};
    buf[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (r & names[i].bit) {
            int k = snprintf(buf + used, n - used, "%s%s", used ? "," : "", names[i].name);
            if (k < 0 || (size_t)k >= n - used)
                break;
            used += (size_t)k;
        }
    if (!used)
        snprintf(buf, n, "none");
}

void nb_nvml_snapshot_take(nb_nvml_snapshot *s)
{
    memset(s, 0, sizeof *s);
    s->temperature_c = -1;
    s->power_w = -1.0;
    nvml_device dev;
    const char *why = NULL;
    if (!current_device(&dev, &why)) {
        snprintf(s->note, sizeof s->note, "%s", why);
        snprintf(s->reasons, sizeof s->reasons, "unavailable");
        return;
    }
    unsigned v = 0;
    int any = 0;
    if (nv.clock(dev, NVML_CLOCK_SM, &v) == NVML_SUCCESS) {
        s->sm_mhz = v;
        any = 1;
    }
    if (nv.clock(dev, NVML_CLOCK_MEM, &v) == NVML_SUCCESS)
        s->mem_mhz = v;
    unsigned long long r = 0;
    if (nv.reasons && nv.reasons(dev, &r) == NVML_SUCCESS) {
        s->event_reasons = r;
        decode_reasons(r, s->reasons, sizeof s->reasons);
    } else {
        snprintf(s->reasons, sizeof s->reasons, "unavailable");
    }
    if (nv.temp && nv.temp(dev, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS)
        s->temperature_c = (int)v;
    if (nv.power && nv.power(dev, &v) == NVML_SUCCESS)
        s->power_w = v / 1000.0;
    s->available = any;
    snprintf(s->note, sizeof s->note, any ? "ok" : "unavailable: NVML clock query failed");
}

void nb_nvml_env(char *driver, size_t driver_len, int *ecc_enabled)
{
    driver[0] = '\0';
    *ecc_enabled = -1;
    nvml_device dev;
    const char *why = NULL;
    if (!current_device(&dev, &why))
        return;
    if (nv.driver && nv.driver(driver, (unsigned)driver_len) != NVML_SUCCESS)
        driver[0] = '\0';
    int cur = 0, pend = 0;
    if (nv.ecc && nv.ecc(dev, &cur, &pend) == NVML_SUCCESS)
        *ecc_enabled = cur != 0;
}

/* nvmlGpuP2PCapsIndex_t NVML_P2P_CAPS_INDEX_NVLINK, nvmlGpuP2PStatus_t OK,
 * NVML_NVLINK_MAX_LINKS, and the nvmlGpuTopologyLevel_t values. */
#define NVML_P2P_NVLINK 2
#define NVML_P2P_OK 0
#define NVML_MAX_LINKS 18

static const char *topology_name(int level)
{
    switch (level) {
    case 0:
        return "same board";
    case 10:
        return "PCIe, one switch";
    case 20:
        return "PCIe, several switches";
    case 30:
        return "PCIe, one host bridge";
    case 40:
        return "PCIe, host bridges of one NUMA node";
    case 50:
        return "PCIe and the CPUs' interconnect (SMP)";
    }
    return "unknown";
}

/* Active NVLinks of dev. */
static unsigned active_links(nvml_device dev)
{
    unsigned n = 0;
    for (unsigned l = 0; nv.link_state && l < NVML_MAX_LINKS; l++) {
        int on = 0;
        if (nv.link_state(dev, l, &on) == NVML_SUCCESS && on)
            n++;
    }
    return n;
}

int nb_nvml_topology(char *out, size_t len)
{
    out[0] = '\0';
    unsigned count = 0;
    if (!nvml_open() || !nv.count || !nv.name || nv.count(&count) != NVML_SUCCESS) {
        snprintf(out, len, "NVML %s", nv.ok ? "cannot list the GPUs" : nv.why);
        return 0;
    }
    size_t used = 0;
#define PUT(...)                                                                     \
    do {                                                                             \
        int w_ = snprintf(out + used, used < len ? len - used : 0, __VA_ARGS__);     \
        used += w_ > 0 ? (size_t)w_ : 0;                                             \
    } while (0)
    nvml_device dev[16];
    const unsigned n = count < 16 ? count : 16;
    for (unsigned i = 0; i < n; i++) {
        char name[96] = "?";
        if (nv.by_index(i, &dev[i]) != NVML_SUCCESS) {
            PUT("%s%u ?", i ? "; " : "", i);
            continue;
        }
        if (nv.name(dev[i], name, sizeof name) != NVML_SUCCESS)
            snprintf(name, sizeof name, "?");
        PUT("%s%u %s (%u NVLinks active)", i ? "; " : "", i, name, active_links(dev[i]));
    }
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = i + 1; j < n; j++) {
            int st = -1, level = -1;
            const int nvlink = nv.p2p && nv.p2p(dev[i], dev[j], NVML_P2P_NVLINK, &st) ==
                                             NVML_SUCCESS && st == NVML_P2P_OK;
            if (!nvlink && nv.ancestor && nv.ancestor(dev[i], dev[j], &level) != NVML_SUCCESS)
                level = -1;
            PUT("; %u-%u %s", i, j, nvlink ? "NVLink" : topology_name(level));
        }
    if (count > n)
        PUT("; %u more not listed", count - n);
#undef PUT
    return (int)count;
}

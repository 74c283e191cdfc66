/* The memory-fit check run before a case allocates (see memfit.h). */
#include "bench/timing/memfit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench/timing/internal.h"
#include "core/device.h"

size_t nb_parse_meminfo_available(const char *text)
{
    const char *p = text ? strstr(text, "MemAvailable:") : NULL;
    if (!p || (p != text && p[-1] != '\n'))
        return 0;
    p += strlen("MemAvailable:");
    char *end;
    unsigned long long kib = strtoull(p, &end, 10);
    if (end == p)
        return 0;
    while (*end == ' ' || *end == '\t')
        end++;
    if (strncmp(end, "kB", 2) != 0 || kib > (unsigned long long)(SIZE_MAX / 1024))
        return 0;
    return (size_t)kib * 1024;
}

/* Bytes the address-space limit (RLIMIT_AS) leaves this process; SIZE_MAX
 * without a limit. */
static size_t rlimit_room(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return SIZE_MAX;
    unsigned long long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%llu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    const unsigned long long used = pages * (unsigned long long)sysconf(_SC_PAGESIZE);
    return used < rl.rlim_cur ? (size_t)(rl.rlim_cur - used) : 0;
}

size_t nb_host_mem_available(void)
{
    char *text = nb_read_text_file("/proc/meminfo");
    size_t avail = nb_parse_meminfo_available(text);
    free(text);
    long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (!avail && pages > 0 && psz > 0)
        avail = (size_t)pages * (size_t)psz;
    const size_t room = rlimit_room();
    return avail && room < avail ? (room ? room : 1) : avail;
}

nb_status nb_memory_fit(const char *what, double host_bytes, double device_bytes)
{
    const double gib = 1073741824.0;
    const double host = (double)nb_host_mem_available();
    if (host > 0 && host_bytes > host)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "%s needs %.1f GiB (%.0f bytes) of host memory, %.1f GiB available",
                            what, host_bytes / gib, host_bytes, host / gib);
    if (device_bytes <= 0)
        return NB_OK;
    size_t free_b = 0, total_b = 0;
    if (nb_gpu_mem_info(&free_b, &total_b) != NB_OK)
        return NB_OK; /* no device: the case fails later with the reason */
    if (device_bytes > (double)free_b)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "%s needs %.1f GiB (%.0f bytes) of GPU memory, %.1f GiB free of "
                            "%.1f GiB",
                            what, device_bytes / gib, device_bytes, free_b / gib, total_b / gib);
    return NB_OK;
}

/* CUPTI opened at run time (bench/timing/cupti_load.h says where it is
 * looked for): the candidates in order, the entry points by name, the API
 * version against the headers the build used. */
#include "bench/timing/cupti_load.h"

#if defined(NB_HAVE_CUPTI) && defined(NB_HAVE_CUDA)
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef NB_CUPTI_LIBDIR
#define NB_CUPTI_LIBDIR ""
#endif

/* CUDA 13 on: xxyyzz, xx the toolkit's major (the soname's); before: a count. */
#define API_MAJOR(v) ((v) >= 130000 ? (v) / 10000 : 0)

static const struct {
    const char *name;
    size_t offset;
} entries[] = {
    {"cuptiGetResultString", offsetof(nb_cupti_api, get_result_string)},
    {"cuptiGetVersion", offsetof(nb_cupti_api, get_version)},
    {"cuptiGetTimestamp", offsetof(nb_cupti_api, get_timestamp)},
    {"cuptiActivityEnable", offsetof(nb_cupti_api, activity_enable)},
    {"cuptiActivityDisable", offsetof(nb_cupti_api, activity_disable)},
    {"cuptiActivityRegisterCallbacks", offsetof(nb_cupti_api, activity_register_callbacks)},
    {"cuptiActivityGetNextRecord", offsetof(nb_cupti_api, activity_get_next_record)},
    {"cuptiActivityFlushAll", offsetof(nb_cupti_api, activity_flush_all)},
    {"cuptiActivityPushExternalCorrelationId",
     offsetof(nb_cupti_api, activity_push_external_correlation_id)},
    {"cuptiActivityPopExternalCorrelationId",
     offsetof(nb_cupti_api, activity_pop_external_correlation_id)},
    {"cuptiFinalize", offsetof(nb_cupti_api, finalize)},
};
#define N_ENTRIES (sizeof entries / sizeof entries[0])

static char soname[32];
static pthread_once_t soname_once = PTHREAD_ONCE_INIT;

static void name_soname(void)
{
    if (API_MAJOR(CUPTI_API_VERSION))
        snprintf(soname, sizeof soname, "libcupti.so.%d", API_MAJOR(CUPTI_API_VERSION));
    else
        snprintf(soname, sizeof soname, "libcupti.so");
}

const char *nb_cupti_soname(void)
{
    pthread_once(&soname_once, name_soname);
    return soname;
}

/* Fills *api from the open library h; NB_ERR_UNSUPPORTED naming what is
 * missing or the version that does not match. */
static nb_status resolve(void *h, nb_cupti_api *api)
{
    for (size_t i = 0; i < N_ENTRIES; i++) {
        void *f = dlsym(h, entries[i].name);
        if (!f)
            return nb_set_error(NB_ERR_UNSUPPORTED, "CUPTI: %s lacks %s; set NB_CUPTI_LIBRARY "
                                "to the path of %s", api->path, entries[i].name,
                                nb_cupti_soname());
        memcpy((char *)api + entries[i].offset, &f, sizeof f);
    }
    if (api->get_version(&api->version) != CUPTI_SUCCESS)
        api->version = 0;
    if (API_MAJOR(api->version) != API_MAJOR(CUPTI_API_VERSION) ||
        (API_MAJOR(CUPTI_API_VERSION) == 0 && api->version < CUPTI_API_VERSION))
        return nb_set_error(NB_ERR_UNSUPPORTED, "CUPTI: %s is API version %u, nttbench was "
                            "built with the headers of %u; set NB_CUPTI_LIBRARY to the path of "
                            "%s", api->path, (unsigned)api->version,
                            (unsigned)CUPTI_API_VERSION, nb_cupti_soname());
    return NB_OK;
}

nb_status nb_cupti_open(const char *const *paths, size_t n, nb_cupti_api *api)
{
    memset(api, 0, sizeof *api);
    char tried[768] = "", why[256] = "";
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        const char *p = paths[i];
        if (!p || !*p)
            continue;
        void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
        if (h) {
            snprintf(api->path, sizeof api->path, "%s", p);
            const nb_status s = resolve(h, api);
            if (s != NB_OK) {
                dlclose(h);
                memset(api, 0, sizeof *api);
            }
            return s;
        }
        const int is_file = strchr(p, '/') != NULL;
        if (is_file && access(p, F_OK) == 0) {
            const char *e = dlerror();
            snprintf(why, sizeof why, " (%s)", e ? e : "dlopen failed");
        }
        if (len < sizeof tried)
            len += (size_t)snprintf(tried + len, sizeof tried - len, "%s%s%s", len ? ", " : "",
                                    p, is_file ? "" : " (the loader's path)");
    }
    return nb_set_error(NB_ERR_UNSUPPORTED, "CUPTI not found: tried %s%s; set NB_CUPTI_LIBRARY "
                        "to the path of %s", len ? tried : "nothing", why, nb_cupti_soname());
}

static nb_cupti_api api;
static int loaded; /* 1 ok, -1 failed */
static char load_why[512];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void)
{
    const char *env = getenv("NB_CUPTI_LIBRARY");
    char built[300];
    snprintf(built, sizeof built, "%s/%s", NB_CUPTI_LIBDIR, nb_cupti_soname());
    const char *from_env[] = {env};
    const char *searched[] = {nb_cupti_soname(), "libcupti.so", *NB_CUPTI_LIBDIR ? built : NULL};
    nb_status s;
    if (env && *env)
        s = nb_cupti_open(from_env, 1, &api);
    else
        s = nb_cupti_open(searched, 3, &api);
    if (s != NB_OK)
        snprintf(load_why, sizeof load_why, "%s", nb_last_error());
    loaded = s == NB_OK ? 1 : -1;
}

const nb_cupti_api *nb_cupti_load(void)
{
    pthread_once(&load_once, load);
    if (loaded == 1)
        return &api;
    nb_set_error(NB_ERR_UNSUPPORTED, "%s", load_why);
    return NULL;
}
#endif

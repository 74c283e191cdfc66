/* NCCL loaded at run time (ckks/nccl.h says where it is looked for), the
 * choice between its collectives for the several-GPU exchanges, and the
 * check of their settings (nb_ckks_check_env, ckks/ckks.h). */
#include "ckks/nccl.h"
#include "ckks/ckks.h"

#include <stdlib.h>
#include <string.h>

/* The kind NB_NCCL_EXCHANGE's value e names: -1 for unset, empty or "auto"
 * (the rule's), -2 with the message set for a value that names none. */
static int exchange_named(const char *e)
{
    static const struct {
        const char *name;
        nb_nccl_exchange kind;
    } kinds[] = {{"broadcast", NB_NCCL_BROADCAST},
                 {"send-recv", NB_NCCL_SEND_RECV},
                 {"mixed", NB_NCCL_MIXED},
                 {"copy-engine", NB_NCCL_COPY_ENGINE}};
    if (!e || !*e || !strcmp(e, "auto"))
        return -1;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(e, kinds[i].name))
            return (int)kinds[i].kind;
    nb_set_error(NB_ERR_INVALID_ARG, "NB_NCCL_EXCHANGE='%s': expected 'auto', 'broadcast', "
                 "'send-recv', 'mixed' or 'copy-engine'", e);
    return -2;
}

#ifdef NB_HAVE_NCCL
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#ifndef NB_NCCL_LIBDIR
#define NB_NCCL_LIBDIR ""
#endif

static nb_nccl_api api;
static int loaded; /* 1 ok, -1 failed */
static char why[768];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *open_at(const char *path)
{
    void *h = path && *path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (h)
        snprintf(api.path, sizeof api.path, "%s", path);
    return h;
}

static void load(void)
{
    char built[300];
    snprintf(built, sizeof built, "%s%slibnccl.so.2", NB_NCCL_LIBDIR,
             *NB_NCCL_LIBDIR ? "/" : "");
    void *h = open_at(getenv("NB_NCCL_LIBRARY"));
    if (!h)
        h = open_at("libnccl.so.2");
    if (!h && *NB_NCCL_LIBDIR)
        h = open_at(built);
    if (!h) {
        snprintf(why, sizeof why,
                 "NCCL (libnccl.so.2) not found: set NB_NCCL_LIBRARY to its path or add its "
                 "directory to LD_LIBRARY_PATH (looked in the loader's path%s%s)",
                 *NB_NCCL_LIBDIR ? " and " : "", NB_NCCL_LIBDIR);
        loaded = -1;
        return;
    }
    *(void **)&api.comm_init_all = dlsym(h, "ncclCommInitAll");
    *(void **)&api.comm_destroy = dlsym(h, "ncclCommDestroy");
    *(void **)&api.group_start = dlsym(h, "ncclGroupStart");
    *(void **)&api.group_end = dlsym(h, "ncclGroupEnd");
    *(void **)&api.broadcast = dlsym(h, "ncclBroadcast");
    *(void **)&api.get_version = dlsym(h, "ncclGetVersion");
    *(void **)&api.error_string = dlsym(h, "ncclGetErrorString");
    if (!api.comm_init_all || !api.comm_destroy || !api.group_start || !api.group_end ||
        !api.broadcast || !api.get_version || !api.error_string) {
        snprintf(why, sizeof why, "%s lacks an NCCL entry point nttbench needs", api.path);
        dlclose(h);
        loaded = -1;
        return;
    }
    *(void **)&api.all_gather = dlsym(h, "ncclAllGather");
    *(void **)&api.send = dlsym(h, "ncclSend");
    *(void **)&api.recv = dlsym(h, "ncclRecv");
#ifdef NB_NCCL_HAS_CE
    *(void **)&api.get_unique_id = dlsym(h, "ncclGetUniqueId");
    *(void **)&api.comm_init_rank_config = dlsym(h, "ncclCommInitRankConfig");
    *(void **)&api.mem_alloc = dlsym(h, "ncclMemAlloc");
    *(void **)&api.mem_free = dlsym(h, "ncclMemFree");
    *(void **)&api.window_register = dlsym(h, "ncclCommWindowRegister");
    *(void **)&api.window_deregister = dlsym(h, "ncclCommWindowDeregister");
    int version = 0;
    api.copy_engine = api.get_unique_id && api.comm_init_rank_config && api.mem_alloc &&
                      api.mem_free && api.window_register && api.window_deregister &&
                      api.all_gather && api.get_version(&version) == ncclSuccess &&
                      version >= NCCL_VERSION(2, 28, 0);
#endif
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    (void)nb_nccl_tuner_arm();
    loaded = 1;
}

const nb_nccl_api *nb_nccl_load(void)
{
    pthread_once(&once, load);
    if (loaded == 1)
        return &api;
    nb_set_error(NB_ERR_UNSUPPORTED, "%s", why);
    return NULL;
}

nb_status nb_nccl_check(const nb_nccl_api *a, ncclResult_t r, const char *what)
{
    if (r == ncclSuccess)
        return NB_OK;
    return nb_set_error(NB_ERR_CUDA, "NCCL: %s failed: %s", what,
                        a && a->error_string ? a->error_string(r) : "unknown error");
}

nb_status nb_nccl_exchange_kind(const nb_nccl_api *a, nb_nccl_exchange dflt,
                                nb_nccl_exchange *kind)
{
    *kind = NB_NCCL_BROADCAST;
    const char *e = getenv("NB_NCCL_EXCHANGE");
    const int named = exchange_named(e), p2p = a->send && a->recv;
    if (named == -2)
        return NB_ERR_INVALID_ARG;
    if (named == -1) {
        if (p2p || (dflt != NB_NCCL_SEND_RECV && dflt != NB_NCCL_MIXED))
            *kind = dflt;
        return NB_OK;
    }
    if (named == NB_NCCL_BROADCAST)
        return NB_OK;
    int v = 0;
    if (named == NB_NCCL_SEND_RECV || named == NB_NCCL_MIXED) {
        if (!p2p)
            return nb_set_error(NB_ERR_UNSUPPORTED,
                                "NB_NCCL_EXCHANGE=%s: %s has no ncclSend/ncclRecv (%d)", e,
                                a->path, a->get_version(&v) == ncclSuccess ? v : 0);
        *kind = (nb_nccl_exchange)named;
        return NB_OK;
    }
#ifndef NB_NCCL_HAS_CE
    return nb_set_error(NB_ERR_UNSUPPORTED,
                        "NB_NCCL_EXCHANGE=copy-engine: this build's nccl.h (%d) has no "
                        "copy-engine collectives (NCCL 2.28 or later)",
                        (int)NCCL_VERSION_CODE);
#endif
    if (!a->copy_engine)
        return nb_set_error(NB_ERR_UNSUPPORTED,
                            "NB_NCCL_EXCHANGE=copy-engine needs NCCL 2.28 or later with "
                            "ncclCommWindowRegister; %s is %d",
                            a->path, a->get_version(&v) == ncclSuccess ? v : 0);
    *kind = NB_NCCL_COPY_ENGINE;
    return NB_OK;
}
#endif

nb_status nb_ckks_check_env(void)
{
    if (exchange_named(getenv("NB_NCCL_EXCHANGE")) == -2)
        return NB_ERR_INVALID_ARG;
    return nb_nccl_tuner_check_env();
}

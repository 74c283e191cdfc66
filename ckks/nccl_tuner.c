/* nttbench's NCCL tuner: which protocol NCCL runs the several-GPU
 * pipelines' broadcasts with (docs/ckks.md, "NCCL's protocol").
 *
 * NCCL prices every algorithm and protocol a collective may run with from
 * its model of the host and runs the cheapest; a tuner plugin sees that
 * table of prices for each collective and may change it. This tuner marks
 * one entry as free, the Ring algorithm with the LL128 protocol, for
 * broadcasts of at least NB_NCCL_LL128_MIN_BYTES, and only where NCCL has
 * priced it: an entry NCCL leaves at -1 is a protocol it did not enable on
 * that path (LL128 needs 128-byte stores that arrive in order) or that
 * NCCL_PROTO excludes, and stays so. Everything else keeps NCCL's choice.
 * Measured in place, beside the pipelines' kernels, LL128 moves the key
 * switch's exchanges of megabytes faster than the Simple protocol NCCL's
 * model prefers for them, while LL, its choice below, stays the fastest for
 * rescale's half-megabyte broadcast (docs/results.md).
 *
 * NCCL opens the library named by NCCL_TUNER_PLUGIN and looks in it for an
 * object of its tuner interface, version 4 (NCCL 2.28.9 loads that
 * version), under the name ncclTunerPlugin_v4: libnttbench exports it under
 * that name (NCCL's, so without the nb_ prefix), and nb_nccl_tuner_arm points
 * NCCL_TUNER_PLUGIN at libnttbench itself. */
#include "ckks/nccl.h"

#include <stdlib.h>
#include <string.h>

#ifdef NB_HAVE_NCCL
#include <dlfcn.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>

/* Indices of NCCL's cost table and collective types (its plugin ABI). */
#define FUNC_BROADCAST 0
#define ALGO_RING 1
#define PROTO_LL128 1

static atomic_ulong inits;
static char armed[PATH_MAX]; /* the NCCL_TUNER_PLUGIN value nb_nccl_tuner_arm set, or "" */

static ncclResult_t tuner_init(size_t n_ranks, size_t n_nodes, nb_nccl_logger log, void **ctx)
{
    (void)n_ranks, (void)n_nodes, (void)log;
    *ctx = NULL;
    atomic_fetch_add(&inits, 1);
    return ncclSuccess;
}

/* NCCL's table is float[n_algo][n_proto] passed as float **; a price below
 * 0 marks a combination NCCL will not run. Leaves the channel count to NCCL. */
static ncclResult_t tuner_coll_info(void *ctx, int coll, size_t bytes, int pipe_ops, float **cost,
                                    int n_algo, int n_proto, int reg_buff, int *n_channels)
{
    (void)ctx, (void)pipe_ops, (void)reg_buff, (void)n_channels;
    if (coll != FUNC_BROADCAST || bytes < NB_NCCL_LL128_MIN_BYTES || !cost ||
        n_algo <= ALGO_RING || n_proto <= PROTO_LL128)
        return ncclSuccess;
    float *at = (float *)cost + ALGO_RING * n_proto + PROTO_LL128;
    if (*at >= 0.0f)
        *at = 0.0f;
    return ncclSuccess;
}

static ncclResult_t tuner_destroy(void *ctx)
{
    (void)ctx;
    return ncclSuccess;
}

const nb_nccl_tuner_v4 ncclTunerPlugin_v4 = {"nttbench", tuner_init, tuner_coll_info,
                                             tuner_destroy};

unsigned long nb_nccl_tuner_inits(void) { return atomic_load(&inits); }

int nb_nccl_tuner_arm(void)
{
    const char *e = getenv("NB_NCCL_TUNER");
    if (getenv("NCCL_TUNER_PLUGIN") || (e && *e && strcmp(e, "ll128")))
        return 0;
    /* the file holding this code (a static function's address is its own:
     * a program that reads ncclTunerPlugin_v4 holds a copy of the object) */
    Dl_info at;
    char path[PATH_MAX];
    if (!dladdr((const void *)(uintptr_t)&tuner_init, &at) || !at.dli_fname ||
        !realpath(at.dli_fname, path))
        return 0;
    /* what NCCL will do with it: a shared library (not a program) holding the tuner */
    void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    const nb_nccl_tuner_v4 *t = h ? dlsym(h, "ncclTunerPlugin_v4") : NULL;
    const int found = t && t->init == tuner_init;
    if (h)
        dlclose(h);
    if (!found || setenv("NCCL_TUNER_PLUGIN", path, 0) != 0)
        return 0;
    memcpy(armed, path, sizeof armed);
    return 1;
}

const char *nb_nccl_tuner_armed(void) { return armed[0] ? armed : NULL; }
#endif

nb_status nb_nccl_tuner_check_env(void)
{
    const char *e = getenv("NB_NCCL_TUNER");
    if (!e || !*e || !strcmp(e, "ll128") || !strcmp(e, "off"))
        return NB_OK;
    return nb_set_error(NB_ERR_INVALID_ARG, "NB_NCCL_TUNER='%s': expected 'll128' or 'off'", e);
}

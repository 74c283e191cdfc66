/* NVTX ranges around cases and tiers, so Nsight Systems timelines are
 * labelled with variant, tier and sizes. The nvtx3 headers (CUDA toolkit) are
 * header-only and cost nothing when no tool is attached; without CUDA these
 * are no-ops. */
#include "bench/timing/env.h"

#ifdef NB_HAVE_CUDA
#include <nvtx3/nvToolsExt.h>
#endif

void nb_nvtx_push(const char *name)
{
#ifdef NB_HAVE_CUDA
    nvtxRangePushA(name ? name : "nttbench");
#else
    (void)name;
#endif
}

void nb_nvtx_pop(void)
{
#ifdef NB_HAVE_CUDA
    nvtxRangePop();
#endif
}

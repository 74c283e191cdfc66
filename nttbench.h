/* Umbrella header for users of libnttbench: the NTT library, the CKKS stages
 * and the benchmark core (with the stage tier). */
#ifndef NTTBENCH_H
#define NTTBENCH_H

#include "core/rng.h"
#include "core/version.h"
#include "ntt/ntt.h"
#include "ntt/kernel_log.h"
#include "ckks/ckks.h"
#include "bench/bench.h"
#include "bench/tiers/stage.h"

#endif

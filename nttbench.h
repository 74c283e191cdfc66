/* Umbrella header for users of libnttbench: the NTT library, the CKKS stages
 * and the benchmark core. */
#ifndef NTTBENCH_H
#define NTTBENCH_H

#include "ntt/ntt.h"
#include "bench/bench.h"

#endif

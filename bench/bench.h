/* bench/ umbrella: the public headers of the timing core, the reports and
 * the tiers. docs/architecture.md maps the folders; docs/methodology.md
 * explains every number; docs/cli.md the JSON schema. The internal headers
 * (bench/timing/stats.h, bench/timing/plan.h, bench/timing/internal.h) are for the
 * library's own files and the tests. */
#ifndef NB_BENCH_H
#define NB_BENCH_H

#include "bench/timing/workload.h"
#include "bench/timing/options.h"
#include "bench/timing/run.h"
#include "bench/timing/trace.h"
#include "bench/timing/env.h"
#include "bench/timing/profile.h"
#include "bench/report/report.h"
#include "bench/tiers/tiers.h"
#include "bench/tiers/ntt.h"
#include "bench/tiers/calibrate.h"

#endif

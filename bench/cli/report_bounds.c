/* The part of `nttbench report` that says what bounds each GPU NTT case:
 * the ceilings and where they come from, the rule, how many cases are
 * compute-, memory-, launch- or latency-bound, then each case with its
 * fractions and, when recorded, its kernels' resources
 * (docs/methodology.md, "Bounds"). */
#include <string.h>

#include "bench/cli/paper.h"
#include "bench/report/bound.h"

int nb_cli_report_bounds(FILE *f, const nb_result_file *rf, const nb_ceilings *override, int md,
                         int *calibrated)
{
    const json_t *root = nb_result_file_json(rf);
    nb_ceilings c;
    if (override)
        c = *override;
    else if (!nb_ceilings_from_report_json(root, &c))
        return 0;
    size_t count[NB_BOUND_LATENCY + 1] = {0}, n = 0, refined = 0;
    for (size_t i = 0; i < nb_result_file_case_count(rf); i++) {
        nb_bound b;
        if (nb_bound_of_case_json(nb_result_file_case(rf, i)->json, &c, &b)) {
            count[b.cls]++;
            n++;
            refined += (size_t)b.refined;
        }
    }
    if (!n)
        return 0;
    *calibrated = c.butterfly_source == NB_CEILING_CALIBRATION &&
                  c.launch_source == NB_CEILING_CALIBRATION && c.copy_source != NB_CEILING_NONE;
    char ceil[512], profiled[256] = "";
    nb_ceilings_text(&c, ceil, sizeof ceil);
    if (refined)
        snprintf(profiled, sizeof profiled, "; a case with a profiler pass takes the class its "
                 "DRAM throughput or issue-slot use names when the larger is at least %.0f %% of "
                 "peak, else latency-bound, unless it is launch-bound",
                 100.0 * NB_BOUND_PROFILE_THRESHOLD);
    fprintf(f, "%s"
               "Each GPU NTT case is set against the device's ceilings (%s%s%s): the floor each "
               "sets on its time (coefficient bytes over the copy bandwidth, butterflies over "
               "the butterfly ceiling of its word size, the launch cost of its kernels) as a "
               "fraction of the measured median. A case is compute-, memory- or launch-bound "
               "when its largest fraction is at least %.0f %%, latency-bound when every fraction "
               "is below%s. Of %zu cases, %zu are compute-bound, %zu memory-bound, %zu "
               "launch-bound and %zu latency-bound.%s\n\n",
            md ? "### Bounds\n\n" : "Bounds\n\n", ceil, c.calibration[0] ? "; calibration " : "",
            c.calibration, 100.0 * NB_BOUND_THRESHOLD,
            profiled,
            n, count[NB_BOUND_COMPUTE],
            count[NB_BOUND_MEMORY], count[NB_BOUND_LAUNCH], count[NB_BOUND_LATENCY],
            *calibrated ? "" : " Ceilings marked default are the H100 calibration's, scaled by "
                               "SMs and clock: measure this device's with nttbench calibrate "
                               "and pass it with --calibration.");
    for (size_t i = 0; i < nb_result_file_case_count(rf); i++) {
        const nb_rf_case *rc = nb_result_file_case(rf, i);
        nb_bound b;
        if (!nb_bound_of_case_json(rc->json, &c, &b))
            continue;
        char bt[160];
        nb_bound_text(&b, bt, sizeof bt);
        fprintf(f, md ? "- `%s %s %s`: %s\n" : "  %s %s %s: %s\n", rc->tier, rc->variant,
                rc->label, bt);
        nb_ntt_kernel k[NB_CASE_MAX_KERNELS];
        const size_t nk = nb_kernels_from_json(rc->json, k, NB_CASE_MAX_KERNELS);
        for (size_t j = 0; j < nk; j++) {
            char kt[320];
            nb_kernel_text(&k[j], kt, sizeof kt);
            fprintf(f, md ? "  - %s\n" : "      %s\n", kt);
        }
    }
    fputc('\n', f);
    return 1;
}

/* libFuzzer harness: the result-file reader behind `compare` and `report`
 * (bench/report/result_file.h) on the input as a file. Properties: no crash
 * or leak; a refused file leaves no handle and a message that names the file;
 * a file that loads has a case count it can enumerate, every case with its
 * strings (tier, variant, key...), readable sample (and per-sample clock)
 * arrays of the stated length, a median that is NaN exactly when the case
 * has no statistics and a time in (0, 1e15] ns otherwise, and a completeness
 * whose message is set exactly when the file is incomplete or interrupted. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/report/result_file.h"

static char path[64];

static void remove_scratch(void) { unlink(path); }

/* The one scratch file of this process, rewritten for every input and
 * removed at exit. */
static const char *scratch(void)
{
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/nb-fuzz-rf-XXXXXX");
        int fd = mkstemp(path);
        if (fd < 0)
            abort();
        close(fd);
        atexit(remove_scratch);
    }
    return path;
}

static void check_case(const nb_rf_case *c)
{
    if (!c || !c->tier || !c->variant || !c->backend || !c->label || !c->status || !c->mode ||
        !c->key || !c->stop_reason || !c->json)
        abort();
    if (c->n_samples && !c->samples_ns)
        abort();
    volatile double sum = 0; /* every stored sample is readable */
    for (size_t i = 0; i < c->n_samples; i++)
        sum += c->samples_ns[i];
    if (c->clock_source == NB_CLOCK_PER_SAMPLE && c->n_samples && !c->clock_mhz)
        abort();
    if (c->clock_source == NB_CLOCK_PER_SAMPLE)
        for (size_t i = 0; i < c->n_samples; i++)
            sum += c->clock_mhz[i];
    if (!c->has_stats != !!isnan(c->median_ns))
        abort();
    if (c->has_stats && !(c->median_ns > 0 && c->median_ns <= NB_RF_MAX_TIME_NS))
        abort();
    (void)nb_clock_source_name(c->clock_source);
    (void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = scratch();
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    nb_result_file *rf = (nb_result_file *)1;
    nb_status s = nb_result_file_load(&rf, path);
    if (s != NB_OK) {
        if (rf || !strstr(nb_last_error(), path))
            abort();
        return 0;
    }
    if (!rf || strcmp(nb_result_file_path(rf), path) != 0 || !nb_result_file_json(rf))
        abort();
    const size_t n = nb_result_file_case_count(rf);
    for (size_t i = 0; i < n; i++)
        check_case(nb_result_file_case(rf, i));
    if (nb_result_file_case(rf, n))
        abort();
    (void)nb_json_path(nb_result_file_env(rf), "host.cpu");
    (void)nb_json_path(nb_result_file_env(rf), "gpu.name");
    (void)nb_result_file_options(rf);
    char why[512];
    const nb_rf_completeness done = nb_result_file_completeness(rf, why, sizeof why);
    const int warned = done == NB_RF_INCOMPLETE || done == NB_RF_INTERRUPTED;
    if (warned != (why[0] != '\0'))
        abort();
    nb_result_file_destroy(rf);
    return 0;
}

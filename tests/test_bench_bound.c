/* The bound of a GPU NTT case (bench/report/bound.c): recorded H100 cases
 * against the recorded H100 calibration get the class and fractions worked
 * out by hand; the threshold, the launch floor's kernel count, unknown
 * ceilings, the defaults and the calibration file; and a report's JSON,
 * table and CSV carry the ceilings, each case's kernels and its bound.
 * argv: DATA-DIR (tests/data). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bench/bench.h"
#include "bench/report/bound.h"
#include "reportutil.h"

static const char *data_dir;

static char *data_path(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", data_dir, name);
    return path;
}

/* The H100 calibration of docs/data/calibrate-h100-words.json. */
static nb_ceilings h100(void)
{
    nb_ceilings c;
    nb_ceilings_default(&c, 0, 0, 0);
    assert_int_equal(nb_ceilings_load(&c, data_path("calibrate-h100-words.json")), NB_OK);
    return c;
}

static const json_t *find_case(const json_t *root, const char *tier, const char *variant,
                               const char *label)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(root, "cases"), i, c)
        if (!strcmp(json_string_value(json_object_get(c, "tier")), tier) &&
            !strcmp(json_string_value(json_object_get(c, "variant")), variant) &&
            !strcmp(json_string_value(json_object_get(c, "label")), label))
            return c;
    fail_msg("no case %s %s %s in the recorded report", tier, variant, label);
    return NULL;
}

/* Guards: a class or a fraction that does not follow from the recorded
 * time and the calibration (the numbers below are worked out by hand:
 * butterflies 2^(logN-1) logN L, bytes 16 N L, launch 3136 ns). */
static void test_recorded_h100_cases_get_their_class(void **state)
{
    (void)state;
    json_error_t err;
    json_t *root = json_load_file(data_path("ntt-h100-bounds.json"), 0, &err);
    assert_non_null(root);
    const nb_ceilings c = h100();
    const struct {
        const char *tier, *variant, *label;
        nb_bound_class cls;
        double bfly, copy, launch;
    } want[] = {
        /* 35651584 butterflies in 68.928 us: 517.2 G/s of 877.1 */
        {"warm", "gpu-fast", "inv logn=17 L=32 q60", NB_BOUND_COMPUTE, 0.5897, 0.3557, 0.0455},
        /* 5.888 us against the 3.136 us of one empty kernel */
        {"warm", "gpu-fast", "fwd logn=12 L=1 q60", NB_BOUND_LAUNCH, 0.0048, 0.0041, 0.5326},
        {"warm", "gpu-smem", "inv logn=17 L=64 q60", NB_BOUND_LATENCY, 0.2695, 0.1626, 0.0104},
        {"cold", "gpu-radix2", "fwd logn=16 L=8 q60", NB_BOUND_LATENCY, 0.0693, 0.0444, 0.0454},
        {"warm", "gpu-regs", "inv logn=17 L=64 q60", NB_BOUND_COMPUTE, 0.5260, 0.3173, 0.0203},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        nb_bound b;
        const json_t *cj = find_case(root, want[i].tier, want[i].variant, want[i].label);
        assert_int_equal(nb_bound_of_case_json(cj, &c, &b), 1);
        if (b.cls != want[i].cls || fabs(b.frac_butterfly - want[i].bfly) > 5e-4 ||
            fabs(b.frac_copy - want[i].copy) > 5e-4 || fabs(b.frac_launch - want[i].launch) > 5e-4)
            fail_msg("%s %s %s: %s %.4f bfly %.4f copy %.4f launch, want %s %.4f %.4f %.4f",
                     want[i].tier, want[i].variant, want[i].label, nb_bound_class_name(b.cls),
                     b.frac_butterfly, b.frac_copy, b.frac_launch,
                     nb_bound_class_name(want[i].cls), want[i].bfly, want[i].copy,
                     want[i].launch);
        assert_int_equal(b.kernel_launches, 1); /* recorded before kernels were: one assumed */
    }
    json_decref(root);
}

/* Ceilings of 1 byte/s, 1 butterfly/s and a 1 s launch make the fractions
 * the bytes, the butterflies and the launch floor over the time. */
static nb_ceilings unit_ceilings(void)
{
    nb_ceilings c;
    memset(&c, 0, sizeof c);
    c.copy_Bps = c.butterflies_per_s = c.butterflies32_per_s = 1.0;
    c.launch_ns = 1e9;
    c.boundary_ns = 0;
    return c;
}

static void test_threshold_separates_bound_from_latency(void **state)
{
    (void)state;
    const nb_ceilings c = unit_ceilings();
    nb_bound b;
    nb_bound_classify(100.0, 49.0, 20.0, 64, 1, &c, &b);
    assert_int_equal(b.cls, NB_BOUND_LATENCY);
    nb_bound_classify(100.0, 51.0, 20.0, 64, 1, &c, &b);
    assert_int_equal(b.cls, NB_BOUND_MEMORY);
    nb_bound_classify(100.0, 51.0, 60.0, 64, 1, &c, &b);
    assert_int_equal(b.cls, NB_BOUND_COMPUTE); /* the largest fraction wins */
    nb_bound_classify(1.5, 0.1, 0.1, 64, 1, &c, &b);
    assert_int_equal(b.cls, NB_BOUND_LAUNCH);
    assert_true(fabs(b.frac_launch - 1 / 1.5) < 1e-12);
}

static void test_launch_floor_counts_every_kernel(void **state)
{
    (void)state;
    nb_ceilings c = unit_ceilings();
    c.launch_ns = 3000;
    c.boundary_ns = 800;
    nb_bound b;
    nb_bound_classify(10e-6, 0, 0, 64, 16, &c, &b); /* gpu-radix2 at log N 16: 16 kernels */
    assert_int_equal(b.kernel_launches, 16);
    assert_true(fabs(b.launch_floor_s - (3000 + 15 * 800) * 1e-9) < 1e-15);
    assert_int_equal(b.cls, NB_BOUND_LAUNCH);
    nb_bound_classify(10e-6, 0, 0, 64, 0, &c, &b); /* not reported: one */
    assert_int_equal(b.kernel_launches, 1);
    assert_true(fabs(b.frac_launch - 0.3) < 1e-12);
}

static void test_word_size_picks_its_butterfly_ceiling(void **state)
{
    (void)state;
    nb_ceilings c = unit_ceilings();
    c.butterflies32_per_s = 3.0;
    nb_bound b64, b32;
    nb_bound_classify(1.0, 0, 0.9, 64, 1, &c, &b64);
    nb_bound_classify(1.0, 0, 0.9, 32, 1, &c, &b32);
    assert_true(fabs(b64.frac_butterfly - 0.9) < 1e-12);
    assert_true(fabs(b32.frac_butterfly - 0.3) < 1e-12);
}

static void test_unknown_ceilings_and_times_are_left_out(void **state)
{
    (void)state;
    nb_ceilings c = unit_ceilings();
    c.butterflies_per_s = 0; /* unknown */
    nb_bound b;
    nb_bound_classify(100.0, 60.0, 90.0, 64, 1, &c, &b);
    assert_true(isnan(b.frac_butterfly));
    assert_int_equal(b.cls, NB_BOUND_MEMORY);
    c.copy_Bps = 0;
    c.launch_ns = 0;
    nb_bound_classify(100.0, 60.0, 90.0, 64, 1, &c, &b);
    assert_int_equal(b.cls, NB_BOUND_UNKNOWN);
    c = unit_ceilings();
    nb_bound_classify(0.0, 60.0, 90.0, 64, 1, &c, &b);
    assert_int_equal(b.cls, NB_BOUND_UNKNOWN);
    nb_bound_classify(NAN, 60.0, 90.0, 64, 1, &c, &b);
    assert_int_equal(b.cls, NB_BOUND_UNKNOWN);
}

static void test_defaults_scale_with_sms_and_clock(void **state)
{
    (void)state;
    nb_ceilings c;
    nb_ceilings_default(&c, 2.7e12, 132, 1980);
    assert_true(fabs(c.butterflies_per_s - 877.1e9) < 1e6);
    assert_true(fabs(c.butterflies32_per_s - 2648.2e9) < 1e6);
    assert_int_equal(c.copy_source, NB_CEILING_RUN);
    assert_int_equal(c.butterfly_source, NB_CEILING_DEFAULT);
    nb_ceilings_default(&c, 0, 66, 990);
    assert_true(fabs(c.butterflies_per_s - 877.1e9 / 4) < 1e6);
    assert_int_equal(c.copy_source, NB_CEILING_NONE);
    assert_true(c.launch_ns > 0 && c.boundary_ns > 0);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_calibration_file_overrides_defaults(void **state)
{
    (void)state;
    const nb_ceilings c = h100();
    assert_true(fabs(c.copy_Bps - 2736938868761.5557) < 1);
    assert_true(fabs(c.butterflies32_per_s - 2648189356347.2905) < 1);
    assert_true(fabs(c.launch_ns - 3135.999897494912) < 1e-6);
    assert_true(fabs(c.boundary_ns - (3936.0001683235173 - 3135.999897494912)) < 1e-6);
    assert_int_equal(c.butterfly_source, NB_CEILING_CALIBRATION);
    assert_string_equal(c.calibration_gpu, "NVIDIA H100 80GB HBM3");
    /* an older calibration without butterflies keeps the defaults there */
    nb_ceilings old;
    nb_ceilings_default(&old, 1e12, 132, 1980);
    assert_int_equal(nb_ceilings_load(&old, data_path("calibrate-h100.json")), NB_OK);
    assert_int_equal(old.butterfly_source, NB_CEILING_DEFAULT);
    assert_int_equal(old.copy_source, NB_CEILING_CALIBRATION);
    char tmp[] = "/tmp/nb-bound-XXXXXX";
    assert_non_null(mkdtemp(tmp));
    char p[64];
    snprintf(p, sizeof p, "%s/cpu.json", tmp);
    write_text(p, "{\"schema\": \"nttbench-calibration\", \"backend\": \"cpu\"}");
    EXPECT_STATUS(nb_ceilings_load(&old, p), NB_ERR_INVALID_ARG);
    write_text(p, "{\"schema\": \"nttbench-calibration\", \"backend\": \"gpu\", "
                  "\"butterflies_per_s\": -1}");
    EXPECT_STATUS(nb_ceilings_load(&old, p), NB_ERR_INVALID_ARG);
    EXPECT_STATUS(nb_ceilings_load(&old, data_path("ntt-h100-bounds.json")), NB_ERR_INVALID_ARG);
    write_text(p, "not json");
    EXPECT_STATUS(nb_ceilings_load(&old, p), NB_ERR_IO);
    remove(p);
    rmdir(tmp);
}

/* A report without a "ceilings" block (recorded before it) is classified
 * against its own GPU's measured copy bandwidth and the defaults. */
static void test_old_reports_use_their_environment(void **state)
{
    (void)state;
    json_error_t err;
    json_t *root = json_load_file(data_path("ntt-h100-small.json"), 0, &err);
    assert_non_null(root);
    nb_ceilings c;
    assert_int_equal(nb_ceilings_from_report_json(root, &c), 1);
    assert_true(fabs(c.copy_Bps - 2783436111000.0) < 1);
    assert_int_equal(c.copy_source, NB_CEILING_RUN);
    assert_true(fabs(c.butterflies_per_s - 877.1e9) < 1e6);
    json_decref(root);
    root = json_load_file(data_path("ntt-cpu-logn.json"), 0, &err);
    assert_non_null(root);
    assert_int_equal(nb_ceilings_from_report_json(root, &c), 0);
    json_decref(root);
}

/* One GPU case of N = 2^16, L = 32 at 40 us with two reported kernels. */
static nb_report *gpu_report(const nb_ceilings *ceil)
{
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    nb_report_set_ceilings(rep, ceil);
    nb_case *c = nb_test_gpu_ntt_case("warm", NB_CACHE_WARM, "gpu-x");
    nb_ntt_kernel k[2];
    memset(k, 0, sizeof k);
    snprintf(k[0].name, sizeof k[0].name, "columns");
    snprintf(k[1].name, sizeof k[1].name, "rows");
    for (int i = 0; i < 2; i++) {
        k[i].block_threads = 128;
        k[i].launches = 1;
        k[i].blocks = 4096;
        k[i].regs = 96 + i;
        k[i].local_bytes = 8 * i;
        k[i].smem_dynamic = 33024;
        k[i].blocks_per_sm = 3;
        k[i].occupancy = 0.1875;
    }
    assert_int_equal(nb_case_set_kernels(c, k, 2, NULL), NB_OK);
    assert_int_equal(nb_report_add_case(rep, c), NB_OK);
    return rep;
}

static void test_report_carries_ceilings_kernels_and_bound(void **state)
{
    (void)state;
    nb_ceilings ceil = unit_ceilings();
    ceil.copy_Bps = 2e12;
    ceil.butterflies_per_s = 1e12;
    ceil.launch_ns = 3000;
    ceil.boundary_ns = 1000;
    nb_report *rep = gpu_report(&ceil);
    char *js = nb_test_report_text(rep, NB_FORMAT_JSON);
    json_error_t err;
    json_t *root = json_loads(js, 0, &err);
    assert_non_null(root);
    const json_t *cj = json_array_get(json_object_get(root, "cases"), 0);
    const json_t *k = json_object_get(cj, "kernels");
    assert_int_equal(json_array_size(k), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(k, 1), "regs")), 97);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(k, 1), "local_bytes")), 8);
    const json_t *b = json_object_get(cj, "bound");
    /* 2^15 * 16 * 32 = 16.8 M butterflies in 40 us: 419 G/s of 1000 */
    assert_string_equal(json_string_value(json_object_get(b, "class")), "latency-bound");
    assert_true(fabs(json_number_value(json_object_get(b, "fraction_of_butterfly_ceiling")) -
                     0.4194304) < 1e-6);
    assert_true(fabs(json_number_value(json_object_get(b, "launch_floor_ns")) - 4000) < 1e-6);
    assert_int_equal(json_integer_value(json_object_get(b, "kernel_launches")), 2);
    const json_t *cl = json_object_get(root, "ceilings");
    assert_true(json_number_value(json_object_get(cl, "copy_bandwidth_Bps")) == 2e12);
    /* what the file says, read back, gives the same bound */
    nb_ceilings back;
    nb_bound again;
    assert_int_equal(nb_ceilings_from_report_json(root, &back), 1);
    assert_int_equal(nb_bound_of_case_json(cj, &back, &again), 1);
    assert_int_equal(again.cls, NB_BOUND_LATENCY);
    assert_int_equal(again.kernel_launches, 2);
    json_decref(root);
    free(js);
    char *t = nb_test_report_text(rep, NB_FORMAT_TABLE);
    assert_non_null(strstr(t, "Bounds and kernels"));
    assert_non_null(strstr(t, "42 % bfly, 42 % copy, 10 % launch: latency-bound"));
    assert_non_null(strstr(t, "rows: 128 threads, regs 97, local 8 B, smem 0+33024 B, occ 19 %"));
    free(t);
    char *csv = nb_test_report_text(rep, NB_FORMAT_CSV);
    assert_non_null(strstr(csv, ",frac_butterfly,launch_fraction,bound,kernels,"));
    assert_non_null(strstr(csv, ",latency-bound,\"columns: 128 threads"));
    free(csv);
    nb_report_destroy(rep);
}

static void test_unreported_kernels_say_why(void **state)
{
    (void)state;
    const nb_ceilings ceil = unit_ceilings();
    nb_report *rep = gpu_report(&ceil);
    nb_case *c = (nb_case *)nb_report_case_at(rep, 0);
    assert_int_equal(nb_case_set_kernels(c, NULL, 0, "variant 'gpu-x' does not report its "
                                                     "kernels"),
                     NB_OK);
    char *js = nb_test_report_text(rep, NB_FORMAT_JSON);
    json_error_t err;
    json_t *root = json_loads(js, 0, &err);
    const json_t *cj = json_array_get(json_object_get(root, "cases"), 0);
    assert_true(json_is_null(json_object_get(cj, "kernels")));
    assert_non_null(strstr(json_string_value(json_object_get(cj, "kernels_note")),
                           "does not report"));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(cj, "bound"),
                                                        "kernel_launches")),
                     1);
    json_decref(root);
    free(js);
    char *md = nb_test_report_text(rep, NB_FORMAT_MD);
    assert_non_null(strstr(md, "| not reported: variant 'gpu-x' does not report its kernels |"));
    free(md);
    nb_report_destroy(rep);
}

/* A timed one-GPU stage case of log N 10 on `gpus` GPUs: 3 forward and 1
 * inverse limb-transforms, 2e6 bytes a launch unless `bytes` is NAN (not
 * recorded), 1 ms median, three kernels launched five times in all. */
static nb_report *stage_report(const nb_ceilings *ceil, long long gpus, double bytes)
{
    nb_report *rep = NULL;
    assert_int_equal(nb_report_create(&rep, "run"), NB_OK);
    nb_report_set_ceilings(rep, ceil);
    nb_case *c = NULL;
    assert_int_equal(nb_case_create(&c, "stage", NB_CACHE_COLD, "gpu-x", NB_BACKEND_GPU,
                                    "keyswitch set l=3"),
                     NB_OK);
    assert_int_equal(nb_case_param_int(c, "log_n", 10), NB_OK);
    assert_int_equal(nb_case_param_int(c, "word_bits", 64), NB_OK);
    assert_int_equal(nb_case_param_int(c, "gpus", gpus), NB_OK);
    assert_int_equal(nb_case_metric(c, "ntt_fwd_limbs", 3), NB_OK);
    assert_int_equal(nb_case_metric(c, "ntt_inv_limbs", 1), NB_OK);
    if (!isnan(bytes))
        assert_int_equal(nb_case_metric(c, "bytes_per_launch", bytes), NB_OK);
    const double s[3] = {1e-3, 1e-3, 1e-3}, clk[3] = {1980, 1980, 1980};
    nb_bench_result r = nb_test_result(NB_BACKEND_GPU, 1, s, clk, 3);
    assert_int_equal(nb_case_set_result(c, &r), NB_OK);
    nb_bench_result_free(&r);
    nb_ntt_kernel k[3];
    memset(k, 0, sizeof k);
    for (int i = 0; i < 3; i++) {
        snprintf(k[i].name, sizeof k[i].name, "kernel_%d", i);
        k[i].block_threads = 256;
        k[i].launches = i == 2 ? 3 : 1;
        k[i].blocks = 64;
        k[i].regs = 40;
        k[i].blocks_per_sm = 8;
        k[i].occupancy = 1.0;
    }
    assert_int_equal(nb_case_set_kernels(c, k, 3, NULL), NB_OK);
    assert_int_equal(nb_report_add_case(rep, c), NB_OK);
    return rep;
}

/* A one-GPU stage case is classified from its metrics: bytes_per_launch for
 * the copy floor, its NTTs' butterflies (N/2 log N per limb-transform) for the
 * butterfly floor, every kernel launch for the launch floor; the same in the
 * report and read back from its JSON. A case on two GPUs, or without its
 * bytes, is not classified. */
static void test_one_gpu_stage_case_is_classified_from_its_metrics(void **state)
{
    (void)state;
    nb_ceilings ceil = unit_ceilings();
    ceil.copy_Bps = 4e9;            /* 2e6 bytes: 0.5 ms, half of the 1 ms */
    ceil.butterflies_per_s = 1e8;   /* 4 x 512 x 10 butterflies: 0.2048 ms */
    ceil.launch_ns = 1e5;           /* 0.1 ms + 4 x 0.05 ms: 0.3 ms */
    ceil.boundary_ns = 5e4;
    nb_report *rep = stage_report(&ceil, 1, 2e6);
    char *js = nb_test_report_text(rep, NB_FORMAT_JSON);
    json_error_t err;
    json_t *root = json_loads(js, 0, &err);
    assert_non_null(root);
    const json_t *cj = json_array_get(json_object_get(root, "cases"), 0);
    nb_bound b;
    assert_int_equal(nb_bound_of_case_json(cj, &ceil, &b), 1);
    assert_true(fabs(b.frac_copy - 0.5) < 1e-9);
    assert_true(fabs(b.frac_butterfly - 0.2048) < 1e-9);
    assert_true(fabs(b.frac_launch - 0.3) < 1e-9);
    assert_int_equal(b.kernel_launches, 5);
    assert_int_equal(b.cls, NB_BOUND_MEMORY);
    const json_t *bj = json_object_get(cj, "bound");
    assert_true(json_is_object(bj));
    assert_string_equal(json_string_value(json_object_get(bj, "class")), "memory-bound");
    json_decref(root);
    free(js);
    char *t = nb_test_report_text(rep, NB_FORMAT_TABLE);
    assert_non_null(strstr(t, "stage gpu-x keyswitch set l=3: 20 % bfly, 50 % copy, 30 % launch: "
                              "memory-bound"));
    free(t);
    nb_report_destroy(rep);

    for (int k = 0; k < 2; k++) {
        rep = stage_report(&ceil, k ? 1 : 2, k ? NAN : 2e6);
        js = nb_test_report_text(rep, NB_FORMAT_JSON);
        root = json_loads(js, 0, &err);
        assert_non_null(root);
        cj = json_array_get(json_object_get(root, "cases"), 0);
        assert_int_equal(nb_bound_of_case_json(cj, &ceil, &b), 0);
        assert_null(json_object_get(cj, "bound"));
        json_decref(root);
        free(js);
        nb_report_destroy(rep);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DATA-DIR\n", argv[0]);
        return 2;
    }
    data_dir = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded_h100_cases_get_their_class),
        cmocka_unit_test(test_threshold_separates_bound_from_latency),
        cmocka_unit_test(test_launch_floor_counts_every_kernel),
        cmocka_unit_test(test_word_size_picks_its_butterfly_ceiling),
        cmocka_unit_test(test_unknown_ceilings_and_times_are_left_out),
        cmocka_unit_test(test_defaults_scale_with_sms_and_clock),
        cmocka_unit_test(test_calibration_file_overrides_defaults),
        cmocka_unit_test(test_old_reports_use_their_environment),
        cmocka_unit_test(test_report_carries_ceilings_kernels_and_bound),
        cmocka_unit_test(test_unreported_kernels_say_why),
        cmocka_unit_test(test_one_gpu_stage_case_is_classified_from_its_metrics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

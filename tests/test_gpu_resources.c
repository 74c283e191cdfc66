/* GPU tests of the kernel resources a report records: nb_ntt_kernel_describe
 * on kernels of known static shared memory, local memory and register
 * spills (tests/gpu_resources_kernel.cu, a shared module with its own CUDA
 * runtime, as a plug-in is) agrees with the CUDA runtime and with what they
 * were built to have; a description the runtime refuses fails and clears
 * the runtime's error; every built-in GPU variant reports the kernels its
 * calls launch, each launchable (at least one block per SM); and `nttbench
 * run` writes them, with each case's bound, into its JSON. Exits 77 (skip)
 * without a device. argv[1] = the nttbench executable, argv[2] = the
 * kernels' module. */
#include <dlfcn.h>
#include <string.h>

#include "testutil.h"
#include "cliutil.h"

/* From the module (dlsym). */
static const size_t *known_smem_bytes, *known_local_bytes;
static nb_status (*describe)(int which, unsigned block, size_t dyn_smem, nb_ntt_kernel *out);
static nb_status (*query)(int which, unsigned block, size_t dyn_smem, int *regs,
                          size_t *local_bytes, size_t *smem_static, int *per_sm);
static nb_status (*describe_no_kernel)(nb_ntt_kernel *out, int *last_error);

static int load_module(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
        return -1;
    }
    known_smem_bytes = dlsym(h, "nb_test_known_smem_bytes");
    known_local_bytes = dlsym(h, "nb_test_known_local_bytes");
    *(void **)&describe = dlsym(h, "nb_test_describe");
    *(void **)&query = dlsym(h, "nb_test_query");
    *(void **)&describe_no_kernel = dlsym(h, "nb_test_describe_no_kernel");
    return known_smem_bytes && known_local_bytes && describe && query && describe_no_kernel ? 0
                                                                                           : -1;
}

enum { KNOWN = 0, SPILLS = 1 };

/* The record of kernel `which` equals the runtime's answers. */
static nb_ntt_kernel described(int which, unsigned block, size_t dyn_smem)
{
    nb_ntt_kernel k;
    int regs = 0, per_sm = 0;
    size_t local = 0, smem = 0;
    EXPECT_STATUS(describe(which, block, dyn_smem, &k), NB_OK);
    EXPECT_STATUS(query(which, block, dyn_smem, &regs, &local, &smem, &per_sm), NB_OK);
    assert_int_equal(k.regs, regs);
    assert_int_equal(k.local_bytes, local);
    assert_int_equal(k.smem_static, smem);
    assert_int_equal(k.smem_dynamic, dyn_smem);
    assert_int_equal(k.blocks_per_sm, per_sm);
    assert_int_equal(k.block_threads, block);
    assert_true(k.occupancy > 0.0 && k.occupancy <= 1.0);
    return k;
}

static void test_known_kernel_has_its_shared_and_local_memory(void **state)
{
    (void)state;
    const nb_ntt_kernel k = described(KNOWN, 128, 0);
    assert_string_equal(k.name, "known");
    assert_int_equal(k.smem_static, *known_smem_bytes);
    assert_true(k.local_bytes >= *known_local_bytes); /* the dynamically indexed array */
    assert_true(k.regs > 0);
    /* 4 warps a block: the occupancy is blocks x 4 over the SM's warps (64 on sm_80..sm_90) */
    const double sm_warps = 4.0 * k.blocks_per_sm / k.occupancy;
    assert_true(sm_warps >= 32 && sm_warps <= 64);
}

static void test_dynamic_shared_memory_lowers_occupancy(void **state)
{
    (void)state;
    const nb_ntt_kernel none = described(KNOWN, 128, 0);
    const nb_ntt_kernel big = described(KNOWN, 128, 96 * 1024);
    assert_true(big.blocks_per_sm < none.blocks_per_sm);
    assert_true(big.blocks_per_sm >= 1);
    assert_true(big.occupancy < none.occupancy);
}

static void test_register_limit_spills_to_local_memory(void **state)
{
    (void)state;
    const nb_ntt_kernel k = described(SPILLS, 1024, 0);
    assert_true(k.regs <= 32); /* __launch_bounds__(1024, 2): 64 Ki registers / 2048 threads */
    assert_true(k.local_bytes > 0);
    assert_int_equal(k.smem_static, 0);
}

/* The kernels variant `name` reports for a call; n of them (at most 4). */
static size_t variant_kernels(const char *name, unsigned log_n, size_t limbs, int inverse,
                              nb_ntt_kernel *k)
{
    const nb_ntt_variant *v = nb_ntt_variant_find(name);
    assert_non_null(v);
    uint64_t q[8];
    const unsigned bits = v->word_bits == 32 ? 31 : 60;
    assert_int_equal(nb_primes_generate(log_n, bits, limbs, NULL, 0, q), NB_OK);
    void *stream = NULL;
    assert_int_equal(nb_stream_create(&stream), NB_OK);
    nb_ntt *ntt = NULL;
    EXPECT_STATUS(nb_ntt_create(&ntt, v, log_n, q, NULL, limbs, stream), NB_OK);
    size_t n = 0;
    EXPECT_STATUS(nb_ntt_kernels(ntt, inverse, 0, limbs, k, 4, &n), NB_OK);
    for (size_t i = 0; i < n && i < 4; i++)
        if (k[i].regs <= 0 || k[i].blocks_per_sm < 1 || !(k[i].occupancy > 0) ||
            k[i].launches < 1 || k[i].blocks < 1 || !k[i].name[0])
            fail_msg("%s log N %u L=%zu kernel %zu '%s': regs %d, %d blocks/SM, occupancy %g, "
                     "%u launches, %llu blocks", name, log_n, limbs, i, k[i].name, k[i].regs,
                     k[i].blocks_per_sm, k[i].occupancy, k[i].launches, k[i].blocks);
    nb_ntt_destroy(ntt);
    nb_stream_destroy(stream);
    return n;
}

/* A description the runtime refuses fails with a message and leaves no error
 * behind for the next launch's check. */
static void test_failed_description_clears_the_runtime_error(void **state)
{
    (void)state;
    nb_ntt_kernel k;
    int last = -1;
    EXPECT_STATUS(describe_no_kernel(&k, &last), NB_ERR_CUDA);
    assert_non_null(strstr(nb_last_error(), "not a kernel"));
    assert_int_equal(last, 0);
}

static void test_builtin_variants_report_the_kernels_of_their_calls(void **state)
{
    (void)state;
    nb_ntt_kernel k[4];
    assert_int_equal(variant_kernels("gpu-radix2", 12, 2, 0, k), 1);
    assert_int_equal(k[0].launches, 12); /* one per stage */
    assert_int_equal(k[0].smem_dynamic, 0);
    assert_int_equal(variant_kernels("gpu-radix2-32", 10, 1, 1, k), 1);
    assert_int_equal(variant_kernels("gpu-smem", 16, 2, 0, k), 2);
    assert_non_null(strstr(k[0].name, "columns"));
    assert_int_equal(k[0].smem_dynamic, 32768); /* a 4096-coefficient tile */
    assert_int_equal(variant_kernels("gpu-smem", 16, 2, 1, k), 2);
    assert_non_null(strstr(k[0].name, "rows"));
    assert_int_equal(variant_kernels("gpu-regs", 12, 1, 0, k), 1); /* one kernel to 2^13 */
    assert_int_equal(variant_kernels("gpu-regs", 16, 8, 1, k), 2);
    assert_non_null(strstr(k[0].name, "rows"));
    const char *const fast[] = {"gpu-fast", "gpu-fast32"};
    for (int v = 0; v < 2; v++) {
        /* the small shape (4 per thread) and the large one (16 per thread) */
        assert_int_equal(variant_kernels(fast[v], 12, 1, 0, k), 2);
        assert_non_null(strstr(k[0].name, "columns"));
        assert_non_null(strstr(k[1].name, ", 4/thread"));
        assert_int_equal(variant_kernels(fast[v], 16, 8, 1, k), 2);
        assert_non_null(strstr(k[0].name, "rows"));
        assert_non_null(strstr(k[1].name, ", 16/thread"));
        assert_true(k[0].smem_dynamic > 0);
    }
}

/* Guards: a run whose JSON lacks the kernels of a GPU case or its bound. */
static void test_run_records_kernels_and_bound(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args,
             "run --variant gpu-radix2,gpu-fast --tier warm --logn 12 --limbs 2 --min-time 0.01 "
             "--timeout 2 --no-progress --format json --output %s/r.json", dir);
    assert_int_equal(run(args), 0);
    json_t *r = load_json("r.json");
    assert_true(json_is_object(json_object_get(r, "ceilings")));
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(r, "cases"), i, c) {
        const char *v = json_string_value(json_object_get(c, "variant"));
        json_t *ks = json_object_get(c, "kernels"), *b = json_object_get(c, "bound");
        assert_int_equal(json_array_size(ks), !strcmp(v, "gpu-radix2") ? 1 : 2);
        json_t *k0 = json_array_get(ks, 0);
        assert_true(json_integer_value(json_object_get(k0, "regs")) > 0);
        assert_true(json_number_value(json_object_get(k0, "occupancy")) > 0);
        assert_int_equal(json_integer_value(json_object_get(b, "kernel_launches")),
                         !strcmp(v, "gpu-radix2") ? 12 : 2);
        const char *cls = json_string_value(json_object_get(b, "class"));
        assert_non_null(cls);
        assert_true(strstr("compute-bound memory-bound launch-bound latency-bound", cls) != NULL);
    }
    json_decref(r);
    snprintf(args, sizeof args, "report %s/r.json", dir);
    assert_int_equal(run(args), 0);
    char *out = slurp("out.txt");
    assert_non_null(strstr(out, "regs "));
    free(out);
}

int main(int argc, char **argv)
{
    nb_test_seed_init();
    if (argc < 3) {
        fprintf(stderr, "usage: %s NTTBENCH KERNELS-MODULE\n", argv[0]);
        return 2;
    }
    nb_test_require_gpu_or_skip();
    exe = argv[1];
    if (load_module(argv[2]) != 0)
        return 1;
    if (cli_scratch_create("nb_gpu_resources_") != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_kernel_has_its_shared_and_local_memory),
        cmocka_unit_test(test_dynamic_shared_memory_lowers_occupancy),
        cmocka_unit_test(test_register_limit_spills_to_local_memory),
        cmocka_unit_test(test_failed_description_clears_the_runtime_error),
        cmocka_unit_test(test_builtin_variants_report_the_kernels_of_their_calls),
        cmocka_unit_test(test_run_records_kernels_and_bound),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cli_scratch_remove();
    return rc;
}

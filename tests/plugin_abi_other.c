/* A plug-in built for another plug-in ABI than this library's: it exports
 * nb_plugin_abi_version = NB_PLUGIN_ABI_VERSION + 1, as one compiled against
 * a later version's headers would. nttbench must refuse it before calling
 * nb_plugin_init, which would register "abi-other" (tests/test_cli_robust.c). */
#include "ntt/variant.h"

__attribute__((visibility("default"))) const unsigned nb_plugin_abi_version =
    NB_PLUGIN_ABI_VERSION + 1;

static nb_status plan_create(void **plan, const nb_ntt_tables *t, void *stream)
{
    (void)stream;
    *plan = (void *)t;
    return NB_OK;
}

static void plan_destroy(void *plan) { (void)plan; }

static nb_status transform(void *plan, void *data, size_t first, size_t count, void *stream)
{
    (void)plan, (void)data, (void)first, (void)count, (void)stream;
    return NB_OK;
}

static const nb_ntt_variant other = {
    .name = "abi-other",
    .description = "never registered: built for another plug-in ABI",
    .backend = NB_BACKEND_CPU,
    .min_log_n = 1,
    .max_log_n = 17,
    .word_bits = 64,
    .max_prime_bits = 62,
    .plan_create = plan_create,
    .plan_destroy = plan_destroy,
    .forward = transform,
    .inverse = transform,
};

__attribute__((visibility("default"))) nb_status nb_plugin_init(void)
{
    return nb_ntt_variant_register(&other);
}
